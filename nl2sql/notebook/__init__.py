"""The notebook facade: the %nl2sql magics, the run widget and the static HTML / text views.

Importing this package loads nothing heavy; `%load_ext nl2sql` calls `load_ipython_extension`.
"""

from __future__ import annotations

from typing import Any


def load_ipython_extension(ipython: Any) -> None:
    """Register %nl2sql / %%nl2sql and the %config NL2SQL settings."""
    from nl2sql.notebook.magic import load_ipython_extension as load

    load(ipython)
