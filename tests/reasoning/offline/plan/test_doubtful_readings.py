"""Readings the engine must not state as certain, and the readings of English that replaced
some of them: entities counted once through a join that repeats them, a count grouped by the
counted rows' own name, a column shown from a table no word names, "which <column>" asking for
a set of values, and a column inside a negation describing the rows excluded.

The schemas are built here (snake_case with and without declared keys, coded camelCase).
"""

from __future__ import annotations

import sqlite3

import pytest

import nl2sql
from nl2sql.reasoning.offline.catalog.index import Element
from nl2sql.reasoning.offline.confidence import unnamed_shown
from nl2sql.reasoning.offline.linking.mentions import Linking, Mention
from nl2sql.reasoning.offline.shapes.spec import Col, Query
from nl2sql.reasoning.offline.words.scan import scan

CLASSES = """
CREATE TABLE workshop ({key}number TEXT, title TEXT, area TEXT);
INSERT INTO workshop VALUES ({k1}'W-101', 'Pottery', 'Crafts'), ({k2}'W-102', 'Weaving', 'Crafts'),
    ({k3}'W-201', 'Salsa', 'Dance'), ({k4}'W-202', 'Tango', 'Dance'), ({k5}'W-301', 'Haiku', 'Writing');
CREATE TABLE workshop_offering (offering_id INTEGER, workshop_id INTEGER, term TEXT);
INSERT INTO workshop_offering VALUES (1, 1, 'spring'), (2, 1, 'autumn'), (3, 2, 'spring'),
    (4, 3, 'spring'), (5, 3, 'autumn'), (6, 3, 'winter'), (7, 5, 'spring');
"""

#: one id column: it identifies a workshop, even though the catalogue `number` is unique too
ONE_ID = CLASSES.format(key="workshop_id INTEGER, ", **{f"k{i}": f"{i}, " for i in range(1, 6)})
#: a surrogate `id` beside `workshop_id`: both unique, either identifies a workshop
TWO_IDS = CLASSES.format(
    key="id INTEGER, workshop_id INTEGER, ", **{f"k{i}": f"{90 + i}, {i}, " for i in range(1, 6)}
)

DEPOTS = """
CREATE TABLE tblRegion (regId INTEGER, regName TEXT);
INSERT INTO tblRegion VALUES (1, 'North'), (2, 'South');
CREATE TABLE tblDepot (depotId INTEGER, depotName TEXT, regId INTEGER);
INSERT INTO tblDepot VALUES (10, 'Alder', 1), (11, 'Birch', 1), (12, 'Cedar', 2), (13, 'Dogwood', 2);
"""

PARCELS = """
CREATE TABLE staff (staff_id INTEGER PRIMARY KEY, full_name TEXT, city TEXT);
INSERT INTO staff VALUES (1, 'Ines Okafor', 'Lyon'), (2, 'Tom Berg', 'Graz'), (3, 'Ute Sami', 'Lyon');
CREATE TABLE audit (audit_id INTEGER PRIMARY KEY,
    staff_id INTEGER REFERENCES staff(staff_id), audit_year INTEGER, rebate INTEGER);
INSERT INTO audit VALUES (1, 1, 2020, 300), (2, 1, 2021, 200);
CREATE TABLE parcel (parcel_id INTEGER PRIMARY KEY, carrier TEXT, weight_kg INTEGER,
    staff_id INTEGER REFERENCES staff(staff_id));
INSERT INTO parcel VALUES (1, 'Swiftline', 7, 1), (2, 'Swiftline', 9, 2), (3, 'Roadrun', 2, 2),
    (4, 'Roadrun', 8, 3), (5, 'Polar', 1, 3);
"""


def _session(tmp_path, min_confidence: float | None = 0.0):
    tmp_path.mkdir(parents=True, exist_ok=True)
    sources = {}
    for name, ddl in (
        ("one_id", ONE_ID),
        ("two_ids", TWO_IDS),
        ("depots", DEPOTS),
        ("parcels", PARCELS),
    ):
        path = tmp_path / f"{name}.sqlite"
        with sqlite3.connect(path) as con:
            con.executescript(ddl)
        sources[name] = str(path)
    settings: dict[str, object] = {"project_dir": str(tmp_path / "p")}
    if min_confidence is not None:
        settings["min_confidence"] = min_confidence
    return nl2sql.connect(sources=sources, settings=settings)


@pytest.fixture()
def session(tmp_path):
    # every reading is run here, whatever its confidence, so its rows and evidence can be checked
    s = _session(tmp_path)
    yield s
    s.close()


def _rows(result) -> list:
    assert result.status == "success", result.first_error
    return sorted(tuple(r) for r in result.to_dict()["rows"])


