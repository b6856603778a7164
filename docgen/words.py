"""``docs/summaries.md``: every event kind's words (the ``summaries`` feature), each with an
example sentence made from an example event by the words the server uses
(``encounter.words``), so the reference cannot say other words than the server does.

An example event is the kind's struct with its required fields filled in from the examples
below (by field name) and, for the kinds where that says too little, a whole example of its
own (:data:`EXAMPLES`).
"""

from __future__ import annotations

from typing import Any

import msgspec
import msgspec.inspect as mi

from docgen.reference import anchor
from encounter.registry import declaration
from encounter.words import ENGINE_WORDS, Names, engine_kinds, kind_tag, summarize
from protocol import events as ev

#: The names of the examples' combatants.
NAMES = {"twilight": "Twilight Sparkle", "dog": "Diamond Dog", "applejack": "Applejack"}

#: The names of the examples' effects.
EFFECTS = {"e3": "Shield of Leaves"}

#: A value for a required field, by its name.
_BY_NAME: dict[str, Any] = {
    "combatant": "twilight", "attacker": "twilight", "target": "dog", "source": "twilight",
    "holder": "dog", "toward": "twilight", "speaker": "twilight", "liar": "twilight",
    "judge": "dog", "grabber": "twilight", "after": "dog", "interrupting": "dog",
    "targets": ["dog"], "combatants": ["twilight"], "name": "Shield of Leaves",
    "purpose": "attack", "expr": "1d20+5", "request": "r7", "effect": "e3",
    "token_id": "t2", "argument": "a1", "statement": "a1", "action": "attack",
    "action_type": "standard", "trigger": "when a dog comes near", "dice": "1d6",
    "resource": "gems", "size": "medium", "attitude": "friendly", "circle": "Canterlot",
    "reason": "the dogs run away", "description": "Twilight talks the dogs into leaving",
    "ruleset": "dramatic", "cause": "damage", "commitment": "5e" * 32, "secret": "a1" * 32,
    "chain": "c4" * 32, "revealed": "a1" * 32, "nonce": "9b" * 16,
    "entropy": "a pony's wish", "by": "player", "role": "player",
    "check": "aid_another", "round": 2, "count": 12, "loss": 4, "total": 17, "rating": 14,
    "bonus": 2, "harmony": 2, "discord": 0, "weight": 120.0, "yards": 6, "max_yards": 10,
    "cost": 4, "budget": 6, "seconds": 60, "remaining": 42000, "number": 3,
    "deadline": 1_700_000_060_000, "position": 1, "rounds": 2, "ends_round": 4, "rolled": 4,
    "resources": 4, "dc": 15, "natural": 12, "modifier": 3, "fatigue": 6, "fatigue_max": 12,
    "before_reduction": 4, "defense_value": 15, "deception_total": 18, "empathy_total": 12,
    "progress": 1, "needed": 1, "until_count": 8, "condition": ["active", "fit"],
    "in_hoof": ["rope"], "path": [[3, 4], [4, 4]], "at": [3, 4], "dice_sides": [20],
    "outcome": "hit", "held": True, "success": True, "believed": True, "blocking": True,
    "aware": False, "surprise": False, "flat_footed": True, "unfounded": True,
    "answer": "accept", "map": {"width": 12, "height": 8},
}

_ROLL = {"expr": "1d20+5", "total": 17, "dice": [{"sides": 20, "face": 12}],
         "text": "1d20 (12) + 5 = 17"}
_MELEE = {"name": "Melee skill", "value": 5, "section": "ATTACK ROLL"}

