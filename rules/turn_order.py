"""Who acts next: the initiative order with delayed turns ("MLP Dramatic Systems", THE COMBAT
ROUND, SPECIAL INITIATIVE ACTIONS; rulings R7 and R42). Pure: the caller applies the plan.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True)
class Seat:
    """A combatant's place in the order as the planner sees it (not frozen: the encounter
    builds one per combatant for every plan, and a frozen dataclass is several times slower
    to build; nothing changes a seat)."""

    combatant: str
    count: int
    modifier: int
    total: int
    delaying: bool = False
    until: int | None = None  # the count a delayer named
    eligible: bool = True  # may act this round (the surprise round: only the aware)


@dataclass(frozen=True)
class Move:
    combatant: str
    position: int
    count: int
    reason: str  # "delay" | "round_end"


@dataclass
class Plan:
    """The next combatant to act, and the moves in the order that come first."""

    next: str | None
    moves: list[Move] = field(default_factory=list)


def _gone_spot(order: list[Seat], seats: list[Seat], gone_at: int | None) -> int:
    """Where a combatant that left the order from ``gone_at`` stood, in ``order`` as it is
    now: after the seats that stood before it."""
    if gone_at is None:
        return 0
    before = {s.combatant for s in seats[:gone_at]}
    return sum(1 for s in order if s.combatant in before)


def _delayer_key(seat: Seat) -> tuple[int, int]:
    """R7.4: delayers wanting the same moment go by Initiative modifier, highest first; then by
    the higher Initiative check."""
    return (-seat.modifier, -seat.total)


def plan_next(seats: list[Seat], current: str | None, queued: list[str], *,
              gone_at: int | None = None, gone_count: int | None = None) -> Plan:
    """Plan the turn after ``current`` (``None``: the first turn of a round). ``gone_at``:
    ``current`` has left the order during its turn (it died) from that position, at
    ``gone_count``; the round goes on from where it stood.

    1. Delayers who asked to act "now" (``queued``) act right after the current turn, sharing
       its count (R7.2).
    2. A delayer who named a count acts before the first combatant whose count is lower;
       after a non-delayer on the same count (R7.3).
    3. Delaying and ineligible combatants are passed over.
    4. When nobody is left, delayers still waiting are offered their turn at the end of the
       round, moved to the bottom of the order (R7.5).
    """
    order = list(seats)
    moves: list[Move] = []

    index = next((i for i, s in enumerate(order) if s.combatant == current), -1)
    anchor_count = order[index].count if index >= 0 else (order[0].count if order else 0)
    if index < 0 and gone_at is not None:  # the seats from gone_at on came after it
        index = min(gone_at, len(order)) - 1
        if gone_count is not None:
            anchor_count = gone_count
    now = sorted((s for s in order if s.combatant in queued and s.delaying), key=_delayer_key)
    if now:
        previous = current
        for seat in now:  # each right after the one before it
            order.remove(seat)
            at = next((i + 1 for i, s in enumerate(order) if s.combatant == previous),
                      _gone_spot(order, seats, gone_at) if previous is not None else 0)
            order.insert(at, seat)
            moves.append(Move(seat.combatant, at, anchor_count, "delay"))
            previous = seat.combatant
        return Plan(now[0].combatant, moves)
    for j in range(index + 1, len(order)):
        seat = order[j]
        named = sorted((s for s in order if s.delaying and s.until is not None
                        and s.until > seat.count and s is not seat), key=_delayer_key)
        if named:
            for d in named:  # all of them ahead of `seat`, in turn
                order.remove(d)
                position = order.index(seat)
                order.insert(position, d)
                moves.append(Move(d.combatant, position, d.until or 0, "delay"))
            return Plan(named[0].combatant, moves)
        if seat.delaying or not seat.eligible:
            continue
        return Plan(seat.combatant, moves)
    waiting = sorted((s for s in order if s.delaying), key=_delayer_key)
    if waiting:
        last = order[-1].count if order else 0
        for seat in waiting:  # to the bottom, in turn
            order.remove(seat)
            order.append(seat)
            count = min(last, seat.until if seat.until is not None else last)
            moves.append(Move(seat.combatant, len(order) - 1, count, "round_end"))
        return Plan(waiting[0].combatant, moves)
    return Plan(None)
