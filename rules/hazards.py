"""Falling and flying hazards ("MLP Dramatic Systems", Flying -> Falling Damage, Flying Basic
Maneuver -> Ramming, Collision, Engage and the Size / Damage table; rulings R22, R23, R12).

Staged, with the dice as inputs:

- Falling: ``fall_plan(distance_m, ...) -> FallPlan`` (the Acrobatics reduction, the dice to
  roll, the 1d20+20 attack), then ``fall_outcome(plan, natural_d20, dice_total, fortitude,
  ...) -> Fall`` (full or half damage, DR, prone).
- Ramming: ``ram_formula(attacker, target, ...) -> DamageFormula`` (the attack roll is the
  ordinary melee attack of rules.attack), then ``ram_outcome(formula, dice_total, outcome=...,
  ...) -> Ram`` (what the target and the attacker each take).
- Collision: ``collision_formulas(a, b, ...) -> (what a takes, what b takes)``, each a
  ``DamageFormula`` for rules.damage.damage_dealt with the taker's own DR.
- Engage is an ordinary attack: rules.damage.damage_formula(..., engage=True) (R12).

Options: ``falling_acrobatics_dc`` (15), ``falling_acrobatics_reduction_m`` (3) (R22);
``ram_speed_from_distance`` (``False``), ``ram_needs_attack_roll`` (``True``) (R23).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import msgspec

from rules.attack import AttackOutcome
from rules.damage import Damage, DamageFormula, choose_reduction, damage_dealt
from rules.modifiers import Modifier, RuleRefusal, total
from rules.sheet import SIZE_DAMAGE, DamageReduction, DamageSource, Sheet

#: Falling Damage: "1d6 points of damage for every 3 meters fallen (to a maximum of 20d6)".
FALL_STEP_M = 3
MAX_FALL_DICE = 20
#: Falling Damage: "make an attack roll (ld20+20) against its Fortitude Defense".
FALL_ATTACK_BONUS = 20


class FallPlan(msgspec.Struct, frozen=True, kw_only=True):
    """A fall before its dice: the distance that counts after Acrobatics, the damage dice
    (``""`` when the fall is under 3 m) and the attack bonus of the 1d20 roll."""

    distance_m: float
    acrobatics: bool | None
    effective_m: float
    dice_count: int
    dice: str
    attack_bonus: int = FALL_ATTACK_BONUS


class Fall(msgspec.Struct, frozen=True, kw_only=True):
    """A fall resolved: ``full`` damage or half (rounded down), ``dealt`` after DR, and whether
    the faller lands ``prone``."""

    natural: int
    attack_total: int
    fortitude: int
    full: bool
    dice_total: int
    damage: int
    reduction: DamageReduction | None
    dealt: int
    prone: bool


def fall_plan(distance_m: float, *, trained_acrobatics: bool = False,
              acrobatics_total: int | None = None, falling_acrobatics_dc: int = 15,
              falling_acrobatics_reduction_m: float = 3) -> FallPlan:
    """Falling Damage (ruling R22): a faller trained in Acrobatics may make a check
    (``acrobatics_total``) against ``falling_acrobatics_dc``; success makes the fall count
    ``falling_acrobatics_reduction_m`` meters shorter. One d6 per whole 3 m, at most 20."""
    if distance_m < 0:
        raise ValueError("a fall cannot be negative")
    success: bool | None = None
    effective = float(distance_m)
    if acrobatics_total is not None:
        if not trained_acrobatics:
            raise RuleRefusal("Falling Damage: only a faller trained in Acrobatics can reduce "
                              "the damage with an Acrobatics check (R22)")
        success = acrobatics_total >= falling_acrobatics_dc
        if success:
            effective = max(0.0, effective - falling_acrobatics_reduction_m)
    count = min(MAX_FALL_DICE, math.floor(effective / FALL_STEP_M))
    return FallPlan(distance_m=float(distance_m), acrobatics=success, effective_m=effective,
                    dice_count=count, dice=f"{count}d6" if count else "")


def fall_outcome(plan: FallPlan, natural: int, dice_total: int, fortitude: int, *,
                 reductions: Sequence[DamageReduction] = ()) -> Fall:
    """Falling Damage (ruling R22): 1d20 + 20 against Fortitude Defense; equal or higher (or a
    natural 20) full damage, lower (or a natural 1) half, rounded down; never doubled. The damage
    is a physical fatigue loss, reduced by DR (R13). The faller lands prone unless its
    Acrobatics check succeeded and it took no damage."""
    if not 1 <= natural <= 20:
        raise ValueError("a d20 shows 1 to 20")
    if dice_total < 0 or (plan.dice_count == 0 and dice_total):
        raise ValueError("the dice total does not fit the fall's dice")
    attack = natural + plan.attack_bonus
    full = natural == 20 or (natural != 1 and attack >= fortitude)
    damage = dice_total if full else dice_total // 2
    dr = choose_reduction(reductions, DamageSource.PHYSICAL)
    dealt = max(0, damage - (dr.value if dr else 0))
    return Fall(natural=natural, attack_total=attack, fortitude=fortitude, full=full,
                dice_total=dice_total, damage=damage, reduction=dr, dealt=dealt,
                prone=not (plan.acrobatics and dealt == 0))


def _speed(sheet: Sheet, *, flying: bool, moved: int | None, from_distance: bool,
           who: str) -> tuple[int, str]:
    """R23: the speed score of the movement mode used (fly speed when flying), or with
    ``ram_speed_from_distance`` the distance moved this turn."""
    if from_distance:
        if moved is None:
            raise ValueError(f"{who}: the distance moved is needed (ram_speed_from_distance)")
        return moved, f"{who}'s distance moved"
    if flying and sheet.fly_speed == 0:
        raise RuleRefusal(f"{who} has no fly speed")
    if flying and sheet.heavy_load:
        raise RuleRefusal(f"{who} carries a heavy load and cannot fly (ENCUMBRANCE AND SPEED; "
                          "ruling R83)")
    return (sheet.fly_speed, f"{who}'s fly speed") if flying else (sheet.speed,
                                                                     f"{who}'s speed")


def ram_formula(attacker: Sheet, target: Sheet, *, flying: bool = False,
                target_flying: bool = False, target_moving_away: bool = False,
                distance_moved: int | None = None, target_distance_moved: int | None = None,
                ram_speed_from_distance: bool = False) -> DamageFormula:
    """Ramming (ruling R23): attacker's speed - (target's speed if it is moving away) +
    attacker's Strength modifier + attacker's Size Damage die (Flying size table), at least 1."""
    section = "Flying Basic Maneuver: Ramming (R23)"
    speed, label = _speed(attacker, flying=flying, moved=distance_moved,
                          from_distance=ram_speed_from_distance, who="attacker")
    parts = [Modifier(label, speed, section)]
    if target_moving_away:
        t_speed, t_label = _speed(target, flying=target_flying, moved=target_distance_moved,
                                  from_distance=ram_speed_from_distance, who="target")
        parts.append(Modifier(f"{t_label} (moving away)", -t_speed, section))
    parts.append(Modifier("attacker's Strength modifier", attacker.mod("str"), section))
    return DamageFormula(weapon="ram", dice=SIZE_DAMAGE[attacker.size],
                         dice_section=f"Flying: Size Damage ({attacker.size})",
                         parts=tuple(parts), bonus=total(parts))


class Ram(msgspec.Struct, frozen=True, kw_only=True):
    """A ram resolved: no damage on a miss; otherwise what the target and the attacker take."""

    hit: bool
    target: Damage | None
    attacker: Damage | None


def ram_outcome(formula: DamageFormula, dice_total: int, *, outcome: AttackOutcome | None = None,
                target_reductions: Sequence[DamageReduction] = (),
                attacker_reductions: Sequence[DamageReduction] = (),
                ram_needs_attack_roll: bool = True,
                dr_respects_minimum_damage: bool = False) -> Ram:
    """Ramming (ruling R23): a melee attack against Reflex; on a miss nobody takes damage; on a
    hit both take the damage, each less its own DR — a natural 20 doubles the target's only.
    With ``ram_needs_attack_roll`` ``False`` the ram always connects (``outcome`` unused)."""
    if ram_needs_attack_roll:
        if outcome is None:
            raise ValueError("a ram needs its attack outcome (ram_needs_attack_roll, R23)")
        if not outcome.hit:
            return Ram(hit=False, target=None, attacker=None)
    critical = bool(ram_needs_attack_roll and outcome is not None and outcome.critical)
    return Ram(hit=True,
               target=damage_dealt(formula, dice_total, critical=critical,
                                   reductions=target_reductions,
                                   dr_respects_minimum_damage=dr_respects_minimum_damage),
               attacker=damage_dealt(formula, dice_total, reductions=attacker_reductions,
                                     dr_respects_minimum_damage=dr_respects_minimum_damage))


def collision_formulas(a: Sheet, b: Sheet, *, a_flying: bool = False, b_flying: bool = False,
                       a_distance_moved: int | None = None,
                       b_distance_moved: int | None = None,
                       ram_speed_from_distance: bool = False,
                       ) -> tuple[DamageFormula, DamageFormula]:
    """Collision (ruling R23): no roll; each side takes both speeds + the *other* side's
    Strength modifier + the other side's Size Damage die, at least 1. Returns (what ``a`` takes,
    what ``b`` takes); each applies its own DR with rules.damage.damage_dealt."""
    section = "Flying Basic Maneuver: Collision (R23)"
    a_speed, a_label = _speed(a, flying=a_flying, moved=a_distance_moved,
                              from_distance=ram_speed_from_distance, who="first")
    b_speed, b_label = _speed(b, flying=b_flying, moved=b_distance_moved,
                              from_distance=ram_speed_from_distance, who="second")
    speeds = [Modifier(a_label, a_speed, section), Modifier(b_label, b_speed, section)]

    def taken_from(other: Sheet, who: str) -> DamageFormula:
        parts = [*speeds, Modifier(f"{who}'s Strength modifier", other.mod("str"), section)]
        return DamageFormula(weapon="collision", dice=SIZE_DAMAGE[other.size],
                             dice_section=f"Flying: Size Damage ({other.size})",
                             parts=tuple(parts), bonus=total(parts))

    return taken_from(b, "second"), taken_from(a, "first")
