"""Whether a bot sees a side beaten reads the snapshot's ``out_of_fight`` (the states of a
conscious combatant's condition the ruleset counts out of the fight), not the ruleset's name:
at 0 Health an "Action Time" combatant is out of the fight (R29), at 0 fatigue points a
"MLP Dramatic Systems" one fights on, defenseless."""

from __future__ import annotations

from typing import Any

import pytest

from clients.bot import beaten_side
from clients.view import TableView
from encounter.harness import Table

CASTS: dict[str, list[dict[str, Any]]] = {
    "dramatic": [{"name": "Ace", "id": "ace", "kind": "pc", "stats": {"fatigue_points": 8}},
                 {"name": "Dog", "id": "dog", "stats": {"fatigue_points": 6}}],
    "action_time": [{"name": "Ace", "id": "ace", "kind": "pc",
                     "stats": {"body": "d8", "health": 8}},
                    {"name": "Dog", "id": "dog", "stats": {"body": "d6", "health": 6}}],
}


def _view(ruleset: str, dog: list[str]) -> TableView:
    state = Table(CASTS[ruleset], ruleset=ruleset).view()
    for c in state["combatants"]:
        if c["id"] == "dog":
            c["vitals"]["condition"] = dog
    return TableView(state)


@pytest.mark.parametrize(("ruleset", "beaten"), [("dramatic", False), ("action_time", True)])
def test_a_defenseless_side_is_beaten_where_its_ruleset_says(ruleset: str,
                                                             beaten: bool) -> None:
    view = _view(ruleset, ["active", "defenseless"])
    sides = {c["id"]: c["side"] for c in view.combatants.values()}
    assert beaten_side(view) == (sides["dog"] if beaten else None)
    assert view.out_of_fight == ({"defenseless"} if ruleset == "action_time" else set())


@pytest.mark.parametrize("ruleset", ["dramatic", "action_time"])
def test_an_unconscious_side_is_beaten_in_every_ruleset(ruleset: str) -> None:
    view = _view(ruleset, ["unconscious", "out_for_scene"])
    assert beaten_side(view) == view.combatants["dog"]["side"]
    assert beaten_side(_view(ruleset, ["active", "fit"])) is None
