"""The values a field of a few values allows, for error messages that list them.

msgspec refuses a value outside an enum or a ``Literal`` with ``Invalid enum value 'laser' - at
`$.weapons[0].kind```; :func:`with_allowed` adds what the field allows: ``(allowed: melee,
ranged, thrown, natural, unarmed)``. :func:`allowed_at` finds those values by following the
error's path through the type.

:func:`in_words` says a msgspec refusal as a sentence for people (``Expected `array` of length
>= 1`` is "must list at least 1 item"), for the refusals a person at a table can cause.

Public API: :func:`allowed_at`, :func:`with_allowed`, :func:`in_words`,
:func:`command_refusal`. Pure functions; no I/O.
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


#: msgspec's names of JSON types, for people.
_TYPE_WORDS = {"int": "a whole number", "float": "a number", "number": "a number",
               "str": "text", "array": "a list", "object": "an object", "bool": "true or false",
               "null": "nothing (null)"}
_BOUNDS = {">=": "at least", "<=": "at most", ">": "more than", "<": "less than"}
_WRONG_TYPE = re.compile(r"^Expected `(?P<want>[^`]+)`, got `(?P<got>[^`]+)`$")
_NUMBER = re.compile(r"^Expected `(?:int|float|number)` (?P<op>>=|<=|>|<) (?P<n>-?[\d.e+]+)$")
_LENGTH = re.compile(r"^Expected `(?P<kind>array|str|object)` of length (?P<op>>=|<=) "
                     r"(?P<n>\d+)$")
_MISSING = re.compile(r"^Object missing required field `(?P<name>[^`]+)`$")
_UNKNOWN = re.compile(r"^Object contains unknown field `(?P<name>[^`]+)`$")
_BAD_ENUM = re.compile(r"^Invalid enum value (?P<value>.+)$")


def _type_words(names: str) -> str:
    parts = [_TYPE_WORDS.get(n.strip(), n.strip()) for n in names.split("|")]
    return " or ".join(dict.fromkeys(parts))


def in_words(reason: str) -> str:
    """A msgspec refusal (without its `` - at `$...``` part) as words: "must be a whole
    number, not text", "must list at least 1 item", "is required"; one it does not know, as
    it is."""
    if m := _WRONG_TYPE.match(reason):
        return f"must be {_type_words(m['want'])}, not {_type_words(m['got'])}"
    if m := _NUMBER.match(reason):
        return f"must be {_BOUNDS[m['op']]} {m['n']}"
    if m := _LENGTH.match(reason):
        n, bound = int(m["n"]), _BOUNDS[m["op"]]
        what = {"array": "item", "str": "character", "object": "entry"}[m["kind"]]
        plural = "" if n == 1 else ("ies" if what == "entry" else "s")
        noun = ("entr" if what == "entry" and n != 1 else what) + plural
        verb = {"array": "must list", "str": "must be", "object": "must hold"}[m["kind"]]
        return f"{verb} {bound} {n} {noun}" + (" long" if m["kind"] == "str" else "")
    if m := _MISSING.match(reason):
        return f"needs {m['name']}"
    if m := _UNKNOWN.match(reason):
        return f"has no field {m['name']}"
    if m := _BAD_ENUM.match(reason):
        return f"{m['value']} is not one of the values it takes"
    return reason


def command_refusal(text: str, kind: Any, name: str) -> str:
    """A command's refusal by msgspec (``text``, of the message type ``kind`` named ``name``)
    in words, naming the field (``faces must list at least 1 item``; ``the end_encounter
    command needs reason``), with the values allowed where they are few. A stat block's or a
    map's refusals (``create_encounter``'s ``combatants``, ``map``) keep msgspec's own words,
    which name the field and the type as a file's author reads them."""
    at = _AT.search(text)
    path = at.group("path") if at else ""
    if path.startswith((".combatants", ".map")):
        return with_allowed(text, kind)
    reason = _AT.sub("", text)
    allowed = with_allowed(text, kind)[len(text):]
    where = path.lstrip(".") or f"the {name} command"
    return f"{where} {in_words(reason)}{allowed}"


__all__ = ["allowed_at", "allowed_text", "command_refusal", "in_words", "with_allowed"]
