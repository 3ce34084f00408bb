"""The listing shape: "list / show / which … / what are the <columns> of <table>".

The rows listed are those of the first table named (not one counted by "at least two …"), or,
when no table is named, of the first column asked for ("the cities that have more than one
employee" groups that column). "Which teams …" and "show the teams" show the rows' names;
only "all the information about …" every column. A bare noun phrase with no request and no condition
("orders?") is refused.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.catalog.labels import row_names, says_a_label
from nl2sql.reasoning.offline.linking.linker import Mention
from nl2sql.reasoning.offline.shapes.clauses import conditions
from nl2sql.reasoning.offline.shapes.comparisons import num_cond
from nl2sql.reasoning.offline.shapes.ordering import finish_order, order_request
from nl2sql.reasoning.offline.shapes.roles import outputs, projections
from nl2sql.reasoning.offline.shapes.spec import Col, Query, Target, Unclear
from nl2sql.reasoning.offline.shapes.state import Analysis
from nl2sql.reasoning.offline.words.text import canon

_DISTINCT = {"different", "distinct", "unique"}
_REQUESTS = frozenset(
    """what which who whom whose where when list show give find display return get tell name
    sort order ordered sorted select provide report see view fetch retrieve print identify
    describe are is was were do does did""".split()
)


def listing(a: Analysis) -> Query:
    """The listing query; Unclear when the question names data but asks nothing about it."""
    q = _listing_query(a)
    if not any(t.low in _REQUESTS for t in a.question.tokens) and not (
        q.where or q.having or q.anti or q.order
    ):
        # "orders?" names a table but asks nothing about it ("orders from 2024" does)
        raise Unclear(
            "the question names data but does not say what to do with it "
            "(e.g. 'list the …', 'how many …', 'what is the average …')"
        )
    return q


def _listed_rows(a: Analysis) -> tuple[str, Col | None, str]:
    """The table whose rows are listed, the column naming them when no table is named, and
    where the table stands in a list joined by "and" ("before", "after" or "")."""
    counted = {c.end for c in a.question.scan.nums}  # "at least two players": counted, not listed
    entity_m = next(
        (
            m
            for m in a.question.mentions
            if m.start not in a.used and a.res.table(m) and m.start not in counted
        ),
        None,
    )
    entity = a.res.table(entity_m) if entity_m else None
    by_column = _column_entity(a) if entity is None else None
    if by_column is not None:
        entity = by_column.table  # "the cities that have …": the rows of the column's table
    if entity is None:
        raise Unclear(_nothing_understood(a))
    if entity_m is not None:
        a.used.add(entity_m.start)
    return entity, by_column, _and_position(a, entity_m) if entity_m is not None else ""


def _and_position(a: Analysis, m: Mention) -> str:
    """ "the agents and their teams": the mention comes "before" an "and"; "… and their
    categories": "after" one; else ""."""
    tokens = a.question.tokens
    prev = [t.low for t in tokens[max(0, m.start - 2) : m.start]
            if t.low not in ("the", "their", "its")]  # fmt: skip
    if prev[-1:] == ["and"]:
        return "after"
    after = [t.low for t in tokens[m.end:]]
    pairs = zip(after, after[1:], strict=False)
    if any(pair in (("together", "with"), ("along", "with")) for pair in pairs):
        # "every class together with the trainer's name", "the courses starting in 2026 along
        # with the tutor's last name": both are shown
        return "before"
    if m.end + 1 >= len(tokens) or tokens[m.end].low != "and":
        return ""
    # "the agents and their teams" lists; "… a loan and have paid …" joins two clauses
    nxt = m.end + 1
    listed = tokens[nxt].low in ("the", "their", "its") or any(
        x.start == nxt for x in a.question.mentions
    )
    return "before" if listed else ""


