"""Parsing `%nl2sql [options] QUESTION` and `%%nl2sql [options]`.

Options come first; everything after them is the question, verbatim — a question is English,
with apostrophes and dashes, so it is never split like a shell line. A bad option is a
UsageError: IPython shows it as one line, never a traceback.
"""

from __future__ import annotations

import argparse
import re
import shlex
from dataclasses import dataclass
from typing import NoReturn

from IPython.core.error import UsageError

USAGE = "%nl2sql [options] QUESTION   or   %%nl2sql [VAR <<] [options] (the cell is the question)"
#: the options that take a value
VALUED = {"-d", "--datasource", "-o", "--out", "--model", "-s", "--session"}
EXAMPLES = """\
examples:
  %nl2sql How many orders were placed in 2024?
  %nl2sql -d crm How many support tickets are there per priority?
  orders = %nl2sql How many orders were placed in 2024?
  %nl2sql --sql How many orders were cancelled?
  %nl2sql And in 2023?              (a follow-up: edits the previous run's plan)
  %nl2sql_history                   (the project's runs; %nl2sql_history 3 opens run 3)
  %%nl2sql result << --approve
  For each region, compare the number of orders with the number of support tickets

settings (%config NL2SQL.<name> = value; `%config NL2SQL` lists them with their values):
  defaults come from the config file (nl2sql.toml), then NL2SQL_* environment variables."""


class _Parser(argparse.ArgumentParser):
    """argparse that raises UsageError instead of printing and exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message}; see %nl2sql --help")

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        raise UsageError(message or "see %nl2sql --help")


def build_parser() -> argparse.ArgumentParser:
    # argparse %-formats the usage line: the magic's own % signs are doubled
    parser = _Parser(prog="%nl2sql", usage=USAGE.replace("%", "%%"), add_help=False,
                     epilog=EXAMPLES,
                     # a fixed width: the help must not depend on the terminal (saved outputs)
                     formatter_class=lambda prog: argparse.RawDescriptionHelpFormatter(prog, width=96),
                     description="Ask a question of your data sources; the run shows as a widget.")
    add = parser.add_argument
    add("-h", "--help", action="store_true", help="show this help")
    add("-d", "--datasource", metavar="ID", help="ask this datasource only (default: the resolver picks)")
    add("--no-exec", action="store_true", help="plan and generate SQL without running it")
    add("-o", "--out", metavar="VAR", help="store the QueryResult in the variable VAR")
    add("--approve", action="store_true", help="approve every held plan at once and run it")
    add("--pin", action="store_true", help="pin the run's plans: the next run of the question uses them")
    add("--model", metavar="SPEC", help='model for every node: "offline" or "provider:model"')
    add("-s", "--session", metavar="VAR", help="use the nl2sql Session in variable VAR")
    add("--sql", action="store_true", help="insert the generated SQL as a new cell below, ready to run")
    add("--new", action="store_true", help="a question of its own, never a follow-up of the previous one")
    return parser


@dataclass(frozen=True)
class Invocation:
    """A parsed magic call: its options, the question and the `VAR <<` target (jupysql's)."""

    options: argparse.Namespace
    question: str
    assign: str | None = None


_ASSIGN = re.compile(r"^\s*([A-Za-z_]\w*)\s*<<(?:\s+|$)")


def parse(line: str, cell: str | None = None) -> Invocation:
    """Options from `line`; the question is the rest of the line, or the cell body.

    `VAR <<` before the options stores the QueryResult in VAR, as jupysql's `%%sql VAR <<` does.
    """
    assign = _ASSIGN.match(line)
    if assign:
        line = line[assign.end():]
    tokens, rest = split_options(line)
    options = build_parser().parse_args(tokens)
    if cell is not None:
        if rest.strip():
            raise UsageError(f"unexpected text after the options: {rest.strip()!r}; "
                             "in %%nl2sql the cell body is the question")
        rest = cell
    return Invocation(options, " ".join(rest.split()), assign.group(1) if assign else None)


def split_options(line: str) -> tuple[list[str], str]:
    """Leading option tokens (values included) and the untouched remainder of the line.

    >>> split_options("-d crm --no-exec What's new?")
    (['-d', 'crm', '--no-exec'], "What's new?")
    >>> split_options("-- -5 degrees?")
    ([], '-5 degrees?')
    """
    tokens: list[str] = []
    rest = line.lstrip()
    expect_value = False
    while rest:
        word, tail = (rest.split(None, 1) + [""])[:2]
        if not expect_value and word == "--":
            return tokens, tail.lstrip()
        if not expect_value and not (word.startswith("-") and len(word) > 1):
            break
        tokens.append(_unquote(word))
        expect_value = not expect_value and word in VALUED
        rest = tail.lstrip()
    return tokens, rest


def _unquote(word: str) -> str:
    try:
        parts = shlex.split(word)
    except ValueError:
        return word
    return parts[0] if len(parts) == 1 else word


def help_text() -> str:
    """What `%nl2sql --help` prints."""
    return build_parser().format_help()
