"""Teaching edits the analyst's layer file instead of rewriting it: comments, key order, styles
and the other entries survive, the new entry takes the file's indentation, and a file that is
malformed is named in one line (the line and the entry) and left as it was."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

import nl2sql
from nl2sql.errors import ConfigError

REVIEWED = """\
# Shop layer: reviewed by the analytics team
sources:
  shop:
    # joins the database does not declare
    relationships:
      - from: orders.custRef       # the customer reference
        to: customers.id
    terms:
      - {term: client, means: customers}   # sales says "client"
      - term: "CA"
        means: customers.state
        value: 'California'
      # more terms go here
    labels:
      customers: [full_name]
    hidden: [customers.ssn]
relationships: []   # none across sources yet
"""

REVENUE = {"name": "revenue", "expression": "SUM(quantity * unit_price)", "table": "order_items"}
SOLD = {"term": "sold", "means": "order_items.quantity"}
ITEMS_TO_ORDERS = {"from": "order_items.order_ref", "to": "orders.order_id"}

# the file after teaching SOLD, ITEMS_TO_ORDERS and REVENUE, in that order: the same lines with
# each entry added at the end of its list ("# more terms go here" still ends the terms)
REVIEWED_TAUGHT = """\
# Shop layer: reviewed by the analytics team
sources:
  shop:
    # joins the database does not declare
    relationships:
      - from: orders.custRef       # the customer reference
        to: customers.id
      - from: order_items.order_ref
        to: orders.order_id
    terms:
      - {term: client, means: customers}   # sales says "client"
      - term: "CA"
        means: customers.state
        value: 'California'
      - term: sold
        means: order_items.quantity
      # more terms go here
    labels:
      customers: [full_name]
    hidden: [customers.ssn]
    metrics:
      - name: revenue
        expression: SUM(quantity * unit_price)
        table: order_items
relationships: []   # none across sources yet
"""

# four-space mappings, list dashes under their key (PyYAML's layout)
COMPACT = """\
sources:
    shop:
        terms:
        - term: client
          means: customers
        relationships:
        - from: orders.custRef
          to: customers.id
"""

COMPACT_TAUGHT = """\
sources:
    shop:
        terms:
        - term: client
          means: customers
        - term: sold
          means: order_items.quantity
        relationships:
        - from: orders.custRef
          to: customers.id
        - from: order_items.order_ref
          to: orders.order_id
        metrics:
        - name: revenue
          expression: SUM(quantity * unit_price)
          table: order_items
