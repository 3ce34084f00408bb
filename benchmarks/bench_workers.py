"""`nl2sql bench spider` with 1 and 2 workers on a subset, interleaved, as fresh processes (the
way a user runs it: process start-up, spawn and warm-up included).

    python benchmarks/bench_workers.py [--rounds 2] [--limit 120]
        [--data /work/shared/benchmarks/spider_dev]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from interleave import interleaved, machine, report


def run(data: Path, workers: int, limit: int) -> None:
    subprocess.run(
        [sys.executable, "-m", "nl2sql.cli.main", "bench", "spider", "--questions",
         str(data / "questions.json"), "--databases", str(data / "database"),
         "--workers", str(workers), "--limit", str(limit)],
        check=True, stdout=subprocess.DEVNULL,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--limit", type=int, default=120)
    parser.add_argument("--data", type=Path, default=Path("/work/shared/benchmarks/spider_dev"))
    args = parser.parse_args()
    print(machine())
    medians = interleaved({
        "1 worker": lambda: run(args.data, 1, args.limit),
        "2 workers": lambda: run(args.data, 2, args.limit),
    }, args.rounds)
    report(f"bench spider, first {args.limit} questions", medians, "2 workers")
    print(f"  speed-up with 2 workers: {medians['1 worker'] / medians['2 workers']:.2f}x")


if __name__ == "__main__":
    main()
