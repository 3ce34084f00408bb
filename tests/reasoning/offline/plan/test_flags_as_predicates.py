"""Yes/no columns said the many ways English says them: inside a negation ("hotels with no rooms
with a sea view"), as the noun of the rows ("loyalty members from Peru"), as a verb and its
object ("participants who completed their trial", "did not complete it"), as the modifier of a
counted noun ("how many urgent repairs"); the verb of a negated clause is not shown; a key whose row is shown by its names is not shown
beside them; a lower-case dictionary word is never read as a misspelt stored value. The schemas
are built here: one snake_case with declared keys, one camelCase without."""

from __future__ import annotations

import pytest

import nl2sql

_RESORT = """
    CREATE TABLE hotels (hotel_id INTEGER PRIMARY KEY, hotel_name TEXT, city TEXT);
    CREATE TABLE rooms (room_id INTEGER PRIMARY KEY, hotel_id INTEGER REFERENCES hotels(hotel_id),
        has_sea_view INTEGER, rate REAL, is_renovated INTEGER);
    CREATE TABLE guests (guest_id INTEGER PRIMARY KEY, first_name TEXT, last_name TEXT,
        country TEXT, is_loyalty_member INTEGER);
    INSERT INTO hotels VALUES (1, 'Cliff House', 'Lima'), (2, 'Inland Lodge', 'Cusco'),
        (3, 'Harbour Inn', 'Lima');
    INSERT INTO rooms VALUES (10, 1, 1, 200, 1), (11, 1, 0, 120, 0), (12, 2, 0, 90, 0),
        (13, 3, 1, 150, 1), (14, 3, 1, 160, 1);
    INSERT INTO guests VALUES (1, 'Ana', 'Rojas', 'Peru', 1), (2, 'Luis', 'Paz', 'Peru', 0),
        (3, 'Eva', 'Soto', 'Chile', 1), (4, 'Rita', 'Vega', 'Peru', 1);
"""

_STUDY = """
    CREATE TABLE studyTrials (trialId INTEGER, trialTitle TEXT, leadDoctorId INTEGER);
    CREATE TABLE doctors (doctorId INTEGER, firstName TEXT, lastName TEXT);
    CREATE TABLE volunteers (volunteerId INTEGER, trialId INTEGER, nationality TEXT,
        completedTrial INTEGER);
    CREATE TABLE repairs (repairId INTEGER, repairPriority TEXT, trialId INTEGER);
    INSERT INTO doctors VALUES (1, 'Mia', 'Holt'), (2, 'Tom', 'Reyes'), (3, 'Ivy', 'Nash');
    INSERT INTO studyTrials VALUES (1, 'Sleep Study', 2), (2, 'Diet Study', 3),
        (3, 'Heart Study', 1);
    INSERT INTO volunteers VALUES (1, 1, 'France', 1), (2, 1, 'Spain', 0), (3, 2, 'France', 1),
        (4, 2, 'Italy', 1), (5, 3, 'Spain', 0), (6, 3, 'Italy', 1);
    INSERT INTO repairs VALUES (1, 'HIGH', 1), (2, 'LOW', 1), (3, 'HIGH', 2), (4, 'MEDIUM', 3),
        (5, 'HIGH', 3);
    CREATE TABLE sessions (sessionId INTEGER, sessionName TEXT);
    CREATE TABLE signups (signupId INTEGER, volunteerId INTEGER, sessionId INTEGER,
        enrolledDate TEXT);
    INSERT INTO sessions VALUES (1, 'Intake'), (2, 'Review');
    INSERT INTO signups VALUES (1, 1, 1, '2024-01-02'), (2, 2, 1, '2024-01-03'),
        (3, 4, 2, '2024-02-01');
"""


@pytest.fixture(scope="module")
def resort(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("resort")
    return nl2sql.connect(sources=sqlite_sources(folder, {"resort": _RESORT}),
                          settings={"project_dir": str(folder / "p")})


@pytest.fixture(scope="module")
def study(tmp_path_factory, sqlite_sources):
    folder = tmp_path_factory.mktemp("study")
    return nl2sql.connect(sources=sqlite_sources(folder, {"study": _STUDY}),
                          settings={"project_dir": str(folder / "p")})


def _rows(result):
    assert result.status == "success", result.first_error
    return sorted(tuple(r) for r in result.to_dict()["rows"])


def test_a_flag_inside_a_negation_restricts_the_rows_excluded(resort):
    result = resort.ask("Which hotels have no rooms with a sea view?")
    assert _rows(result) == [("Inland Lodge",)]
    assert "has_sea_view" in result.sql


@pytest.mark.parametrize(("question", "expected"), [
    ("How many rooms have not been renovated?", [(2,)]),
    ("How many rooms have been renovated?", [(3,)]),
])
def test_a_flag_after_a_negated_auxiliary(resort, question, expected):
    assert _rows(resort.ask(question)) == expected


def test_a_plural_noun_a_flag_names_is_the_rows_holding_it(resort):
    result = resort.ask("Give the first and last names of loyalty members from Peru.")
    assert _rows(result) == [("Ana", "Rojas"), ("Rita", "Vega")]


@pytest.mark.parametrize(("question", "expected"), [
    ("How many volunteers completed their trial?", [(4,)]),
    ("How many volunteers completed the trial?", [(4,)]),
    ("How many volunteers did not complete their trial?", [(2,)]),
])
def test_a_flag_said_as_a_verb_and_its_object(study, question, expected):
    result = study.ask(question)
    assert _rows(result) == expected
    assert "completedTrial" in result.sql


def test_a_key_is_not_shown_beside_the_names_of_its_row(study):
    result = study.ask("Who is the lead doctor of the Diet Study trial? Give first and last name.")
    assert _rows(result) == [("Ivy", "Nash")]
    assert [c.lower() for c in result.table().column_names] == ["firstname", "lastname"]


def test_a_key_asked_for_by_its_id_is_shown(study):
    result = study.ask("Give the lead doctor id and last name of each study trial.")
    assert _rows(result) == [(1, "Holt"), (2, "Reyes"), (3, "Nash")]


def test_a_column_before_the_counted_noun_is_its_modifier(study):
    result = study.ask("How many high-priority repairs are there?")
    assert _rows(result) == [(3,)]
    assert "DISTINCT" not in result.sql.upper()


def test_a_dictionary_word_is_no_misspelt_value(study):
    assert study.ask("How many volunteers are in the race?").status != "success"
    assert _rows(study.ask("How many volunteers come from Frnace?")) == [(2,)]


def test_the_verb_of_a_negated_clause_is_not_shown(study):
    # "enrolled" names `enrolledDate`, but here it says the relation the rows lack
    result = study.ask("Which volunteers have never enrolled in any session? Give their "
                       "nationality.")
    # the volunteers' key is their name: no other column names them
    assert _rows(result) == [(3, "France"), (5, "Spain"), (6, "Italy")]
    assert "enrolledDate" not in result.sql.split("WHERE")[0]