#: Whole examples, for the kinds whose fields filled in by name say too little.
EXAMPLES: dict[type, dict[str, Any]] = {
    ev.EncounterCreated: {"name": "Ponies vs. Diamond Dogs", "ruleset": "dramatic",
                          "options": {}},
    ev.CombatantAdded: {"combatant": {"id": "dog", "name": "Diamond Dog", "kind": "npc",
                                      "side": "dogs", "initiative_mod": 1}},
    ev.CombatantRevealed: {"combatant": {"id": "dog", "name": "Diamond Dog", "kind": "npc",
                                         "side": "dogs", "initiative_mod": 1}},
    ev.OptionsChanged: {"options": {}},
    ev.RollRequested: {"request": "r7", "roller": "twilight", "combatant": "twilight",
                       "expr": "1d20+5", "dice": [20], "purpose": "attack"},
    ev.DiceRolled: {"purpose": "attack", "roll": _ROLL, "combatant": "twilight"},
    ev.InitiativeSet: {"entries": [{"combatant": "twilight", "total": 17, "modifier": 3},
                                   {"combatant": "dog", "total": 9, "modifier": 1}]},
    ev.CombatantJoined: {"entry": {"combatant": "dog", "total": 9, "modifier": 1},
                         "position": 1},
    ev.OrderChanged: {"combatant": "twilight", "position": 1, "count": 8, "reason": "delay"},
    ev.ReadiedActionTriggered: {"combatant": "twilight", "interrupting": "dog"},
    ev.DelayedTurnRequested: {"combatant": "twilight", "after": "dog"},
    ev.EffectStarted: {"effect": "e3", "name": "Shield of Leaves", "rounds": 2, "round": 2,
                       "count": 12, "ends_round": 4, "combatant": "twilight",
                       "modifiers": [{"target": "reflex_defense", "amount": 2}]},
    ev.CheckMade: {"combatant": "twilight", "check": "aid_another", "natural": 12,
                   "modifiers": [{"name": "Diplomacy", "value": 4, "section": "AID ANOTHER"}],
                   "total": 16, "dc": 10, "success": True, "target": "applejack"},
    ev.AttackResolved: {
        "round": 2, "attacker": "twilight", "target": "dog", "action": "attack",
        "weapon": "hoof", "natural": 12,
        "modifiers": [_MELEE, {"name": "flanking", "value": 2, "section": "FLANKING"}],
        "total": 19, "defense_value": 15,
        "defense_parts": [{"name": "base", "value": 10, "section": "REFLEX DEFENSE"},
                          {"name": "Dexterity", "value": 3, "section": "REFLEX DEFENSE"},
                          {"name": "level", "value": 2, "section": "REFLEX DEFENSE"}],
        "outcome": "hit"},
    ev.DamageDealt: {"target": "dog", "source": "twilight", "dice": "1d6", "rolled": 4,
                     "bonuses": [{"name": "Strength", "value": 2, "section": "DAMAGE"}],
                     "before_reduction": 6, "reduction": 1, "reduction_label": "DR", "loss": 5},
    ev.VitalsChanged: {"combatant": "dog", "cause": "damage", "fatigue": 0, "fatigue_max": 12,
                       "physical": {"step": 1, "penalty": -1},
                       "condition": ["active", "defenseless"],
                       "notes": ["hit by Twilight Sparkle: loses 5"]},
    ev.GmRuling: {"ruling": "adjudicated", "combatant": "twilight",
                  "description": "Twilight talks the dogs into leaving",
                  "reason": "a good argument"},
    ev.Harvested: {"combatant": "twilight", "target": "dog", "resource": "gems", "dice": "1d6",
                   "rolled": 4, "bonus": 1, "resources": 5},
    ev.ArgumentChanged: {"argument": "a1", "combatant": "twilight", "size": "medium",
                         "text": "the gems belong to the ponies", "reason": "sized by the GM"},
    ev.StatementHit: {"statement": "a1", "speaker": "twilight", "target": "dog", "loss": 4},
    ev.StatementAnswered: {"statement": "a1", "target": "dog", "answer": "refuse", "loss": 4},
    ev.LieTold: {"liar": "twilight", "targets": ["dog"], "size": "small",
                 "deception_total": 18, "empathy_total": 12, "judge": "dog", "believed": True},
    ev.SocialEventSet: {"rating": 14, "parts": [{"name": "base", "value": 10,
                                                 "section": "SOCIAL EVENTS"},
                                                {"name": "formal", "value": 4,
                                                 "section": "SOCIAL EVENTS"}],
                        "organizer": "twilight", "circle": "Canterlot", "topic": "gems"},
    ev.AuraPointsChanged: {"combatant": "twilight", "harmony": 2, "discord": 0,
                           "reason": "Aura of Harmony"},
    ev.CombatantMoved: {"combatant": "twilight", "path": [[3, 4], [4, 4]], "cost": 2,
                        "budget": 6},
    ev.AtEffectStarted: {"effect": {"holder": "twilight", "target": "defense", "value": 1,
                                    "source_kind": "action", "source": "Defend",
                                    "expiry": "start_of_next_turn:twilight",
                                    "origin": "twilight"}},
    ev.AtEffectEnded: {"effect": {"holder": "twilight", "target": "defense", "value": 1,
                                  "source_kind": "action", "source": "Defend",
                                  "expiry": "start_of_next_turn:twilight",
                                  "origin": "twilight"}, "reason": "turn_start"},
    ev.AtMoved: {"combatant": "twilight", "action": "run", "yards": 12, "max_yards": 12,
                 "reason": "Run: twice the speed"},
    ev.ItemsReadied: {"combatant": "twilight", "drawn": "bandages", "in_hoof": ["bandages"]},
}

