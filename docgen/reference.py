"""The JSON Schemas of what a GM writes — stat blocks, the battle map, the encounter options, an
encounter file — and the stat-block reference for people (``docs/stat-blocks.md``), from the
classes that read them (``protocol.model``, ``rules.battle_map``) and each registered ruleset's
declaration (``encounter.ruleset``: its stat block's struct and schema, its options, its
commands, its reference's sections and examples). ``python -m docgen`` writes them.

Nothing here names a ruleset: a ruleset's part of each document is read from its declaration,
so a ruleset registered beyond the shipped ones is documented as they are.
"""

from __future__ import annotations

import json
import typing
from typing import Any

import msgspec
import yaml

from encounter import schemas
from encounter.gm import NO_MAP_RULING
from encounter.registry import declaration, names
from encounter.ruleset import Declaration
from protocol import messages as msg
from protocol.model import BattleMap, EncounterOptions, StatBlock
from protocol.reference import (
    ENVELOPE,
    cell,
    command_args_schema,
    fields_table,
    inner,
    merge_defs,
    sorted_keys,
    struct_schema,
    tidy,
)
from protocol.version import PROTOCOL_VERSION
from rules.sheet import Size

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
_COMMANDS = {str(c.__struct_config__.tag): c for c in typing.get_args(msg.AnyClientMessage)}


def title_of(ruleset: str) -> str:
    return declaration(ruleset).title


def has_map(rules: Declaration) -> bool:
    """Whether the server keeps a battle map in an encounter of the ruleset (``set_map`` is one
    of its commands)."""
    return msg.SetMap in rules.commands


def has_social_scenes(rules: Declaration) -> bool:
    """Whether the ruleset has social scenes (``set_social_event`` is one of its commands)."""
    return msg.SetSocialEvent in rules.commands


# --- stat blocks ----------------------------------------------------------------------------


def stats_schema(ruleset: str) -> dict[str, Any]:
    """The ``stats`` of a stat block of ``ruleset`` (``encounter.schemas``)."""
    return schemas.stats_schema(ruleset)


def stat_block_schema(ruleset: str) -> dict[str, Any]:
    """A combatant of ``ruleset`` as the GM writes it (``encounter.schemas``, which the server
    serves as ``/schemas/stat-block.<ruleset>.json``)."""
    return schemas.stat_block_schema(ruleset)


def battle_map_schema() -> dict[str, Any]:
    return struct_schema(BattleMap)


def drawing_schema() -> dict[str, Any]:
    """A battle map drawn in text, as the shipped encounter files and the web table take it."""
    walls = msgspec.json.schema(BattleMap)["$defs"]["BattleMap"]["properties"]["walls"]
    return dict(tidy({
        "title": "A drawn battle map",
        "description": "A battle map drawn one character per square, one line per row (spaces "
        "between characters and blank lines around it are ignored): `.` floor, `#` blocked, "
        "`~` difficult terrain, `=` low object, `:` fog, `%` darkness, `^` pit, `!` improved "
        "cover; letters and digits are floor (free to mark combatants). Every row is as wide "
        "as the first. Thin walls are given as `walls`.",
        "type": "object",
        "properties": {
            "drawing": {"type": "string", "minLength": 1,
                        "description": "The drawing, one line per row, from the north."},
            "walls": walls,
        },
        "required": ["drawing"],
        "additionalProperties": False,
    }))


def options_schema(ruleset: str) -> dict[str, Any]:
    """The encounter options that change something in ``ruleset``."""
    rules = declaration(ruleset)
    schema = struct_schema(EncounterOptions)
    keep = rules.encounter_options
    props = {k: v for k, v in schema["properties"].items() if k in keep}
    if rules.options is not None:
        own = merge_defs(schema.setdefault("$defs", {}), struct_schema(rules.options))
        props["ruleset_options"] = {**own, "description": schema["properties"][
            "ruleset_options"]["description"]}
    if not schema.get("$defs"):
        schema.pop("$defs", None)
    schema["properties"] = props
    schema["title"] = f"Encounter options of {rules.title}"
    other = [n for n in EncounterOptions.__struct_fields__ if n not in props]
    rulesets = "ruleset" if len(names()) == 2 else "rulesets"
    schema["description"] = (
        f"The options of an encounter of {rules.title} (`create_encounter.options`, "
        "`set_options`): each field says what it does and the ruling it follows "
        "(docs/rulings.md). Every option may be left out (its default applies). The server "
        f"also accepts the options of the other {rulesets} ({', '.join(other)}), which change "
        "nothing here; this schema refuses them, as a mistake.")
    return schema


