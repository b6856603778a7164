"""The encounter (dramatic scene) as a statechart.

    setup --start_encounter--> rolling_initiative --initiative_complete--> scene
    setup --start_encounter (no physical dice)-------------------------> scene
    scene: turn --next_turn--> turn                     (each turn ends, the next begins)
    setup | rolling_initiative | scene --end_encounter--> ended

COMBAT SEQUENCE ("MLP Dramatic Systems"): 2. combatants roll initiative; 3. combatants act in
initiative order; 4. rounds repeat until the scene ends; 5. narrative time resumes.

The chart decides when; its callbacks are methods of the model (``encounter.engine.Decision``),
which asks the rules what happens and records it as events.
"""

from __future__ import annotations

from typing import Any

from statemachine import State, StateChart
from statemachine.orderedset import OrderedSet


class EncounterChart(StateChart):
    catch_errors_as_events = False
    allow_event_without_transition = False

    setup = State(initial=True)
    rolling_initiative = State()

    class scene(State.Compound):
        turn = State(initial=True)
        next_turn = turn.to.itself(internal=False, on="advance_turn")

    ended = State(final=True)

    start_encounter = setup.to(
        rolling_initiative, cond="initiative_needs_dice", on="request_initiative"
    ) | setup.to(scene, on="roll_initiative")
    initiative_complete = rolling_initiative.to(scene, on="settle_initiative")
    end_encounter = (
        setup.to(ended) | rolling_initiative.to(ended) | scene.to(ended)
    )


class EncounterChartModel:
    """The callbacks the chart calls. The decider (``encounter.engine.Decision``) implements
    them; this base does nothing, for asking the chart questions without deciding anything."""

    state: Any = None

    def initiative_needs_dice(self) -> bool:
        return False

    def request_initiative(self) -> None:
        """Ask for physical initiative dice (and roll the server's share)."""

    def roll_initiative(self) -> None:
        """Roll everyone's initiative and settle the order."""

    def settle_initiative(self) -> None:
        """All initiative dice are in: set the order."""

    def advance_turn(self) -> None:
        """The current turn ends."""

    def on_enter_turn(self) -> None:
        """A turn begins: the next combatant in order, and a new round after the last."""


def restore(model: EncounterChartModel, configuration: list[str]) -> EncounterChart:
    """Build the chart over ``model`` in the saved ``configuration``."""
    model.state = configuration[0] if len(configuration) == 1 else OrderedSet(configuration)
    return EncounterChart(model)


def configuration_of(model: Any) -> list[str]:
    value = model.state
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]
