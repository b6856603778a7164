"""The social basic maneuvers (rules/social/maneuvers.py): Dispute, Conversation, Blocking;
rulings R26, R27, R40, R44, R47, R48, R49, R76, R77."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.condition_track import Track
from rules.defenses import Status, damage_thresholds, defenses
from rules.modifiers import RuleRefusal
from rules.sheet import Size, parse_sheet
from rules.social.attitude import Attitude
from rules.social.maneuvers import (
    ConversationSide,
    argument_damage,
    argument_formula,
    conversation,
    debate_ends,
    dispute_hit,
    ensure_may_stop_blocking,
    social_attack_check,
    social_outcome,
)
from rules.social.statements import Answer, size_level

RARITY = parse_sheet({"cha": 16, "skills": {"persuasion": 7}})
BLUEBLOOD = parse_sheet({"int": 14, "wis": 12, "damage_reduction": [
    {"value": 2, "source": "mental"}]})


def test_social_attack_roll_against_wits_defense() -> None:
    """R26, R76: Persuasion + status difference (R40) against Wits Defense (10 + Int 2)."""
    check = social_attack_check(RARITY, BLUEBLOOD, Size.MEDIUM, speaker_social=8,
                                target_social=14)
    assert [(p.name, p.value) for p in check.parts] == [
        ("Persuasion skill", 7), ("target's social status higher by 6", -4)]
    assert (check.bonus, check.defense.total) == (3, 12)
    assert social_outcome(check, 9).hit  # 12 against 12: equality hits
    assert not social_outcome(check, 8).hit


def test_natural_twenty_and_one() -> None:
    """R44: a social attack roll is an attack roll."""
    check = social_attack_check(RARITY, BLUEBLOOD, Size.MEDIUM, target_social=40)
    crit = social_outcome(check, 20)
    assert crit.hit and crit.critical and crit.automatic == "hit"
    easy = social_attack_check(RARITY, parse_sheet({"int": 0}), Size.MEDIUM)
    assert not social_outcome(easy, 1).hit


def test_the_attack_skill_is_an_option() -> None:
    """R76: option social_attack_skill."""
    sly = parse_sheet({"skills": {"deception": 9, "persuasion": 1}})
    check = social_attack_check(sly, BLUEBLOOD, Size.SMALL, social_attack_skill="deception")
    assert check.bonus == 9


def test_condition_penalties_apply() -> None:
    """R15: both tracks' penalties on the roll; the target's on its Wits Defense."""
    tired = Status(mental=Track(step=2))
    check = social_attack_check(RARITY, BLUEBLOOD, Size.SMALL, speaker_status=tired,
                                target_status=tired)
    assert (check.bonus, check.defense.total) == (5, 10)


def test_dispute_damage_is_charisma_plus_size() -> None:
    """Dispute, R26: the size die + Charisma modifier, doubled on a critical hit, at least 1,
    less the target's mental damage reduction."""
    formula = argument_formula(RARITY, Size.MEDIUM)
    assert (formula.dice, formula.bonus) == ("2d6", 3)
    assert argument_damage(formula, 7, target=BLUEBLOOD).dealt == 8
    assert argument_damage(formula, 7, critical=True, target=BLUEBLOOD).dealt == 18
    assert argument_damage(argument_formula(parse_sheet({"cha": 4}), Size.FINE), 1).dealt == 1


def test_a_refused_hit_over_the_threshold_moves_track_and_attitude() -> None:
    """Dispute, R26, R45: loss >= mental damage threshold: mental track -1, attitude -1 step."""
    threshold = damage_thresholds(BLUEBLOOD, defenses(BLUEBLOOD)).mental.total
    assert threshold == 11
    hit = dispute_hit(11, answer=Answer.REFUSE, threshold=threshold, fatigue_points=20,
                      mental=Track(), attitude=Attitude.INDIFFERENT)
    assert hit.threshold_reached and hit.loss.fatigue_after == 9
    assert hit.loss.track_after.step == 1 and hit.attitude_after is Attitude.UNFRIENDLY
    below = dispute_hit(10, answer=None, threshold=threshold, fatigue_points=20, mental=Track(),
                        attitude=Attitude.INDIFFERENT)
    assert not below.threshold_reached and below.attitude_after is Attitude.INDIFFERENT
    assert below.loss.fatigue_after == 10


def test_an_accepted_argument_costs_nothing() -> None:
    """R48, R77: accept: no loss, no step; reservation: the loss is recorded for later."""
    for answer in (Answer.ACCEPT, Answer.RESERVATION):
        hit = dispute_hit(15, answer=answer, threshold=11, fatigue_points=20, mental=Track(),
                          attitude=Attitude.FRIENDLY)
        assert hit.loss.fatigue_after == 20 and not hit.threshold_reached
        assert hit.attitude_after is Attitude.FRIENDLY
        assert hit.answered.recorded == (15 if answer is Answer.RESERVATION else 0)


