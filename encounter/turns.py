"""Taking a turn: actions against the turn's budget, free actions and reactions, delay, ready
("MLP Dramatic Systems": ACTIONS IN COMBAT, TYPES OF ACTIONS, SPECIAL INITIATIVE ACTIONS).

Handlers of the ``act`` command, called by the decider with the combatant already checked to
exist and to be controlled by the sender.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from encounter.rejected import Rejected
from encounter.state import PendingRoll
from protocol import events as ev
from protocol import messages as msg
from protocol.errors import ErrorCode
from protocol.model import CombatantProfile, EncounterOptions
from rules.actions import ACTIONS, ActionSpec, Budget, IllegalAction, Kind, slot_for, spend

if TYPE_CHECKING:
    from encounter.engine import Decision


def act_command(d: Decision, cmd: msg.Act) -> None:
    """``act``: the sender must control the combatant; the rest is the turn's."""
    assert d.actor is not None
    from encounter.engine import find_combatant

    c = find_combatant(d, cmd.combatant)
    if not d.actor.controls(d.s, c.id):
        raise Rejected(ErrorCode.FORBIDDEN, f"you do not control {c.name}")
    act(d, c, cmd)


def act(d: Decision, c: CombatantProfile, cmd: msg.Act) -> None:
    if d.s.chart[0] != "scene":
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "the scene is not running")
    vitals = d.s.vitals.get(c.id)
    if vitals is not None and not vitals.conscious:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{c.name} is {vitals.condition[0]} and takes "
                      "no actions (Falling Unconscious)")
    waiting = [p for p in d.s.pending_rolls.values() if p.context is not None]
    if waiting:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, waiting_for(d, waiting[0]))
    special = _SPECIAL.get(cmd.action)
    if special is not None:
        special(d, c, cmd)
        return
    catalog = d.rules.actions()
    spec = catalog.get(cmd.action)
    if spec is None:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{cmd.action!r} is not an action of "
                      f"{d.rules.title}", legal=sorted([*catalog, *_SPECIAL]))
    turn = d.s.turn
    if turn is not None and turn.interrupted_by == c.id:
        _readied_action(d, c, spec, cmd)
    elif spec.kind in (Kind.FREE, Kind.REACTION):
        _out_of_turn(d, c, spec, cmd)
    else:
        _in_turn(d, c, spec, cmd)


def waiting_for(d: Decision, pending: PendingRoll) -> str:
    """Why nothing can be done while an action waits for physical dice, as the actor may be
    told: the roll itself only to those who see the request (a player is not shown the GM's
    rolls, nor a hidden combatant's)."""
    actor = d.actor
    if actor is not None and not actor.sees_all and (
            d.hidden(pending.combatant) or (pending.roller == "gm"
                                            and not actor.answers_gm_rolls)):
        return "waiting for the GM's dice"
    return f"waiting for the dice of the {pending.purpose} roll ({pending.expr})"


def _note(d: Decision, c: CombatantProfile, cmd: msg.Act) -> tuple[str | None, str | None]:
    note, target = cmd.args.get("note"), cmd.args.get("target")
    if note is not None and (not isinstance(note, str) or len(note) > 200):
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "args.note is a text of at most 200 characters")
    if target is not None and (not isinstance(target, str) or target not in d.s.combatants
                               or not d.may_aim(c.id, target)):
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "args.target is a combatant id")
    return note, target


def _require_turn(d: Decision, c: CombatantProfile) -> None:
    turn = d.s.turn
    if d.s.current != c.id or turn is None:
        raise Rejected(ErrorCode.NOT_YOUR_TURN, f"it is not {c.name}'s turn")
    if turn.interrupted_by is not None:
        readier = turn.interrupted_by
        readied = f"{d.s.combatants[readier].name}'s readied action" \
            if d.actor_sees(readier) else "a readied action"
        raise Rejected(ErrorCode.ILLEGAL_ACTION,
                      f"{readied} interrupts this turn; it resumes afterwards")


def _in_turn(d: Decision, c: CombatantProfile, spec: ActionSpec, cmd: msg.Act) -> None:
    _require_turn(d, c)
    turn = d.s.turn
    assert turn is not None
    if not allowed_in_scene(spec, d.s.options):
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "Recover cannot be used in a dramatic scene "
                      "(ruling R18)")
    if spec.kind is Kind.FULL_ROUND and d.s.surprise:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "no full-round actions in the surprise round: "
                      "a single standard, move or swift action")
    try:
        after = spend(turn.budget, spec.kind)
    except IllegalAction as exc:
        explain = d.hooks.budget_refusal
        raise Rejected(ErrorCode.ILLEGAL_ACTION,
                      explain(turn.budget, spec) if explain else str(exc)) from None
    slot = "full_round" if spec.kind is Kind.FULL_ROUND else _spent_slot(turn.budget, after)
    progress = 1
    if spec.swifts > 1:
        # SWIFT ACTIONS: "Multiple swift actions usually have to occur on the same round or
        # consecutive rounds"
        held = d.s.swift_progress.get(c.id)
        carried = held is not None and held.action == spec.name and held.round >= d.s.round - 1
        progress = held.spent + 1 if carried and held is not None else 1
    resolve = resolver(d.s, spec.name)
    effect = resolve(d, c, cmd) if resolve is not None else None  # may refuse
    note, target = _note(d, c, cmd)
    d.emit(ev.ActionTaken(round=d.s.round, combatant=c.id, action=spec.name,
                          action_type=spec.kind.value, slot=slot, progress=progress,
                          needed=spec.swifts, note=note, target=target, hidden=c.hidden),
           d.combatant_vis(c.id))
    if effect is not None:
        effect()
    d.send("take_action", "nothing is left of this turn but free actions")
    run_followups(d)


