"""The JSON Schema of a ``snapshot``'s ``state`` and the guide's tables of it, composed from the
protocol's structs (``protocol.snapshot``: what every ruleset's view holds, as the GM and as
the others see it) and each registered ruleset's ``Declaration.view`` (the parts of the view
that are the ruleset's own).

The document (``docs/protocol/snapshot-state.schema.json``) is one alternative per ruleset and
viewer (``dramatic.gm``, ``dramatic.table``...): the protocol's fields, with the ruleset's
parts added (or, for :data:`protocol.snapshot.RULESET_PARTS`, put in place of the protocol's
empty ones) and ``ruleset`` fixed; and one per viewer for any other ruleset
(``other_ruleset.gm``...: the protocol's fields, the ruleset's own not described). The server
builds every object of it, each with every field its struct declares: each object schema
requires every field but those its struct leaves ``UNSET`` (a combatant's ``vitals``). The
published objects are open, as the protocol's other messages are (a later server of the same
protocol version may add fields); :func:`snapshot_schema` with ``closed=True`` also says
``additionalProperties: false`` everywhere, which the tests hold the server's snapshots to, so
that a field the server sends and the schema does not describe fails them.
``server-messages`` and the AsyncAPI document hold it too, under the name ``SnapshotState``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from encounter.registry import declaration, names
from protocol.reference import cell, description_of, sorted_keys, tidy, type_text
from protocol.snapshot import RULESET_PARTS, GmStateView, StateView
from protocol.version import PROTOCOL_VERSION

SNAPSHOT_SCHEMA = "snapshot-state.schema.json"
#: The name of the state's schema in the documents that hold it beside the messages.
EMBEDDED = "SnapshotState"
#: Each viewer's struct, and its words.
VIEWERS: dict[str, tuple[type[msgspec.Struct], str]] = {
    "gm": (GmStateView, "as the GM (and a `view:gm` integration) sees it"),
    "table": (StateView, "as a player or a spectator sees it"),
}
#: Objects the guide's tables leave to the references of what a GM writes.
DOCUMENTED_ELSEWHERE = {"BattleMap": "battle-map.schema.json",
                        "EncounterOptions": "options.<ruleset>.schema.json"}
_DIALECT = "https://json-schema.org/draft/2020-12/schema"


class CompositionError(Exception):
    """A ruleset's view struct redeclares a field of the protocol's that is not a ruleset's
    part (``RULESET_PARTS``)."""


def _components() -> tuple[dict[str, Any], dict[str, Any]]:
    """The protocol's and the rulesets' structs' schemas, by name."""
    structs: list[Any] = [cls for cls, _ in VIEWERS.values()]
    structs += [v for v in (declaration(r).view for r in names()) if v is not None]
    refs, defs = msgspec.json.schema_components(structs, ref_template="#/$defs/{name}")
    return dict(zip([s.__name__ for s in structs], refs, strict=True)), defs


def alternative_name(ruleset: str, viewer: str) -> str:
    return f"{ruleset}.{viewer}"


def _compose(ruleset: str, viewer: str, defs: dict[str, Any]) -> dict[str, Any]:
    """The state of an encounter of ``ruleset`` as ``viewer`` sees it."""
    struct, words = VIEWERS[viewer]
    rules = declaration(ruleset)
    base = defs[struct.__name__]
    props = dict(base["properties"])
    required = list(base["required"])
    props["ruleset"] = {**props["ruleset"], "const": ruleset}
    own = defs[rules.view.__name__] if rules.view is not None else None
    for name, field in (own or {}).get("properties", {}).items():
        if name in props and name not in RULESET_PARTS:
            raise CompositionError(f"{ruleset}: its view redeclares the protocol's {name!r}")
        props[name] = field
        if name not in required:
            required.append(name)
    described = own is not None or not rules.views
    composed: dict[str, Any] = {
        "title": f"{rules.title}, {words}",
        "description": f"A snapshot's `state` in an encounter of `{ruleset}` ({rules.title}), "
        f"{words}. {base.get('description', '')}"
        + ("" if described else " The ruleset's own parts are not described."),
        "type": "object",
        "properties": props,
        "required": required,
    }
    if not described:
        composed["additionalProperties"] = True  # (stays open when the schema is closed)
    if viewer != "gm":  # the GM's own fields tell its state from the others'
        composed["not"] = _gm_fields()
    return composed


def _gm_fields() -> dict[str, Any]:
    """A schema any state with one of the GM's own fields matches: what the others' state is
    not. Each field required is named among the properties beside it (an empty schema), as a
    strict validator asks of ``required`` (ajv's ``strictRequired``)."""
    return {"anyOf": [{"properties": {f: {}}, "required": [f]} for f in _gm_only()]}


def _gm_only() -> list[str]:
    """The fields the GM's state has and the others' have not (``unaware``, ``tokens``)."""
    others = set(StateView.__struct_fields__)
    return [f for f in GmStateView.__struct_fields__ if f not in others]


#: The alternatives of a ruleset the server registers beyond those documented.
OTHER = "other_ruleset"


