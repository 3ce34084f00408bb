"""Join paths along declared foreign keys: a shortest connecting tree from the plan's root table.

The tree grows greedily: the pending table nearest to the tree (fewest FK hops) joins next, along
one of its shortest paths. Tie-break between equally short paths, in order:
1. the path passing through more tables the question mentions;
2. the path whose FK columns share more words with the question ("branch district" → `branch_id`);
3. the path through tables that refer to both neighbours (crew ← assignments → flights: the
   rows are related) before one through a table both neighbours refer to (crew → airports ←
   flights: they only share an airport);
4. FK declaration order (the table's position in the snapshot, then the FK's position);
5. table keys, alphabetically.
When rules 1–3 leave a tie, the choice is reported in `notes` and kept as a `Tie`, so the planner
lowers its confidence, says which alternative it did not take and can read the question the
other way. A tie between two joins of the same tables on different columns (a flight's origin or
destination airport) is a role the question did not name: a guess, not a likely reading.

Declared keys always win: the relationships inferred from names and values
(`nl2sql.schema.relationships`, `SchemaIndex.inferred`) are searched only for a table the
declared edges cannot reach from the tree; `inferred_note` names such a join with its evidence.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from nl2sql.errors import Refusal, RefusalCode
from nl2sql.reasoning.offline.catalog.index import FKEdge, SchemaIndex

_MAX_HOPS = 5
_MAX_PATHS = 64


class JoinError(ValueError):
    """No foreign-key path connects the tables a question needs (`refusal` names them)."""

    def __init__(self, message: str, refusal: Refusal | None = None):
        super().__init__(message)
        self.refusal = refusal


@dataclass(frozen=True)
class JoinStep:
    table: str  # the table this step adds
    parent: str  # the tree table it attaches to
    edge: FKEdge
    fan_out: (
        bool  # parent rows are repeated: the step goes from a referenced row to referencing rows
    )

    def pairs(self) -> list[tuple[str, str, str, str]]:
        """(table, column, table, column) equalities of the join condition."""
        e = self.edge
        return [(e.src, a, e.dst, b) for a, b in zip(e.src_cols, e.dst_cols, strict=True)]


@dataclass(frozen=True)
class Tie:
    """Two join paths the question does not choose between: the FK columns of the one taken
    and of the other (`table.column`), the other's column words the question would have to say
    to take it, and whether both join the same tables (on other columns: a role)."""

    chosen: tuple[str, ...]
    other: tuple[str, ...]
    other_words: frozenset[str]
    roles: bool


@dataclass
class JoinTree:
    root: str
    steps: list[JoinStep] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ties: list[Tie] = field(default_factory=list)

    @property
    def ambiguous(self) -> bool:
        return bool(self.ties)

    @property
    def tables(self) -> list[str]:
        return [self.root] + [s.table for s in self.steps]

    @property
    def fans_out(self) -> bool:
        return any(s.fan_out for s in self.steps)

    @property
    def inferred(self) -> list[JoinStep]:
        """The steps along relationships no key declares."""
        return [s for s in self.steps if s.edge.inferred]


Path = list[tuple[str, str, FKEdge]]  # (from, to, edge) hops


def connect(
    idx: SchemaIndex,
    root: str,
    required: list[str],
    preferred: set[str] | None = None,
    words: set[str] | None = None,
) -> JoinTree:
    """The connecting tree from `root` to every table of `required`; JoinError when impossible."""
    tree = JoinTree(root)
    pending = [t for t in dict.fromkeys(required) if t != root]
    prefer, said = preferred or set(), words or set()
    while pending:
        target, paths = _nearest(idx, tree.tables, pending)
        paths.sort(key=lambda p: _path_key(idx, p, prefer, said))
        chosen = paths[0]
        if (
            len(paths) > 1
            and _path_key(idx, paths[1], prefer, said)[:3]
            == _path_key(idx, chosen, prefer, said)[:3]
        ):
            tree.ties.append(_tie(idx, chosen, paths[1]))
            tree.notes.append(_note(chosen, paths[1], target))
        for a, b, edge in chosen:
            tree.steps.append(JoinStep(b, a, edge, fan_out=edge.fans_out(leaving=a)))
        pending = [t for t in pending if t not in tree.tables]
    return tree


def _adjacent(edges: list[FKEdge], table: str) -> list[tuple[str, FKEdge]]:
    out = []
    for edge in edges:
        if edge.src == edge.dst:
            continue  # a self-reference never connects two different tables
        if edge.src == table:
            out.append((edge.dst, edge))
        elif edge.dst == table:
            out.append((edge.src, edge))
    return out


def _nearest(idx: SchemaIndex, sources: list[str], pending: list[str]) -> tuple[str, list[Path]]:
    """The pending table nearest to the tree and its shortest paths: along declared edges when
    they reach any pending table, else along declared and inferred edges together."""
    try:
        return _nearest_along(idx.edges, sources, pending)
    except JoinError:
        if not idx.inferred:
            raise
    return _nearest_along(idx.edges + idx.inferred, sources, pending)


def _nearest_along(
    edges: list[FKEdge], sources: list[str], pending: list[str]
) -> tuple[str, list[Path]]:
    dist = {s: 0 for s in sources}
    preds: dict[str, list[tuple[str, FKEdge]]] = {}
    queue = deque(sources)
    while queue:
        node = queue.popleft()
        if dist[node] >= _MAX_HOPS:
            continue
        for nxt, edge in _adjacent(edges, node):
            if nxt not in dist:
                dist[nxt] = dist[node] + 1
                preds[nxt] = [(node, edge)]
                queue.append(nxt)
            elif dist[nxt] == dist[node] + 1:
                preds[nxt].append((node, edge))
    reachable = [t for t in pending if t in dist]
    if not reachable:
        raise JoinError(
            f"no foreign-key path connects {', '.join(sources)} with {', '.join(pending)}",
            Refusal(code=RefusalCode.NO_JOIN_PATH, tables=list(sources), unreached=list(pending)),
        )
    target = min(reachable, key=lambda t: (dist[t], pending.index(t)))
    return target, _paths(preds, set(sources), target)


def _paths(
    preds: dict[str, list[tuple[str, FKEdge]]], sources: set[str], target: str
) -> list[Path]:
    out: list[Path] = []
    stack: list[tuple[str, Path]] = [(target, [])]
    while stack and len(out) < _MAX_PATHS:
        node, suffix = stack.pop()
        if node in sources:
            out.append(suffix)
            continue
        for prev, edge in preds[node]:
            stack.append((prev, [(prev, node, edge)] + suffix))
    return out


def _path_key(
    idx: SchemaIndex, path: Path, prefer: set[str], said: set[str]
) -> tuple[int, int, int, list[tuple[int, int]], list[str]]:
    middle = [b for _, b, _ in path[:-1]]
    col_words = sum(1 for w in _words(idx, path) if w in said)
    hops = zip(path, path[1:], strict=False)
    shared = sum(1 for (_, m, into), (_, _, out) in hops if into.dst == out.dst == m)
    return (
        -sum(1 for t in middle if t in prefer),
        -col_words,
        shared,
        [e.rank for _, _, e in path],
        [b for _, b, _ in path],
    )


def _words(idx: SchemaIndex, path: Path) -> list[str]:
    """The words of the path's FK columns (a key's "id" says nothing)."""
    return [w for _, _, e in path for c in e.src_cols
            for w in idx.col_words.get((e.src, c), ()) if w != "id"]


def _tie(idx: SchemaIndex, chosen: Path, other: Path) -> Tie:
    def cols(p: Path) -> tuple[str, ...]:
        return tuple(f"{e.src}.{c}" for _, _, e in p for c in e.src_cols)

    return Tie(cols(chosen), cols(other),
               frozenset(_words(idx, other)) - frozenset(_words(idx, chosen)),
               roles=[(a, b) for a, b, _ in chosen] == [(a, b) for a, b, _ in other])


def inferred_note(edge: FKEdge) -> str:
    """The reasoning line of a join along an inferred relationship: the condition and why."""
    pairs = ", ".join(
        f"{edge.src}.{a} = {edge.dst}.{b}"
        for a, b in zip(edge.src_cols, edge.dst_cols, strict=True)
    )
    return f"joined {pairs} — inferred (no declared key): {edge.inferred}"


def _note(chosen: Path, other: Path, target: str) -> str:
    roles = [b for _, b, _ in chosen] == [b for _, b, _ in other]

    def via(p: Path) -> str:
        mids = [b for _, b, _ in p[:-1]]
        cols = ", ".join(f"{e.src}.{'/'.join(e.src_cols)}" for _, _, e in p)
        return f"via {' and '.join(mids)}" if mids and not roles else f"on {cols}"

    advice = "say which in the question" if roles else "name the other table in the question"
    return (
        f"{target} is reachable {via(chosen)} or {via(other)}; chose {via(chosen)} "
        f"(foreign-key declaration order) — {advice} to use it"
    )
