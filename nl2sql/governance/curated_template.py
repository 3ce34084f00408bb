"""Curated answers as templates: the values a question names become parameters of its SQL.

    - question: How many orders were shipped to West in 2024?
      datasource: shop
      sql: SELECT COUNT(*) FROM orders WHERE region = 'West' AND ship_year = 2024
      parameters:
        region: {value: West, column: orders.region}   # a text value: a stored value of the column
        year: {value: 2024}                             # a number: any number fills it

Each parameter's `value` is written once in the question (its slot) and as a literal of the SQL.
A question with the same words around the slots, each slot filled by a stored value of the
parameter's column (its sampled values, the layer's vocabulary and value terms) or by a number
for a number, is answered by the SQL with those literals replaced — by sqlglot, as literals of
the source's dialect, never formatted into the text. A slot filled by anything else is no match:
the pipeline answers instead. `QueryResult.verify(template=True)` saves a run this way, each
literal of its SQL that the question names a parameter (`derive_parameters`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

if TYPE_CHECKING:
    from sqlglot import exp

    from nl2sql.schema.models import SchemaSnapshot

Value = str | int | float
_WORD = re.compile(r"\d+(?:\.\d+)?|[^\W\d_]+")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_NAME = re.compile(r"[A-Za-z_]\w*")


class TemplateParameter(BaseModel):
    """One value of a curated question that another value may take."""

    model_config = ConfigDict(extra="forbid")

    value: Value  # as written in the question and as a literal of the SQL
    column: str | None = None  # `table.column` whose stored values fill the slot (text values)

    @property
    def numeric(self) -> bool:
        return not isinstance(self.value, str) or bool(_NUMBER.fullmatch(self.value))


def words(text: str) -> list[str]:
    """Case-folded words and numbers (decimals kept): how questions and values are compared."""
    return _WORD.findall(str(text).casefold())


def check_template(question: str, sql: str, parameters: Mapping[str, TemplateParameter]) -> None:
    """A ValueError naming the first parameter that cannot work: a bad name, a text value
    without its column, a value not written exactly once in the question or not in the SQL."""
    taken: set[int] = set()
    for name, p in parameters.items():
        if not _NAME.fullmatch(name):
            raise ValueError(f"parameter name {name!r} is not a name (letters, digits, _)")
        if not p.numeric and not p.column:
            raise ValueError(f"parameter {name!r}: a text value needs `column: table.column`, whose "
                             "stored values may fill it")
        span = _span(words(question), words(str(p.value)))
        if span is None:
            raise ValueError(f"parameter {name!r}: {p.value!r} must be written exactly once in the question")
        if taken & set(span):
            raise ValueError(f"parameter {name!r}: {p.value!r} overlaps another parameter in the question")
        taken |= set(span)
        if not _in_sql(sql, p.value):
            raise ValueError(f"parameter {name!r}: {p.value!r} is not a literal of the SQL")


def template_question(question: str, parameters: Mapping[str, TemplateParameter]) -> str:
    """The question with each parameter's value as its `{name}` slot, for reading."""
    for name, p in parameters.items():
        pattern = rf"(?<!\w){re.escape(str(p.value))}(?!\w)"
        question = re.sub(pattern, "{" + name + "}", question, count=1, flags=re.IGNORECASE)
    return question


def match_template(question: str, curated: str, parameters: Mapping[str, TemplateParameter],
                   values: Callable[[str], Mapping[str, str]]) -> dict[str, Value] | None:
    """The values `question` gives the parameters of the `curated` question, or None when its
    other words differ or a slot holds no known value of its column.

    `values(column_ref)` maps the words of each stored value of a column to the value."""
    asked = " ".join(words(question))
    found = _pattern(curated, parameters).fullmatch(asked)
    if found is None:
        return None
    bound: dict[str, Value] = {}
    for name, p in parameters.items():
        text = found.group(name)
        if p.numeric:
            if not _NUMBER.fullmatch(text):
                return None
            bound[name] = float(text) if "." in text else int(text)
            continue
        stored = values(str(p.column)).get(text)
        if stored is None:
            return None  # not a value of that column: never a silent wrong answer
        bound[name] = stored
    return bound


def keeps_values(question: str, parameters: Mapping[str, TemplateParameter]) -> bool:
    """True when `question` names every parameter's value (a paraphrase of the same question)."""
    asked = words(question)
    return all(_find(asked, words(str(p.value))) for p in parameters.values())


def bind_sql(sql: str, parameters: Mapping[str, TemplateParameter], bound: Mapping[str, Value],
             dialect: str | None) -> str:
    """`sql` with each parameter's literals replaced by its bound value, rendered by sqlglot
    (a ValueError when the SQL does not parse in `dialect`)."""
    import sqlglot
    from sqlglot import exp

    try:
        tree = sqlglot.parse_one(sql, read=dialect or None)
    except sqlglot.errors.ParseError as exc:
        raise ValueError(f"the template's SQL does not parse: {str(exc).splitlines()[0]}") from None
    literals = list(tree.find_all(exp.Literal))
    replacements: list[tuple[exp.Literal, Value]] = []
    for name, p in parameters.items():
        hits = [lit for lit in literals if _same(lit, p.value)]
        if not hits:
            raise ValueError(f"the template's SQL has no literal {p.value!r} for {{{name}}}")
        replacements += [(lit, bound[name]) for lit in hits]
    for lit, value in replacements:  # after finding them all: a new value may equal an old one
        lit.replace(exp.Literal.string(str(value)) if lit.is_string else exp.Literal.number(value))
    return tree.sql(dialect=dialect or None)


