"""The layer file edited in place: read with its comments, one entry added, written back.

ruamel.yaml's round-trip mode keeps what the analyst wrote around an entry (comments, key order,
flow or block style, quoting); this module adds what round-tripping alone gets wrong for an
appended entry: the comment lines after a list's last item belong after the list, not between
its old last item and the new one, and the file's own indentation is reused. A file that is
not YAML is a one-line error naming the line and the entry it is in.
"""

from __future__ import annotations

import io
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import CommentMark, MarkedYAMLError
from ruamel.yaml.tokens import CommentToken

from nl2sql.errors import ConfigError

_KEY = re.compile(r"""^(?P<key>"[^"]*"|'[^']*'|[^\s#'"{\[][^:#]*?)\s*:(\s|$)""")
_Node = CommentedMap | CommentedSeq


def _yaml(mapping: int = 2, offset: int = 0) -> YAML:
    yaml = YAML()  # round-trip
    yaml.preserve_quotes = True
    yaml.width = 4096  # never re-wrap an analyst's long line
    yaml.indent(mapping=mapping, sequence=offset + 2, offset=offset)
    return yaml


def load_document(text: str, origin: str) -> Any:
    """The YAML document in `text` with its comments (an empty mapping for an empty text); a
    one-line ConfigError naming the line and the entry when it is not YAML (a duplicate key too)."""
    try:
        document = _yaml().load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = " ".join(str(exc.problem or exc.context or "a syntax error").split())
        if mark is None:
            raise ConfigError(f"{origin}: not valid YAML: {problem}") from None
        line = min(
            mark.line, max(len(text.splitlines()) - 1, 0)
        )  # the end of the text: its last line
        entry = entry_at_line(text, line)
        where = f" in {entry}" if entry else ""
        raise ConfigError(
            f"{origin}: not valid YAML at line {line + 1}{where}: {problem}"
        ) from None
    if document is None:  # empty, or comments only: an empty mapping that keeps them on top
        document = CommentedMap()
        if text.strip():
            document.ca.comment = [
                None,
                [CommentToken(text.rstrip("\n") + "\n", CommentMark(0), None)],
            ]
    return document


def entry_at_line(text: str, line: int) -> str:
    """The entry a line of a YAML text is in, read from indentation alone (so it works on a
    file the parser rejects): `sources.shop.terms[1].means`.

    >>> entry_at_line("sources:\\n  shop:\\n    terms:\\n    - term: a\\n    - term: b\\n      means: [x\\n", 5)
    'sources.shop.terms[1].means'
    """
    path: list[tuple[int, str]] = []  # (column, ".key" or "[i]")
    for raw in text.splitlines()[: line + 1]:
        body = raw.lstrip(" ")
        col = len(raw) - len(body)
        if not body.strip() or body.startswith("#"):
            continue
        while body.startswith("-") and body[1:2] in (" ", ""):
            index = 0
            while path and path[-1][0] > col:
                path.pop()
            if path and path[-1][0] == col and path[-1][1].startswith("["):
                index = int(path.pop()[1][1:-1]) + 1
            path.append((col, f"[{index}]"))
            rest = body[1:].lstrip(" ")
            col += len(body) - len(rest)
            body = rest
        key = _KEY.match(body)
        if key is None:
            continue
        while path and path[-1][0] >= col:  # a key closes the entries at or right of it
            path.pop()
        path.append((col, "." + key["key"].strip("'\"")))
    return "".join(part for _, part in path).lstrip(".")


def add_entry(document: dict[str, Any], where: Sequence[str], entry: Mapping[str, Any]) -> None:
    """Append `entry` to the list at the key path `where`, making the missing mappings and the
    list; the comment lines that ended the container it joins stay after it."""
    node: Any = document
    for depth, key in enumerate(where):
        child = node.get(key) if isinstance(node, CommentedMap) else None
        if child is None:  # the rest of the path is new: one subtree added at its end
            subtree: Any = CommentedSeq([_commented(entry)])
            for name in reversed(where[depth + 1 :]):
                subtree = CommentedMap([(name, subtree)])
            _append(node, key, subtree)
            return
        if not isinstance(child, (CommentedMap, CommentedSeq)):
            kind = "a list" if depth == len(where) - 1 else "a mapping"
            raise ConfigError(f"{'.'.join(where[: depth + 1])} must be {kind}")
        node = child
    if not isinstance(node, CommentedSeq):
        raise ConfigError(f"{'.'.join(where)} must be a list")
    _append(node, None, _commented(entry))


def dump_document(document: Any, like: str) -> str:
    """The document as YAML text, indented the way `like` (the file as it was) is."""
    out = io.StringIO()
    _yaml(*_indentation(like)).dump(document, out)
    return out.getvalue()


def _append(node: _Node, key: str | None, value: Any) -> None:
    trailing = _detach_trailing(node)
    if isinstance(node, CommentedSeq):
        node.append(value)
    else:
        node[key] = value
    if trailing:
        slot = _last_slot(node)
        if slot is not None:
            items, at, index = slot
            items.setdefault(at, [None, None, None, None])[index] = CommentToken(
                "\n" + trailing, CommentMark(0), None
            )


def _last_slot(node: Any) -> tuple[dict[Any, Any], Any, int] | None:
    """Where ruamel keeps the comment after the deepest last element of `node`: the comment
    slot of a mapping's last key (index 2) or of a list's last item (index 0)."""
    if not isinstance(node, (CommentedMap, CommentedSeq)) or not node:
        return None
    last = list(node)[-1] if isinstance(node, CommentedMap) else len(node) - 1
    deeper = _last_slot(node[last])
    if deeper is not None:
        return deeper
    return node.ca.items, last, 2 if isinstance(node, CommentedMap) else 0


def _detach_trailing(node: _Node) -> str:
    """The full comment lines (and blank lines) after the node's last element, taken off it;
    the end-of-line comment of that element stays where it is."""
    slots: list[tuple[list[Any], int]] = []
    current: Any = node
    while isinstance(current, (CommentedMap, CommentedSeq)) and current:
        last = list(current)[-1] if isinstance(current, CommentedMap) else len(current) - 1
        held = current.ca.items.get(last)
        if held:
            slots.append((held, 2 if isinstance(current, CommentedMap) else 0))
        current = current[last]
    for held, index in reversed(slots):  # the deepest comment is the one printed last
        token = held[index]
        if not isinstance(token, CommentToken):
            continue
        own, _, rest = token.value.partition("\n")
        if not rest.strip():
            continue
        if own.strip():
            token.value = own + "\n"
        else:
            held[index] = None
        return rest
    return ""


def _commented(value: Any) -> Any:
    """Plain mappings and lists as ruamel's commented ones (so comments can be attached)."""
    if isinstance(value, Mapping):
        return CommentedMap((k, _commented(v)) for k, v in value.items())
    if isinstance(value, list):
        return CommentedSeq(_commented(v) for v in value)
    return value


def _indentation(text: str) -> tuple[int, int]:
    """(mapping indent, list offset) of a YAML text: the first nested key and the first list
    under a key; 2 and 0 (PyYAML's layout) where the text has none."""
    mapping = offset = None
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    for parent, child in zip(lines, lines[1:], strict=False):
        if not parent.rstrip().endswith(":"):
            continue
        outer = len(parent) - len(parent.lstrip(" "))
        inner = len(child) - len(child.lstrip(" "))
        if child.lstrip().startswith("- ") and offset is None and inner >= outer:
            offset = inner - outer
        elif not child.lstrip().startswith("-") and mapping is None and inner > outer:
            mapping = inner - outer
    return mapping or 2, offset or 0
