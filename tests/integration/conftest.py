from __future__ import annotations

import pytest

import nl2sql
from nl2sql.demo import DEMO_SETTINGS, demo_sources, ensure_demo


@pytest.fixture(scope="session")
def demo_paths():
    return ensure_demo()


@pytest.fixture(scope="module")
def demo_session(demo_paths, tmp_path_factory):
    session = nl2sql.connect(
        sources=demo_sources(demo_paths),
        settings={"project_dir": tmp_path_factory.mktemp("project"), **DEMO_SETTINGS},
    )
    yield session
    session.close()
