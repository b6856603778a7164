"""What the references for people and the published schemas say of "MLP Dramatic Systems"
beyond its declarations (``python -m docgen``): the schema of a stat block's ``stats`` (the
sheet with its social part), the feats, species and talents, the words for its turn's budget
and its stacking rule, and its examples."""

from __future__ import annotations

from typing import Any

from protocol.reference import cell, merge_defs, struct_schema
from rules.sheet import FEATS, SPECIES, Sheet
from rules.social.sheet import SocialSheet


def stats_schema() -> dict[str, Any]:
    """The ``stats`` of a stat block: ``rules.sheet.Sheet``, its ``social`` part
    ``rules.social.sheet.SocialSheet``."""
    schema = struct_schema(Sheet)
    defs = schema.pop("$defs", {})
    social = merge_defs(defs, struct_schema(SocialSheet))
    schema["properties"]["social"] = {
        **social, "description": schema["properties"]["social"]["description"]}
    schema["description"] = (
        'The statistics of a "MLP Dramatic Systems" combatant (a stat block\'s `stats`). '
        "Every field is optional: `stats: {}` is a Medium creature with every ability "
        "score 10. A field not listed here is refused, naming it. Numbers are within "
        "-1000000 and 1000000.")
    schema["$defs"] = defs
    return schema


def _feats() -> tuple[str, ...]:
    out = ["", "### Feats", "",
           "`feats` lists names as the rule text writes them (\"Precise Shot\"; case, "
           "spaces and punctuation do not matter, R93). The server knows these; any "
           "other name is refused unless `homebrew_feats` declares it with its "
           "`modifiers` (the targets of [actions.md](actions.md#dramatic-effects)):",
           "", "| feat | what it does | rule |", "| --- | --- | --- |"]
    for name, what in FEATS.items():
        effect, _, section = what.rpartition("; ")
        out.append(f"| `{name}` | {cell(effect)} | {cell(section)} |")
    out += ["", "Species: `species` names one; the server knows "
            + ", ".join(f"`{n}` ({', '.join(f'{t} {a:+d}' for t, a in bonus)})"
                        for n, bonus in SPECIES.items())
            + " (DEFENSES, R93). Acrobatics training for falls: `trained: "
            "[acrobatics]` (Falling Damage, R22).", "",
            "Talents: a Social Status bonus of a talent is written in "
            "`social.talents` (name: bonus); bonuses of talents and feats to defenses "
            "go in `misc_defense` or a homebrew feat's `modifiers`, to damage "
            "thresholds in `threshold_bonus`."]
    return tuple(out)


#: The stat-block reference's sections after the fields of ``stats``.
STATS_SECTIONS = _feats()

COSTS = ("(a standard, a move and a swift action a turn, or one full-round action; free "
         "actions and reactions on any turn; `none`: the turn's own moves).")
STACKING = ("one cover bonus, one concealment penalty, conditions all add, the same source "
            "otherwise counts once (R92)")

#: The example stat block of the reference (checked by the test suite against the schema and
#: the server).
EXAMPLE_BLOCK: dict[str, Any] = {
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
}

#: The example encounter file of the reference.
EXAMPLE_ENCOUNTER: dict[str, Any] = {
    "name": "Ponies vs. Diamond Dogs", "ruleset": "dramatic",
    "description": "Four ponies ambushed by Diamond Dogs at the old mill.",
    "options": {"players_roll": True},
    "map": {"drawing": "............\n....#.......\n....#...~~..\n..=.....~~..\n"
                       "........::..\n....#.......\n"},
    "combatants": [
        EXAMPLE_BLOCK,
        {"name": "Diamond Dog", "initiative": 1, "position": [9, 3],
         "stats": {"str": 14, "skills": {"melee": 4}, "fatigue_points": 10,
                   "weapons": [{"name": "claws", "damage": "1d6", "kind": "natural"}]}},
    ],
}

#: Example arguments of the actions in docs/actions.md where the generic ones say too little.
EXAMPLE_ARGS: dict[str, dict[str, Any]] = {
    "attack": {"target": "brute", "weapon": "magic bolt"},
    "harvest": {"skill": "profession_miner", "resource": "gems"},
    "move": {"path": [[2, 2], [3, 2]]},
    "run": {"path": [[2, 1], [3, 0]]},
    "lie": {"target": "brute", "size": "small", "text": "the boss went that way"},
    "ready": {"action": "attack", "trigger": "a dog comes out of the fog"},
    "delay": {"count": 3},
    "second_lunch_with_food": {"food_bonus": 2},
    "answer_statement": {"answer": "refuse"},
    "free": {"note": "shouts a warning"},
}
