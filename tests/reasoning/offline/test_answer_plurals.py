"""Answer sentences name their nouns in the plural English uses ("branches", "cities",
"people"), asked for real of small SQLite schemas."""

from __future__ import annotations

import sqlite3

import pytest

import nl2sql
from nl2sql.inflection import is_plural, plural_phrase, singular_phrase

STAFF = """
CREATE TABLE branch (branch_id INTEGER PRIMARY KEY, branch_name TEXT);
CREATE TABLE person (person_id INTEGER PRIMARY KEY, full_name TEXT,
    branch_id INTEGER REFERENCES branch(branch_id));
INSERT INTO branch VALUES (1, 'North'), (2, 'South'), (3, 'East');
INSERT INTO person VALUES (1, 'Ann', 1), (2, 'Bo', 1), (3, 'Cy', 2), (4, 'Di', 2), (5, 'Ed', 3), (6, 'Flo', 3);
"""

SHOP = """
CREATE TABLE Category (categoryId INTEGER PRIMARY KEY, categoryName TEXT);
CREATE TABLE Product (productId INTEGER PRIMARY KEY, productName TEXT, categoryId INTEGER);
INSERT INTO Category VALUES (1, 'Tools'), (2, 'Toys');
INSERT INTO Product VALUES (1, 'Saw', 1), (2, 'Drill', 1), (3, 'Kite', 2), (4, 'Ball', 2);
"""

CITIES = """
CREATE TABLE city (city_id INTEGER PRIMARY KEY, city_name TEXT);
INSERT INTO city VALUES (1, 'Oslo'), (2, 'Lima');
"""


def _ask(tmp_path, script: str, question: str) -> str:
    db = tmp_path / "data.db"
    with sqlite3.connect(db) as connection:
        connection.executescript(script)
    session = nl2sql.connect(sources={"data": f"sqlite:///{db}"}, settings={"project_dir": tmp_path / "p"})
    result = session.ask(question)
    assert result.status == "success", result.errors
    return str(result.answer)


def test_a_count_per_branch_says_branches_and_people(tmp_path):
    text = _ask(tmp_path, STAFF, "How many people are in each branch, sorted by branch name?")
    assert text == "All 3 branches have 2 people."


def test_a_count_per_category_says_categories(tmp_path):
    text = _ask(tmp_path, SHOP, "How many products are in each category, sorted by category name?")
    assert text == "All 2 categories have 2 products."


def test_a_list_of_cities_says_cities(tmp_path):
    assert _ask(tmp_path, CITIES, "List the cities") == "2 cities match."


@pytest.mark.parametrize(("word", "plural"), [
    ("branch", "branches"), ("city", "cities"), ("category", "categories"), ("person", "people"),
    ("order item", "order items"), ("customers", "customers"), ("people", "people"), ("ID", "IDs"),
    ("IDs", "IDs"), ("status", "statuses"),
])
def test_a_phrase_is_made_plural_by_its_last_word_once(word, plural):
    assert plural_phrase(word) == plural
    assert is_plural(plural)


def test_a_plural_phrase_is_made_singular():
    assert [singular_phrase(w) for w in ("categories", "people", "order items", "city")] == \
        ["category", "person", "order item", "city"]
    assert not is_plural("status") and not is_plural("branch")
