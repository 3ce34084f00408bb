"""The first `%nl2sql` in a new notebook kernel vs a kernel that runs `import pandas`.

Each measure starts a fresh IPython kernel (jupyter_client) in a project folder an earlier kernel
already used (its schema snapshots exist, as for a notebook opened a second time) and times it
from the kernel's start to the reply of its last cell. The measures are interleaved round by round
so a busy machine slows them alike; figures are medians, ratios are of medians:

- `import pandas`: the reference (kernel start included);
- `%load_ext` + `%nl2sql`, warm-up off: both cells sent at once, NL2SQL_WARMUP=0;
- `%load_ext` + `%nl2sql`: both cells sent at once (the warm-up has no time to help);
- after a pause, warm-up off / on: `%load_ext nl2sql`, then PAUSE seconds (the analyst typing),
  then the question; the figure is the wait from sending the question to its answer.

Run with `make bench` or `python benchmarks/kernel_start.py --repeats 5 --pause 5`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]
from jupyter_client.manager import KernelManager

QUESTION = "How many orders were placed in 2024?"
LOAD, ASK = "%load_ext nl2sql", f"%nl2sql {QUESTION}"


def _run_cell(client: Any, code: str) -> None:
    """Execute `code` and wait for its reply; a failed cell (or nl2sql's one-line error) stops."""
    msg_id = client.execute(code)
    problems: list[str] = []
    while True:
        msg = client.get_iopub_msg(timeout=300)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        kind, content = msg["msg_type"], msg["content"]
        if kind == "error" or (kind == "stream" and content["name"] == "stderr"
                               and "nl2sql:" in content["text"]):
            problems.append(str(content.get("evalue") or content.get("text")))
        if kind == "status" and content["execution_state"] == "idle":
            break
    reply = client.get_shell_msg(timeout=300)
    if reply["content"]["status"] != "ok" or problems:
        raise SystemExit(f"{code!r} failed: {problems or reply['content']}")


def _kernel(cells: list[str], cwd: Path, env: dict[str, str], pause: float = 0.0) -> tuple[float, float]:
    """Seconds from the kernel's start to its last cell's reply (after a pause: from sending
    the last cell), and the CPU seconds the kernel process used in all."""
    started = time.perf_counter()
    manager = KernelManager(kernel_name="python3", transport="ipc",
                            connection_file=str(cwd / f"kernel-{time.time_ns()}.json"))
    manager.start_kernel(cwd=str(cwd), env=env)
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=120)
        for cell in cells[:-1]:
            _run_cell(client, cell)
        if pause:
            time.sleep(pause)
            started = time.perf_counter()
        _run_cell(client, cells[-1])
        elapsed = time.perf_counter() - started
        cpu = psutil.Process(manager.provisioner.pid).cpu_times()  # type: ignore[union-attr]
        return elapsed, cpu.user + cpu.system
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pause", type=float, default=5.0, help="seconds between the two cells")
    args = parser.parse_args()
    env = {**os.environ, "NL2SQL_WARMUP": "1"}
    off = {**env, "NL2SQL_WARMUP": "0"}
    work = Path(tempfile.mkdtemp(prefix="nl2sql-kernel-"))
    try:
        _kernel([LOAD, ASK], work, env)  # builds the demo data once and leaves the snapshots
        measures: dict[str, Callable[[], tuple[float, float]]] = {
            "import pandas": lambda: _kernel(["import pandas"], work, env),
            "%nl2sql, warm-up off": lambda: _kernel([LOAD, ASK], work, off),
            "%nl2sql, warm-up on": lambda: _kernel([LOAD, ASK], work, env),
            f"after {args.pause:g} s, warm-up off": lambda: _kernel([LOAD, ASK], work, off, args.pause),
            f"after {args.pause:g} s, warm-up on": lambda: _kernel([LOAD, ASK], work, env, args.pause),
        }
        times: dict[str, list[float]] = {name: [] for name in measures}
        cpus: dict[str, list[float]] = {name: [] for name in measures}
        for _ in range(args.repeats):
            for name, measure in measures.items():
                elapsed, cpu = measure()
                times[name].append(elapsed)
                cpus[name].append(cpu)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    base, cpu_base = (statistics.median(t["import pandas"]) for t in (times, cpus))
    print(f"new kernel, {args.repeats} interleaved rounds (medians; load average "
          f"{os.getloadavg()[0]:.2f}); kernel start included except after a pause;")
    print("  cpu: the kernel process's CPU seconds in all (less swayed by a busy machine)")
    for name, values in times.items():
        median = statistics.median(values)
        print(f"  {name:<26} {median:7.2f} s   {median / base:5.2f}x import pandas"
              f"   cpu {statistics.median(cpus[name]):5.2f} s {statistics.median(cpus[name]) / cpu_base:5.2f}x")


if __name__ == "__main__":
    main()
