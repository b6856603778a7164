"""Falling, ramming and collision (rules/hazards.py): Flying -> Falling Damage, Ramming,
Collision and the Size / Damage table; rulings R22, R23."""

from __future__ import annotations

import pytest

from rules.attack import attack_check, attack_outcome
from rules.hazards import collision_formulas, fall_outcome, fall_plan, ram_formula, ram_outcome
from rules.modifiers import RuleRefusal
from rules.sheet import DamageReduction, parse_sheet


@pytest.mark.parametrize(("meters", "count", "dice"), [
    (2.9, 0, ""), (3, 1, "1d6"), (10, 3, "3d6"), (59.9, 19, "19d6"), (100, 20, "20d6")])
def test_one_d6_per_whole_3_meters_at_most_20(meters: float, count: int, dice: str) -> None:
    """R22: whole 3-meter steps; a fall under 3 m deals nothing; at most 20d6."""
    plan = fall_plan(meters)
    assert (plan.dice_count, plan.dice, plan.attack_bonus) == (count, dice, 20)


def test_acrobatics_makes_the_fall_3_meters_shorter() -> None:
    """R22: trained, DC 15: success counts the fall 3 m shorter (options for DC and meters)."""
    assert fall_plan(9, trained_acrobatics=True, acrobatics_total=15).dice == "2d6"
    assert fall_plan(9, trained_acrobatics=True, acrobatics_total=14).dice == "3d6"
    assert fall_plan(9, trained_acrobatics=True, acrobatics_total=15,
                     falling_acrobatics_dc=16).dice == "3d6"
    assert fall_plan(9, trained_acrobatics=True, acrobatics_total=15,
                     falling_acrobatics_reduction_m=6).dice == "1d6"
    with pytest.raises(RuleRefusal, match="trained in Acrobatics"):
        fall_plan(9, acrobatics_total=20)


def test_the_falling_attack_decides_full_or_half_damage() -> None:
    """Falling Damage (R22): 1d20+20 against Fortitude: hit full damage, miss half (down)."""
    plan = fall_plan(9)
    full = fall_outcome(plan, 5, 13, 25)
    assert (full.attack_total, full.full, full.damage, full.prone) == (25, True, 13, True)
    half = fall_outcome(plan, 5, 13, 26)
    assert (half.full, half.damage) == (False, 6)


def test_natural_20_and_1_on_the_falling_roll() -> None:
    """R22: a natural 20 is full damage, a natural 1 half; never doubled."""
    plan = fall_plan(9)
    assert fall_outcome(plan, 20, 10, 99).damage == 10
    assert fall_outcome(plan, 1, 10, 5).damage == 5


def test_falling_damage_is_reduced_by_dr_and_the_faller_lands_prone() -> None:
    """R22: physical damage (DR, R13); prone unless Acrobatics succeeded and no damage."""
    plan = fall_plan(9)
    assert fall_outcome(plan, 5, 13, 26, reductions=[DamageReduction(value=5)]).dealt == 1
    nimble = fall_plan(4, trained_acrobatics=True, acrobatics_total=18)
    landed = fall_outcome(nimble, 10, 0, 15)
    assert (landed.dealt, landed.prone) == (0, False)
    padded = fall_plan(9, trained_acrobatics=True, acrobatics_total=18)
    soft = fall_outcome(padded, 2, 4, 30, reductions=[DamageReduction(value=5)])
    assert (soft.dealt, soft.prone) == (0, False)
    assert fall_outcome(fall_plan(4), 10, 0, 15).prone


RAM = parse_sheet({"str": 14, "speed": 6, "fly_speed": 10, "skills": {"melee": 3}})
TARGET = parse_sheet({"speed": 4, "fly_speed": 8})


def test_ram_damage() -> None:
    """Ramming (R23): speed - target's speed if moving away + Str + Size Damage die."""
    formula = ram_formula(RAM, TARGET, target_moving_away=True)
    assert (formula.dice, formula.bonus) == ("2d6", 6 - 4 + 2)
    flying = ram_formula(RAM, TARGET, flying=True)
    assert flying.bonus == 10 + 2
    assert ram_formula(parse_sheet({"size": "huge"}), TARGET).dice == "8d6"
    by_distance = ram_formula(RAM, TARGET, distance_moved=3, ram_speed_from_distance=True)
    assert by_distance.bonus == 3 + 2
    with pytest.raises(RuleRefusal, match="no fly speed"):
        ram_formula(parse_sheet({}), RAM, flying=True)


def test_a_ram_needs_a_hit_and_both_take_the_damage() -> None:
    """R23: a miss deals nothing; a hit: both take D; a natural 20 doubles the target's only;
    each applies its own DR."""
    formula = ram_formula(RAM, TARGET)  # 2d6 + 8
    check = attack_check(RAM, TARGET)
    missed = ram_outcome(formula, 7, outcome=attack_outcome(check, 2))
    assert (missed.hit, missed.target, missed.attacker) == (False, None, None)
    crit = ram_outcome(formula, 7, outcome=attack_outcome(check, 20),
                       attacker_reductions=[DamageReduction(value=3)])
    assert crit.target is not None and crit.attacker is not None
    assert (crit.target.dealt, crit.attacker.dealt) == (30, 12)
    with pytest.raises(ValueError, match="attack outcome"):
        ram_outcome(formula, 7)
    always = ram_outcome(formula, 7, ram_needs_attack_roll=False)
    assert always.target is not None and always.target.dealt == 15


def test_a_ram_deals_at_least_1() -> None:
    slow = parse_sheet({"str": 6, "speed": 1, "size": "fine"})
    formula = ram_formula(slow, TARGET, target_moving_away=True)
    assert (formula.dice, formula.bonus) == ("1", 1 - 4 - 2)
    result = ram_outcome(formula, 1, ram_needs_attack_roll=False)
    assert result.target is not None and result.target.dealt == 1


def test_collision_each_takes_the_others_force() -> None:
    """Collision (R23): both speeds + the other's Str + the other's Size Damage die."""
    pony = parse_sheet({"str": 14, "speed": 6})
    bear = parse_sheet({"str": 18, "size": "large", "speed": 8})
    pony_takes, bear_takes = collision_formulas(pony, bear)
    assert (pony_takes.dice, pony_takes.bonus) == ("4d6", 6 + 8 + 4)
    assert (bear_takes.dice, bear_takes.bonus) == ("2d6", 6 + 8 + 2)
