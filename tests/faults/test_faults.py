"""Faults a run must survive: a database killed mid-query (a throwaway PostgreSQL server of the
test's own on another port), a full disk and a read-only project folder (small tmpfs mounts),
and damaged pin, approvals, snapshot and config files. Every case returns a result with clear
one-line errors (or rebuilds transparently): never a traceback, never a hang.

Needs root for the mounts and PostgreSQL's binaries for the server; without them each case
skips with the reason, and fails instead when env CI=true.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import nl2sql
from nl2sql.demo import ensure_demo
from nl2sql.errors import ConfigError, ErrorCode

PG_BIN = Path("/usr/lib/postgresql/15/bin")
QUESTION = "How many support tickets are there per priority?"
TWO_SOURCES = "For each region, compare the number of orders with the number of support tickets"
#: one folder per schema: a fault under one source's folder hits only that source's sub-query
BY_SCHEMA = "{root}/{schema_version}/{request_id}/{sub_query_id}.parquet"


def _unavailable(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason} (required when CI=true)", pytrace=False)
    pytest.skip(reason)


def _one_line_errors(result) -> list[str]:
    lines = [e.one_line() for e in result.errors]
    assert all("\n" not in line and "Traceback" not in line for line in lines), lines
    return lines


def _crm_session(project: Path):
    return nl2sql.connect(
        sources={"crm": str(ensure_demo().crm)}, models="offline", settings={"project_dir": project}
    )


# -- (a) a database killed mid-run ----------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ThrowawayPostgres:
    """A PostgreSQL cluster in a temp folder, run as the `postgres` user on its own port."""

    def __init__(self, folder: Path):
        self.folder, self.port = folder, _free_port()
        self.data, self.log = folder / "data", folder / "server.log"

    def _as_postgres(self, *args: str, timeout: float = 60) -> None:
        subprocess.run(["runuser", "-u", "postgres", "--", *args], check=True, timeout=timeout,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def init(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        shutil.chown(self.folder, "postgres", "postgres")
        self._as_postgres(str(PG_BIN / "initdb"), "-D", str(self.data), "-A", "trust",
                          "-U", "postgres", "--no-sync")

    def start(self) -> None:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-o", options,
                          "-l", str(self.log), "-w", "-t", "60", "start", timeout=90)

    def kill(self) -> None:
        """Stop at once, as a crash or an operator's kill would (no clean shutdown)."""
        self._as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "stop")

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            subprocess.run(["runuser", "-u", "postgres", "--", str(PG_BIN / "pg_ctl"), "-D",
                            str(self.data), "-m", "immediate", "stop"], check=False, timeout=60,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def execute(self, *statements: str) -> list:
        import psycopg

        with psycopg.connect(host="127.0.0.1", port=self.port, user="postgres",
                             dbname="postgres", autocommit=True) as conn:
            rows: list = []
            for sql in statements:
                cur = conn.execute(sql)
                rows = cur.fetchall() if cur.description else []
            return rows


@pytest.fixture
def throwaway_postgres(tmp_path_factory) -> Iterator[ThrowawayPostgres]:
    if not (PG_BIN / "initdb").exists():
        _unavailable(f"PostgreSQL 15 binaries are missing ({PG_BIN})")
    if os.geteuid() != 0 or shutil.which("runuser") is None:
        _unavailable("a throwaway PostgreSQL server needs root (runuser -u postgres)")
    try:
        import pwd

        pwd.getpwnam("postgres")
    except KeyError:
        _unavailable("a throwaway PostgreSQL server needs the `postgres` user")
    server = ThrowawayPostgres(Path(f"/tmp/nl2sql-fault-pg-{os.getpid()}-{_free_port()}"))
    try:
        server.init()
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.folder, ignore_errors=True)


def _running(server: ThrowawayPostgres, marker: str) -> bool:
    rows = server.execute(
        "SELECT count(*) FROM pg_stat_activity WHERE state = 'active' "
        f"AND query LIKE '%{marker}%' AND pid <> pg_backend_pid()"
    )
    return bool(rows and rows[0][0])


