"""Damage ("MLP Dramatic Systems", COMBAT STATISTICS -> DAMAGE, Critical Hits, DAMAGE REDUCTION
(DR), NATURAL ATTACKS, Flying -> Engage; rulings R12, R13, R44).

Staged like the attack roll:

1. ``damage_formula(attacker, weapon=..., ...) -> DamageFormula`` — the dice expression to roll
   (d20 notation, e.g. ``"1d6"``) and the itemised flat bonuses.
2. ``damage_dealt(formula, dice_total, *, critical, reductions, ...) -> Damage`` — the total,
   doubled on a critical hit, at least 1, less the damage reduction that most benefits the
   target (R13). ``Damage.dealt`` is the fatigue loss for rules.condition_track.fatigue_loss.

``choose_reduction(reductions, source, damage_types)`` picks the DR that applies (R13).
Options: ``engage_adds_half_level`` (R12, default ``True``), ``dr_respects_minimum_damage``
(R13, default ``False``).
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from rules.modifiers import Modifier, total
from rules.sheet import UNARMED_DIE, DamageReduction, DamageSource, Sheet, Weapon, WeaponKind


class DamageFormula(msgspec.Struct, frozen=True, kw_only=True):
    """What to roll (``dice``) and what to add (``parts``, summed in ``bonus``); ``minimum`` is
    the least a hit deals before damage reduction."""

    weapon: str
    dice: str
    dice_section: str
    parts: tuple[Modifier, ...]
    bonus: int
    damage_types: tuple[str, ...] = ()
    source: DamageSource = DamageSource.PHYSICAL
    fierce: bool = False
    minimum: int = 1


class Damage(msgspec.Struct, frozen=True, kw_only=True):
    """One hit's damage, step by step (R13): ``rolled`` = dice + bonus; ``doubled`` after a
    critical hit; ``after_minimum``; the ``reduction`` applied (or ``None``) and what it took;
    ``dealt`` is the fatigue loss."""

    dice_total: int
    bonus: int
    rolled: int
    critical: bool
    doubled: int
    after_minimum: int
    reduction: DamageReduction | None
    reduced_by: int
    dealt: int


def damage_formula(
    attacker: Sheet,
    *,
    weapon: Weapon | str | None = None,
    throw: bool = False,
    engage: bool = False,
    engage_adds_half_level: bool = True,
) -> DamageFormula:
    """DAMAGE (ruling R12).

    - Unarmed, natural, melee and thrown: weapon damage, or for an unarmed or natural attack
      without its own damage the size die (Fine 1, Diminutive 1d2, Tiny 1d3, Small 1d4, Medium
      1d6, Large 1d8, Huge 2d6, Gargantuan 3d6, Colossal 4d6) + one-half heroic level (rounded
      down) + Strength modifier.
    - Ranged: weapon damage + one-half heroic level.
    - Engage (Flying): the same as the attack on the ground; with ``engage_adds_half_level``
      ``False`` only Strength modifier + weapon damage.
    """
    w = attacker.weapon(weapon) if isinstance(weapon, str) else weapon or attacker.weapon(
        "unarmed")
    if throw and w.kind in (WeaponKind.NATURAL, WeaponKind.UNARMED):
        raise ValueError(f"{w.name} cannot be thrown")
    dice = w.damage or UNARMED_DIE[attacker.size]
    section = ("DAMAGE: Weapon Damage" if w.damage
               else f"NATURAL ATTACKS: size {attacker.size} (R12)")
    parts: list[Modifier] = []
    half = attacker.heroic_level // 2
    if half and not (engage and not engage_adds_half_level):
        parts.append(Modifier("one-half heroic level", half, "DAMAGE: One-Half Heroic Level"))
    ranged = w.kind is WeaponKind.RANGED and not throw
    if not ranged or (engage and not engage_adds_half_level):
        parts.append(Modifier("Strength modifier", attacker.mod("str"),
                              "Flying: Engage (R12)" if engage
                              else "DAMAGE: Strength Modifier"))
    return DamageFormula(weapon=w.name, dice=dice, dice_section=section, parts=tuple(parts),
                         bonus=total(parts), damage_types=w.damage_types, fierce=w.fierce)


def choose_reduction(reductions: Sequence[DamageReduction], source: DamageSource,
                     damage_types: Sequence[str] = ()) -> DamageReduction | None:
    """DAMAGE REDUCTION (DR): of the reductions against this ``source`` that the damage types do
    not bypass, the one that most benefits the target (the largest); ``None`` when none
    applies."""
    applicable = [dr for dr in reductions if dr.source is source
                  and not set(dr.bypass) & set(damage_types)]
    return max(applicable, key=lambda dr: dr.value, default=None)


def damage_dealt(
    formula: DamageFormula,
    dice_total: int,
    *,
    critical: bool = False,
    reductions: Sequence[DamageReduction] = (),
    dr_respects_minimum_damage: bool = False,
) -> Damage:
    """Ruling R13, in order: (1) dice + bonuses; (2) a critical hit doubles it (R44); (3) below
    the minimum (1) it becomes the minimum; (4) less the damage reduction that applies (see
    :func:`choose_reduction`), never below 0 — or, with ``dr_respects_minimum_damage``, never
    below the minimum."""
    rolled = dice_total + formula.bonus
    doubled = rolled * 2 if critical else rolled
    after_minimum = max(formula.minimum, doubled)
    dr = choose_reduction(reductions, formula.source, formula.damage_types)
    reduced = after_minimum - (dr.value if dr else 0)
    floor = formula.minimum if dr_respects_minimum_damage else 0
    dealt = max(floor, reduced)
    return Damage(dice_total=dice_total, bonus=formula.bonus, rolled=rolled, critical=critical,
                  doubled=doubled, after_minimum=after_minimum, reduction=dr,
                  reduced_by=after_minimum - dealt, dealt=dealt)
