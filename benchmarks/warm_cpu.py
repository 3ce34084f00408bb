"""Whole-process CPU of one warm `ask()`, the work it leaves to background threads included.

`warm_ask.py --clock cpu` interleaves candidates, so CPU a run leaves behind (the artifact
prune after each write, on its own thread) lands in whichever candidate runs next. Here each
ask is followed by a pause long enough for that work to finish, and the process's CPU over ask
plus pause is charged to the ask. Compare two trees by running this script with `PYTHONPATH`
pointing at each, alternately; the artifact folder's size matters (the prune reads it).

    python benchmarks/warm_cpu.py [--asks 15] [--pause 0.7] [--heavy-scale 40]
"""

from __future__ import annotations

import argparse
import statistics
import time

from interleave import machine
from warm_ask import CHEAP, HEAVY

import nl2sql
from nl2sql.demo import demo_sources, ensure_demo


def cpu_per_ask(scale: float, question: str, asks: int, pause: float) -> float:
    """Median process CPU (all threads) of one ask and the pause after it, in seconds."""
    session = nl2sql.connect(sources=demo_sources(ensure_demo(scale)))
    try:
        for _ in range(3):
            session.ask(question)  # warm
        time.sleep(1.0)
        spent = []
        for _ in range(asks):
            started = time.process_time()
            session.ask(question)
            time.sleep(pause)
            spent.append(time.process_time() - started)
        return statistics.median(spent)
    finally:
        session.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--asks", type=int, default=15)
    parser.add_argument("--pause", type=float, default=0.7)
    parser.add_argument("--heavy-scale", type=float, default=40.0)
    args = parser.parse_args()
    print(machine())
    for scale, question in ((1.0, CHEAP), (args.heavy_scale, HEAVY)):
        seconds = cpu_per_ask(scale, question, args.asks, args.pause)
        print(f"  {question!r} at demo scale {scale:g}: {seconds * 1000:8.1f} ms CPU per ask")


if __name__ == "__main__":
    main()
