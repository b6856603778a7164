"""Lies (SOCIAL SYSTEMS -> Creating a Lie; rulings R28, R47, R49, R74).

Staged like the attack roll:

1. ``lie_check(liar, targets, size, ...) -> LieCheck`` — the Deception bonus and the Empathy
   bonus of the target that judges for all (the highest Empathy modifier, R28), with the lie's
   size modifier added to the Empathy side.
2. ``lie_outcome(check, deception_d20, empathy_d20, ...) -> LieOutcome`` — whether the lie
   holds; if caught, the statement the targets may use against the liar and the change of their
   attitude toward the liar (R28).

Public API: ``LIE_SIZE_MODIFIER``, ``LieCheck``, ``LieOutcome``, ``lie_check``, ``lie_outcome``,
``caught_lie_statement(size, *, white, perilous, white_lie_statement="smaller") -> Size | None``.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from rules.defenses import Status
from rules.modifiers import Modifier, total
from rules.sheet import Sheet, Size
from rules.social.guards import ensure_may_argue, ensure_may_be_addressed
from rules.social.statements import grow, shrink

SECTION = "Creating a Lie"

#: Creating a Lie table (Tiny -10 .. Colossal +20); Fine and Diminutive continue its steps of 5
#: (ruling R74).
LIE_SIZE_MODIFIER: dict[Size, int] = {
    Size.FINE: -20, Size.DIMINUTIVE: -15, Size.TINY: -10, Size.SMALL: -5, Size.MEDIUM: 0,
    Size.LARGE: 5, Size.HUGE: 10, Size.GARGANTUAN: 15, Size.COLOSSAL: 20,
}

WHITE_LIE_STATEMENTS = ("smaller", "same")


class LieCheck(msgspec.Struct, frozen=True, kw_only=True):
    """A lie before the dice: the liar's Deception bonus and the judge's Empathy bonus (the
    judge is ``targets[judge]``; the size modifier is one of ``empathy_parts``)."""

    size: Size
    deception_parts: tuple[Modifier, ...]
    deception_bonus: int
    judge: int
    empathy_parts: tuple[Modifier, ...]
    empathy_bonus: int


class LieOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """The lie with its dice. ``believed``: Deception total >= Empathy total (R28). A caught lie
    gives the targets ``statement`` against the liar (``None``: none) and moves each target's
    attitude toward the liar ``attitude_steps`` (-1, or 0 for a white lie)."""

    deception_total: int
    empathy_total: int
    believed: bool
    white: bool
    perilous: bool
    statement: Size | None
    attitude_steps: int


def _empathy_modifier(sheet: Sheet, status: Status) -> int:
    return sheet.skill("empathy") + total(status.condition_modifiers())


def lie_check(liar: Sheet, targets: Sequence[Sheet], size: Size, *,
              liar_status: Status | None = None,
              target_statuses: Sequence[Status] | None = None,
              liar_blocking: bool = False) -> LieCheck:
    """Creating a Lie: a Deception check against an opposed Empathy check. R28: with several
    targets the one with the highest Empathy modifier (skill total and condition penalties; the
    first listed on equal modifiers) rolls once for all. The lie's size modifier is added to the
    Empathy side (the bigger the lie, the harder). Condition penalties apply to both checks
    (R15). Refused for an unconscious or blocking liar and against unconscious targets (R47,
    R49)."""
    if not targets:
        raise ValueError("a lie needs at least one target")
    statuses = list(target_statuses) if target_statuses is not None else [Status()] * len(targets)
    if len(statuses) != len(targets):
        raise ValueError("one status per target")
    l_st = liar_status or Status()
    ensure_may_argue(l_st, blocking=liar_blocking, maneuver="a lie")
    for st in statuses:
        ensure_may_be_addressed(st, maneuver="a lie")
    deception = [Modifier("Deception skill", liar.skill("deception"), SECTION),
                 *l_st.condition_modifiers()]
    mods = [_empathy_modifier(t, s) for t, s in zip(targets, statuses, strict=True)]
    judge = mods.index(max(mods))
    section = f"{SECTION} (R28)" if len(targets) > 1 else SECTION
    empathy = [Modifier("Empathy skill", targets[judge].skill("empathy"), section),
               *statuses[judge].condition_modifiers(),
               Modifier(f"size of the lie ({size.value})", LIE_SIZE_MODIFIER[size],
                        f"{SECTION} (R74)" if size in (Size.FINE, Size.DIMINUTIVE) else SECTION)]
    return LieCheck(size=size, deception_parts=tuple(deception), deception_bonus=total(deception),
                    judge=judge, empathy_parts=tuple(empathy), empathy_bonus=total(empathy))


def caught_lie_statement(size: Size, *, white: bool = False, perilous: bool = False,
                         white_lie_statement: str = "smaller") -> Size | None:
    """R28: a caught lie is a statement against the liar one size bigger than the lie, at most
    Huge unless the lie is perilous. A caught white lie is one size smaller (a Fine white lie
    gives none) — or, with option ``white_lie_statement`` ``"same"``, the lie's own size."""
    if white_lie_statement not in WHITE_LIE_STATEMENTS:
        raise ValueError(f"white_lie_statement is one of {', '.join(WHITE_LIE_STATEMENTS)}")
    if white:
        return size if white_lie_statement == "same" else shrink(size)
    return grow(size, at_most=Size.COLOSSAL if perilous else Size.HUGE)


def lie_outcome(check: LieCheck, deception_d20: int, empathy_d20: int, *, white: bool = False,
                perilous: bool = False, white_lie_statement: str = "smaller") -> LieOutcome:
    """R28: the lie is believed when the Deception total equals or exceeds the Empathy total (no
    automatic results on skill checks, R44). Caught: the statement of
    :func:`caught_lie_statement`, and each target's attitude toward the liar one step down —
    not for a white lie."""
    for die in (deception_d20, empathy_d20):
        if not 1 <= die <= 20:
            raise ValueError("a d20 shows 1 to 20")
    d_total = deception_d20 + check.deception_bonus
    e_total = empathy_d20 + check.empathy_bonus
    believed = d_total >= e_total
    statement = None if believed else caught_lie_statement(
        check.size, white=white, perilous=perilous, white_lie_statement=white_lie_statement)
    return LieOutcome(deception_total=d_total, empathy_total=e_total, believed=believed,
                      white=white, perilous=perilous, statement=statement,
                      attitude_steps=0 if believed or white else -1)