def _other(viewer: str, defs: dict[str, Any]) -> dict[str, Any]:
    """The state in an encounter of a ruleset registered beyond the documented ones: the
    protocol's fields, its parts and its own not described."""
    struct, words = VIEWERS[viewer]
    base = defs[struct.__name__]
    props = {k: ({"description": v.get("description", "")} if k in RULESET_PARTS else v)
             for k, v in base["properties"].items()}
    props["ruleset"] = {**props["ruleset"], "not": {"enum": names()}}
    other: dict[str, Any] = {
        "title": f"Another ruleset, {words}",
        "description": "A snapshot's `state` in an encounter of a ruleset the server registers "
        f"beyond those above, {words}: the protocol's fields; the ruleset's parts are not "
        f"described here. {base.get('description', '')}",
        "type": "object",
        "properties": props,
        "required": list(base["required"]),
        "additionalProperties": True,
    }
    if viewer != "gm":
        other["not"] = _gm_fields()
    return other


def _complete(node: Any, closed: bool) -> Any:
    """Every object schema with ``properties`` requiring every field but those without a
    default that were not (``UNSET`` fields: sometimes left out): the server writes every
    field of the structs it sends, defaults included. ``closed``: and no other field."""
    if isinstance(node, list):
        return [_complete(v, closed) for v in node]
    if not isinstance(node, dict):
        return node
    out = {k: _complete(v, closed) for k, v in node.items()}
    props = out.get("properties")
    if isinstance(props, dict):
        if closed:
            out.setdefault("additionalProperties", False)
        elif isinstance(out.get("additionalProperties"), bool):
            del out["additionalProperties"]  # open (a struct's own schema may say false)
        given = set(out.get("required", []))
        out["required"] = [k for k, v in props.items() if k in given or "default" in v]
    return out


def state_defs(closed: bool = False) -> tuple[list[str], dict[str, Any]]:
    """The alternatives (by name) and every definition of the state's schema (``closed``: no
    field beyond those described, anywhere)."""
    _, defs = _components()
    alternatives = {alternative_name(r, v): _compose(r, v, defs)
                    for r in names() for v in VIEWERS}
    alternatives.update({alternative_name(OTHER, v): _other(v, defs) for v in VIEWERS})
    for struct in [cls for cls, _ in VIEWERS.values()]:
        defs.pop(struct.__name__)
    for r in names():
        view = declaration(r).view
        if view is not None:
            defs.pop(view.__name__, None)
    clash = set(alternatives) & set(defs)
    assert not clash, clash
    return list(alternatives), tidy(_complete({**defs, **alternatives}, closed))


def _description() -> str:
    return ("The `state` of a `snapshot` message: the whole encounter as one viewer may see "
            "it, one alternative per ruleset and viewer (the GM and `view:gm` integrations; "
            "players and spectators), told apart by `ruleset` and by the GM's own fields "
            "(`unaware`, `tokens`), and one per viewer for a ruleset the server registers "
            f"beyond these (`{OTHER}`: its own parts not described). Every object it "
            "describes has each of the fields listed (a combatant's `vitals` only where the "
            "viewer may see them); the objects are open, as the protocol's messages are: a "
            "later server of the same protocol version may add fields, which a client ignores "
            f"when it does not know them. Protocol version {PROTOCOL_VERSION}. Generated from "
            "`protocol.snapshot` and the rulesets' declarations by `python -m docgen`; do not "
            "edit.")


def snapshot_schema(closed: bool = False) -> dict[str, Any]:
    """``docs/protocol/snapshot-state.schema.json`` (``closed``: with no field beyond those
    described, anywhere: what the tests hold the server's snapshots to)."""
    alternatives, defs = state_defs(closed)
    return {
        "$schema": _DIALECT,
        "$id": f"urn:stablemaster:protocol:{PROTOCOL_VERSION}:snapshot-state",
        "title": f"Stablemaster snapshot state (protocol {PROTOCOL_VERSION})",
        "description": _description(),
        "x-protocol-version": PROTOCOL_VERSION,
        "oneOf": [{"$ref": f"#/$defs/{a}"} for a in alternatives],
        "$defs": sorted_keys(defs),
    }


def _renamed(node: Any, ref_prefix: str) -> Any:
    if isinstance(node, dict):
        out = {k: _renamed(v, ref_prefix) for k, v in node.items()}
        ref = out.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            out["$ref"] = f"{ref_prefix}{EMBEDDED}.{ref.removeprefix('#/$defs/')}"
        return out
    if isinstance(node, list):
        return [_renamed(v, ref_prefix) for v in node]
    return node


def embedded(ref_prefix: str) -> dict[str, Any]:
    """The state's schema as definitions of another document whose definitions are at
    ``ref_prefix`` (``#/$defs/``, ``#/components/schemas/``): ``SnapshotState`` and each of
    its own as ``SnapshotState.<name>``."""
    alternatives, defs = state_defs()
    out: dict[str, Any] = {EMBEDDED: {
        "title": "SnapshotState",
        "description": _description().replace(" Generated from", f" ({SNAPSHOT_SCHEMA}.) "
                                              "Generated from"),
        "oneOf": [{"$ref": f"{ref_prefix}{EMBEDDED}.{a}"} for a in alternatives],
    }}
    for name, schema in defs.items():
        out[f"{EMBEDDED}.{name}"] = _renamed(schema, ref_prefix)
    return out