def _listing_query(a: Analysis) -> Query:
    entity, by_column, and_position = _listed_rows(a)
    a.res.entity = entity
    q = Query(root=entity, shape="listing")
    a.res.add_context(entity)
    having = conditions(a, q)
    order = order_request(a)
    keys, shown_default = outputs(a, by_column or entity)
    listed = _listed_tables(a)
    shown = listed + projections(a, [])
    # beside another table listed, a key alone adds nothing ("X's bookings with the space")
    listed_beside = bool(listed) and bool(a.question.idx.labels.get(entity))
    if (listed_beside or and_position or _asked_which(a, entity, shown)) and shown and not any(
        t in shown_default for t in shown
    ) and not _names_asked(a, entity, shown):
        # "the employees and their departments", "the agents and their teams", "the names of
        # products and their categories", "which policies …? include the start date": every
        # table listed is shown
        shown = (shown + shown_default) if and_position == "after" else (shown_default + shown)
    shown = _without_shown_keys([t for i, t in enumerate(shown) if t not in shown[:i]], a)
    if having:
        q.group = keys
        q.having = [num_cond(measure, cue) for cue, measure in having]
        q.root = having[0][1].table
        a.res.add_context(q.root)
        shown = shown or shown_default
    if not shown and not having and not _wants_all_columns(a):
        shown = shown_default  # "which teams …": the rows' names, not every column
    if shown:
        shown += [c for c in _asked_when(a, q) if c not in shown]
    q.select = [(o, None) for o in shown]
    q.star = not shown and not having
    q.distinct = (
        any(t.low in _DISTINCT for t in a.question.tokens)
        or _value_set(a, by_column)
        or _value_set(a, _which_column(a, shown))
        or (not having and _shown_through_references(a, q.root, shown))
    )
    q.order = finish_order(q, order, shown_default)
    return q


_ALSO_ASKED = frozenset("which what include including give show list display return tell provide "
                        "report".split())


def _asked_which(a: Analysis, entity: str, shown: list[Target]) -> bool:
    """ "Which policies started …? Include the start date", "which cinemas …, and in which cities
    are they": the question asks for rows of `entity`, named right after its "which"/"what", and
    then for more; what else it asks for is shown beside the rows' names (unless it names them:
    "… give me the flight id")."""
    tokens, idx = a.question.tokens, a.question.idx
    named = row_names(idx, entity)
    if any(isinstance(t, Col) and t.table == entity and t.column in named for t in shown):
        return False
    return any(
        m.start > 0 and tokens[m.start - 1].low in ("which", "what") and a.res.table(m) == entity
        and any(t.low in _ALSO_ASKED for t in tokens[m.end :])
        for m in a.question.mentions
    )


def _asked_when(a: Analysis, q: Query) -> list[Col]:
    """ "Which meters were installed before 2015, and when?": the dates the conditions are on."""
    tokens = a.question.tokens
    if len(tokens) < 3 or tokens[-1].low != "when" or tokens[-2].low not in ("and", ","):
        return []
    idx = a.question.idx
    return [c.target for c in q.where if isinstance(c.target, Col)
            and idx.kind(c.target.table, c.target.column) == "date"]


def _without_shown_keys(shown: list[Target], a: Analysis) -> list[Target]:
    """ "Who is the lead investigator of the trial? Give first and last name": a key column
    whose row is shown by its own columns is that row; the key goes unless its own last word
    ("id", "code") is said."""
    idx = a.question.idx
    said = {t.canon for t in a.question.tokens}
    tables = {t.table for t in shown if isinstance(t, Col)}

    def stands_for_shown(t: Target) -> bool:
        if not isinstance(t, Col) or t.column is None:
            return False
        words = idx.col_words.get((t.table, t.column), ())
        return bool(words) and canon(words[-1]) not in said and any(
            e.src == t.table and e.src_cols == (t.column,) and e.dst in tables - {t.table}
            for e in idx.edges + idx.inferred)

    dropped = [t for t in shown if stands_for_shown(t)]
    if not dropped or len(dropped) == len(shown):
        return shown
    # the key's mention is read: the join goes through it
    a.absorbed.update(m.start for m in a.question.mentions if a.res.column(m) in dropped)
    return [t for t in shown if t not in dropped]


