"""The arguments of the "Action Time" actions (``act``'s ``args``), one struct per kind of
action. Each refuses unknown fields; its docstring and the fields' descriptions are the
reference a client reads (``docs/protocol/actions.action_time.schema.json``).

The server keeps no map in Action Time: an attack, Heal or Press the Attack states the yards to
its target (``distance``, default adjacent: within 2 yards); a movement its ``yards`` and whom
it moves away from (``away_from``, for Press the Attack, R37)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from encounter.declare import Aimed, CombatantId, Noted, Target
from rules.action_time.sheet import MELEE_REACH

Yards = Annotated[int, msgspec.Meta(ge=0, le=10_000)]
Name = Annotated[str, msgspec.Meta(min_length=1, max_length=80)]

_DISTANCE = "The yards to the target (default: adjacent, within 2 yards)."
_AWAY = ("The combatants the movement takes it farther from (an enemy who Presses the Attack "
         "on it may pursue, R37).")


class AttackArgs(Aimed, frozen=True, kw_only=True):
    """Melee Attack or All-Out Attack: a test of the weapon's ability die against the target's
    Defense (R29)."""

    weapon: Annotated[Name, msgspec.Meta(
        description="A weapon of the stat block (default: the first in hoof that fits the "
        "action).")] | None = None
    distance: Annotated[Yards, msgspec.Meta(description=_DISTANCE)] = MELEE_REACH


class RangedAttackArgs(Aimed, frozen=True, kw_only=True):
    """Ranged Attack: "one visible enemy within range"; the distance is stated."""

    weapon: Annotated[Name, msgspec.Meta(
        description="A ranged weapon of the stat block (default: the first in hoof).")] \
        | None = None
    distance: Annotated[Yards, msgspec.Meta(
        description="The yards to the target, within the weapon's range.", examples=[10])]


class ChargeArgs(AttackArgs, frozen=True, kw_only=True):
    """Charge: up to half Speed in yards, then a melee attack with an upgrade (R62)."""

    yards: Annotated[Yards, msgspec.Meta(
        description="The yards moved first (default: half Speed).")] | None = None
    away_from: Annotated[list[CombatantId], msgspec.Meta(
        max_length=40, description=_AWAY)] = []


class GuardUpArgs(Noted, frozen=True, kw_only=True):
    """Guard Up: +1 or +2 to Defense until the end of the round, with as many downgrades on all
    tests."""

    amount: Annotated[Literal[1, 2], msgspec.Meta(
        description="The Defense bonus, and the downgrades taken with it.")] = 1


class MoveArgs(Noted, frozen=True, kw_only=True):
    """Move: up to Speed in yards; going prone, standing up or mounting at half Speed; prone at
    the time of the Move, half Speed (R34)."""

    yards: Annotated[Yards, msgspec.Meta(description="The yards moved (default: as far as "
                                                     "the action allows).")] | None = None
    posture: Annotated[Literal["none", "go_prone", "stand", "mount"], msgspec.Meta(
        description="Go prone, stand up or mount as part of the Move.")] = "none"
    away_from: Annotated[list[CombatantId], msgspec.Meta(
        max_length=40, description=_AWAY)] = []


class RunArgs(Noted, frozen=True, kw_only=True):
    """Run: up to double Speed in yards; not while prone."""

    yards: Annotated[Yards, msgspec.Meta(description="The yards moved (default: double "
                                                     "Speed).")] | None = None
    away_from: Annotated[list[CombatantId], msgspec.Meta(
        max_length=40, description=_AWAY)] = []


class HealArgs(Aimed, frozen=True, kw_only=True):
    """Heal (R33): an adjacent injured ally, bandages in hoof."""

    distance: Annotated[Yards, msgspec.Meta(description=_DISTANCE)] = MELEE_REACH


class PrepareArgs(Noted, frozen=True, kw_only=True):
    """Prepare (R36): one major action, taken with ``trigger_ready`` until the next turn."""

    action: Annotated[str, msgspec.Meta(
        min_length=1, max_length=40, examples=["melee_attack"],
        description="The major action prepared: one of the entry's `options.action`.")]
    trigger: Annotated[str, msgspec.Meta(
        min_length=1, max_length=200,
        description="When it is meant to be taken (default: any time until the next "
        "turn).")] | None = None


class PressArgs(Aimed, frozen=True, kw_only=True):
    """Press the Attack (R37): on an adjacent enemy struck in melee this turn."""

    distance: Annotated[Yards, msgspec.Meta(description=_DISTANCE)] = MELEE_REACH


class PursueArgs(Noted, frozen=True, kw_only=True):
    """The pursuit of Press the Attack (R37): up to Speed in yards, at no cost in actions."""

    target: Annotated[Target, msgspec.Meta(
        description="The enemy pursued (the one whose turn the pursuit interrupts).")] \
        | None = None
    yards: Annotated[Yards, msgspec.Meta(
        description="The yards moved, up to Speed (default: Speed); 0 declines the pursuit "
        "(the interrupt ends, the enemy's turn goes on).")] | None = None


class ReadyItemArgs(Noted, frozen=True, kw_only=True):
    """Ready: draw a stowed item and/or put one away (at least one of the two)."""

    draw: Annotated[Name, msgspec.Meta(
        description="The item drawn: a weapon of the stat block or `bandages` (the entry's "
        "`options.draw`).")] | None = None
    stow: Annotated[Name, msgspec.Meta(
        description="The item put away (the entry's `options.stow`).")] | None = None


class CastArgs(Noted, frozen=True, kw_only=True):
    """Cast a spell of the stat block, at the cost the stat block gives it (R60)."""

    spell: Annotated[Name, msgspec.Meta(
        examples=["Frost Weapons"], description="A spell of the stat block cast at this cost "
        "(the entry's `options.spell`).")]
    target: Annotated[Name, msgspec.Meta(
        description="The combatant a spell with `modifiers` is cast on (default: the caster); "
        "its effect starts on it (R95).")] | None = None


class ReloadArgs(Noted, frozen=True, kw_only=True):
    """Reload a weapon of the stat block, at the cost the stat block gives it (R60)."""

    weapon: Annotated[Name, msgspec.Meta(
        examples=["Sling"], description="A weapon of the stat block that reloads at this cost "
        "(the entry's `options.weapon`).")]


class StuntArgs(Aimed, frozen=True, kw_only=True):
    """A Skirmish or Knock Prone stunt whose points the user has spent (R39); against one who
    Stands Firm, an opposed Body test first (R38)."""

    stunt: Annotated[Literal["skirmish", "knock_prone"], msgspec.Meta(
        description="Which stunt.")]
    yards: Annotated[int, msgspec.Meta(
        ge=1, le=100, description="How far a Skirmish moves the target.")] = 2


__all__ = ["AttackArgs", "CastArgs", "ChargeArgs", "GuardUpArgs", "HealArgs", "MoveArgs",
           "PrepareArgs", "PressArgs", "PursueArgs", "RangedAttackArgs", "ReadyItemArgs",
           "ReloadArgs", "RunArgs", "StuntArgs"]
