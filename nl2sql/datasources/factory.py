"""open_datasource: pick and open the adapter for a URL, a file path or a set of DataFrames.

Which engine and which file a location names is parsed by `nl2sql.datasources.locations` (URL
conventions there, Spark masters too); this module only opens the adapter. PostgreSQL and MySQL/MariaDB URLs
default to the psycopg and PyMySQL drivers.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from nl2sql.datasources.locations import (
    file_reader,
    is_server_url,
    resolve_target,
    spark_location,
)

if TYPE_CHECKING:
    from nl2sql.datasources.base import DatasourceAdapter


def open_datasource(
    id: str, url_or_path: str | Path | Mapping[str, Any], **opts: Any
) -> DatasourceAdapter:
    """Open a read-only adapter for a URL, a file path, or a mapping of table name -> frame.

    A mapping holds pandas/polars DataFrames, Arrow tables or file paths (one table each).
    `opts` go to the adapter: description, row_cap, timeout_s, sample_values.
    Raises ConfigError (one line) for anything else.
    """
    if isinstance(url_or_path, Mapping):
        from nl2sql.datasources.frames import FramesAdapter

        return FramesAdapter(id, url_or_path, **opts)
    target = str(url_or_path)
    if file_reader(target):
        from nl2sql.datasources.frames import FramesAdapter

        return FramesAdapter(id, {id: target}, **opts)
    spark = spark_location(id, target)
    if spark is not None:
        from nl2sql.datasources.spark import SparkAdapter

        master, database = spark
        return SparkAdapter(id, master, database=database, **opts)
    if is_server_url(target):
        from nl2sql.datasources.sqlalchemy import SQLAlchemyAdapter

        return SQLAlchemyAdapter(id, target, **opts)
    engine, path = resolve_target(id, target)
    if engine == "duckdb":
        from nl2sql.datasources.duckdb import DuckDBAdapter

        return DuckDBAdapter(id, path, **opts)
    from nl2sql.datasources.sqlite import SQLiteAdapter

    return SQLiteAdapter(id, path, **opts)
