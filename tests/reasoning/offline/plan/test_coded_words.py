"""Question words a coded schema writes abbreviated ("meters" of `MTR`, "installed" of `inst_dt`,
"standing charge" of `stdg_chg`), and the guard that keeps the reading honest: two tables a
question word could abbreviate link neither. Schemas are built here: upper-case coded tables
and columns without declared keys."""

from __future__ import annotations

import pytest

import nl2sql
from nl2sql.reasoning.offline.catalog.segments import abbreviates

_CODED = """
    CREATE TABLE TRF (trf_cd TEXT PRIMARY KEY, trf_desc TEXT, stdg_chg REAL);
    INSERT INTO TRF VALUES ('A1', 'Standard', 0.60), ('B2', 'Economy', 0.55),
        ('C3', 'Green', 0.70);
    CREATE TABLE MTR (mtr_id TEXT PRIMARY KEY, trf_cd TEXT, inst_dt TEXT);
    INSERT INTO MTR VALUES ('M1', 'A1', '2012-04-01'), ('M2', 'A1', '2019-06-30'),
        ('M3', 'B2', '2010-01-15'), ('M4', 'C3', '2021-02-02');
    CREATE TABLE DPT (dpt_cd TEXT PRIMARY KEY, dpt_nm TEXT);
    INSERT INTO DPT VALUES ('N', 'North Hub'), ('S', 'South Hub');
    CREATE TABLE PRCL (prcl_id TEXT PRIMARY KEY, dpt_cd TEXT, prcl_wt_kg REAL);
    INSERT INTO PRCL VALUES ('P1', 'N', 2.5), ('P2', 'N', 1.0), ('P3', 'S', 7.0);
"""
# a person's coded name parts are the row's name; a city's name is another thing's
_HOLDERS = """
    CREATE TABLE INS_HOLDER (HLD_ID INTEGER PRIMARY KEY, HLD_FRST_NM TEXT, HLD_LAST_NM TEXT,
        HLD_CITY_NM TEXT);
    INSERT INTO INS_HOLDER VALUES (1, 'Ann', 'Lee', 'Austin'), (2, 'Bo', 'Diaz', 'Dallas'),
        (3, 'Cy', 'Moss', 'Austin');
"""
# "plates" could be written `plt` or `plts`: neither is guessed
_RIVALS = """
    CREATE TABLE PLT (plt_id INTEGER PRIMARY KEY, plt_nm TEXT);
    INSERT INTO PLT VALUES (1, 'North'), (2, 'South');
    CREATE TABLE PLTS (plts_id INTEGER PRIMARY KEY, plts_nm TEXT);
    INSERT INTO PLTS VALUES (1, 'Blue'), (2, 'Red'), (3, 'Green');
"""


