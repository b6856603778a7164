"""The fold: ``state = fold(events)``. Applying an event never rolls, decides or fails."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import singledispatch
from typing import Any

import msgspec

from encounter.registry import declaration, names
from encounter.screen import behind_screen, fold_screen, screened_roll
from encounter.state import (
    SCREEN,
    EncounterState,
    PendingRoll,
    Readied,
    SwiftProgress,
    TokenGrant,
    TurnState,
    TurnTimer,
    UndoRequest,
    Vitals,
    copy_state,
)
from protocol import events as ev
from protocol.events import Envelope
from rules.battle_map import shared

#: Where an undo goes back to (ruling R108): the state at a seq, by the seq.
Past = Callable[[int], EncounterState]


def apply(state: EncounterState, envelope: Envelope,
          past: Past | None = None) -> EncounterState:
    """Apply one stored event in place and return the state. An undo (``commands_undone``)
    needs ``past``, the encounter as it was where it goes back to."""
    if envelope.seq != state.version + 1:
        raise ValueError(f"event {envelope.seq} does not follow version {state.version}")
    was_behind, serial = behind_screen(state), state.turn_serial
    event = envelope.event
    if isinstance(event, ev.CommandsUndone):
        if past is None or event.back_to is None:
            raise ValueError(f"event {envelope.seq} takes commands back: the fold needs the "
                             "state it goes back to")
        restore(state, past(event.back_to), envelope.seq)
    else:
        apply_event(state, event)
    state.version = envelope.seq
    if envelope.chart is not None:
        state.chart = list(envelope.chart)
    if envelope.history is not None:
        state.chart_history = {k: list(v) for k, v in envelope.history.items()}
    if envelope.seq == 1:
        state.created_ts = envelope.ts
    fold_screen(state, envelope, was_behind, state.turn_serial != serial)
    if envelope.chart is not None:
        end_command(state, envelope)
    return state


def fold(encounter_id: str, envelopes: Iterable[Envelope]) -> EncounterState:
    state = EncounterState(id=encounter_id)
    kept: list[Envelope] = []

    def past(seq: int) -> EncounterState:
        return fold(encounter_id, kept[:seq])

    for envelope in envelopes:
        apply(state, envelope, past)
        kept.append(envelope)
    return state


# --- undo (ruling R108) -------------------------------------------------------------------------

#: The commands an undo counts back: the last ones, at most.
COMMANDS_KEPT = 200
#: What an undo does not take back: the credentials, the server's dice (they roll on from
#: where they were: a result shown is never drawn again), the names of everyone who was in
#: the encounter (the log's words use them), the count of turn timers, the ranges taken back.
CARRIED = ("tokens", "server_rolls", "screened_rolls", "dice_commitment", "dice_chain",
           "dice_entropy", "dice_secret", "dice_nonce", "dice_renewed", "timers", "names",
           "effect_names", "created_ts", "undone", "table_turns")
#: The events of commands that are not counted as commands an undo takes back one by one.
#: (A renewal of the dice, R117, is the server's, not a command of the table's.)
_NOT_COMMANDS = (ev.CommandsUndone, ev.UndoRequested, ev.UndoRefused, ev.DiceRenewed)


def end_command(state: EncounterState, envelope: Envelope) -> None:
    """At the last event of a command: the seq it ended at, and whose action it took."""
    acted, state.acting = state.acting, None
    if isinstance(envelope.event, _NOT_COMMANDS):
        return
    state.commands.append(envelope.seq)
    if len(state.commands) > COMMANDS_KEPT:
        del state.commands[:-COMMANDS_KEPT]
    state.last_acted = acted


def restore(state: EncounterState, past: EncounterState, seq: int) -> None:
    """``state`` as it was at ``past.version`` (in place), but for what is ``CARRIED``; a new
    turn id (``turn_serial`` moves on, and ``table_turns`` with it when the table is told of
    the undo, ``fold_screen``: a command meant for a turn taken back is ``stale``), no turn
    timer running, and the seqs after ``past.version`` up to ``seq`` (the undo's) marked
    taken back."""
    kept = {f: getattr(state, f) for f in CARRIED}
    serial = state.turn_serial
    fresh = copy_state(past)
    for f in EncounterState.__struct_fields__:
        setattr(state, f, getattr(fresh, f))
    for f, value in kept.items():
        setattr(state, f, value)
    state.undone = [*kept["undone"], (past.version + 1, seq - 1)]
    state.turn_serial = serial + 1
    state.timer = None
    state.acting = None


def apply_event(state: EncounterState, event: ev.Event) -> None:
    """Apply an event's change to the state (the envelope's bookkeeping aside)."""
    _apply(event, state)


@singledispatch
def _apply(event: ev.Event, state: EncounterState) -> None:
    """An event the engine does not fold is its ruleset's (``Declaration.folds``)."""
    step = declaration(state.ruleset).folds.get(type(event)) or _elsewhere(type(event))
    if step is None:
        raise TypeError(f"no fold for {type(event).__name__}")
    step(event, state)


