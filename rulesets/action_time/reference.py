"""What the references for people and the published schemas say of "Action Time" beyond its
declarations (``python -m docgen``): the schema of a stat block's ``stats`` (its abilities are
any keys, each with its die), the talents and spells, the words for its turn's budget and its
stacking rule, and its examples."""

from __future__ import annotations

from typing import Any

from protocol.reference import cell, struct_schema, type_text
from rules.action_time.sheet import TALENTS, Sheet

_DIE = {
    "x-type": "a die: `d4`, `d6`, `d8`, `d10`, `d12` or `d20`",
    "anyOf": [
        {"type": "string", "pattern": "^\\s*1?[dD](4|6|8|10|12|20)\\s*$"},
        {"type": "integer", "enum": [4, 6, 8, 10, 12, 20]},
    ],
}


def stats_schema() -> dict[str, Any]:
    """The ``stats`` of a stat block: ``rules.action_time.sheet.Sheet``, its abilities (read
    there as ``abilities``) written as keys of their own."""
    schema = struct_schema(Sheet)
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


#: The rows the stat-block reference adds to the table of the fields of ``stats``.
STATS_ROWS = (f"| `<ability>` | {cell(type_text(_DIE, {}))} | | | Any other key: an ability "
              "and its die (`mind`, `cunning`...). |",)

#: The stat-block reference's sections after the fields of ``stats``.
STATS_SECTIONS = (
    "", "### Talents and spells", "",
    "`talents` lists the combatant's talents by name as the text writes them (R93); the server "
    "knows these, any other needs its `modifiers` (the targets of "
    "[actions.md](actions.md#action-time-effects)):", "",
    "| talent | what it does |", "| --- | --- |",
    *(f"| `{name}` | {cell(what)} |" for name, what in TALENTS.items()),
    "", "A spell's `modifiers` start as an effect on the combatant it is cast on (`cast_*`'s "
    "`target`) and last `lasts` (R95). Effects stack by Stacking Effects: different sources "
    "add, the very same one counts once (R91).",
)

COSTS = ("(a major action and a minor action, or two minor actions, in any order; free "
         "actions; `none`: the turn's own moves; R51).")
STACKING = ("the same source (kind and name) counts once, the largest; different sources add "
            "(Stacking Effects, R91)")

#: The example stat block of the reference (checked by the test suite against the schema and
#: the server).
EXAMPLE_BLOCK: dict[str, Any] = {
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
}

#: Example arguments of the actions in docs/actions.md where the generic ones say too little.
EXAMPLE_ARGS: dict[str, dict[str, Any]] = {
    "ranged_attack": {"target": "brute", "weapon": "magic bolt", "distance": 10},
    "guard_up": {"amount": 2},
    "move": {"yards": 5, "posture": "go_prone"},
    "run": {"yards": 20, "away_from": ["brute"]},
    "charge": {"target": "brute", "yards": 4},
    "prepare": {"action": "melee_attack", "trigger": "the brute comes close"},
    "ready_item": {"stow": "magic bolt"},
    "stunt": {"target": "brute", "stunt": "knock_prone"},
    "pursue": {"target": "brute", "yards": 4},
    "heal": {"target": "dash"},
}