"""


def _session(db: Path, layer: Path) -> nl2sql.Session:
    return nl2sql.connect(
        sources={"shop": str(db)},
        semantic=layer,
        settings={"project_dir": layer.parent / "project"},
    )


def _teach_three(session: nl2sql.Session) -> list[str]:
    return [
        session.teach({"source": "shop", "section": section, "entry": entry})
        for section, entry in (
            ("terms", SOLD),
            ("relationships", ITEMS_TO_ORDERS),
            ("metrics", REVENUE),
        )
    ]


@pytest.mark.parametrize(
    ("original", "taught"),
    [(REVIEWED, REVIEWED_TAUGHT), (COMPACT, COMPACT_TAUGHT)],
    ids=["two-space, indented dashes", "four-space, dashes under the key"],
)
def test_teaching_adds_lines_and_changes_none(
    shop_db: Path, tmp_path: Path, original: str, taught: str
) -> None:
    layer = tmp_path / "semantic.yaml"
    layer.write_text(original, encoding="utf-8")
    with _session(shop_db, layer) as session:
        diffs = _teach_three(session)
        assert layer.read_text(encoding="utf-8") == taught
        changed = [ln for d in diffs for ln in d.splitlines()[2:] if ln[:1] in "+-"]
        assert changed and all(ln.startswith("+") for ln in changed)  # nothing removed or rewritten
        answered = session.ask("revenue by state")
        assert answered.status == "success", answered.first_error
    with sqlite3.connect(shop_db) as con:
        expected = con.execute(
            "SELECT c.state, SUM(i.quantity * i.unit_price) FROM order_items i "
            "JOIN orders o ON i.order_ref = o.order_id JOIN customers c ON o.custRef = c.id "
            "GROUP BY c.state"
        ).fetchall()
    assert sorted(tuple(r) for r in answered.to_pandas().itertuples(index=False)) == sorted(
        expected
    )
    with _session(shop_db, layer) as again:  # a new session reads the edited file as it is
        assert again.ask("revenue by state").status == "success"


def test_a_file_of_comments_only_keeps_them_on_top(shop_db: Path, tmp_path: Path) -> None:
    layer = tmp_path / "semantic.yaml"
    layer.write_text("# taught entries land below\n", encoding="utf-8")
    with _session(shop_db, layer) as session:
        session.teach({"source": "shop", "section": "terms", "entry": SOLD})
    assert layer.read_text(encoding="utf-8") == (
        "# taught entries land below\nsources:\n  shop:\n    terms:\n    - term: sold\n"
        "      means: order_items.quantity\n"
    )


_VALID = "sources:\n  shop:\n    terms:\n    - term: client\n      means: customers\n"

MALFORMED = [
    (
        _VALID + "    - term: buyer\n      means: [customers\n",
        "semantic.yaml: not valid YAML at line 7 in sources.shop.terms[1].means: "
        "expected ',' or ']', but got '<stream end>'",
    ),
    (
        _VALID + "    - term: buyer\n      term: client\n",
        "semantic.yaml: not valid YAML at line 7 in sources.shop.terms[1].term: found duplicate key "
        '"term" with value "client" (original value: "buyer")',
    ),
    (
        _VALID + "    - term: buyer: client\n",
        "semantic.yaml: not valid YAML at line 6 in sources.shop.terms[1].term: "
        "mapping values are not allowed here",
    ),
    (
        _VALID + "    labels: {customers: [full_name}\n",
        "semantic.yaml: not valid YAML at line 6 in sources.shop.labels: expected ',' or ']', but got '}'",
    ),
    (_VALID + "    - term: buyer\n", "semantic.yaml: sources.shop.terms[1].means: Field required"),
    (
        "sources:\n  shop:\n    terms: {client: customers}\n",
        "semantic.yaml: sources.shop.terms: Input should be a valid list",
    ),
]


@pytest.mark.parametrize(
    ("text", "message"),
    MALFORMED,
    ids=[
        "unclosed list",
        "duplicate key",
        "key inside a value",
        "unclosed flow",
        "entry missing a key",
        "section not a list",
    ],
)
def test_a_malformed_file_is_one_line_naming_the_entry_and_stays_as_it_was(
    shop_db: Path, tmp_path: Path, text: str, message: str
) -> None:
    layer = tmp_path / "semantic.yaml"
    layer.write_text(_VALID, encoding="utf-8")
    with _session(shop_db, layer) as session:
        layer.write_text(text, encoding="utf-8")  # broken by hand while the session is open
        with pytest.raises(ConfigError) as caught:
            session.teach({"source": "shop", "section": "terms", "entry": SOLD})
    assert str(caught.value) == message
    assert layer.read_text(encoding="utf-8") == text
    with pytest.raises(ConfigError) as at_start:  # a session start names it the same way
        _session(shop_db, layer)
    assert str(at_start.value) == message


def test_a_taught_duplicate_is_refused_without_writing(shop_db: Path, tmp_path: Path) -> None:
    layer = tmp_path / "semantic.yaml"
    layer.write_text(REVIEWED, encoding="utf-8")
    duplicate: dict[str, Any] = {"term": "client", "means": "customers"}  # written in flow style
    with _session(shop_db, layer) as session, pytest.raises(ConfigError, match="already has"):
        session.teach({"source": "shop", "section": "terms", "entry": duplicate})
    assert layer.read_text(encoding="utf-8") == REVIEWED
