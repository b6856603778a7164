"""Taking a turn: actions against the turn's budget, free actions and reactions, delay, ready
("MLP Dramatic Systems": ACTIONS IN COMBAT, TYPES OF ACTIONS, SPECIAL INITIATIVE ACTIONS).

Every action is declared once (``encounter.declare``). :func:`refusal` answers "may this
combatant take this action now, and if not why": the checks every action shares (the scene,
consciousness, dice still awaited, the turn, its budget, an interrupt, flat-footed combatants)
and then the ruleset's and the action's own precondition. ``act`` refuses with it and
``legal_actions`` offers with it (``encounter.legal``). Then ``act`` converts the arguments to
the action's struct, the action's resolver checks what depends on them, the target must be
one the action lists, and the action is recorded (spending the budget) and resolved.

The turn's own moves are declared here too, for every ruleset that takes them: ``end_turn``,
``delay``, ``ready``, ``trigger_ready`` and ``take_delayed_turn``.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import compress
from typing import TYPE_CHECKING, Annotated, Any

import msgspec

from encounter.decision import find_combatant
from encounter.declare import Action, Args, Catalog, Refusal, When, convert_args
from encounter.registry import catalog, declaration
from encounter.rejected import Rejected
from encounter.state import SCREEN, PendingRoll
from protocol import events as ev
from protocol import messages as msg
from protocol.errors import ErrorCode
from protocol.model import CombatantProfile
from rules.actions import Budget, Economy, IllegalAction, Kind

if TYPE_CHECKING:
    from encounter.actors import Actor
    from encounter.boundary import Engine
    from encounter.decision import Decision
    from encounter.state import EncounterState


def act_command(d: Decision, cmd: msg.Act) -> None:
    """``act``: the sender must control the combatant; the rest is the turn's."""
    assert d.actor is not None
    if cmd.combatant == SCREEN and d.s.options.anonymous_hidden_turns:
        end_screen_turn(d, cmd)
        return
    c = find_combatant(d, cmd.combatant)
    if c.hidden and not d.actor.sees_all:  # it could not see whom it acts for
        raise Rejected(ErrorCode.NOT_FOUND, f"no combatant {cmd.combatant!r}")
    if not d.actor.controls(d.s, c.id):
        raise Rejected(ErrorCode.FORBIDDEN, f"you do not control {c.name}")
    act(d, c, cmd)


def end_screen_turn(d: Decision, cmd: msg.Act) -> None:
    """The GM ends the screen's turn when nobody takes a turn inside it, as an NPC's (R99):
    with someone inside, it ends when the last of them ends its turn."""
    assert d.actor is not None
    if not d.actor.is_gm:
        raise Rejected(ErrorCode.FORBIDDEN, "only the GM ends the turn of the GM's screen")
    if cmd.action != "end_turn":
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "the GM's screen takes no actions: its turn "
                       "ends (end_turn)", legal=["end_turn"])
    why = screen_turn_refusal(d.s, d.actor)
    if why is not None:
        raise why.rejected()
    d.send("next_turn", "the turn cannot end now")


def screen_turn_refusal(state: EncounterState, actor: Actor | None = None) -> Refusal | None:
    """Why the GM may not end the screen's turn now (R99), or ``None``."""
    why = common_refusal(state, SCREEN, actor)
    if why is not None:
        return why
    if state.current != SCREEN or state.turn is None:
        inside = "someone takes a turn behind it: it ends with the last of those" \
            if state.screen_turn else "it is not the screen's turn"
        return Refusal(inside, ErrorCode.NOT_YOUR_TURN)
    if state.turn.interrupted_by is not None:
        return Refusal("a readied action interrupts this turn; it resumes afterwards")
    return None


# --- may this combatant take this action now? -----------------------------------------------


