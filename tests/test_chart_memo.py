"""The encounter chart's table of learnt transitions (``statemachines.memo``) changes nothing:
random scenes played with the table and without it give the same log, event for event."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from encounter import engine
from encounter.legal import legal_actions
from protocol import messages as msg
from statemachines.encounter_chart import ACTIONS, GUARDS, Chart, EncounterChartModel
from statemachines.memo import Landing, TransitionTable
from tests.test_engine import FLOW_PARTY, GM, Log

AT_PARTY = [
    {"name": "Pony", "id": "pony", "kind": "pc", "stats": {"body": "d6", "mind": "d6"}},
    {"name": "Filly", "id": "filly", "kind": "pc", "stats": {"body": "d8", "mind": "d4"}},
    {"name": "Dog", "id": "dog", "stats": {"body": "d8"}},
]


def play(blocks: list[dict[str, Any]], ruleset: str, seed: int, choices: list[int]) -> list[str]:
    """Random legal moves (every other one ends the turn); the log as JSON lines."""
    import msgspec

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


@pytest.fixture
def fresh_table() -> Iterator[TransitionTable]:
    saved = Chart.table
    Chart.table = TransitionTable()
    try:
        yield Chart.table
    finally:
        Chart.table = saved


def without_table(blocks: list[dict[str, Any]], ruleset: str, seed: int,
                  choices: list[int]) -> list[str]:
    saved = Chart.table
    Chart.table = None
    try:
        return play(blocks, ruleset, seed, choices)
    finally:
        Chart.table = saved


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10_000), min_size=5, max_size=80),
       st.integers(min_value=0, max_value=10_000), st.sampled_from(["dramatic", "action_time"]))
def test_scenes_play_the_same_with_and_without_the_table(
        choices: list[int], seed: int, ruleset: str) -> None:
    blocks = FLOW_PARTY if ruleset == "dramatic" else AT_PARTY
    saved = Chart.table
    Chart.table = table = TransitionTable()
    try:
        learning = play(blocks, ruleset, seed, choices)  # the table learns as it goes
        replaying = play(blocks, ruleset, seed, choices)  # now mostly from the table
    finally:
        Chart.table = saved
    assert table.hits > 0
    assert learning == replaying == without_table(blocks, ruleset, seed, choices)


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
