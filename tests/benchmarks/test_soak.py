"""The soak benchmark's arithmetic and verdict (the 1,000-run soak itself runs in `make bench`),
and a short real soak: a few runs in one session leave the process's resources as they were."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import load_benchmark

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def soak():
    return load_benchmark("soak")


def test_the_slope_is_growth_per_thousand_runs(soak):
    samples = [soak.Sample(run, 100 + run * 0.05, 20, 10) for run in range(0, 1001, 100)]
    assert soak.slope_per_1000(samples, "rss_mb") == pytest.approx(50.0)
    assert soak.slope_per_1000(samples, "fds") == pytest.approx(0.0)
    assert soak.slope_per_1000(samples[:1], "fds") == 0.0


def test_growth_after_warm_up_fails_and_warm_up_does_not(soak):
    warm = [soak.Sample(0, 20, 5, 1), soak.Sample(100, 300, 25, 20), soak.Sample(1000, 320, 26, 20)]
    assert soak.verdict(warm, warmup=100) == []
    leak = [*warm[:2], soak.Sample(1000, 600, 60, 40)]
    problems = soak.verdict(leak, warmup=100)
    assert len(problems) == 3 and "RSS grew 300 MB" in problems[0]


def test_a_short_soak_keeps_descriptors_and_threads_flat(soak, tmp_path):
    questions = ["How many support tickets are there per priority?"]
    samples, failed = soak.soak(30, 10, questions, str(tmp_path))
    assert failed == 0
    after_first, last = samples[1], samples[-1]
    assert last.fds - after_first.fds <= soak.MAX_FD_GROWTH
    assert last.threads - after_first.threads <= soak.MAX_THREAD_GROWTH
