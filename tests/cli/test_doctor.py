"""`nl2sql doctor` opens everything `ask` will load: each broken configuration below makes `ask`
fail, and doctor must say so (exit 1, one line naming the problem) instead of passing it."""

from __future__ import annotations

from pathlib import Path

import pytest

import nl2sql
from nl2sql.cli.main import main
from nl2sql.demo import ensure_demo
from nl2sql.errors import NL2SQLError

QUESTION = "How many support tickets are there per priority?"


def _write(folder: Path, toml: str, files: dict[str, str] | None = None) -> Path:
    for name, text in (files or {}).items():
        (folder / name).write_text(text, encoding="utf-8")
    config = folder / "nl2sql.toml"
    config.write_text(toml, encoding="utf-8")
    return config


def _base(folder: Path, extra: str = "", source: str | None = None) -> str:
    crm = source or f'path = "{ensure_demo().crm}"'
    return (
        f"[sources.crm]\n{crm}\n\n[models]\ndefault = \"offline\"\n\n"
        f'[settings]\nproject_dir = "{folder / "project"}"\n\n{extra}'
    )


BROKEN = {
    "missing curated file": (
        lambda d: _base(d, '[curated]\nfile = "nowhere.yaml"\n'),
        {},
        "curated answers file not found",
    ),
    "curated file not YAML": (
        lambda d: _base(d, '[curated]\nfile = "curated.yaml"\n'),
        {"curated.yaml": "answers: [\n  - question: {unclosed\n"},
        "curated answers: curated.yaml is not valid YAML",
    ),
    "policy file not YAML": (
        lambda d: _base(d, '[policies]\nfile = "roles.yaml"\n'),
        {"roles.yaml": "roles:\n  analyst: [\n"},
        "policies: roles.yaml is not valid YAML",
    ),
    "policy file of the wrong shape": (
        lambda d: _base(d, '[policies]\nfile = "roles.yaml"\n'),
        {"roles.yaml": "roles:\n  analyst: 12\n"},
        "policies: roles.yaml: roles.analyst",
    ),
    "unreachable source": (
        lambda d: _base(d, source='url = "postgresql+psycopg://nobody@127.0.0.1:1/none"'),
        {},
        "datasource crm:",
    ),
    "missing database file": (
        lambda d: _base(d, source=f'path = "{d / "gone.sqlite"}"'),
        {},
        "datasource crm:",
    ),
    "project folder under a file": (
        lambda d: _base(d).replace(f'"{d / "project"}"', f'"{d / "curated.txt" / "project"}"'),
        {"curated.txt": "a file, not a folder"},
        "project folder:",
    ),
    "invalid setting": (
        lambda d: _base(d, "").replace("[settings]\n", "[settings]\nrow_cap = -3\n"),
        {},
        "settings: setting row_cap",
    ),
}


def _ask_fails(config: Path) -> bool:
    """True when `ask` with this configuration does not succeed (connect refusing counts)."""
    try:
        with nl2sql.connect(config=config) as session:
            return session.ask(QUESTION).status != "success"
    except NL2SQLError:
        return True


@pytest.mark.parametrize("case", list(BROKEN))
def test_doctor_fails_each_configuration_ask_fails_on(tmp_path, monkeypatch, capsys, case):
    monkeypatch.setenv("COLUMNS", "250")
    monkeypatch.chdir(tmp_path)
    toml, files, expected = BROKEN[case]
    config = _write(tmp_path, toml(tmp_path), files)
    assert _ask_fails(config), "the configuration should be broken for ask too"
    exit_code = main(["doctor", "--config", str(config)])
    out = capsys.readouterr().out
    problems = [line for line in out.splitlines() if line.startswith("✗")]
    assert exit_code == 1, out
    assert len(problems) == 1 and expected in problems[0], out
    assert "Traceback" not in out


def test_doctor_passes_a_working_configuration(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "250")
    config = _write(
        tmp_path,
        _base(tmp_path, '[curated]\nfile = "curated.yaml"\n'),
        {"curated.yaml": "answers: []\n"},
    )
    assert main(["doctor", "--config", str(config)]) == 0, capsys.readouterr().out
    assert not _ask_fails(config)


def test_doctor_reports_an_unreadable_config_file_in_one_line(tmp_path, capsys):
    config = _write(tmp_path, "[sources.crm\npath = 1\n")
    assert main(["doctor", "--config", str(config)]) == 1
    out = capsys.readouterr().out
    assert "✗ config: nl2sql.toml is not valid TOML" in out and "1 problem(s) found" in out
