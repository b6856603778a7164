"""The encounter (dramatic scene) as a statechart.

    setup ─start_encounter─▶ rolling_initiative ─initiative_complete─▶ scene
    setup ─start_encounter (no physical dice)────────────────────────▶ scene
    scene (parallel)
      phase: surprise_round ─begin_regular_rounds [regular rounds now]─▶ regular_rounds
      rounds
       round
        turn
          acting: fresh ─take_action─▶ underway ─take_action─▶ spent   (the turn's budget)
          acting ─interrupt─▶ interrupted ─resume─▶ acting (history)  (a readied action;
                                    resume once it is resolved, its physical dice in)
        acting ─next_turn [round goes on]─▶ turn               (the next combatant)
      acting ─next_turn [round is over]─▶ round                (the next round)
      acting ─pass_turn [turn passes]─▶ the same, for a combatant that cannot act
      (the decider sends it after any command that leaves such a combatant's turn running,
      and ``begin_regular_rounds`` after every command: the chart has no eventless
      transitions, so that ``statemachines.memo`` can learn what it does)
    scene ─next_turn [surprise round over, dice out]─▶ rolling_initiative
    setup | rolling_initiative | scene ─end_encounter─▶ ended

COMBAT SEQUENCE ("MLP Dramatic Systems"): 1. awareness, a surprise round if some but not all are
aware (R1); 2. the aware act in the surprise round; 3. the others roll initiative; 4. everyone
acts in initiative order; 5. rounds repeat until the scene ends. THE COMBAT ROUND: "each round
begins with the character with the highest Initiative check result".

The chart decides when; its callbacks are methods of the model (``encounter.engine.Decision``),
which asks the rules what happens and records it as events. The turn's budget is data
(``rules.actions.Budget``, which says what an action costs) and states: *fresh* (nothing done:
the only moment to delay), *underway*, *spent* (guard ``budget_left``). A readied action
interrupts the turn; the history state returns it to the budget state it was in.
"""

from __future__ import annotations

from typing import Any

from statemachine import HistoryState, State, StateChart
from statemachine.exceptions import TransitionNotAllowed
from statemachine.orderedset import OrderedSet

from statemachines.memo import Call, Key, Landing, Refused, TransitionTable, recording


class EncounterChart(StateChart):
    catch_errors_as_events = False
    allow_event_without_transition = False

    setup = State(initial=True)
    rolling_initiative = State()

    class scene(State.Parallel):
        class phase(State.Compound):
            """Step 1-2 of the COMBAT SEQUENCE: a surprise round first, when some but not all
            combatants are aware (R1); then the regular rounds."""

            surprise_round = State(initial=True)
            regular_rounds = State()

            # sent by the decider after every command, like ``pass_turn`` (no eventless
            # transitions: ``statemachines.memo`` needs every guard asked before any action)
            begin_regular_rounds = surprise_round.to(regular_rounds, cond="regular_rounds_now")

        class rounds(State.Compound):
            class round(State.Compound):
                class turn(State.Compound):
                    class acting(State.Compound):
                        """The turn's budget as states: nothing done yet (the only moment to
                        delay), actions under way, or nothing left but free actions."""

                        fresh = State(initial=True)
                        underway = State()
                        spent = State()
                        resume_point = HistoryState()

                        take_action = (
                            fresh.to(underway, cond="budget_left")
                            | fresh.to(spent)
                            | underway.to.itself(cond="budget_left")
                            | underway.to(spent)
                        )

                    interrupted = State()

                    interrupt = acting.to(interrupted, on="begin_interrupt")
                    # (the end of an interrupt is the exit of `interrupted`: a transition into
                    # a history state runs its `on` actions twice in python-statemachine 3.2)
                    # sent by the decider once the readied action is resolved, the last of its
                    # dice in (``encounter.turns.end_interrupt_when_resolved``)
                    resume = interrupted.to(acting.resume_point)

                next_turn = turn.acting.to(turn, cond="round_goes_on")
                # the turn of a combatant that cannot act passes without a command of its own
                pass_turn = turn.acting.to(turn, cond=["turn_passes", "round_goes_on"])

            next_turn = round.turn.acting.to(round, cond="next_round_now")
            pass_turn = round.turn.acting.to(round, cond=["turn_passes", "next_round_now"])

    ended = State(final=True)

    start_encounter = setup.to(
        rolling_initiative, cond="initiative_needs_dice", on="request_initiative"
    ) | setup.to(scene, on="roll_initiative")
    initiative_complete = rolling_initiative.to(scene, on="settle_initiative")
    next_turn = scene.rounds.round.turn.acting.to(
        rolling_initiative, cond="surprise_over_needs_dice", on="request_initiative")
    pass_turn = scene.rounds.round.turn.acting.to(
        rolling_initiative, cond=["turn_passes", "surprise_over_needs_dice"],
        on="request_initiative")
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

    def round_goes_on(self) -> bool:
        """Someone still has a turn this round."""
        return True

    def budget_left(self) -> bool:
        """The turn's budget (``rules.actions``) still has an action after the one taken."""
        return True

    def turn_passes(self) -> bool:
        """The combatant whose turn it is cannot act (unconscious, dead: its condition chart,
        ``statemachines.condition_chart``): the turn passes without a command."""
        return False

    def regular_rounds_now(self) -> bool:
        """No surprise round is running or still to come."""
        return True

    def next_round_now(self) -> bool:
        """The round is over and the next can begin at once."""
        return False

    def surprise_over_needs_dice(self) -> bool:
        """The surprise round is over and the unaware combatants' initiative needs dice."""
        return False

    def begin_interrupt(self) -> None:
        """A readied action interrupts the current turn."""

    def on_exit_interrupted(self) -> None:
        """The readied action is resolved; the interrupted turn resumes."""

    def on_exit_turn(self) -> None:
        """The current turn ends."""

    def on_enter_round(self) -> None:
        """A round begins (the surprise round, or the next regular round)."""

    def on_enter_turn(self) -> None:
        """A turn begins: the next combatant in order."""


