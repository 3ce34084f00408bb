"""English noun inflection (singular ↔ plural) from the `inflect` library, loaded on first use.

Importing inflect costs over a second (its functions are type-checked as they are defined), and
most questions never need it: lemminflect's dictionary answers first, and inflect's rules are the
fallback for what it does not know. So nothing imports inflect until a word needs it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def inflect_engine() -> Any:
    """The one inflect engine of the process (imported and built on the first call)."""
    import inflect

    return inflect.engine()
