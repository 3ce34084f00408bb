"""Curated answers: the file, exact and embedding matches, and what must not match."""

from __future__ import annotations

import pytest

from nl2sql.errors import ConfigError
from nl2sql.governance.curated import CuratedAnswer, CuratedStore, load_answers, signature

FILE = """\
answers:
  - question: How many orders were cancelled?
    datasource: shop
    sql: SELECT COUNT(*) FROM orders WHERE status = 'cancelled'
  - question: What is the total amount of orders in 2024?
    datasource: shop
    sql: SELECT SUM(amount) FROM orders WHERE year = 2024
  - question: How many tickets are open?
    datasource: crm
    sql: SELECT COUNT(*) FROM tickets WHERE status = 'open'
"""


@pytest.fixture
def store(tmp_path) -> CuratedStore:
    path = tmp_path / "curated.yaml"
    path.write_text(FILE, encoding="utf-8")
    return CuratedStore([path], tmp_path / ".nl2sql" / "curated.yaml", threshold=0.9, index_path=None)


def test_the_same_question_in_other_case_and_spacing_matches_exactly(store):
    hit = store.match("  how many ORDERS were cancelled ", ["shop"])
    assert (hit.method, hit.score, hit.answer.sql) == ("exact", 1.0, "SELECT COUNT(*) FROM orders WHERE status = 'cancelled'")


def test_a_paraphrase_above_the_threshold_matches_by_embedding(store):
    hit = store.match("What is the number of cancelled orders?", ["shop"])
    assert hit is not None and hit.method == "embedding" and hit.score >= 0.9
    assert hit.answer.question == "How many orders were cancelled?"


@pytest.mark.parametrize("question", [
    "What is the total amount of orders in 2023?",  # another year
    "What is the average amount of orders in 2024?",  # another aggregate
    "How many orders were not cancelled?",  # a negation
    "How many orders were shipped?",  # another filter
])
def test_a_different_question_never_matches(store, question):
    assert store.match(question, ["shop"]) is None


def test_only_answers_on_the_allowed_datasources_match(store):
    assert store.match("How many tickets are open?", ["shop"]) is None
    assert store.match("How many tickets are open?", ["crm"]).answer.datasource == "crm"


def test_promoted_answers_join_the_file_and_replace_their_own_question(store, tmp_path):
    store.promote(CuratedAnswer(question="How many customers?", datasource="shop", sql="SELECT COUNT(*) FROM customers"))
    store.promote(CuratedAnswer(question="how many customers", datasource="shop", sql="SELECT COUNT(1) FROM customers"))
    promoted = load_answers(tmp_path / ".nl2sql" / "curated.yaml")
    assert [a.sql for a in promoted] == ["SELECT COUNT(1) FROM customers"]
    assert store.match("How many customers?", ["shop"]).answer.sql == "SELECT COUNT(1) FROM customers"
    assert len(store.answers()) == 4


def test_an_answer_needs_a_query_and_a_bad_file_names_the_field(tmp_path):
    with pytest.raises(ValueError, match="needs `sql` or `plan`"):
        CuratedAnswer(question="q", datasource="shop")
    bad = tmp_path / "bad.yaml"
    bad.write_text("answers:\n  - question: q\n    sql: SELECT 1\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"bad.yaml: answers\[0\].datasource: Field required"):
        load_answers(bad)


def test_the_signature_reads_aggregates_negations_and_numbers():
    assert signature("Top 5 customers by number of orders") == (frozenset({"max", "count"}), ("5",))
    assert signature("orders without a discount")[0] == {"not"}
