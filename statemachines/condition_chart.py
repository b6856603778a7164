"""A combatant's consciousness as a statechart of its own, beside the turn flow.

    active: fit ─exhausted─▶ defenseless ─refreshed─▶ fit        (0 fatigue points, R14.5)
    active ─knocked_out─▶ unconscious.awaiting_check               (bottom of a track, R15)
    unconscious.awaiting_check ─check_failed─▶ unconscious.out_for_scene        (R16)
    unconscious ─woke─▶ active (fit with fatigue points, else defenseless)      (R16)
    active | unconscious ─killed─▶ dead        (a physical fatal blow, R14.3)
    active | unconscious ─wrecked─▶ destroyed  (an object, plant or vehicle at the bottom, R15)

"MLP Dramatic Systems", FATIGUE POINTS AND DAMAGE THRESHOLD: "As long as you have at least 1
Fatigue point, you can act normally on your turn"; "A creature pushed to the bottom of the
condition track … falls unconscious"; Falling Unconscious; Death ("cannot be brought back to
life"); Objects, Plants, and Vehicles ("moved to 'helpless' physical condition is destroyed").

The rules (``rules/``) work out *what* a loss or a healing does to fatigue points and the
condition tracks; this chart decides *whether* the change of consciousness that follows may
happen now (nothing wakes the dead; an object is never unconscious) and names the resulting
state, which the encounter records in its events. Each combatant's configuration is stored
with it (``encounter.state.Vitals.chart``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from statemachine import State, StateChart
from statemachine.exceptions import TransitionNotAllowed
from statemachine.orderedset import OrderedSet

from statemachines.encounter_chart import configuration_of

__all__ = ["INITIAL", "ConditionChart", "TransitionNotAllowed", "condition_after"]


class ConditionChart(StateChart):
    catch_errors_as_events = False
    allow_event_without_transition = False

    class active(State.Compound):
        """Conscious: acting normally with fatigue points, or defenseless at 0 (R14.5)."""

        fit = State(initial=True)
        defenseless = State()

        exhausted = fit.to(defenseless)
        refreshed = defenseless.to(fit)

    class unconscious(State.Compound):
        """Prone and helpless; the Constitution check comes after 10 rounds (R16), and after a
        failed check not again in this scene."""

        awaiting_check = State(initial=True)
        out_for_scene = State()

        check_failed = awaiting_check.to(out_for_scene)

    dead = State(final=True)
    destroyed = State(final=True)

    # (the library's type hints do not cover `|` on transitions of nested states)
    knocked_out = active.to(unconscious)
    woke = (unconscious.to(active.fit, cond="has_fatigue")  # type: ignore[operator]
            | unconscious.to(active.defenseless))
    killed = active.to(dead) | unconscious.to(dead)  # type: ignore[operator]
    wrecked = active.to(destroyed) | unconscious.to(destroyed)  # type: ignore[operator]


class _Model:
    """The chart's model: the configuration being worked on and the one guard."""

    def __init__(self) -> None:
        self.state: Any = None
        self.fatigue = 0

    def has_fatigue(self) -> bool:
        return self.fatigue > 0


#: The configuration of a combatant that has just joined.
INITIAL: tuple[str, ...] = ("active", "fit")

_shared: tuple[_Model, ConditionChart] | None = None


def condition_after(configuration: Sequence[str], event: str,
                    fatigue: int) -> tuple[str, ...]:
    """The configuration after ``event``, for a combatant with ``fatigue`` points after the
    change; raises ``TransitionNotAllowed`` when the chart refuses it (waking the dead).

    One chart instance is shared in the process, as for the encounter chart: building one
    costs as much as sending it an event."""
    global _shared
    if _shared is None:
        model = _Model()
        _shared = (model, ConditionChart(model))
    model, chart = _shared
    model.state = OrderedSet(configuration) if len(configuration) > 1 else configuration[0]
    model.fatigue = fatigue
    try:
        chart.send(event)
    except TransitionNotAllowed:
        raise
    except BaseException:
        _shared = None
        raise
    after = tuple(configuration_of(model))
    if chart.is_terminated:
        _shared = None  # the library refuses every event after a final state
    return after
