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
