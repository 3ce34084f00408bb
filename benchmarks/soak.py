"""Soak: many runs of a few demo questions in one session, watching that nothing accumulates.

Samples the process's resident memory (RSS), open file descriptors and OS threads every
`--every` runs, prints the first and last samples and each one's slope per 1,000 runs (a least
squares fit over the samples after warm-up), and exits 1 when one grew past a generous bound:
the caches a session fills on its first runs are warm-up, a leak is growth that keeps going.
Linux only (reads /proc). Run with `make bench` or `python benchmarks/soak.py --runs 1000`.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from dataclasses import dataclass

import nl2sql
from nl2sql.demo.questions import DEMO_QUESTIONS

#: Growth allowed from the first sample after warm-up to the last: generous on purpose (an
#: allocator's arenas and pandas' caches settle slowly); a real leak is far past these.
MAX_RSS_GROWTH_MB = 150.0
MAX_FD_GROWTH = 16
MAX_THREAD_GROWTH = 8


@dataclass(frozen=True)
class Sample:
    run: int
    rss_mb: float
    fds: int
    threads: int


def sample(run: int) -> Sample:
    """This process's RSS, open descriptors and OS threads, from /proc."""
    status = dict(
        line.split(":", 1) for line in open("/proc/self/status", encoding="ascii").read().splitlines()
    )
    rss_kb = float(status["VmRSS"].split()[0])
    return Sample(run, rss_kb / 1024, len(os.listdir("/proc/self/fd")), int(status["Threads"]))


def slope_per_1000(samples: list[Sample], field: str) -> float:
    """Least-squares growth of `field` per 1,000 runs (0 with fewer than two samples)."""
    if len(samples) < 2:
        return 0.0
    xs = [s.run for s in samples]
    ys = [float(getattr(s, field)) for s in samples]
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    var = sum((x - mean_x) ** 2 for x in xs)
    cov = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    return 1000 * cov / var if var else 0.0


def soak(runs: int, every: int, questions: list[str], project: str) -> tuple[list[Sample], int]:
    """Ask `questions` in turn `runs` times in one session; (samples, failed runs)."""
    samples, failed = [sample(0)], 0
    with nl2sql.connect("demo", settings={"project_dir": project}) as session:
        for run in range(1, runs + 1):
            result = session.ask(questions[run % len(questions)])
            failed += result.status != "success"
            if run % every == 0 or run == runs:
                samples.append(sample(run))
    return samples, failed


def verdict(samples: list[Sample], warmup: int) -> list[str]:
    """One line per resource that grew past its bound after warm-up."""
    steady = [s for s in samples if s.run >= warmup] or samples[-1:]
    first, last = steady[0], samples[-1]
    problems = []
    if last.rss_mb - first.rss_mb > MAX_RSS_GROWTH_MB:
        problems.append(f"RSS grew {last.rss_mb - first.rss_mb:.0f} MB after warm-up")
    if last.fds - first.fds > MAX_FD_GROWTH:
        problems.append(f"open descriptors grew by {last.fds - first.fds} after warm-up")
    if last.threads - first.threads > MAX_THREAD_GROWTH:
        problems.append(f"threads grew by {last.threads - first.threads} after warm-up")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--every", type=int, default=50, help="runs between samples")
    parser.add_argument("--warmup", type=int, default=100, help="runs before the baseline")
    args = parser.parse_args(argv)
    questions = [q.question for q in DEMO_QUESTIONS][:4]
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="nl2sql-soak-") as project:
        samples, failed = soak(args.runs, args.every, questions, project)
    steady = [s for s in samples if s.run >= args.warmup] or samples[-1:]
    print(f"{args.runs} runs of {len(questions)} demo questions in {time.monotonic() - started:.0f}s;"
          f" {failed} did not succeed")
    for label, field, unit in (("RSS", "rss_mb", " MB"), ("open fds", "fds", ""),
                               ("threads", "threads", "")):
        values = [getattr(s, field) for s in (samples[0], samples[1], steady[0], samples[-1])]
        print(f"{label:9} start {values[0]:.0f}{unit}, after run {samples[1].run} {values[1]:.0f}{unit},"
              f" after warm-up (run {steady[0].run}) {values[2]:.0f}{unit}, last {values[3]:.0f}{unit};"
              f" slope after warm-up {slope_per_1000(steady, field):+.1f}{unit} per 1,000 runs")
    problems = verdict(samples, args.warmup) + ([f"{failed} run(s) failed"] if failed else [])
    for line in problems:
        print(f"FAIL: {line}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
