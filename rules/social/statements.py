"""Statements: the size of an argument, its damage, the size it loses per use, and how the target
answers it (SOCIAL SYSTEMS -> STATEMENTS, Statements; rulings R27, R48).

A statement's size is one of the nine sizes of ``rules.sheet.Size`` (Fine .. Colossal), set by
the GM ("The scale of a statement is determined by the stable master"); ``None`` is a spent
statement (size zero, R27). Levels count them: 0 spent, 1 Fine .. 9 Colossal.

Public API:

- ``STATEMENT_DAMAGE`` — the damage of each size (Fine 1 .. Colossal 20d6).
- ``size_level(size) -> int``, ``size_at(level) -> Size | None``.
- ``shrink(size, steps=1) -> Size | None``, ``grow(size, steps=1, *, at_most=COLOSSAL) -> Size``.
- ``Statement(size, text)`` with ``spent``; ``use_statement(statement) -> Statement`` (one size
  smaller per use; a spent statement is refused).
- ``Answer`` (accept, accept with reservation, refuse); ``answer_statement(loss, answer) ->
  AnsweredStatement``; ``reservation_loss(recorded, *, doubt_unfounded) -> int`` (R48).
"""

from __future__ import annotations

from enum import StrEnum

import msgspec

from rules.modifiers import RuleRefusal
from rules.sheet import Size

SECTION = "STATEMENTS"

_SIZES: tuple[Size, ...] = tuple(Size)

#: Statements table: Fine 1, Diminutive 1d2, Tiny 1d3, Small 1d6, Medium 2d6, Large 4d6,
#: Huge 8d6, Gargantuan 12d6, Colossal 20d6.
STATEMENT_DAMAGE: dict[Size, str] = {
    Size.FINE: "1", Size.DIMINUTIVE: "1d2", Size.TINY: "1d3", Size.SMALL: "1d6",
    Size.MEDIUM: "2d6", Size.LARGE: "4d6", Size.HUGE: "8d6", Size.GARGANTUAN: "12d6",
    Size.COLOSSAL: "20d6",
}


def size_level(size: Size | None) -> int:
    """0 for a spent statement, 1 for Fine up to 9 for Colossal."""
    return 0 if size is None else _SIZES.index(size) + 1


def size_at(level: int) -> Size | None:
    """The size of a level (0: spent, ``None``); levels outside 0..9 are an error."""
    if not 0 <= level <= len(_SIZES):
        raise ValueError(f"a statement level is 0 to {len(_SIZES)}")
    return None if level == 0 else _SIZES[level - 1]


def shrink(size: Size | None, steps: int = 1) -> Size | None:
    """``steps`` sizes smaller; below Fine the statement is spent (``None``, R27), never less."""
    if steps < 0:
        raise ValueError("steps must not be negative")
    return size_at(max(0, size_level(size) - steps))


def grow(size: Size | None, steps: int = 1, *, at_most: Size = Size.COLOSSAL) -> Size:
    """``steps`` sizes bigger, at most ``at_most`` (a spent statement grows from zero)."""
    if steps < 0:
        raise ValueError("steps must not be negative")
    level = min(size_level(size) + steps, size_level(at_most))
    grown = size_at(max(1, level))
    assert grown is not None
    return grown


class Statement(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """An argument a character can use: its ``size`` (``None``: spent) and what it says."""

    size: Size | None
    text: str = ""

    @property
    def spent(self) -> bool:
        return self.size is None

    @property
    def damage(self) -> str:
        """The statement's damage dice (Statements table); a spent statement has none."""
        if self.size is None:
            raise RuleRefusal(f"{SECTION}: a spent statement deals no damage (ruling R27)")
        return STATEMENT_DAMAGE[self.size]


def use_statement(statement: Statement) -> Statement:
    """STATEMENTS: "A statement loses one size step every time it is used" — the statement after
    this use. A spent statement "is not usable again" (R27) and is refused."""
    if statement.spent:
        raise RuleRefusal(f"{SECTION}: this statement is spent and cannot be used again "
                          "(ruling R27)")
    return msgspec.structs.replace(statement, size=shrink(statement.size))


class Answer(StrEnum):
    """R48: how the target answers a statement that hit."""

    ACCEPT = "accept"
    RESERVATION = "accept_with_reservation"
    REFUSE = "refuse"


class AnsweredStatement(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A hit answered (R48): ``loss`` is the fatigue loss applied now; ``recorded`` the rolled
    loss kept for a reservation (0 otherwise)."""

    answer: Answer
    rolled: int
    loss: int
    recorded: int


def answer_statement(loss: int, answer: Answer | None) -> AnsweredStatement:
    """R48: *accept* — no loss; *accept with reservation* — no loss now, the loss is recorded;
    *refuse* — the full loss. No answer (``None``: none before the target's next turn) refuses."""
    if loss < 0:
        raise ValueError("a fatigue loss cannot be negative")
    a = Answer.REFUSE if answer is None else answer
    return AnsweredStatement(answer=a, rolled=loss, loss=loss if a is Answer.REFUSE else 0,
                             recorded=loss if a is Answer.RESERVATION else 0)


def reservation_loss(recorded: int, *, doubt_unfounded: bool) -> int:
    """R48: when the GM rules on a reservation, half the recorded loss (rounded down) if the
    doubt proved unfounded, otherwise none."""
    if recorded < 0:
        raise ValueError("a recorded loss cannot be negative")
    return recorded // 2 if doubt_unfounded else 0
