"""The JSON Schemas of what a GM writes — stat blocks, the battle map, the encounter options, an
encounter file — and the stat-block reference for people (``docs/stat-blocks.md``), from the
classes that read them (``rules.sheet``, ``rules.action_time.sheet``, ``rules.social.sheet``,
``rules.battle_map``, ``protocol.model``). ``python -m protocol.docs`` writes them.

Public API: :data:`RULESETS`, :func:`struct_schema`, :func:`command_args_schema`,
:func:`stats_schema`, :func:`stat_block_schema`, :func:`battle_map_schema`,
:func:`options_schema`, :func:`encounter_file_schema`, :func:`type_text`,
:func:`stat_blocks_markdown`, :data:`EXAMPLE_BLOCKS`, :data:`EXAMPLE_MAP`.
"""

from __future__ import annotations

import json
import typing
from typing import Any

import msgspec
import yaml

from protocol import messages as msg
from protocol.model import OPTION_TEXT, RULESET_OPTIONS, BattleMap, EncounterOptions, StatBlock
from protocol.version import PROTOCOL_VERSION
from rules.action_time import sheet as at_sheet
from rules.action_time.sheet import TALENTS as AT_TALENTS
from rules.sheet import FEATS, SPECIES, Sheet, Size
from rules.social.sheet import SocialSheet

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
RULESETS = ("dramatic", "action_time")
TITLES = {"dramatic": "MLP Dramatic Systems", "action_time": "Action Time"}
#: Fields every command has, which a form for the command's arguments leaves out.
ENVELOPE = ("type", "id", "expect_turn")


def _tidy(node: Any) -> Any:
    """Descriptions in Markdown (docstrings use reST's double backquotes) on one line."""
    if isinstance(node, dict):
        return {k: (" ".join(v.replace("``", "`").split())
                    if k == "description" and isinstance(v, str) else _tidy(v))
                for k, v in node.items()}
    if isinstance(node, list):
        return [_tidy(v) for v in node]
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
    out = _tidy(schema)
    if used:
        out["$defs"] = _tidy({k: defs[k] for k in sorted(used)})
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


def _merge_defs(into: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` without its ``$defs``, which go to ``into`` (the same names must be the same
    definitions)."""
    schema = dict(schema)
    for name, definition in schema.pop("$defs", {}).items():
        assert into.get(name, definition) == definition, name
        into[name] = definition
    return schema


# --- stat blocks ----------------------------------------------------------------------------


_DIE = {
    "x-type": "a die: `d4`, `d6`, `d8`, `d10`, `d12` or `d20`",
    "anyOf": [
        {"type": "string", "pattern": "^\\s*1?[dD](4|6|8|10|12|20)\\s*$"},
        {"type": "integer", "enum": [4, 6, 8, 10, 12, 20]},
    ],
}


def stats_schema(ruleset: str) -> dict[str, Any]:
    """The ``stats`` of a stat block of ``ruleset``."""
    if ruleset == "dramatic":
        schema = struct_schema(Sheet)
        defs = schema.pop("$defs", {})
        social = _merge_defs(defs, struct_schema(SocialSheet))
        schema["properties"]["social"] = {
            **social, "description": schema["properties"]["social"]["description"]}
        schema["description"] = (
            'The statistics of a "MLP Dramatic Systems" combatant (a stat block\'s `stats`). '
            "Every field is optional: `stats: {}` is a Medium creature with every ability "
            "score 10. A field not listed here is refused, naming it. Numbers are within "
            "-1000000 and 1000000.")
        schema["$defs"] = defs
        return schema
    schema = struct_schema(at_sheet.Sheet)
    props = {k: v for k, v in schema["properties"].items() if k != "abilities"}
    props["body"] = {**_DIE, "description": "The Body die, required: `d4`, `d6`, `d8`, "
                     "`d10`, `d12` or `d20` (`\"D8\"`, `\"1d8\"` or `8` too). Initiative is a "
                     "Body test (R31)."}
    schema.update({
        "title": "Action Time stats",
        "description": "The statistics of an \"Action Time\" combatant (a stat block's "
        "`stats`). Every key that is not one of the fields below is an ability and its die "
        "(`mind: d6`, `cunning: d10`; the text names Body and Mind, any others may be "
        "added); `body` is required. A weapon's or spell's `ability` must be one of them. "
        "Numbers are within -1000000 and 1000000.",
        "properties": props,
        "required": ["body"],
        "additionalProperties": {**_DIE, "description": "Another ability's die."},
    })
    return schema


