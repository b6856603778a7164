"""The GM's screen as a turn: anonymous hidden turns (the option ``anonymous_hidden_turns``,
ruling R99).

With the option, the order has one more entry for everyone: the GM's screen (``screen``, an
id no combatant may take), on the initiative count ``options.screen_count`` (moved by the GM
from the next round). Every round the screen takes a turn there, after the combatants on the
same count (as a delayer naming a count does, R7.3), whether or not anyone is hidden:

- the combatants hidden as the round began (and those who join hidden during it) take their
  turns inside the screen's turn, one after another in their own initiative order, and the
  rules of the order apply among them (delay, ready, R7 and R8): the screen's turn ends when
  the last of them ends its turn;
- when none of them has a turn this round, the screen's turn is the GM's to end, as an NPC's
  is (``act`` with ``combatant: "screen"``, ``end_turn``).

The table (every viewer who does not see everything) sees the screen's turn start and end
like any turn, and the turns inside it not at all: so it is told the same whether or not
anyone is hidden. Who acts, and in which order, is a plan (``rules.turn_order``) over two
lists: the order without the screen's combatants and with the screen's seat, and the screen's
combatants alone. Its moves name places in the planned lists; :func:`plan` hands them back
as places in the encounter's order, each combatant before the one it is planned before.
"""

from __future__ import annotations

from encounter.state import SCREEN, EncounterState
from rules.turn_order import Move, Plan, Seat, plan_next


def anonymous(state: EncounterState) -> bool:
    """Whether the encounter has anonymous hidden turns."""
    return state.options.anonymous_hidden_turns


def acts_behind(state: EncounterState, cid: str | None) -> bool:
    """Whether ``cid``'s turn this round is taken inside the screen's turn (the screen's own
    turn too)."""
    if cid is None or not state.options.anonymous_hidden_turns:
        return False
    return cid == SCREEN or cid in state.screened


def screen_place(seats: list[Seat], count: int) -> int:
    """Where the screen's seat goes among ``seats``: before the first whose count is lower."""
    return next((i for i, seat in enumerate(seats) if seat.count < count), len(seats))


def plan(state: EncounterState, seats: list[Seat], current: str | None,
         gone: tuple[int, int | None] | None) -> Plan:
    """Who acts after ``current``, with the screen's turn (``gone``: ``current`` left the
    order during its turn, from that position at that count, as ``plan_next`` takes it)."""
    members = set(state.screened)
    inner = [seat for seat in seats if seat.combatant in members]
    outer = [seat for seat in seats if seat.combatant not in members]
    count = state.screen_at()
    outer.insert(screen_place(outer, count), Seat(SCREEN, count, 0, count))
    inner_queue = [cid for cid in state.delay_queue if cid in members]
    outer_queue = [cid for cid in state.delay_queue if cid not in members]
    order = list(state.order)
    moves: list[Move] = []

    def gone_in(sub: list[Seat]) -> dict[str, int | None]:
        if gone is None:
            return {}
        ids = {seat.combatant for seat in sub}
        before = sum(1 for cid in state.order[:gone[0]] if cid in ids)
        if sub is outer and gone[1] is not None and count > gone[1]:
            before += 1  # the screen stood before it
        return {"gone_at": before, "gone_count": gone[1]}

    if current is not None and current in members:
        within = plan_next(inner, current, inner_queue, **gone_in(inner))
        moves += _placed(inner, within.moves, order)
        if within.next is not None:
            return Plan(within.next, moves)
        current, gone = SCREEN, None  # the screen's turn is over: on from its place
    top = plan_next(outer, current, outer_queue, **gone_in(outer))
    moves += _placed(outer, top.moves, order)
    if top.next == SCREEN and current != SCREEN:
        first = plan_next(inner, None, inner_queue)
        moves += _placed(inner, first.moves, order)
        if first.next is not None:
            return Plan(first.next, moves)
    return Plan(top.next, moves)


def _placed(planned: list[Seat], moves: list[Move], order: list[str]) -> list[Move]:
    """``moves`` of a plan over ``planned`` as moves in ``order`` (changed as they apply):
    each combatant goes before the one it is planned before (after the one it is planned
    after, when it is planned last), so that the order of each planned list is kept."""
    ids = [seat.combatant for seat in planned]
    placed = []
    for move in moves:
        ids.remove(move.combatant)
        ids.insert(move.position, move.combatant)
        was = order.index(move.combatant)
        order.remove(move.combatant)
        after = [cid for cid in ids[move.position + 1:] if cid != SCREEN]
        before = [cid for cid in ids[:move.position] if cid != SCREEN]
        if after:
            at = order.index(after[0])
        elif before:
            at = order.index(before[-1]) + 1
        else:
            at = was
        order.insert(at, move.combatant)
        placed.append(Move(move.combatant, at, move.count, move.reason))
    return placed


def order_with_screen(state: EncounterState) -> list[str]:
    """The order as the views show it with the option: the screen at its count, the
    combatants who act in its turn right after it (R99)."""
    members = set(state.screened)
    outer = [cid for cid in state.order if cid not in members]
    counts = [Seat(cid, state.count_of(cid), 0, 0) for cid in outer]
    at = screen_place(counts, state.screen_at())
    inner = [cid for cid in state.order if cid in members]
    return [*outer[:at], SCREEN, *inner, *outer[at:]]
