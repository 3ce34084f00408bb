"""Unit words from pint's registry and babel's currencies: which words count as units, and the
words of an identifier once its unit is dropped."""

from __future__ import annotations

import pytest

from nl2sql.reasoning.offline.catalog.segments import (
    glued_form,
    modifier_columns,
    unit_free_words,
)
from nl2sql.reasoning.offline.words.units import is_unit, without_unit


@pytest.mark.parametrize(
    "word", ["kg", "km", "kph", "miles", "hrs", "min", "years", "USD", "euros"]
)
def test_units_and_currencies_are_units(word):
    assert is_unit(word)


@pytest.mark.parametrize(
    # function words, single letters, dimensionless units, singular calendar parts, English
    # words that are also currency codes, plain nouns
    "word",
    ["in", "m", "count", "percent", "year", "day", "top", "won", "name", "speed", "range"],
)
def test_words_that_are_no_units(word):
    assert not is_unit(word)


def test_an_identifier_without_its_unit():
    assert without_unit(["range", "km"]) == ["range"]
    assert without_unit(["price", "usd"]) == ["price"]
    assert without_unit(["fiscal", "year"]) is None  # a year of accounts, not a length in years
    assert without_unit(["km"]) is None  # nothing would be left
    assert unit_free_words("durationMin") == ("duration",)
    assert unit_free_words("item_count") is None


def test_an_identifier_glued():
    assert glued_form("user_name") == glued_form("UserName") == ("usernam",)
    assert glued_form("title") is None


def test_a_modifier_names_the_label_like_column_of_the_tables_that_label_it():
    words = {
        ("items", "genre_code"): ("genr", "cod"),
        ("items", "genre_description"): ("genr", "description"),
        ("shelves", "genre_code"): ("genr", "cod"),
        ("shelves", "shelf_name"): ("shelf", "nam"),
    }
    found = modifier_columns(words)
    assert found[("genr",)] == [("items", "genre_description")]  # shelves only refer to it
    assert found[("shelf",)] == [("shelves", "shelf_name")]
    codes_only = modifier_columns(
        {("a", "genre_code"): ("genr", "cod"), ("b", "genre_id"): ("genr", "id")}
    )
    assert sorted(codes_only[("genr",)]) == [("a", "genre_code"), ("b", "genre_id")]
