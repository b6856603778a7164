"""Tests with ability dice (README; rulings R29, R30, R38).

A test rolls an ability die, upgraded and downgraded by the modifiers that apply (netted, then
clamped, R30; duplicates of the very same thing counted once, R51/R61), and succeeds if the face
meets or beats the Difficulty (R29: "meeting it succeeds"). An attack is a test whose Difficulty
is the target's Defense. An opposed test compares two rolls (R38).

The server rolls in two steps: :func:`plan_check` says which die to roll (``.die.expr``), then
:func:`resolve_check` or :func:`resolve_opposed` takes the face shown.

Public API: :class:`Planned`, :func:`plan_check`, :func:`step_modifiers`; :class:`Rolled`,
:class:`CheckResult`, :func:`resolve_check`; :class:`Side`, :class:`OpposedResult`,
:func:`resolve_opposed`. Names avoid "test" so that pytest does not mistake them for tests.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

import msgspec

from rules.action_time.dice_ladder import Laddered, die_name, face_total, net_die
from rules.action_time.effects import (
    ATTACK_STEPS,
    TEST_STEPS,
    Effect,
    Modifier,
    Net,
    stack,
)
from rules.action_time.options import DEFAULT, AtOptions


class Planned(msgspec.Struct, frozen=True, gc=False):
    """The die a test rolls (``die.sides``, ``die.expr``) and the steps that made it."""

    ability: str
    die: Laddered
    steps: Net


def step_modifiers(effects: Iterable[Effect], holder: str, *, attack: bool = False,
                   extra: Iterable[Modifier] = ()) -> list[Modifier]:
    """The upgrades (+1 each) and downgrades (-1 each) on ``holder``'s test from its effects:
    those on all its tests (Guard Up), on attacks too when ``attack`` (Aim), plus ``extra``
    ones that belong to this roll alone (Charge)."""
    targets = {TEST_STEPS, ATTACK_STEPS} if attack else {TEST_STEPS}
    return [*(e.modifier for e in effects if e.holder == holder and e.target in targets),
            *extra]


def plan_check(ability: str, base_die: int, steps: Iterable[Modifier] = (),
               options: AtOptions = DEFAULT) -> Planned:
    """R30: net the steps (one stacking rule, R51/R61) and move ``base_die`` that far."""
    net = stack(steps, "steps")
    return Planned(ability=ability, die=net_die(base_die, net.total, options.die_ladder_overflow),
                   steps=net)


class Rolled(msgspec.Struct, frozen=True, gc=False):
    """A die rolled for a test: the plan, the ``face`` shown and the ``total`` it counts as
    (the face, or with R30's ``"modifier"`` option the face plus the steps beyond d20/d4)."""

    planned: Planned
    face: int
    total: int

    def describe(self) -> str:
        p = self.planned
        die = f"{p.ability.capitalize()} {die_name(p.die.base)}"
        if p.steps.contributions:
            die += f" ({p.steps.explain()}) -> {die_name(p.die.sides)}"
        extra = f" {p.die.face_modifier:+d}" if p.die.face_modifier else ""
        return f"{die} rolled {self.face}{extra}"


def _roll(planned: Planned, face: int) -> Rolled:
    return Rolled(planned=planned, face=face, total=face_total(face, planned.die))


class CheckResult(msgspec.Struct, frozen=True, gc=False):
    """A test against a Difficulty. ``margin`` = total - Difficulty; success when ≥ 0."""

    rolled: Rolled
    difficulty: int
    success: bool
    margin: int
    text: str


def resolve_check(planned: Planned, face: int, difficulty: int) -> CheckResult:
    """R29: the test succeeds if the face (its total, R30) equals or exceeds the Difficulty.
    Raises :class:`~rules.action_time.dice_ladder.DieError` for a face the die cannot show."""
    rolled = _roll(planned, face)
    success = rolled.total >= difficulty
    text = (f"{rolled.describe()} vs Difficulty {difficulty}: "
            f"{'success' if success else 'failure'}")
    return CheckResult(rolled=rolled, difficulty=difficulty, success=success,
                       margin=rolled.total - difficulty, text=text)


class Side(msgspec.Struct, frozen=True, gc=False):
    """One side of an opposed test: who, the plan, and the face shown."""

    combatant: str
    planned: Planned
    face: int


Winner = Literal["first", "second"]


class OpposedResult(msgspec.Struct, frozen=True, gc=False):
    """An opposed test. ``winner`` is ``"first"``, ``"second"`` or ``None`` — a tie to roll
    again (R38); ``reason`` says which rule decided."""

    first: Rolled
    second: Rolled
    winner: Winner | None
    reason: str
    text: str


def resolve_opposed(first: Side, second: Side, *,
                    defender: Winner | None = "second",
                    options: AtOptions = DEFAULT) -> OpposedResult:
    """R38: the higher total wins; on equal totals the side that rolled the larger die (after
    R30) wins; with dice of the same size the ``defender`` — the side resisting a change, like
    one who Stands Firm — wins. With no defender (a contest both started), or with the option
    ``opposed_tie_reroll``, a tie left after the die-size comparison is rolled again
    (``winner`` is ``None``)."""
    a, b = _roll(first.planned, first.face), _roll(second.planned, second.face)
    winner: Winner | None
    if a.total != b.total:
        winner, reason = ("first" if a.total > b.total else "second"), "higher roll"
    elif a.planned.die.sides != b.planned.die.sides:
        winner = "first" if a.planned.die.sides > b.planned.die.sides else "second"
        reason = "tie: the larger die wins (R38)"
    elif defender is not None and not options.opposed_tie_reroll:
        winner, reason = defender, "tie: the defender wins (R38)"
    else:
        winner, reason = None, "tie: roll again (R38)"
    names = {"first": first.combatant, "second": second.combatant}
    outcome = f"{names[winner]} wins" if winner else "roll again"
    text = (f"{first.combatant}: {a.describe()}; {second.combatant}: {b.describe()}: "
            f"{outcome} ({reason})")
    return OpposedResult(first=a, second=b, winner=winner, reason=reason, text=text)
