"""Initiative order ("MLP Dramatic Systems", INITIATIVE; "Action Time", Action Time).

Pure functions: the caller passes the rolled totals and a roller for roll-offs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rules.dice import DiceRoller, Roll

#: The die of a roll-off (ruling R5 in docs/rulings.md: a d20, re-rolled while still tied).
ROLLOFF_DIE = "1d20"
#: Give up re-rolling a roll-off after this many rounds and keep the input order.
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
) -> list[Placed]:
    """Highest total first; a tie goes to the higher tie-break key; a remaining tie is settled
    by a roll-off ("If there is still a tie, the tied characters should roll again"), each
    tied combatant rolling :data:`ROLLOFF_DIE`, re-rolled among those still tied (R5).

    ``on_rolloff`` is told of every roll-off die so that the caller can log it.
    """
    placed = [Placed(c) for c in contenders]
    placed.sort(key=lambda p: (p.contender.total, p.contender.tiebreak), reverse=True)
    out: list[Placed] = []
    i = 0
    while i < len(placed):
        j = i + 1
        key = (placed[i].contender.total, placed[i].contender.tiebreak)
        while j < len(placed) and (placed[j].contender.total, placed[j].contender.tiebreak) == key:
            j += 1
        out.extend(_settle(placed[i:j], roller, on_rolloff))
        i = j
    return out


def _settle(
    tied: list[Placed], roller: DiceRoller, on_rolloff: Callable[[str, Roll], None] | None
) -> list[Placed]:
    if len(tied) == 1:
        return tied
    for _ in range(MAX_ROLLOFF_ROUNDS):
        for p in tied:
            roll = roller.roll(ROLLOFF_DIE)
            p.rolloff.append(roll.total)
            if on_rolloff is not None:
                on_rolloff(p.contender.combatant, roll)
        tied.sort(key=lambda p: p.rolloff[-1], reverse=True)
        groups: list[list[Placed]] = []
        for p in tied:
            if groups and groups[-1][0].rolloff[-1] == p.rolloff[-1]:
                groups[-1].append(p)
            else:
                groups.append([p])
        if all(len(g) == 1 for g in groups):
            return tied
        result: list[Placed] = []
        for g in groups:
            result.extend(_settle(g, roller, on_rolloff) if len(g) > 1 else g)
        return result
    return tied


OrderKey = tuple[int, tuple[int, ...]]


def insertion_index(order_keys: Sequence[OrderKey], key: OrderKey) -> int:
    """Where a combatant joining a running scene goes: after everyone it does not beat."""
    for index, existing in enumerate(order_keys):
        if key > existing:
            return index
    return len(order_keys)


def next_in_order(order: Sequence[str], last: str | None) -> tuple[str | None, bool]:
    """Who acts after ``last`` (COMBAT SEQUENCE 3-4: in initiative order, then the next round
    from the top). Returns the combatant and whether a new round begins."""
    if not order:
        return None, False
    if last is None or last not in order:
        return order[0], last is None
    index = order.index(last) + 1
    if index >= len(order):
        return order[0], True
    return order[index], False
