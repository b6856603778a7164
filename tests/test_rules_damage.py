"""Damage (rules/damage.py): DAMAGE, NATURAL ATTACKS, Engage, Critical Hits, DAMAGE REDUCTION
(DR); rulings R12, R13, R44."""

from __future__ import annotations

import pytest

from rules.damage import choose_reduction, damage_dealt, damage_formula
from rules.sheet import DamageReduction, DamageSource, Size, parse_sheet

HERO = parse_sheet({
    "heroic_level": 5, "str": 14,
    "weapons": [
        {"name": "sword", "damage": "1d8", "kind": "melee", "damage_types": ["slashing"]},
        {"name": "bow", "damage": "1d8", "kind": "ranged", "damage_types": ["piercing"]},
        {"name": "javelin", "damage": "1d6", "kind": "thrown"},
        {"name": "claws", "damage": "1d8", "kind": "natural", "fierce": True},
        {"name": "hooves", "kind": "natural"},
        {"name": "arcane blast", "damage": "2d6", "kind": "ranged", "damage_types": ["magic"]},
    ]})


def test_unarmed_damage_is_the_size_die_plus_half_level_plus_strength() -> None:
    """DAMAGE / NATURAL ATTACKS (R12): Medium 1d6 + 5 // 2 + Str 2."""
    formula = damage_formula(HERO)
    assert (formula.dice, formula.bonus) == ("1d6", 4)
    assert [(p.name, p.value) for p in formula.parts] == [
        ("one-half heroic level", 2), ("Strength modifier", 2)]


@pytest.mark.parametrize(("size", "die"), [
    ("fine", "1"), ("diminutive", "1d2"), ("tiny", "1d3"), ("small", "1d4"), ("medium", "1d6"),
    ("large", "1d8"), ("huge", "2d6"), ("gargantuan", "3d6"), ("colossal", "4d6")])
def test_the_unarmed_die_by_size(size: str, die: str) -> None:
    """R12: Fine 1 ... Small 1d4, Medium 1d6 ... Colossal 4d6."""
    assert damage_formula(parse_sheet({"size": size})).dice == die
    assert Size(size)


def test_a_natural_weapon_without_damage_uses_the_size_die() -> None:
    assert damage_formula(HERO, weapon="hooves").dice == "1d6"
    claws = damage_formula(HERO, weapon="claws")
    assert (claws.dice, claws.bonus, claws.fierce) == ("1d8", 4, True)


def test_melee_and_thrown_add_strength_ranged_does_not() -> None:
    """DAMAGE: melee and thrown: weapon + half level + Str; ranged: weapon + half level."""
    assert damage_formula(HERO, weapon="sword").bonus == 4
    assert damage_formula(HERO, weapon="javelin").bonus == 4
    assert damage_formula(HERO, weapon="sword", throw=True).bonus == 4
    bow = damage_formula(HERO, weapon="bow")
    assert (bow.dice, bow.bonus, bow.damage_types) == ("1d8", 2, ("piercing",))


def test_engage_is_a_normal_attack_unless_the_option_says_otherwise() -> None:
    """Flying -> Engage (R12): normal damage; engage_adds_half_level=False: Str + weapon only."""
    assert damage_formula(HERO, weapon="sword", engage=True).bonus == 4
    short = damage_formula(HERO, weapon="sword", engage=True, engage_adds_half_level=False)
    assert [(p.name, p.value) for p in short.parts] == [("Strength modifier", 2)]
    assert damage_formula(HERO, weapon="bow", engage=True, engage_adds_half_level=False).bonus == 2


def test_a_critical_hit_doubles_the_total() -> None:
    """Critical Hits (R44, R13 step 2): (3 + 4) * 2 = 14."""
    hit = damage_dealt(damage_formula(HERO), 3, critical=True)
    assert (hit.rolled, hit.doubled, hit.dealt) == (7, 14, 14)
    assert damage_dealt(damage_formula(HERO), 3).dealt == 7


def test_a_hit_deals_at_least_1() -> None:
    """DAMAGE -> Weapon Damage: at least 1 point even with penalties (Str 3: -4)."""
    weak = damage_formula(parse_sheet({"str": 3}))
    hit = damage_dealt(weak, 1)
    assert (hit.rolled, hit.after_minimum, hit.dealt) == (-3, 1, 1)


def test_damage_reduction_can_lower_a_hit_to_0() -> None:
    """R13: the minimum comes before DR; DR may leave 0 (option: at least 1)."""
    weak = damage_formula(parse_sheet({"str": 3}))
    dr = [DamageReduction(value=2)]
    assert damage_dealt(weak, 1, reductions=dr).dealt == 0
    assert damage_dealt(weak, 1, reductions=dr, dr_respects_minimum_damage=True).dealt == 1
    sword = damage_dealt(damage_formula(HERO, weapon="sword"), 5, critical=True, reductions=dr)
    assert (sword.doubled, sword.reduced_by, sword.dealt) == (18, 2, 16)


def test_the_reduction_that_most_benefits_the_defender() -> None:
    """DAMAGE REDUCTION: DR 1 and DR 10/magic against an arcane blast: DR 1 applies; against a
    sword: DR 10."""
    drs = [DamageReduction(value=1), DamageReduction(value=10, bypass=("magic",)),
           DamageReduction(value=20, source=DamageSource.MENTAL)]
    blast = damage_dealt(damage_formula(HERO, weapon="arcane blast"), 7, reductions=drs)
    assert (blast.reduction, blast.dealt) == (drs[0], 9 - 1)
    sword = damage_dealt(damage_formula(HERO, weapon="sword"), 7, reductions=drs)
    assert (sword.reduction, sword.dealt) == (drs[1], 1)
    assert choose_reduction(drs, DamageSource.MENTAL) == drs[2]
    assert choose_reduction([], DamageSource.PHYSICAL) is None


def test_natural_and_unarmed_attacks_cannot_be_thrown() -> None:
    with pytest.raises(ValueError, match="cannot be thrown"):
        damage_formula(HERO, weapon="claws", throw=True)