_SOCIAL_STATEMENT = {
    "type": "object",
    "properties": {
        "size": {"enum": [s.value for s in Size], "default": "medium",
                 "description": "The statement's size (STATEMENTS)."},
        "text": {"type": "string", "maxLength": 200, "default": "",
                 "description": "What the statement says."},
    },
    "additionalProperties": False,
}


def encounter_file_schema(ruleset: str) -> dict[str, Any]:
    """An encounter file of ``ruleset`` (YAML or JSON), as shipped in ``server/examples/``
    and taken by the web table's form: a ``map`` where the ruleset keeps one, a ``social``
    set-up where it has social scenes."""
    rules = declaration(ruleset)
    defs: dict[str, Any] = {}
    block = merge_defs(defs, stat_block_schema(ruleset))
    options = merge_defs(defs, options_schema(ruleset))
    props: dict[str, Any] = {
        "name": {"type": "string", "minLength": 1, "maxLength": 120,
                 "description": "The encounter's name (`create_encounter.name`)."},
        "ruleset": {"const": ruleset, "description": "The ruleset."},
        "description": {"type": "string", "description": "A line about the scene, shown in "
                        "the list of examples; not sent to the server."},
        "options": {**options, "description": "The encounter options "
                    "(`create_encounter.options`)."},
        "combatants": {"type": "array", "maxItems": 200, "items": block,
                       "description": "The stat blocks (`create_encounter.combatants`)."},
    }
    if has_map(rules):
        map_schema = merge_defs(defs, battle_map_schema())
        defs["BattleMap"] = map_schema
        defs["DrawnMap"] = drawing_schema()
        props["map"] = {"anyOf": [{"$ref": "#/$defs/BattleMap"}, {"$ref": "#/$defs/DrawnMap"}],
                        "description": "The battle map: as `create_encounter.map` takes it, or "
                        "drawn in text."}
    if has_social_scenes(rules):
        situation = merge_defs(defs, struct_schema(_COMMANDS["set_social_situation"],
                                                   (*ENVELOPE, "combatant")))
        event = merge_defs(defs, command_args_schema("set_social_event"))
        props["social"] = {
            "type": "object",
            "description": "A social scene's set-up: `event` as `set_social_event` takes it, "
            "each combatant's situation as `set_social_situation`, and the statement each one "
            "starts with. The demo (`stablemaster serve --demo`) sends them once the encounter "
            "exists; the web table's form does not read them (the GM sets them from the "
            "console).",
            "properties": {
                "event": event,
                "situations": {"type": "object", "additionalProperties": situation,
                               "description": "By combatant id."},
                "statements": {"type": "object", "additionalProperties": _SOCIAL_STATEMENT,
                               "description": "By combatant id."},
            },
            "additionalProperties": False,
        }
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "$id": f"urn:stablemaster:protocol:{PROTOCOL_VERSION}:encounter-file.{ruleset}",
        "title": f"An encounter file of {rules.title}",
        "description": "An encounter as a file (YAML or JSON): what `server/examples/` ships "
        "and the web table's form reads. Generated from the classes that read it by `python "
        "-m docgen`; do not edit.",
        "type": "object",
        "properties": props,
        "required": ["combatants"],
        "additionalProperties": False,
        "$defs": sorted_keys(defs),
    }


