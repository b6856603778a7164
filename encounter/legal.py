"""The actions legal now for a viewer, derived from the encounter statechart, the turn's budget
and the ruleset's declared actions. Sent to each connection whenever its list changes, so that
clients never guess.

A combatant's actions are exactly those ``act`` would accept: each goes through the same
checks (``encounter.turns``: the turn, its budget, an interrupt, flat-footed combatants, then
the ruleset's and the action's precondition) and lists the same targets, for every combatant
the viewer controls and sees, whether or not it is its turn. The checks are grouped here so
that whatever refuses a whole group (it is not the combatant's turn) is asked once.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from functools import lru_cache
from itertools import chain

from encounter.actors import Actor
from encounter.declare import Action, Catalog, Precondition, in_scene
from encounter.registry import catalog, declaration
from encounter.schemas import action_schema_id, command_schema_id
from encounter.state import CONSCIOUS, SCREEN, EncounterState
from encounter.turns import budget_reason as _budget_reason
from encounter.turns import (
    dice_refusal,
    free_slots,
    interrupter_refusal,
    out_of_turn_reason,
    screen_turn_refusal,
    turn_refusal,
)
from encounter.undo import request_refusal
from protocol.messages import LegalAction
from rules.actions import Economy, Kind
from statemachines.encounter_chart import EncounterChartModel, restore

_ADD_EFFECT = LegalAction(action="add_effect", args_schema=command_schema_id("add_effect"),
                          group="scene")


@lru_cache(maxsize=16)
def _end_screen_turn(ruleset: str) -> LegalAction:
    """The GM's end of the screen's turn when nobody acts behind it (R99), with ``act``."""
    return LegalAction(action="end_turn", combatant=SCREEN,
                       label="End the turn of the GM's screen",
                       args_schema=action_schema_id(ruleset, "end_turn"), group="turn")


@lru_cache(maxsize=4)
def _gm_flow(name: str) -> LegalAction:
    return LegalAction(action=name, args_schema=command_schema_id(name), group="scene")


#: Chart events a GM may send as commands of the same name.
_GM_FLOW = ("start_encounter", "end_encounter")


def allowed_chart_events(state: EncounterState) -> set[str]:
    """The chart events the encounter's configuration accepts (before guards)."""
    return set(_allowed(tuple(state.chart)))


@lru_cache(maxsize=256)
def _allowed(configuration: tuple[str, ...]) -> frozenset[str]:
    # Which events a configuration accepts depends on the configuration alone: ask once.
    return frozenset(restore(EncounterChartModel(), list(configuration)).allowed_events())


def legal_actions(
    state: EncounterState, viewer: Actor, allowed: Container[str] | None = None,
    shared: dict[object, list[LegalAction]] | None = None,
) -> list[LegalAction]:
    """``allowed`` may pass :func:`allowed_chart_events` of ``state`` when already known;
    ``shared`` is a dict kept while working out several viewers' actions in the same state,
    where parts that do not depend on the viewer are computed once."""
    if state.ended or state.version == 0 or not viewer.may_command:
        return []
    if allowed is None:
        allowed = _allowed(tuple(state.chart))  # read only: no copy
    actions: list[LegalAction] = []
    if viewer.is_gm:
        for name in _GM_FLOW:
            if name in allowed and (name != "start_encounter" or state.combatants):
                actions.append(_gm_flow(name))
        if state.combatants:  # the GM's tools for what the rules leave to the GM
            actions += declaration(state.ruleset).gm_tools
        if state.chart and state.chart[0] == "scene" and state.current is not None:
            actions.append(_ADD_EFFECT)  # effects start on a turn of the running scene
    if state.chart and state.chart[0] == "scene" and dice_refusal(state, viewer) is None:
        actions += _scene_actions(state, viewer, shared)
    if viewer.is_gm and state.current == SCREEN and screen_turn_refusal(state, viewer) is None:
        # nobody acts behind it: the GM ends it (R99)
        actions.append(_end_screen_turn(state.ruleset))
    for pending in state.pending_rolls.values():
        if pending.roller == "gm":
            mine = viewer.answers_gm_rolls
        else:
            mine = viewer.controls(state, pending.roller)
        if mine:
            label = f"{pending.purpose}: {pending.expr}"
            # a dice tower answers a hidden combatant's roll without being told whose it is
            cid = pending.combatant
            if cid is not None and not viewer.sees_all and cid in state.combatants \
                    and state.combatants[cid].hidden:
                cid = None
            for name in ("submit_roll", "server_roll"):
                actions.append(LegalAction(action=name, combatant=cid, label=label,
                                           targets=[pending.request],
                                           args_schema=command_schema_id(name), group="dice"))
    asker = state.last_acted
    if asker is not None and not viewer.is_gm and viewer.controls(state, asker) \
            and request_refusal(state, asker) is None:
        # a player may ask the GM to take back its last action while it is the last (R108)
        actions.append(_request_undo(asker))
    return actions


