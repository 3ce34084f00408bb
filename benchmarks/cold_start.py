"""The first answer in a fresh process (`nl2sql ask` on the demo) vs `import pandas`.

Each measure is a new Python process, the measures interleaved round by round so a busy
machine slows them alike; the figures are medians and the ratios are of medians:

- `import pandas`: the reference;
- `nl2sql ask`, snapshots reused: a project folder where an earlier process left its schema
  snapshots (the usual case: a second command, a new notebook kernel);
- `nl2sql ask`, fresh project: no snapshot yet, so both demo sources are introspected.

Run with `make bench` or `python benchmarks/cold_start.py --repeats 7`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

QUESTION = "How many orders were placed in 2024?"


def _ask() -> list[str]:
    return [sys.executable, "-m", "nl2sql.cli.main", "ask", QUESTION]


def _timed(argv: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=os.environ.copy())
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:4])} failed: {done.stderr.strip()[-300:] or done.stdout[-300:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="nl2sql-cold-"))
    warm, fresh = work / "warm", work / "fresh"
    warm.mkdir()
    try:
        _timed(_ask(), warm)  # builds the demo data once and leaves the snapshots
        times: dict[str, list[float]] = {"import pandas": [], "ask, snapshots reused": [],
                                         "ask, fresh project": []}
        for _ in range(args.repeats):
            times["import pandas"].append(_timed([sys.executable, "-c", "import pandas"], work))
            times["ask, snapshots reused"].append(_timed(_ask(), warm))
            shutil.rmtree(fresh, ignore_errors=True)
            fresh.mkdir()
            times["ask, fresh project"].append(_timed(_ask(), fresh))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    base = statistics.median(times["import pandas"])
    print(f"cold start, {args.repeats} interleaved rounds (medians; load average {os.getloadavg()[0]:.2f})")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"  {name:<24} {median:7.2f} s   {median / base:5.2f}x import pandas")


if __name__ == "__main__":
    main()
