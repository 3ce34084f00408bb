from __future__ import annotations

from nl2sql.reasoning.offline.index import build_index, column_kind
from nl2sql.reasoning.offline.linking import link
from nl2sql.reasoning.offline.scan import scan


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