def stat_block_schema(ruleset: str) -> dict[str, Any]:
    """A combatant of ``ruleset`` as the GM writes it: a ``StatBlock`` whose ``stats`` are the
    ruleset's."""
    schema = struct_schema(StatBlock)
    defs = schema.pop("$defs", {})
    stats = _merge_defs(defs, stats_schema(ruleset))
    schema["properties"]["stats"] = {**stats, "default": {}}
    schema["title"] = f"A stat block of {TITLES[ruleset]}"
    if defs:
        schema["$defs"] = defs
    return schema


def battle_map_schema() -> dict[str, Any]:
    return struct_schema(BattleMap)


def drawing_schema() -> dict[str, Any]:
    """A battle map drawn in text, as the shipped encounter files and the web table take it."""
    walls = msgspec.json.schema(BattleMap)["$defs"]["BattleMap"]["properties"]["walls"]
    return _tidy({
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
    })


def options_schema(ruleset: str) -> dict[str, Any]:
    """The encounter options that change something in ``ruleset``."""
    schema = struct_schema(EncounterOptions)
    keep = RULESET_OPTIONS[ruleset]
    schema["properties"] = {k: v for k, v in schema["properties"].items() if k in keep}
    schema["title"] = f"Encounter options of {TITLES[ruleset]}"
    other = [n for n in EncounterOptions.__struct_fields__ if n not in keep]
    schema["description"] = (
        f"The options of an encounter of {TITLES[ruleset]} (`create_encounter.options`, "
        "`set_options`): each field says what it does and the ruling it follows "
        "(docs/rulings.md). Every option may be left out (its default applies). The server "
        f"also accepts the options of the other ruleset ({', '.join(other)}), which change "
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
    and taken by the web table's form."""
    defs: dict[str, Any] = {}
    block = _merge_defs(defs, stat_block_schema(ruleset))
    options = _merge_defs(defs, options_schema(ruleset))
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
    if ruleset == "dramatic":
        map_schema = _merge_defs(defs, battle_map_schema())
        defs["BattleMap"] = map_schema
        defs["DrawnMap"] = drawing_schema()
        props["map"] = {"anyOf": [{"$ref": "#/$defs/BattleMap"}, {"$ref": "#/$defs/DrawnMap"}],
                        "description": "The battle map: as `create_encounter.map` takes it, or "
                        "drawn in text."}
        situation = _merge_defs(defs, struct_schema(_COMMANDS["set_social_situation"],
                                                    (*ENVELOPE, "combatant")))
        event = _merge_defs(defs, command_args_schema("set_social_event"))
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
        "title": f"An encounter file of {TITLES[ruleset]}",
        "description": "An encounter as a file (YAML or JSON): what `server/examples/` ships "
        "and the web table's form reads. Generated from the classes that read it by `python "
        "-m protocol.docs`; do not edit.",
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
        "description": f"{description} Generated by `python -m protocol.docs`; do not edit.",
        **sorted_keys(body),
    }


# --- the reference for people ---------------------------------------------------------------


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    if "$ref" in schema:
        target = defs[schema["$ref"].rsplit("/", 1)[1]]
        return {**target, **{k: v for k, v in schema.items() if k != "$ref"}}
    return schema