def common_refusal(state: EncounterState, cid: str,
                   actor: Actor | None = None) -> Refusal | None:
    """What refuses every action alike: the scene not running, the combatant unconscious, the
    dice of an action still awaited. A refusal is worded for ``actor``, who gets it: it names
    nothing hidden from it (``None``: worded in full, as for the GM)."""
    if not state.chart or state.chart[0] != "scene":
        return Refusal("the scene is not running")
    vitals = state.vitals.get(cid)
    if vitals is not None and not vitals.conscious:
        return Refusal(f"{state.combatants[cid].name} is {vitals.condition[0]} and takes no "
                       "actions (Falling Unconscious)")
    return dice_refusal(state, actor)


def dice_refusal(state: EncounterState, actor: Actor | None = None) -> Refusal | None:
    """While the dice of an action are awaited nothing else is done (``roll_requested``);
    but at the table, while the screen takes its turn, dice awaited behind it are not known
    (R99), and hold nothing up."""
    table = actor is not None and not actor.sees_all and state.screen_turn
    for p in state.pending_rolls.values():
        if table and (p.combatant is None or _hidden(state, p.combatant)
                      or p.combatant in state.screened):
            continue
        if p.context is not None:
            return Refusal(waiting_for(state, p, actor))
    return None


def waiting_for(state: EncounterState, pending: PendingRoll, actor: Actor | None) -> str:
    """Why nothing can be done while an action waits for physical dice, as the actor may be
    told: the roll itself only to those who see the request (a player is not shown the GM's
    rolls, nor a hidden combatant's)."""
    if actor is not None and not actor.sees_all and (
            _hidden(state, pending.combatant) or (pending.roller == "gm"
                                                  and not actor.answers_gm_rolls)):
        return "waiting for the GM's dice"
    return f"waiting for the dice of the {pending.purpose} roll ({pending.expr})"


def _hidden(state: EncounterState, cid: str | None) -> bool:
    c = state.combatants.get(cid) if cid else None
    return c is not None and c.hidden


def _sees(state: EncounterState, actor: Actor | None, cid: str) -> bool:
    """Whether ``actor`` may be told of ``cid`` (as ``Decision.actor_sees``): a hidden
    combatant only to those who see everything (``None``: a refusal worded in full)."""
    return actor is None or actor.sees_all or not _hidden(state, cid)


def refusal(state: EncounterState, cid: str, action: Action,
            actor: Actor | None = None) -> Refusal | None:
    """Why ``cid`` may not take ``action`` now (before its arguments), or ``None``: the one
    test that ``act`` refuses with and ``legal_actions`` offers with. The reason is worded for
    ``actor`` (whether it is refused does not depend on the wording)."""
    return common_refusal(state, cid, actor) or action_refusal(state, cid, action, actor=actor)


def action_refusal(state: EncounterState, cid: str, action: Action,
                   cat: Catalog | None = None, actor: Actor | None = None) -> Refusal | None:
    """:func:`refusal` past the checks that refuse every action alike."""
    cat = cat or catalog(state.ruleset)
    why: str | Refusal | None = timing_refusal(state, cid, action, cat, actor)
    if why is None and cat.precondition is not None:
        why = cat.precondition(state, cid)
    if why is None and action.precondition is not None:
        why = action.precondition(state, cid)
    if why is None and action.among is not None and cid not in action.among(state):
        why = f"{action.name} is not for {state.combatants[cid].name} now"
    return Refusal(why) if isinstance(why, str) else why


def timing_refusal(state: EncounterState, cid: str, action: Action,
                   cat: Catalog, actor: Actor | None = None) -> Refusal | None:
    """Whether it is the time for ``action``: the interrupter's readied action only; free
    actions and reactions on any turn (flat-footed and fatigue permitting); the rest on the
    combatant's own turn, uninterrupted, within its budget."""
    when = action.timing
    if when is When.ANY_TIME:
        return None
    turn = state.turn
    if turn is not None and turn.interrupted_by == cid:
        return interrupter_refusal(state, cid, action)
    if when is When.ANY_TURN:
        return out_of_turn_refusal(state, cid, action.cost)
    why = turn_refusal(state, cid, actor)
    if why is None and action.budgeted:
        why = budget_refusal(state, action, cat)
    return why


