"""Fixtures for the notebook layer: demo sessions in private project folders, a real IPython
shell with the extension loaded, and results of the questions the tests read."""

from __future__ import annotations

import pytest

import nl2sql
from tests.notebook.helpers import TWO_SOURCES


@pytest.fixture(scope="module")
def session(tmp_path_factory):
    """The demo sources, with pins, approvals and caches in a private folder."""
    s = nl2sql.connect("demo", settings={"project_dir": tmp_path_factory.mktemp("project")})
    yield s
    s.close()


@pytest.fixture
def governed(tmp_path):
    """The demo sources under a policy: queries reading `customers` need an approval."""
    config = tmp_path / "nl2sql.toml"
    config.write_text('[policies]\nsensitive = { warehouse = { customers = "*" } }\n', encoding="utf-8")
    s = nl2sql.connect(config=config)
    yield s
    s.close()


@pytest.fixture(scope="module")
def two_sources(session):
    return session.ask(TWO_SOURCES)


@pytest.fixture(scope="module")
def shell(tmp_path_factory):
    """A real InteractiveShell with `%load_ext nl2sql` run and a private project folder."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    config = Config()
    config.HistoryManager.hist_file = ":memory:"  # no history written to the user's profile
    ip = InteractiveShell.instance(config=config)
    assert ip.run_cell("%load_ext nl2sql").success
    project = tmp_path_factory.mktemp("magic-project")
    ip.user_ns["_project"] = str(project)
    assert ip.run_cell("%config NL2SQL.project_dir = _project").success
    return ip
