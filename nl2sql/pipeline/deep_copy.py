"""deep_copy: `copy.deepcopy` for the values a run's state holds, without its per-object dispatch.

The trace copies every node's delta when it records it (a node mutating what it returned cannot
rewrite the recorded history). Those deltas are trees of pydantic models, dicts, lists and plain
values; `copy.deepcopy` walks them through its generic protocol (a dispatch lookup, a memo entry
and a keep-alive entry per object, pydantic's `__deepcopy__` in Python), which cost several
milliseconds of every cheap run. This walks the same trees directly and gives the same result:
immutable values are shared (as `copy.deepcopy` shares them), containers and models are new
objects, an object reached twice is copied once (the memo), and any other type goes to
`copy.deepcopy` with the same memo.
"""

from __future__ import annotations

import copy
import datetime
import decimal
import enum
import uuid
from typing import Any, TypeVar, cast

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

# Types whose values never change: copy.deepcopy returns them (or an equal twin) as they are.
_IMMUTABLE: frozenset[type] = frozenset(
    {
        str,
        int,
        float,
        bool,
        type(None),
        bytes,
        complex,
        range,
        datetime.datetime,
        datetime.date,
        datetime.time,
        datetime.timedelta,
        datetime.timezone,
        decimal.Decimal,
        uuid.UUID,
    }
)
_MODEL_DEEPCOPY = BaseModel.__deepcopy__
_T = TypeVar("_T")


def deep_copy(value: _T) -> _T:
    """A deep copy of `value`, equal to `copy.deepcopy(value)`."""
    return cast(_T, _copy(value, {}))


def _copy(value: Any, memo: dict[int, Any]) -> Any:
    kind = type(value)
    if kind in _IMMUTABLE or isinstance(value, enum.Enum):
        return value
    done = memo.get(id(value))
    if done is not None:
        return done
    if kind is dict:
        out: Any = {}
        memo[id(value)] = out
        for key, item in value.items():
            out[_copy(key, memo)] = _copy(item, memo)
        return out
    if kind is list:
        out = []
        memo[id(value)] = out
        out.extend(_copy(item, memo) for item in value)
        return out
    if kind is tuple:
        items = tuple(_copy(item, memo) for item in value)
        # copy.deepcopy returns a tuple of immutable items itself, not a new one
        out = value if all(a is b for a, b in zip(items, value, strict=True)) else items
        memo[id(value)] = out
        return out
    if isinstance(value, BaseModel) and kind.__deepcopy__ is _MODEL_DEEPCOPY:
        return _copy_model(value, memo)
    return copy.deepcopy(value, memo)


def _copy_model(model: BaseModel, memo: dict[int, Any]) -> BaseModel:
    """What pydantic's `BaseModel.__deepcopy__` does, with this module's walk for the fields."""
    kind = type(model)
    out = kind.__new__(kind)
    memo[id(model)] = out
    setattr_ = object.__setattr__
    setattr_(out, "__dict__", _copy(model.__dict__, memo))
    setattr_(out, "__pydantic_extra__", _copy(model.__pydantic_extra__, memo))
    setattr_(out, "__pydantic_fields_set__", set(model.__pydantic_fields_set__))
    private = getattr(model, "__pydantic_private__", None)
    if private is None:
        setattr_(out, "__pydantic_private__", None)
    else:
        # pydantic leaves out private attributes that were never set; so does its deep copy
        kept = {k: v for k, v in private.items() if v is not PydanticUndefined}
        setattr_(out, "__pydantic_private__", _copy(kept, memo))
    return out