def _shown_through_references(a: Analysis, root: str, shown: list[Target]) -> bool:
    """ "The companies that have an active subscription", read over subscriptions: every column
    shown belongs to a table the root rows refer to (many subscriptions to one company), so
    each of its rows would be listed once per referring row; the entities are asked for once."""
    idx = a.question.idx
    tables = {t.table for t in shown if isinstance(t, Col)}
    if not tables or len(tables) != len(shown) or root in tables or _of_root(a, root):
        return False
    referenced = {e.dst for e in idx.edges + idx.inferred if e.src == root and e.fans_out(e.dst)}
    return tables <= referenced


def _of_root(a: Analysis, root: str) -> bool:
    """ "The model of the car whose weight …", "the model for the car with …": the root rows are
    named as the owners of what is shown, so it is shown once per root row."""
    tokens = a.question.tokens
    for m in a.question.mentions:
        if not any(e.table == root for e in m.candidates[:1]):
            continue
        before = [t.low for t in tokens[max(0, m.start - 3) : m.start]
                  if t.low not in ("the", "a", "an", "each", "every", "their", "its")]
        if before[-1:] in (["of"], ["for"]):
            return True
    return False


def _wants_all_columns(a: Analysis) -> bool:
    """ "All the information about …", "every detail of …": every column. Other listings
    ("show the customers in Lyon", "which teams …") ask for the rows by name."""
    words = {t.low for t in a.question.tokens}
    return bool(words & {"information", "info", "details", "everything", "records"})


def _value_set(a: Analysis, column: Col | None) -> bool:
    """ "In which years were cars made": a listed column that does not name rows (no key,
    no label) asks for its set of values."""
    if column is None:
        return False
    idx = a.question.idx
    return column.column not in row_names(idx, column.table)


def _which_column(a: Analysis, shown: list[Target]) -> Col | None:
    """ "Which carriers deliver parcels over 5 kg", "in which cities do they live": the one column
    shown, asked for right after "which"/"what", whose set of values is the answer."""
    if len(shown) != 1 or not isinstance(shown[0], Col):
        return None
    col = shown[0]
    for m in a.question.mentions:
        before = a.question.tokens[m.start - 1].low if m.start > 0 else ""
        if before in ("which", "what") and any(
            e.table == col.table and e.column == col.column for e in m.columns()
        ):
            return col
    return None


def _column_entity(a: Analysis) -> Col | None:
    """With no table named, the first column asked for names the rows listed."""
    for m in a.question.mentions:
        if m.start not in a.used and m.columns():
            return a.res.column(m)
    return None


def _names_asked(a: Analysis, entity: str, shown: list[Target]) -> bool:
    """ "Which forklifts …? Give unit names.": a name of the rows asked for, of their own
    table, replaces their default label."""
    return any(isinstance(t, Col) and t.table == entity
               and says_a_label(a.question.idx, entity, t.column) for t in shown)


def _listed_tables(a: Analysis) -> list[Col]:
    """A table listed after "and" ("the names of authors and the books"), or after "with" in a
    list ("with the space and the date"), shows its labels."""
    shown: list[Col] = []
    tokens, labels = a.question.tokens, a.question.idx.labels
    for m in a.question.mentions:
        prev = [t.text for t in tokens[max(0, m.start - 2) : m.start]
                if t.low not in ("the", "their", "its")]  # fmt: skip
        table = a.res.table(m) if m.start not in a.used else None
        # "… and the books", "… and what book they wrote", "… with the space and the date":
        # the table's rows are shown
        listed = prev[-1:] in (["and"], [","], ["what"], ["which"]) or (
            prev[-1:] == ["with"] and m.end < len(tokens) and tokens[m.end].low in ("and", ","))
        if table and listed and labels[table]:
            a.used.add(m.start)
            shown += [Col(table, c) for c in labels[table]]
    return shown


def _nothing_understood(a: Analysis) -> str:
    words = [t.text for t in a.question.linking.unexplained]
    if words:
        return "could not tell what to list: no table matches " + ", ".join(
            f"'{w}'" for w in words
        )
    return "could not tell which table the question is about"
