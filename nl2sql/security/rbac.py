"""Role-based access: who is asking (UserContext) and what their roles may read (Access).

A policy maps roles to datasources, tables and columns. Once a policy exists, everything it does
not grant is denied: a user whose roles grant nothing can read nothing. Without a policy every
datasource, table and column is allowed. The file (YAML, or `[policies.roles]` in the config):

    roles:
      analyst:
        datasources:
          warehouse:
            tables: [orders, order_items, products, customers]   # or "*"
            columns:
              customers: [customer_id, state, segment]            # only these columns
          crm: "*"                                                 # every table and column

A user's access is the union of their roles' grants. Denied objects are removed from every schema
the pipeline shows a model or a database (`Access.filter`, `PolicySchemaView`).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from nl2sql.errors import ConfigError
from nl2sql.schema.models import ForeignKey, SchemaSnapshot, Table
from nl2sql.schema.store import SchemaSource

ALL: Final = "*"


class UserContext(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    user_id: str | None = None
    tenant_id: str | None = None
    roles: tuple[str, ...] = Field(default_factory=tuple)


class DatasourceGrant(BaseModel):
    """Tables (names or "*") of one datasource, and per-table column allow-lists."""

    model_config = ConfigDict(extra="forbid")

    tables: list[str] | Literal["*"] = ALL
    columns: dict[str, list[str]] = Field(default_factory=dict)


class RoleGrant(BaseModel):
    model_config = ConfigDict(extra="forbid")

    datasources: dict[str, DatasourceGrant] = Field(default_factory=dict)

    @field_validator("datasources", mode="before")
    @classmethod
    def _shorthand(cls, value: Any) -> Any:
        # `datasources: [crm]` and `crm: "*"` both grant every table and column of `crm`
        if isinstance(value, list):
            return {ds: {} for ds in value}
        if isinstance(value, dict):
            return {ds: ({} if grant == ALL else grant) for ds, grant in value.items()}
        return value


class PolicySet(BaseModel):
    """The roles of a policy file."""

    model_config = ConfigDict(extra="forbid")

    roles: dict[str, RoleGrant] = Field(default_factory=dict)

    @classmethod
    def coerce(cls, policies: Any) -> PolicySet | None:
        """A PolicySet from a PolicySet, a {"roles": ...} mapping, a YAML path, or None."""
        if policies is None or isinstance(policies, PolicySet):
            return policies
        return cls.parse(policies) if isinstance(policies, Mapping) else cls.load(policies)

    @classmethod
    def load(cls, path: str | Path) -> PolicySet:
        """Read a YAML policy file; a malformed one is a ConfigError naming the problem."""
        import yaml

        path = Path(path)
        if not path.is_file():
            raise ConfigError(f"policy file not found: {path}")
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except yaml.YAMLError as exc:
            raise ConfigError(f"{path.name} is not valid YAML: {exc}") from None
        return cls.parse(data, where=path.name)

    @classmethod
    def parse(cls, data: Mapping[str, Any], where: str = "policies") -> PolicySet:
        """Validate a policy mapping ({"roles": {...}})."""
        try:
            return cls.model_validate(dict(data))
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = ".".join(str(p) for p in first["loc"])
            raise ConfigError(f"{where}: {loc}: {first['msg']}") from None

    def redact_samples(self, snapshot: SchemaSnapshot) -> SchemaSnapshot:
        """`snapshot` without the sample values of every column some role may not read.

        Files (the snapshot copy, the vector store) are read by whoever can open them, not by a
        role: they keep sample values only of columns every role granting the datasource reads.
        """
        grants = [r.datasources[snapshot.datasource_id] for r in self.roles.values()
                  if snapshot.datasource_id in r.datasources]
        tables = [_redact_table(t, [_DsAccess((g,)) for g in grants]) for t in snapshot.tables]
        return snapshot.model_copy(update={"tables": tables})

    def access_for(self, user: UserContext | None) -> Access:
        """The union of the grants of `user`'s roles (nothing when no role is known)."""
        roles = tuple((user or UserContext()).roles)
        grants: dict[str, _DsAccess] = {}
        for role in roles:
            for ds, grant in getattr(self.roles.get(role), "datasources", {}).items():
                grants[ds] = grants.get(ds, _DsAccess()).merge(grant)
        return Access(restricted=True, grants=grants, roles=roles)


@dataclass(frozen=True)
class _DsAccess:
    """One datasource's grants, one per role that grants it; evaluated per table."""

    grants: tuple[DatasourceGrant, ...] = ()

    def merge(self, grant: DatasourceGrant) -> _DsAccess:
        return _DsAccess(self.grants + (grant,))

    def table_allowed(self, table: Table) -> bool:
        return any(_column_list(g, table) is not _NOT_GRANTED for g in self.grants)

    def columns_of(self, table: Table) -> frozenset[str] | None:
        """Allowed columns of `table` (lower-case); None when some role allows every column."""
        found: frozenset[str] = frozenset()
        for grant in self.grants:
            cols = _column_list(grant, table)
            if cols is None:
                return None
            if cols is not _NOT_GRANTED:
                found |= cols
        return found


class _Grant(Enum):
    NOT_GRANTED = "not granted"


def _redact_table(table: Table, grants: list[_DsAccess]) -> Table:
    """`table` with samples kept only on columns every one of `grants` reads (none: no one)."""
    def readable(column: str) -> bool:
        return bool(grants) and all(
            g.table_allowed(table) and ((cols := g.columns_of(table)) is None or column in cols)
            for g in grants
        )

    if all(readable(c.name.lower()) or not c.samples for c in table.columns):
        return table
    return table.model_copy(update={"columns": [
        c if readable(c.name.lower()) else c.model_copy(update={"samples": []})
        for c in table.columns
    ]})