#: Examples of the engine's kinds a ruleset words its own way, in that ruleset's terms.
RULESET_EXAMPLES: dict[str, dict[type, dict[str, Any]]] = {
    "action_time": {
        ev.AttackResolved: {
            "round": 2, "attacker": "twilight", "target": "dog", "action": "melee_attack",
            "weapon": "hoof", "defense": "defense", "die": "d10", "natural": 7,
            "modifiers": [{"name": "Aim (upgrade)", "value": 1, "section": "AIM (R35)"}],
            "total": 7, "defense_value": 4,
            "defense_parts": [{"name": "Defense", "value": 4, "section": "stat block (R29)"}],
            "outcome": "hit"},
        ev.DamageDealt: {"target": "dog", "source": "twilight", "dice": "1d6", "rolled": 4,
                         "before_reduction": 4, "loss": 4},
        ev.VitalsChanged: {"combatant": "applejack", "cause": "heal", "fatigue": 8,
                           "fatigue_max": 10, "physical": {}, "condition": ["active", "fit"],
                           "notes": ["healed by Twilight Sparkle: Health 5 -> 8 "
                                     "(Major Actions: HEAL, R33)"]},
        ev.CheckMade: {"combatant": "twilight", "check": "heal", "natural": 5, "total": 5,
                       "dc": 4, "success": True},
    },
}


def _value(name: str, t: Any) -> Any:
    if name in _BY_NAME:
        return _BY_NAME[name]
    if isinstance(t, mi.UnionType):
        t = next(x for x in t.types if not isinstance(x, mi.NoneType))
    if isinstance(t, mi.LiteralType):
        return t.values[0]
    if isinstance(t, mi.IntType):
        return 3
    if isinstance(t, mi.BoolType):
        return False
    if isinstance(t, mi.StrType):
        return "example"
    if isinstance(t, mi.ListType):
        return []
    if isinstance(t, mi.StructType):
        return _filled(t.cls)
    return None


def _filled(kind: type) -> dict[str, Any]:
    info = mi.type_info(kind)
    assert isinstance(info, mi.StructType)
    return {f.name: _value(f.name, f.type) for f in info.fields if f.required}


def example(kind: type, ruleset: str | None = None) -> ev.Event:
    """An example event of ``kind`` (in ``ruleset``'s terms, where it has its own)."""
    data = (RULESET_EXAMPLES.get(ruleset or "", {}).get(kind) or EXAMPLES.get(kind)
            or _filled(kind))
    event: ev.Event = msgspec.convert(data, kind)
    return event


def _ruleset_event_example(ruleset: str, name: str) -> ev.RulesetEvent:
    """The ruleset's example of its event ``name`` (``Declaration.example_events``)."""
    given = declaration(ruleset).example_events.get(name, {})
    return msgspec.convert({**given, "ruleset": ruleset, "name": name}, ev.RulesetEvent)


def _row(kind: str, text: str) -> str:
    cell = text.replace("|", "\\|")
    return f"| `{kind}` | {cell} |"


def summaries_markdown(rulesets: list[str]) -> str:
    """``docs/summaries.md``."""
    out = [
        "# Events in words",
        "",
        "Generated from the event declarations by `python -m docgen`; do not edit.",
        "",
        "With the `summaries` feature (`hello.features`) every `event` message a connection "
        "gets, live, replayed on resuming and in a `history`, carries a `summary`: the event "
        "in words for people, `{\"text\": …, \"parts\": [{\"label\": …, \"value\": …}]}` "
        "(see [protocol.md](protocol.md#events-in-words-summaries)). The words are the "
        "ruleset's that declares the event; a ruleset words some of the engine's kinds its "
        "own way (an attack, a damage, a change of vitals, a check). Each example below is "
        "the summary the server makes of an example event, as the GM, who sees everything, "
        "reads it; the combatants are " + ", ".join(NAMES.values()) + ". A viewer who may "
        "not see a combatant the event names in passing reads \"someone unseen\", and a "
        "number behind the GM's screen reads \"behind the GM's screen\".",
        "",
        "- [The engine's events](#the-engines-events)",
        *(f"- [{declaration(r).title}]({anchor(declaration(r).title)})" for r in rulesets),
        "",
        "## The engine's events",
        "",
        "Every ruleset's, in the engine's words unless the ruleset has its own (below).",
        "",
        "| event kind | example summary |",
        "| --- | --- |",
    ]
    for kind in sorted(engine_kinds(), key=lambda k: kind_tag(k)):
        if kind is ev.RulesetEvent or kind not in ENGINE_WORDS:
            continue
        tag = kind_tag(kind)
        out.append(_row(tag, ENGINE_WORDS[kind](example(kind), Names(NAMES, EFFECTS)).text))
    for ruleset in rulesets:
        rules = declaration(ruleset)
        out += ["", f"## {rules.title}", "",
                f"The ruleset `{ruleset}`: its own events, and the engine's it words its own "
                "way.", "", "| event kind | example summary |", "| --- | --- |"]
        typed = sorted((k for k in rules.words if isinstance(k, type)),
                       key=lambda k: kind_tag(k))
        for kind in typed:
            tag = kind_tag(kind)
            out.append(_row(tag, summarize(example(kind, ruleset), ruleset, NAMES).text))
        for name in sorted(k for k in rules.words if isinstance(k, str)):
            text = summarize(_ruleset_event_example(ruleset, name), ruleset, NAMES).text
            out.append(_row(f"ruleset_event {name}", text))
    return "\n".join(out) + "\n"
