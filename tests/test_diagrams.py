"""The statechart diagrams in docs/ are generated from the code and kept current."""

from __future__ import annotations

from statemachines import diagrams


def test_the_committed_diagrams_match_the_code() -> None:
    assert diagrams.OUT.read_text() == diagrams.render(), (
        "docs/statecharts.md is stale: run python -m statemachines.diagrams")


def test_every_state_and_event_of_the_encounter_chart_is_drawn() -> None:
    from statemachines.encounter_chart import EncounterChart

    text = diagrams.render()
    for state in EncounterChart.states:
        assert f" as {state.id}" in text
    for event in ("Start encounter", "Initiative complete", "Next turn", "End encounter",
                  "Interrupt", "Resume", "Take action"):
        assert event in text
