"""A deterministic lexical embedding that works offline: no model, no download, no chromadb import.

Text is split into words (identifiers too: ``order_items`` and ``orderItems`` both read as
"order items"), generic words are dropped, words are stemmed (plurals, -ing, -ed) and expanded with
a small table of generic analytics synonyms, then word, synonym-concept and character n-gram
features are hashed (signed) into a fixed number of dimensions and L2-normalized. The same text
gives the same vector in every process, which is what a persisted collection needs.

The class follows chromadb's embedding-function protocol (``name``, ``get_config``,
``build_from_config``, ``__call__``) without importing chromadb, so importing it stays cheap; the
vector store registers it with chromadb before it opens a collection.
"""

from __future__ import annotations

import math
import re
import zlib
from typing import Any

import numpy as np

_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_WORD = re.compile(r"[a-z]+|[0-9]+")

# Question scaffolding and English function words: they say how to ask, not what about.
STOPWORDS = frozenset(
    """a an the of in on at to for from by with and or not no is are was were be been being do does
    did have has had it its this that these those there their they them we our you your i me my he
    she his her as if than then so such into onto over under per each every all any some which what
    who whom whose when where why how many much more most less least few show list give tell find get
    display return number count total sum average avg mean max maximum min minimum top bottom highest
    lowest largest smallest biggest best worst first last please can could would should will also
    only just between across among about id ids table tables column columns data record records
    info information value values""".split()
)

# Generic analytics vocabulary, as surface words; each group shares one concept feature.
SYNONYM_GROUPS: tuple[tuple[str, ...], ...] = (
    ("revenue", "sales", "sold", "sell", "amount", "income", "turnover", "earnings", "spend"),
    ("price", "cost", "fee", "charge", "tariff"),
    ("customer", "client", "buyer", "shopper", "purchaser", "consumer", "patron"),
    ("employee", "staff", "worker", "personnel", "emp", "colleague", "hired"),
    ("ticket", "case", "issue", "incident", "complaint"),
    ("product", "item", "goods", "merchandise", "article", "sku"),
    ("order", "purchase", "bought", "buy"),
    ("supplier", "vendor", "provider", "manufacturer"),
    ("department", "dept", "division"),
    ("location", "place", "site", "address", "city", "region"),
    ("country", "nation"),
    ("quantity", "qty", "volume"),
    ("salary", "wage", "pay", "compensation", "payroll"),
    ("payment", "paid", "transaction", "invoice", "bill"),
    ("rating", "score", "review", "feedback", "stars"),
    ("shipment", "shipping", "delivery", "dispatch"),
    ("category", "type", "kind", "class", "genre", "group"),
    ("user", "member", "account", "subscriber"),
    ("date", "time", "day", "timestamp"),
    ("name", "title", "label"),
    ("description", "desc", "detail", "note", "comment"),
    ("start", "begin", "open"),
    ("end", "finish", "close"),
)

# Feature weights: a word counts fully, a shared concept a little less, spelling overlap least.
WORD_WEIGHT = 1.0
CONCEPT_WEIGHT = 0.7
NGRAM_WEIGHT = 0.5


def split_identifiers(text: str) -> str:
    """Turn identifiers into words: snake_case, camelCase, dotted names.

    >>> split_identifiers("orderItems.unit_price")
    'order Items unit price'
    """
    text = _CAMEL.sub(" ", text)
    return re.sub(r"[_.\-/]+", " ", text)


