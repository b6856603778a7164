"""Objects, harvesting and breaking (rules/objects.py): Destructive Harvest, Held, Carried, or
Worn Objects, Breaking an Object, Strength, Harvest; rulings R15, R44, R45, R46, R54."""

from __future__ import annotations

import pytest

from rules.attack import attack_check, attack_outcome
from rules.condition_track import Track
from rules.defenses import defenses
from rules.modifiers import RuleRefusal
from rules.objects import (
    Overweight,
    apply_overweight,
    break_dc,
    break_succeeds,
    harvest_check,
    harvest_yield,
    held_object_reflex,
    object_reflex,
    overweight,
    structure_loss,
)
from rules.sheet import DamageReduction, parse_sheet

DOOR = parse_sheet({"nature": "object", "str": 14, "load_limit": 100})


@pytest.mark.parametrize(("size", "moving", "reflex"), [
    ("medium", False, 5), ("medium", True, 10), ("large", False, 4), ("tiny", True, 12)])
def test_unattended_objects(size: str, moving: bool, reflex: int) -> None:
    """Destructive Harvest: immobile 5 + size modifier; moving 10 + size modifier."""
    obj = parse_sheet({"nature": "object", "size": size})
    assert object_reflex(obj, moving=moving).total == reflex


def test_a_held_object() -> None:
    """Held, Carried, or Worn Objects: 10 + size + the holder's Reflex without armor and natural
    armor: 10 + 1 + (10 + 3 + 1) = 25 for a small object held by an armored small pony."""
    holder = parse_sheet({"size": "small", "dex": 16, "armor_type": "light", "armor_bonus": 4,
                          "natural_armor": 1})
    assert defenses(holder).reflex.total == 19
    held = held_object_reflex(parse_sheet({"nature": "object", "size": "small"}),
                              defenses(holder).reflex)
    assert held.total == 25


def test_an_object_defense_is_used_by_the_attack() -> None:
    check = attack_check(parse_sheet({"skills": {"melee": 2}}), DOOR,
                         target_defense=object_reflex(DOOR))
    assert check.defense.total == 5 and attack_outcome(check, 3).hit


def test_break_dc() -> None:
    """Breaking an Object: 15 + the object's Strength modifier, with its condition penalty."""
    assert break_dc(DOOR).dc == 17
    assert break_dc(DOOR, Track(step=2)).dc == 15
    assert break_dc(DOOR, Track(step=4)).dc == 7
    assert break_succeeds(break_dc(DOOR), 17) and not break_succeeds(break_dc(DOOR), 16)


def test_overweight() -> None:
    """Strength: beyond the heavy load -1 step (now and each round); beyond twice it, disabled
    = destroyed (R15)."""
    assert overweight(DOOR, 100) is Overweight.NONE
    assert overweight(DOOR, 101) is Overweight.STRAINED
    assert overweight(DOOR, 201) is Overweight.DISABLED
    assert apply_overweight(DOOR, 150, Track(step=1)) == Track(step=2)
    assert apply_overweight(DOOR, 250, Track(step=1)).step == 5
    assert apply_overweight(DOOR, 50, Track(step=1)) == Track(step=1)
    with pytest.raises(ValueError, match="not creatures"):
        overweight(parse_sheet({}), 10)


def test_structure_loss_accumulates() -> None:
    """R46: blows add up; each full threshold is one step, the rest carries over."""
    first = structure_loss(0, 7, 10, Track())
    assert (first.accumulated_after, first.steps) == (7, 0)
    second = structure_loss(first.accumulated_after, 5, 10, first.track_after)
    assert (second.accumulated_after, second.steps, second.track_after) == (2, 1, Track(step=1))
    big = structure_loss(0, 35, 10, Track())
    assert (big.accumulated_after, big.steps) == (5, 3)


def test_only_fierce_hits_deal_structure_loss_and_destroyed_objects_yield_nothing() -> None:
    """Destructive Harvest: "If you hit with an fierce maneuver or weapon, you deal structure
    loss"; at the bottom the object is destroyed (R15, R46)."""
    assert structure_loss(0, 30, 10, Track(), fierce=False).loss == 0
    wrecked = structure_loss(0, 60, 10, Track(step=3))
    assert (wrecked.destroyed, wrecked.track_after.step) == (True, 5)
    with pytest.raises(RuleRefusal, match="destroyed"):
        structure_loss(0, 1, 10, wrecked.track_after)


def test_the_harvest_check() -> None:
    """Harvest: against 10; +1 per 5 over; natural 20 succeeds and doubles; natural 1 fails."""
    good = harvest_check(12, 5)
    assert (good.total, good.success, good.bonus, good.critical) == (17, True, 1, False)
    assert harvest_check(10, 10).bonus == 2
    assert not harvest_check(4, 5).success
    assert not harvest_check(1, 30).success
    lucky = harvest_check(20, -15, dc=14)
    assert (lucky.success, lucky.critical, lucky.bonus) == (True, True, 0)


def test_the_harvest_roll() -> None:
    """Harvest (R54): dice + bonus, doubled after a natural 20, less DR, one unit per point; a
    result equal to the threshold moves the target -1 step (R45)."""
    crop = harvest_yield(harvest_check(12, 5), 6, reductions=[DamageReduction(value=2)],
                         threshold=5, track=Track())
    assert (crop.result, crop.resources, crop.threshold_reached, crop.track_after) == (
        5, 5, True, Track(step=1))
    assert harvest_yield(harvest_check(20, 0), 6).result == (6 + 2) * 2  # 20 is 10 over: +2
    assert not harvest_yield(harvest_check(12, 5), 2, threshold=5).threshold_reached
    with pytest.raises(RuleRefusal, match="failed"):
        harvest_yield(harvest_check(2, 0), 6)
