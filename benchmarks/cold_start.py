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
import resource
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


def _cpu_of_children() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _timed(argv: list[str], cwd: Path, cpu: list[float] | None = None) -> float:
    """Wall seconds of one process (its CPU seconds appended to `cpu`)."""
    started, cpu_before = time.perf_counter(), _cpu_of_children()
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, env=os.environ.copy())
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:4])} failed: {done.stderr.strip()[-300:] or done.stdout[-300:]}")
    if cpu is not None:
        cpu.append(_cpu_of_children() - cpu_before)
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
        names = ("import pandas", "ask, snapshots reused", "ask, fresh project")
        times: dict[str, list[float]] = {name: [] for name in names}
        cpus: dict[str, list[float]] = {name: [] for name in names}
        for _ in range(args.repeats):
            times[names[0]].append(_timed([sys.executable, "-c", "import pandas"], work, cpus[names[0]]))
            times[names[1]].append(_timed(_ask(), warm, cpus[names[1]]))
            shutil.rmtree(fresh, ignore_errors=True)
            fresh.mkdir()
            times[names[2]].append(_timed(_ask(), fresh, cpus[names[2]]))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    base, cpu_base = (statistics.median(t["import pandas"]) for t in (times, cpus))
    print(f"cold start, {args.repeats} interleaved rounds (medians; load average {os.getloadavg()[0]:.2f});")
    print("  cpu: the process's CPU seconds (less swayed by a busy machine than the wall time)")
    for name, values in times.items():
        median, cpu = statistics.median(values), statistics.median(cpus[name])
        print(f"  {name:<24} {median:7.2f} s   {median / base:5.2f}x import pandas"
              f"   cpu {cpu:5.2f} s   {cpu / cpu_base:5.2f}x")


if __name__ == "__main__":
    main()