def interrupter_refusal(state: EncounterState, cid: str, action: Action) -> Refusal | None:
    """The readied action interrupts the turn: its readier takes that action (R8.3)."""
    readied = state.readied.get(cid)
    if readied is None or readied.action != action.name:
        wanted = readied.action if readied else "nothing"
        return Refusal(f"the readied action is {wanted}")
    return None


def turn_refusal(state: EncounterState, cid: str, actor: Actor | None = None) -> Refusal | None:
    """Whether it is ``cid``'s turn, and not interrupted (by whom, only to an ``actor`` who
    sees the readier)."""
    turn = state.turn
    if state.current != cid or turn is None:
        return Refusal(f"it is not {state.combatants[cid].name}'s turn", ErrorCode.NOT_YOUR_TURN)
    if turn.interrupted_by is not None:
        readier = turn.interrupted_by
        readied = f"{state.combatants[readier].name}'s readied action" \
            if _sees(state, actor, readier) else "a readied action"
        return Refusal(f"{readied} interrupts this turn; it resumes afterwards")
    return None


def out_of_turn_reason(kind: Kind | None, flat_footed: bool, no_fatigue: bool,
                       reactions_while_flat_footed: bool) -> str | None:
    """Free actions "even when it isn't your turn", never while flat-footed; reactions out of
    turn in response to a trigger (R4: also while flat-footed, with the option), never at 0
    fatigue points (R14.5). ``None``: allowed; else which rule refuses."""
    if kind is Kind.REACTION:
        if no_fatigue:
            return "fatigue"
        if flat_footed and not reactions_while_flat_footed:
            return "flat_reaction"
        return None
    return "flat_free" if flat_footed else None


def out_of_turn_refusal(state: EncounterState, cid: str, kind: Kind | None) -> Refusal | None:
    vitals = state.vitals.get(cid)
    reason = out_of_turn_reason(kind, cid in state.flat_footed,
                                vitals is not None and vitals.fatigue == 0,
                                state.options.reactions_while_flat_footed)
    if reason is None:
        return None
    name = state.combatants[cid].name
    return Refusal({
        "fatigue": f"{name} has 0 fatigue points: no reactions (0 Fatigue Points, R14.5)",
        "flat_reaction": f"{name} is flat-footed: no reactions (option "
                         "reactions_while_flat_footed)",
        "flat_free": f"{name} is flat-footed: no free actions",
    }[reason])


def economy(state: EncounterState) -> Economy:
    """The turn budget of the encounter's ruleset."""
    return declaration(state.ruleset).rules.economy


def free_slots(budget: Budget) -> tuple[str, ...]:
    """The slots of ``budget`` still free, in its order."""
    return tuple(compress(budget, budget.values()))


@lru_cache(maxsize=256)
def budget_reason(economy: Economy, free: tuple[str, ...], kind: Kind, surprise: bool
                  ) -> str | None:
    """Whether a turn with the ``free`` slots left takes an action of ``kind``: ``None``, or
    ``"surprise"`` (no full-round action in the surprise round), or ``"budget"``."""
    if kind is Kind.FULL_ROUND and surprise:
        return "surprise"
    return None if economy.can_take({slot: True for slot in free}, kind) else "budget"


def budget_allows(economy: Economy, budget: Budget, kind: Kind, surprise: bool) -> bool:
    return budget_reason(economy, free_slots(budget), kind, surprise) is None


def budget_refusal(state: EncounterState, action: Action, cat: Catalog) -> Refusal | None:
    turn = state.turn
    assert turn is not None and action.cost is not None
    rules = economy(state)
    reason = budget_reason(rules, free_slots(turn.budget), action.cost, state.surprise)
    if reason is None:
        return None
    if reason == "surprise":
        return Refusal("no full-round actions in the surprise round: a single standard, move "
                       "or swift action")
    if cat.budget_refusal is not None:
        return Refusal(cat.budget_refusal(turn.budget, action))
    return Refusal(rules.why_not(turn.budget, action.cost))


