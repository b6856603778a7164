"""The values a field of a few values allows, for error messages that list them.

msgspec refuses a value outside an enum or a ``Literal`` with ``Invalid enum value 'laser' - at
`$.weapons[0].kind```; :func:`with_allowed` adds what the field allows: ``(allowed: melee,
ranged, thrown, natural, unarmed)``. :func:`allowed_at` finds those values by following the
error's path through the type.

Public API: :func:`allowed_at`, :func:`with_allowed`. Pure functions; no I/O.
"""

from __future__ import annotations

import re
from typing import Any

import msgspec.inspect as mi

_STEP = re.compile(r"\.(?P<name>[A-Za-z_][A-Za-z0-9_]*)|\[(?P<index>[^\]]*)\]")
_AT = re.compile(r" - at `\$(?P<path>[^`]*)`")
_ENUM = "Invalid enum value"


def _values(info: mi.Type) -> list[Any] | None:
    if isinstance(info, mi.Metadata):
        return _values(info.type)
    if isinstance(info, mi.EnumType):
        return [m.value for m in info.cls]
    if isinstance(info, mi.LiteralType):
        return list(info.values)
    if isinstance(info, mi.UnionType):
        for member in info.types:
            found = _values(member)
            if found is not None:
                return found
    return None


def _step(info: mi.Type, name: str | None, index: str | None) -> mi.Type | None:
    while True:
        if isinstance(info, mi.Metadata):
            info = info.type
        elif isinstance(info, mi.UnionType):
            inner = [t for t in info.types if not isinstance(t, mi.NoneType)]
            if len(inner) != 1:
                return None
            info = inner[0]
        else:
            break
    if name is not None and isinstance(info, mi.StructType | mi.DataclassType):
        for field in info.fields:
            if field.encode_name == name:
                return field.type
        return None
    if isinstance(info, mi.DictType):
        return info.value_type
    if index is not None and isinstance(info, mi.TupleType):
        try:
            return info.item_types[int(index)]
        except (ValueError, IndexError):
            return None
    if index is not None and isinstance(info, mi.ListType | mi.VarTupleType | mi.SetType
                                        | mi.FrozenSetType):
        return info.item_type
    return None


def allowed_at(kind: Any, path: str) -> list[Any] | None:
    """The values the field at ``path`` (as msgspec writes it: ``.weapons[0].kind``) of
    ``kind`` allows, when it is an enum or a ``Literal``; else ``None``."""
    info: mi.Type | None = mi.type_info(kind)
    for match in _STEP.finditer(path):
        if info is None:
            return None
        info = _step(info, match.group("name"), match.group("index"))
    return None if info is None else _values(info)


def with_allowed(message: str, kind: Any, prefix: str = "") -> str:
    """``message`` (a msgspec validation error of ``kind``) with the allowed values of the
    field it names, when it refused a value outside an enum or a ``Literal``. ``prefix``: the
    path of ``kind``'s value in the message's own path (``$.stats`` for a sheet inside a
    message)."""
    if not message.startswith(_ENUM):
        return message
    at = _AT.search(message)
    path = at.group("path") if at else ""
    if prefix and path.startswith(prefix):
        path = path[len(prefix):]
    try:
        values = allowed_at(kind, path)
    except (TypeError, ValueError):  # a type msgspec cannot describe
        values = None
    return message + allowed_text(values)


def allowed_text(values: list[Any] | None) -> str:
    """`` (allowed: a, b)`` for a list of values, ``""`` for none."""
    return f" (allowed: {', '.join(str(v) for v in values)})" if values else ""


__all__ = ["allowed_at", "allowed_text", "with_allowed"]
