"""The actions legal now for a viewer, derived from the encounter statechart, the turn's budget
and the ruleset. Sent to each connection whenever its list changes, so that clients never
guess."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache

from encounter.actions import available, hooks
from encounter.actors import Actor
from encounter.state import EncounterState
from encounter.turns import legal_turn_actions
from encounter.vitals import sheet_of
from protocol.messages import LegalAction
from rules.actions import ActionSpec, Kind
from rules.rulesets import ruleset
from rules.sheet import size_steps
from statemachines.encounter_chart import EncounterChartModel, restore

#: Actions aimed at another combatant: their legal action lists the possible targets.
_TARGETED = frozenset({"attack", "grab", "aid_another", "distraction", "ram", "break_object",
                       "dispute", "conversation", "lie", "low_access"})

#: The GM's commands for what the rules leave to the GM, offered while the encounter runs.
_GM_TOOLS = ("adjudicate", "adjust_combatant", "set_map", "place_combatant", "fall", "collide",
             "load_object", "size_argument", "set_attitude", "set_social_event",
             "set_social_situation")

_GM_TOOL_ACTIONS = [LegalAction(action=name) for name in _GM_TOOLS]

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
    state: EncounterState, viewer: Actor, allowed: set[str] | None = None,
    shared: dict[object, list[LegalAction]] | None = None,
) -> list[LegalAction]:
    """``allowed`` may pass :func:`allowed_chart_events` of ``state`` when already known;
    ``shared`` is a dict kept while working out several viewers' actions in the same state,
    where parts that do not depend on the viewer are computed once."""
    if state.ended or state.version == 0 or not viewer.may_command:
        return []
    if allowed is None:
        allowed = allowed_chart_events(state)
    actions: list[LegalAction] = []
    if viewer.is_gm:
        for name in _GM_FLOW:
            if name in allowed and (name != "start_encounter" or state.combatants):
                actions.append(LegalAction(action=name))
        if state.combatants and state.ruleset == "dramatic":
            actions += _GM_TOOL_ACTIONS
    if state.chart and state.chart[0] == "scene":
        actions += _scene_actions(state, viewer, shared)
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
                                           targets=[pending.request]))
    return actions


@lru_cache(maxsize=8)
def _out_of_turn(ruleset_name: str) -> tuple[ActionSpec, ...]:
    """The ruleset's free actions and reactions, the only ones taken out of turn."""
    return tuple(spec for spec in ruleset(ruleset_name).actions().values()
                 if spec.kind in (Kind.FREE, Kind.REACTION))


@lru_cache(maxsize=1024)
def _turn_actions(ruleset_name: str, standard: bool, move: bool, swift: bool, surprise: bool,
                  acted: bool, may_ready: bool, recover_in_scene: bool) -> tuple[str, ...]:
    """The turn's actions depend on a handful of flags only: work them out once each."""
    from protocol.model import EncounterOptions
    from rules.actions import Budget

    catalog = ruleset(ruleset_name).actions()
    budget = Budget(standard=standard, move=move, swift=swift)
    may_ready = may_ready and any(s.readyable for s in catalog.values())
    return tuple(legal_turn_actions(budget, catalog, surprise, acted, may_ready,
                                    EncounterOptions(recover_in_scene=recover_in_scene),
                                    may_delay=ruleset_name == "dramatic"))


_SIZES = ["fine", "diminutive", "tiny", "small", "medium", "large", "huge", "gargantuan",
          "colossal"]


def _weapon_options(state: EncounterState, cid: str) -> dict[str, list[str]]:
    weapons = [w.name for w in sheet_of(state.combatants[cid], state.ruleset).weapons]
    return {"weapon": [*weapons, "unarmed"] if "unarmed" not in weapons else weapons}


def _argument_options(state: EncounterState, cid: str) -> dict[str, list[str]]:
    return {"argument": sorted(a for a, arg in state.arguments.items()
                               if arg.owner == cid and arg.size)}


#: The few values some arguments of "MLP Dramatic Systems" actions may take, so that a client
#: offers them as choices.
_OPTIONS: dict[str, Callable[[EncounterState, str], dict[str, list[str]]]] = {
    "attack": _weapon_options,
    "harvest": _weapon_options,
    "dispute": _argument_options,
    "conversation": _argument_options,
    "lie": lambda _s, _c: {"size": _SIZES},
    "answer_statement": lambda _s, _c: {"answer": ["accept", "accept_with_reservation",
                                                   "refuse"]},
}


def _options(state: EncounterState, cid: str, name: str) -> dict[str, list[str]] | None:
    """The few values some arguments may take, so that a client offers them as choices."""
    options = _OPTIONS.get(name) if state.ruleset == "dramatic" else None
    return None if options is None else options(state, cid)


def _low_access_targets(state: EncounterState, cid: str, targets: list[str]) -> list[str]:
    """R72: only one whose access rating reaches the Event Rating may use another's lower
    one."""
    from encounter.social import social_standing

    event = state.social_event
    if event is None or event.rating is None:
        return []
    mine = social_standing(state, cid).access
    if mine is None or mine.total < event.rating:
        return []
    return [t for t in targets if (a := social_standing(state, t).access) is not None
            and a.total < event.rating]