def published(schema: dict[str, Any], stem: str, title: str, description: str) -> dict[str, Any]:
    """``schema`` as a document of ``docs/protocol/``: with ``$schema``, ``$id``, a title and
    a description."""
    body = {k: v for k, v in schema.items() if k not in ("title", "description")}
    return {
        "$schema": JSON_SCHEMA_DIALECT,
        "$id": f"urn:stablemaster:protocol:{PROTOCOL_VERSION}:{stem}",
        "title": title,
        "description": f"{description} Generated by `python -m docgen`; do not edit.",
        **sorted_keys(body),
    }


# --- the reference for people ---------------------------------------------------------------


#: The example battle map of the reference.
EXAMPLE_DRAWING = """\
............
....#.......
....#...~~..
..=.....~~..
........::..
....#.......
"""
EXAMPLE_MAP: dict[str, Any] = {
    "width": 8, "height": 6, "blocked": [[3, 1], [3, 2]], "walls": [[[5, 0], [5, 3]]],
    "low": [[1, 4]], "difficult": [[6, 4], [7, 4]], "fog": [[0, 0]],
}


def _yaml(data: Any) -> str:
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=90,
                          default_flow_style=None).rstrip()


def anchor(heading: str) -> str:
    """The anchor of a Markdown heading (as GitHub makes it)."""
    kept = "".join(ch for ch in heading.lower() if ch.isalnum() or ch in " -_")
    return "#" + kept.replace(" ", "-")


def ruleset_section(ruleset: str, block_schema: str) -> list[str]:
    """The section of ``docs/stat-blocks.md`` for ``ruleset``: its ``stats``, its declaration's
    own sections, an example, its encounter options. ``block_schema`` names its published
    stat-block schema file."""
    rules = declaration(ruleset)
    out = ["", f"## {rules.title}", "",
           f"`stats` of a stat block in an encounter of the ruleset `{ruleset}` "
           f"(`docs/protocol/{block_schema}`).", ""]
    schema = stats_schema(ruleset)
    defs = schema.get("$defs", {})
    out += [cell(str(schema.get("description", ""))), ""]
    out += fields_table(schema, defs, "")
    out += rules.stats_rows
    for path, sub in _nested(schema, defs):
        out += ["", f"### `{path}`", ""]
        if sub.get("description"):
            out += [cell(str(sub["description"])), ""]
        out += fields_table(sub, defs)
    out += rules.stats_sections
    if rules.example_stat_block is not None:
        out += ["", "An example (YAML):", "", "```yaml", _yaml([dict(rules.example_stat_block)]),
                "```"]
    out += ["", f"### Encounter options of {rules.title}", "",
            "`create_encounter.options` and `set_options` "
            f"(`docs/protocol/options.{ruleset}.schema.json`); each names the ruling it "
            "follows in [rulings.md](rulings.md).", ""]
    opts = options_schema(ruleset)
    out += fields_table(opts, opts.get("$defs", {}))
    for path, sub in _nested(opts, opts.get("$defs", {})):  # its own (``ruleset_options``)
        out += ["", f"#### `options.{path}`", ""]
        out += fields_table(sub, opts.get("$defs", {}))
    return out


def _example_file(example: dict[str, Any]) -> list[str]:
    """An encounter file in YAML, its map's drawing as a block."""
    keys = list(example)
    cut = keys.index("map") if "map" in example else len(keys)
    out = [_yaml({k: example[k] for k in keys[:cut]})]
    if "map" in example:
        drawn = dict(example["map"])
        out += ["map:", "  drawing: |"]
        out += [f"    {line}" for line in str(drawn.pop("drawing")).splitlines()]
        if drawn:
            out += ["  " + line for line in _yaml(drawn).splitlines()]
        rest = {k: example[k] for k in keys[cut + 1:]}
        if rest:
            out.append(_yaml(rest))
    return out


