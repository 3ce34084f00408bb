"""`nl2sql bench spider` with 1 and 2 workers on a subset, interleaved, as fresh processes (the
way a user runs it: process start-up, spawn and warm-up included).

    python benchmarks/bench_workers.py [--rounds 2] [--limit 120] [--data SPIDER_FORMAT_DIR]

`--data` is a folder with `questions.json` and `database/`, by default the Spider dev set in
`../shared/benchmarks/spider_dev` beside the clone (not part of the repository); without it the
script says so in one line and measures nothing (`make bench` goes on).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

from interleave import interleaved, machine, report

SPIDER_DEV = Path(__file__).resolve().parents[2] / "shared" / "benchmarks" / "spider_dev"


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
    parser.add_argument("--data", type=Path, help="Spider-format folder (default: the Spider dev "
                        "set in ../shared/benchmarks/spider_dev)")
    args = parser.parse_args()
    if args.data is None:
        if not (SPIDER_DEV / "questions.json").is_file():
            print("bench_workers: skipped, needs ../shared/benchmarks/spider_dev beside the clone "
                  "(or --data DIR)")
            return
        args.data = SPIDER_DEV
    elif not (args.data / "questions.json").is_file():
        sys.exit(f"bench_workers: --data {args.data} has no questions.json")
    print(machine())
    medians = interleaved({
        "1 worker": lambda: run(args.data, 1, args.limit),
        "2 workers": lambda: run(args.data, 2, args.limit),
    }, args.rounds)
    report(f"bench spider, first {args.limit} questions", medians, "2 workers")
    print(f"  speed-up with 2 workers: {medians['1 worker'] / medians['2 workers']:.2f}x")


if __name__ == "__main__":
    main()