def column_values(snapshot: SchemaSnapshot, ref: str) -> dict[str, str]:
    """The known values of column `ref` (`table.column`) by their words: its samples, the
    layer's vocabulary for it and its value terms ("CA" → 'California'); {} when not visible."""
    table_name, _, column_name = ref.rpartition(".")
    table = snapshot.table(table_name)
    column = table.column(column_name) if table is not None else None
    if table is None or column is None:
        return {}
    known = {" ".join(words(v)): v for v in column.samples}
    semantic = table.semantic
    if semantic is not None:
        known.update({" ".join(words(v)): v for v in semantic.values.get(column.name, [])})
        for term in semantic.terms:
            if term.value is not None and (term.column or "").lower() == column.name.lower():
                known.setdefault(" ".join(words(term.term)), term.value)
    return known


def derive_parameters(question: str, sql: str, snapshot: SchemaSnapshot,
                      dialect: str | None) -> dict[str, TemplateParameter]:
    """The parameters of a run's SQL: each literal the question names (once) — a text compared
    with a column (the column's stored values fill it), or a number. Other literals stay fixed."""
    import sqlglot
    from sqlglot import exp

    tree = sqlglot.parse_one(sql, read=dialect or None)
    tables = {t.alias_or_name.lower(): t.name for t in tree.find_all(exp.Table)}
    out: dict[str, TemplateParameter] = {}
    for lit in tree.find_all(exp.Literal):
        column, direct = _compared_column(lit)
        numeric = not lit.is_string or bool(_NUMBER.fullmatch(lit.this))
        ref = _column_ref(column, tables, snapshot) if column is not None and direct else None
        if not numeric and ref is None:
            continue  # a text value needs the column it is compared with, to know what may replace it
        value: Value = lit.this if lit.is_string else (float(lit.this) if "." in lit.this else int(lit.this))
        if any(p.value == value for p in out.values()):
            continue
        base = column.name if column is not None else ("limit" if isinstance(lit.parent, exp.Limit) else "number")
        name = _unique(re.sub(r"\W+", "_", base).strip("_").lower() or "value", out)
        trial = {**out, name: TemplateParameter(value=value, column=ref if not numeric else None)}
        try:
            check_template(question, sql, trial)
        except ValueError:
            continue  # not written once in the question, or overlapping another value
        out = trial
    return out


def _pattern(curated: str, parameters: Mapping[str, TemplateParameter]) -> re.Pattern[str]:
    """The curated question's words as a regular expression, each parameter a named group."""
    asked = words(curated)
    slots: dict[int, tuple[str, int]] = {}
    for name, p in parameters.items():
        span = _span(asked, words(str(p.value)))
        assert span is not None  # checked when the answer was loaded
        slots[span[0]] = (name, len(span))
    parts, i = [], 0
    while i < len(asked):
        if i in slots:
            name, width = slots[i]
            numeric = parameters[name].numeric
            parts.append(f"(?P<{name}>{_NUMBER.pattern if numeric else '.+?'})")
            i += width
        else:
            parts.append(re.escape(asked[i]))
            i += 1
    return re.compile(" ".join(parts))


def _find(haystack: list[str], needle: list[str]) -> list[int]:
    n = len(needle)
    return [i for i in range(len(haystack) - n + 1) if n and haystack[i:i + n] == needle]


def _span(haystack: list[str], needle: list[str]) -> list[int] | None:
    """The word positions of `needle`'s only occurrence in `haystack` (None: none or several)."""
    starts = _find(haystack, needle)
    return list(range(starts[0], starts[0] + len(needle))) if len(starts) == 1 else None


def _in_sql(sql: str, value: Value) -> bool:
    quoted = "'" + str(value).replace("'", "''") + "'"
    bare = re.search(rf"(?<![\w.']){re.escape(str(value))}(?![\w.'])", sql)
    return quoted in sql or (not isinstance(value, str) or bool(_NUMBER.fullmatch(value))) and bare is not None


def _same(lit: exp.Literal, value: Value) -> bool:
    if lit.is_string:
        return bool(lit.this == str(value))
    try:
        return not isinstance(value, str) and float(lit.this) == float(value)
    except ValueError:
        return False


def _compared_column(lit: exp.Expression) -> tuple[exp.Column | None, bool]:
    """The column a literal is compared with, and whether directly (`col = 'x'`, `col IN ('x')`)
    rather than through a function (`EXTRACT(YEAR FROM col) = 2024`: named after it only)."""
    from sqlglot import exp

    parent = lit.parent
    if isinstance(parent, exp.Binary) and not isinstance(parent, exp.Connector):
        other = parent.left if parent.right is lit else parent.right
    elif isinstance(parent, exp.In | exp.Between):
        other = parent.this
    else:
        return None, False
    if isinstance(other, exp.Column):
        return other, True
    return other.find(exp.Column), False


def _column_ref(column: exp.Column, tables: dict[str, str], snapshot: SchemaSnapshot) -> str | None:
    """`table.column` of a SQL column: by its qualifier, else the one table of the query that has it."""
    names = [tables[column.table.lower()]] if column.table and column.table.lower() in tables else (
        [] if column.table else list(dict.fromkeys(tables.values())))
    found = [t for n in names if (t := snapshot.table(n)) is not None and t.column(column.name) is not None]
    if len(found) != 1:
        return None
    table = found[0]
    real = table.column(column.name)
    assert real is not None
    return f"{table.key}.{real.name}"


def _unique(name: str, taken: Mapping[str, object]) -> str:
    name = name if _NAME.fullmatch(name) else f"p_{name}"
    out, n = name, 2
    while out in taken:
        out, n = f"{name}_{n}", n + 1
    return out
