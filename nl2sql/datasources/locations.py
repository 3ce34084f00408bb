"""Datasource locations: which engine and which file a URL or path names.

URLs follow SQLAlchemy's convention: `sqlite:///relative.db`, `sqlite:////absolute/path.db`,
and the same for `duckdb://`, `csv://`, `tsv://` and `parquet://`. A bare path is recognized by
its file header when it exists (a `.db` file may be either engine), otherwise by its extension;
a `.csv`, `.tsv` or `.parquet` path (or glob) is a file source. Any other URL is a SQLAlchemy
URL (`postgresql://`, `mysql://`, `mariadb://`, `mssql+pyodbc://`, ...) for an engine sqlglot
has a dialect for. A Spark source is named by its master — `local[N]`, `spark://host:port` —
or a Spark Connect URL `sc://host:port`, each optionally followed by `?database=NAME`. Pure parsing: no adapter is imported here, so the factory and the frames
adapter both use it without importing each other.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qs

from nl2sql.errors import ConfigError

_EXTENSIONS = {
    ".duckdb": "duckdb",
    ".db": "duckdb",
    ".ddb": "duckdb",
    ".sqlite": "sqlite",
    ".sqlite3": "sqlite",
    ".db3": "sqlite",
}
_SCHEMES = {"duckdb": "duckdb", "sqlite": "sqlite", "sqlite3": "sqlite"}
#: URL schemes and file suffixes of file sources, with DuckDB's reader for each.
FILE_SCHEMES = {"csv": "read_csv", "tsv": "read_csv", "parquet": "read_parquet"}
_FILE_SUFFIXES = {
    ".csv": "read_csv",
    ".tsv": "read_csv",
    ".csv.gz": "read_csv",
    ".tsv.gz": "read_csv",
    ".parquet": "read_parquet",
    ".pq": "read_parquet",
}


_SPARK_LOCAL = re.compile(r"local(\[(\d+|\*)(,\s*\d+)?\])?", re.IGNORECASE)
_SPARK_SCHEMES = ("spark://", "sc://")


def spark_location(id: str, target: str) -> tuple[str, str | None] | None:
    """(Spark master, database or None) when `target` names a Spark source, else None.

    >>> spark_location("s", "local[2]"), spark_location("s", "sc://h:15002?database=shop")
    (('local[2]', None), ('sc://h:15002', 'shop'))
    >>> spark_location("s", "postgresql://h/db") is None
    True
    """
    master, _, query = target.strip().partition("?")
    if not (_SPARK_LOCAL.fullmatch(master) or master.lower().startswith(_SPARK_SCHEMES)):
        return None
    params = parse_qs(query, keep_blank_values=True)
    unknown = sorted(set(params) - {"database"})
    if unknown or any(len(v) != 1 or not v[0] for v in params.values()):
        raise ConfigError(
            f"datasource {id!r}: a Spark location takes one option, ?database=NAME "
            f"(got {query!r})"
        )
    database = params["database"][0] if params else None
    return master, database


def file_reader(target: str) -> str | None:
    """DuckDB's reader for a file URL or path (CSV, TSV, Parquet, or a glob of them), or None.

    >>> file_reader("data/*.parquet"), file_reader("csv:///tmp/x.csv"), file_reader("w.duckdb")
    ('read_parquet', 'read_csv', None)
    """
    scheme, sep, _ = target.partition("://")
    if sep:
        return FILE_SCHEMES.get(scheme.lower())
    name = target.lower()
    return next(
        (reader for suffix, reader in _FILE_SUFFIXES.items() if name.endswith(suffix)), None
    )


def file_path(target: str) -> str:
    """The path (or glob) of a file URL: csv:///rel/x.csv -> rel/x.csv, csv:////abs -> /abs."""
    scheme, sep, rest = target.partition("://")
    if sep and scheme.lower() in FILE_SCHEMES:
        target = rest[1:] if rest.startswith("/") else rest
    return str(Path(target).expanduser())


def is_server_url(target: str) -> bool:
    """A URL whose scheme names an engine sqlglot has a dialect for, other than the file ones."""
    from nl2sql.dialects import DIALECTS

    scheme, sep, _ = target.partition("://")
    backend = scheme.lower().split("+")[0]
    return bool(sep) and backend not in _SCHEMES and backend in DIALECTS


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
    raise ConfigError(
        f"datasource {id!r}: unsupported URL scheme {scheme!r}; use a database URL "
        "(postgresql://, mysql://, ...), a DuckDB or SQLite file, or a CSV/Parquet file"
    )


def _engine_of_path(id: str, path: Path) -> str:
    sniffed = _sniff(path)
    if sniffed:
        return sniffed
    engine = _EXTENSIONS.get(path.suffix.lower())
    if engine is None:
        raise ConfigError(
            f"datasource {id!r}: cannot tell the engine of {path} (expected .duckdb, .db, .sqlite, "
            ".sqlite3, .csv, .tsv or .parquet, or a database URL)"
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
