"""Action Time ability dice and the die ladder (README; ruling R30)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.action_time.dice_ladder import (
    LADDER,
    DieError,
    die_name,
    face_total,
    net_die,
    parse_die,
)


@pytest.mark.parametrize(("text", "sides"), [("d4", 4), ("D8", 8), ("1d12", 12), ("d20", 20),
                                              (10, 10)])
def test_stat_block_dice_are_parsed(text: object, sides: int) -> None:
    assert parse_die(text) == sides


@pytest.mark.parametrize("bad", ["d7", "2d6", "d100", "", "eight", 7, True, None, 3.0])
def test_anything_off_the_ladder_is_refused_naming_the_field(bad: object) -> None:
    with pytest.raises(DieError, match=r"^mind: "):
        parse_die(bad, "mind")


def test_the_ladder_runs_d4_to_d20() -> None:
    assert LADDER == (4, 6, 8, 10, 12, 20)
    assert die_name(10) == "d10"


def test_an_upgrade_raises_one_step_a_downgrade_lowers_one() -> None:
    assert net_die(8, 1).sides == 10
    assert net_die(8, -1).sides == 6
    assert net_die(12, 1).sides == 20
    assert net_die(8, 1).expr == "1d10"


def test_r30_examples_net_first_then_clamp() -> None:
    """R30: a d20 with one upgrade and one downgrade stays a d20; a d12 with three upgrades
    becomes a d20; a d4 with two downgrades stays a d4."""
    assert net_die(20, 1 - 1).sides == 20
    assert net_die(12, 3).sides == 20
    assert net_die(4, -2).sides == 4
    assert net_die(12, 3).beyond == 2


def test_r30_modifier_option_adds_the_steps_beyond_the_end_to_the_face() -> None:
    up = net_die(12, 3, "modifier")  # d20, two steps beyond
    assert (up.sides, up.face_modifier) == (20, 2)
    assert face_total(17, up) == 19
    down = net_die(4, -2, "modifier")
    assert face_total(2, down) == 1  # 2 - 2 -> at least 1
    assert face_total(4, down) == 2
    assert face_total(17, net_die(12, 3)) == 17  # clamping adds nothing


def test_a_face_the_die_cannot_show_is_refused() -> None:
    with pytest.raises(DieError, match="not a face of a d6"):
        face_total(7, net_die(6, 0))


dice = st.sampled_from(LADDER)
step_lists = st.lists(st.sampled_from([1, -1]), max_size=12)


@given(dice, step_lists, st.randoms())
def test_netting_is_order_independent(base: int, steps: list[int], rnd: random.Random) -> None:
    shuffled = list(steps)
    rnd.shuffle(shuffled)
    assert net_die(base, sum(steps)) == net_die(base, sum(shuffled))


@given(dice, st.integers(min_value=-50, max_value=50))
def test_clamping_stays_within_d4_to_d20(base: int, steps: int) -> None:
    result = net_die(base, steps)
    assert result.sides in LADDER
    assert 4 <= result.sides <= 20
    index = LADDER.index(base) + steps
    assert LADDER.index(result.sides) == min(max(index, 0), 5)
