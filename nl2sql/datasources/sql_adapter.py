"""SQLAdapter: what every SQL datasource shares — its settings, the schema snapshot built from its
catalog, and the bounded value lookup. Each engine's adapter adds its connection, `execute`,
`_rows` and `read_catalog`."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from nl2sql.datasources.base import Capabilities

if TYPE_CHECKING:
    from nl2sql.schema.models import SchemaSnapshot, Table

#: A value lookup slower than this returns no values: it is best effort.
LOOKUP_TIMEOUT_S = 3.0


class SQLAdapter:
    """Base of the SQL adapters; a subclass provides `dialect` and `_rows(sql, timeout_s=...)`."""

    dialect: str
    #: Seconds the statistics queries of one table may take together; None: introspection's
    #: TABLE_STATS_BUDGET_S (a view gets less either way).
    table_stats_budget_s: float | None = None
    #: (sql, timeout_s=...) -> every row: each engine's adapter defines it as a method
    _rows: Callable[..., list[Any]]

    def _init_settings(
        self, id: str, *, description: str | None, row_cap: int, timeout_s: float, sample_values: int
    ) -> None:
        self.id = id
        self.description = description
        self.capabilities = Capabilities()
        self.row_cap = row_cap
        self.timeout_s = timeout_s
        self.sample_values = sample_values

    def _snapshot(self, tables: Sequence[Table]) -> SchemaSnapshot:
        """The SchemaSnapshot of catalog `tables`, each text column with samples and counts."""
        from nl2sql.datasources.introspection import snapshot_with_statistics

        return snapshot_with_statistics(self, tables, self._rows)

    def resample(self, snapshot: SchemaSnapshot, columns: Sequence[tuple[str, str]]) -> SchemaSnapshot:
        """`snapshot` with the samples of `columns` ((table key, column name) pairs) read again.

        A stored snapshot keeps no samples of columns a policy denies to some role; the schema
        store refills them in memory so value matching works for the users who may read them.
        """
        from nl2sql.datasources.introspection import resampled

        return resampled(snapshot, columns, self._rows, self.dialect, self.sample_values)

    def lookup_values(self, table_key: str, column: str, needle: str, limit: int = 10) -> list[str]:
        """Existing values of a column that equal or contain `needle` (case-insensitive).

        Best effort and bounded: a lookup slower than a few seconds returns no values; a query
        the database rejects (unknown table or column) raises ResultError.
        """
        from nl2sql.datasources.introspection import bounded_lookup

        return bounded_lookup(self._rows, table_key, column, needle, limit, self.dialect,
                              min(self.timeout_s, LOOKUP_TIMEOUT_S))
