"""Warm `ask()` against plain references, interleaved (ratios; the machine is shared).

- cheap: a demo question at scale 1 vs a no-op LangGraph graph of the same shape (the same main
  nodes, a Send fan-out into a subgraph with the SQL agent's nodes, all doing nothing, streamed
  the way the runtime streams) and vs the same SQL through the plain driver;
- heavy: a join question on the demo at a larger scale vs the same SQL through the plain driver
  (the scale must make the plain driver take 100 ms or more: the script says when it does not).

    python benchmarks/warm_ask.py [--rounds 30] [--heavy-scale 40] [--clock wall|cpu]

`--clock cpu` times each call by the process's CPU (all threads) instead of wall time: on a
machine shared by many, wall time mostly measures the wait for a core.
"""

from __future__ import annotations

import argparse
import operator
import sqlite3
import time
from typing import Annotated, Any, TypedDict

import duckdb
from interleave import interleaved, machine, report
from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

import nl2sql
from nl2sql.demo import demo_sources, ensure_demo

DUCKDB_CONFIG = {"enable_external_access": False, "autoinstall_known_extensions": False,
                 "autoload_known_extensions": False, "allow_community_extensions": False,
                 "lock_configuration": True}

CHEAP = "How many orders were placed in 2024?"
HEAVY_FLOOR_S = 0.1  # a heavy query takes at least this long through the plain driver
HEAVY = "What is the total quantity sold per product category?"
MAIN = ["datasource_resolver", "decomposer", "layer_router", "aggregator", "answer_synthesizer"]
AGENT = ["schema_retriever", "ast_planner", "logical_validator", "generator", "approval_gate", "executor"]


class _State(TypedDict, total=False):
    notes: Annotated[list[str], operator.add]
    done: bool


def noop_graph() -> Any:
    """The pipeline's shape with nodes that do nothing."""
    sub = StateGraph(_State)
    for a, b in zip([START, *AGENT], [*AGENT, END], strict=True):
        if b != END:
            sub.add_node(b, lambda s: {})
        sub.add_edge(a, b)
    agent = sub.compile()
    graph = StateGraph(_State)
    for name in MAIN:
        graph.add_node(name, lambda s: {})
    graph.add_node("sql_agent", lambda s: {"notes": [str(agent.invoke({"notes": []}))[:0]], "done": True})
    graph.add_edge(START, "datasource_resolver")
    graph.add_edge("datasource_resolver", "decomposer")
    graph.add_edge("decomposer", "layer_router")
    graph.add_conditional_edges(
        "layer_router", lambda s: "aggregator" if s.get("done") else [Send("sql_agent", {"notes": []})],
        ["sql_agent", "aggregator"])
    graph.add_edge("sql_agent", "layer_router")
    graph.add_edge("aggregator", "answer_synthesizer")
    graph.add_edge("answer_synthesizer", END)
    return graph.compile()


def plain_driver(path: str, sql: str) -> Any:
    """The same SQL through the driver itself, connected once (as the adapter is)."""
    if path.endswith(".duckdb"):
        # the configuration the adapter opens the file with (DuckDB refuses two in one process)
        con = duckdb.connect(path, read_only=True, config=dict(DUCKDB_CONFIG))
        return lambda: con.sql(sql).to_arrow_table()
    con = sqlite3.connect(path, check_same_thread=False)
    return lambda: con.execute(sql).fetchall()


def one_sql(session: Any, question: str) -> tuple[str, str]:
    result = session.ask(question)
    [out] = [o for o in result.sub_queries if o.sql_draft]
    assert result.status == "success" and out.sub_query is not None, result.errors
    return out.sub_query.datasource_id, out.sql_draft or ""


def measure(scale: float, question: str, rounds: int, with_noop: bool, clock: Any = time.perf_counter) -> None:
    sources = demo_sources(ensure_demo(scale))
    session = nl2sql.connect(sources=sources)
    ds, sql = one_sql(session, question)
    candidates = {"ask()": lambda: session.ask(question)}
    if with_noop:
        graph = noop_graph()
        modes = {"stream_mode": ["updates", "values"], "subgraphs": True}
        candidates["no-op LangGraph graph, same shape"] = lambda: list(graph.stream({"notes": []}, **modes))
    candidates["plain driver, same SQL"] = plain_driver(sources[ds]["path"], sql)
    for fn in candidates.values():
        fn()  # warm every candidate before timing
    medians = interleaved(candidates, rounds, clock)
    report(f"{question!r} at demo scale {scale:g}", medians, "ask()")
    if not with_noop and clock is time.perf_counter and medians["plain driver, same SQL"] < HEAVY_FLOOR_S:
        print(f"  (the plain driver took under {HEAVY_FLOOR_S * 1000:.0f} ms: not a heavy query; "
              "use a larger --heavy-scale)")
    session.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--heavy-scale", type=float, default=40.0)
    parser.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    args = parser.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    print(machine() + f"; clock {args.clock}")
    measure(1.0, CHEAP, args.rounds, with_noop=True, clock=clock)
    measure(args.heavy_scale, HEAVY, args.rounds, with_noop=False, clock=clock)


if __name__ == "__main__":
    main()