def with_state(defs: dict[str, Any], ref_prefix: str) -> dict[str, Any]:
    """``defs`` (of the server messages) with ``Snapshot.state`` referring to the state's
    schema, which they take in (:func:`embedded`)."""
    out = dict(defs)
    snapshot = dict(out["Snapshot"])
    snapshot["properties"] = {**snapshot["properties"], "state": {
        "$ref": f"{ref_prefix}{EMBEDDED}",
        "description": "The encounter as this viewer may see it (`snapshot-state.schema.json`)."}}
    out["Snapshot"] = snapshot
    for name, schema in embedded(ref_prefix).items():
        assert name not in out, name
        out[name] = schema
    return out


# --- the guide's tables --------------------------------------------------------------------


def _type(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    """A field's type in a few words, ``or null`` when it may be ``null``."""
    nullable = any(s.get("type") == "null" for s in schema.get("anyOf", []))
    if schema.get("type") == "null":
        return "null"
    return type_text(schema, defs) + (" or null" if nullable else "")


def _row(name: str, schema: dict[str, Any], defs: dict[str, Any], text: str = "") -> str:
    return (f"| `{name}` | {cell(_type(schema, defs))} | "
            f"{cell(text or description_of(schema, defs))} |")


_HEAD = ["| field | type | what it is |", "| --- | --- | --- |"]


def _empty(schema: dict[str, Any]) -> str:
    if schema.get("type") == "array":
        return "`[]`"
    if schema.get("type") == "object":
        return "`{}`"
    return "`false`" if schema.get("enum") == [False] else "`null`"


def _fields(struct: type[msgspec.Struct] | None) -> list[str]:
    return [] if struct is None else [f.name for f in msgspec.structs.fields(struct)]


def _part_row(name: str, base: dict[str, Any], defs: dict[str, Any]) -> str:
    """A part of protocol 1's view that rulesets fill: what each that fills it puts there."""
    found = [(declaration(r).title, defs[alternative_name(r, "gm")]["properties"][name])
             for r in names() if name in _fields(declaration(r).view)]
    text = " ".join(f"{title}: {description_of(s, defs)}" for title, s in found)
    kinds = dict.fromkeys(_type(s, defs) for _, s in found) or [_type(base, defs)]
    return (f"| `{name}` | {cell(' or '.join(kinds))} | "
            f"{cell(f'{text} {_empty(base)} in a ruleset without it.')} |")


def state_table() -> str:
    """The guide's tables of the state: its fields (the GM's and the others', then each
    ruleset's own parts), then each object in it."""
    _, defs = state_defs()
    bases = tidy(_components()[1])
    gm, table = bases[GmStateView.__name__]["properties"], bases[StateView.__name__]["properties"]
    rows = list(_HEAD)
    for name, field in gm.items():
        if name in RULESET_PARTS:
            rows.append(_part_row(name, field, defs))
        elif name not in table:
            rows.append(_row(name, field, defs, "The GM only: " + description_of(field, defs)))
        elif table[name] != field:
            other = table[name]
            rows.append(f"| `{name}` | GM: {cell(_type(field, defs))}; others: "
                        f"{cell(_type(other, defs))} | GM: "
                        f"{cell(description_of(field, defs))} Others: "
                        f"{cell(description_of(other, defs))} |")
        else:
            rows.append(_row(name, field, defs))
    for r in names():
        props = defs[alternative_name(r, "gm")]["properties"]
        for name in _fields(declaration(r).view):
            if name not in RULESET_PARTS:
                rows.append(_row(name, props[name], defs, f"{declaration(r).title} only: "
                                 + description_of(props[name], defs)))
    out = ["\n".join(rows)]
    for name in _objects(defs):
        schema = defs[name]
        what = " ".join(str(schema.get("description", "")).split())
        lines = [f"**`{name}`**" + (f": {what}" if what else ""), "", *_HEAD]
        lines += [_row(k, v, defs) for k, v in schema["properties"].items()]
        out.append("\n".join(lines))
    return "\n\n".join(out)


def _objects(defs: dict[str, Any]) -> Iterator[str]:
    """The objects the state holds (but the alternatives themselves, and those of the GM's
    references), in the order they are first met."""
    seen: list[str] = []
    todo = [a for r in names() for a in (alternative_name(r, v) for v in VIEWERS)]
    alternatives = set(todo)

    def visit(node: Any) -> None:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                name = ref.removeprefix("#/$defs/")
                if name not in seen and name not in DOCUMENTED_ELSEWHERE:
                    seen.append(name)
                    todo.append(name)
            for v in node.values():
                visit(v)
        elif isinstance(node, list):
            for v in node:
                visit(v)

    while todo:
        visit(defs[todo.pop(0)].get("properties", {}))
    for name in seen:
        if name not in alternatives and "properties" in defs[name]:
            yield name
