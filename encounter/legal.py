"""The actions legal now for a viewer, derived from the encounter statechart and the ruleset.

Sent to each connection whenever its list changes, so that clients never guess.
"""

from __future__ import annotations

from functools import lru_cache

from encounter.actors import Actor
from encounter.state import EncounterState
from protocol.messages import LegalAction
from rules.rulesets import ruleset
from statemachines.encounter_chart import EncounterChartModel, restore

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
    state: EncounterState, viewer: Actor, allowed: set[str] | None = None
) -> list[LegalAction]:
    """``allowed`` may pass :func:`allowed_chart_events` of ``state`` when already known."""
    if state.ended or state.version == 0:
        return []
    if allowed is None:
        allowed = allowed_chart_events(state)
    actions: list[LegalAction] = []
    if viewer.is_gm:
        for name in _GM_FLOW:
            if name in allowed and (name != "start_encounter" or state.combatants):
                actions.append(LegalAction(action=name))
    current = state.current
    if "next_turn" in allowed and current is not None and viewer.controls(state, current):
        c = state.combatants[current]
        if not c.hidden or viewer.sees_all:
            for name in ruleset(state.ruleset).turn_actions():
                actions.append(LegalAction(action=name, combatant=current))
    for pending in state.pending_rolls.values():
        if pending.roller == "gm":
            mine = viewer.is_gm or "roll" in viewer.scopes
        else:
            mine = viewer.controls(state, pending.roller)
        if mine:
            label = f"{pending.purpose}: {pending.expr}"
            for name in ("submit_roll", "server_roll"):
                actions.append(LegalAction(action=name, combatant=pending.combatant,
                                           label=label, targets=[pending.request]))
    return actions
