"""The social basic maneuvers: the social attack roll, Dispute, Conversation and Blocking (SOCIAL
SYSTEMS -> Social Basic Maneuver, DEFENSES -> Wits Defense; rulings R26, R27, R40, R44, R45,
R47, R48, R49, R76, R77).

Staged like the attack roll, so that the dice can come from anywhere:

1. ``social_attack_check(speaker, target, argument, ...) -> SocialCheck`` — the social attack
   bonus (Persuasion, R76; status difference, R40; conditions) and the target's Wits Defense
   (+5 while Blocking, R49). Refused against an unconscious target (R47), by a blocking or
   unconscious speaker (R49), with a spent argument (R27) or after the debate ended (R26).
2. ``social_outcome(check, natural_d20) -> AttackOutcome`` — equality hits; natural 20 hits
   and doubles the damage, natural 1 misses (R26, R44).
3. ``argument_formula(speaker, argument)`` and ``argument_damage(formula, dice_total, *,
   critical, target) -> Damage`` — size die + Charisma modifier, at least 1, mental DR.
4. Dispute: ``dispute_hit(damage, *, answer, threshold, fatigue_points, mental, attitude) ->
   DisputeHit`` (R26, R48, R77) and ``debate_ends(attitudes) -> bool`` (R26.5).
   Conversation: ``conversation(first, second) -> ConversationResult`` (R27).
   Blocking: ``blocking_modifier()``, ``BLOCKING_BONUS``, ``ensure_may_stop_blocking`` (R49).

Options (encounter options, docs/rulings.md) are keyword parameters with their defaults:
``dispute_ends_at_unfriendly`` (R26), ``social_attack_skill`` (R76), and the fatigue options of
``rules.condition_track.fatigue_loss`` (R14).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec

from rules.attack import AttackOutcome, d20_outcome
from rules.condition_track import FatigueLoss, Track, fatigue_loss
from rules.damage import Damage, DamageFormula, damage_dealt
from rules.defenses import Defense, Status, defenses, effect_parts
from rules.modifiers import Modifier, RuleRefusal, total
from rules.sheet import DamageSource, Sheet, Size
from rules.social.attitude import Attitude, rank, shift
from rules.social.guards import ensure_may_argue, ensure_may_be_addressed
from rules.social.statements import (
    STATEMENT_DAMAGE,
    Answer,
    AnsweredStatement,
    answer_statement,
    shrink,
)
from rules.social.status import status_difference_modifier

SECTION = "Social Basic Maneuver"

#: Blocking (R49): "+5" to Wits Defense against every social maneuver.
BLOCKING_BONUS = 5


class SocialCheck(msgspec.Struct, frozen=True, kw_only=True):
    """A social attack before the die: its bonus (sum of ``parts``) and the Wits Defense it must
    meet (``defense``, Blocking included)."""

    maneuver: str
    argument: Size
    parts: tuple[Modifier, ...]
    bonus: int
    defense: Defense


def blocking_modifier() -> Modifier:
    """R49: a blocking character's Wits Defense against a social maneuver."""
    return Modifier("Blocking", BLOCKING_BONUS, f"{SECTION}: Blocking (R49)")


def ensure_may_stop_blocking(*, own_turn: bool) -> None:
    """R49: Blocking lasts until the blocker stops it on one of its own turns (or the discussion
    ends)."""
    if not own_turn:
        raise RuleRefusal(f"{SECTION}: Blocking stops only on the blocker's own turn (ruling R49)")


def social_attack_check(
    speaker: Sheet,
    target: Sheet,
    argument: Size | None,
    *,
    maneuver: str = "Dispute",
    speaker_status: Status | None = None,
    target_status: Status | None = None,
    speaker_social: int = 0,
    target_social: int = 0,
    speaker_blocking: bool = False,
    target_blocking: bool = False,
    debate_over: bool = False,
    unaware: bool = False,
    gm: Sequence[Modifier] = (),
    social_attack_skill: str = "persuasion",
) -> SocialCheck:
    """The social attack roll of a Dispute or Conversation (R26 steps 1-2, R76): 1d20 + the
    ``social_attack_skill`` total (option, default ``persuasion``) + the status-difference
    modifier (R40; ``speaker_social`` and ``target_social`` are both Social Statuses with their
    situation modifiers) + condition penalties (R15), distracted -2 (R11), grabbed -2 (Grab), the
    speaker's effects on ``checks`` (R90) and the GM's modifiers; against the target's Wits
    Defense (flat-footed or ``unaware``: no Intelligence bonus, R41), +5 while the target is
    Blocking (R49)."""
    s_st = speaker_status or Status()
    t_st = target_status or Status()
    ensure_may_argue(s_st, blocking=speaker_blocking, maneuver=maneuver)
    ensure_may_be_addressed(t_st, maneuver=maneuver)
    if debate_over:
        raise RuleRefusal(f"{SECTION}: the debate has ended (an attitude reached Unfriendly, "
                          "ruling R26)")
    if argument is None:
        raise RuleRefusal(f"{SECTION}: this argument is spent and cannot be used again (R27)")
    parts = [Modifier(f"{social_attack_skill.capitalize()} skill",
                      speaker.skill(social_attack_skill), f"{SECTION} (R76)"),
             status_difference_modifier(speaker_social, target_social)]
    if s_st.distracted:
        parts.append(Modifier("distracted", -2, "STANDARD ACTIONS: Distraction (R11)"))
    if s_st.grabbed:
        parts.append(Modifier("grabbed", -2, "STANDARD ACTIONS: Grab"))
    parts += s_st.condition_modifiers()
    parts += effect_parts(speaker, s_st, "checks")  # R90, R92
    parts += gm
    wits = defenses(target, t_st, unaware=unaware).wits
    if target_blocking:
        bonus = blocking_modifier()
        wits = Defense(wits.name, wits.total + bonus.value, (*wits.parts, bonus))
    return SocialCheck(maneuver=maneuver, argument=argument, parts=tuple(parts),
                       bonus=total(parts), defense=wits)


