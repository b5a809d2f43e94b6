"""A block of the numbers and its plain form (`analyze --json`): the frozen dataclass every block of
StudyNumbers is (annotate.results.blocks), how the numbers build one from what analysis/ computed (`of`,
`of_result`, `with_`), the one serialiser (to_dict) and its reading back (from_dict).

Many keys of the plain form are there only sometimes (a `reason` when a number is missing, `cs` when pairs
are complete, `target_width` when one is set), and some are there with the value null, so a block keeps the
keys its plain form has (`present`, in their order): to_dict gives exactly those back. A block made in code
without `present` prints every field that is not None; one made by `of` keeps the keys it was given, in
their order. Field types drive from_dict: a nested Block is read by its own from_dict, a tuple from a list,
a dict value by its type; an Interval from its two ends, a Reason from its sentence."""
from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any, TypeVar, get_args, get_origin

from fairval.analysis.interval import Interval
from fairval.analysis.reasons import Reason, as_reason

B = TypeVar("B", bound="Block")


@dataclass(frozen=True)
class Block:
    """A frozen block of the numbers with its plain form's keys (see the module's docstring)."""
    present: tuple[str, ...] = field(default=(), kw_only=True, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in _intervals(type(self)):         # an interval given as its two ends becomes one
            ends = getattr(self, name)
            if ends is not None and not isinstance(ends, Interval):
                object.__setattr__(self, name, Interval.of(ends))
        # a block's `valid` says what its interval is worth when that is less than its name says: the
        # interval carries it as its guarantee
        ci, valid = getattr(self, "ci", None), getattr(self, "valid", None)
        if isinstance(ci, Interval) and valid and ci.guarantee is None:
            object.__setattr__(self, "ci", dataclasses.replace(ci, guarantee=valid))

    def to_dict(self) -> dict[str, Any]:
        return {k: _plain(v) for k, v in self.keyed().items()}

    def keyed(self) -> dict[str, Any]:
        """The keys its plain form has, in their order, each with its typed value (a block stays a block)."""
        named = _fields(type(self))
        keys = self.present or tuple(k for k, f in named.items() if getattr(self, f) is not None)
        return {k: getattr(self, named[k]) for k in keys}

    def has(self, name: str) -> bool:
        """Whether the plain form has this key (some are there with the value null, some not at all)."""
        return name in self.present if self.present else getattr(self, _fields(type(self))[name]) is not None

    @classmethod
    def of(cls: type[B], **values: Any) -> B:
        """A block made in code from what analysis/ computed, under its plain form's keys (`lambda` for
        lambda_), which are the ones printed, in the order given. Numbers become Python's (numpy scalars
        as int or float, NaN as None), lists tuples where the field is one; a nested block must be given
        as a block (a plain dict there is a TypeError: the numbers are typed where they are made)."""
        named, hints = _fields(cls), _hints(cls)
        unknown = [k for k in values if k not in named]
        if unknown:
            raise TypeError(f"{cls.__name__} has no field(s) {sorted(unknown)}")
        return cls(**{named[k]: typed(hints[named[k]], v) for k, v in values.items()}, present=tuple(values))

    @classmethod
    def of_result(cls: type[B], result: Any, **nested: Any) -> B:
        """A block from an analysis/ result object (a frozen dataclass), field for field; `reason` only
        when there is one (the plain form has it only then); `nested`: its fields that are blocks here."""
        return cls.of(**{**result_fields(result), **nested})

    def with_(self: B, **values: Any) -> B:
        """This block with some keys set as a dict's update sets them: a key it has keeps its place, a new
        one goes last."""
        named, hints = _fields(type(self)), _hints(type(self))
        unknown = [k for k in values if k not in named]
        if unknown:
            raise TypeError(f"{type(self).__name__} has no field(s) {sorted(unknown)}")
        keys = tuple(self.keyed())
        return dataclasses.replace(self, **{named[k]: typed(hints[named[k]], v) for k, v in values.items()},
                                   present=keys + tuple(k for k in values if k not in keys))

    @classmethod
    def from_dict(cls: type[B], d: Mapping[str, Any]) -> B:
        named = _fields(cls)
        unknown = [k for k in d if k not in named]
        if unknown:
            raise ValueError(f"{cls.__name__} has no field(s) {sorted(unknown)}")
        hints = typing.get_type_hints(cls)
        return cls(**{named[k]: _typed(hints[named[k]], v) for k, v in d.items()}, present=tuple(d))


def key(name: str) -> Any:
    """A field whose plain form's key is not a Python name (`lambda`), None unless given."""
    return field(default=None, metadata={"key": name})


def _fields(cls: Any) -> dict[str, str]:
    """The plain form's key -> the field's name, in the fields' order."""
    return {f.metadata.get("key", f.name): f.name for f in fields(cls) if f.name != "present"}


def result_fields(result: Any) -> dict[str, Any]:
    """An analysis/ result's fields in their order, without a `reason` that is None."""
    return {f.name: getattr(result, f.name) for f in fields(result)
            if not (f.name == "reason" and getattr(result, f.name) is None)}


_HINTS: dict[type, dict[str, Any]] = {}          # a block's field types, read once per class


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        _HINTS[cls] = typing.get_type_hints(cls)
    return _HINTS[cls]


def _intervals(cls: type) -> tuple[str, ...]:
    """The fields of a block that hold an interval."""
    return tuple(name for name, hint in _hints(cls).items() if Interval in (hint, *get_args(hint)))


def typed(hint: Any, value: Any) -> Any:
    """A value computed by analysis/ as the field typed `hint` holds it (see Block.of)."""
    if value is None:
        return None
    origin, args = get_origin(hint), get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return typed(next(a for a in args if a is not type(None)), value)
    if hint is Interval:
        return Interval.of(scalar(list(value)) if not isinstance(value, Interval) else value)
    if hint is Reason:
        return as_reason(value)
    if isinstance(hint, type) and issubclass(hint, Block):
        if not isinstance(value, hint):
            raise TypeError(f"a block of type {hint.__name__} is needed, not {type(value).__name__}")
        return value
    if origin is tuple:
        return tuple(typed(args[0], v) for v in value)
    if origin is dict:
        return {str(k): typed(args[1], v) for k, v in value.items()}
    return scalar(value)


def scalar(value: Any) -> Any:
    """Python's own numbers (numpy's as int or float, NaN as None), in lists and dicts too."""
    if isinstance(value, dict):
        return {str(k): scalar(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [scalar(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _typed(hint: Any, value: Any) -> Any:
    if value is None:
        return None
    origin, args = get_origin(hint), get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return _typed(next(a for a in args if a is not type(None)), value)
    if hint is Interval:
        return Interval.of(value)
    if hint is Reason:
        return as_reason(value)
    if isinstance(hint, type) and issubclass(hint, Block):
        return hint.from_dict(value)
    if origin is tuple:
        return tuple(_typed(args[0], v) for v in value)
    if origin is dict:
        return {k: _typed(args[1], v) for k, v in value.items()}
    return value


def _plain(value: Any) -> Any:
    """The one serialiser of the numbers' blocks: a block as its keys, an interval as [low, high]."""
    if isinstance(value, Block):
        return value.to_dict()
    if isinstance(value, Interval):
        return value.to_list()
    if isinstance(value, Reason):
        return str(value)                   # its English, made here at the edge
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value
