"""JSON Schemas of the protocol's structs and the Markdown the references for people are
written with: a struct's schema on its own (``struct_schema``, ``command_args_schema``, which
``encounter.schemas`` serves), a field's type in a few words (``type_text``), and a table of an
object schema's fields (``fields_table``). ``python -m docgen`` writes the documents with them;
each ruleset's own parts (its stat block's schema, its feats or talents) are the ruleset's.
"""

from __future__ import annotations

import json
import typing
from typing import Any

import msgspec

from protocol import messages as msg

#: Fields every command has, which a form for the command's arguments leaves out.
ENVELOPE = ("type", "id", "expect_turn")


def tidy(node: Any) -> Any:
    """Descriptions in Markdown (docstrings use reST's double backquotes) on one line."""
    if isinstance(node, dict):
        return {k: (" ".join(v.replace("``", "`").split())
                    if k == "description" and isinstance(v, str) else tidy(v))
                for k, v in node.items()}
    if isinstance(node, list):
        return [tidy(v) for v in node]
    return node


def sorted_keys(node: Any) -> Any:
    """``node`` with the keys of every object in sorted order."""
    if isinstance(node, dict):
        return {k: sorted_keys(node[k]) for k in sorted(node)}
    if isinstance(node, list):
        return [sorted_keys(v) for v in node]
    return node


def struct_schema(kind: Any, drop: tuple[str, ...] = ()) -> dict[str, Any]:
    """The JSON Schema of ``kind`` on its own (its definitions in ``$defs``), without the
    fields ``drop``."""
    schema = msgspec.json.schema(kind)
    defs = schema.pop("$defs", {})
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        schema = dict(defs.pop(name))
    if drop:
        schema["properties"] = {k: v for k, v in schema["properties"].items() if k not in drop}
        schema["required"] = [k for k in schema.get("required", []) if k not in drop]
    used = _refs(schema, defs)
    out = tidy(schema)
    if used:
        out["$defs"] = tidy({k: defs[k] for k in sorted(used)})
    return out


def _refs(node: Any, defs: dict[str, Any], found: set[str] | None = None) -> set[str]:
    """The definitions ``node`` refers to, directly or through others."""
    found = set() if found is None else found
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            name = ref.rsplit("/", 1)[1]
            if name not in found:
                found.add(name)
                _refs(defs[name], defs, found)
        for v in node.values():
            _refs(v, defs, found)
    elif isinstance(node, list):
        for v in node:
            _refs(v, defs, found)
    return found


_COMMANDS = {str(c.__struct_config__.tag): c for c in typing.get_args(msg.AnyClientMessage)}


def command_args_schema(tag: str) -> dict[str, Any]:
    """The fields of the command ``tag`` but its envelope (``type``, ``id``, ``expect_turn``),
    as a JSON Schema: what a form for the command asks for."""
    return struct_schema(_COMMANDS[tag], ENVELOPE)


def merge_defs(into: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` without its ``$defs``, which go to ``into`` (the same names must be the same
    definitions)."""
    schema = dict(schema)
    for name, definition in schema.pop("$defs", {}).items():
        assert into.get(name, definition) == definition, name
        into[name] = definition
    return schema


# --- the reference for people ---------------------------------------------------------------


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in schema:
        target = defs[schema["$ref"].rsplit("/", 1)[1]]
        return {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def inner(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """A field's schema without its ``null`` alternative (and with what it refers to)."""
    schema = _resolve(schema, defs)
    if "anyOf" in schema:
        kinds = [s for s in schema["anyOf"] if s.get("type") != "null"]
        if len(kinds) == 1:
            rest = {k: v for k, v in schema.items() if k != "anyOf"}
            return {**_resolve(kinds[0], defs), **rest}
    return schema


def description_of(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    return str(inner(schema, defs).get("description", ""))


def type_text(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    """A field's type in a few words: ``integer 0-10000``, ``one of a, b``, ``list``."""
    schema = _resolve(schema, defs)
    if "x-type" in schema:
        return str(schema["x-type"])
    if "anyOf" in schema:
        kinds = [type_text(s, defs) for s in schema["anyOf"] if s.get("type") != "null"]
        return " or ".join(kinds)
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`".replace('"', "")
    if "enum" in schema:
        return "one of " + ", ".join(f"`{json.dumps(v)}`".replace('"', "") for v in
                                     schema["enum"])
    kind = str(schema.get("type", "any"))
    low, high = schema.get("minimum"), schema.get("maximum")
    if kind == "integer" and low is not None and high is not None:
        return f"integer {low}-{high}"
    if kind == "integer" and low is not None:
        return f"integer >= {low}"
    if kind == "string" and "pattern" in schema and "examples" in schema:
        return f"text like `{schema['examples'][0]}`"
    if kind == "string" and "pattern" in schema:
        return f"text matching `{schema['pattern']}`"
    if kind == "string" and "maxLength" in schema:
        return f"text (up to {schema['maxLength']})"
    if kind == "array":
        items = schema.get("items")
        if isinstance(items, dict):
            return f"list of {_plural(type_text(items, defs))}"
        if "prefixItems" in schema:
            return "[" + ", ".join(type_text(s, defs) for s in schema["prefixItems"]) + "]"
        return "list"
    if kind == "object":
        title = schema.get("title")
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and not schema.get("properties"):
            return f"mapping of name to {type_text(extra, defs)}"
        return f"object ({title})" if title else "object"
    return "true or false" if kind == "boolean" else kind


def _plural(text: str) -> str:
    if text.startswith("one of "):
        return "values " + text
    return text


def cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def default_text(schema: dict[str, Any]) -> str:
    if "default" not in schema:
        return ""
    return f"`{json.dumps(schema['default'], ensure_ascii=False)}`"


def fields_table(schema: dict[str, Any], defs: dict[str, Any], prefix: str = "") -> list[str]:
    """The fields of an object schema as a Markdown table: field, type, unit, default,
    description (a required field in bold)."""
    required = set(schema.get("required", []))
    rows = ["| field | type | unit | default | description |", "| --- | --- | --- | --- | --- |"]
    for name, field in schema.get("properties", {}).items():
        found = inner(field, defs)
        label = f"`{prefix}{name}`"
        if name in required:
            label = f"**{label}**"
        unit = str(found.get("x-unit", ""))
        rows.append(f"| {label} | {cell(type_text(field, defs))} | {unit} | "
                    f"{cell(default_text(field))} | {cell(description_of(field, defs))} |")
    return rows


__all__ = [
    "ENVELOPE",
    "cell",
    "command_args_schema",
    "default_text",
    "description_of",
    "fields_table",
    "inner",
    "merge_defs",
    "sorted_keys",
    "struct_schema",
    "tidy",
    "type_text",
]
