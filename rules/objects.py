"""Objects, harvesting and breaking ("MLP Dramatic Systems", STANDARD ACTIONS -> Harvest,
Destructive Harvest, Held, Carried, or Worn Objects, Multipart Objects, Breaking an Object,
Strength; rulings R15, R44, R45, R46, R54).

An object, plant or vehicle is a :class:`~rules.sheet.Sheet` with ``nature`` object, plant or
vehicle and a physical :class:`~rules.condition_track.Track`; its Strength score is the sheet's
``str`` and its heavy load ``load_limit``. A multipart object (Multipart Objects) is one sheet
and track per part: breaking a window leaves the house's track alone.

Public API:

- ``object_reflex(obj, *, moving=False) -> Defense``; ``held_object_reflex(obj,
  holder_reflex) -> Defense`` (pass either as ``target_defense`` to rules.attack.attack_check).
- ``break_dc(obj, track) -> BreakDC``; ``break_succeeds(dc, check_total) -> bool``.
- ``overweight(obj, supported) -> Overweight``; ``apply_overweight(obj, supported, track)
  -> Track`` (now, and again each round on the same initiative count).
- ``structure_loss(accumulated, loss, threshold, track, *, fierce=True) -> StructureLoss``
  (Destructive Harvest, R46).
- ``harvest_check(natural, modifier, *, dc=10) -> HarvestCheck`` and ``harvest_yield(check,
  dice_total, ...) -> HarvestYield`` (Harvest, R44, R45, R54).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import StrEnum

import msgspec

from rules.condition_track import BOTTOM, Track, move_down
from rules.damage import choose_reduction
from rules.defenses import Defense, DefenseName
from rules.modifiers import Modifier, RuleRefusal, total
from rules.sheet import REFLEX_SIZE_MODIFIER, DamageReduction, DamageSource, Nature, Sheet

_SECTION_DH = "STANDARD ACTIONS: Destructive Harvest"


def _require_object(obj: Sheet) -> None:
    if obj.nature is Nature.CREATURE:
        raise ValueError("this rule is for objects, plants and vehicles, not creatures")


def object_reflex(obj: Sheet, *, moving: bool = False) -> Defense:
    """Destructive Harvest: an unattended, immobile object has Reflex Defense 5 + its size
    modifier; an unattended, moving object 10 + its size modifier."""
    parts = [Modifier("unattended, moving object" if moving else "unattended, immobile object",
                      10 if moving else 5, _SECTION_DH),
             Modifier(f"size ({obj.size})", REFLEX_SIZE_MODIFIER[obj.size], _SECTION_DH)]
    return Defense(DefenseName.REFLEX, total(parts), tuple(parts))


def held_object_reflex(obj: Sheet, holder_reflex: Defense) -> Defense:
    """Held, Carried, or Worn Objects: 10 + the object's size modifier + the holder's Reflex
    Defense, not counting the holder's armor bonus or natural armor bonus."""
    section = "STANDARD ACTIONS: Held, Carried, or Worn Objects"
    kept = [p.value for p in holder_reflex.parts if p.name not in ("armor bonus", "natural armor")]
    parts = [Modifier("held object", 10, section),
             Modifier(f"size ({obj.size})", REFLEX_SIZE_MODIFIER[obj.size], section),
             Modifier("holder's Reflex Defense (no armor, no natural armor)", sum(kept), section)]
    return Defense(DefenseName.REFLEX, total(parts), tuple(parts))


