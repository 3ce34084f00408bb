"""open_datasource: pick and open the adapter for a URL or a file path.

URLs follow SQLAlchemy's convention: `sqlite:///relative.db`, `sqlite:////absolute/path.db`,
and the same for `duckdb://`. A bare path is recognized by its file header when it exists (a
`.db` file may be either engine), otherwise by its extension.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from nl2sql.errors import ConfigError

if TYPE_CHECKING:
    from nl2sql.datasources.base import DatasourceAdapter

_EXTENSIONS = {
    ".duckdb": "duckdb",
    ".db": "duckdb",
    ".ddb": "duckdb",
    ".sqlite": "sqlite",
    ".sqlite3": "sqlite",
    ".db3": "sqlite",
}
_SCHEMES = {"duckdb": "duckdb", "sqlite": "sqlite", "sqlite3": "sqlite"}
_LATER = ("postgres", "postgresql", "mysql", "mariadb", "mssql", "oracle", "snowflake", "bigquery")


def open_datasource(id: str, url_or_path: str | Path, **opts: Any) -> DatasourceAdapter:
    """Open a read-only adapter for a DuckDB or SQLite URL or file path.

    `opts` go to the adapter: description, row_cap, timeout_s, sample_values.
    Raises ConfigError (one line) for anything else.
    """
    engine, path = resolve_target(id, str(url_or_path))
    if engine == "duckdb":
        from nl2sql.datasources.duckdb import DuckDBAdapter

        return DuckDBAdapter(id, path, **opts)
    from nl2sql.datasources.sqlite import SQLiteAdapter

    return SQLiteAdapter(id, path, **opts)


def resolve_target(id: str, target: str) -> tuple[str, Path]:
    """(engine, file path) for a URL or path; ConfigError when it names no supported engine.

    >>> engine, path = resolve_target("w", "duckdb:///data/w.duckdb")
    >>> engine, path.as_posix()
    ('duckdb', 'data/w.duckdb')
    >>> engine, path = resolve_target("c", "sqlite:////tmp/crm.sqlite")
    >>> engine, path.as_posix()
    ('sqlite', '/tmp/crm.sqlite')
    """
    scheme, sep, rest = target.partition("://")
    if not sep:
        path = Path(target).expanduser()
        return _engine_of_path(id, path), path
    scheme = scheme.lower().split("+")[0]
    if scheme in _SCHEMES:
        if not rest.startswith("/") or "?" in rest or rest in ("/", "/:memory:"):
            raise ConfigError(
                f"datasource {id!r}: expected {scheme}:///relative/path or {scheme}:////absolute/path "
                "to a database file"
            )
        return _SCHEMES[scheme], Path(rest[1:]).expanduser()
    if scheme in _LATER:
        raise ConfigError(
            f"datasource {id!r}: {scheme} URLs are not supported yet (PostgreSQL and MySQL come "
            "later through SQLAlchemy); DuckDB and SQLite files are"
        )
    raise ConfigError(
        f"datasource {id!r}: unsupported URL scheme {scheme!r}; use a DuckDB or SQLite file"
    )


def _engine_of_path(id: str, path: Path) -> str:
    sniffed = _sniff(path)
    if sniffed:
        return sniffed
    engine = _EXTENSIONS.get(path.suffix.lower())
    if engine is None:
        raise ConfigError(
            f"datasource {id!r}: cannot tell the engine of {path} (expected .duckdb, .db, .sqlite or "
            ".sqlite3; PostgreSQL and MySQL come later through SQLAlchemy)"
        )
    return engine


def _sniff(path: Path) -> str | None:
    """The engine a database file's header names, or None (missing, unreadable, other)."""
    try:
        with path.open("rb") as fh:
            header = fh.read(16)
    except OSError:
        return None
    if header.startswith(b"SQLite format 3\x00"):
        return "sqlite"
    if header[8:12] == b"DUCK":
        return "duckdb"
    return None
