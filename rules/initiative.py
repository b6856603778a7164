"""Initiative order ("MLP Dramatic Systems", INITIATIVE; "Action Time", Action Time).

Pure functions: the caller passes the rolled totals and a roller for roll-offs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rules.dice import DiceRoller, Roll

#: The die of a roll-off (ruling R5 in docs/rulings.md: a d20, re-rolled while still tied).
ROLLOFF_DIE = "1d20"
#: A roll-off still tied after this many rounds in a row keeps its order (a safety bound).
MAX_ROLLOFF_ROUNDS = 20


@dataclass(frozen=True)
class Contender:
    """A combatant's initiative result before ordering. ``tiebreak`` is the ruleset's key for
    a tied total, higher first (Dramatic: the Initiative modifier)."""

    combatant: str
    total: int
    modifier: int
    tiebreak: tuple[int, ...]


@dataclass
class Placed:
    contender: Contender
    rolloff: list[int] = field(default_factory=list)


def order_by_initiative(
    contenders: Sequence[Contender],
    roller: DiceRoller,
    on_rolloff: Callable[[str, Roll], None] | None = None,
    rolloff: Callable[[str], int] | None = None,
) -> list[Placed]:
    """INITIATIVE CHECKS: "All involved act in order, from the highest Initiative check result
    to the lowest. If two characters involved have the same Initiative check result, the
    character with the highest Initiative check modifier acts first. If there is still a tie,
    roll a die." Ruling R5: the die is a d20, re-rolled among those still tied.

    ``on_rolloff`` is told of every roll-off die so that the caller can log it. ``rolloff``,
    when given, throws each contender's roll-off die instead of ``roller``: it is asked for
    the contender by name and answers the die's total (physical dice, ruling R80).
    """
    placed = [Placed(c) for c in contenders]
    placed.sort(key=lambda p: (p.contender.total, p.contender.tiebreak), reverse=True)
    out: list[Placed] = []
    for group in _runs(placed, lambda p: (p.contender.total, p.contender.tiebreak)):
        out.extend(_settle(group, roller, on_rolloff, MAX_ROLLOFF_ROUNDS, rolloff))
    return out


def _runs(items: list[Placed], key: Callable[[Placed], object]) -> list[list[Placed]]:
    """Consecutive items with equal keys, grouped."""
    groups: list[list[Placed]] = []
    for item in items:
        if groups and key(groups[-1][0]) == key(item):
            groups[-1].append(item)
        else:
            groups.append([item])
    return groups


def _settle(tied: list[Placed], roller: DiceRoller,
            on_rolloff: Callable[[str, Roll], None] | None, rounds_left: int,
            rolloff: Callable[[str], int] | None = None) -> list[Placed]:
    """Order a tied group by roll-off; groups still tied roll again among themselves."""
    if len(tied) == 1 or rounds_left == 0:
        return tied  # after MAX_ROLLOFF_ROUNDS ties in a row, keep the order as it stands
    for p in tied:
        if rolloff is not None:
            p.rolloff.append(rolloff(p.contender.combatant))
            continue
        roll = roller.roll(ROLLOFF_DIE)
        p.rolloff.append(roll.total)
        if on_rolloff is not None:
            on_rolloff(p.contender.combatant, roll)
    tied.sort(key=lambda p: p.rolloff[-1], reverse=True)
    result: list[Placed] = []
    for group in _runs(tied, lambda p: p.rolloff[-1]):
        result.extend(_settle(group, roller, on_rolloff, rounds_left - 1, rolloff))
    return result


OrderKey = tuple[int, tuple[int, ...]]


def insertion_index(order_keys: Sequence[OrderKey], key: OrderKey) -> int:
    """Where a combatant joining a running scene goes: after everyone it does not beat."""
    for index, existing in enumerate(order_keys):
        if key > existing:
            return index
    return len(order_keys)