_NOT_GRANTED: Final = _Grant.NOT_GRANTED  # a role that does not grant the table at all


def _column_list(
    grant: DatasourceGrant, table: Table
) -> frozenset[str] | None | Literal[_Grant.NOT_GRANTED]:
    """What one role's grant says about `table`: _NOT_GRANTED, None (every column) or a list."""
    # Table.key only (schema-qualified where the source has schemas): never a looser match
    key = table.key.lower()
    for name, cols in grant.columns.items():
        if name.lower() == key:
            return frozenset(c.lower() for c in cols)
    if grant.tables == ALL or key in {t.lower() for t in grant.tables}:
        return None
    return _NOT_GRANTED


@dataclass(frozen=True)
class Access:
    """What one user may read. `restricted=False` means no policy: everything is allowed."""

    restricted: bool = False
    grants: Mapping[str, _DsAccess] = field(default_factory=dict)
    roles: tuple[str, ...] = ()

    def allows_datasource(self, datasource_id: str) -> bool:
        return not self.restricted or datasource_id in self.grants

    def allowed_tables(self, snapshot: SchemaSnapshot) -> list[str] | None:
        """Table.key values of `snapshot` the user may read (None: all of them)."""
        if not self.restricted:
            return None
        grant = self.grants.get(snapshot.datasource_id)
        return [t.key for t in snapshot.tables if grant is not None and grant.table_allowed(t)]

    def allowed_columns(self, snapshot: SchemaSnapshot) -> dict[str, list[str]] | None:
        """Table.key -> readable column names, for tables restricted by column (None: no limits)."""
        if not self.restricted:
            return None
        grant = self.grants.get(snapshot.datasource_id)
        out: dict[str, list[str]] = {}
        for table in snapshot.tables:
            if grant is None or not grant.table_allowed(table):
                continue
            cols = grant.columns_of(table)
            if cols is not None:
                out[table.key] = [c.name for c in table.columns if c.name.lower() in cols]
        return out

    def filter(self, snapshot: SchemaSnapshot) -> SchemaSnapshot:
        """The snapshot without the tables and columns this user may not read."""
        if not self.restricted:
            return snapshot
        tables = set(self.allowed_tables(snapshot) or [])
        columns = self.allowed_columns(snapshot) or {}
        kept = [_filter_table(t, columns.get(t.key)) for t in snapshot.tables if t.key in tables]
        kept = [_drop_dangling_keys(t, {k.key.lower(): k for k in kept}) for t in kept]
        return snapshot.model_copy(update={"tables": kept})

    def denied(self, datasource_id: str, snapshot: SchemaSnapshot,
               tables: set[str], columns: set[tuple[str, str]]) -> list[str]:
        """Names among `tables` / (table, column) `columns` this user may not read."""
        if not self.restricted:
            return []
        if not self.allows_datasource(datasource_id):
            return [datasource_id]
        allowed = {k.lower() for k in self.allowed_tables(snapshot) or []}
        limits = {k.lower(): {c.lower() for c in v} for k, v in (self.allowed_columns(snapshot) or {}).items()}
        out = sorted(t for t in tables if t.lower() not in allowed)
        out += sorted(f"{t}.{c}" for t, c in columns
                      if t.lower() in limits and c.lower() not in limits[t.lower()])
        return out


UNRESTRICTED = Access()


def _filter_table(table: Table, columns: list[str] | None) -> Table:
    if columns is None:
        return table
    keep = {c.lower() for c in columns}
    return table.model_copy(update={
        "columns": [c for c in table.columns if c.name.lower() in keep],
        "primary_key": [c for c in table.primary_key if c.lower() in keep],
        # a term or metric of the semantic layer over a denied column is not seen either
        "semantic": table.semantic.visible_to(keep) if table.semantic is not None else None,
    })


def _drop_dangling_keys(table: Table, kept: Mapping[str, Table]) -> Table:
    """Foreign keys survive only when both ends (tables and columns) are still visible."""
    def visible(fk: ForeignKey) -> bool:
        ref = kept.get(fk.ref_table.lower())
        return (ref is not None and all(table.column(c) for c in fk.columns)
                and all(ref.column(c) for c in fk.ref_columns))

    return table.model_copy(update={"foreign_keys": [fk for fk in table.foreign_keys if visible(fk)]})


class PolicySchemaView:
    """A schema store as one user sees it: every snapshot filtered by their Access.

    Set as a run's `NL2SQLContext.schemas`, so no node can hand a model, the SQL guard or a
    database a denied table or column. `base` is the unfiltered store (the validator uses it to
    name a denied object as such, and pins compare its fingerprints).
    """

    def __init__(self, base: SchemaSource, access: Access):
        self.base = base
        self.access = access
        # datasource -> (the raw snapshot it was made from, the filtered one)
        self._cache: dict[str, tuple[SchemaSnapshot, SchemaSnapshot]] = {}
        self._lock = threading.Lock()

    def get(self, datasource_id: str) -> SchemaSnapshot:
        raw = self.base.get(datasource_id)
        with self._lock:
            cached = self._cache.get(datasource_id)
            if cached is None or cached[0] is not raw:  # the base store refreshed it
                cached = (raw, self.access.filter(raw))
                self._cache[datasource_id] = cached
            return cached[1]

    def refresh(self, datasource_id: str | None = None) -> None:
        self.base.refresh(datasource_id)
        with self._lock:
            self._cache.clear()


def raw_snapshot(schemas: SchemaSource, datasource_id: str) -> SchemaSnapshot:
    """The unfiltered snapshot behind `schemas` (a PolicySchemaView or a plain store)."""
    source: SchemaSource = getattr(schemas, "base", schemas)
    return source.get(datasource_id)