@lru_cache(maxsize=4096)
def _request_undo(cid: str) -> LegalAction:
    return LegalAction(action="request_undo", combatant=cid,
                       label="Ask the GM to undo the last action",
                       args_schema=command_schema_id("request_undo"), group="turn")


# --- the parts that depend on a few flags only: worked out once each --------------------------


@lru_cache(maxsize=1024)
def _fitting(cat: Catalog, economy: Economy, cid: str, free: tuple[str, ...],
             surprise: bool) -> tuple[tuple[tuple[LegalAction, ...], Action | None], ...]:
    """The actions of ``cid``'s turn that the budget allows (``encounter.turns``), then the
    turn's own moves, in the catalog's order: runs of the entries of those without
    precondition, targets or options (an entry is never changed once made), each followed
    by an action to offer (``None`` after the last run)."""
    fits = (a for a in cat.turn
            if a.cost is not None
            and _budget_reason(economy, free, a.cost, surprise) is None)
    runs: list[tuple[tuple[LegalAction, ...], Action | None]] = []
    plain: list[LegalAction] = []
    for a in (*fits, *cat.turn_flow):
        if a.plain:
            plain.append(_entry(a, cid, cat))
        else:
            runs.append((tuple(plain), a))
            plain = []
    if plain:
        runs.append((tuple(plain), None))
    return tuple(runs)


@lru_cache(maxsize=8192)
def _entry(action: Action, cid: str, cat: Catalog) -> LegalAction:
    """The entry of an action without precondition, targets or options: made once (an entry
    is never changed once made), so that each is also encoded once (``server.wire``)."""
    return LegalAction(action=action.name, combatant=cid, label=action.label,
                       args_schema=action_schema_id(cat.ruleset, action.name),
                       cost=cat.cost_of(action), group=cat.group_of(action))


@lru_cache(maxsize=4096)
def _out_of_turn(cat: Catalog, cid: str, flat: bool, tired: bool,
                 rwff: bool) -> tuple[tuple[LegalAction, ...], tuple[Action, ...]]:
    """The free actions and reactions ``cid`` may take now as far as being flat-footed
    (``flat``) and out of fatigue points (``tired``) go (``encounter.turns``): the entries of
    those without precondition, targets or options, and the others."""
    free = out_of_turn_reason(Kind.FREE, flat, tired, rwff) is None
    reaction = out_of_turn_reason(Kind.REACTION, flat, tired, rwff) is None
    allowed = [a for a in cat.any_turn if (reaction if a.cost is Kind.REACTION else free)]
    return (tuple(_entry(a, cid, cat) for a in allowed if a.plain),
            tuple(a for a in allowed if not a.plain))


@lru_cache(maxsize=16)
def _out_of_turn_among(
        cat: Catalog) -> tuple[tuple[Action, Callable[[EncounterState], Container[str]]], ...]:
    """The actions taken out of turn that only a few combatants may take at all, with their
    ``among``."""
    return tuple((a, a.among) for a in (*cat.any_turn, *cat.any_time) if a.among is not None)


@lru_cache(maxsize=16)
def _out_of_turn_offered(cat: Catalog) -> frozenset[Action]:
    """The free actions and reactions with a precondition, targets or options."""
    return frozenset(a for a in cat.any_turn if not a.plain)


@lru_cache(maxsize=16)
def _heads(cat: Catalog) -> dict[Action, tuple[bool, str]]:
    """Each action's ``optional_target`` and ``args_schema``, as its entries give them."""
    return {a: (a.targets is not None and a.targets.optional,
                action_schema_id(cat.ruleset, a.name)) for a in cat.actions}


@lru_cache(maxsize=16)
def _repeated_preconditions(cat: Catalog) -> frozenset[Precondition]:
    """The preconditions that several actions share (Second Lunch with food or without,
    Move and Run): a function of the state and the combatant alone, asked once for all."""
    seen: set[Precondition] = set()
    repeated: set[Precondition] = set()
    for a in cat.actions:
        if a.precondition is not None:
            (repeated if a.precondition in seen else seen).add(a.precondition)
    return frozenset(repeated)


