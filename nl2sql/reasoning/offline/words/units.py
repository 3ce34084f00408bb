"""Units of measure, in identifiers (`weight_kg`, `duration_min`, `priceUsd`) and in questions
("over 120 kph", "the distance in km").

The knowledge comes from libraries, not a list here: pint's unit registry knows the physical
units (with their prefixes, plurals and symbols: "kg", "km", "kph", "hrs") and babel's CLDR
data the ISO 4217 currency codes and their English names ("usd", "dollars", "euros"). Both load
on the first word that needs them (pint's registry takes a couple of seconds to build), never
at import.

A word counts as a unit only where it can be one:
- not a function word ("in" is an inch to pint), not a single letter ("m", "s");
- not a dimensionless "unit" (pint's "count", "percent", "degree"): `item_count` is a count of
  items, not items measured in counts;
- an English noun only in the plural: `age_years` is an age in years, `distance_miles` a distance in
  miles, but `fiscal_year` is the year of a fiscal period and `plays_in_league` no number of
  leagues (pint knows "league", "point", "stone", "cup" as units; in the singular they are far
  more often the nouns they are). Symbols ("km", "mph") and currency codes are no such nouns.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

from nl2sql.reasoning.offline.words.text import STOP, noun_lemmas, parts_of_speech


@cache
def _registry() -> Any:
    """pint's default unit registry (built once, on the first question that needs it). Its parsed
    definitions are cached in the user's cache folder (a third of a second less CPU in every
    later process); where that folder cannot be written, or another process is writing the file
    at that moment (pint writes it in place, so a reader can see half a pickle), the registry is
    built without it."""
    import pint

    try:
        return pint.UnitRegistry(cache_folder=":auto:")
    except Exception:  # OSError, or EOFError / UnpicklingError from a cache file being written
        return pint.UnitRegistry()


@cache
def _currencies() -> tuple[frozenset[str], frozenset[str]]:
    """(codes, names): the ISO 4217 codes of the currencies in use, lower case ("usd", "eur"),
    and the last words of their English names ("dollars", "euros"). A code that is an English
    word too ("top", "try", "cup") is left out, and so is a name that is a verb or an adjective
    as well ("won", "real", "marks"): read as units they would hide a word of the question."""
    from babel.core import get_global
    from babel.numbers import get_currency_name, get_territory_currencies

    in_use = {
        code
        for territory in get_global("territory_currencies")
        for code in get_territory_currencies(territory, tender=True, non_tender=False)
    }
    codes = {c.lower() for c in in_use if not parts_of_speech(c.lower())}
    names = {
        get_currency_name(code, count=count, locale="en").split()[-1].lower()
        for code in in_use
        for count in (1, 2)
    }
    names = {n for n in names if n.isalpha() and parts_of_speech(n) <= {"NOUN"}}
    return frozenset(codes), frozenset(names - STOP)


@lru_cache(maxsize=8192)
def is_unit(word: str) -> bool:
    """Whether `word` names a unit of measure or a currency ("kg", "km", "kph", "usd")."""
    low = word.lower()
    if len(low) < 2 or low in STOP or not low.isalpha():
        return False
    codes, names = _currencies()
    return low in codes or low in names or _physical_unit(low)


def is_currency_code(word: str) -> bool:
    """Whether `word` is the ISO 4217 code of a currency in use ("USD", "eur")."""
    return word.lower() in _currencies()[0]


def _symbol(low: str) -> str | None:
    """How pint writes the unit an identifier spells in lower case: itself, or with the one
    capital its symbol has (`kwh`: kWh, `kpa`: kPa, `mbps`: Mbps); None when it is none."""
    ureg = _registry()
    if low in ureg:
        return low
    if len(low) < 3:
        return None  # "cd" is a code, not a candela
    return next((v for i in range(len(low)) if (v := low[:i] + low[i].upper() + low[i + 1:])
                 in ureg), None)


def _physical_unit(low: str) -> bool:
    ureg = _registry()
    try:
        symbol = _symbol(low)
        if symbol is None:
            return False
        low = symbol
        ureg.get_name(low)  # raises for some names pint lists but cannot define
        dimensionless = bool(ureg.get_dimensionality(low) == ureg.get_dimensionality(""))
    except Exception:  # pint refuses some names it lists (odd definitions): not a unit then
        return False
    if dimensionless:
        return False
    lemmas = noun_lemmas(low)  # "years" yes, "year" no ("minutes" is also a noun of its own)
    return not lemmas or any(lemma != low for lemma in lemmas)


@lru_cache(maxsize=8192)
def dimension(word: str) -> str | None:
    """What a unit measures, as pint writes it ("kg": "[mass]", "km": "[length]", "kph":
    "[length] / [time]"), "currency" for a currency; None for a word that is no unit."""
    if not is_unit(word):
        return None
    low = word.lower()
    codes, names = _currencies()
    if low in codes or low in names:
        return "currency"
    try:
        return str(_registry().get_dimensionality(_symbol(low) or low))
    except Exception:  # as in `_physical_unit`: a name pint lists but cannot define
        return None


def without_unit(words: list[str]) -> list[str] | None:
    """The words of an identifier without a unit at its end (`distance_km` -> ["distance"]); None
    when the last word is no unit or nothing would be left."""
    if len(words) < 2 or not is_unit(words[-1]):
        return None
    rest = words[:-1]
    return rest if any(w not in STOP for w in rest) else None