def test_a_database_killed_mid_query_is_a_db_error_and_the_session_recovers(
    throwaway_postgres, tmp_path
):
    server = throwaway_postgres
    server.execute(
        "CREATE TABLE tickets (ticket_id int PRIMARY KEY, priority text)",
        "INSERT INTO tickets SELECT g, CASE WHEN g % 3 = 0 THEN 'high' ELSE 'low' END "
        "FROM generate_series(1, 30) g",
        # Each row costs a second: a query over it runs long enough to be killed.
        "CREATE VIEW slow_tickets AS SELECT ticket_id, priority FROM tickets "
        "WHERE pg_sleep(1)::text = ''",
    )
    with nl2sql.connect(sources={"ops": server.url}, models="offline",
                        settings={"project_dir": tmp_path / "project"}) as session:
        box: dict = {}
        question = "How many slow tickets are there?"
        asker = threading.Thread(target=lambda: box.setdefault("r", session.ask(question, timeout_s=120)))
        started = time.monotonic()
        asker.start()
        while not _running(server, "slow_tickets") and time.monotonic() - started < 60:
            time.sleep(0.2)
        assert _running(server, "slow_tickets"), "the slow query never started"
        server.kill()
        asker.join(60)
        assert not asker.is_alive(), "the run hung after its database died"
        result = box["r"]
        assert result.status == "error"
        codes = [e.error_code for e in result.errors]
        assert ErrorCode.DB_EXECUTION_ERROR in codes, _one_line_errors(result)
        assert ErrorCode.UNKNOWN_ERROR not in codes, _one_line_errors(result)
        _one_line_errors(result)
        server.start()
        again = session.ask("How many tickets are there per priority?", timeout_s=120)
        assert again.status == "success", _one_line_errors(again)
        assert sorted(map(tuple, again.to_pandas().itertuples(index=False))) == [
            ("high", 10), ("low", 20)
        ]


# -- (b, c) a full disk and a read-only project folder ---------------------------------------------