# --- taking it ----------------------------------------------------------------------------------


def act(d: Decision, c: CombatantProfile, cmd: msg.Act) -> None:
    s = d.s
    cat = catalog(s.ruleset)
    why = common_refusal(s, c.id, d.actor)
    if why is not None:
        raise why.rejected()
    action = cat.get(cmd.action)
    if action is None:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, cat.absent.get(cmd.action) or
                       f"{cmd.action!r} is not an action of {cat.title}",
                       legal=sorted(cat.names()))
    why = action_refusal(s, c.id, action, cat, d.actor)
    if why is not None:
        raise why.rejected()
    args = convert_args(action, cmd.args)
    effect = action.resolve(d, c, args) if action.resolve is not None else None  # may refuse
    if action.targets is not None:
        check_targets(d, c, action, args)
    if not action.records:
        if effect is not None:
            effect()
        return
    turn = s.turn
    if turn is not None and turn.interrupted_by == c.id:
        _readied_action(d, c, action, args, effect)
    elif action.timing is When.ANY_TURN:
        _out_of_turn(d, c, action, args, effect)
    else:
        _in_turn(d, c, action, args, effect)


def named_targets(action: Action, args: Any) -> list[str]:
    """The targets the arguments name (none when the action has no targets)."""
    if action.targets is None:
        return []
    named: list[str] = []
    for name in action.targets.fields:
        value = getattr(args, name, None)
        if isinstance(value, str):
            named.append(value)
        elif value:
            named.extend(value)
    return named


def check_targets(d: Decision, c: CombatantProfile, action: Action, args: Any) -> None:
    """A target the action does not list now is refused (``legal_actions`` lists the same)."""
    named = named_targets(action, args)
    if not named:
        return
    assert action.targets is not None
    sees_all = d.actor is not None and d.actor.sees_all
    allowed = action.targets.pick(d.s, c.id, sees_all)
    for target in named:
        if target not in allowed:
            listed = ", ".join(allowed) if allowed else "none now"
            raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{target!r} is not a target of "
                           f"{action.name} for {c.name}: {listed}", targets=allowed)


def _note(args: Any) -> tuple[str | None, str | None]:
    return getattr(args, "note", None), getattr(args, "target", None)