def run_followups(d: Decision) -> None:
    """What the action's resolver asked for once the chart has taken it (``d.followups``)."""
    while d.followups:
        d.followups.pop(0)()


def _spent_slot(before: Budget, after: Budget) -> str | None:
    for slot in ("standard", "move", "swift"):
        if getattr(before, slot) and not getattr(after, slot):
            return slot
    return None


def _out_of_turn(d: Decision, c: CombatantProfile, spec: ActionSpec, cmd: msg.Act) -> None:
    """Free actions "even when it isn't your turn", never while flat-footed; reactions out of
    turn in response to a trigger (R4: also while flat-footed)."""
    flat = c.id in d.s.flat_footed
    vitals = d.s.vitals.get(c.id)
    if spec.kind is Kind.REACTION and vitals is not None and vitals.fatigue == 0:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{c.name} has 0 fatigue points: no reactions "
                      "(0 Fatigue Points, R14.5)")
    if spec.kind is Kind.FREE and flat:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{c.name} is flat-footed: no free actions")
    if spec.kind is Kind.REACTION and flat and not d.s.options.reactions_while_flat_footed:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{c.name} is flat-footed: no reactions "
                      "(option reactions_while_flat_footed)")
    resolve = resolver(d.s, spec.name)
    effect = resolve(d, c, cmd) if resolve is not None else None  # may refuse
    note, target = _note(d, c, cmd)
    d.emit(ev.ActionTaken(round=d.s.round, combatant=c.id, action=spec.name,
                          action_type=spec.kind.value, out_of_turn=d.s.current != c.id,
                          note=note, target=target, hidden=c.hidden), d.combatant_vis(c.id))
    if effect is not None:
        effect()
    run_followups(d)


def _end_turn(d: Decision, c: CombatantProfile, cmd: msg.Act) -> None:
    _require_turn(d, c)
    d.send("next_turn", "the turn cannot end now")


def _delay(d: Decision, c: CombatantProfile, cmd: msg.Act) -> None:
    """Delay (R7.1): at the start of the turn, before any action; optionally naming a lower
    count to act on."""
    _require_turn(d, c)
    turn = d.s.turn
    assert turn is not None
    if d.s.ruleset != "dramatic":
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{d.rules.title} has no delay: a turn is "
                      "taken when it comes (or Prepared)")
    if "fresh" not in d.s.chart:  # the turn's chart state: nothing done yet
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "delay at the start of the turn, before acting")
    until = cmd.args.get("count")
    own = d.s.count_of(c.id)
    if until is not None:
        if isinstance(until, bool) or not isinstance(until, int):
            raise Rejected(ErrorCode.INVALID_PAYLOAD, "args.count is a whole number")
        if until >= own:
            raise Rejected(ErrorCode.ILLEGAL_ACTION, f"delaying lowers the count: name one below "
                          f"{own}")
    vis = d.combatant_vis(c.id)
    d.emit(ev.TurnDelayed(round=d.s.round, combatant=c.id, until_count=until, hidden=c.hidden),
           vis)
    if turn.was_flat_footed and d.s.options.delay_keeps_flat_footed:  # R3
        d.emit(ev.FlatFooted(combatant=c.id, flat_footed=True, hidden=c.hidden), vis)
    d.send("next_turn", "the turn cannot end now")


def _take_delayed_turn(d: Decision, c: CombatantProfile, cmd: msg.Act) -> None:
    """A delaying combatant acts "now": right after the current turn (R7.2)."""
    if c.id not in d.s.delaying:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{c.name} is not delaying")
    if c.id in d.s.delay_queue:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{c.name} acts after this turn already")
    if d.s.current is None:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "no turn is running")
    d.emit(ev.DelayedTurnRequested(combatant=c.id, after=d.s.current, hidden=c.hidden,
                                   after_hidden=d.hidden(d.s.current)),
           d.combatant_vis(c.id))