def _grabbable(state: EncounterState, cid: str, targets: list[str]) -> list[str]:
    """Grab: "only an target up to one size category larger than yourself, and only one
    target at a time"."""
    if any(cid in grabbers for grabbers in state.grabs.values()):
        return []
    size = sheet_of(state.combatants[cid], state.ruleset).size
    return [t for t in targets
            if size_steps(size, sheet_of(state.combatants[t], state.ruleset).size) <= 1]


def _scene_actions(state: EncounterState, viewer: Actor,
                   shared: dict[object, list[LegalAction]] | None) -> list[LegalAction]:
    rules = ruleset(state.ruleset)
    catalog = rules.actions()
    picks = hooks(state.ruleset).targets
    turn, current = state.turn, state.current
    out: list[LegalAction] = []
    aimable: dict[str, list[str]] = {}

    def others(cid: str) -> list[str]:
        """Anyone the viewer sees who can still be aimed at (a hidden combatant only by the
        hidden: the GM's own business, R79); worked out once per combatant."""
        found = aimable.get(cid)
        if found is None:
            hidden = state.combatants[cid].hidden
            found = aimable[cid] = [
                o for o in state.order if o != cid and visible(o)
                and (hidden or not state.combatants[o].hidden)
                and (o not in state.vitals or state.vitals[o].alive)]
        return found

    def add(name: str, cid: str) -> None:
        spec = catalog.get(name)
        targets = None
        pick = picks.get(name)
        if pick is not None:  # the ruleset says who may be targeted
            hidden = combatants[cid].hidden
            targets = [o for o in pick(state, cid)
                       if visible(o) and (hidden or not combatants[o].hidden)]  # R79
        elif name in _TARGETED:
            targets = others(cid)
            if name == "break_object":
                targets = [o for o in targets if state.vitals[o].mental is None]
            elif name == "grab":
                targets = _grabbable(state, cid, targets)
            elif name == "low_access":
                targets = _low_access_targets(state, cid, targets)
            if not targets:
                return  # nobody to aim it at: not a legal action now
        out.append(LegalAction(action=name, combatant=cid, label=spec.label if spec else None,
                               targets=targets, options=_options(state, cid, name)))

    sees_all, combatants = viewer.sees_all, state.combatants

    def visible(cid: str) -> bool:
        return sees_all or not combatants[cid].hidden

    if turn is not None and turn.interrupted_by is not None:
        readier = turn.interrupted_by
        if viewer.controls(state, readier) and visible(readier) and readier in state.readied:
            add(state.readied[readier].action, readier)
        return out
    if turn is not None and current is not None and viewer.controls(state, current) \
            and visible(current):
        # whoever controls the acting combatant has the same turn actions, up to what the
        # viewer may see (hidden combatants among the targets)
        hidden = any(c.hidden for c in state.combatants.values())
        key = ("turn", current, viewer.sees_all if hidden else None)
        known = shared.get(key) if shared is not None else None
        if known is not None:
            out += known
        else:
            may_ready = current not in state.readied
            fresh = "fresh" in state.chart  # the chart says when a turn may still be delayed
            for name in _turn_actions(state.ruleset, turn.budget.standard, turn.budget.move,
                                      turn.budget.swift, state.surprise, not fresh, may_ready,
                                      state.options.recover_in_scene):
                if available(state, current, name):
                    add(name, current)
            if shared is not None:
                shared[key] = list(out)
    # out of turn: the viewer's own combatants (and, for the GM, whoever is acting)
    own, is_gm = viewer.combatants, viewer.is_gm
    mine = [cid for cid in state.order if cid in own or (is_gm and cid == current)]
    # a statement waiting for its target's answer: whoever controls the target answers (R48)
    for cid in sorted({a.target for a in state.answers.values()}):
        if visible(cid) and viewer.controls(state, cid):
            out.append(LegalAction(action="answer_statement", combatant=cid,
                                   label="Answer the statement (R48)",
                                   targets=[s for s, a in state.answers.items()
                                            if a.target == cid],
                                   options=_options(state, cid, "answer_statement")))
    for cid in mine:
        vitals = state.vitals.get(cid)
        if not visible(cid) or (vitals is not None and not vitals.conscious):
            continue  # the unconscious take no actions (Falling Unconscious)
        if cid in state.readied and cid != current and turn is not None:
            add("trigger_ready", cid)
        if cid in state.delaying and cid not in state.delay_queue and current is not None:
            add("take_delayed_turn", cid)
        flat = cid in state.flat_footed
        for spec in _out_of_turn(state.ruleset):
            if spec.kind is Kind.REACTION and vitals is not None and vitals.fatigue == 0:
                continue  # R14.5: no reactions at 0 fatigue points
            if ((spec.kind is Kind.FREE and not flat) or (spec.kind is Kind.REACTION and (
                    not flat or state.options.reactions_while_flat_footed))) \
                    and available(state, cid, spec.name):
                add(spec.name, cid)
    return out
