"""The notebook facade: the %nl2sql magics, the run widget and the static HTML / text views.

Importing this package loads nothing heavy; `%load_ext nl2sql` calls `load_ipython_extension`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nl2sql.session import Session


def load_ipython_extension(ipython: Any) -> None:
    """Register %nl2sql / %%nl2sql and the %config NL2SQL settings."""
    from nl2sql.notebook.magic import load_ipython_extension as load

    load(ipython)


def magic_session() -> Session:
    """The Session `%nl2sql` runs on in this kernel (what an inserted SQL cell calls `.sql()` on).

    RuntimeError outside IPython or before `%load_ext nl2sql`."""
    from IPython import get_ipython

    from nl2sql.notebook.magic import NL2SQL

    shell = get_ipython()
    magic = next((c for c in getattr(shell, "configurables", []) if isinstance(c, NL2SQL)), None)
    if magic is None:
        raise RuntimeError("the nl2sql extension is not loaded here: run %load_ext nl2sql first")
    return magic.session()
