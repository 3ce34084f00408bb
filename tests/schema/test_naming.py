"""The naming reader: a table's namespace prefix and a column's table code, in several styles."""

from __future__ import annotations

import pytest

from nl2sql.schema.models import Column, SchemaSnapshot, Table
from nl2sql.schema.naming import abbreviates, read_naming, read_table, segments, unglued


def _snapshot(tables: dict[str, list[str]]) -> SchemaSnapshot:
    return SchemaSnapshot(
        datasource_id="db",
        dialect="sqlite",
        tables=[
            Table(name=name, columns=[Column(name=c, type="TEXT") for c in cols])
            for name, cols in tables.items()
        ],
    )


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("tblParcelLocker", ["tbl", "parcel", "locker"]),
        ("c_loaddate", ["c", "loaddate"]),
        ("CRT_GROSS_WEIGHT", ["crt", "gross", "weight"]),
        ("lockerID2", ["locker", "id", "2"]),
        ("HTTPStatus", ["http", "status"]),
        ("сумма_итого", ["сумма", "итого"]),
    ],
)
def test_segments_of_every_style(name, expected):
    assert segments(name) == expected


@pytest.mark.parametrize(
    ("name", "core"),
    [
        ("tblParcelLocker", ("parcel", "locker")),  # no vowel
        ("t_crates", ("crates",)),  # one letter
        ("vwDockSlots", ("dock", "slots")),
        ("bus_lanes", ("bus", "lanes")),  # an English word is part of the name
        ("lanes", ("lanes",)),
        ("zorbex_lanes", ("zorbex", "lanes")),  # a long unknown word alone is a name
        ("tbl_2024", ("tbl", "2024")),  # nothing but a number would be left
    ],
)
def test_namespace_prefix_of_a_table_read_alone(name, core):
    assert read_table(name).core == core


def test_a_prefix_several_tables_share_is_a_namespace_even_when_long():
    naming = read_naming(_snapshot({"qorex_docks": ["dock_id"], "qorex_bays": ["bay_id"]}))
    assert naming.table("qorex_docks").core == ("docks",)
    assert naming.table("qorex_docks").shared
    alone = read_naming(_snapshot({"qorex_docks": ["dock_id"], "bays": ["bay_id"]}))
    assert alone.table("qorex_docks").core == ("qorex", "docks")


@pytest.mark.parametrize(
    ("table", "columns", "codes"),
    [
        # camelCase behind the table's first letters
        ("tblLocker", ["lockId", "lockName", "lockSize"], {"lockName": ("lock", ("name",))}),
        # initials of a longer name, function word included
        ("tblCrateOnShelf", ["cosCrateId", "cosShelfId"], {"cosShelfId": ("cos", ("shelf", "id"))}),
        # one letter, lower snake, glued key names
        ("crate", ["c_cratekey", "c_depotkey", "c_weight"], {"c_depotkey": ("c", ("depotkey",))}),
        # UPPER_SNAKE behind a consonant skeleton, under a one-letter namespace
        ("T_CRATE", ["CRT_ID", "CRT_WEIGHT", "CRT_LABEL"], {"CRT_LABEL": ("crt", ("label",))}),
        # a code that is an English word, shared by every column
        ("tblRestHouse", ["rhId", "rhName"], {"rhName": ("rh", ("name",))}),
        # a code of its own, no abbreviation of the name, on most columns
        ("tblDock", ["xqId", "xqName", "xqDepth", "length"], {"xqDepth": ("xq", ("depth",))}),
    ],
)
def test_table_code_of_columns(table, columns, codes):
    naming = read_naming(_snapshot({table: columns}))
    key = table
    for column, (code, core) in codes.items():
        read = naming.column(key, column)
        assert (read.code, read.core) == (code, core)
        assert not read.own


@pytest.mark.parametrize(
    ("table", "columns", "column"),
    [
        # one column that starts like its table by chance is no code
        ("payload", ["payload_id", "pay_rate", "weight", "volume"], "pay_rate"),
        # a word shared by a minority of the columns is a word of their names
        ("dock", ["dock_id", "crane_count", "crane_type", "depth", "length", "owner"], "crane_count"),
        # an English first word that does not abbreviate the table and is on few columns
        ("tblDock", ["dockId", "harbourName", "depth"], "harbourName"),
    ],
)
def test_no_table_code(table, columns, column):
    naming = read_naming(_snapshot({table: columns}))
    assert naming.column(table, column).code is None
    assert naming.column(table, column).core == tuple(segments(column))


def test_a_word_of_the_tables_own_name_is_an_own_code_kept_in_its_reading():
    naming = read_naming(_snapshot({"spare_crate_parts": ["crate_id", "crate_label", "size"]}))
    read = naming.column("spare_crate_parts", "crate_id")
    assert read.own and read.code == "crate"
    assert read.words == ("crate", "id")  # the one reading keeps it
    assert ("id",) in read.readings


def test_a_coded_key_is_also_read_with_its_table_spelled_out():
    naming = read_naming(_snapshot({"tblDepot": ["depoId", "depoCity"]}))
    assert ("depot", "id") in naming.column("tblDepot", "depoId").readings


@pytest.mark.parametrize(
    ("code", "words", "expected"),
    [
        ("crt", ["crate"], True),
        ("prd", ["product"], True),
        ("cos", ["crate", "on", "shelf"], True),
        ("c", ["crate"], True),
        ("rc", ["crate"], False),  # must start with the first letter
        ("crate", ["crate"], False),  # the word itself abbreviates nothing
        ("ctr", ["crate"], False),  # letters out of order
    ],
)
def test_abbreviates(code, words, expected):
    assert abbreviates(code, words) is expected


def test_a_word_of_the_tables_name_on_every_column_is_its_convention():
    naming = read_naming(_snapshot({"dock": ["dock_id", "dock_crane_count", "dock_depth"]}))
    read = naming.column("dock", "dock_crane_count")
    assert read.code == "dock" and not read.own
    assert read.words == ("crane", "count")


@pytest.mark.parametrize(
    ("segment", "words"),
    [
        ("orderdate", ("order", "date")),
        ("numcitedby", ("num", "cited", "by")),
        ("unitsinstock", ("units", "in", "stock")),
        ("songreleaseyear", ("song", "release", "year")),
        ("homepage", ("homepage",)),  # a word itself
        ("custkey", ("custkey",)),  # "cu st key": pieces that are no words keep it glued
        ("uniqname", ("uniqname",)),  # a one-letter piece keeps it glued
        ("zipco", ("zipco",)),  # too short to read
        ("line2", ("line2",)),  # not all letters
    ],
)
def test_glued_words_are_read_apart_only_into_english_words(segment, words):
    assert unglued(segment) == words
