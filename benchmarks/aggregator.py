"""The two-source compare: our aggregator vs DuckDB over the same Parquet files vs pandas,
interleaved. The inputs are the artifacts a real run of the demo's compare question wrote.

    python benchmarks/aggregator.py [--rounds 30] [--scale 10]
"""

from __future__ import annotations

import argparse

import duckdb
import pandas as pd
import pyarrow.parquet as pq
from interleave import interleaved, machine, report

import nl2sql
from nl2sql.aggregation import run_combine
from nl2sql.demo import demo_sources, ensure_demo
from nl2sql.execution.artifacts import local_path

COMPARE = "For each region, compare the number of orders with the number of support tickets"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--scale", type=float, default=10.0)
    args = parser.parse_args()
    print(machine())
    session = nl2sql.connect(sources=demo_sources(ensure_demo(args.scale)))
    result = session.ask(COMPARE)
    assert result.status == "success", result.errors
    state = result.state
    refs = state.artifact_refs
    files = {sq: str(local_path(ref.uri)) for sq, ref in refs.items()}
    tables = {sq: pq.read_table(path) for sq, path in files.items()}  # in memory, as a run hands them
    truncated = {sq: False for sq in refs}
    group = state.decomposer_response.combine_groups[0]
    left, right = (files[i.subquery_id] for i in group.inputs)
    lkey, rkey = group.join_keys[0].left, group.join_keys[0].right
    con = duckdb.connect()
    sql = (f"SELECT * FROM read_parquet('{left}') a FULL OUTER JOIN read_parquet('{right}') b "
           f'ON a."{lkey}" = b."{rkey}" ORDER BY 1')

    def ours() -> object:
        dag, decomposition = state.execution_dag, state.decomposer_response
        if not hasattr(session.context, "combiner"):  # a version before the session's DuckDB
            return run_combine(dag, decomposition, tables, truncated)
        return run_combine(dag, decomposition, tables, truncated, pool=session.context.combiner)

    candidates = {
        "our aggregator (run_combine, session DuckDB)": ours,
        "DuckDB over the same Parquet files": lambda: con.sql(sql).to_arrow_table(),
        "pandas (read_parquet + merge)": lambda: pd.read_parquet(left).merge(
            pd.read_parquet(right), left_on=lkey, right_on=rkey, how="outer").sort_values(lkey),
    }
    for fn in candidates.values():
        fn()
    report(f"two-source compare at demo scale {args.scale:g}", interleaved(candidates, args.rounds),
           "our aggregator (run_combine, session DuckDB)")
    session.close()


if __name__ == "__main__":
    main()