def _elsewhere(kind: type) -> Callable[[Any, EncounterState], None] | None:
    """The fold of another ruleset's event: a log written before each ruleset's GM commands
    were its own may hold one (a Dramatic ``object_loaded`` in an Action Time encounter), and
    it folds as it always did."""
    for name in names():
        step = declaration(name).folds.get(kind)
        if step is not None:
            return step
    return None


@_apply.register
def _(e: ev.EncounterCreated, s: EncounterState) -> None:
    s.name, s.ruleset, s.options, s.campaign = e.name, e.ruleset, e.options, e.campaign
    start = declaration(s.ruleset).initial_state
    if start is not None:
        s.ruleset_state = start()


@_apply.register
def _(e: ev.RulesetEvent, s: EncounterState) -> None:
    step = declaration(s.ruleset).events.get(e.name)
    if step is None:
        raise TypeError(f"no fold for the {e.ruleset} event {e.name!r}")
    step(e, s)


@_apply.register
def _(e: ev.CombatantAdded, s: EncounterState) -> None:
    s.combatants[e.combatant.id] = e.combatant
    s.names[e.combatant.id] = e.combatant.name
    joining = declaration(s.ruleset).initial_vitals
    s.vitals[e.combatant.id] = joining(e.combatant) if joining is not None \
        else Vitals(fatigue=0, fatigue_max=0)


@_apply.register
def _(e: ev.CombatantRemoved, s: EncounterState) -> None:
    s.combatants.pop(e.combatant, None)
    for table in (s.readied, s.swift_progress, s.delaying, s.vitals, s.aid, s.distracted,
                  s.grabs, s.positions, s.loads):
        table.pop(e.combatant, None)
    if e.combatant in s.delay_queue:
        s.delay_queue.remove(e.combatant)
    for ids in (s.flat_footed, s.unaware, s.flying):
        _member(ids, e.combatant, False)
    s.initiative.pop(e.combatant, None)
    s.initiative_rolls.pop(e.combatant, None)
    if e.combatant in s.order:
        s.order.remove(e.combatant)
    if e.combatant in s.screened:
        s.screened.remove(e.combatant)
    for request in [r for r, p in s.pending_rolls.items() if p.combatant == e.combatant]:
        del s.pending_rolls[request]
    for waiting in (s.answers, s.reservations):  # statements to or from it wait for nobody
        for statement in [k for k, p in waiting.items()
                          if e.combatant in (p.speaker, p.target)]:
            del waiting[statement]
    if s.timer is not None and s.timer.combatant == e.combatant:
        s.timer = None
    for token_id, grant in list(s.tokens.items()):
        if e.combatant in grant.combatants:
            s.tokens[token_id] = msgspec.structs.replace(
                grant, combatants=[c for c in grant.combatants if c != e.combatant])


@_apply.register
def _(e: ev.CombatantRevealed, s: EncounterState) -> None:
    current = s.combatants.get(e.combatant.id)
    if current is not None:
        s.combatants[current.id] = msgspec.structs.replace(current, hidden=False)
    entry = s.initiative.get(e.combatant.id)
    if entry is not None:
        s.initiative[e.combatant.id] = msgspec.structs.replace(entry, hidden=False)


@_apply.register
def _(e: ev.CombatantConcealed, s: EncounterState) -> None:
    s.combatants[e.combatant] = msgspec.structs.replace(s.combatants[e.combatant], hidden=True)
    entry = s.initiative.get(e.combatant)
    if entry is not None:
        s.initiative[e.combatant] = msgspec.structs.replace(entry, hidden=True)


@_apply.register
def _(e: ev.OptionsChanged, s: EncounterState) -> None:
    s.options = e.options


@_apply.register
def _(e: ev.TokenIssued, s: EncounterState) -> None:
    s.tokens[e.token_id] = TokenGrant(
        token_id=e.token_id, role=e.role, combatants=list(e.combatants),
        scopes=list(e.scopes), label=e.label, expires_at=e.expires_at,
    )


