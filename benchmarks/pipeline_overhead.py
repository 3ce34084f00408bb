"""The pipeline's own cost: `ask()` on demo questions vs running the same final SQL directly.

Prints, per question, the median wall time of each over repeats and their ratio. Run with
`make bench` (or `python benchmarks/pipeline_overhead.py --repeats 7`).
"""

from __future__ import annotations

import argparse
import statistics
import time

from rich.console import Console
from rich.table import Table

import nl2sql
from nl2sql.demo.questions import DEMO_QUESTIONS


def _median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    session = nl2sql.connect("demo")
    view = Table("question", "ask() median s", "direct SQL median s", "ratio")
    ratios = []
    for item in DEMO_QUESTIONS:
        result = session.ask(item.question)  # warm: snapshots and caches are per session
        single = [o for o in result.sub_queries if o.sql_draft]
        if result.status != "success" or len(single) != 1:
            continue  # the direct comparison needs one final SQL statement
        adapter = session.context.datasources[single[0].sub_query.datasource_id]
        sql = single[0].sql_draft
        pipeline_s = _median_time(lambda: session.ask(item.question), args.repeats)
        direct_s = _median_time(
            lambda: adapter.execute(sql, row_cap=session.settings.row_cap, timeout_s=30), args.repeats
        )
        ratios.append(pipeline_s / direct_s)
        view.add_row(item.question, f"{pipeline_s:.4f}", f"{direct_s:.4f}", f"{pipeline_s / direct_s:.1f}x")
    console = Console()
    console.print(view)
    if ratios:
        console.print(f"median ratio ask()/direct: {statistics.median(ratios):.1f}x over {len(ratios)} questions")
    session.close()


if __name__ == "__main__":
    main()
