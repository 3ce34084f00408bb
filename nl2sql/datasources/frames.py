"""In-memory and file sources: pandas/polars DataFrames, Arrow tables, CSV and Parquet files.

Everything is copied, at construction, into a DuckDB database file in a private temporary
folder, which is then opened like any DuckDB source: read-only, external access disabled,
configuration locked (`DuckDBAdapter`). Why a file and not views in an in-memory database:
an in-memory DuckDB cannot be opened read-only, so a `DROP` or `INSERT` would succeed on it;
and a view over a CSV/Parquet path needs file access at query time, which the locked source
connection must deny. Copying costs one pass over the data (DuckDB loads CSV/Parquet in
parallel, DataFrames zero-copy through Arrow) and keeps it off the Python heap; the source is
a snapshot of the files as they were when it was opened.

`connect(frames={"sales": df})` gives one datasource with id "frames" (`FRAMES_ID`), one table
per key. A file source (`sources={"events": "data/*.parquet"}` or `csv:///path/x.csv`) is one
table named after the source id.
"""

from __future__ import annotations

import functools
import glob
import shutil
import tempfile
import weakref
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa
from sqlglot import exp

from nl2sql.datasources.duckdb import DuckDBAdapter
from nl2sql.datasources.locations import file_path, file_reader
from nl2sql.datasources.sql_builders import table_expr
from nl2sql.errors import ConfigError, safe_one_line

#: The datasource id `connect(frames=...)` gives its DataFrames.
FRAMES_ID = "frames"
_STAGING = "__nl2sql_frame"
# Loading runs before the lock: no extension may be fetched, files may be read.
_LOADER_CONFIG = {"autoinstall_known_extensions": False, "autoload_known_extensions": False}


class FramesAdapter(DuckDBAdapter):
    """A read-only DuckDB datasource made from DataFrames, Arrow tables and files."""

    def __init__(self, id: str, tables: Mapping[str, Any], **opts: Any) -> None:
        path, cleanup = frames_database(id, tables)
        # The copy goes when the adapter is closed or collected, or at interpreter exit.
        self._cleanup = weakref.finalize(self, cleanup)
        try:
            super().__init__(id, path, **opts)
        except BaseException:
            self._cleanup()
            raise
        self.tables = list(tables)

    def __repr__(self) -> str:
        return f"FramesAdapter(id={self.id!r}, tables={self.tables!r})"

    def close(self) -> None:
        """Close the connection and delete the copied data."""
        super().close()
        self._cleanup()


def frames_database(id: str, tables: Mapping[str, Any]) -> tuple[Path, Callable[[], None]]:
    """A new DuckDB file in a private temporary folder holding `tables`, and its clean-up."""
    folder = Path(tempfile.mkdtemp(prefix="nl2sql-frames-"))
    cleanup = functools.partial(shutil.rmtree, folder, True)
    try:
        build_database(id, tables, folder / "frames.duckdb")
    except BaseException:
        cleanup()
        raise
    return folder / "frames.duckdb", cleanup


def build_database(id: str, tables: Mapping[str, Any], path: Path) -> None:
    """Write each frame or file of `tables` into a new DuckDB file as a table of that name."""
    _check_names(id, tables)
    con = duckdb.connect(str(path), config=dict(_LOADER_CONFIG))
    try:
        for name, source in tables.items():
            _load(con, id, name, source)
        con.execute("CHECKPOINT")
    finally:
        con.close()


def _check_names(id: str, tables: Mapping[str, Any]) -> None:
    if not tables:
        raise ConfigError(f"datasource {id!r}: no DataFrame or file was given")
    seen: set[str] = set()
    for name in tables:
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"datasource {id!r}: table names must be non-empty strings")
        if name.lower() in seen:
            raise ConfigError(f"datasource {id!r}: table {name!r} is given twice")
        seen.add(name.lower())


def _load(con: duckdb.DuckDBPyConnection, id: str, name: str, source: Any) -> None:
    if isinstance(source, str | Path):
        origin: exp.Expr = _file_scan(id, name, str(source))
    else:
        con.register(_STAGING, to_arrow(id, name, source))
        origin = table_expr(_STAGING)
    create = exp.Create(
        this=table_expr(name),
        kind="TABLE",
        expression=exp.select(exp.Star()).from_(origin),
    )
    try:
        con.execute(create.sql("duckdb"))
    except duckdb.Error as exc:
        raise ConfigError(
            f"datasource {id!r}: cannot load table {name!r}: {safe_one_line(exc)}"
        ) from None
    finally:
        if not isinstance(source, str | Path):
            con.unregister(_STAGING)


def _file_scan(id: str, name: str, target: str) -> exp.Table:
    reader = file_reader(target)
    if reader is None:
        raise ConfigError(
            f"datasource {id!r}: table {name!r}: expected a .csv, .tsv or .parquet file or glob"
        )
    path = file_path(target)
    if not glob.glob(path):
        raise ConfigError(f"datasource {id!r}: no file matches {path}")
    # union_by_name: files of one glob whose columns differ in order or number still combine.
    call = exp.Anonymous(
        this=reader,
        expressions=[
            exp.Literal.string(path),
            exp.PropertyEQ(this=exp.to_identifier("union_by_name"), expression=exp.true()),
        ],
    )
    return exp.Table(this=call)


def to_arrow(id: str, name: str, frame: Any) -> pa.Table:
    """A pandas or polars DataFrame (or anything Arrow can read) as an Arrow table."""
    if isinstance(frame, pa.Table):
        return frame
    module = type(frame).__module__.split(".")[0]
    try:
        if module == "pandas":
            # A named or non-default index carries data (a groupby key, a date): keep it.
            if frame.index.name is not None or type(frame.index).__name__ != "RangeIndex":
                frame = frame.reset_index()
            return pa.Table.from_pandas(frame, preserve_index=False)
        if module == "polars":
            return frame.to_arrow()
        return pa.table(frame)
    except (TypeError, ValueError, pa.ArrowException) as exc:
        raise ConfigError(
            f"datasource {id!r}: table {name!r}: cannot read a {type(frame).__name__} "
            f"as a table ({safe_one_line(exc)})"
        ) from None
