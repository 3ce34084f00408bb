"""The adapter protocol every datasource implements, and its result / error values.

Adapters are read-only by construction (a read-only connection or session); the SQL guard is the
second, independent line. `execute` fetches at most `row_cap + 1` rows so truncation is detected
without reading an unbounded result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from nl2sql.errors import NL2SQLError

if TYPE_CHECKING:
    import pyarrow as pa

    from nl2sql.schema.models import SchemaSnapshot


@dataclass(frozen=True)
class ResultFrame:
    """Rows a query returned (at most row_cap), as Arrow, with the truncated flag."""

    table: pa.Table
    truncated: bool
    elapsed_s: float = 0.0

    @property
    def row_count(self) -> int:
        rows: int = self.table.num_rows
        return rows


class ResultError(NL2SQLError):
    """A database refused or failed a query.

    retryable=True: the database said the query is wrong (syntax, unknown column, type mismatch);
    the SQL agent may re-plan. retryable=False: a refusal (permission, timeout, connection,
    read-only); fatal. `safe_message` is one line with no SQL text and no stack trace.
    """

    def __init__(self, safe_message: str, *, retryable: bool, kind: str = "error"):
        super().__init__(safe_message)
        self.safe_message = safe_message
        self.retryable = retryable
        self.kind = kind  # syntax | undefined | type | permission | timeout | connection | read_only | error


@dataclass(frozen=True)
class Capabilities:
    """What a datasource supports; the subgraph registry selects a subgraph by these."""

    sql: bool = True
    names: frozenset[str] = field(default_factory=lambda: frozenset({"sql"}))


@runtime_checkable
class DatasourceAdapter(Protocol):
    id: str
    dialect: str  # a sqlglot dialect name: duckdb, sqlite, postgres, mysql, ...
    description: str | None
    capabilities: Capabilities
    row_cap: int
    timeout_s: float

    def fetch_schema(self) -> SchemaSnapshot: ...

    def execute(self, sql: str, *, row_cap: int, timeout_s: float) -> ResultFrame: ...

    def lookup_values(self, table_key: str, column: str, needle: str, limit: int = 10) -> list[str]:
        """Existing values of a column that equal or contain `needle` (case-insensitive), at most
        `limit`. The planner and the empty-result check ask the database whether a value the
        question names exists; a lookup that takes too long returns no values."""
        ...

    def close(self) -> None: ...
