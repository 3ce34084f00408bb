"""Configuration: file, environment, arguments, ${ENV} expansion; secrets never echoed."""

from __future__ import annotations

import pytest

import nl2sql
from nl2sql.errors import ConfigError
from nl2sql.settings import build_settings, find_config_file, load_config_file


def test_precedence_arguments_over_environment_over_file(monkeypatch):
    monkeypatch.setenv("NL2SQL_ROW_CAP", "500")
    file_settings = {"row_cap": 100, "statement_timeout_s": 5}
    assert build_settings(file_settings).row_cap == 500  # environment beats the file
    assert build_settings(file_settings).statement_timeout_s == 5  # the file beats defaults
    assert build_settings(file_settings, {"row_cap": 7}).row_cap == 7  # arguments beat both


def test_config_file_found_upwards_and_env_expanded(tmp_path, monkeypatch):
    (tmp_path / "nl2sql.toml").write_text(
        '[sources.shop]\npath = "${SHOP_DIR}/shop.duckdb"\ndescription = "the shop"\n'
        "[settings]\nrow_cap = 42\n"
    )
    nested = tmp_path / "a" / "b"
    nested.mkdir(parents=True)
    monkeypatch.setenv("SHOP_DIR", "/data")
    found = find_config_file(nested)
    assert found == tmp_path / "nl2sql.toml"
    config = load_config_file(found)
    assert config.sources["shop"].path == "/data/shop.duckdb"
    assert config.settings == {"row_cap": 42}


def test_unset_variable_is_named_but_nothing_else_leaks(tmp_path, monkeypatch):
    monkeypatch.setenv("DB_PASSWORD", "hunter2")
    path = tmp_path / "nl2sql.toml"
    path.write_text('[sources.db]\nurl = "postgresql://u:${DB_PASSWORD}@h/${DB_NAME_UNSET}"\n')
    with pytest.raises(ConfigError) as info:
        load_config_file(path)
    assert "DB_NAME_UNSET" in str(info.value) and "hunter2" not in str(info.value)


@pytest.mark.parametrize(
    "text, fragment",
    [("[settings]\nrow_cap = 0\n", "row_cap"), ("[nonsense]\n", "nonsense"), ("not = [toml", "TOML")],
)
def test_invalid_config_is_a_one_line_config_error(tmp_path, text, fragment):
    path = tmp_path / "nl2sql.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=fragment):
        config = load_config_file(path)
        build_settings(config.settings)


def test_pyproject_tool_section_is_a_config_file(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.nl2sql.settings]\nrow_cap = 9\n')
    config = load_config_file(find_config_file(tmp_path))
    assert config.settings == {"row_cap": 9}


def test_connect_with_sources_and_an_unknown_model_node_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="unknown.*planner"):
        nl2sql.connect(sources={"x": str(tmp_path / "x.duckdb")}, models={"planner": "offline"})


def test_import_has_no_side_effects(tmp_path):
    import os
    import subprocess
    import sys

    heavy = ("duckdb", "chromadb", "langgraph", "langchain_core", "langsmith", "pandas", "pyarrow",
             "sqlglot", "numpy", "pydantic", "lemminflect", "inflect", "IPython")
    code = ("import sys, logging, threading, nl2sql; "
            f"print(sorted(m for m in {heavy!r} if m in sys.modules)); "
            "assert not logging.getLogger().handlers; assert threading.active_count() == 1")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, check=True, capture_output=True,
                          text=True, env={**os.environ, "NL2SQL_WARMUP": "1"})
    assert done.stdout.strip() == "[]"  # heavy libraries load on first use, and no warm-up starts
    assert list(tmp_path.iterdir()) == []  # no folder or file created


def test_reference_date_is_an_iso_date_from_the_environment_else_today(monkeypatch):
    import datetime as dt

    from nl2sql.settings import reference_date

    monkeypatch.delenv("NL2SQL_REFERENCE_DATE", raising=False)
    assert reference_date(build_settings({})) == dt.date.today()
    monkeypatch.setenv("NL2SQL_REFERENCE_DATE", "2026-12-01")
    assert reference_date(build_settings({"reference_date": "2020-01-01"})) == dt.date(2026, 12, 1)
    monkeypatch.setenv("NL2SQL_REFERENCE_DATE", "first of May")
    with pytest.raises(ConfigError, match="reference_date"):
        build_settings({})


def test_the_demo_pins_its_reference_date_unless_told_otherwise(monkeypatch, tmp_path):
    import datetime as dt

    from nl2sql.demo import DEMO_SETTINGS

    monkeypatch.delenv("NL2SQL_REFERENCE_DATE", raising=False)
    assert DEMO_SETTINGS["reference_date"] == "2025-06-30"  # the demo data's last day
    session = nl2sql.connect("demo", settings={"project_dir": tmp_path})
    try:
        assert session.context.settings.reference_date == dt.date(2025, 6, 30)
    finally:
        session.close()
    session = nl2sql.connect("demo", settings={"project_dir": tmp_path, "reference_date": "2024-01-31"})
    try:
        assert session.context.settings.reference_date == dt.date(2024, 1, 31)
    finally:
        session.close()