@_apply.register
def _(e: ev.TokenRevoked, s: EncounterState) -> None:
    if e.token_id in s.tokens:
        s.tokens[e.token_id] = msgspec.structs.replace(s.tokens[e.token_id], revoked=True)


@_apply.register
def _(e: ev.RollRequested, s: EncounterState) -> None:
    s.pending_rolls[e.request] = PendingRoll(
        request=e.request, roller=e.roller, combatant=e.combatant, expr=e.expr,
        dice=list(e.dice), purpose=e.purpose, context=e.context,
    )


@_apply.register
def _(e: ev.DiceRolled, s: EncounterState) -> None:
    if e.request is not None:
        s.pending_rolls.pop(e.request, None)
    if not e.roll.manual:
        if screened_roll(s, e.combatant, e.hidden):
            s.screened_rolls += 1
        else:
            s.server_rolls += 1
    if e.purpose == "initiative" and e.combatant is not None:
        s.initiative_rolls[e.combatant] = e.roll


@_apply.register
def _(e: ev.TurnTimerStarted, s: EncounterState) -> None:
    s.timer = TurnTimer(number=e.number, combatant=e.combatant, deadline=e.deadline,
                        warn_at=e.warn_at)
    s.timers = max(s.timers, e.number)


@_apply.register
def _(e: ev.TurnTimerWarned, s: EncounterState) -> None:
    if s.timer is not None:
        s.timer = msgspec.structs.replace(s.timer, warn_at=None)


@_apply.register
def _(e: ev.TurnTimerPaused, s: EncounterState) -> None:
    if s.timer is not None:
        s.timer = msgspec.structs.replace(s.timer, deadline=None, remaining=e.remaining)


@_apply.register
def _(e: ev.TurnTimerResumed, s: EncounterState) -> None:
    if s.timer is not None:
        s.timer = msgspec.structs.replace(s.timer, deadline=e.deadline, warn_at=e.warn_at,
                                          remaining=None)


@_apply.register
def _(e: ev.TurnTimerExpired, s: EncounterState) -> None:
    s.timer = None


@_apply.register
def _(e: ev.DiceCommitted, s: EncounterState) -> None:
    s.dice_commitment = s.dice_chain = e.commitment


@_apply.register
def _(e: ev.DiceEntropyAdded, s: EncounterState) -> None:
    s.dice_chain = e.chain
    s.dice_entropy += 1


@_apply.register
def _(e: ev.DiceRevealed, s: EncounterState) -> None:
    s.dice_secret = e.secret


@_apply.register
def _(e: ev.DiceRenewed, s: EncounterState) -> None:
    s.dice_renewed.append(e.revealed)
    s.dice_commitment = s.dice_chain = e.commitment
    s.dice_nonce = e.nonce


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
    if e.entry.hidden and s.options.anonymous_hidden_turns:  # it acts behind the screen (R99)
        s.screened.append(e.entry.combatant)


@_apply.register
def _(e: ev.RoundStarted, s: EncounterState) -> None:
    s.round = e.round
    s.surprise = e.surprise
    s.delaying, s.delay_queue = {}, []
    if s.options.anonymous_hidden_turns:  # R99: who acts behind the screen, and on which count
        s.screened = [cid for cid in s.order if s.combatants[cid].hidden]
        s.screen_count = s.options.screen_count
    # several swift actions must come in the same or consecutive rounds (SWIFT ACTIONS)
    s.swift_progress = {k: v for k, v in s.swift_progress.items() if v.round >= e.round - 1}


@_apply.register
def _(e: ev.TurnStarted, s: EncounterState) -> None:
    s.current = e.combatant
    if e.combatant == SCREEN:
        s.screen_turn = True
    s.delaying.pop(e.combatant, None)
    # R11: an aider's bonus lapses when the aider's next turn starts
    for target in [t for t, aiders in s.aid.items() if e.combatant in aiders]:
        s.aid[target].remove(e.combatant)
        if not s.aid[target]:
            del s.aid[target]
    vitals = s.vitals.get(e.combatant)
    # R14.5: at 0 fatigue points a single standard, move or swift action
    single = s.surprise or (vitals is not None and vitals.condition == ("active", "defenseless")
                            and s.options.zero_fp_single_action)
    budget = declaration(s.ruleset).rules.turn_budget(single)
    s.turn_serial += 1
    s.turn = TurnState(combatant=e.combatant, budget=budget,
                       was_flat_footed=e.combatant in s.flat_footed)


