"""Grab ("MLP Dramatic Systems", STANDARD ACTIONS -> Grab; rulings R24, R55).

"A grab attempt is treated as an unarmed melee roll except that it doesn't deal fatigue loss and
you take a -5 penalty in adition to the non-dexterous malus on the attack roll. You can only grab
an target up to one size category larger than yourself, and only one target at a time. Until it
breaks the grab, a grabbed creature takes a -2 penalty on all skill rolls. Additionally, it
cannot move until it breaks the grab. Breaking the grab is a standard action and automatically
clears one grabber per character level."

Public API:

- ``grab_check(grabber, target, *, already_grabbing=False, ...) -> AttackCheck`` — then
  rules.attack.attack_outcome; a hit sets the target's ``Status.grabbed`` (-2 on all skill
  rolls, applied by rules.attack) and it cannot move (``can_move``).
- ``break_grab(grabbers, heroic_level, chosen=None) -> BrokenGrab``.
- ``can_move(status) -> bool``.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from rules.attack import AttackCheck, Situation, attack_check
from rules.defenses import Status
from rules.modifiers import RuleRefusal
from rules.sheet import Sheet, size_steps

SECTION = "STANDARD ACTIONS: Grab"


def grab_check(grabber: Sheet, target: Sheet, *, grabber_status: Status | None = None,
               target_status: Status | None = None, situation: Situation | None = None,
               already_grabbing: bool = False, non_dexterous_penalty: int = 2,
               prone_helpless_bonuses_stack: bool = False) -> AttackCheck:
    """A grab attempt: an unarmed melee attack at -5, and ``non_dexterous_penalty`` (R24,
    default 2) more for a non-dexterous grabber; refused against a target more than one size
    category larger, or while already grabbing another target. It deals no damage."""
    if size_steps(grabber.size, target.size) > 1:
        raise RuleRefusal(f"{SECTION}: only a target up to one size category larger "
                          f"({grabber.size} cannot grab {target.size})")
    if already_grabbing:
        raise RuleRefusal(f"{SECTION}: only one target at a time")
    return attack_check(grabber, target, attacker_status=grabber_status,
                        target_status=target_status, situation=situation, grab=True,
                        non_dexterous_penalty=non_dexterous_penalty,
                        prone_helpless_bonuses_stack=prone_helpless_bonuses_stack)


class BrokenGrab(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """The grabbers cleared by breaking the grab, those left, and whether the creature is free."""

    cleared: tuple[str, ...]
    remaining: tuple[str, ...]
    free: bool


def break_grab(grabbers: Sequence[str], heroic_level: int,
               chosen: Sequence[str] | None = None) -> BrokenGrab:
    """Breaking the grab (ruling R55): clears one grabber per character level — at least one
    (a creature without heroic levels counts as level 1). The grabbed creature chooses which
    (``chosen``, in order of preference; by default the order given)."""
    if heroic_level < 0:
        raise ValueError("heroic level cannot be negative")
    if not grabbers:
        raise RuleRefusal(f"{SECTION}: nobody is grabbing this creature")
    order = list(chosen or ())
    unknown = [g for g in order if g not in grabbers]
    if unknown:
        raise ValueError(f"not grabbing this creature: {', '.join(unknown)}")
    order += [g for g in grabbers if g not in order]
    count = max(1, heroic_level)
    cleared = tuple(order[:count])
    remaining = tuple(g for g in grabbers if g not in cleared)
    return BrokenGrab(cleared=cleared, remaining=remaining, free=not remaining)


def can_move(status: Status) -> bool:
    """Grab: a grabbed creature "cannot move until it breaks the grab"; an unconscious one
    cannot act at all (Falling Unconscious)."""
    return not (status.grabbed or status.is_unconscious)
