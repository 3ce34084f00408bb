"""Artifacts on object storage: `artifact_root = "s3://bucket/prefix"` through fsspec (s3fs).

Tested against a real local S3 server (moto's server mode on 127.0.0.1): artifacts are written
and read back through the same store, a session's run writes its results there and a new session
reads them, retention prunes the bucket as it prunes a folder, and the credentials (from the
environment, as the provider chain reads them) appear in no repr, log line or artifact URI.
"""

from __future__ import annotations

import logging
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path

import pyarrow as pa
import pytest

import nl2sql
from nl2sql.errors import ConfigError
from nl2sql.execution.artifacts import ArtifactStore
from nl2sql.execution.retention import Retention

pytest.importorskip("s3fs", reason="object-storage artifacts need s3fs (the dev extra installs it)")
moto_server = pytest.importorskip("moto.server", reason="the local S3 server is moto's (dev extra)")

SECRET = "tHiS-iS-tHe-SeCrEt-4a1274e2"  # fixed: parametrize ids must match across xdist workers
KEY_ID = "AKIATESTNL2SQL67BD50"
ROWS = pa.table({"region": ["Coast", "Hills"], "n": [3, 4]})


@pytest.fixture(scope="session")
def s3_endpoint() -> Iterator[str]:
    server = moto_server.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def bucket(s3_endpoint: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """A fresh bucket; the credentials come from the environment, as in production."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", KEY_ID)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    import s3fs

    name = f"nl2sql-{uuid.uuid4().hex[:10]}"
    s3fs.S3FileSystem(endpoint_url=s3_endpoint, skip_instance_cache=True).mkdir(name)
    return name


def _objects(endpoint: str, prefix: str) -> list[str]:
    import s3fs

    fs = s3fs.S3FileSystem(endpoint_url=endpoint, skip_instance_cache=True)
    return sorted(p for p in fs.find(prefix) if p.endswith(".parquet"))


def test_artifacts_round_trip_through_the_bucket(bucket: str, s3_endpoint: str) -> None:
    store = ArtifactStore(f"s3://{bucket}/runs", storage_options={"endpoint_url": s3_endpoint})
    ref = store.write(ROWS, tenant_id="acme", request_id="r1", sub_query_id="sq_1", truncated=False)
    assert ref.uri == f"s3://{bucket}/runs/acme/r1/sq_1.parquet"
    assert ref.backend == "s3" and ref.row_count == 2 and ref.bytes > 0
    assert _objects(s3_endpoint, bucket) == [f"{bucket}/runs/acme/r1/sq_1.parquet"]
    # read back through a second store on the same root: the bytes came from the server
    again = ArtifactStore(f"s3://{bucket}/runs", storage_options={"endpoint_url": s3_endpoint})
    assert again.read(ref, verify=True).equals(ROWS)
    # a hostile id still cannot leave the prefix
    odd = store.write(ROWS, tenant_id="../../other", request_id="r/2", sub_query_id="sq",
                      truncated=False)
    assert odd.uri.startswith(f"s3://{bucket}/runs/") and "/../" not in odd.uri


def test_retention_prunes_the_bucket(bucket: str, s3_endpoint: str) -> None:
    store = ArtifactStore(f"s3://{bucket}/kept", storage_options={"endpoint_url": s3_endpoint},
                          retention=Retention(keep=2))
    for i in range(4):
        store.write(ROWS, tenant_id=None, request_id=f"r{i}", sub_query_id="sq", truncated=False)
    left = _objects(s3_endpoint, f"{bucket}/kept")
    assert len(left) == 2
    # objects younger than the grace period are never pruned, whatever the count
    busy = ArtifactStore(f"s3://{bucket}/busy", storage_options={"endpoint_url": s3_endpoint},
                         retention=Retention(keep=1, grace_s=600))
    for i in range(3):
        busy.write(ROWS, tenant_id=None, request_id=f"r{i}", sub_query_id="sq", truncated=False)
    assert len(_objects(s3_endpoint, f"{bucket}/busy")) == 3


def _shop(folder: Path) -> str:
    path = folder / "shop.sqlite"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE orders (order_id INTEGER PRIMARY KEY, region TEXT, amount INTEGER)")
    con.executemany("INSERT INTO orders VALUES (?, ?, ?)",
                    [(1, "Coast", 5), (2, "Hills", 7), (3, "Coast", 9)])
    con.commit()
    con.close()
    return f"sqlite:///{path}"


def test_a_session_writes_its_results_to_the_bucket_and_never_shows_the_secret(
    bucket: str, s3_endpoint: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    settings = {
        "project_dir": tmp_path / "p",
        "artifact_root": f"s3://{bucket}/results",
        "artifact_storage_options": {"endpoint_url": s3_endpoint},
    }
    caplog.set_level(logging.DEBUG)
    url = _shop(tmp_path)
    with nl2sql.connect(sources={"shop": url}, settings=settings) as session:
        result = session.ask("number of orders per region")
        assert result.status == "success", [e.one_line() for e in result.errors]
        shown = [repr(session), repr(session.settings), repr(session.context.artifacts.backend),
                 repr(result), result.to_json() if hasattr(result, "to_json") else ""]
    (output,) = result.sub_queries
    ref = output.artifact
    assert ref is not None and ref.uri.startswith(f"s3://{bucket}/results/default/")
    assert not (tmp_path / "p" / "artifacts").exists()  # nothing went to the local disk
    # a new session reads the artifact back from the bucket
    with nl2sql.connect(sources={"shop": url}, settings={**settings, "project_dir": tmp_path / "q"}) as other:
        table = other.context.artifacts.read(ref, verify=True)
    assert sorted(table.to_pylist(), key=lambda r: r[table.column_names[0]]) == [
        {table.column_names[0]: "Coast", table.column_names[1]: 2},
        {table.column_names[0]: "Hills", table.column_names[1]: 1},
    ]
    ours = "\n".join(r.getMessage() for r in caplog.records if r.name.startswith("nl2sql"))
    for text in [*shown, ref.uri, ours]:
        assert SECRET not in text and KEY_ID not in text
    # botocore's own DEBUG lines name the key id (in the signed header), never the secret
    assert SECRET not in caplog.text


@pytest.mark.parametrize(
    ("root", "options", "says"),
    [
        (f"s3://{KEY_ID}:{SECRET}@bucket/x", {}, "must not carry credentials"),
        ("s3://bucket/x", {"secret": SECRET}, "must not hold credentials (secret)"),
        ("s3://bucket/x", {"key": KEY_ID}, "must not hold credentials (key)"),
        ("s3:///x", {}, "names no bucket"),
        ("nosuchproto://bucket/x", {}, "not known to fsspec"),
    ],
    ids=["credentials-in-url", "secret-option", "key-option", "no-bucket", "unknown-protocol"],
)
def test_bad_roots_are_refused_in_one_line(root: str, options: dict, says: str) -> None:
    with pytest.raises(ConfigError) as info:
        ArtifactStore(root, storage_options=options)
    message = str(info.value)
    assert says in message and "\n" not in message
    assert SECRET not in message and KEY_ID not in message


@pytest.mark.parametrize(("root", "package"), [("gs://bucket/x", "gcsfs"), ("abfs://box/x", "adlfs")])
def test_a_protocol_whose_package_is_missing_names_it(root: str, package: str) -> None:
    try:
        __import__(package)
    except ImportError:
        pass
    else:
        pytest.skip(f"{package} is installed here")
    with pytest.raises(ConfigError, match=f"needs the {package} package: pip install") as info:
        ArtifactStore(root)
    assert "\n" not in str(info.value)


def test_everything_from_the_environment(
    bucket: str, s3_endpoint: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NL2SQL_ARTIFACT_ROOT names the bucket; the endpoint and credentials are the provider's
    own variables (AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID, …): no storage option at all."""
    monkeypatch.setenv("AWS_ENDPOINT_URL", s3_endpoint)
    monkeypatch.setenv("NL2SQL_ARTIFACT_ROOT", f"s3://{bucket}/env")
    with nl2sql.connect(sources={"shop": _shop(tmp_path)},
                        settings={"project_dir": tmp_path / "p"}) as session:
        result = session.ask("number of orders per region")
        assert result.status == "success", [e.one_line() for e in result.errors]
        assert session.settings.artifact_storage_options == {}
    (output,) = result.sub_queries
    assert output.artifact is not None and output.artifact.uri.startswith(f"s3://{bucket}/env/")
    assert _objects(s3_endpoint, f"{bucket}/env") == [output.artifact.uri.removeprefix("s3://")]


def test_clean_removes_the_artifacts_in_the_bucket(bucket: str, s3_endpoint: str, tmp_path: Path) -> None:
    from nl2sql.cli.main import main

    store = ArtifactStore(f"s3://{bucket}/c", storage_options={"endpoint_url": s3_endpoint})
    for i in range(3):
        store.write(ROWS, tenant_id=None, request_id=f"r{i}", sub_query_id="sq", truncated=False)
    config = tmp_path / "nl2sql.toml"
    config.write_text(f'[settings]\nartifact_root = "s3://{bucket}/c"\n'
                      f'artifact_storage_options = {{ endpoint_url = "{s3_endpoint}" }}\n')
    assert main(["clean", "-c", str(config), "--dry-run"]) == 0
    assert len(_objects(s3_endpoint, f"{bucket}/c")) == 3
    assert main(["clean", "-c", str(config)]) == 0
    assert _objects(s3_endpoint, f"{bucket}/c") == []
