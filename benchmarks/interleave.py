"""Interleaved timing: every candidate runs once per round, in turn, so a load spike on the shared
machine hits all of them alike; medians over rounds, and ratios against a reference."""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable


def interleaved(candidates: dict[str, Callable[[], object]], rounds: int,
                clock: Callable[[], float] = time.perf_counter) -> dict[str, float]:
    """Median seconds of each candidate over `rounds` rounds (one call of each per round).

    `clock` is wall time by default; `time.process_time` gives the CPU of the whole process (all
    its threads), which a crowded machine disturbs far less than wall time."""
    times: dict[str, list[float]] = {name: [] for name in candidates}
    for _ in range(rounds):
        for name, fn in candidates.items():
            started = clock()
            fn()
            times[name].append(clock() - started)
    return {name: statistics.median(ts) for name, ts in times.items()}


def report(title: str, medians: dict[str, float], subject: str) -> None:
    """Print each median and how many times slower `subject` is than it (the ratio to check)."""
    print(f"\n{title}")
    mine = medians[subject]
    for name, seconds in medians.items():
        ratio = "" if name == subject else f"   {subject} = {mine / seconds:6.2f}x this"
        print(f"  {name:<40} {seconds * 1000:9.2f} ms{ratio}")


def machine() -> str:
    """What the figures were taken on: cores, kernel, load average."""
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"nproc {os.cpu_count()}; {platform.platform()}; load average {load}"
