from __future__ import annotations

import pytest

from nl2sql.demo import build_demo, demo_sources


@pytest.fixture(scope="session")
def small_demo(tmp_path_factory):
    """A small demo build of its own (fast), shared by this folder's tests."""
    return build_demo(tmp_path_factory.mktemp("demo"), scale=0.05)


@pytest.fixture
def sources(small_demo):
    return demo_sources(small_demo)
