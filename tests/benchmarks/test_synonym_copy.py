"""The synonym copy of a question set: schema nouns replaced by WordNet synonyms, plurals kept,
words that name nothing in the schema left alone."""

from __future__ import annotations

import pytest

from nl2sql.reasoning.offline.words import wordnet

from .conftest import load_benchmark

pytestmark = pytest.mark.skipif(not wordnet.available(), reason="WordNet files not installed")

_TABLES = {
    "table_names_original": ["customer", "purchase"],
    "column_names_original": [[-1, "*"], [0, "customer_id"], [0, "city"], [1, "amount"]],
}


def test_schema_nouns_are_replaced_and_plurals_kept():
    copy = load_benchmark("synonym_copy")
    stems = copy.schema_stems(_TABLES)
    text, n = copy.rewrite("How many customers live in each city?", stems)
    assert n == 2
    assert "customers" not in text and "city" not in text
    assert text.startswith("How many ") and text.split()[2].endswith("s")  # still a plural
    assert "live in each" in text  # no schema word: unchanged


def test_a_synonym_that_is_itself_a_schema_word_is_not_chosen():
    copy = load_benchmark("synonym_copy")
    stems = copy.schema_stems(_TABLES)
    other = copy.synonym("customer", stems)
    assert other is not None and other != "customer"
    assert copy.synonym("customer", stems | {copy.canon(other)}) != other
