"""Inflection comes from lemminflect, not from hand-written tables (issue 12, item 2)."""

from __future__ import annotations

import pytest

from nl2sql.reasoning.offline.words.lexicon import COMPARATIVE_MEASURES, SUPERLATIVE_MEASURES
from nl2sql.reasoning.offline.words.text import canon, is_past_participle, stem


@pytest.mark.parametrize(
    "form, base",
    [
        ("geese", "goose"),  # irregular plural no table of ours listed
        ("dealt", "deal"),  # irregular past no table of ours listed
        ("swore", "swear"),
        ("children", "child"),
        ("people", "person"),  # inflect's irregular plural, checked against lemminflect
        ("sold", "sell"),
        ("ids", "id"),
    ],
)
def test_irregular_forms_stem_like_their_base(form, base):
    assert stem(form) == stem(base)


@pytest.mark.parametrize(
    "word, plural", [("bus", "buses"), ("status", "statuses"), ("data", "data"), ("box", "boxes")]
)
def test_regular_words_are_not_rewritten_by_the_dictionary(word, plural):
    # inflect alone reads "bus" as the plural of "bu", lemminflect "data" as the plural of "datum":
    # a word the dictionary lists as a noun of its own stays as written
    assert stem(word) == word
    assert stem(plural) == word


def test_superlatives_and_comparatives_are_inflected_by_the_library():
    assert SUPERLATIVE_MEASURES["eldest"] == ((canon("age"),), "desc")
    assert SUPERLATIVE_MEASURES["youngest"] == ((canon("age"),), "asc")
    assert COMPARATIVE_MEASURES["cheaper"][1] == "<"
    assert COMPARATIVE_MEASURES["heavier"] == ((canon("weight"),), ">")


@pytest.mark.parametrize(
    "word, expected",
    [("sold", True), ("sung", True), ("forgotten", True), ("placed", True), ("cost", False),
     ("city", False), ("by", False)],
)  # fmt: skip
def test_past_participles_come_from_the_verb_dictionary(word, expected):
    assert is_past_participle(word) is expected