@pytest.fixture(scope="module")
def session(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("coded")
    return nl2sql.connect(
        sources=sqlite_sources(folder, {"coded": _CODED, "rivals": _RIVALS,
                                         "holders": _HOLDERS}),
        settings={"project_dir": str(folder / "p")},
    )


def _rows(result) -> list:
    assert result.status == "success", result.first_error
    return sorted(tuple(r) for r in result.to_dict()["rows"])


@pytest.mark.parametrize(("code", "word", "expected"), [
    ("mtr", "meter", True),
    ("rdg", "reading", True),
    ("inst", "install", True),
    ("stdg", "standing", True),
    ("trf", "tariff", True),
    ("mtr", "timer", False),  # another first letter
    ("wt", "weight", True),  # two letters: the first and last consonants
    ("wg", "weight", False),  # two letters, not the last consonant
    ("mtra", "meter", False),  # a vowel the word does not have there
    ("meter", "meter", False),  # the word itself is no abbreviation of it
])
def test_abbreviates(code, word, expected):
    assert abbreviates(code, word) is expected


@pytest.mark.parametrize(("question", "expected"), [
    # were refused: "meters", "tariff", "installed" matched nothing
    ("How many meters are there?", [(4,)]),
    ("How many meters are on each tariff?", [("Economy", 1), ("Green", 1), ("Standard", 2)]),
    ("Which meters were installed before 2015?", [("M1",), ("M3",)]),
    ("Which tariff has the highest standing charge?", [("Green",)]),
    # two letters as a word's first and last consonants; "weight" was read as a verb
    ("What is the total parcel weight handled by each depot?",
     [("North Hub", 3.5), ("South Hub", 7.0)]),
])
def test_a_coded_name_is_read_as_the_word_it_abbreviates(session, question, expected):
    assert _rows(session.ask(question, datasource="coded")) == expected


def test_an_abbreviation_two_names_could_stand_for_links_neither(session):
    # "plates" abbreviates to both `plt` and `plts`: the question is refused, not guessed
    result = session.ask("How many plates are there?", datasource="rivals")
    assert result.status != "success"
    assert "plates" in result.first_error.message


@pytest.mark.parametrize("question", [
    "Which holders live in Austin? Give their first and last names.",
    "List the holders in Austin.",
])
def test_coded_name_parts_are_the_rows_names(session, question):
    result = session.ask(question, datasource="holders")
    assert _rows(result) == [("Ann", "Lee"), ("Cy", "Moss")]


# a short code that is an English word too (`PAT`), and a flag whose suffix is a code (`FLG`)
_PHARMACY = """
    CREATE TABLE T_PAT (PAT_ID INTEGER PRIMARY KEY, PAT_NM TEXT, CITY_NM TEXT);
    INSERT INTO T_PAT VALUES (1, 'Ann Lee', 'Oslo'), (2, 'Bo Diaz', 'Lima'), (3, 'Cy Moss', 'Oslo');
    CREATE TABLE T_MED (MED_ID INTEGER PRIMARY KEY, MED_NM TEXT, GENERIC_FLG TEXT);
    INSERT INTO T_MED VALUES (1, 'Alpha', 'Y'), (2, 'Beta', 'N'), (3, 'Gamma', 'Y'),
        (4, 'Delta', 'Y');
    CREATE TABLE T_COMET (COMET_ID INTEGER PRIMARY KEY, COMET_NM TEXT, DISC_DT TEXT);
    INSERT INTO T_COMET VALUES (1, 'Halley', '1758-12-25'), (2, 'Encke', '1786-01-17');
    CREATE TABLE T_ORCHARD (ORCH_ID INTEGER PRIMARY KEY, ORCH_NM TEXT, TREES_PLANT_QTY INTEGER);
    INSERT INTO T_ORCHARD VALUES (1, 'Hilltop', 120), (2, 'Riverside', 340), (3, 'Meadow', 95);
    CREATE TABLE T_RNR (RNR_ID INTEGER PRIMARY KEY, RNR_NM TEXT, ACTV_FLG TEXT);
    CREATE TABLE T_RUN (RUN_ID INTEGER PRIMARY KEY, RNR_ID INTEGER, RUN_DT TEXT);
    INSERT INTO T_RNR VALUES (1, 'Ida', 'Y'), (2, 'Jon', 'N'), (3, 'Kim', 'Y'), (4, 'Lou', 'Y');
    INSERT INTO T_RUN VALUES (1, 1, '2025-01-01'), (2, 1, '2025-01-02'), (3, 3, '2025-01-02');
"""


@pytest.fixture(scope="module")
def pharmacy(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("pharmacy")
    return nl2sql.connect(sources=sqlite_sources(folder, {"pharmacy": _PHARMACY}),
                          settings={"project_dir": str(folder / "p")})


@pytest.mark.parametrize(("question", "expected"), [
    ("Which patients live in Oslo?", [("Ann Lee",), ("Cy Moss",)]),
    ("How many generic medicines are there?", [(3,)]),
    ("How many generic medicines do we carry?", [(3,)]),
    ("When was Encke discovered?", [("1786-01-17",)]),  # `DISC` beside `DT`: a code
    ("Which orchard planted the most trees?", [("Riverside",)]),  # `TREES_PLANT_QTY`
    ("How many runners are there?", [(4,)]),  # `RNR` keeps more of "runner" than `RUN`
    ("How many runners are no longer active?", [(1,)]),
    ("Which runners are still active?", [("Ida",), ("Kim",), ("Lou",)]),
])
def test_short_codes_and_coded_flags(pharmacy, question, expected):
    assert _rows(pharmacy.ask(question)) == expected


def test_a_verb_after_we_explains_nothing_before_an_object(pharmacy):
    # "we carry X" has its object after it: the verb relates nothing the schema holds
    assert pharmacy.ask("Do we carry medicines in Oslo warehouses?").status != "success"


def test_a_two_letter_code_abbreviates_no_verb():
    from nl2sql.reasoning.offline.catalog.index import build_index
    from nl2sql.reasoning.offline.linking.linker import link
    from nl2sql.reasoning.offline.words.text import tokenize
    from nl2sql.schema.models import Column, SchemaSnapshot, Table

    table = Table(name="T_WHSE", primary_key=["WHSE_CD"], columns=[
        Column(name="WHSE_CD", type="TEXT"), Column(name="WHSE_NM", type="TEXT"),
        Column(name="ST_CD", type="TEXT")])
    idx = build_index(SchemaSnapshot(datasource_id="t", dialect="sqlite", tables=[table]))
    assert abbreviates("st", "spent")  # as letters; as a verb it abbreviates nothing here
    linking = link(tokenize("Which warehouse spent the most?"), idx, set())
    assert not any(e.column == "ST_CD" for m in linking.mentions for e in m.candidates)