def _scene_actions(state: EncounterState, viewer: Actor,
                   shared: dict[object, list[LegalAction]] | None) -> list[LegalAction]:
    cat = catalog(state.ruleset)
    turn, current = state.turn, state.current
    interrupter = turn.interrupted_by if turn is not None else None
    combatants, vitals = state.combatants, state.vitals
    sees_all = viewer.sees_all
    pools: dict[object, list[str]] = {}
    out: list[LegalAction] = []
    rwff = state.options.reactions_while_flat_footed
    # ``among`` once for every combatant; an action none may take is not looked at again
    amongst: dict[Action, Container[str]] = {}
    none_may: set[Action] = set()
    for action, who in _out_of_turn_among(cat):
        among = amongst[action] = who(state)
        if not among:
            none_may.add(action)
    offered = _out_of_turn_offered(cat)
    if none_may:
        any_time: Sequence[Action] = () if none_may.issuperset(cat.any_time) else \
            [a for a in cat.any_time if a not in none_may]
        any_turn = not none_may.issuperset(offered)
    else:
        any_time, any_turn = cat.any_time, bool(offered)
    repeated, heads = _repeated_preconditions(cat), _heads(cat)
    verdicts: dict[tuple[Precondition, str], bool] = {}

    def offer(action: Action, cid: str) -> None:
        """``action`` for ``cid`` if its precondition allows it now, with its targets."""
        if action.among is not None:
            among = amongst.get(action)
            if among is None:
                among = amongst[action] = action.among(state)
            if cid not in among:
                return
        precondition = action.precondition
        if precondition is not None:
            if precondition in repeated:  # asked once for the actions that share it
                key = (precondition, cid)
                allows = verdicts.get(key)
                if allows is None:
                    allows = verdicts[key] = precondition(state, cid) is None
                if not allows:
                    return
            elif precondition(state, cid) is not None:
                return
        targets = None
        if action.targets is not None:
            targets = action.targets.pick(state, cid, sees_all, pools)
            if not targets and not action.targets.optional:
                return  # nobody to aim it at: not a legal action now
        if action.plain:
            out.append(_entry(action, cid, cat))
            return
        options = action.options(state, cid) if action.options is not None else None
        optional, schema = heads[action]
        out.append(LegalAction(action=action.name, combatant=cid, label=action.label,
                               targets=targets, options=options, optional_target=optional,
                               args_schema=schema, cost=cat.cost_of(action),
                               group=cat.group_of(action)))

    controls, gm = viewer.controller(state), viewer.is_gm
    flat_footed = state.flat_footed
    ruleset_refusal = cat.precondition
    # the acting combatant first, then the others in the initiative order (and those not in it
    # yet: the unaware in the surprise round, a newcomer before its initiative roll)
    first = (current,) if current is not None and current in combatants else ()
    seen = False
    for cid in chain(first, in_scene(state)):
        if cid == current:
            if seen:
                continue
            seen = True
        if (not sees_all and combatants[cid].hidden) or not (gm or controls(cid)):
            continue
        v = vitals.get(cid)
        if v is not None and v.condition[0] != CONSCIOUS:
            continue  # the unconscious take no actions (Falling Unconscious)
        if ruleset_refusal is not None and ruleset_refusal(state, cid) is not None:
            continue
        if cid == interrupter:
            readied = state.readied.get(cid)
            taken = cat.get(readied.action) if readied is not None else None
            if taken is not None and interrupter_refusal(state, cid, taken) is None:
                offer(taken, cid)
        else:
            if cid == current and turn is not None and turn_refusal(state, cid, viewer) is None:
                _turn_actions(state, cat, cid, viewer, shared, out, offer)
            plain, others = _out_of_turn(cat, cid, cid in flat_footed,
                                         v is not None and v.fatigue == 0, rwff)
            out += plain
            if any_turn:
                for action in others:
                    if action not in none_may:
                        offer(action, cid)
        for action in any_time:
            offer(action, cid)
    return out


def _turn_actions(state: EncounterState, cat: Catalog, cid: str, viewer: Actor,
                  shared: dict[object, list[LegalAction]] | None, out: list[LegalAction],
                  offer: Callable[[Action, str], None]) -> None:
    """The actions of ``cid``'s own turn. Whoever controls the acting combatant has the same
    ones, up to what the viewer may see (hidden combatants among the targets): shared between
    viewers of the same state."""
    key: tuple[object, ...] | None = None
    if shared is not None:
        hidden = any(c.hidden for c in state.combatants.values())
        key = ("turn", cid, viewer.sees_all if hidden else None)
        known = shared.get(key)
        if known is not None:
            out += known
            return
    start = len(out)
    turn = state.turn
    assert turn is not None
    for plain, action in _fitting(cat, declaration(state.ruleset).rules.economy, cid,
                                  free_slots(turn.budget), state.surprise):
        out += plain
        if action is not None:
            offer(action, cid)
    if shared is not None and key is not None:
        shared[key] = out[start:]
