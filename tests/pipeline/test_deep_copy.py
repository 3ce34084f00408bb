"""deep_copy gives what copy.deepcopy gives for the values a run's state holds."""

from __future__ import annotations

import copy
import datetime
import enum
from decimal import Decimal

from pydantic import BaseModel, PrivateAttr

from nl2sql.pipeline.deep_copy import deep_copy


class Colour(enum.Enum):
    RED = "red"


class Cell(BaseModel):
    label: str
    tags: list[str] = []
    _seen: list[int] = PrivateAttr(default_factory=list)


class Sheet(BaseModel):
    cells: list[Cell]
    by_name: dict[str, Cell]
    shape: tuple[int, int]
    corner: tuple[Cell, ...] = ()
    colour: Colour = Colour.RED
    when: datetime.date = datetime.date(2024, 5, 1)
    amount: Decimal = Decimal("1.50")
    extra_ids: set[int] = set()


def _sheet() -> Sheet:
    shared = Cell(label="a", tags=["x"])
    shared._seen.append(1)
    return Sheet(cells=[shared, Cell(label="b")], by_name={"a": shared}, shape=(2, 1),
                 corner=(shared,), extra_ids={3, 4})


def test_the_copy_equals_copy_deepcopy_and_shares_nothing_mutable() -> None:
    sheet = _sheet()
    state = {"sheet": sheet, "notes": [{"k": [1, 2]}], "pair": ("s", 1)}
    mine, theirs = deep_copy(state), copy.deepcopy(state)
    assert mine == theirs == state
    assert mine["sheet"].cells[0]._seen == [1]
    assert mine["sheet"].model_fields_set == sheet.model_fields_set
    assert mine["pair"] is state["pair"]  # a tuple of immutable values is kept, as deepcopy keeps it
    copied = mine["sheet"]
    copied.cells[0].tags.append("changed")
    copied.cells[0]._seen.append(2)
    copied.extra_ids.add(5)
    mine["notes"][0]["k"].append(3)
    assert sheet.cells[0].tags == ["x"] and sheet.cells[0]._seen == [1]
    assert sheet.extra_ids == {3, 4} and state["notes"] == [{"k": [1, 2]}]


def test_an_object_reached_twice_is_copied_once() -> None:
    copied = deep_copy(_sheet())
    first = copied.cells[0]
    assert first is not _sheet().cells[0]
    assert copied.by_name["a"] is first and copied.corner[0] is first
    first.tags.append("y")
    assert copied.by_name["a"].tags == ["x", "y"]