def _in_turn(d: Decision, c: CombatantProfile, action: Action, args: Any,
             effect: Any) -> None:
    turn = d.s.turn
    assert turn is not None and action.cost is not None
    rules = economy(d.s)
    after = rules.spend(turn.budget, action.cost)  # the budget allows it (refusal)
    slot = "full_round" if action.cost is rules.whole else _spent_slot(turn.budget, after)
    progress = 1
    if action.swifts > 1:
        # SWIFT ACTIONS: "Multiple swift actions usually have to occur on the same round or
        # consecutive rounds"
        held = d.s.swift_progress.get(c.id)
        carried = held is not None and held.action == action.name and held.round >= d.s.round - 1
        progress = held.spent + 1 if carried and held is not None else 1
    note, target = _note(args)
    d.emit(ev.ActionTaken(round=d.s.round, combatant=c.id, action=action.name,
                          action_type=action.cost.value, slot=slot, progress=progress,
                          needed=action.swifts, note=note, target=target, hidden=c.hidden),
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
    for slot, free in before.items():
        if free and not after.get(slot, False):
            return slot
    return None


def _out_of_turn(d: Decision, c: CombatantProfile, action: Action, args: Any,
                 effect: Any) -> None:
    """A free action or a reaction (on its own turn or another's)."""
    assert action.cost is not None
    note, target = _note(args)
    d.emit(ev.ActionTaken(round=d.s.round, combatant=c.id, action=action.name,
                          action_type=action.cost.value, out_of_turn=d.s.current != c.id,
                          note=note, target=target, hidden=c.hidden), d.combatant_vis(c.id))
    if effect is not None:
        effect()
    run_followups(d)


def _readied_action(d: Decision, c: CombatantProfile, action: Action, args: Any,
                    effect: Any) -> None:
    assert action.cost is not None
    note, target = _note(args)
    d.emit(ev.ActionTaken(round=d.s.round, combatant=c.id, action=action.name,
                          action_type=action.cost.value, out_of_turn=True, readied=True,
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
    if d.ruleset.interrupt_ended is not None:
        d.ruleset.interrupt_ended(d)


# --- the turn's own moves -----------------------------------------------------------------------


def _end_turn(d: Engine, c: CombatantProfile, args: Args) -> None:
    d.send("next_turn", "the turn cannot end now")


class DelayArgs(Args, frozen=True, kw_only=True):
    """Delay (R7.1), optionally naming a lower initiative count to act on."""

    count: Annotated[int, msgspec.Meta(
        ge=-1000, le=1000, description="The initiative count to act on, lower than the "
        "combatant's own (default: whenever it chooses, with `take_delayed_turn`).")] \
        | None = None


def _may_delay(state: EncounterState, cid: str) -> str | None:
    if "fresh" not in state.chart:  # the turn's chart state: nothing done yet
        return "delay at the start of the turn, before acting"
    return None


def _delay(d: Engine, c: CombatantProfile, args: DelayArgs) -> None:
    """Delay (R7.1): at the start of the turn, before any action; optionally naming a lower
    count to act on."""
    turn = d.s.turn
    assert turn is not None
    until = args.count
    own = d.s.count_of(c.id)
    if until is not None and until >= own:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"delaying lowers the count: name one below "
                       f"{own}")
    vis = d.combatant_vis(c.id)
    d.emit(ev.TurnDelayed(round=d.s.round, combatant=c.id, until_count=until, hidden=c.hidden),
           vis)
    if turn.was_flat_footed and d.s.options.delay_keeps_flat_footed:  # R3
        d.emit(ev.FlatFooted(combatant=c.id, flat_footed=True, hidden=c.hidden), vis)
    d.send("next_turn", "the turn cannot end now")


def _may_take_delayed_turn(state: EncounterState, cid: str) -> str | None:
    if cid not in state.delaying:
        return f"{state.combatants[cid].name} is not delaying"
    if cid in state.delay_queue:
        return f"{state.combatants[cid].name} acts after this turn already"
    if state.current is None:
        return "no turn is running"
    return None


def _take_delayed_turn(d: Engine, c: CombatantProfile, args: Args) -> None:
    """A delaying combatant acts "now": right after the current turn (R7.2)."""
    # during the screen's turn a combatant outside it acts after the screen's turn (R99)
    screen = d.s.screen_turn and c.id not in d.s.screened
    d.emit(ev.DelayedTurnRequested(combatant=c.id, after=SCREEN if screen else d.s.current,
                                   hidden=c.hidden,
                                   after_hidden=not screen and d.hidden(d.s.current)),
           d.combatant_vis(c.id))


class ReadyArgs(Args, frozen=True, kw_only=True):
    """Ready (R8): the action readied and its trigger."""

    action: Annotated[str, msgspec.Meta(
        min_length=1, max_length=40, examples=["move"],
        description="The standard or move action readied: one of the `options.action` of the "
        "`ready` entry in `legal_actions`.")]
    trigger: Annotated[str, msgspec.Meta(
        min_length=1, max_length=200, examples=["when the dog charges"],
        description="When the readied action is taken (`action_readied.trigger`).")]


def _readyable_now(state: EncounterState) -> tuple[str, ...]:
    turn = state.turn
    if turn is None:
        return ()
    return _readyable(state.ruleset, free_slots(turn.budget), state.surprise)


@lru_cache(maxsize=256)
def _readyable(ruleset: str, free: tuple[str, ...], surprise: bool) -> tuple[str, ...]:
    rules = declaration(ruleset).rules.economy
    return tuple(a.name for a in catalog(ruleset).readyable()
                 if a.cost is not None and budget_reason(rules, free, a.cost, surprise) is None)


def _may_ready(state: EncounterState, cid: str) -> str | None:
    if cid in state.readied:
        return f"{state.combatants[cid].name} has an action readied already"
    if not _readyable_now(state):
        return "nothing is left of this turn to ready: a standard or move action"
    return None


def _ready_options(state: EncounterState, cid: str) -> dict[str, list[str]]:
    return {"action": list(_readyable_now(state))}


def _ready(d: Engine, c: CombatantProfile, args: ReadyArgs) -> None:
    """Ready (R8): a single standard or move action against a declared trigger; it costs the
    action readied (and the standard action too with ``ready_costs_standard_action``)."""
    turn = d.s.turn
    assert turn is not None
    cat = catalog(d.s.ruleset)
    spec = cat.get(args.action)
    if spec is None or not spec.readyable or spec.cost is None:
        readyable = sorted(a.name for a in cat.readyable())
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "ready a standard or move action: args.action "
                       "names it", readyable=readyable)
    budget = turn.budget
    slots: list[str] = []
    try:
        after = economy(d.s).spend(budget, spec.cost)
        slots.append(_spent_slot(budget, after) or "")
        if d.s.options.ready_costs_standard_action and after.get("standard", False):
            slots.append("standard")
    except IllegalAction as exc:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, str(exc)) from None
    vis = d.combatant_vis(c.id)
    for slot in slots:
        d.emit(ev.ActionTaken(round=d.s.round, combatant=c.id, action="ready",
                              action_type=spec.cost.value, slot=slot, note=args.trigger,
                              hidden=c.hidden), vis)
    d.emit(ev.ActionReadied(round=d.s.round, combatant=c.id, action=spec.name,
                            action_type=spec.cost.value, trigger=args.trigger,
                            hidden=c.hidden), vis)
    d.send("take_action", "nothing is left of this turn to ready")