def _inner(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    """A field's schema without its ``null`` alternative (and with what it refers to)."""
    schema = _resolve(schema, defs)
    if "anyOf" in schema:
        kinds = [s for s in schema["anyOf"] if s.get("type") != "null"]
        if len(kinds) == 1:
            rest = {k: v for k, v in schema.items() if k != "anyOf"}
            return {**_resolve(kinds[0], defs), **rest}
    return schema


def description_of(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    return str(_inner(schema, defs).get("description", ""))


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


def _cell(text: str) -> str:
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
        inner = _inner(field, defs)
        label = f"`{prefix}{name}`"
        if name in required:
            label = f"**{label}**"
        unit = str(inner.get("x-unit", ""))
        rows.append(f"| {label} | {_cell(type_text(field, defs))} | {unit} | "
                    f"{_cell(default_text(field))} | {_cell(description_of(field, defs))} |")
    return rows


#: The example stat block of each ruleset in the reference (checked by the test suite against
#: the schema and the server).
EXAMPLE_BLOCKS: dict[str, dict[str, Any]] = {
    "dramatic": {
        "name": "Twilight Sparkle", "id": "twilight", "kind": "pc", "initiative": 3,
        "position": [1, 2],
        "stats": {
            "size": "medium", "heroic_level": 2, "int": 16, "dex": 12, "cha": 12,
            "skills": {"melee": 1, "ranged": 6, "acrobatics": 2, "knowledge_magic": 8},
            "trained": ["knowledge_magic"], "perception": 4,
            "class_bonus": {"reflex": 1, "will": 3, "wits": 2}, "fatigue_points": 12,
            "damage_reduction": [{"value": 2, "source": "mental"}],
            "weapons": [
                {"name": "magic bolt", "damage": "1d8", "kind": "ranged",
                 "damage_types": ["magic"],
                 "ranges": {"point_blank": 6, "short": 12, "medium": 18, "long": 24}},
                {"name": "hoof", "kind": "unarmed", "damage_types": ["bludgeoning"]},
            ],
            "feats": ["Precise Shot", "Skill Focus (Knowledge Magic)", "Arcane Focus"],
            "homebrew_feats": [{"name": "Arcane Focus", "modifiers": [
                {"target": "will_defense", "amount": 1}]}],
            "social": {"reputation": 4, "talents": {"element of harmony": 1}},
        },
    },
    "action_time": {
        "name": "Twilight Sparkle", "id": "twilight", "kind": "pc",
        "stats": {
            "body": "d6", "mind": "d12", "health": 10, "defense": 5, "speed": 10,
            "bandages": "stowed",
            "weapons": [
                {"name": "magic bolt", "damage": "d8", "kind": "ranged", "range": 30,
                 "ability": "mind", "reload": "none"},
                {"name": "hoof", "damage": "d4"},
            ],
            "spells": [{"name": "Frost Weapons", "cast": "minor", "modifiers": [
                {"target": "extra_damage_die", "amount": "d6"}]}],
            "talents": [{"name": "Champion"}],
        },
    },
}

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


def stat_blocks_markdown(block_schemas: dict[str, str]) -> str:
    """``docs/stat-blocks.md``; ``block_schemas`` names each ruleset's published stat-block
    schema file."""
    out = [
        "# Stat blocks, battle maps and encounter options",
        "",
        "Generated from the classes that read them by `python -m protocol.docs`; do not edit. "
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
        "- [MLP Dramatic Systems](#mlp-dramatic-systems)",
        "- [Action Time](#action-time)",
        "- [The battle map](#the-battle-map)",
        "- [Encounter files](#encounter-files)",
        "",
        "## Every stat block",
        "",
    ]
    block = struct_schema(StatBlock)
    out += fields_table(block, block.get("$defs", {}))
    for ruleset in RULESETS:
        out += ["", f"## {TITLES[ruleset]}", "",
                f"`stats` of a stat block in an encounter of the ruleset `{ruleset}` "
                f"(`docs/protocol/{block_schemas[ruleset]}`).", ""]
        schema = stats_schema(ruleset)
        defs = schema.get("$defs", {})
        out += [_cell(str(schema["description"])), ""]
        out += fields_table(schema, defs, "")
        if ruleset == "action_time":
            out.append(f"| `<ability>` | {_cell(type_text(_DIE, {}))} | | | Any other key: "
                       "an ability and its die (`mind`, `cunning`...). |")
        nested = _nested(schema, defs)
        for path, sub in nested:
            out += ["", f"### `{path}`", ""]
            if sub.get("description"):
                out += [_cell(str(sub["description"])), ""]
            out += fields_table(sub, defs)
        if ruleset == "dramatic":
            out += ["", "### Feats", "",
                    "`feats` lists names as the rule text writes them (\"Precise Shot\"; case, "
                    "spaces and punctuation do not matter, R93). The server knows these; any "
                    "other name is refused unless `homebrew_feats` declares it with its "
                    "`modifiers` (the targets of [actions.md](actions.md#dramatic-effects)):",
                    "", "| feat | what it does | rule |", "| --- | --- | --- |"]
            for name, what in FEATS.items():
                effect, _, section = what.rpartition("; ")
                out.append(f"| `{name}` | {_cell(effect)} | {_cell(section)} |")
            out += ["", "Species: `species` names one; the server knows "
                    + ", ".join(f"`{n}` ({', '.join(f'{t} {a:+d}' for t, a in bonus)})"
                                for n, bonus in SPECIES.items())
                    + " (DEFENSES, R93). Acrobatics training for falls: `trained: "
                    "[acrobatics]` (Falling Damage, R22).", "",
                    "Talents: a Social Status bonus of a talent is written in "
                    "`social.talents` (name: bonus); bonuses of talents and feats to defenses "
                    "go in `misc_defense` or a homebrew feat's `modifiers`, to damage "
                    "thresholds in `threshold_bonus`."]
        if ruleset == "action_time":
            out += ["", "### Talents and spells", "",
                    "`talents` lists the combatant's talents by name as the text writes them "
                    "(R93); the server knows these, any other needs its `modifiers` (the "
                    "targets of [actions.md](actions.md#action-time-effects)):", "",
                    "| talent | what it does |", "| --- | --- |"]
            out += [f"| `{name}` | {_cell(what)} |" for name, what in AT_TALENTS.items()]
            out += ["", "A spell's `modifiers` start as an effect on the combatant it is cast "
                    "on (`cast_*`'s `target`) and last `lasts` (R95). Effects stack by "
                    "Stacking Effects: different sources add, the very same one counts once "
                    "(R91)."]
        out += ["", "An example (YAML):", "", "```yaml", _yaml([EXAMPLE_BLOCKS[ruleset]]),
                "```", "", f"### Encounter options of {TITLES[ruleset]}", "",
                "`create_encounter.options` and `set_options` "
                f"(`docs/protocol/options.{ruleset}.schema.json`); each names the ruling it "
                "follows in [rulings.md](rulings.md).", ""]
        opts = options_schema(ruleset)
        out += fields_table(opts, opts.get("$defs", {}))
    bm = battle_map_schema()
    out += ["", "## The battle map", "",
            "`create_encounter.map` and `set_map` (`docs/protocol/battle-map.schema.json`); "
            "\"MLP Dramatic Systems\" only (the server keeps no map in Action Time).", "",
            _cell(str(bm["description"])), ""]
    out += fields_table(bm, bm.get("$defs", {}))
    out += ["", "An example (JSON), 8 squares by 6, with a pillar, a thin wall, a crate, rubble "
            "and fog:", "", "```json", json.dumps(EXAMPLE_MAP), "```", "",
            "The shipped encounter files and the web table's form also take a map drawn in "
            "text, one character per square:", ""]
    drawn = drawing_schema()
    out += [_cell(str(drawn["description"])), "", "```yaml", "map:", "  drawing: |"]
    out += [f"    {line}" for line in EXAMPLE_DRAWING.splitlines()]
    out += ["  walls: [[[7, 0], [7, 1]]]", "```", ""]
    out += ["## Encounter files", "",
            "An encounter as a file, YAML or JSON (`docs/protocol/encounter-file.dramatic."
            "schema.json`, `encounter-file.action_time.schema.json`), as `server/examples/` "
            "ships them and the web table's form reads them:", ""]
    ef = encounter_file_schema("dramatic")
    out += fields_table(ef, ef["$defs"])
    head = _yaml({"name": "Ponies vs. Diamond Dogs", "ruleset": "dramatic",
                  "description": "Four ponies ambushed by Diamond Dogs at the old mill.",
                  "options": {"players_roll": True}})
    combatants = _yaml({"combatants": [
        EXAMPLE_BLOCKS["dramatic"],
        {"name": "Diamond Dog", "initiative": 1, "position": [9, 3],
         "stats": {"str": 14, "skills": {"melee": 4}, "fatigue_points": 10,
                   "weapons": [{"name": "claws", "damage": "1d6", "kind": "natural"}]}},
    ]})
    out += ["", "A short one:", "", "```yaml", head, "map:", "  drawing: |"]
    out += [f"    {line}" for line in EXAMPLE_DRAWING.splitlines()]
    out += [combatants, "```", ""]
    return "\n".join(out)


def _nested(schema: dict[str, Any], defs: dict[str, Any],
            path: str = "") -> list[tuple[str, dict[str, Any]]]:
    """The object fields of ``schema`` (and of lists of objects), depth first, to document
    each's fields in turn."""
    found: list[tuple[str, dict[str, Any]]] = []
    for name, field in schema.get("properties", {}).items():
        inner = _inner(field, defs)
        suffix = ""
        if inner.get("type") == "array" and isinstance(inner.get("items"), dict):
            inner, suffix = _inner(inner["items"], defs), "[]"
        if inner.get("type") == "object" and inner.get("properties"):
            where = f"{path}{name}{suffix}"
            found.append((where, inner))
            found += _nested(inner, defs, f"{where}.")
    return found


__all__ = [
    "ENVELOPE",
    "EXAMPLE_BLOCKS",
    "EXAMPLE_MAP",
    "JSON_SCHEMA_DIALECT",
    "OPTION_TEXT",
    "RULESETS",
    "battle_map_schema",
    "command_args_schema",
    "drawing_schema",
    "encounter_file_schema",
    "fields_table",
    "options_schema",
    "published",
    "stat_block_schema",
    "stat_blocks_markdown",
    "stats_schema",
    "struct_schema",
    "type_text",
]