def _ready(d: Decision, c: CombatantProfile, cmd: msg.Act) -> None:
    """Ready (R8): a single standard or move action against a declared trigger; it costs the
    action readied (and the standard action too with ``ready_costs_standard_action``)."""
    _require_turn(d, c)
    turn = d.s.turn
    assert turn is not None
    name, trigger = cmd.args.get("action"), cmd.args.get("trigger")
    spec = d.rules.actions().get(name) if isinstance(name, str) else None
    if spec is None or not spec.readyable:
        readyable = sorted(a.name for a in d.rules.actions().values() if a.readyable)
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "ready a standard or move action: args.action "
                      "names it", readyable=readyable)
    if not isinstance(trigger, str) or not 1 <= len(trigger) <= 200:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "args.trigger says when (1-200 characters)")
    if c.id in d.s.readied:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{c.name} has an action readied already")
    budget = turn.budget
    slots: list[str] = []
    try:
        after = spend(budget, spec.kind)
        slots.append(_spent_slot(budget, after) or "")
        if d.s.options.ready_costs_standard_action and after.standard:
            slots.append("standard")
    except IllegalAction as exc:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, str(exc)) from None
    vis = d.combatant_vis(c.id)
    for slot in slots:
        d.emit(ev.ActionTaken(round=d.s.round, combatant=c.id, action="ready",
                              action_type=spec.kind.value, slot=slot, note=trigger,
                              hidden=c.hidden), vis)
    d.emit(ev.ActionReadied(round=d.s.round, combatant=c.id, action=spec.name,
                            action_type=spec.kind.value, trigger=trigger, hidden=c.hidden), vis)
    d.send("take_action", "nothing is left of this turn to ready")


def _trigger_ready(d: Decision, c: CombatantProfile, cmd: msg.Act) -> None:
    """The trigger occurred: the readied action interrupts the current turn (R8.2-3)."""
    if c.id not in d.s.readied:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{c.name} has no readied action")
    if d.s.current == c.id:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "a readied action is taken after your turn, "
                      "before your next one")
    turn = d.s.turn
    if turn is None:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "no turn is running to interrupt")
    if turn.interrupted_by is not None:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "another readied action is being resolved")
    d._interrupter = c.id
    d.send("interrupt", "the turn cannot be interrupted now")


def _readied_action(d: Decision, c: CombatantProfile, spec: ActionSpec, cmd: msg.Act) -> None:
    readied = d.s.readied.get(c.id)
    if readied is None or readied.action != spec.name:
        wanted = readied.action if readied else "nothing"
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"the readied action is {wanted}")
    resolve = resolver(d.s, spec.name)
    effect = resolve(d, c, cmd) if resolve is not None else None  # may refuse
    note, target = _note(d, c, cmd)
    d.emit(ev.ActionTaken(round=d.s.round, combatant=c.id, action=spec.name,
                          action_type=spec.kind.value, out_of_turn=True, readied=True,
                          note=note, target=target, hidden=c.hidden), d.combatant_vis(c.id))
    if effect is not None:
        effect()
    end_interrupt_when_resolved(d)
    run_followups(d)


def end_interrupt_when_resolved(d: Decision) -> None:
    """The interrupted turn resumes once the readied (or prepared) action is resolved: taken,
    its dice in and its results recorded (R8.3, R36). While physical dice are awaited
    (``roll_requested``) the interrupt goes on: the interrupter answers the dice, the
    interrupted combatant waits. Called when the action is taken and after each of its dice."""
    turn = d.s.turn
    if turn is None or turn.interrupted_by is None or turn.interrupted_by in d.s.readied:
        return  # no interrupt, or its action is still to be taken
    if any(p.context is not None for p in d.s.pending_rolls.values()):
        return  # a stage of the action waits for its dice
    d.send("resume", "the interrupted turn cannot resume now")
    if d.hooks.interrupt_ended is not None:
        d.hooks.interrupt_ended(d)


def allowed_in_scene(spec: ActionSpec, options: EncounterOptions) -> bool:
    """SWIFT ACTIONS: Recover "cannot [be used] if you are ia an dramatic scene" (R18)."""
    return spec.name != "recover" or options.recover_in_scene


def legal_turn_actions(budget: Budget, catalog: dict[str, ActionSpec], surprise: bool,
                       acted: bool, may_ready: bool, options: EncounterOptions,
                       may_delay: bool = True) -> list[str]:
    """The actions the budget allows now, in the catalog's order, then the special ones."""
    names = []
    for spec in catalog.values():
        if spec.kind in (Kind.FREE, Kind.REACTION) or not allowed_in_scene(spec, options):
            continue
        if spec.kind is Kind.FULL_ROUND:
            if budget.untouched() and not surprise:
                names.append(spec.name)
        elif slot_for(budget, spec.kind) is not None:
            names.append(spec.name)
    if may_ready and any(slot_for(budget, s.kind) for s in catalog.values() if s.readyable):
        names.append("ready")
    if not acted and may_delay:
        names.append("delay")
    names.append("end_turn")
    return names


from encounter.actions import resolver  # noqa: E402  (the resolvers need this module's names)


def _answer_statement(d: Decision, c: CombatantProfile, cmd: msg.Act) -> None:
    """Answering a statement is no action: any time, by the target's controller (R48)."""
    from encounter.social import answer

    answer(d, c, cmd)


_SPECIAL: dict[str, Callable[[Decision, CombatantProfile, msg.Act], None]] = {
    "answer_statement": _answer_statement,
    "end_turn": _end_turn,
    "delay": _delay,
    "take_delayed_turn": _take_delayed_turn,
    "ready": _ready,
    "trigger_ready": _trigger_ready,
}

__all__ = ["ACTIONS", "act", "act_command", "legal_turn_actions"]
