"""How IPython reads a `%nl2sql` line: an input transformer registered by `%load_ext nl2sql`.

IPython reads a line ending in `name?` as a request for help on `name`, and a question often
ends that way. So `%nl2sql …` lines, bare or assigned (`x = %nl2sql …`), become the magic call
before IPython's help rule can apply. A bare line's arguments also end in `;`, IPython's mark for
"no Out": the magic returns its QueryResult (so `x = %nl2sql …` assigns it) except when so
marked, since it has shown the answer already. The mark travels in the arguments, not after the
call: IPython reads a `;` after an expression from the stored history, which a cell run with
`store_history=False` (nbval's way) does not update.
"""

from __future__ import annotations

import re

_LINE_MAGIC = re.compile(r"^(?P<indent>\s*)(?:(?P<target>[A-Za-z_][\w.]*)\s*=\s*)?%nl2sql(?=\s|$)(?P<rest>.*)$")


def keep_question_marks(lines: list[str]) -> list[str]:
    """The input transformer (IPython's `input_transformers_cleanup`).

    >>> keep_question_marks(["%nl2sql How many orders?\\n"])
    ["get_ipython().run_line_magic('nl2sql', 'How many orders?;')\\n"]
    >>> keep_question_marks(["n = %nl2sql How many orders?\\n"])
    ["n = get_ipython().run_line_magic('nl2sql', 'How many orders?')\\n"]
    """
    if lines and lines[0].lstrip().startswith("%%"):
        return lines  # a cell magic's body is its own text (a Python body is transformed when run)
    out = []
    for line in lines:
        body = line.rstrip("\n")
        match = _LINE_MAGIC.match(body)
        if match:
            target, rest = match["target"], match["rest"].strip()
            arguments = rest if target or rest.endswith(";") else f"{rest};"
            call = f"get_ipython().run_line_magic('nl2sql', {arguments!r})"
            statement = f"{target} = {call}" if target else call
            line = f"{match['indent']}{statement}" + line[len(body):]
        out.append(line)
    return out
