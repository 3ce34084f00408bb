"""One small schema written in several naming conventions, none declaring a key: the same
questions get the same rows whatever the convention — snake_case, every column behind its
table's name, camelCase behind a `tbl`
namespace and a table code, lower snake behind the table's initial with glued key names, words glued
into one lower-case name, and UPPER_SNAKE behind a consonant code under a `T_` namespace."""

from __future__ import annotations

import pytest

import nl2sql

_DEPOTS = [(1, "North", "Bergen"), (2, "South", "Oslo"), (3, "East", "Bergen")]
_CRATES = [
    (10, "alpha", 1, 5.0),
    (11, "beta", 1, 7.0),
    (12, "gamma", 2, 2.0),
    (13, "delta", 3, 4.0),
    (14, "omega", 2, 9.0),
]

#: style -> (depot table, its columns), (crate table, its columns)
_STYLES = {
    "snake": (
        ("depots", "depot_id INTEGER, depot_name TEXT, city TEXT"),
        ("crates", "crate_id INTEGER, label TEXT, depot_id INTEGER, weight REAL"),
    ),
    "prefixed": (
        ("depot", "depot_id INTEGER, depot_name TEXT, depot_city TEXT"),
        ("crate", "crate_id INTEGER, crate_label TEXT, crate_depot_id INTEGER, crate_weight REAL"),
    ),
    "camel": (
        ("tblDepot", "depoId INTEGER, depoName TEXT, depoCity TEXT"),
        ("tblCrate", "cratId INTEGER, cratLabel TEXT, cratDepotId INTEGER, cratWeight REAL"),
    ),
    "initials": (
        ("depot", "d_depotkey INTEGER, d_name TEXT, d_city TEXT"),
        ("crate", "c_cratekey INTEGER, c_label TEXT, c_depotkey INTEGER, c_weight REAL"),
    ),
    "glued": (
        ("depot", "depotkey INTEGER, depotname TEXT, homecity TEXT"),
        ("crate", "cratekey INTEGER, cratelabel TEXT, depotkey INTEGER, grossweight REAL"),
    ),
    "upper": (
        ("T_DEPOT", "DPT_ID INTEGER, DPT_NAME TEXT, DPT_CITY TEXT"),
        ("T_CRATE", "CRT_ID INTEGER, CRT_LABEL TEXT, CRT_DEPOT_ID INTEGER, CRT_WEIGHT REAL"),
    ),
}


def _script(style: str) -> str:
    (depot, depot_cols), (crate, crate_cols) = _STYLES[style]
    depots = ", ".join(f"({i}, '{n}', '{c}')" for i, n, c in _DEPOTS)
    crates = ", ".join(f"({i}, '{n}', {d}, {w})" for i, n, d, w in _CRATES)
    return (
        f"CREATE TABLE {depot} ({depot_cols}); INSERT INTO {depot} VALUES {depots};"
        f"CREATE TABLE {crate} ({crate_cols}); INSERT INTO {crate} VALUES {crates};"
    )


@pytest.fixture(scope="module")
def session(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("styles")
    sources = sqlite_sources(folder, {style: _script(style) for style in _STYLES})
    project = tmp_path_factory.mktemp("project")
    return nl2sql.connect(sources=sources, settings={"project_dir": str(project)})


_QUESTIONS = [
    pytest.param("How many crates are there?", [[5]], id="count-of-a-prefixed-table"),
    pytest.param("List the names of all depots.", [["East"], ["North"], ["South"]], id="label"),
    pytest.param("What is the average weight of the crates?", [[5.4]], id="coded-measure"),
    pytest.param(
        "How many crates does each depot have?",
        [["East", 1], ["North", 2], ["South", 2]],
        id="group-along-an-inferred-join",
    ),
    pytest.param(
        "What is the total weight of crates in depots in Bergen?",
        [[16.0]],
        id="filter-across-an-inferred-join",
    ),
]


@pytest.mark.parametrize("style", list(_STYLES))
@pytest.mark.parametrize(("question", "expected"), _QUESTIONS)
def test_same_rows_in_every_naming_style(session, style, question, expected):
    result = session.ask(question, datasource=style)
    assert result.status == "success", (result.status, result.first_error)
    rows = sorted((list(r) for r in result.to_dict()["rows"]), key=repr)
    assert rows == sorted(expected, key=repr), result.sql