def stat_blocks_markdown(block_schemas: dict[str, str]) -> str:
    """``docs/stat-blocks.md``; ``block_schemas`` names each ruleset's published stat-block
    schema file."""
    rulesets = list(block_schemas)
    titles = [title_of(r) for r in rulesets]
    out = [
        "# Stat blocks, battle maps and encounter options",
        "",
        "Generated from the classes that read them by `python -m docgen`; do not edit. "
        "The same facts as JSON Schemas are in `docs/protocol/` "
        f"({', '.join(f'`{n}`' for n in block_schemas.values())}, `battle-map.schema.json`, "
        "`options.<ruleset>.schema.json`, `encounter-file.<ruleset>.schema.json`).",
        "",
        "A stat block is a combatant as the GM writes it: in `create_encounter.combatants` "
        "(JSON), in `create_encounter.combatants_yaml` or `add_combatant`, or in an encounter "
        "file. Its `stats` are the ruleset's. A field the server does not know is refused "
        "(`invalid_payload`, naming it); a value of the wrong kind too, and a field of a few "
        "values lists them (`stats.weapons[0].kind: Invalid enum value 'laser' (allowed: "
        "melee, ranged, thrown, natural, unarmed)`). A required field is in bold.",
        "",
        "## Contents",
        "",
        "- [Every stat block](#every-stat-block)",
        *(f"- [{t}]({anchor(t)})" for t in titles),
        "- [The battle map](#the-battle-map)",
        "- [Encounter files](#encounter-files)",
        "",
        "## Every stat block",
        "",
    ]
    block = struct_schema(StatBlock)
    out += fields_table(block, block.get("$defs", {}))
    for ruleset in rulesets:
        out += ruleset_section(ruleset, block_schemas[ruleset])
    with_map = [title_of(r) for r in rulesets if has_map(declaration(r))]
    without = [title_of(r) for r in rulesets if not has_map(declaration(r))]
    bm = battle_map_schema()
    out += ["", "## The battle map", "",
            "`create_encounter.map` and `set_map` (`docs/protocol/battle-map.schema.json`); "
            + ", ".join(f'"{t}"' for t in with_map) + " only"
            + (f" (the server keeps no map in {', '.join(without)}, ruling {NO_MAP_RULING}: "
               "a map given at creation is refused)" if without else "")
            + ".", "", cell(str(bm["description"])), ""]
    out += fields_table(bm, bm.get("$defs", {}))
    out += ["", "An example (JSON), 8 squares by 6, with a pillar, a thin wall, a crate, rubble "
            "and fog:", "", "```json", json.dumps(EXAMPLE_MAP), "```", "",
            "The shipped encounter files and the web table's form also take a map drawn in "
            "text, one character per square:", ""]
    drawn = drawing_schema()
    out += [cell(str(drawn["description"])), "", "```yaml", "map:", "  drawing: |"]
    out += [f"    {line}" for line in EXAMPLE_DRAWING.splitlines()]
    out += ["  walls: [[[7, 0], [7, 1]]]", "```", ""]
    files = [f"encounter-file.{r}.schema.json" for r in rulesets]
    out += ["## Encounter files", "",
            f"An encounter as a file, YAML or JSON (`docs/protocol/{files[0]}`"
            + "".join(f", `{f}`" for f in files[1:]) + "), as `server/examples/` "
            "ships them and the web table's form reads them:", ""]
    shown = next((r for r in rulesets if declaration(r).example_encounter is not None),
                 rulesets[0])
    ef = encounter_file_schema(shown)
    out += fields_table(ef, ef["$defs"])
    example = declaration(shown).example_encounter
    if example is not None:
        out += ["", "A short one:", "", "```yaml", *_example_file(dict(example)), "```", ""]
    return "\n".join(out)


def _nested(schema: dict[str, Any], defs: dict[str, Any],
            path: str = "") -> list[tuple[str, dict[str, Any]]]:
    """The object fields of ``schema`` (and of lists of objects), depth first, to document
    each's fields in turn."""
    found: list[tuple[str, dict[str, Any]]] = []
    for name, field in schema.get("properties", {}).items():
        kind = inner(field, defs)
        suffix = ""
        if kind.get("type") == "array" and isinstance(kind.get("items"), dict):
            kind, suffix = inner(kind["items"], defs), "[]"
        if kind.get("type") == "object" and kind.get("properties"):
            where = f"{path}{name}{suffix}"
            found.append((where, kind))
            found += _nested(kind, defs, f"{where}.")
    return found