def test_the_debate_ends_at_unfriendly() -> None:
    """R26 step 5: at Unfriendly or lower the debate ends (option dispute_ends_at_unfriendly)."""
    assert not debate_ends([Attitude.INDIFFERENT, Attitude.FRIENDLY])
    assert debate_ends([Attitude.FRIENDLY, Attitude.UNFRIENDLY])
    assert not debate_ends([Attitude.HOSTILE], dispute_ends_at_unfriendly=False)
    with pytest.raises(RuleRefusal, match="debate has ended"):
        social_attack_check(RARITY, BLUEBLOOD, Size.SMALL, debate_over=True)


def test_conversation_both_hit() -> None:
    """Conversation, R27: the lower result is subtracted from the better; the net reaches the
    loser's threshold, so the loser's argument shrinks, and both shrink for the use."""
    result = conversation(ConversationSide(argument=Size.LARGE, hit=True, damage=20, threshold=12),
                          ConversationSide(argument=Size.MEDIUM, hit=True, damage=8, threshold=11))
    assert (result.net, result.loser, result.loser_shrinks) == (12, 1, True)
    assert result.arguments == (Size.MEDIUM, Size.TINY)


def test_conversation_below_the_threshold_and_ties() -> None:
    """R27: below the loser's threshold only the per-use loss; equal damage: nobody loses."""
    small = conversation(ConversationSide(argument=Size.LARGE, hit=True, damage=12, threshold=9),
                         ConversationSide(argument=Size.LARGE, hit=True, damage=5, threshold=9))
    assert (small.loser, small.loser_shrinks, small.arguments) == (1, False,
                                                                   (Size.MEDIUM, Size.MEDIUM))
    tie = conversation(ConversationSide(argument=Size.SMALL, hit=True, damage=6, threshold=1),
                       ConversationSide(argument=Size.SMALL, hit=True, damage=6, threshold=1))
    assert (tie.net, tie.loser, tie.arguments) == (0, None, (Size.TINY, Size.TINY))


def test_conversation_one_sided_hit_and_spent_arguments() -> None:
    """R27: a one-sided hit counts in full; a Fine argument that shrinks is spent."""
    result = conversation(ConversationSide(argument=Size.FINE, hit=False, threshold=3),
                          ConversationSide(argument=Size.SMALL, hit=True, damage=4, threshold=3))
    assert (result.net, result.loser, result.loser_shrinks) == (4, 0, True)
    assert result.arguments == (None, Size.TINY)
    neither = conversation(ConversationSide(argument=Size.HUGE, hit=False, threshold=3),
                           ConversationSide(argument=Size.HUGE, hit=False, threshold=3))
    assert (neither.loser, neither.arguments) == (None, (Size.LARGE, Size.LARGE))
    with pytest.raises(RuleRefusal, match="spent"):
        social_attack_check(RARITY, BLUEBLOOD, None, maneuver="Conversation")


def test_blocking_adds_five_and_forbids_arguments() -> None:
    """Blocking, R49: +5 Wits Defense against every social maneuver; no argument of one's own;
    it stops only on the blocker's own turn."""
    check = social_attack_check(RARITY, BLUEBLOOD, Size.SMALL, target_blocking=True)
    assert check.defense.total == 17 and check.defense.parts[-1].name == "Blocking"
    with pytest.raises(RuleRefusal, match="R49"):
        social_attack_check(RARITY, BLUEBLOOD, Size.SMALL, speaker_blocking=True)
    with pytest.raises(RuleRefusal, match="own turn"):
        ensure_may_stop_blocking(own_turn=False)
    ensure_may_stop_blocking(own_turn=True)


def test_no_social_maneuvers_against_the_unconscious() -> None:
    """R47: refused against an unconscious target (and by an unconscious speaker)."""
    with pytest.raises(RuleRefusal, match="R47"):
        social_attack_check(RARITY, BLUEBLOOD, Size.SMALL,
                            target_status=Status(mental=Track(step=5)))
    with pytest.raises(RuleRefusal, match="unconscious creature"):
        social_attack_check(RARITY, BLUEBLOOD, Size.SMALL,
                            speaker_status=Status(unconscious=True))


_side = st.builds(ConversationSide, argument=st.sampled_from(list(Size)), hit=st.booleans(),
                  damage=st.integers(0, 60), threshold=st.integers(-5, 40))


@given(_side, _side)
def test_conversation_shrinks_each_argument_one_or_two_sizes(a: ConversationSide,
                                                             b: ConversationSide) -> None:
    """R27: each argument loses its use; only the loser's may lose one more; none below zero."""
    result = conversation(a, b)
    for i, side in enumerate((a, b)):
        lost = size_level(side.argument) - size_level(result.arguments[i])
        extra = 1 if result.loser_shrinks and result.loser == i else 0
        assert lost == min(size_level(side.argument), 1 + extra)
    assert result.net >= 0
