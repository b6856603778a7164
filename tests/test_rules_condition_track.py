"""The condition track and fatigue (rules/condition_track.py): FATIGUE POINTS AND DAMAGE
THRESHOLD, Second Lunch, Recover, Falling Unconscious, Natural Healing, The Condition Track,
Persistent Conditions; rulings R14 to R18, R45, R50."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.condition_track import (
    LossTier,
    Track,
    condition_penalty,
    condition_speed,
    constitution_check,
    end_of_scene,
    fatigue_loss,
    heal,
    make_persistent,
    move_down,
    move_up,
    natural_healing,
    recover,
    second_lunch,
    zero_fatigue,
)
from rules.modifiers import RuleRefusal
from rules.sheet import DamageSource, Nature, Sheet, parse_sheet

PONY = parse_sheet({"fatigue_points": 20})
CRATE = parse_sheet({"nature": "object"})


def test_six_steps_and_their_penalties() -> None:
    """R15: normal, -1, -2, -5, -10, bottom."""
    assert [condition_penalty(s) for s in range(6)] == [0, -1, -2, -5, -10, 0]
    with pytest.raises(ValueError):
        condition_penalty(6)
    with pytest.raises(ValueError):
        Track(step=1, persistent=2)


def test_moving_down_stops_at_the_bottom() -> None:
    """R15: a move down past the bottom has no further effect."""
    assert move_down(Track(step=5)).step == 5
    assert move_down(Track(step=2), persistent=True) == Track(step=3, persistent=1)
    assert move_down(Track(step=2, persistent=1), crippling=True) == Track(step=3, persistent=2,
                                                                           crippling=1)


def test_persistent_steps_are_a_floor() -> None:
    """R17: moving up never goes below the persistent steps."""
    track = Track(step=3, persistent=2)
    assert move_up(track) == Track(step=2, persistent=2)
    assert move_up(move_up(track)) == Track(step=2, persistent=2)
    assert move_up(Track(step=4, persistent=1), 5).step == 1
    assert make_persistent(Track(step=5)) == Track(step=5, persistent=1)
    assert make_persistent(Track(step=1, persistent=1)) == Track(step=1, persistent=1)


def test_a_loss_below_the_threshold_only_costs_fatigue() -> None:
    result = fatigue_loss(20, 5, 15, Track())
    assert (result.fatigue_after, result.track_after.step, result.threshold_reached) == (15, 0,
                                                                                         False)


def test_a_loss_equal_to_the_threshold_moves_one_step() -> None:
    """Damage Threshold (R45): "equals or exceeds" moves -1 step."""
    result = fatigue_loss(20, 15, 15, Track())
    assert (result.fatigue_after, result.track_after.step, result.threshold_reached) == (5, 1,
                                                                                         True)


def test_the_excess_of_the_hit_that_reaches_0_counts() -> None:
    """R14.1: fp 10, loss 11: fp 0 and the excess 1 is a loss at 0 fp (one step); with
    zero_fp_overflow_counts=False it is discarded."""
    result = fatigue_loss(10, 11, 15, Track())
    assert (result.fatigue_after, result.at_zero, result.tier, result.track_after.step) == (
        0, 1, LossTier.STEP, 1)
    discarded = fatigue_loss(10, 11, 15, Track(), zero_fp_overflow_counts=False)
    assert (discarded.at_zero, discarded.track_after.step) == (0, 0)
    exact = fatigue_loss(10, 10, 15, Track())
    assert (exact.fatigue_after, exact.track_after.step) == (0, 0)


@pytest.mark.parametrize(("loss", "tier", "track"), [
    (1, LossTier.STEP, Track(step=1)),
    (15, LossTier.STEP, Track(step=1)),
    (16, LossTier.PERSISTENT, Track(step=1, persistent=1)),
    (30, LossTier.PERSISTENT, Track(step=1, persistent=1)),
    (31, LossTier.CRIPPLING, Track(step=2, persistent=2, crippling=1)),
    (44, LossTier.CRIPPLING, Track(step=2, persistent=2, crippling=1)),
    (45, LossTier.FATAL, Track(step=5)),
])
def test_losses_at_0_fatigue_points(loss: int, tier: LossTier, track: Track) -> None:
    """R14.2 with T = 15: 15 one step; 16 persistent; 31 persistent + crippling; 45 fatal."""
    result = fatigue_loss(0, loss, 15, Track())
    assert (result.tier, result.track_after, result.threshold_reached) == (tier, track, False)
    assert result.dead is (tier is LossTier.FATAL)


def test_inclusive_tiers_option() -> None:
    """R14, zero_fp_threshold_inclusive: tiers at X >= T and X >= 2T."""
    assert fatigue_loss(0, 15, 15, Track(), zero_fp_threshold_inclusive=True).tier is \
        LossTier.PERSISTENT
    assert fatigue_loss(0, 30, 15, Track(), zero_fp_threshold_inclusive=True).tier is \
        LossTier.CRIPPLING


def test_threshold_step_and_excess_both_apply() -> None:
    """R14.1: fp 10, loss 40, T 15: -1 step for the threshold, then the excess 30 (> T, not
    > 2T) is a persistent step."""
    result = fatigue_loss(10, 40, 15, Track())
    assert result.threshold_reached and result.at_zero == 30
    assert result.track_after == Track(step=2, persistent=1)


def test_a_mental_fatal_blow_knocks_out() -> None:
    """R14.3: a mental fatal blow moves the mental track to the bottom; it does not kill."""
    result = fatigue_loss(0, 30, 10, Track(step=1), source=DamageSource.MENTAL)
    assert (result.tier, result.dead, result.unconscious, result.track_after.step) == (
        LossTier.FATAL, False, True, 5)


def test_the_bottom_of_the_track() -> None:
    """The Condition Track: a creature at the bottom is unconscious; an object destroyed."""
    creature = fatigue_loss(0, 1, 10, Track(step=4))
    assert creature.unconscious and not creature.destroyed and not creature.dead
    crate = fatigue_loss(0, 1, 10, Track(step=4), nature=Nature.OBJECT)
    assert crate.destroyed and not crate.unconscious
    smashed = fatigue_loss(0, 30, 10, Track(), nature=Nature.OBJECT)
    assert smashed.destroyed and not smashed.dead
    with pytest.raises(ValueError, match="no mental track"):
        fatigue_loss(0, 1, 10, Track(), source=DamageSource.MENTAL, nature=Nature.OBJECT)


def test_a_loss_of_0_does_nothing() -> None:
    result = fatigue_loss(0, 0, 10, Track(step=2))
    assert (result.tier, result.track_after) == (LossTier.NONE, Track(step=2))


def test_zero_fatigue_points() -> None:
    """R14.5: defenseless, no reactions, a single action (option zero_fp_single_action)."""
    assert zero_fatigue(0) == zero_fatigue(0, zero_fp_single_action=True)
    z = zero_fatigue(0)
    assert (z.defenseless, z.reactions, z.single_action) == (True, False, True)
    assert not zero_fatigue(0, zero_fp_single_action=False).single_action
    assert not zero_fatigue(1).defenseless


def test_healing_is_capped_at_the_maximum() -> None:
    result = heal(15, 20, 8, physical=Track(), mental=Track())
    assert (result.fatigue_after, result.revived, result.prone) == (20, False, False)


def test_healing_revives_an_unconscious_creature() -> None:
    """Falling Unconscious (R16): fp = the amount healed, +1 step, prone."""
    result = heal(0, 20, 6, physical=Track(step=5, persistent=1), mental=Track(), unconscious=True)
    assert (result.fatigue_after, result.physical, result.revived, result.prone) == (
        6, Track(step=4, persistent=1), True, True)


def test_the_constitution_check() -> None:
    """R16: 1d20 + Con against DC 10, meeting it succeeds: +1 step, conscious; a failure makes
    one condition persistent."""
    woke = constitution_check(8, 2, physical=Track(step=5), mental=Track())
    assert (woke.total, woke.success, woke.physical, woke.conscious) == (10, True,
                                                                         Track(step=4), True)
    failed = constitution_check(7, 2, physical=Track(step=5), mental=Track())
    assert (failed.success, failed.physical, failed.conscious) == (
        False, Track(step=5, persistent=1), False)
    mental = constitution_check(2, 0, physical=Track(step=1), mental=Track(step=5))
    assert (mental.physical, mental.mental) == (Track(step=1), Track(step=5, persistent=1))


def test_second_lunch() -> None:
    """Second Lunch: at half or less, a quarter of the maximum (rounded down) + food."""
    lunch = second_lunch(PONY, 10, uses_today=0, used_this_encounter=False)
    assert (lunch.regained, lunch.fatigue_after, lunch.action, lunch.uses_today) == (5, 15,
                                                                                     "swift", 1)
    fed = second_lunch(PONY, 4, uses_today=0, used_this_encounter=False, food_bonus=3)
    assert (fed.fatigue_after, fed.action) == (12, "full_round")
    odd = parse_sheet({"fatigue_points": 23})
    assert second_lunch(odd, 11, uses_today=0, used_this_encounter=False).regained == 5


@pytest.mark.parametrize(("sheet", "fp", "uses", "used", "why"), [
    (PONY, 11, 0, False, "one-half the maximum"),
    (PONY, 10, 1, False, "already used 1 of 1"),
    (PONY, 10, 0, True, "once in a single encounter"),
    (CRATE, 1, 0, False, "objects, plants and vehicles"),
])
def test_second_lunch_refusals(sheet: Sheet, fp: int, uses: int, used: bool, why: str) -> None:
    with pytest.raises(RuleRefusal, match=why):
        second_lunch(sheet, fp, uses_today=uses, used_this_encounter=used)


def test_extra_second_lunch_allows_another_per_day() -> None:
    glutton = parse_sheet({"fatigue_points": 20, "feats": ["extra_second_lunch"]})
    assert second_lunch(glutton, 10, uses_today=1, used_this_encounter=False).uses_today == 2
    with pytest.raises(RuleRefusal, match="2 of 2"):
        second_lunch(glutton, 10, uses_today=2, used_this_encounter=False)


def test_recover() -> None:
    """R18: refused in a dramatic scene unless recover_in_scene; +1 fp, capped; refused with a
    persistent condition (R17)."""
    with pytest.raises(RuleRefusal, match="dramatic scene"):
        recover(PONY, 5, physical=Track(), mental=Track())
    assert recover(PONY, 5, physical=Track(), mental=Track(), recover_in_scene=True) == 6
    assert recover(PONY, 20, physical=Track(), mental=Track(), in_scene=False) == 20
    with pytest.raises(RuleRefusal, match="persistent"):
        recover(PONY, 5, physical=Track(step=1, persistent=1), mental=Track(), in_scene=False)


def test_natural_healing() -> None:
    """Natural Healing: all fp and the whole track; not with a persistent condition (R17), once
    per day, living creatures only."""
    rest = natural_healing(PONY, physical=Track(step=3), mental=Track(step=1))
    assert (rest.fatigue_after, rest.physical, rest.mental) == (20, Track(), Track())
    with pytest.raises(RuleRefusal, match="persistent"):
        natural_healing(PONY, physical=Track(step=2), mental=Track(step=1, persistent=1))
    with pytest.raises(RuleRefusal, match="24-hour"):
        natural_healing(PONY, physical=Track(), mental=Track(), healed_in_last_day=True)
    with pytest.raises(RuleRefusal, match="living creatures"):
        natural_healing(CRATE, physical=Track(), mental=Track())


def test_end_of_scene_improvement() -> None:
    """R50: +1 step on each track, never below the persistent steps; not while unconscious; not
    with end_of_scene_recovery=False; objects do not improve."""
    end = end_of_scene(PONY, physical=Track(step=2, persistent=2), mental=Track(step=3))
    assert (end.physical, end.mental, end.improved) == (Track(step=2, persistent=2),
                                                        Track(step=2), True)
    out = end_of_scene(PONY, physical=Track(step=5), mental=Track(step=1))
    assert (out.physical.step, out.mental.step, out.improved) == (5, 1, False)
    off = end_of_scene(PONY, physical=Track(step=2), mental=Track(),
                       end_of_scene_recovery=False)
    assert off.physical.step == 2
    assert end_of_scene(CRATE, physical=Track(step=2), mental=Track()).physical.step == 2


def test_condition_half_speed_option() -> None:
    """R15, condition_half_speed: half speed at steps 3 and 4."""
    assert condition_speed(6, 3) == 6
    assert [condition_speed(6, s, condition_half_speed=True) for s in range(6)] == [6, 6, 6, 3,
                                                                                  3, 6]


# Properties -----------------------------------------------------------------------------------

tracks = st.builds(lambda step, p, c: Track(step=step, persistent=min(p, step),
                                            crippling=min(c, p, step)),
                   st.integers(0, 5), st.integers(0, 5), st.integers(0, 5))


def valid(track: Track) -> bool:
    return 0 <= track.crippling <= track.persistent <= track.step <= 5


@given(fp=st.integers(0, 200), loss=st.integers(0, 500), threshold=st.integers(-5, 80),
       track=tracks, inclusive=st.booleans(), overflow=st.booleans())
def test_fatigue_never_below_0_and_the_track_stays_valid(
        fp: int, loss: int, threshold: int, track: Track, inclusive: bool,
        overflow: bool) -> None:
    result = fatigue_loss(fp, loss, threshold, track, zero_fp_threshold_inclusive=inclusive,
                          zero_fp_overflow_counts=overflow)
    assert 0 <= result.fatigue_after <= fp
    assert valid(result.track_after)
    assert result.track_after.step >= track.step
    assert result.track_after.persistent >= track.persistent


@given(fp=st.integers(0, 100), maximum=st.integers(0, 100), amount=st.integers(0, 300),
       physical=tracks, mental=tracks, unconscious=st.booleans())
def test_healing_never_goes_above_the_maximum(fp: int, maximum: int, amount: int,
                                              physical: Track, mental: Track,
                                              unconscious: bool) -> None:
    fp = min(fp, maximum)
    result = heal(fp, maximum, amount, physical=physical, mental=mental, unconscious=unconscious)
    assert 0 <= result.fatigue_after <= maximum
    assert valid(result.physical) and valid(result.mental)


@given(track=tracks, steps=st.integers(0, 10))
def test_moving_up_never_goes_below_the_persistent_floor(track: Track, steps: int) -> None:
    after = move_up(track, steps)
    assert after.step >= after.persistent == track.persistent
    assert after.step == max(track.persistent, track.step - steps)


@given(start=tracks, ops=st.lists(st.sampled_from(
    ["down", "persistent", "crippling", "up", "make_persistent", "loss", "scene"]), max_size=30),
    losses=st.lists(st.integers(0, 60), min_size=30, max_size=30))
def test_any_sequence_keeps_fatigue_and_steps_in_bounds(start: Track, ops: list[str],
                                                        losses: list[int]) -> None:
    """Fatigue stays in 0..max, steps in 0..5, persistent <= step, whatever happens."""
    track, fp, maximum = start, 20, 20
    for op, loss in zip(ops, losses, strict=False):
        floor = track.persistent
        if op == "down":
            track = move_down(track)
        elif op == "persistent":
            track = move_down(track, persistent=True)
        elif op == "crippling":
            track = move_down(track, crippling=True)
        elif op == "up":
            track = move_up(track)
            assert track.step >= floor
        elif op == "make_persistent":
            track = make_persistent(track)
        elif op == "loss":
            result = fatigue_loss(fp, loss, 12, track)
            fp, track = result.fatigue_after, result.track_after
        else:
            track = end_of_scene(PONY, physical=track, mental=Track()).physical
            fp = heal(fp, maximum, loss, physical=track, mental=Track()).fatigue_after
        assert 0 <= fp <= maximum
        assert valid(track)
