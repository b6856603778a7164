"""Social Access Rating and the Aura of Harmony/Discord (rules/social/access.py): SOCIAL ACCESS
RATING, the SOCIAL EVENTS table; rulings R25, R72, R73."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.modifiers import RuleRefusal
from rules.sheet import Size
from rules.social.access import (
    AccessSituation,
    Attire,
    AuraKind,
    AuraPool,
    AuraTiming,
    Moment,
    access_rating,
    add_aura_point,
    aura,
    aura_points,
    aura_total,
    compliment_aura,
    low_access_argument,
)
from rules.social.sheet import parse_social

PLAIN = parse_social({})


def test_access_rating_table() -> None:
    """SOCIAL ACCESS RATING: status + fine clothing + invitation +5, knows the host +2, knows most
    present +2, appropriate attire +2."""
    dressed = parse_social({"social": {"clothing": 1}})
    sit = AccessSituation(invitation=True, knows_host=True, knows_most=True,
                          attire=Attire.APPROPRIATE)
    rating = access_rating(8, dressed, sit)
    assert rating.total == 8 + 1 + 5 + 2 + 2 + 2
    assert [p.name for p in rating.parts][:3] == ["Social Status", "fine clothing", "invitation"]


def test_no_invitation_and_inappropriate_attire() -> None:
    """SOCIAL ACCESS RATING: no invitation -5, inappropriate attire -4."""
    sit = AccessSituation(invitation=False, attire=Attire.INAPPROPRIATE)
    assert access_rating(8, PLAIN, sit).total == -1


def test_an_event_without_invitations() -> None:
    """R72: neither invitation row applies where no invitations are issued."""
    assert access_rating(8, PLAIN, AccessSituation()).total == 8


@pytest.mark.parametrize(("difference", "kind", "timing", "size"), [
    (25, AuraKind.HARMONY, AuraTiming.PER_ENCOUNTER, Size.LARGE),
    (21, AuraKind.HARMONY, AuraTiming.PER_ENCOUNTER, Size.LARGE),
    (15, AuraKind.HARMONY, AuraTiming.EVERY_TWO_AND_END, Size.MEDIUM),
    (10, AuraKind.HARMONY, AuraTiming.START_AND_END, Size.SMALL),
    (6, AuraKind.HARMONY, AuraTiming.START_AND_END, Size.SMALL),
    (5, AuraKind.HARMONY, AuraTiming.END, Size.TINY),
    (1, AuraKind.HARMONY, AuraTiming.END, Size.TINY),
    (0, AuraKind.NONE, AuraTiming.NEVER, None),
    (-1, AuraKind.DISCORD, AuraTiming.END, Size.TINY),
    (-6, AuraKind.DISCORD, AuraTiming.START_AND_END, Size.SMALL),
    (-20, AuraKind.DISCORD, AuraTiming.EVERY_TWO_AND_END, Size.MEDIUM),
    (-21, AuraKind.DISCORD, AuraTiming.PER_ENCOUNTER, Size.LARGE),
])
def test_aura_table(difference: int, kind: AuraKind, timing: AuraTiming,
                    size: Size | None) -> None:
    """SOCIAL EVENTS table, R25: bands by Social Access Rating - Event Rating; 0 gives none."""
    a = aura(10 + difference, 10)
    assert (a.kind, a.timing, a.argument, a.difference) == (kind, timing, size, difference)


@pytest.mark.parametrize("difference", [11, 14, -11, -14])
def test_the_skipped_bands(difference: int) -> None:
    """R25: 11-14 and -11..-14 take the Small row; option aura_gap_band "upper": Medium."""
    assert aura(difference, 0).argument is Size.SMALL
    assert aura(difference, 0, aura_gap_band="upper").argument is Size.MEDIUM
    with pytest.raises(ValueError, match="aura_gap_band"):
        aura(difference, 0, aura_gap_band="middle")


def test_when_aura_points_come() -> None:
    """R73: per encounter; every 2 encounters and at the end; at the start and at the end."""
    every_two = aura(15, 0)
    assert [aura_points(every_two, Moment.ENCOUNTER, n) for n in (1, 2, 3, 4)] == [0, 1, 0, 1]
    assert aura_points(every_two, Moment.END) == 1 and aura_points(every_two, Moment.START) == 0
    assert aura_total(every_two, 5) == 3
    assert aura_total(aura(30, 0), 5) == 5
    assert aura_total(aura(-8, 0), 5) == 2
    assert aura_total(aura(3, 0), 5) == 1
    assert aura_total(aura(0, 0), 5) == 0


def test_discord_removes_harmony_and_stops_at_one_point() -> None:
    """SOCIAL ACCESS RATING (translation), R73: Discord points "until every Harmony point is
    gone and only one Discord point remains"."""
    pool = AuraPool(harmony=2)
    for _ in range(5):
        pool = add_aura_point(pool, AuraKind.DISCORD)
    assert pool == AuraPool(harmony=0, discord=1)
    assert add_aura_point(pool, AuraKind.HARMONY) == AuraPool()
    assert add_aura_point(AuraPool(harmony=3), AuraKind.HARMONY) == AuraPool(harmony=4)


def test_a_low_access_rating_is_an_argument_against_you() -> None:
    """R72: the size of the Discord row; only for users whose rating reaches the Event Rating."""
    assert low_access_argument(2, 12, 10) is Size.SMALL
    with pytest.raises(RuleRefusal, match="reaches the Event Rating"):
        low_access_argument(2, 9, 10)
    with pytest.raises(RuleRefusal, match="not below"):
        low_access_argument(10, 12, 10)


def test_a_raised_access_rating_is_a_compliment() -> None:
    """R72: a level 1 Aura of Harmony (one Harmony point at the end)."""
    a = compliment_aura(20, 10)
    assert (a.kind, a.level, a.timing) == (AuraKind.HARMONY, 1, AuraTiming.END)
    with pytest.raises(RuleRefusal):
        compliment_aura(10, 10)


@given(st.integers(-60, 60), st.sampled_from(["lower", "upper"]))
def test_aura_is_symmetric(difference: int, band: str) -> None:
    """R25: Harmony and Discord rows mirror each other."""
    up, down = aura(difference, 0, aura_gap_band=band), aura(-difference, 0, aura_gap_band=band)
    assert (up.level, up.timing, up.argument) == (down.level, down.timing, down.argument)


@given(st.lists(st.sampled_from([AuraKind.HARMONY, AuraKind.DISCORD]), max_size=30))
def test_aura_pool_never_holds_both_kinds(points: list[AuraKind]) -> None:
    """R73: points cancel, so a pool holds Harmony or Discord, never both."""
    pool = AuraPool()
    for kind in points:
        pool = add_aura_point(pool, kind)
        assert not (pool.harmony and pool.discord)
