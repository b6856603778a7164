"""The rules of time of "Action Time" between the scenes of a campaign (ruling R110): the text
says nothing of time outside action time, so a character keeps the Health an encounter leaves
it, and a night's rest brings it back to full."""

from __future__ import annotations

from typing import Any

import msgspec

from encounter.ruleset import TimeRules
from encounter.state import EncounterState
from protocol.campaign import Character


def carry_in(ch: Character, day: int) -> dict[str, Any]:
    return dict(ch.block.stats)


def rest(ch: Character, hour: int) -> tuple[Character, list[str]] | str:
    """R110 (Action Time): eight hours of rest bring Health back to full."""
    if ch.life == "dead":
        return "the dead do not heal"
    return msgspec.structs.replace(ch, fatigue=None, conscious=True, healed_at=hour), [
        "a night's rest: Health back to full (R110)"]


def passes(ch: Character, hour: int) -> tuple[Character, list[str]] | None:
    return None  # nothing of "Action Time" counts days or weeks


def carry_back(final: EncounterState, ch: Character, rested: bool,
               hour: int) -> tuple[Character, list[str]]:
    """The Health the encounter leaves the character (R29)."""
    v = final.vitals.get(ch.id)
    if v is None:
        return ch, ["not in the encounter at its end: unchanged"]
    fatigue = None if v.fatigue >= v.fatigue_max else v.fatigue
    return msgspec.structs.replace(ch, fatigue=fatigue, life="alive" if v.alive else "dead",
                                   conscious=v.condition[0] != "unconscious"), []


TIME = TimeRules(carry_in=carry_in, rest=rest, passes=passes, carry_back=carry_back)
