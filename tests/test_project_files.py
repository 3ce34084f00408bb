"""What nl2sql writes into the project folder: inside it, private, and without denied values.

Datasource ids become file names (schema snapshots), so an id is validated where sources are
configured and every path built from an id, a tenant or a request stays inside the project folder.
Snapshots, the vector store, artifacts, pins and approvals hold data: folders 0700, files 0600,
and no file keeps the sample values of a column a policy denies.
"""

from __future__ import annotations

import sqlite3
import stat
from pathlib import Path

import pytest

import nl2sql
from nl2sql.errors import ConfigError
from nl2sql.execution.artifacts import ArtifactStore
from nl2sql.governance.approvals import Approval, ApprovalRequest
from nl2sql.governance.stores import ApprovalStore
from nl2sql.schema.store import SchemaStore
from nl2sql.security.rbac import UserContext
from nl2sql.settings import load_config_file

SECRET_MAILS = ["ada.secret@example.org", "bob.secret@example.org"]


def _db(folder: Path) -> Path:
    path = folder / "people.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, name TEXT, email TEXT)")
    con.executemany("INSERT INTO customers VALUES (?, ?, ?)",
                    [(1, "Ada", SECRET_MAILS[0]), (2, "Bob", SECRET_MAILS[1])])
    # two tables: with retrieval_min_tables = 1 the schema retriever opens the vector store
    con.execute("CREATE TABLE visits (visit_id INTEGER PRIMARY KEY, customer_id INTEGER, day TEXT)")
    con.commit()
    con.close()
    return path


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _assert_private(root: Path) -> None:
    """Every folder under `root` is 0700, every file 0600."""
    assert _mode(root) == 0o700, root
    for path in root.rglob("*"):
        assert _mode(path) == (0o700 if path.is_dir() else 0o600), path


@pytest.mark.parametrize("bad", ["../../escape", "/tmp/abs", "a/b", "..", ".hidden", "", "x" * 65])
def test_bad_source_ids_are_a_one_line_config_error(tmp_path: Path, bad: str) -> None:
    db = _db(tmp_path)
    with pytest.raises(ConfigError, match="datasource id .* is not allowed: use 1-64") as info:
        nl2sql.connect(sources={bad: f"sqlite:///{db}"}, settings={"project_dir": tmp_path / "p"})
    assert "\n" not in str(info.value)
    config = tmp_path / "nl2sql.toml"
    config.write_text(f'[sources."{bad}"]\npath = "{db}"\n')
    with pytest.raises(ConfigError, match=r"nl2sql.toml: sources: datasource id"):
        load_config_file(config)
    assert not (tmp_path.parent / "escape.json").exists()


def test_a_snapshot_path_never_leaves_the_snapshot_folder(tmp_path: Path) -> None:
    """Even an adapter opened outside connect() with a climbing id writes inside the folder."""
    from nl2sql.datasources.factory import open_datasource

    adapter = open_datasource("../../outside", str(_db(tmp_path)))
    try:
        SchemaStore({"../../outside": adapter}, tmp_path / "p" / "snapshots").get("../../outside")
    finally:
        adapter.close()
    [written] = [p for p in tmp_path.rglob("*.json")]
    assert written.parent == tmp_path / "p" / "snapshots"


def test_a_snapshot_folder_that_cannot_be_written_still_gives_the_schema(tmp_path: Path) -> None:
    """The snapshot file is a readable copy: a folder that cannot be made (here a file is in the
    way; a full or read-only disk on a real machine) is logged, the schema is still returned."""
    from nl2sql.datasources.factory import open_datasource

    blocked = tmp_path / "snapshots"
    blocked.write_text("a file where the folder should be")
    adapter = open_datasource("people", str(_db(tmp_path)))
    try:
        snapshot = SchemaStore({"people": adapter}, blocked).get("people")
    finally:
        adapter.close()
    assert "customers" in {t.name for t in snapshot.tables}


def test_an_artifact_template_that_climbs_out_is_refused(tmp_path: Path) -> None:
    store = ArtifactStore(tmp_path / "artifacts", "{root}/../{request_id}/{sub_query_id}.parquet")
    with pytest.raises(ConfigError, match="leads outside"):
        store.path_for(tenant_id=None, request_id="r", sub_query_id="s")


def _config(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "nl2sql.toml"
    path.write_text(
        f'[sources.people]\npath = "{_db(tmp_path)}"\n'
        f'[settings]\nproject_dir = "{tmp_path / "proj"}"\nretrieval_min_tables = 1\n'
        "exact_search_max_tables = 0\n"  # the chromadb store, a file too
        "[policies.roles.analyst.datasources.people]\n"
        'tables = "*"\ncolumns = { customers = ["customer_id", "name"] }\n'
        "[policies.roles.admin.datasources]\npeople = \"*\"\n" + extra
    )
    return path


def test_project_files_are_private_and_keep_no_denied_samples(tmp_path: Path) -> None:
    session = nl2sql.connect(config=_config(tmp_path), user=UserContext(roles=("admin",)))
    try:
        result = session.ask("how many customers are there?")
        assert result.status == "success", result.errors
        session.pin(result)
    finally:
        session.close()
    project = tmp_path / "proj"
    for folder in ("snapshots", "chroma", "artifacts", "pins"):
        assert (project / folder).is_dir(), folder
        _assert_private(project / folder)
    assert _mode(project) == 0o700
    snapshot = (project / "snapshots" / "people.json").read_text(encoding="utf-8")
    assert "Ada" in snapshot  # a column every role reads keeps its samples
    stored = b"".join(p.read_bytes() for p in project.rglob("*") if p.is_file())
    assert not any(mail.encode() in stored for mail in SECRET_MAILS)


def test_approval_records_are_private_files(tmp_path: Path) -> None:
    store = ApprovalStore(tmp_path / "proj" / "approvals")
    request = ApprovalRequest(id="req1", sub_query_id="sq", reason="r", sql="SELECT 1",
                              datasource_id="people", question="q")
    path = store.record(request, Approval(request_id="req1"))
    assert _mode(path) == 0o600 and _mode(path.parent) == 0o700
