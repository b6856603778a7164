"""Social events (rules/social/events.py): SOCIAL EVENTS; rulings R25, R70, R71."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.modifiers import RuleRefusal
from rules.social.events import (
    attend_event,
    challenge_rating,
    event_rating,
    qualifies,
    weeks_pass,
)
from rules.social.sheet import TemporaryStatus

GALA = "canterlot high society"


def test_event_rating_from_the_organiser() -> None:
    """SOCIAL EVENTS, R25: at most the organiser's Social Rating, at least half (rounded down)."""
    assert event_rating(15, 15).total == 15
    assert event_rating(15, 7).total == 7
    with pytest.raises(RuleRefusal, match="cannot exceed"):
        event_rating(15, 16)


def test_below_half_needs_the_gms_override() -> None:
    """R25: below half is accepted only as an explicit GM override, and marked as one."""
    with pytest.raises(RuleRefusal, match="override"):
        event_rating(15, 6)
    rating = event_rating(15, 6, gm_override=True)
    assert rating.gm_override and rating.total == 6


def test_vip_guests_raise_the_rating() -> None:
    """R71: each VIP guest's raise adds, after the organiser's cap."""
    rating = event_rating(10, 10, vip_raises=[3, 0, 2])
    assert rating.total == 15
    assert [p.name for p in rating.parts] == ["organiser's chosen rating", "VIP guest 1",
                                              "VIP guest 3"]


def test_a_qualifying_event_boosts_status() -> None:
    """R25, R70: rating >= unmodified status + current boost gives +1 in that circle."""
    assert qualifies(9, 8, 1) and not qualifies(8, 8, 1)
    boost = attend_event(None, circle=GALA, event_rating=8, unmodified=8)
    assert boost == TemporaryStatus(bonus=1, circle=GALA)
    boost = attend_event(boost, circle=GALA, event_rating=8, unmodified=8)
    assert boost.bonus == 1  # 8 < 8 + 1: no longer qualifies
    boost = attend_event(boost, circle=GALA, event_rating=12, unmodified=8)
    assert boost.bonus == 2


def test_the_boost_is_capped_and_configurable() -> None:
    """R25: never above half the unmodified status; option event_status_boost (default 1)."""
    boost = attend_event(None, circle=GALA, event_rating=30, unmodified=8, event_status_boost=3)
    assert boost.bonus == 3
    boost = attend_event(boost, circle=GALA, event_rating=30, unmodified=8, event_status_boost=3)
    assert boost.bonus == 4


def test_the_boost_belongs_to_its_circle() -> None:
    with pytest.raises(ValueError, match="belongs to"):
        attend_event(TemporaryStatus(bonus=1, circle=GALA), circle="cooking contests",
                     event_rating=20, unmodified=8)


def test_the_boost_fades_a_point_a_week() -> None:
    """SOCIAL EVENTS: one point for every week without such an event, never below 0."""
    boost = TemporaryStatus(bonus=3, circle=GALA)
    assert weeks_pass(boost, 2).bonus == 1
    assert weeks_pass(boost, 5).bonus == 0


def test_challenge_rating() -> None:
    """SOCIAL EVENTS: equal to the Event Rating, modified by the GM."""
    assert challenge_rating(12) == 12 and challenge_rating(12, -3) == 9


@given(st.integers(-10, 40), st.lists(st.integers(-10, 60), max_size=12))
def test_the_boost_never_exceeds_its_cap(unmodified: int, ratings: list[int]) -> None:
    """R25: whatever events are attended, the boost stays within 0..half the unmodified."""
    boost = None
    for r in ratings:
        boost = attend_event(boost, circle=GALA, event_rating=r, unmodified=unmodified)
        assert 0 <= boost.bonus <= max(0, unmodified // 2)
