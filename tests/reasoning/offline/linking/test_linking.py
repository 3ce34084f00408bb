from __future__ import annotations

from nl2sql.reasoning.offline.catalog.index import build_index
from nl2sql.reasoning.offline.catalog.naming import column_kind
from nl2sql.reasoning.offline.linking.linker import link
from nl2sql.reasoning.offline.words.scan import scan


def _link(snapshot, text, lookup=None):
    s = scan(text)
    return link(s.tokens, build_index(snapshot), s.taken, lookup)


def test_table_and_column_phrases_link_longest_first(library):
    linking = _link(library, "average price of books per author name")
    texts = {m.text: m.candidates[0].ref for m in linking.mentions}
    assert texts["price"] == "books.price"
    assert texts["books"] == "books"
    assert texts["author name"] == "authors.name"


def test_sample_values_link_case_insensitively_and_keep_the_stored_spelling(library):
    linking = _link(library, "how many books in the science fiction genre")
    (value,) = linking.values
    assert value.options == [("books", "genre", "Science Fiction")]


def test_unsampled_value_is_found_by_lookup_on_mentioned_tables(library, lookup):
    linking = _link(library, "how many members are in ohio", lookup)
    (value,) = linking.values
    assert value.options == [("members", "state", "Ohio")]
    assert value.source == "lookup"
    assert {table for table, _, _ in lookup.calls} == {
        "members"
    }  # found there: neighbours not searched


def test_lookup_only_accepts_exact_values(library, lookup):
    # "Spring" is contained in "Springfield" but is not a stored value
    linking = _link(library, "how many members live in Spring", lookup)
    assert linking.values == []
    assert [t.text for t in linking.value_like] == ["Spring"]


def test_quoted_text_is_a_literal_value(library, lookup):
    linking = _link(library, "books by the author 'Kenji Mori'", lookup)
    (value,) = linking.values
    assert value.source == "quoted"
    assert value.options == [("authors", "name", "Kenji Mori")]


def test_misspelt_value_is_kept_as_written_on_the_closest_column(library, lookup):
    linking = _link(library, "how many members are in Ohoi", lookup)
    (value,) = linking.values
    assert value.source == "close"
    assert value.options == [("members", "state", "Ohoi")]


def test_words_matching_nothing_are_reported(library):
    linking = _link(library, "What is the capital of France?")
    assert [t.text for t in linking.unexplained] == ["capital"]
    assert [t.text for t in linking.value_like] == ["capital"]


def test_text_dates_are_date_columns(library):
    idx = build_index(library)
    assert idx.date_columns("loans") == ["loan_date", "returned_date"]
    assert column_kind(library.table("books").column("genre")) == "text"
    assert idx.labels["members"] == ["first_name", "last_name"]
    assert idx.labels["books"] == ["title"]


def _snapshot(*tables):
    from nl2sql.schema.models import SchemaSnapshot

    return SchemaSnapshot(datasource_id="t", dialect="sqlite", tables=list(tables))


def _table(name, *columns, pk=None, fks=()):
    from nl2sql.schema.models import Column, ForeignKey, Table

    cols = [Column(name=c, type=t, samples=list(s)) for c, t, s in columns]
    keys = [ForeignKey(columns=[a], ref_table=b, ref_columns=[c]) for a, b, c in fks]
    return Table(name=name, columns=cols, primary_key=[pk] if pk else [], foreign_keys=keys)


RIDERS = _snapshot(
    _table("riders", ("RiderID", "INTEGER", ()), ("Fname", "TEXT", ()), ("note", "TEXT", ()),
           ("hp", "TEXT", ["110", "95", "null"]), ("make", "TEXT", ["Ducati"]),
           ("mpg", "REAL", ()), ("hometown", "TEXT", ()), ("location", "TEXT", ()), pk="RiderID"),
    _table("race_list", ("RaceId", "INTEGER", ()), ("RiderID", "INTEGER", ()),
           ("membership", "TEXT", ()), pk="RaceId", fks=[("RiderID", "riders", "RiderID")]),
)  # fmt: skip


def test_relation_verbs_and_fillers_are_explained_unknown_words_are_not():
    linking = _link(RIDERS, "Frobnicate the riders who won the information sideways")
    assert [t.text for t in linking.lexical] == ["won", "information"]
    assert [t.text for t in linking.unexplained] == ["Frobnicate", "sideways"]


def test_a_verb_form_never_names_a_text_column_nor_a_negation_a_note():
    linking = _link(RIDERS, "riders that were made not fast")
    assert all(m.text not in ("made", "not") for m in linking.mentions)


def test_a_request_verb_opening_a_sentence_names_no_table():
    linking = _link(RIDERS, "List rider notes")
    assert [m.text for m in linking.mentions] == ["rider notes"]


def test_abbreviated_column_words_read_as_their_table_word():
    from nl2sql.reasoning.offline.catalog.index import build_index

    idx = build_index(RIDERS)
    assert idx.col_words[("riders", "RiderID")] == ("rider", "id")
    # "RaceId" of race_list: "race" is a whole word already; "Fname" reads "first name"
    assert idx.col_words[("riders", "Fname")] == ("first", "nam")  # canonical stems


def test_text_columns_of_numbers_are_numeric_and_initials_name_a_short_column():
    assert column_kind(RIDERS.tables[0].column("hp")) == "number"
    linking = _link(RIDERS, "average miles per gallon of riders")
    assert [m.text for m in linking.mentions][0] == "miles per gallon"
    assert linking.mentions[0].candidates[0].ref == "riders.mpg"


def test_where_names_the_place_columns_and_a_derived_noun_its_base():
    linking = _link(RIDERS, "Where is the rider from?")
    assert {e.column for e in linking.mentions[0].candidates} == {"location"}
    linking = _link(RIDERS, "riders of each member")
    assert any(e.column == "membership" for m in linking.mentions for e in m.candidates)


def test_a_unit_after_a_number_names_the_measure():
    s = scan("riders who are 30 years old")
    (unit,) = s.units.values()
    assert unit[0] == ("age",) and not any(t.low in ("years", "old") for t in _link(
        RIDERS, "riders who are 30 years old").unexplained)  # fmt: skip


def test_a_relation_verb_written_as_a_noun_is_not_explained_by_the_verb(library):
    # "the make of each book" asks for an attribute the schema lacks: refused, not dropped
    unknown = _link(library, "What is the make of each book?").unexplained
    assert [t.text for t in unknown] == ["make"]
    # the verb itself still relates the entities around it
    assert _link(library, "Which authors made books?").unexplained == []
    # a filler noun after "the" adds nothing either way
    assert _link(library, "Give me all the information about books").unexplained == []


def test_the_word_after_did_and_its_subject_is_a_verb_not_a_place(library):
    # "place" as a noun is any place column ("each place"); after "did each member" it is the
    # question's verb, and names no column
    verb = _link(library, "How many loans did each member place?")
    assert not [m for m in verb.mentions if m.text == "place"]
    noun = _link(library, "How many members live in each place?")
    assert {e.column for m in noun.mentions if m.text == "place" for e in m.candidates} >= {"city"}
    # a negation or another verb after the auxiliary is no subject: "do have loans"
    assert any(m.text == "loans" for m in _link(library, "Which members do have loans?").mentions)
