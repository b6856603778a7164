"""The GM's screen: what the table is told, and when.

The *table* is every viewer who does not see everything: players, spectators, integrations
without ``view:gm``. A hidden combatant's turn exists for the GM alone (ruling R79), and so
must its shape: no new ``turn_id``, no change of legal actions, no ack or position naming a
place in the log that counts the events behind the screen. So the table lives at a point of
the log, ``told``, that moves only at the end of a command, and only when

- the turn (or interrupt) is not behind the screen once the command is done, or
- the command put something the table sees behind the screen (a hidden attacker's hit on a
  visible combatant, a free action of a player while the hidden turn runs): then the table is
  told at once, as a real table would be.

While ``told`` stands still, whatever the table would have been sent (the events before the
hidden turn began, its legal actions, the acks of its commands) waits; when ``told`` moves, it
leaves at once, in the order it would have had. So a player who ends its turn before a hidden
combatant's gets the end of its turn, the next visible turn's start, its legal actions and its
ack together, exactly as without the hidden combatant; only the time it waits is the GM's. A
table command that names the turn the table holds (``expect_turn``) waits, too, and is decided
once ``told`` moves (``server.commands``): a double click into a hidden turn is ``stale`` with
the next visible turn in its details, as it would be without the hidden combatant.

With anonymous hidden turns (R99, ``encounter.screen_turn``) the hidden act inside the
screen's turn, which the table sees as any turn: ``told`` is not held while it runs.

The time the table waits is the GM's, but what the table is *told* of the time is not (R96.6):
the events it was held from carry, for it, the ``ts`` of the command that began the hold
(``Envelope.told_ts``; ``held_ts`` in the state while it lasts), so that the end of a visible
turn and the start of the next one share a time as they do without the hidden turn between
them, live, in its history and in its replays alike (:func:`ts_for`).

Everything here is a function of the log: every server process (and a fold of the log long
after) finds the same ``told`` at every seq, and the same times.
"""

from __future__ import annotations

from encounter.actors import Actor
from encounter.state import EncounterState
from protocol import events as ev
from protocol.events import Envelope


def table_sees(envelope: Envelope) -> bool:
    """Whether the table (a viewer with no audience but the public one) may see the event."""
    if envelope.vis is not None:
        return False
    return not screened_event(envelope.event)


def screened_event(event: ev.AnyEvent) -> bool:
    """An event everyone may see by its visibility, which the table is nonetheless not shown:
    a hidden combatant's turn starting or ending, a hidden combatant joining the order."""
    if isinstance(event, ev.TurnStarted | ev.TurnEnded):
        return event.hidden
    if isinstance(event, ev.CombatantJoined):
        return event.entry.hidden
    return False


def behind_screen(state: EncounterState) -> bool:
    """Whether the table is held: the turn now running, or the readied action interrupting
    it, is a hidden combatant's, and not inside the screen's turn, which the table sees as
    any turn (anonymous hidden turns, R99: nothing is held beyond it)."""
    return not state.screen_turn and hidden_turn(state)


def hidden_turn(state: EncounterState) -> bool:
    """Whether the turn now running, or the readied action interrupting it, is a hidden
    combatant's."""
    cid = state.current
    if cid is not None:
        c = state.combatants.get(cid)
        if c is not None and c.hidden:
            return True
    turn = state.turn
    if turn is not None and turn.interrupted_by is not None:
        c = state.combatants.get(turn.interrupted_by)
        return c is not None and c.hidden
    return False


def fold_screen(state: EncounterState, envelope: Envelope, was_behind: bool,
                turned: bool) -> None:
    """After ``envelope`` was applied to ``state`` (``was_behind``: whether the screen was up
    before it; ``turned``: whether it started, interrupted or resumed a turn): what the table
    has been told. At the end of a command ``state`` is the state after the whole command."""
    if table_sees(envelope):
        state.table_last = envelope.seq
        if was_behind:
            state.touched = True
        if turned:
            state.table_turns += 1
    if envelope.chart is not None:  # the last event of a command
        if state.touched or not behind_screen(state):
            state.told = envelope.seq
            state.table_seq = state.table_last
            state.held_ts = 0
        elif not state.held_ts:  # the hold begins with this command
            state.held_ts = table_ts(envelope)
        state.touched = False


def table_ts(envelope: Envelope) -> int:
    """The time the table's record gives ``envelope`` (R96.6): the ``ts`` of the command that
    began the hold it waited in, or its own."""
    return envelope.ts if envelope.told_ts is None else envelope.told_ts


def ts_for(envelope: Envelope, actor: Actor) -> int:
    """The ``ts`` ``actor`` is shown for ``envelope``: the table's (:func:`table_ts`) for those
    who wait for the screen, the log's for the others (the GM, a dice tower)."""
    return table_ts(envelope) if waits_for_screen(actor) else envelope.ts


def screened_roll(state: EncounterState, cid: str | None, behind: bool = False) -> bool:
    """Whether a server roll for ``cid`` (``None``: nobody's) is made behind the screen: for a
    hidden combatant, for nobody during a hidden turn, or one the decider says is (``behind``:
    the roll-off of a tie with a hidden combatant; its ``dice_rolled`` says ``hidden``). With a
    dice seed those rolls draw from a stream of their own (``Decision.server_roll``), so that a
    hidden combatant's dice never shift the dice the table sees."""
    if behind:
        return True
    if cid is not None:
        c = state.combatants.get(cid)
        return c is not None and c.hidden
    return hidden_turn(state)


def at_table(actor: Actor) -> bool:
    """Whether ``actor`` sits at the table (does not see everything): it is given the table's
    ``turn_id``."""
    return not actor.sees_all


def waits_for_screen(actor: Actor) -> bool:
    """Whether what ``actor`` is sent waits for ``told``. A dice tower (``roll``) is not held:
    it enters the GM's dice behind the screen, so it knows when they are asked for (it is
    never told whose)."""
    return not actor.sees_all and "roll" not in actor.scopes


def behind(state: EncounterState) -> bool:
    """Whether the table has not been told everything in the log yet."""
    return state.told < state.version
