"""The artifact store: path template, one file per sub-query, data hash, round trip."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from nl2sql.errors import ConfigError
from nl2sql.execution.artifacts import ArtifactStore, content_hash, local_path

ROWS = pa.table({"region": ["north", "south", None], "revenue": [1.5, 2.0, 3.25]})


def _write(store: ArtifactStore, table: pa.Table = ROWS, **kwargs):
    args = {"tenant_id": "acme", "request_id": "req1", "sub_query_id": "sq_a", "truncated": False}
    return store.write(table, **{**args, **kwargs})


def test_default_template_writes_root_tenant_request_sub_query(tmp_path: Path):
    store = ArtifactStore(tmp_path)
    ref = _write(store)
    assert local_path(ref.uri) == tmp_path / "acme" / "req1" / "sq_a.parquet"
    assert ref.uri.startswith("file://")
    no_tenant = _write(store, tenant_id=None)
    assert local_path(no_tenant.uri) == tmp_path / "default" / "req1" / "sq_a.parquet"


def test_ref_describes_the_written_data(tmp_path: Path):
    ref = _write(ArtifactStore(tmp_path), truncated=True)
    assert ref.backend == "local" and ref.format == "parquet"
    assert ref.row_count == 3 and ref.truncated is True
    assert [(c.name, c.dtype) for c in ref.columns] == [("region", "string"), ("revenue", "double")]
    assert ref.bytes == local_path(ref.uri).stat().st_size > 0
    assert ref.created_at.tzinfo is not None and ref.created_at.utcoffset() == UTC.utcoffset(None)


def test_read_returns_the_rows_written_from_a_uri_or_a_plain_path(tmp_path: Path):
    store = ArtifactStore(tmp_path)
    ref = _write(store)
    assert store.read(ref).equals(ROWS)
    plain = ref.model_copy(update={"uri": str(local_path(ref.uri))})
    assert store.read(plain).equals(ROWS)


def test_custom_template_without_sub_query_id_gets_it_appended_to_the_stem(tmp_path: Path):
    store = ArtifactStore(tmp_path, "{root}/{tenant_id}/{request_id}.parquet")
    first = _write(store, sub_query_id="sq_a")
    second = _write(store, sub_query_id="sq_b", table=ROWS.slice(0, 1))
    assert local_path(first.uri) == tmp_path / "acme" / "req1-sq_a.parquet"
    assert local_path(second.uri) == tmp_path / "acme" / "req1-sq_b.parquet"
    # Two sub-queries of one request never overwrite each other.
    assert store.read(first).num_rows == 3 and store.read(second).num_rows == 1


def test_relative_template_lives_under_root_and_may_use_metadata(tmp_path: Path):
    store = ArtifactStore(tmp_path, "{schema_version}/{dag_node_id}/{sub_query_id}.parquet")
    ref = _write(store, schema_version="v2", dag_node_id="scan:sq_a")
    # ':' is not a safe path character: replaced, with a hash so distinct ids stay distinct.
    path = local_path(ref.uri)
    assert path.parent.parent == tmp_path / "v2"
    assert path.parent.name.startswith("scan_sq_a-")


@pytest.mark.parametrize(
    "template",
    [
        "{root}/{user}/{sub_query_id}.parquet",  # unknown placeholder
        "{root}/{request_id!r}.parquet",  # conversion
        "{root}/{request_id:>10}.parquet",  # format spec
        "{root}/{root.parent}/x.parquet",  # attribute access
        "{root}/{}.parquet",  # positional
        "{root}/{request_id.parquet",  # malformed
        "{root}/{request_id}/",  # a folder, not a file
    ],
)
def test_a_bad_template_is_refused_when_the_store_is_built(tmp_path: Path, template: str):
    with pytest.raises(ConfigError):
        ArtifactStore(tmp_path, template)


def test_a_placeholder_the_write_cannot_fill_raises_and_writes_nothing(tmp_path: Path):
    store = ArtifactStore(tmp_path, "{root}/{subgraph_name}/{sub_query_id}.parquet")
    with pytest.raises(ConfigError, match="subgraph_name"):
        _write(store)
    assert list(tmp_path.iterdir()) == []


def test_values_cannot_climb_out_of_the_root_or_add_folders(tmp_path: Path):
    store = ArtifactStore(tmp_path / "artifacts")
    path = store.path_for(tenant_id="../..", request_id="a/b", sub_query_id="..")
    assert path.resolve().is_relative_to((tmp_path / "artifacts").resolve())
    assert len(path.relative_to(tmp_path / "artifacts").parts) == 3
    assert ".." not in path.parts
    # Ids that sanitize alike still get different files.
    other = store.path_for(tenant_id="../..", request_id="a_b", sub_query_id="..")
    assert other != path


def test_distinct_sub_queries_never_share_a_file(tmp_path: Path):
    store = ArtifactStore(tmp_path)
    paths = {
        store.path_for(tenant_id=None, request_id="r", sub_query_id=sq)
        for sq in ["sq_1", "sq_2", "sq/1", "sq_1 ", "SQ_1"]
    }
    assert len(paths) == 5


def test_hash_is_of_the_data_not_of_the_file(tmp_path: Path):
    store = ArtifactStore(tmp_path)
    first = _write(store, request_id="r1")
    rechunked = pa.concat_tables([ROWS.slice(0, 1), ROWS.slice(1)])
    second = _write(store, request_id="r2", table=rechunked.replace_schema_metadata({"x": "y"}))
    assert first.content_hash == second.content_hash
    # The same rows written with another compression hash the same too.
    pq.write_table(ROWS, tmp_path / "zstd.parquet", compression="zstd")
    assert content_hash(pq.read_table(tmp_path / "zstd.parquet")) == first.content_hash


@pytest.mark.parametrize(
    "changed",
    [
        ROWS.set_column(1, "revenue", pa.array([1.5, 2.0, 3.5])),  # a value
        ROWS.rename_columns(["area", "revenue"]),  # a name
        ROWS.set_column(1, "revenue", pa.array([1.5, 2.0, 3.25], pa.float32())),  # a type
        ROWS.set_column(0, "region", pa.array(["north", "south", ""])),  # NULL vs empty
        ROWS.slice(0, 2),  # a row fewer
    ],
)
def test_hash_differs_when_the_data_differs(tmp_path: Path, changed: pa.Table):
    store = ArtifactStore(tmp_path)
    assert (
        _write(store, request_id="r1").content_hash
        != _write(store, request_id="r2", table=changed).content_hash
    )


def test_write_is_atomic_and_overwrites_a_retry_in_place(tmp_path: Path):
    store = ArtifactStore(tmp_path)
    _write(store)
    ref = _write(store, table=ROWS.slice(0, 1))
    folder = local_path(ref.uri).parent
    assert [p.name for p in folder.iterdir()] == ["sq_a.parquet"]  # no temp file left behind
    assert store.read(ref).num_rows == 1


def test_read_with_verify_notices_a_file_that_changed(tmp_path: Path):
    store = ArtifactStore(tmp_path)
    ref = _write(store)
    pq.write_table(ROWS.slice(0, 2), local_path(ref.uri))
    assert store.read(ref).num_rows == 2
    with pytest.raises(ValueError, match="no longer holds"):
        store.read(ref, verify=True)
