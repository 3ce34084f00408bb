"""English noun inflection (singular ↔ plural) from the `inflect` library, loaded on first use.

inflect decorates its functions with typeguard's `@typechecked`, which re-parses and recompiles
each of them when the module is imported: over a second on this machine, most of a cold first
question. nl2sql only ever passes it plain strings, so it is imported here with that decorator
as the identity (for inflect's own import only; every other user of typeguard keeps it): the
same functions and results, without the instrumentation. Nothing imports inflect until a word
needs it.
"""

from __future__ import annotations

import sys
from functools import lru_cache
from typing import Any


def _unchecked(target: Any = None, **_options: Any) -> Any:
    """`@typechecked` and `@typechecked(...)` as no-ops."""
    return target if target is not None else (lambda function: function)


@lru_cache(maxsize=1)
def inflect_engine() -> Any:
    """The one inflect engine of the process (imported and built on the first call)."""
    if "inflect" not in sys.modules:
        import typeguard

        checked = typeguard.typechecked
        typeguard.typechecked = _unchecked
        try:
            import inflect
        finally:
            typeguard.typechecked = checked
    import inflect

    return inflect.engine()


def plural_phrase(phrase: str) -> str:
    """The phrase with its last word in the plural ("branch" → "branches", "order item" →
    "order items", "person" → "people"); a last word that is already plural, or an acronym
    ("IDs"), keeps its form."""
    head, _, last = phrase.rpartition(" ")
    if not last or not last[-1].isalpha():
        return phrase
    if last.isupper() and len(last) > 1:
        plural = last + "s"
    elif is_plural(last):
        plural = last  # "customers", "people", "data"
    else:
        plural = inflect_engine().plural_noun(last) or last
    return f"{head} {plural}" if head else plural


def singular_phrase(phrase: str) -> str:
    """The phrase with its last word in the singular ("categories" → "category", "people" →
    "person"); a singular last word keeps its form."""
    head, _, last = phrase.rpartition(" ")
    if not last or not last[-1].isalpha():
        return phrase
    single = inflect_engine().singular_noun(last) or last
    return f"{head} {single}" if head else single


def is_plural(phrase: str) -> bool:
    """Whether the phrase's last word is a plural noun ("customers", "people", "IDs")."""
    last = phrase.rpartition(" ")[2]
    if len(last) > 2 and last[:-1].isupper() and last.endswith("s"):
        return True
    return bool(last) and last[-1].isalpha() and bool(inflect_engine().singular_noun(last))