def _planned(result) -> dict:
    return next(s for s in result.reasoning if s["node"] == "ast_planner")


def test_entities_are_counted_once_through_a_join_when_an_id_identifies_them(session):
    result = session.ask("How many workshops does each area offer?", datasource="one_id")
    # Crafts has three offerings of two workshops: the workshops are counted, not the offerings
    assert _rows(result) == [("Crafts", 2), ("Dance", 1), ("Writing", 1)]
    assert "counting DISTINCT workshop.workshop_id" in _planned(result)["content"]


def test_a_count_through_a_join_is_distinct_by_any_column_unique_in_the_data(session):
    # a surrogate `id` beside `workshop_id`: either tells the workshops apart, so each is counted once
    result = session.ask("How many workshops does each area offer?", datasource="two_ids")
    assert _rows(result) == [("Crafts", 2), ("Dance", 1), ("Writing", 1)]
    assert "counting DISTINCT workshop." in _planned(result)["content"]


def test_counting_rows_per_their_own_name_is_doubtful(session):
    text = (
        "How many depots are there in each region? "
        "List the region name, the depot name and the count."
    )
    result = session.ask(text, datasource="depots")
    # each group holds one depot, so every count is 1: the question meant another grouping
    assert {row[-1] for row in _rows(result)} == {1}
    planned = _planned(result)
    assert "rows per tblDepot's own key or name" in planned["content"]
    assert planned["confidence"] < 0.5
    plain = session.ask("How many depots are there in each region?", datasource="depots")
    assert _rows(plain) == [("North", 2), ("South", 2)]
    assert _planned(plain)["confidence"] >= 0.5


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Which carriers deliver parcels heavier than 5 kg?", [("Roadrun",), ("Swiftline",)]),
        ("In which cities does the staff live?", [("Graz",), ("Lyon",)]),
    ],
)
def test_which_column_asks_for_its_set_of_values(session, question, expected):
    assert _rows(session.ask(question, datasource="parcels")) == expected


def test_a_column_inside_a_negation_describes_the_rows_excluded(session):
    result = session.ask(
        "List the names of staff who never got a rebate in an audit.", datasource="parcels"
    )
    assert _rows(result) == [("Tom Berg",), ("Ute Sami",)]


def test_a_column_shown_from_a_table_no_word_names_is_counted_as_evidence():
    s = scan("What are the names of the depots?")
    words = {"tblDepot": ("depot",), "tblRegion": ("region",)}
    names = next(t for t in s.tokens if t.low == "names")

    def reading(table: str, column: str, form: str, *rivals: Element) -> tuple[Linking, Query]:
        chosen = Element(table, column, 0.6, form)
        mention = Mention(names.index, names.index + 1, "names", [chosen, *rivals])
        q = Query(root=table, shape="listing", select=[(Col(table, column), None)])
        return Linking(mentions=[mention]), q

    depot_name = Element("tblDepot", "depotName", 0.6, "head")
    region_name = Element("tblRegion", "regName", 0.6, "head")
    # "the names of the depots": the depot's name is shown, and the question says "depots"
    assert unnamed_shown(s, *reading("tblDepot", "depotName", "head", region_name), words) == 0
    # the region's name: only the generic word "names", which both tables answer to, points at it
    assert unnamed_shown(s, *reading("tblRegion", "regName", "head", depot_name), words) == 1
    # a column named in full names its table even when the table's noun is not said
    assert unnamed_shown(s, *reading("tblRegion", "regName", "name", depot_name), words) == 0
    # a head word that is no generic descriptor names the column's table ("regions": salesRegion)
    listed = scan("List the regions")
    regions = next(t for t in listed.tokens if t.low == "regions")
    region = Element("tblStore", "salesRegion", 0.6, "head")
    linking = Linking(mentions=[Mention(regions.index, regions.index + 1, "regions", [region])])
    q = Query(root="tblStore", shape="listing", select=[(Col("tblStore", "salesRegion"), None)])
    assert unnamed_shown(listed, linking, q, {"tblStore": ("store",)}) == 0


def test_that_noun_with_nothing_before_it_continues_a_conversation_the_run_does_not_have(
    session,
):
    dangling = session.ask(
        "List the names of depots belonging to that region.", datasource="depots"
    )
    planned = _planned(dangling)
    assert "'that region' refers to something the question does not say" in planned["content"]
    assert planned["confidence"] < 0.5
    # the same words pointing back at a region the question names are read as usual
    named = session.ask(
        "For each region, how many depots are there in that region?", datasource="depots"
    )
    assert "refers to something" not in _planned(named)["content"]
