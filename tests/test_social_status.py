"""Social Status and the status difference (rules/social/status.py): SOCIAL STATUS, USING SOCIAL
STATUS, Related Social Status; rulings R25, R40, R70, R75."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.modifiers import Modifier, RuleRefusal
from rules.sheet import parse_sheet
from rules.social.sheet import parse_social
from rules.social.status import (
    Familiarity,
    RaceStanding,
    StatusSituation,
    ensure_usable_against,
    related_status,
    social_status,
    status_difference_modifier,
    subject_modifier,
    unmodified_status,
)

STATS = {"cha": 14, "trained": ["knowledge_nobility"],
         "social": {"reputation": 4, "talents": {"vip": 2},
                    "temporary": [{"circle": "canterlot high society", "bonus": 2},
                                  {"bonus": 1}]}}
RARITY = parse_sheet(STATS)
RARITY_SOCIAL = parse_social(STATS)


def test_social_status_is_reputation_charisma_and_talents() -> None:
    """Social Status, R70: Reputation 4 + Charisma modifier 2 + talent 2; the universal temporary
    status (+1) counts everywhere."""
    assert unmodified_status(RARITY, RARITY_SOCIAL) == 8
    status = social_status(RARITY, RARITY_SOCIAL)
    assert (status.total, status.unmodified) == (9, 8)
    assert [p.name for p in status.parts] == [
        "Reputation", "Charisma modifier", "talent: vip", "temporary status (universal)"]


def test_temporary_status_counts_only_in_its_circle() -> None:
    """SOCIAL EVENTS, R70: the boost carries the keyword of its circle of society."""
    canterlot = StatusSituation(circle="canterlot high society")
    assert social_status(RARITY, RARITY_SOCIAL, canterlot).total == 11
    assert social_status(RARITY, RARITY_SOCIAL, StatusSituation(circle="cooking")).total == 9


def test_temporary_status_is_capped_at_half_the_unmodified_status() -> None:
    """R25: at most half the unmodified Social Status, rounded down."""
    social = parse_social({"social": {"reputation": 3, "temporary": [{"bonus": 5}]}})
    assert social_status(parse_sheet({}), social).total == 3 + 1


def test_the_situation_table() -> None:
    """SOCIAL STATUS table: stranger -5, unknown or dangerous race -10, GM's own modifier."""
    sit = StatusSituation(familiarity=Familiarity.STRANGER,
                          race=RaceStanding.UNKNOWN_OR_DANGEROUS,
                          gm=(Modifier("muddy hooves", -1, "GM"),))
    assert social_status(RARITY, RARITY_SOCIAL, sit).total == 9 - 5 - 10 - 1


@pytest.mark.parametrize(("familiarity", "race", "value"), [
    (Familiarity.FEW_KNOW, RaceStanding.PREVAILING, -2),
    (Familiarity.KNOWN, RaceStanding.RARE, -5),
    (Familiarity.KNOWN, RaceStanding.NOT_PREVAILING, -2),
])
def test_each_row_applies_once(familiarity: Familiarity, race: RaceStanding, value: int) -> None:
    """R70: the familiarity rows are alternatives, and so are the race rows."""
    sit = StatusSituation(familiarity=familiarity, race=race)
    assert social_status(RARITY, RARITY_SOCIAL, sit).total == 9 + value


@pytest.mark.parametrize(("rank", "value"), [(0, -2), (4, -2), (5, 2), (10, 2), (11, 5), (20, 5)])
def test_event_subject_rank(rank: int, value: int) -> None:
    """R25: rank 0-4 -2, 5-10 +2, 11 or more +5 (the table's gap at 11 is the top row)."""
    assert subject_modifier(rank).value == value


def test_related_status_needs_trained_knowledge() -> None:
    """Related Social Status: trained Knowledge +2; with Skill Focus +4; untrained nothing."""
    assert related_status(RARITY, "nobility") == Modifier(
        "related status (knowledge_nobility, trained)", 2, "Related Social Status")
    focused = parse_sheet({"trained": ["knowledge_nobility"],
                           "feats": ["skill_focus_knowledge_nobility"]})
    related = related_status(focused, "Nobility")
    assert related is not None and related.value == 4
    assert related_status(RARITY, "baking") is None
    sit = StatusSituation(topic="nobility", subject_rank=12)
    assert social_status(RARITY, RARITY_SOCIAL, sit).total == 9 + 2 + 5


@pytest.mark.parametrize(("actor", "target", "value"), [
    (10, 10, 0), (10, 11, -2), (10, 14, -2), (10, 15, -4), (10, 19, -4), (10, 20, -6),
    (10, 9, 2), (10, 6, 2), (10, 5, 4), (10, 1, 4), (10, 0, 6), (10, -30, 6),
])
def test_status_difference_table(actor: int, target: int, value: int) -> None:
    """USING SOCIAL STATUS, R40: the duplicated "lower by 5 or more" row is "by 10 or more"."""
    modifier = status_difference_modifier(actor, target)
    assert modifier.value == value and "R40" in modifier.section


def test_some_maneuvers_are_not_usable_against_a_higher_status() -> None:
    """USING SOCIAL STATUS, R75: refused against a higher status; equal is not higher."""
    with pytest.raises(RuleRefusal, match="higher social status"):
        ensure_usable_against("Snub", 5, 6, not_against_higher=True)
    ensure_usable_against("Snub", 6, 6, not_against_higher=True)
    ensure_usable_against("Dispute", 5, 20, not_against_higher=False)


@given(st.integers(-40, 40), st.integers(-40, 40))
def test_status_difference_is_symmetric(actor: int, target: int) -> None:
    """R40: the table is symmetric — swapping the sides flips the sign."""
    a = status_difference_modifier(actor, target).value
    assert a == -status_difference_modifier(target, actor).value
    assert a in (-6, -4, -2, 0, 2, 4, 6)
