from __future__ import annotations

from datetime import date

import pytest

from nl2sql.reasoning.offline.words.dates import find_dates, relative_date_words
from nl2sql.reasoning.offline.words.text import (
    canon,
    is_past_participle,
    split_identifier,
    stem,
    tokenize,
)


@pytest.mark.parametrize(
    "a, b",
    [
        ("categories", "category"),
        ("loans", "loan"),
        ("priced", "price"),
        ("statuses", "status"),
        ("cancelled", "canceled"),
        ("cities", "city"),
        ("addresses", "address"),
        ("opened", "open"),
    ],
)
def test_word_forms_of_one_word_stem_alike(a, b):
    assert stem(a) == stem(b)


def test_canon_is_the_stem_alone():
    # synonyms are WordNet's, read where a word names nothing (linking/synonyms.py): never a
    # hand-written table that makes two words one
    assert canon("clients") == stem("client") != canon("customer")


@pytest.mark.parametrize(
    "name, words",
    [
        ("list_price", ["list", "price"]),
        ("ListPrice", ["list", "price"]),
        ("memberID", ["member", "id"]),
        ("qty_sold", ["quantity", "sold"]),
        ("loan-date 2", ["loan", "date", "2"]),
    ],
)
def test_identifiers_split_into_words(name, words):
    assert split_identifier(name) == words


def test_tokenize_keeps_quoted_literals_dates_and_numbers():
    tokens = tokenize("members' loans in 'New Town' between 2024-03-01 and 1,200.50 >= 3")
    kinds = [(t.kind, t.text) for t in tokens]
    assert ("quoted", "New Town") in kinds
    assert ("date", "2024-03-01") in kinds
    assert ("op", ">=") in kinds
    number = next(t for t in tokens if t.text == "1,200.50")
    assert number.number == 1200.5
    assert tokenize("top five books")[1].number == 5


@pytest.mark.parametrize(("text", "words"), [
    ("agents who don't sell", ["agents", "who", "do", "not", "sell"]),
    ("plans that haven’t any", ["plans", "that", "have", "not", "any"]),
    ("it won't, we can't, you cannot", ["it", "will", "not", "we", "can", "not", "you", "can",
                                        "not"]),
    ("isn't", ["is", "not"]),
    ("the tenant's note", ["the", "tenant's", "note"]),  # a possessive is no negation
])
def test_a_verb_contracted_with_not_is_the_verb_and_not(text, words):
    assert [t.text for t in tokenize(text) if t.kind == "word"] == words


@pytest.mark.parametrize(
    "text, start, end",
    [
        ("loans in 2024", date(2024, 1, 1), date(2025, 1, 1)),
        ("loans in March 2024", date(2024, 3, 1), date(2024, 4, 1)),
        ("between 2024-03-01 and 2024-05-31", date(2024, 3, 1), date(2024, 6, 1)),
        ("before 2024", None, date(2024, 1, 1)),
        ("after June 2023", date(2023, 7, 1), None),
        ("in Q1 2024", date(2024, 1, 1), date(2024, 4, 1)),
        ("in the fourth quarter of 2023", date(2023, 10, 1), date(2024, 1, 1)),
        ("from 2020 to 2022", date(2020, 1, 1), date(2023, 1, 1)),
        ("since March 5, 2024", date(2024, 3, 5), None),
        ("prior to 2020", None, date(2020, 1, 1)),
        ("on 2024-01-05", date(2024, 1, 5), date(2024, 1, 6)),
        # the day before the month: was two numbers and a month, no date
        ("born after 1 January 2000", date(2000, 1, 2), None),
        ("since 15th May, 2024", date(2024, 5, 15), None),
        ("before the 3rd of March 1995", None, date(1995, 3, 3)),
    ],
)
def test_date_expressions_become_half_open_day_ranges(text, start, end):
    (cond,) = find_dates(tokenize(text))
    assert (cond.start, cond.end) == (start, end)


def test_month_without_year_is_a_part_of_the_year_and_numbers_are_not_years():
    (cond,) = find_dates(tokenize("loans in March"))
    assert (cond.part, cond.part_value) == ("month", 3)
    assert find_dates(tokenize("books with more than 2024 pages")) == []
    assert find_dates(tokenize("I may go")) == []


def test_relative_dates_are_reported():
    assert relative_date_words(tokenize("loans made last month")) == ["last month"]
    assert relative_date_words(tokenize("What is the weather today?")) == ["today"]
    assert relative_date_words(tokenize("loans in 2024")) == []


def test_most_recent_and_taken_words_are_not_reported_as_relative():
    assert relative_date_words(tokenize("the most recent loan")) == []
    assert relative_date_words(tokenize("loans made last month"), frozenset({2, 3})) == []


def test_word_tables_load_on_first_use_with_the_same_results(tmp_path):
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from nl2sql.reasoning.offline.words import text\n"
        "assert 'lemminflect' not in sys.modules and 'inflect' not in sys.modules\n"
        "print(text.canon('Shoppers'), text.canon('children'), text.stem('sold'), "
        "text.is_past_participle('placed'), text.is_past_participle('cost'))\n"
        "assert 'lemminflect' in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, check=True)
    # the same words read alike in this process, where the tables were built long ago
    expected = [canon("Shoppers"), canon("children"), stem("sold"),
                str(is_past_participle("placed")), str(is_past_participle("cost"))]
    assert done.stdout.split() == expected == ["shopper", "child", "sel", "True", "False"]