@_apply.register
def _(e: ev.TurnEnded, s: EncounterState) -> None:
    s.current = None
    s.turn = None
    s.timer = None
    if e.combatant == SCREEN:
        s.screen_turn = False


@_apply.register
def _(e: ev.ScreenMoved, s: EncounterState) -> None:
    pass  # (the count is the options'; the screen moves to it as the next round begins)


@_apply.register
def _(e: ev.EncounterEnded, s: EncounterState) -> None:
    s.ended, s.end_reason, s.current, s.turn = True, e.reason, None, None
    s.timer = None
    s.screen_turn = False
    s.pending_rolls = {}


@_apply.register
def _(e: ev.AwarenessSet, s: EncounterState) -> None:
    if e.in_scene:
        _member(s.unaware, e.combatant, not e.aware)
        return
    s.combatants[e.combatant] = msgspec.structs.replace(s.combatants[e.combatant],
                                                        aware=e.aware)


def _member(ids: list[str], cid: str, member: bool) -> None:
    if member and cid not in ids:
        ids.append(cid)
    elif not member and cid in ids:
        ids.remove(cid)


@_apply.register
def _(e: ev.SceneStarted, s: EncounterState) -> None:
    s.had_surprise = e.surprise


def mark(members: list[str], cid: str, on: bool) -> None:
    """Put ``cid`` in or take it out of a list of combatants (each at most once); the rulesets'
    folds use it too."""
    if on and cid not in members:
        members.append(cid)
    elif not on and cid in members:
        members.remove(cid)


@_apply.register
def _(e: ev.FlatFooted, s: EncounterState) -> None:
    mark(s.flat_footed, e.combatant, e.flat_footed)


@_apply.register
def _(e: ev.UndoRequested, s: EncounterState) -> None:
    if e.back_to is None:
        raise ValueError("undo_requested without back_to")
    s.undo_requests = {**s.undo_requests, e.request: UndoRequest(
        request=e.request, combatant=e.combatant, back_to=e.back_to, reason=e.reason)}


@_apply.register
def _(e: ev.UndoRefused, s: EncounterState) -> None:
    s.undo_requests = {k: v for k, v in s.undo_requests.items() if k != e.request}


@_apply.register
def _(e: ev.CommandsUndone, s: EncounterState) -> None:
    raise ValueError("commands_undone is folded by apply, with the state it goes back to")


@_apply.register
def _(e: ev.ActionTaken, s: EncounterState) -> None:
    s.acting = e.combatant
    turn = s.turn
    if turn is not None and turn.combatant == e.combatant and not e.out_of_turn:
        turn.acted = True
        if e.slot == "full_round":
            turn.budget = dict.fromkeys(turn.budget, False)
        elif e.slot is not None:
            slot = declaration(s.ruleset).rules.economy.slot_named(e.slot)
            if slot in turn.budget:
                turn.budget[slot] = False
    if e.readied:
        s.readied.pop(e.combatant, None)
    if e.needed > 1:
        if e.progress >= e.needed:
            s.swift_progress.pop(e.combatant, None)
        else:
            s.swift_progress[e.combatant] = SwiftProgress(action=e.action, spent=e.progress,
                                                          needed=e.needed, round=e.round)


@_apply.register
def _(e: ev.TurnDelayed, s: EncounterState) -> None:
    s.delaying[e.combatant] = e.until_count
    s.turn = None
    s.timer = None


@_apply.register
def _(e: ev.DelayedTurnRequested, s: EncounterState) -> None:
    if e.combatant not in s.delay_queue:
        s.delay_queue.append(e.combatant)


@_apply.register
def _(e: ev.OrderChanged, s: EncounterState) -> None:
    if e.combatant in s.order:
        s.order.remove(e.combatant)
    s.order.insert(e.position, e.combatant)
    s.initiative[e.combatant] = msgspec.structs.replace(s.initiative[e.combatant], count=e.count)
    if e.reason == "ready" and e.combatant in s.screened and not s.screen_turn:
        # a hidden readier that acted in a visible turn stands on that count for the rest of
        # the round, its turn behind the screen gone (R8.5, R99.4); behind it from the next
        s.screened.remove(e.combatant)
    if e.reason in ("delay", "round_end"):
        s.delaying.pop(e.combatant, None)
        if e.combatant in s.delay_queue:
            s.delay_queue.remove(e.combatant)


