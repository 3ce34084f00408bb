"""Secrets are never shown: not in a config's repr or str, doctor's output, nor an error."""

from __future__ import annotations

import pytest

import nl2sql
from nl2sql.cli.main import main
from nl2sql.errors import ConfigError, ErrorCode, crash, error, mask_url_passwords
from nl2sql.reasoning.llm.errors import redact
from nl2sql.settings import load_config_file

PASSWORD = "s3cr/t-Pa55"  # a '/' in it: a naive userinfo pattern stops there and leaks the rest


def _config(tmp_path, monkeypatch, host: str = "127.0.0.1:1", model: str = "openai:gpt-x") -> object:
    monkeypatch.setenv("NL2SQL_TEST_SECRET_PW", PASSWORD)
    path = tmp_path / "nl2sql.toml"
    path.write_text(
        f'[sources.pg]\nurl = "postgresql://app:${{NL2SQL_TEST_SECRET_PW}}@{host}/test"\n'
        f'[models]\ndefault = "{model}"\napi_key = "${{NL2SQL_TEST_SECRET_PW}}"\n'
        f'[settings]\nproject_dir = "{tmp_path / "proj"}"\n'
    )
    return path


def test_config_repr_and_str_mask_passwords_and_keys(tmp_path, monkeypatch):
    config = load_config_file(_config(tmp_path, monkeypatch))
    assert config.sources["pg"].url.endswith(f"{PASSWORD}@127.0.0.1:1/test")  # the value is intact
    for shown in (repr(config), str(config), repr(config.sources["pg"]), str(config.sources)):
        assert PASSWORD not in shown and "s3cr" not in shown
    assert "postgresql://app:***@127.0.0.1:1/test" in repr(config)


def test_session_config_repr_hides_the_database_password(tmp_path, monkeypatch, postgres_url):
    from sqlalchemy.engine import make_url

    url = make_url(postgres_url)
    host = f"{url.host}:{url.port or 5432}"
    path = _config(tmp_path, monkeypatch, host=host, model="offline")
    path.write_text(path.read_text().replace("app:", f"{url.username}:").replace("/test", f"/{url.database}"))
    session = nl2sql.connect(config=path)
    try:
        assert PASSWORD not in repr(session.config) and PASSWORD not in str(session.config)
        assert PASSWORD not in repr(session)
    finally:
        session.close()


def test_doctor_output_and_connect_errors_never_show_the_password(tmp_path, monkeypatch, capsys):
    path = _config(tmp_path, monkeypatch)
    main(["doctor", "--offline", "--config", str(path)])
    captured = capsys.readouterr()
    assert "pg" in captured.out
    assert PASSWORD not in captured.out + captured.err and "s3cr" not in captured.out + captured.err
    with pytest.raises(ConfigError) as info:
        nl2sql.connect(sources={"pg": f"postgresql://app:{PASSWORD}@127.0.0.1:1/test"})
    assert "s3cr" not in str(info.value)


def test_error_messages_and_traces_mask_url_passwords():
    url = f"mysql+pymysql://root:{PASSWORD}@db:3306/x"
    assert mask_url_passwords(f"cannot reach {url}.") == "cannot reach mysql+pymysql://root:***@db:3306/x."
    assert "s3cr" not in redact(f"error at {url}")
    assert "s3cr" not in error("n", ErrorCode.EXECUTION_FAILED, f"failed on {url}").message
    try:
        raise RuntimeError(f"boom {url}")
    except RuntimeError as exc:
        failed = crash("n", ErrorCode.UNKNOWN_ERROR, exc)
    assert "s3cr" not in failed.message and "s3cr" not in failed.details["trace"]
