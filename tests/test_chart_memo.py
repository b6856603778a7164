"""The encounter chart's table of learnt transitions (``statemachines.memo``) changes nothing:
random scenes played with the table and without it give the same log, event for event; and
between them those scenes send the chart every event it has (interrupt and resume included),
so that every kind of transition is learnt and replayed."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from encounter import engine
from encounter.harness import GM
from encounter.legal import legal_actions
from protocol import messages as msg
from protocol.messages import LegalAction
from statemachines.encounter_chart import (
    ACTIONS,
    GUARDS,
    Chart,
    EncounterChart,
    EncounterChartModel,
)
from statemachines.memo import Landing, TransitionTable
from tests.test_engine import FLOW_PARTY, Log
from tests.test_legality import Scene, scenes, take
from tests.test_legality import play as random_move

#: Every event of the encounter chart.
CHART_EVENTS = frozenset(str(e.id) for e in EncounterChart.events)


def toward_an_interrupt(scene: Scene, choice: int) -> LegalAction | None:
    """The move that leads into an interrupt and through it, where there is one: the
    interrupter's readied action (or its dice) while a turn is interrupted, else triggering
    a readied action, else readying (or preparing) one on the current turn."""
    state = scene.state
    options = [a for a in legal_actions(state, GM) if a.combatant is not None]
    turn = state.turn
    if turn is not None and turn.interrupted_by is not None:
        readied = state.readied.get(turn.interrupted_by)
        wanted = [a for a in options if a.combatant == turn.interrupted_by and (
            a.action in ("submit_roll", "server_roll")
            or (readied is not None and a.action == readied.action))]
    else:
        wanted = [a for a in options if a.action == "trigger_ready"] or [
            a for a in options if a.action in ("ready", "prepare")
            and a.combatant == state.current]
    return wanted[choice % len(wanted)] if wanted else None


def knock_out(scene: Scene) -> None:
    """The GM's ruling (``adjust_combatant``) puts a combatant out of the fight, so that a turn
    passes: in "MLP Dramatic Systems" the one whose turn it is falls unconscious, in "Action
    Time" the next in the order drops to 0 Health. Not while an action's dice are awaited
    (see ``play`` in ``tests/test_legality.py``)."""
    state = scene.state
    if state.current not in state.order or len(state.order) < 2 or any(
            p.context is not None for p in state.pending_rolls.values()):
        return
    order = state.order
    if state.ruleset == "dramatic":
        scene.do(msg.AdjustCombatant(id="knock-out", combatant=state.current,
                                     reason="the scenario", condition="unconscious"))
    else:
        cid = order[(order.index(state.current) + 1) % len(order)]
        scene.do(msg.AdjustCombatant(id="knock-out", combatant=cid, reason="the scenario",
                                     fatigue=0))


def play_scene(scene_of: tuple[str, list[dict[str, Any]], dict[str, Any], bool],
               choices: list[int]) -> list[str]:
    """A random scene (``tests/test_legality.py``: either ruleset, physical dice or not,
    statements, the GM's rulings), its moves legal ones: every other one steers toward an
    interrupt and through it; half-way the GM puts a combatant out of the fight (``knock_out``),
    and it ends the scene at the end. The log as JSON lines."""
    scene = Scene(*scene_of)
    for n, choice in enumerate(choices):
        if scene.state.ended:
            break
        if n == len(choices) // 2:
            knock_out(scene)
        entry = toward_an_interrupt(scene, choice // 2) if choice % 2 == 0 else None
        if entry is not None:
            take(scene, entry, choice, n)
        else:
            random_move(scene, choice)
    if not scene.state.ended:
        scene.do(msg.EndEncounter(id="end"))
    return [msgspec.json.encode(e).decode() for e in scene.table.envelopes]


def play(blocks: list[dict[str, Any]], ruleset: str, seed: int, choices: list[int]) -> list[str]:
    """Random legal moves (every other one ends the turn); the log as JSON lines."""
    log = Log(blocks, ruleset=ruleset, dice_seed=seed)
    log.do(msg.StartEncounter(id="s"))
    for n, choice in enumerate(choices):
        options = [a for a in legal_actions(log.state, GM) if a.combatant is not None]
        enders = [o for o in options if o.action == "end_turn"]
        a = enders[0] if enders and choice % 2 == 0 else options[(choice // 2) % len(options)]
        assert a.combatant is not None
        args: dict[str, Any] = {}
        if a.action in ("ready", "prepare"):
            args = {"action": "move", "trigger": "when it happens"}
        elif a.targets and a.action not in ("submit_roll", "server_roll"):
            args = {"target": a.targets[0]}
        # an action that needs arguments this test does not make up is refused: fine
        with contextlib.suppress(engine.Rejected):
            log.do(msg.Act(id=f"m{n}", combatant=a.combatant, action=a.action, args=args))
    return [msgspec.json.encode(e).decode() for e in log.envelopes]


@contextmanager
def chart_events_taken() -> Iterator[set[str]]:
    """The events the chart takes meanwhile (those it refuses left out)."""
    taken: set[str] = set()
    send = Chart.send

    def sending(chart: Chart, event: str) -> None:
        send(chart, event)
        taken.add(event)

    Chart.send = sending  # type: ignore[method-assign]
    try:
        yield taken
    finally:
        Chart.send = send  # type: ignore[method-assign]


@pytest.fixture
def fresh_table() -> Iterator[TransitionTable]:
    saved = Chart.table
    Chart.table = TransitionTable()
    try:
        yield Chart.table
    finally:
        Chart.table = saved


def test_scenes_play_the_same_with_and_without_the_table() -> None:
    """Each random scene gives the same log with the table learning, replaying from it, and
    without it; and the scenes of each ruleset send the chart every event it has."""
    taken: dict[str, set[str]] = {"dramatic": set(), "action_time": set()}

    @settings(max_examples=60, deadline=None)
    @given(scenes(), st.lists(st.integers(min_value=0, max_value=10_000), min_size=10,
                              max_size=80))
    def scenes_play_the_same(scene_of: tuple[str, list[dict[str, Any]], dict[str, Any], bool],
                             choices: list[int]) -> None:
        saved = Chart.table
        Chart.table = table = TransitionTable()
        try:
            with chart_events_taken() as sent:
                learning = play_scene(scene_of, choices)  # the table learns as it goes
            replaying = play_scene(scene_of, choices)  # now mostly from the table
        finally:
            Chart.table = saved
        assert table.hits > 0
        Chart.table = None
        try:
            without = play_scene(scene_of, choices)
        finally:
            Chart.table = saved
        assert learning == replaying == without
        taken[scene_of[0]] |= sent

    scenes_play_the_same()
    for ruleset, events in taken.items():
        assert events == CHART_EVENTS, (ruleset, sorted(CHART_EVENTS - events))


def test_the_second_scene_comes_from_the_table(fresh_table: TransitionTable) -> None:
    play(FLOW_PARTY, "dramatic", 5, list(range(40)))
    learnt, misses = len(fresh_table), fresh_table.misses
    assert learnt > 0
    play(FLOW_PARTY, "dramatic", 5, list(range(40)))
    assert fresh_table.misses == misses and fresh_table.hits > 0


def test_a_refusal_is_remembered_and_still_refused(fresh_table: TransitionTable) -> None:
    from statemachine.exceptions import TransitionNotAllowed

    from statemachines.encounter_chart import restore

    for _ in range(2):
        chart = restore(EncounterChartModel(), ["setup"])
        with pytest.raises(TransitionNotAllowed):
            chart.send("next_turn")
        assert chart.configuration == ["setup"]
    assert fresh_table.hits == 1 and fresh_table.misses == 1


def test_every_callback_of_the_chart_is_recorded() -> None:
    """The relay must record every callback, or the table would skip one on replay."""
    callbacks = {name for name in vars(EncounterChartModel)
                 if not name.startswith("_") and callable(getattr(EncounterChartModel, name))}
    assert callbacks == set(GUARDS) | set(ACTIONS)


def test_a_guard_asked_after_an_action_makes_the_key_unlearnable() -> None:
    table = TransitionTable()
    key: Any = (("a",), (), "go")
    table.learn(key, [("g", True), ("act", None), ("h", False)],
                Landing(("act",), ("b",), ()))
    assert len(table) == 0
    table.learn(key, [("g", True), ("act", None)], Landing(("act",), ("b",), ()))
    assert len(table) == 0  # never trusted again


def test_a_path_not_learnt_is_a_miss_and_asks_only_guards() -> None:
    from statemachines.memo import MISS

    asked: list[str] = []

    class Model:
        def g(self) -> bool:
            asked.append("g")
            return False

        def act(self) -> None:  # pragma: no cover - must not run
            raise AssertionError("an action ran on a miss")

    table = TransitionTable()
    key: Any = (("a",), (), "go")
    table.learn(key, [("g", True), ("act", None)], Landing(("act",), ("b",), ()))
    assert table.replay(key, Model()) is MISS
    assert asked == ["g"]