@_apply.register
def _(e: ev.ActionReadied, s: EncounterState) -> None:
    s.readied[e.combatant] = Readied(action=e.action, action_type=e.action_type,
                                     trigger=e.trigger, round=e.round)
    if s.turn is not None and s.turn.combatant == e.combatant:
        s.turn.acted = True


@_apply.register
def _(e: ev.ReadiedActionTriggered, s: EncounterState) -> None:
    s.turn_serial += 1
    if s.turn is not None:
        s.turn.interrupted_by = e.combatant


@_apply.register
def _(e: ev.InterruptEnded, s: EncounterState) -> None:
    s.turn_serial += 1
    if s.turn is not None:
        s.turn.interrupted_by = None
    s.readied.pop(e.combatant, None)


@_apply.register
def _(e: ev.ReadiedActionLost, s: EncounterState) -> None:
    s.readied.pop(e.combatant, None)


@_apply.register
def _(e: ev.EffectStarted, s: EncounterState) -> None:
    s.effects[e.effect] = e
    s.effect_names[e.effect] = e.name


@_apply.register
def _(e: ev.EffectEnded, s: EncounterState) -> None:
    s.effects.pop(e.effect, None)


@_apply.register
def _(e: ev.VitalsChanged, s: EncounterState) -> None:
    before = s.vitals[e.combatant]
    # (vitals are frozen: the state's copies share them until one is replaced)
    s.vitals[e.combatant] = v = msgspec.structs.replace(
        before,
        fatigue=before.fatigue if e.fatigue is None else e.fatigue,
        fatigue_max=before.fatigue_max if e.fatigue_max is None else e.fatigue_max,
        physical=e.physical, mental=e.mental, condition=tuple(e.condition), prone=e.prone,
        helpless=e.helpless,
        # a log from before ``bound_or_asleep`` kept the GM's flag in ``helpless``
        bound_or_asleep=e.helpless if e.bound_or_asleep is None else e.bound_or_asleep,
        check_round=e.check_round, structure_loss=e.structure_loss,
        second_lunch=before.second_lunch or e.cause == "second_lunch")
    if e.cause == "overweight" and e.combatant in s.loads:
        s.loads[e.combatant].strained_round = s.round
    if not v.alive and e.combatant in s.order:  # Death: it leaves the order
        if s.turn is not None and s.turn.combatant == e.combatant:
            s.turn.gone_at = s.order.index(e.combatant)  # in its own turn: go on from there
        s.order.remove(e.combatant)
        s.readied.pop(e.combatant, None)
        s.delaying.pop(e.combatant, None)
        if e.combatant in s.delay_queue:
            s.delay_queue.remove(e.combatant)


@_apply.register
def _(e: ev.CheckMade, s: EncounterState) -> None:
    if e.check == "aid_another" and e.success and e.target is not None:
        s.aid.setdefault(e.target, []).append(e.combatant)
    elif e.check == "distraction" and e.success and e.target is not None:
        s.distracted[e.target] = e.combatant
    elif e.check not in ("aid_another", "distraction", "constitution", "adjudicated"):
        _check_made_by(s, e.combatant)


def _check_made_by(s: EncounterState, cid: str) -> None:
    """Aid another and distraction count on the next check only (R11)."""
    s.aid.pop(cid, None)
    s.distracted.pop(cid, None)


@_apply.register
def _(e: ev.AttackResolved, s: EncounterState) -> None:
    _check_made_by(s, e.attacker)


@_apply.register
def _(e: ev.GrabChanged, s: EncounterState) -> None:
    grabbers = s.grabs.setdefault(e.target, [])
    mark(grabbers, e.grabber, e.held)
    if not grabbers:
        del s.grabs[e.target]


@_apply.register
def _(e: ev.DamageDealt, s: EncounterState) -> None:
    pass


@_apply.register
def _(e: ev.GmRuling, s: EncounterState) -> None:
    pass


@_apply.register
def _(e: ev.MapSet, s: EncounterState) -> None:
    s.battle_map = shared(e.map) if e.map is not None else None


@_apply.register
def _(e: ev.CombatantPlaced, s: EncounterState) -> None:
    if e.at is None:
        s.positions.pop(e.combatant, None)
    else:
        s.positions[e.combatant] = (e.at[0], e.at[1])


def engine_folds() -> list[type]:
    """The event kinds the engine folds itself (the others are a ruleset's)."""
    return [k for k in _apply.registry if isinstance(k, type) and issubclass(k, ev.Event)
            and k is not ev.Event]
