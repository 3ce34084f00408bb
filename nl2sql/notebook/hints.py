"""One-line hints for the magic's and the run widget's messages: a close datasource, table or column name."""

from __future__ import annotations

import difflib
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from nl2sql.result import QueryResult
    from nl2sql.session import Session

_WORD = re.compile(r"[A-Za-z][A-Za-z_]{2,}")
_CUTOFF = 0.8


def close_name(word: str, names: list[str]) -> str | None:
    """The known name closest to `word` (case-insensitive), when one is close enough.

    >>> close_name("wherehouse", ["warehouse", "crm"])
    'warehouse'
    >>> close_name("zzz", ["warehouse", "crm"]) is None
    True
    """
    lowered = {n.lower(): n for n in names}
    found = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=_CUTOFF)
    return lowered[found[0]] if found else None


def unknown_datasource(name: str, known: list[str]) -> str:
    """The message for `-d NAME` when NAME is not a datasource of the session."""
    message = f"unknown datasource {name!r}"
    close = close_name(name, known)
    if close:
        message += f"; did you mean {close!r}?"
    return message + f" (known: {', '.join(known)})"


def problem_line(result: QueryResult) -> str | None:
    """For a run that failed: one line with its first error and, where one helps, a hint."""
    if result.status not in ("error", "not_answerable"):
        return None
    first = result.first_error
    line = f"nl2sql: {result.status}"
    if first is not None:
        line += f": {first.message}"
    hint = question_hint(result.session, result)
    return f"{line} — hint: {hint}" if hint else line


def question_hint(session: Session, result: QueryResult) -> str | None:
    """For a question that failed: a table or column whose name is close to one of its words."""
    if result.status not in ("error", "not_answerable"):
        return None
    elsewhere = _in_other_source(session, result)
    if elsewhere:
        return elsewhere
    names = _schema_names(session, result.datasource)
    known = {n.lower() for n, _, _ in names}
    words = [w for w in _WORD.findall(result.question) if not _matches(w.lower(), known)]
    # tables first: a misspelt table is the likelier cause than a misspelt column
    for kind in ("table", "column"):
        owners = {n: owner for n, k, owner in reversed(names) if k == kind}
        for word in words:
            close = close_name(word, list(owners))
            if close:
                return f"no name matches {word!r}; did you mean {kind} {close!r} ({owners[close]})?"
    return None


def _in_other_source(session: Session, result: QueryResult) -> str | None:
    """With -d: a word of the question that is a table of another datasource."""
    if not result.datasource:
        return None
    words = {w.lower() for w in _WORD.findall(result.question)}
    for sid in session.datasources:
        if sid == result.datasource:
            continue
        for table in session.schema(sid).tables:
            if _matches(table.key.lower(), words):
                return f"{table.key!r} is a table of {sid!r}, not of {result.datasource!r}; try -d {sid}"
    return None


def _matches(word: str, known: set[str]) -> bool:
    singular = word[:-1] if word.endswith("s") else word
    return word in known or singular in known or f"{word}s" in known


def _schema_names(session: Session, datasource: str | None) -> list[tuple[str, str, str]]:
    """(name, "table" | "column", its datasource | its table) for what the user may see."""
    names: list[tuple[str, str, str]] = []
    for sid in [datasource] if datasource else session.datasources:
        for table in session.schema(sid).tables:
            names.append((table.key, "table", sid))
            names.extend((c.name, "column", table.key) for c in table.columns)
    return names
