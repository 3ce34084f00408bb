"""A unit after a number or "in" is explained by linking, not refused as an unknown word; a
column called like a unit keeps its name, and a capitalized word after "in" stays a value."""

from __future__ import annotations

from nl2sql.reasoning.offline.catalog.index import build_index
from nl2sql.reasoning.offline.linking.linker import link
from nl2sql.reasoning.offline.words.text import tokenize
from nl2sql.schema.models import Column, SchemaSnapshot, Table


def _index():
    columns = [
        Column(name="trackId", type="INTEGER", primary_key=True),
        Column(name="trackName", type="TEXT", samples=["Ridge Loop"]),
        Column(name="lengthKm", type="REAL"),
        Column(name="points", type="INTEGER"),
        Column(name="town", type="TEXT", samples=["Oslo"]),
    ]
    table = Table(name="tblTrack", primary_key=["trackId"], columns=columns)
    return build_index(SchemaSnapshot(datasource_id="t", dialect="sqlite", tables=[table]))


def _linked(question):
    tokens = tokenize(question)
    return link(tokens, _index(), set())


def test_a_unit_after_a_number_is_explained_and_the_measure_named_without_it():
    linking = _linked("Which tracks have a length of more than 12 km?")
    assert [t.text for t in linking.units] == ["km"]
    assert not linking.unexplained
    assert any(e.column == "lengthKm" for m in linking.mentions for e in m.candidates)


def test_a_column_called_like_a_unit_keeps_its_name():
    linking = _linked("Which tracks have more than 3 points?")
    assert not linking.units
    assert any(m.candidates[0].column == "points" for m in linking.mentions)


def test_a_capitalized_word_after_in_is_no_unit():
    linking = _linked("Which tracks are in Miles?")
    assert not linking.units
    assert [t.text for t in linking.unexplained + linking.value_like][:1] == ["Miles"]


def test_a_unit_symbol_written_in_lower_case_is_a_unit():
    # pint writes kWh with a capital: `energyKwh` is an energy in kWh, "the energy" names it
    from nl2sql.reasoning.offline.words.units import dimension, is_unit

    assert is_unit("kwh") and dimension("kwh") == dimension("joules")
    assert not is_unit("amt") and not is_unit("qty")
    columns = [Column(name="sessionId", type="INTEGER", primary_key=True),
               Column(name="energyKwh", type="REAL")]
    table = Table(name="chargeSessions", primary_key=["sessionId"], columns=columns)
    idx = build_index(SchemaSnapshot(datasource_id="t", dialect="sqlite", tables=[table]))
    linking = link(tokenize("What is the total energy of all sessions?"), idx, set())
    assert any(e.column == "energyKwh" for m in linking.mentions for e in m.candidates)
