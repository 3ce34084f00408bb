"""The lazily imported inflect engine gives inflect's own answers, and leaves typeguard as it was."""

from __future__ import annotations

import json
import subprocess
import sys

WORDS = ["people", "customers", "criteria", "children", "Categories", "status", "analyses",
         "matrix", "person", "bus", "leaves", "data", "series", "OrderItems", "geese", "radii"]

PLAIN = """
import json, sys
import inflect
engine = inflect.engine()
words = json.loads(sys.argv[1])
print(json.dumps([[engine.singular_noun(w), engine.plural_noun(w)] for w in words]))
"""


def test_the_engine_answers_as_a_plain_import_of_inflect_does():
    plain = subprocess.run([sys.executable, "-c", PLAIN, json.dumps(WORDS)], check=True,
                           capture_output=True, text=True).stdout
    ours = subprocess.run(
        [sys.executable, "-c",
         "import json, sys\n"
         "from nl2sql.inflection import inflect_engine\n"
         "engine = inflect_engine()\n"
         "print(json.dumps([[engine.singular_noun(w), engine.plural_noun(w)]"
         " for w in json.loads(sys.argv[1])]))",
         json.dumps(WORDS)],
        check=True, capture_output=True, text=True).stdout
    assert json.loads(ours) == json.loads(plain)
    assert json.loads(ours)[0][0] == "person"


def test_typeguard_keeps_its_decorator_for_everyone_else():
    out = subprocess.run(
        [sys.executable, "-c",
         "import typeguard\n"
         "before = typeguard.typechecked\n"
         "from nl2sql.inflection import inflect_engine\n"
         "inflect_engine()\n"
         "print(typeguard.typechecked is before)"],
        check=True, capture_output=True, text=True).stdout
    assert out.strip() == "True"
