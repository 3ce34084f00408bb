"""Parsing the magic's line: options first, the question verbatim."""

from __future__ import annotations

import pytest
from IPython.core.error import UsageError

from nl2sql.notebook.args import help_text, parse, split_options


@pytest.mark.parametrize(
    ("line", "tokens", "rest"),
    [
        ("How many orders?", [], "How many orders?"),
        ("-d crm --no-exec What's the top ticket's priority?", ["-d", "crm", "--no-exec"],
         "What's the top ticket's priority?"),
        ('--model "openai:gpt-4.1-mini" -o r Top 5 - by orders', ["--model", "openai:gpt-4.1-mini", "-o", "r"],
         "Top 5 - by orders"),
        ("--datasource=crm  tickets", ["--datasource=crm"], "tickets"),
        ("-- -5 degrees or colder?", [], "-5 degrees or colder?"),
    ],
)
def test_options_are_split_from_the_question(line, tokens, rest):
    assert split_options(line) == (tokens, rest)


def test_cell_body_is_the_question():
    call = parse("-o out --approve --pin", "For each region,\n  compare orders\n")
    assert call.question == "For each region, compare orders"
    assert call.options.out == "out" and call.options.approve and call.options.pin


def test_an_option_without_its_value_is_a_usage_error():
    with pytest.raises(UsageError, match="expected one argument"):
        parse("-d")


def test_help_names_the_settings_command():
    assert "%config NL2SQL.<name> = value" in help_text()
    assert help_text().startswith("usage: %nl2sql [options] QUESTION")