def social_outcome(check: SocialCheck, natural: int) -> AttackOutcome:
    """R26 step 2, R44: a total equal to or above the Wits Defense hits ("If an opponent's attack
    roll equals or exceeds your Wits Defense, the statement hits"); a natural 20 hits and is a
    critical hit, a natural 1 misses."""
    return d20_outcome(natural, check.bonus, check.defense.total)


def argument_formula(speaker: Sheet, argument: Size) -> DamageFormula:
    """Dispute: "Charisma Modifier + Size" — the statement's size die (Statements table) + the
    speaker's Charisma modifier, mental damage (R26 step 3)."""
    cha = Modifier("Charisma modifier", speaker.mod("cha"), f"{SECTION}: Dispute")
    return DamageFormula(weapon=f"statement ({argument.value})", dice=STATEMENT_DAMAGE[argument],
                         dice_section="Statements (R26)", parts=(cha,), bonus=cha.value,
                         source=DamageSource.MENTAL)


def argument_damage(formula: DamageFormula, dice_total: int, *, critical: bool = False,
                    target: Sheet | None = None) -> Damage:
    """R26 step 3, R13: dice + Charisma modifier, doubled on a critical hit, at least 1, less
    the target's mental damage reduction."""
    reductions = target.damage_reduction if target is not None else ()
    return damage_dealt(formula, dice_total, critical=critical, reductions=reductions)


class DisputeHit(msgspec.Struct, frozen=True, kw_only=True):
    """A Dispute hit, answered (R48): the mental fatigue loss applied (``loss``), whether it
    reached the mental damage threshold, and the target's attitude toward the speaker."""

    answered: AnsweredStatement
    loss: FatigueLoss
    threshold_reached: bool
    attitude_before: Attitude
    attitude_after: Attitude


def dispute_hit(
    damage: int,
    *,
    answer: Answer | None,
    threshold: int,
    fatigue_points: int,
    mental: Track,
    attitude: Attitude,
    zero_fp_threshold_inclusive: bool = False,
    zero_fp_overflow_counts: bool = True,
) -> DisputeHit:
    """Dispute (R26 steps 3-4, R48, R77): the target answers the hit — accept: no loss; accept
    with reservation: no loss now, the loss recorded; refuse (or no answer): the full loss as
    mental fatigue loss (R14). If the loss applied equals or exceeds the Mental Damage Threshold
    (R45) the mental track moves -1 step (``rules.condition_track.fatigue_loss``) and the
    target's attitude toward the speaker moves one step down (R25)."""
    answered = answer_statement(damage, answer)
    loss = fatigue_loss(fatigue_points, answered.loss, threshold, mental,
                        source=DamageSource.MENTAL,
                        zero_fp_threshold_inclusive=zero_fp_threshold_inclusive,
                        zero_fp_overflow_counts=zero_fp_overflow_counts)
    reached = answered.loss > 0 and answered.loss >= max(1, threshold)
    return DisputeHit(answered=answered, loss=loss, threshold_reached=reached,
                      attitude_before=attitude,
                      attitude_after=shift(attitude, -1) if reached else attitude)


def debate_ends(attitudes: Iterable[Attitude], *, dispute_ends_at_unfriendly: bool = True) -> bool:
    """R26 step 5: when the exchange's rolls are resolved, the debate ends if any participant's
    attitude is Unfriendly or lower (option ``dispute_ends_at_unfriendly``, default ``True``;
    ``False``: only the GM ends it)."""
    if not dispute_ends_at_unfriendly:
        return False
    return any(rank(a) <= rank(Attitude.UNFRIENDLY) for a in attitudes)


class ConversationSide(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One side of a Conversation: its ``argument``, whether its roll ``hit``, the damage rolled
    for a hit (``argument_damage(...).dealt``), and the side's own Mental Damage Threshold."""

    argument: Size
    hit: bool
    damage: int = 0
    threshold: int

    def __post_init__(self) -> None:
        if self.damage < 0:
            raise ValueError("damage cannot be negative")


class ConversationResult(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A Conversation exchange (R27): ``net`` damage, the ``loser`` (0 the first side, 1 the
    second, ``None`` nobody), whether the loser's argument shrank for it, and both arguments
    after the exchange (``None``: spent)."""

    net: int
    loser: int | None
    loser_shrinks: bool
    arguments: tuple[Size | None, Size | None]


def conversation(first: ConversationSide, second: ConversationSide) -> ConversationResult:
    """Conversation (R27): both hit — net = higher damage - lower, the lower loses (equal:
    nothing); one hits — net = its damage, the other loses; neither — nothing. A net equal to
    or above the loser's Mental Damage Threshold shrinks the losing argument one size; then both
    arguments shrink one more size for their use; below Fine an argument is spent. Nobody loses
    fatigue points."""
    sides = (first, second)
    d = tuple(s.damage if s.hit else 0 for s in sides)
    loser: int | None = None
    net = 0
    if (first.hit or second.hit) and (d[0], first.hit) != (d[1], second.hit):
        loser = 0 if (d[0], first.hit) < (d[1], second.hit) else 1
        net = abs(d[0] - d[1])
    shrinks = loser is not None and net >= max(1, sides[loser].threshold)
    after = [shrink(s.argument, 1 + (1 if shrinks and i == loser else 0))
             for i, s in enumerate(sides)]
    return ConversationResult(net=net, loser=loser, loser_shrinks=shrinks,
                              arguments=(after[0], after[1]))
