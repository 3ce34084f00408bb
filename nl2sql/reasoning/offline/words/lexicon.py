"""Generic English word classes the engine reads without a schema: measure adjectives and verbs,
relation verbs and filler words.

Nothing here names a table, a column or a value of any particular database: the measure nouns
("age", "weight", "price") are matched against column words by `canon`, like any question word.

- A measure adjective names the measure it ranks or compares by: "the oldest" orders by an
  age column, "heavier than 10" compares a weight column. Its comparative and superlative forms
  come from lemminflect, not from a table here.
- A relation verb ("owned", "produced", "taught") links the entities around it; the foreign-key
  join already says how, so the verb itself needs no column.
- A filler word ("information", "records") adds nothing a plan could express.
Every other word the schema does not explain stays unexplained and the planner refuses it.
"""

from __future__ import annotations

from nl2sql.reasoning.offline.words.text import canon, inflections

# adjective stem -> measure nouns it stands for ("@date": the table's date column)
_MEASURE_ADJECTIVES: dict[str, tuple[str, ...]] = {
    "old": ("age",),
    "young": ("age",),
    "heavy": ("weight",),
    "light": ("weight",),
    "tall": ("height",),
    "short": ("height", "length", "duration"),
    "long": ("length", "duration"),
    "expensive": ("price", "cost"),
    "pricey": ("price", "cost"),
    "cheap": ("price", "cost"),
    "wide": ("width",),
    "deep": ("depth",),
    "fast": ("speed",),
    "slow": ("speed",),
    "new": ("@date",),
    "recent": ("@date",),
    "late": ("@date",),
    "early": ("@date",),
}
_LOW = {"young", "light", "short", "cheap", "slow", "early"}  # "youngest" orders ascending


def _forms(tag: str) -> dict[str, str]:
    """Inflected form -> adjective, from lemminflect ("oldest", "eldest" -> "old" for JJS)."""
    return {
        form: adj
        for adj in _MEASURE_ADJECTIVES
        for form in inflections(adj, tag)
        if form != adj and not form.startswith(("more ", "most "))
    }


_SUPERLATIVE_FORMS = _forms("JJS")
_COMPARATIVE_FORMS = _forms("JJR")


def _nouns(adjective: str) -> tuple[str, ...]:
    return tuple(n if n.startswith("@") else canon(n) for n in _MEASURE_ADJECTIVES[adjective])


#: superlative -> (measure stems, direction): "oldest" -> (("age",), "desc")
SUPERLATIVE_MEASURES: dict[str, tuple[tuple[str, ...], str]] = {
    word: (_nouns(adj), "asc" if adj in _LOW else "desc")
    for word, adj in _SUPERLATIVE_FORMS.items()
}
#: comparative -> (measure stems, operator): "heavier" -> (("weight",), ">")
COMPARATIVE_MEASURES: dict[str, tuple[tuple[str, ...], str]] = {
    word: (_nouns(adj), "<" if adj in _LOW else ">") for word, adj in _COMPARATIVE_FORMS.items()
}
#: "most expensive" / "least expensive": the adjective after most/least
PLAIN_MEASURES: dict[str, tuple[tuple[str, ...], str]] = {
    adj: (_nouns(adj), "asc" if adj in _LOW else "desc") for adj in _MEASURE_ADJECTIVES
}

#: what a measure noun measures, in pint's dimensions (`words/units.dimension`): a number
#: column in such a unit is that measure ("the heaviest" ranks by `cargo_kg`, "the longest
#: stage" by `distanceKm`, "the most expensive" by `fee_usd`)
MEASURE_DIMENSIONS: dict[str, str] = {
    canon(noun): dim
    for noun, dim in (
        ("weight", "[mass]"), ("height", "[length]"), ("length", "[length]"),
        ("width", "[length]"), ("depth", "[length]"), ("duration", "[time]"),
        ("speed", "[length] / [time]"), ("price", "currency"), ("cost", "currency"),
    )
}

#: a verb whose measure noun is another word: "how much does it cost" -> a price column. Verbs
#: whose noun is the same word ("rated" / rating, "aged" / age) need no entry: they share a stem.
MEASURE_WORDS: dict[str, tuple[str, ...]] = {canon("cost"): (canon("price"),)}

#: units after a number name the measure: "3 years old" -> age, "10 lbs" -> weight
UNITS: dict[tuple[str, ...], tuple[str, ...]] = {
    ("years", "old"): ("age",),
    ("year", "old"): ("age",),
    ("years", "of", "age"): ("age",),
    ("lbs",): ("weight",),
    ("lb",): ("weight",),
    ("pounds",): ("weight",),
    ("kg",): ("weight",),
    ("kilograms",): ("weight",),
    ("dollars",): ("price", "cost"),
}
PLACE_NOUNS = frozenset(
    "location city town country place address region area site venue birthplace".split()
)

#: verbs that relate two entities; the foreign-key join expresses them
RELATION_VERBS = frozenset(
    canon(w)
    for w in """
    own have hold keep raise produce make manufacture build design create develop publish write
    compose sing perform play direct star act host organize arrange teach take attend enroll
    register buy purchase sell order pay deliver supply provide serve treat employ hire
    work manage lead run live stay belong contain include involve cause lose win join participate
    affiliate associate assign appear release record issue sponsor fund support open found locate
    base come happen occur take use cover located stored receive get give end go borrow
    lend rent book reserve review rate follow study graduate prescribe travel depart arrive
    share award marry born see watch read listen speak submit apply admit
    """.split()
)

#: words that add nothing a plan can express ("all the information", "the records")
FILLER = frozenset(
    """
    information info details detail record records entry entries item items data result results
    corresponding respective respectively whole entire everything also too together
    exist exists existing available present currently still yet ever now listed recorded
    registered stored
    instances kinds sorts various amount amounts people person persons someone anyone those
    up
    """.split()
)
