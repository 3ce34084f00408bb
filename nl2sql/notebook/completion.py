"""Tab completion for `%nl2sql` and `%%nl2sql` (an IPython `complete_command` hook).

Completes the options while they are being typed, the datasource ids after `-d/--datasource`,
the variables holding a Session after `-s/--session`, and "offline" after `--model`. The
question itself is English: nothing is offered there. Completing never opens a session (that
can take seconds): the ids come from the magic's open session, else from the config file, else
from the demo.
"""

from __future__ import annotations

import re
from typing import Any

from nl2sql.notebook import args

COMMANDS = ("%nl2sql", "%%nl2sql")


def options() -> list[str]:
    """Every option string of the magic, long ones first.

    >>> "--datasource" in options() and "-d" in options()
    True
    """
    strings = set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", args.help_text()))
    return sorted(strings, key=lambda s: (not s.startswith("--"), s))


def complete(magic: Any, line: str, symbol: str) -> list[str]:
    """What may follow `line` (the text up to the cursor) where `symbol` is being typed."""
    words = line.split()
    if words and words[0] in COMMANDS:
        words = words[1:]
    if words and len(words) > 1 and words[1] == "<<":
        words = words[2:]  # `%%nl2sql VAR << ...`
    before = words[:-1] if symbol and words else words
    if any(not w.startswith("-") and (i == 0 or before[i - 1] not in args.VALUED)
           for i, w in enumerate(before)):
        return []  # the question has begun: no option after it
    previous = before[-1] if before else ""
    if previous in ("-d", "--datasource"):
        return [d for d in datasource_ids(magic) if d.startswith(symbol)]
    if previous in ("-s", "--session"):
        return [v for v in session_variables(magic) if v.startswith(symbol)]
    if previous == "--model":
        return [m for m in ("offline",) if m.startswith(symbol)]
    if previous in args.VALUED:
        return []
    return [o for o in options() if o.startswith(symbol)] if symbol.startswith("-") or not symbol else []


def datasource_ids(magic: Any) -> list[str]:
    """The datasources a run may name: the open session's, else the config file's, else the demo's."""
    session = magic.open_session
    if session is not None:
        return list(session.datasources)
    from pathlib import Path

    from nl2sql.settings import find_config_file, load_config_file

    try:
        path = Path(magic.config_file) if magic.config_file else find_config_file()
        sources = load_config_file(path).sources
    except Exception:  # noqa: BLE001 - a broken config file shows when a run reads it, not on Tab
        sources = {}
    if sources:
        return list(sources)
    from nl2sql.demo import DEMO_DESCRIPTIONS

    return list(DEMO_DESCRIPTIONS)


def session_variables(magic: Any) -> list[str]:
    from nl2sql.session import Session

    namespace = magic.shell.user_ns if magic.shell is not None else {}
    return sorted(name for name, value in namespace.items()
                  if isinstance(value, Session) and not name.startswith("_"))


def register(shell: Any, magic: Any) -> None:
    """Install the completer for both forms of the magic."""

    def hook(_shell: Any, event: Any) -> list[str]:
        return complete(magic, event.text_until_cursor, event.symbol)

    for command in COMMANDS:
        shell.set_hook("complete_command", hook, str_key=command)