def stem(word: str) -> str:
    """A light suffix stripper: plurals, -ing, -ed, final -e (enough for schema words).

    >>> [stem(w) for w in ["orders", "categories", "shipped", "ordering", "rating", "rate"]]
    ['order', 'category', 'ship', 'order', 'rat', 'rat']
    """
    if len(word) <= 3 or word.isdigit():
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith(("sses", "shes", "ches", "xes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            # "shipped" -> "shipp" -> "ship"; keep "ll"/"ss" doubles ("billed" -> "bill")
            if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "lsz":
                word = word[:-1]
            break
    # a final e comes and goes with suffixes ("price"/"priced"/"pricing"): drop it always
    if len(word) >= 4 and word.endswith("e") and not word.endswith("ee"):
        word = word[:-1]
    return word


# built from stems so "sales", "sale" and "sold" all reach the same concept
_CONCEPT = {stem(w): group[0] for group in SYNONYM_GROUPS for w in group}


def terms(text: str) -> list[str]:
    """The stemmed content words of `text`, in order, stopwords removed."""
    words = _WORD.findall(split_identifiers(text).lower())
    return [stem(w) for w in words if w not in STOPWORDS and len(w) > 1]


def _bucket(feature: str, dims: int) -> tuple[int, float]:
    """Stable (index, sign) for a feature: crc32 is the same in every process, unlike hash()."""
    h = zlib.crc32(feature.encode("utf-8"))
    return h % dims, (1.0 if (h >> 31) & 1 else -1.0)


def _features(text: str) -> dict[str, float]:
    """Weighted sparse features: sublinear term counts, concepts and character n-grams."""
    counts: dict[str, int] = {}
    for term in terms(text):
        counts[term] = counts.get(term, 0) + 1
    feats: dict[str, float] = {}
    for term, n in counts.items():
        weight = 1.0 + math.log(n)  # a word repeated in a long doc should not drown the rest
        feats["w:" + term] = feats.get("w:" + term, 0.0) + WORD_WEIGHT * weight
        concept = _CONCEPT.get(term)
        if concept is not None:
            feats["c:" + concept] = feats.get("c:" + concept, 0.0) + CONCEPT_WEIGHT * weight
        grams = _char_ngrams(term)
        scale = math.sqrt(len(grams))  # the n-gram block of one word has norm NGRAM_WEIGHT
        for gram in grams:
            feats["g:" + gram] = feats.get("g:" + gram, 0.0) + NGRAM_WEIGHT * weight / scale
    return feats


def _char_ngrams(term: str) -> list[str]:
    padded = f"<{term}>"
    grams = [padded[i : i + n] for n in (3, 4) for i in range(len(padded) - n + 1)]
    return grams or [padded]


class CosineEmbeddingFunction:
    """The parts of chromadb's embedding-function protocol our offline embeddings share: current
    (not legacy), cosine space only, no config checks beyond each class's own."""

    def is_legacy(self) -> bool:
        return False

    def default_space(self) -> str:
        return "cosine"

    def supported_spaces(self) -> list[str]:
        return ["cosine"]

    @staticmethod
    def validate_config(config: dict[str, Any]) -> None:
        return None


class HashingEmbedding(CosineEmbeddingFunction):
    """Hashed lexical features as a dense, L2-normalized vector (a chromadb embedding function)."""

    def __init__(self, dims: int = 1024) -> None:
        if dims < 16:
            raise ValueError("dims must be at least 16")
        self.dims = dims

    def embed(self, text: str) -> np.ndarray:
        """One text → one float32 vector of unit length (all zeros when no content word)."""
        vec = np.zeros(self.dims, dtype=np.float32)
        for feature, weight in _features(text).items():
            index, sign = _bucket(feature, self.dims)
            vec[index] += sign * weight
        norm = float(np.linalg.norm(vec))
        return vec / norm if norm > 0 else vec

    def __call__(self, input: list[str]) -> list[np.ndarray]:  # noqa: A002 - chromadb's name
        """Embed a batch of documents (chromadb calls this)."""
        return [self.embed(text) for text in input]

    def embed_query(self, input: list[str]) -> list[np.ndarray]:  # noqa: A002
        """Embed query texts: the same space as documents."""
        return self(input)

    # --- chromadb embedding-function protocol -------------------------------------------------
    @staticmethod
    def name() -> str:
        """The name chromadb stores in a collection's configuration."""
        return "nl2sql_hashing"

    def get_config(self) -> dict[str, Any]:
        """Serializable settings, enough to rebuild an identical embedding in a new process."""
        return {"dims": self.dims}

    @staticmethod
    def build_from_config(config: dict[str, Any]) -> HashingEmbedding:
        """Rebuild from `get_config()` output."""
        return HashingEmbedding(dims=int(config.get("dims", 1024)))

    def validate_config_update(self, old: dict[str, Any], new: dict[str, Any]) -> None:
        # a different dimension would make every stored vector incomparable
        if new.get("dims", old.get("dims")) != old.get("dims"):
            raise ValueError("the hashing embedding's dims cannot change on an existing collection")