GUARDS = ("initiative_needs_dice", "round_goes_on", "budget_left", "turn_passes",
          "regular_rounds_now", "next_round_now", "surprise_over_needs_dice")
ACTIONS = ("request_initiative", "roll_initiative", "settle_initiative", "begin_interrupt",
           "on_exit_interrupted", "on_exit_turn", "on_enter_round", "on_enter_turn")


@recording(GUARDS, ACTIONS)
class _Relay(EncounterChartModel):
    """The model of the process's shared chart instance: it holds the configuration being
    worked on, relays every callback to the model of the decision at hand, and records the
    callbacks in ``trace`` (for ``statemachines.memo``)."""

    def __init__(self) -> None:
        self.state: Any = "setup"
        self.target: EncounterChartModel = EncounterChartModel()
        self.trace: list[Call] = []


class Chart:
    """The encounter chart over ``model``, in a saved configuration.

    Building a ``StateChart`` costs as much as sending it an event, so one instance per process
    is shared by every decision (they are synchronous and never interleave): each use sets its
    configuration and its model first. The instance is rebuilt after it reaches its final state
    (the library refuses every event after that) or after a callback failed. What the library
    did is remembered in ``table`` (``statemachines.memo``); the library runs only for what the
    table has not learnt yet.
    """

    _relay: _Relay | None = None
    _chart: EncounterChart | None = None

    def __init__(self, model: EncounterChartModel, configuration: list[str],
                 history: dict[str, list[str]] | None = None) -> None:
        self.model = model
        self.configuration = list(configuration)
        self.history = dict(history or {})

    @classmethod
    def _shared(cls) -> tuple[_Relay, EncounterChart]:
        if cls._relay is None or cls._chart is None:
            relay = _Relay()
            cls._relay, cls._chart = relay, EncounterChart(relay)
        return cls._relay, cls._chart

    def _load(self) -> tuple[_Relay, EncounterChart]:
        relay, chart = self._shared()
        relay.target = self.model
        config = self.configuration
        relay.state = config[0] if len(config) == 1 else OrderedSet(config)
        # history states live on the chart, not the model: restore them too
        chart.history_values.clear()
        for key, ids in self.history.items():
            chart.history_values[key] = [chart.states_map[i] for i in ids]
        return relay, chart

    #: What the chart did before, by configuration, history and event (``statemachines.memo``);
    #: ``None`` sends every event through the library (the tests compare both).
    table: TransitionTable | None = TransitionTable()

    def send(self, event: str) -> None:
        """Send ``event``; raises ``TransitionNotAllowed`` when the configuration refuses it."""
        table = Chart.table
        key: Key = (tuple(self.configuration), _frozen(self.history), event)
        if table is not None:
            try:
                landing = table.replay(key, self.model)
            except Refused:
                raise TransitionNotAllowed(None, set()) from None
            if isinstance(landing, Landing):
                self.configuration = list(landing.configuration)
                self.history = {k: list(v) for k, v in landing.history}
                return
        relay, chart = self._load()
        relay.trace = []
        try:
            chart.send(event)
        except TransitionNotAllowed:
            if table is not None:
                table.learn(key, relay.trace, Landing((), (), (), refused=True))
            raise
        except BaseException:
            Chart._relay = Chart._chart = None  # an interrupted run: start afresh next time
            raise
        finally:
            relay.target = EncounterChartModel()
        self.configuration = configuration_of(relay)
        self.history = {key: [s.id for s in states]
                        for key, states in chart.history_values.items()}
        if table is not None:
            table.learn(key, relay.trace, Landing(
                actions=tuple(name for name, answer in relay.trace if answer is None),
                configuration=tuple(self.configuration), history=_frozen(self.history)))
        if chart.is_terminated:
            Chart._relay = Chart._chart = None

    def allowed_events(self) -> set[str]:
        """The events the configuration accepts (before guards)."""
        _relay, chart = self._load()
        return {e.id for e in chart.allowed_events}


def restore(model: EncounterChartModel, configuration: list[str],
            history: dict[str, list[str]] | None = None) -> Chart:
    """The chart over ``model`` in the saved ``configuration`` (and history)."""
    return Chart(model, configuration, history)


def _frozen(history: dict[str, list[str]]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple(sorted((k, tuple(v)) for k, v in history.items()))


def configuration_of(model: Any) -> list[str]:
    value = model.state
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]
