"""Copies of plain data that share what is never changed in place.

``copier(cls)`` makes a function that copies a msgspec struct of type ``cls`` as the struct's
declared types say: a frozen struct, a string, a number, ``None`` and a tuple of those are the
same objects in the copy (nothing changes them: a change replaces them); a list, a mapping and
a struct that is not frozen are new ones, and what they hold is copied the same way. A field
typed ``Any`` is copied by what it holds (``deep``). The function is written out once per type
as straight-line code, so that a copy costs an attribute read and write per field, and a
comprehension per container that holds something mutable, with no interpretation of the types
at each copy.

This is what lets the decider work on a copy of the state without encoding and decoding it
(``encounter.state.copy_state``): the copy and the original share nothing that either may
change in place.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import msgspec
import msgspec.inspect as mi

#: The types whose values are never changed in place.
_SCALARS = (mi.StrType, mi.IntType, mi.FloatType, mi.BoolType, mi.NoneType, mi.BytesType,
            mi.LiteralType, mi.EnumType, mi.DateTimeType, mi.DateType, mi.TimeType,
            mi.TimeDeltaType, mi.UUIDType, mi.DecimalType, mi.FrozenSetType)


def deep(value: Any) -> Any:
    """A copy of ``value`` (plain data of unknown type) that shares nothing mutable with it:
    the copy of a field typed ``Any``."""
    kind = type(value)
    if kind is dict:
        return {k: deep(v) for k, v in value.items()}
    if kind is list:
        return [deep(v) for v in value]
    if kind is tuple:
        return tuple(deep(v) for v in value)
    if kind is set:
        return {deep(v) for v in value}
    if isinstance(value, msgspec.Struct) and not kind.__struct_config__.frozen:
        return copier(kind)(value)
    if isinstance(value, bytearray):
        return bytearray(value)
    return value


class _Writer:
    """Writes the source of the copy functions of one struct type (and of the struct types
    it holds, as functions of their own)."""

    def __init__(self) -> None:
        self.env: dict[str, Any] = {"_deep": deep}
        self.names = itertools.count()

    def bind(self, value: Any) -> str:
        name = f"_v{next(self.names)}"
        self.env[name] = value
        return name

    def expr(self, t: mi.Type, src: str, depth: int = 0) -> str | None:
        """An expression that copies ``src`` of type ``t``, or ``None`` when the value is
        shared."""
        if isinstance(t, mi.Metadata):  # (constraints: the value's type is what counts)
            return self.expr(t.type, src, depth)
        if isinstance(t, _SCALARS):
            return None
        if isinstance(t, mi.StructType):
            if t.cls.__struct_config__.frozen:
                return None
            return f"{self.bind(copier(t.cls))}({src})"
        v = f"_x{depth}"
        if isinstance(t, mi.ListType):
            inner = self.expr(t.item_type, v, depth + 1)
            # (an empty one is not handed to a comprehension: most of them are empty)
            return f"{src}[:]" if inner is None else \
                f"([{inner} for {v} in {src}] if {src} else [])"
        if isinstance(t, mi.SetType):
            inner = self.expr(t.item_type, v, depth + 1)
            return f"set({src})" if inner is None else f"{{{inner} for {v} in {src}}}"
        if isinstance(t, mi.DictType):
            inner = self.expr(t.value_type, v, depth + 1)
            k = f"_k{depth}"
            return (f"{src}.copy()" if inner is None
                    else f"({{{k}: {inner} for {k}, {v} in {src}.items()}} if {src} else {{}})")
        if isinstance(t, mi.TupleType | mi.VarTupleType):
            items = t.item_types if isinstance(t, mi.TupleType) else (t.item_type,)
            if all(self.expr(i, v, depth + 1) is None for i in items):
                return None
            return f"_deep({src})"
        if isinstance(t, mi.UnionType):
            copied = [u for u in t.types if self.expr(u, v, depth + 1) is not None]
            if not copied:
                return None
            if len(copied) == 1 and all(isinstance(u, mi.NoneType) for u in t.types
                                        if u is not copied[0]):
                inner = self.expr(copied[0], src, depth + 1)
                return f"(None if {src} is None else {inner})"
            return f"_deep({src})"
        return f"_deep({src})"  # Any, and whatever else: by what it holds


_COPIERS: dict[type, Callable[[Any], Any]] = {}


def copier(cls: type[msgspec.Struct]) -> Callable[[Any], Any]:
    """The function that copies a struct of type ``cls`` (see the module's docstring)."""
    found = _COPIERS.get(cls)
    if found is not None:
        return found
    # (a struct that holds itself, through a list say, finds its function here while it is
    # being written)
    _COPIERS[cls] = lambda value: _COPIERS[cls](value)
    try:
        made = _write(cls)
    except BaseException:
        del _COPIERS[cls]
        raise
    _COPIERS[cls] = made
    return made


def _write(cls: type[msgspec.Struct]) -> Callable[[Any], Any]:
    writer = _Writer()
    info = mi.type_info(cls)
    assert isinstance(info, mi.StructType)
    lines = ["def copy_struct(s):", "    c = s.__copy__()"]
    for field in info.fields:
        expr = writer.expr(field.type, f"s.{field.name}")
        if expr is not None:
            lines.append(f"    c.{field.name} = {expr}")
    lines.append("    return c")
    exec("\n".join(lines), writer.env)  # (source written above from the fields' types)
    made: Callable[[Any], Any] = writer.env["copy_struct"]
    made.__qualname__ = made.__name__ = f"copy_{cls.__name__}"
    return made
