"""The fold: ``state = fold(events)``. Applying an event never rolls, decides or fails."""

from __future__ import annotations

from collections.abc import Iterable
from functools import singledispatch

from encounter.state import EncounterState, PendingRoll, TokenGrant
from protocol import events as ev
from protocol.events import Envelope


def apply(state: EncounterState, envelope: Envelope) -> EncounterState:
    """Apply one stored event in place and return the state."""
    if envelope.seq != state.version + 1:
        raise ValueError(f"event {envelope.seq} does not follow version {state.version}")
    apply_event(state, envelope.event)
    state.version = envelope.seq
    if envelope.chart is not None:
        state.chart = list(envelope.chart)
    if envelope.seq == 1:
        state.created_ts = envelope.ts
    return state


def fold(encounter_id: str, envelopes: Iterable[Envelope]) -> EncounterState:
    state = EncounterState(id=encounter_id)
    for envelope in envelopes:
        apply(state, envelope)
    return state


def apply_event(state: EncounterState, event: ev.Event) -> None:
    """Apply an event's change to the state (the envelope's bookkeeping aside)."""
    _apply(event, state)


@singledispatch
def _apply(event: ev.Event, state: EncounterState) -> None:
    raise TypeError(f"no fold for {type(event).__name__}")


@_apply.register
def _(e: ev.EncounterCreated, s: EncounterState) -> None:
    s.name, s.ruleset, s.options = e.name, e.ruleset, e.options


@_apply.register
def _(e: ev.CombatantAdded, s: EncounterState) -> None:
    s.combatants[e.combatant.id] = e.combatant


@_apply.register
def _(e: ev.CombatantRemoved, s: EncounterState) -> None:
    s.combatants.pop(e.combatant, None)
    s.initiative.pop(e.combatant, None)
    s.initiative_rolls.pop(e.combatant, None)
    if e.combatant in s.order:
        s.order.remove(e.combatant)
    for request in [r for r, p in s.pending_rolls.items() if p.combatant == e.combatant]:
        del s.pending_rolls[request]
    for grant in s.tokens.values():
        if e.combatant in grant.combatants:
            grant.combatants.remove(e.combatant)


@_apply.register
def _(e: ev.CombatantRevealed, s: EncounterState) -> None:
    current = s.combatants.get(e.combatant.id)
    if current is not None:
        current.hidden = False
    if e.combatant.id in s.initiative:
        s.initiative[e.combatant.id].hidden = False


@_apply.register
def _(e: ev.CombatantConcealed, s: EncounterState) -> None:
    s.combatants[e.combatant].hidden = True
    if e.combatant in s.initiative:
        s.initiative[e.combatant].hidden = True


@_apply.register
def _(e: ev.OptionsChanged, s: EncounterState) -> None:
    s.options = e.options


@_apply.register
def _(e: ev.TokenIssued, s: EncounterState) -> None:
    s.tokens[e.token_id] = TokenGrant(
        token_id=e.token_id, role=e.role, combatants=list(e.combatants),
        scopes=list(e.scopes), label=e.label,
    )


@_apply.register
def _(e: ev.TokenRevoked, s: EncounterState) -> None:
    if e.token_id in s.tokens:
        s.tokens[e.token_id].revoked = True


@_apply.register
def _(e: ev.RollRequested, s: EncounterState) -> None:
    s.pending_rolls[e.request] = PendingRoll(
        request=e.request, roller=e.roller, combatant=e.combatant, expr=e.expr,
        dice=list(e.dice), purpose=e.purpose,
    )


@_apply.register
def _(e: ev.DiceRolled, s: EncounterState) -> None:
    if e.request is not None:
        s.pending_rolls.pop(e.request, None)
    if not e.roll.manual:
        s.server_rolls += 1
    if e.purpose == "initiative" and e.combatant is not None:
        s.initiative_rolls[e.combatant] = e.roll


@_apply.register
def _(e: ev.InitiativeSet, s: EncounterState) -> None:
    s.initiative = {entry.combatant: entry for entry in e.entries}
    s.order = [entry.combatant for entry in e.entries]
    s.initiative_rolls = {}


@_apply.register
def _(e: ev.CombatantJoined, s: EncounterState) -> None:
    s.initiative[e.entry.combatant] = e.entry
    s.order.insert(e.position, e.entry.combatant)
    s.initiative_rolls.pop(e.entry.combatant, None)


@_apply.register
def _(e: ev.RoundStarted, s: EncounterState) -> None:
    s.round = e.round


@_apply.register
def _(e: ev.TurnStarted, s: EncounterState) -> None:
    s.current = e.combatant


@_apply.register
def _(e: ev.TurnEnded, s: EncounterState) -> None:
    s.current = None


@_apply.register
def _(e: ev.EncounterEnded, s: EncounterState) -> None:
    s.ended, s.end_reason, s.current = True, e.reason, None
    s.pending_rolls = {}