def _may_trigger(state: EncounterState, cid: str) -> str | None:
    if cid not in state.readied:
        return f"{state.combatants[cid].name} has no readied action"
    if state.current == cid:
        return "a readied action is taken after your turn, before your next one"
    turn = state.turn
    if turn is None:
        return "no turn is running to interrupt"
    if turn.interrupted_by is not None:
        return "another readied action is being resolved"
    return None


def _trigger_ready(d: Engine, c: CombatantProfile, args: Args) -> None:
    """The trigger occurred: the readied action interrupts the current turn (R8.2-3)."""
    d.interrupt(c.id)


END_TURN = Action("end_turn", "End the turn", "THE COMBAT ROUND", None, args=Args,
                  resolve=_end_turn, records=False)
DELAY = Action("delay", "Delay (act later in the round)", "SPECIAL INITIATIVE ACTIONS: Delay",
               None, args=DelayArgs, resolve=_delay, precondition=_may_delay, records=False)
TAKE_DELAYED_TURN = Action(
    "take_delayed_turn", "Act now (end the delay)", "SPECIAL INITIATIVE ACTIONS: Delay (R7.2)",
    None, args=Args, resolve=_take_delayed_turn, precondition=_may_take_delayed_turn,
    when=When.ANY_TIME, records=False, among=lambda s: s.delaying)
READY = Action("ready", "Ready an action", "SPECIAL INITIATIVE ACTIONS: Ready", None,
               args=ReadyArgs, resolve=_ready, precondition=_may_ready, options=_ready_options,
               records=False)
TRIGGER_READY = Action(
    "trigger_ready", "Take the readied action now", "SPECIAL INITIATIVE ACTIONS: Ready (R8.2)",
    None, args=Args, resolve=_trigger_ready, precondition=_may_trigger, when=When.ANY_TIME,
    records=False, among=lambda s: s.readied)

__all__ = ["DELAY", "END_TURN", "READY", "TAKE_DELAYED_TURN", "TRIGGER_READY", "act",
           "act_command", "action_refusal", "common_refusal", "refusal"]