@pytest.fixture
def small_mount(tmp_path) -> Iterator[Path]:
    """A 64 KiB tmpfs, unmounted afterwards; skipped where mounting is not permitted."""
    folder = tmp_path / "mnt"
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        _unavailable(f"mounting a tmpfs is not permitted here: {done.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


def _fill(folder: Path) -> None:
    """Use every byte of the mount (root's reserve included: tmpfs has none)."""
    fd = os.open(folder / "filler.bin", os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        while os.write(fd, b"\0" * 4096):
            pass
    except OSError:  # ENOSPC: full
        pass
    finally:
        os.close(fd)


def _remount_read_only(folder: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True)


@pytest.mark.parametrize("fault", ["disk full", "read-only"])
def test_a_project_folder_that_cannot_be_written_never_crashes_a_run(small_mount, fault):
    project = small_mount / "project"
    project.mkdir()
    (_fill if fault == "disk full" else _remount_read_only)(small_mount)
    with _crm_session(project) as session:
        results = [session.ask(QUESTION, timeout_s=60) for _ in range(3)]
    for result in results:
        assert result.status in ("success", "error")
        _one_line_errors(result)


@pytest.mark.parametrize("fault", ["disk full", "read-only"])
def test_a_single_source_answer_that_cannot_be_written_is_a_clear_error(small_mount, fault):
    project = small_mount / "project"
    project.mkdir()
    (_fill if fault == "disk full" else _remount_read_only)(small_mount)
    with _crm_session(project) as session:
        result = session.ask(QUESTION, timeout_s=60)
    codes = [e.error_code for e in result.errors]
    assert result.status == "error", _one_line_errors(result)
    assert ErrorCode.ARTIFACT_WRITE_FAILED in codes, _one_line_errors(result)
    assert ErrorCode.UNKNOWN_ERROR not in codes, _one_line_errors(result)
    assert result.sub_queries and all(o.status == "error" for o in result.sub_queries)
    result.to_json()


def _two_source_session(project: Path):
    demo = ensure_demo()
    return nl2sql.connect(
        sources={"crm": str(demo.crm), "warehouse": str(demo.warehouse)}, models="offline",
        settings={"project_dir": project, "artifact_path_template": BY_SCHEMA},
    )


def _crm_schema_folder(project: Path) -> str:
    """The artifact folder the crm sub-query writes to, found by a run on a healthy disk."""
    with _two_source_session(project) as session:
        result = session.ask(TWO_SOURCES, timeout_s=60)
    assert result.status == "success", _one_line_errors(result)
    [crm] = [o for o in result.sub_queries if "support_tickets" in (o.sql_draft or "")]
    assert crm.artifact is not None
    return Path(crm.artifact.uri.removeprefix("file://")).parent.parent.name


@pytest.mark.parametrize("fault", ["disk full", "read-only"])
def test_one_sub_query_that_cannot_be_written_keeps_the_others_results(small_mount, fault, tmp_path):
    project = tmp_path / "project"
    folder = _crm_schema_folder(project)
    crm_folder = project / "artifacts" / folder
    shutil.rmtree(crm_folder)
    crm_folder.mkdir()
    subprocess.run(["mount", "--bind", str(small_mount), str(crm_folder)], check=True)
    try:
        (_fill if fault == "disk full" else _remount_read_only)(crm_folder)
        with _two_source_session(project) as session:
            result = session.ask(TWO_SOURCES, timeout_s=60)
    finally:
        subprocess.run(["umount", "-l", str(crm_folder)], check=False)
    lines = _one_line_errors(result)
    by_source = {"crm" if "support_tickets" in (o.sql_draft or "") else "warehouse": o
                 for o in result.sub_queries}
    crm, warehouse = by_source["crm"], by_source["warehouse"]
    assert crm.status == "error" and crm.artifact is None
    assert [e.error_code for e in crm.errors] == [ErrorCode.ARTIFACT_WRITE_FAILED], lines
    assert ErrorCode.UNKNOWN_ERROR not in [e.error_code for e in result.errors], lines
    assert warehouse.status == "success" and warehouse.artifact is not None, lines
    kept = result.session.context.artifacts.read(warehouse.artifact, verify=True)
    assert kept.num_rows == 5  # one row per region: the finished result is kept and readable
    result.to_json()


# -- (d) damaged files -----------------------------------------------------------------------------


@pytest.fixture
def pinned_project(tmp_path) -> Path:
    project = tmp_path / "project"
    with _crm_session(project) as session:
        result = session.ask(QUESTION)
        assert result.status == "success"
        session.pin(result)
    return project


DAMAGE = {
    "truncated": "{\"question\": \"How many",
    "not JSON": "\x00\x01garbage",
    "wrong shape": "[1, 2, 3]",
    "not UTF-8": "\udcff",
}


def _damage(path: Path, text: str) -> None:
    path.write_bytes(text.encode("utf-8", "surrogateescape"))


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_pin_or_approval_is_a_one_line_warning_not_a_crash(pinned_project, damage):
    [pin] = (pinned_project / "pins").glob("*.json")
    _damage(pin, DAMAGE[damage])
    (pinned_project / "approvals").mkdir(exist_ok=True)
    _damage(pinned_project / "approvals" / "apr_damaged.json", DAMAGE[damage])
    with _crm_session(pinned_project) as session:
        result = session.ask(QUESTION)
    assert result.status == "success" and len(result.to_pandas()) == 4
    warnings = [line for line in _one_line_errors(result) if "could not be read" in line]
    assert len(warnings) == 2 and any(pin.name in w for w in warnings), warnings


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_a_damaged_snapshot_is_rebuilt(pinned_project, damage):
    [snapshot] = (pinned_project / "snapshots").glob("*.json")
    _damage(snapshot, DAMAGE[damage])
    with _crm_session(pinned_project) as session:
        result = session.ask("How many support tickets are there?")
    assert result.status == "success", _one_line_errors(result)
    assert '"datasource_id"' in snapshot.read_text(encoding="utf-8")  # written again, whole


@pytest.mark.parametrize(
    "text", ["[sources.crm\n", "[sources.crm]\npath = 12\n", "\udcff", "[nonsense]\nx = 1\n"]
)
def test_a_damaged_config_file_is_one_line_error(tmp_path, capsys, text):
    from nl2sql.cli.main import main

    config = tmp_path / "nl2sql.toml"
    _damage(config, text)
    with pytest.raises(ConfigError) as info:
        nl2sql.connect(config=config)
    assert "\n" not in str(info.value) and "nl2sql.toml" in str(info.value)
    assert main(["ask", QUESTION, "--config", str(config)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("\n") <= 2, err
