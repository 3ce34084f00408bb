"""Spider's hardness levels computed from gold SQL."""

from __future__ import annotations

import json

import pytest

from nl2sql.eval.hardness import hardness_of


@pytest.mark.parametrize(
    "sql, level",
    [
        ("SELECT count(*) FROM singer", "easy"),
        ("SELECT name, age FROM singer WHERE country = 'France'", "medium"),
        ("SELECT name FROM singer WHERE age > (SELECT avg(age) FROM singer)", "hard"),
        (
            "SELECT T1.name FROM a AS T1 JOIN b AS T2 ON T1.id = T2.id WHERE T2.x = 1 "
            "GROUP BY T1.id ORDER BY count(*) DESC LIMIT 1",
            "extra",
        ),
        ("SELECT a FROM t WHERE b = 1 INTERSECT SELECT a FROM t WHERE b = 2", "hard"),
        ("SELECT a FROM t WHERE b = 1 AND c = 2 EXCEPT SELECT a FROM t WHERE b = 3", "extra"),
        ("this is not sql at all ((", "unknown"),
    ],
)
def test_levels_follow_spiders_rules(sql, level):
    assert hardness_of(sql) == level


def test_levels_agree_with_the_spider_dev_file(shared_path):
    path = shared_path("benchmarks/spider_dev/questions.json")
    questions = json.loads(path.read_text(encoding="utf-8"))
    wrong = [q["id"] for q in questions if hardness_of(q["query"]) != q["hardness"]]
    assert not wrong
