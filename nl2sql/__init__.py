"""nl2sql: plain-language questions over your databases and files, answered through a validated
LangGraph pipeline.

    >>> import nl2sql
    >>> session = nl2sql.connect("demo")            # doctest: +SKIP
    >>> session.ask("How many orders were placed in 2024?").answer   # doctest: +SKIP

Importing this package opens no file, configures no logging and touches no network: the public
names below are loaded on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = [
    "connect",
    "Session",
    "QueryResult",
    "UserContext",
    "Settings",
    "NL2SQLError",
    "ConfigError",
    "ErrorCode",
    "load_ipython_extension",
]

_LAZY = {
    "connect": "nl2sql.wiring",
    "Session": "nl2sql.session",
    "QueryResult": "nl2sql.result",
    "UserContext": "nl2sql.security.rbac",
    "Settings": "nl2sql.settings",
    "NL2SQLError": "nl2sql.errors",
    "ConfigError": "nl2sql.errors",
    "ErrorCode": "nl2sql.errors",
}

if TYPE_CHECKING:
    from nl2sql.errors import ConfigError, ErrorCode, NL2SQLError
    from nl2sql.result import QueryResult
    from nl2sql.security.rbac import UserContext
    from nl2sql.session import Session
    from nl2sql.settings import Settings
    from nl2sql.wiring import connect


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext nl2sql`: register the %nl2sql magics and the %config NL2SQL settings."""
    from nl2sql.notebook.magic import load_ipython_extension as load

    load(ipython)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'nl2sql' has no attribute {name!r}")