class BreakDC(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    dc: int
    parts: tuple[Modifier, ...]


def break_dc(obj: Sheet, track: Track | None = None) -> BreakDC:
    """Breaking an Object: DC 15 + the object's Strength modifier, or the ``break_dc`` its
    construction sets (R84); an object that has moved down its track applies the condition
    penalty to the DC (R15: -1, -2, -5, -10)."""
    section = "STANDARD ACTIONS: Breaking an Object"
    if obj.break_dc is not None:
        parts = [Modifier("the object's construction (R84)", obj.break_dc, section)]
    else:
        parts = [Modifier("base", 15, section),
                 Modifier("object's Strength modifier", obj.mod("str"), section)]
    if track is not None and track.penalty:
        parts.append(Modifier(f"condition (step {track.step})", track.penalty,
                              "Breaking an Object (R15)"))
    return BreakDC(dc=total(parts), parts=tuple(parts))


def break_succeeds(dc: BreakDC, check_total: int) -> bool:
    """Breaking an Object: the Strength + Physical Base Bonus check meets the DC."""
    return check_total >= dc.dc


class Overweight(StrEnum):
    NONE = "none"
    STRAINED = "strained"
    DISABLED = "disabled"


def overweight(obj: Sheet, supported: float) -> Overweight:
    """Strength: beyond the object's heavy load it is strained (-1 step now and each round on
    the same initiative count); beyond twice its heavy load it is disabled (R15: destroyed)."""
    _require_object(obj)
    if obj.load_limit is None:
        return Overweight.NONE
    if supported > 2 * obj.load_limit:
        return Overweight.DISABLED
    if supported > obj.load_limit:
        return Overweight.STRAINED
    return Overweight.NONE


def apply_overweight(obj: Sheet, supported: float, track: Track) -> Track:
    """The track after one application of :func:`overweight`: -1 step when strained; straight
    to the bottom (disabled = destroyed, R15) beyond twice the heavy load."""
    effect = overweight(obj, supported)
    if effect is Overweight.DISABLED:
        return msgspec.structs.replace(track, step=BOTTOM)
    if effect is Overweight.STRAINED:
        return move_down(track)
    return track


class StructureLoss(msgspec.Struct, frozen=True, kw_only=True):
    """R46: a blow's structure loss, the running total before and after, the steps it caused."""

    loss: int
    accumulated_before: int
    accumulated_after: int
    steps: int
    track_after: Track
    destroyed: bool


def structure_loss(accumulated: int, loss: int, threshold: int, track: Track, *,
                   fierce: bool = True) -> StructureLoss:
    """Destructive Harvest (ruling R46): only a hit with a fierce maneuver or weapon deals
    structure loss. The loss (after DR) adds to the running total; while the total equals or
    exceeds the damage threshold (R45) the object moves -1 step and the threshold is taken off
    the total. At the bottom step it is destroyed (R15) and yields no more material."""
    if loss < 0 or accumulated < 0:
        raise ValueError("structure loss cannot be negative")
    if track.at_bottom:
        raise RuleRefusal(f"{_SECTION_DH}: the object is destroyed")
    dealt = loss if fierce else 0
    t = max(1, threshold)
    running = accumulated + dealt
    after = track
    while running >= t and not after.at_bottom:
        after = move_down(after)
        running -= t
    return StructureLoss(loss=dealt, accumulated_before=accumulated, accumulated_after=running,
                         steps=after.step - track.step, track_after=after,
                         destroyed=after.at_bottom)


class HarvestCheck(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """Harvest: the Profession check against 10 (or the target's Reflex Defense); each 5 points
    over the DC give +1 on the harvest roll; a natural 20 succeeds and doubles it, a natural 1
    fails (R44)."""

    natural: int
    modifier: int
    total: int
    dc: int
    success: bool
    critical: bool
    bonus: int


def harvest_check(natural: int, modifier: int, *, dc: int = 10) -> HarvestCheck:
    """Harvest: "make a profession check against 10 or the Reflex Defense of the target";
    "Every 5 points over the base DC you get +1 on the following Harvest roll" (R44 for
    natural 20 and 1)."""
    if not 1 <= natural <= 20:
        raise ValueError("a d20 shows 1 to 20")
    result = natural + modifier
    success = natural == 20 or (natural != 1 and result >= dc)
    bonus = max(0, result - dc) // 5 if success else 0
    return HarvestCheck(natural=natural, modifier=modifier, total=result, dc=dc,
                        success=success, critical=natural == 20, bonus=bonus)


class HarvestYield(msgspec.Struct, frozen=True, kw_only=True):
    """The harvest roll: ``result`` after doubling and DR is the amount of resource gained
    (R54); ``threshold_reached`` moves the target -1 step (R45)."""

    dice_total: int
    bonus: int
    doubled: int
    reduction: DamageReduction | None
    result: int
    resources: int
    threshold_reached: bool
    track_after: Track | None


def harvest_yield(check: HarvestCheck, dice_total: int, *,
                  reductions: Sequence[DamageReduction] = (), threshold: int | None = None,
                  track: Track | None = None) -> HarvestYield:
    """Harvest (rulings R45, R54): the harvest roll is a damage roll — dice + the check's bonus,
    doubled after a natural 20, less damage reduction (never below 0). Each point is one unit of
    the resource. A result that equals or exceeds the target's damage threshold (if it has one)
    moves it -1 step."""
    if not check.success:
        raise RuleRefusal("Harvest: the Profession check failed; there is no harvest roll")
    rolled = dice_total + check.bonus
    doubled = rolled * 2 if check.critical else rolled
    dr = choose_reduction(reductions, DamageSource.PHYSICAL)
    result = max(0, doubled - (dr.value if dr else 0))
    reached = threshold is not None and result >= max(1, threshold)
    after = move_down(track) if reached and track is not None else track
    return HarvestYield(dice_total=dice_total, bonus=check.bonus, doubled=doubled, reduction=dr,
                        result=result, resources=result, threshold_reached=reached,
                        track_after=after)
