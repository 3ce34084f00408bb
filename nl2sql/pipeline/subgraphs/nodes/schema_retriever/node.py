"""SchemaRetrieverNode: the tables relevant to a sub-query (the whole snapshot when it is small
or retrieval finds nothing), widened one foreign-key hop so joins stay possible.

The snapshot comes from the run's schema store, which a policy filters to what the user may read;
retrieved table keys are kept only when that snapshot has them, so a denied table found by the
vector search (indexed for every user) never reaches the planner."""

from __future__ import annotations

from typing import Any

from langgraph.runtime import Runtime

from nl2sql.context import NL2SQLContext
from nl2sql.names import SCHEMA_RETRIEVER
from nl2sql.pipeline.nodes.common import reasoning
from nl2sql.pipeline.state import SubgraphExecutionState
from nl2sql.schema.models import SchemaSnapshot

NODE = SCHEMA_RETRIEVER


class SchemaRetrieverNode:
    def __call__(self, state: SubgraphExecutionState, runtime: Runtime[NL2SQLContext]) -> dict[str, Any]:
        ctx = runtime.context
        sq = state.require_sub_query()
        snapshot = ctx.schemas.get(sq.datasource_id)
        if len(snapshot.tables) <= ctx.settings.retrieval_min_tables:
            return self._done(snapshot, [t.key for t in snapshot.tables], "small schema: every table")
        keys: list[str] = []
        try:
            store = ctx.vector_store
        except Exception as exc:  # retrieval is an optimisation: fall back to the snapshot
            return self._done(snapshot, [t.key for t in snapshot.tables], f"vector store unavailable ({exc}); every table")
        if store is not None:
            try:
                hits = store.search_tables(
                    snapshot.datasource_id, sq.intent, k=ctx.settings.retrieval_top_k_tables
                )
                keys = [k for k, _ in hits]
            except Exception as exc:  # retrieval is an optimisation: fall back to the snapshot
                return self._done(snapshot, [t.key for t in snapshot.tables], f"table search failed ({exc}); every table")
        if not keys:
            return self._done(snapshot, [t.key for t in snapshot.tables], "no table retrieved: every table")
        return self._done(snapshot, with_fk_neighbours(snapshot, keys), "retrieved")

    def _done(self, snapshot: SchemaSnapshot, keys: list[str], how: str) -> dict[str, Any]:
        tables = [t for t in snapshot.tables if t.key in set(keys)]
        note = f"{how}: {len(tables)} of {len(snapshot.tables)} tables ({', '.join(t.key for t in tables[:12])})"
        return {"relevant_tables": tables, "reasoning": [reasoning(NODE, note)]}


def with_fk_neighbours(snapshot: SchemaSnapshot, keys: list[str]) -> list[str]:
    """`keys` plus every table one foreign key away from them, in snapshot order."""
    wanted = {k.lower() for k in keys}
    for table in snapshot.tables:
        for fk in table.foreign_keys:
            if table.key.lower() in wanted:
                wanted.add(fk.ref_table.lower())
            elif fk.ref_table.lower() in wanted:
                wanted.add(table.key.lower())
    return [t.key for t in snapshot.tables if t.key.lower() in wanted]
