"""The refusals a person can cause at the table are sentences, in the server's own words (the
web table's ``sentence()`` would capitalise a fragment: these are checked before it); a schema
error from a hand-written client stays precise, naming the field."""

from __future__ import annotations

import re
from typing import Any

import pytest

from clients.client import Client
from encounter.harness import Table
from server.app import Server
from tests.conftest import ws_url
from tests.helpers import create_table, join

PARTY = [{"name": "Ace", "id": "ace", "kind": "pc", "initiative": 50},
         {"name": "Bee", "id": "bee", "kind": "pc", "initiative": 40},
         {"name": "Dog", "id": "dog", "initiative": 0}]
#: 10 x 4: a blocked square at (3,0), a wall along x = 5 from y = 0 to 2, a pit at (0,3)
MAP = {"width": 10, "height": 4, "blocked": [[3, 0]], "pits": [[0, 3]],
       "walls": [[[5, 0], [5, 2]]]}


def assert_sentence(text: str) -> None:
    assert text[:1].isupper(), text
    assert text.endswith("."), text
    assert "->" not in text and "  " not in text, text
    assert not re.search(r"\bstep \d", text), text  # steps are told as "the 3rd step"


def table() -> Table:
    t = Table(PARTY, dice_seed=1)
    t.do("set_map", map=MAP)
    for cid, at in (("ace", [0, 0]), ("bee", [1, 2]), ("dog", [9, 3])):
        t.do("place_combatant", combatant=cid, at=at)
    t.do("start_encounter")
    return t


@pytest.mark.parametrize(("action", "path", "said"), [
    ("move", [[2, 0]], "The 1st step, to (2,0), does not go to a square next to (0,0)"),
    ("move", [[1, 0], [2, 0], [3, 0]], "The 3rd step, to (3,0), enters a blocked square."),
    ("move", [[1, 1], [2, 1], [3, 1], [4, 1], [5, 1]],
     "The 5th step, to (5,1), crosses a wall between (4,1) and (5,1)."),
    ("move", [[1, 0], [2, 0], [2, 1], [3, 1], [4, 1], [4, 2], [4, 3]],
     "That path costs 7 squares of movement; you have 6."),
    ("move", [[1, 1], [2, 2], [3, 3], [4, 3], [5, 3]],
     "The first 4 steps of that path cost 7 squares of movement; you have 6."),
    ("move", [[-1, 0]], "The 1st step, to (-1,0), leaves the map at (-1,0)."),
    ("move", [[0, 1], [1, 2]], "ends the movement in the space of 'bee'"),
    ("move", [[0, 1], [0, 2], [0, 3], [1, 3]],
     "The 4th step, to (1,3), comes after a step into a pit"),
    ("move", [[4, 1], [5, 1]], "The 1st step, to (4,1), does not go to a square next to (0,0)"),
    ("run", [[1, 0], [1, 1]], "The 2nd step, to (1,1), leaves the straight line"),
])
def test_a_bad_path_is_refused_in_a_sentence(action: str, path: list[Any], said: str) -> None:
    error = table().refused_act("ace", action, path=path)
    assert error.code == "illegal_action"
    assert said in error.message
    assert_sentence(error.message)


def test_the_common_refusals_of_a_turn_are_sentences() -> None:
    t = table()
    player = t.invite("ace")
    refusals = [
        t.refused_act("ace", "attack", by=player, target="dog"),  # out of reach
        t.refused_act("dog", "end_turn"),  # not its turn
        t.refused_act("dog", "lie", target="ace"),
        t.refused_act("dog", "move", by=player, path=[[8, 3]]),  # not the player's
    ]
    t.act("ace", "other_standard", by=player)
    refusals += [t.refused_act("ace", "attack", by=player, target="dog"),  # spent
                 t.refused_act("ace", "distraction", by=player, target="dog"),
                 t.refused_act("ace", "run", by=player, path=[[1, 0]])]
    t.act("ace", "move", by=player, path=[[1, 0]])
    refusals.append(t.refused_act("ace", "move", by=player, path=[[2, 0]]))
    assert [r.code for r in refusals] == ["illegal_action", "not_your_turn", "not_your_turn",
                                          "forbidden"] + ["illegal_action"] * 4
    assert "out of Ace's reach" in refusals[0].message
    for refusal in refusals:
        assert_sentence(refusal.message)


async def test_a_malformed_act_from_a_hand_written_client_names_the_field(
        server: Server, clients: list[Client]) -> None:
    # (dice_seed 1: Ace's turn first, as in ``table``; the schema's refusal comes before the
    # turn's, but an act out of turn would be told so first)
    t = await create_table(ws_url(server), clients, PARTY, dice_seed=1)
    await t.gm.command("set_map", map=MAP)
    await t.gm.command("place_combatant", combatant="ace", at=[0, 0])
    await t.gm.command("start_encounter")
    player = await join(ws_url(server), t.tokens["ace"], clients)
    assert "ace" in {a["combatant"] for a in player.legal if a["action"] == "move"}
    for n, (args, field, said) in enumerate([
        ('{"path": [3]}', "args.path[0]", "args.path[0] must be a list"),
        ('{"path": [[1, "a"]]}', "args.path[0][1]", "args.path[0][1] must be a whole number"),
        ('{"path": []}', "args.path", "args.path must list at least 1 item"),
        ('{"speed": 9}', "args.speed", "args.speed is not an argument of move"),
    ]):
        mark = len(player.messages)
        await player.send_raw(f'{{"type": "act", "id": "raw-{n}", "combatant": "ace", '
                              f'"action": "move", "args": {args}}}')
        error = await player.wait_for(lambda m: m["type"] == "error", start=mark)
        assert error["code"] == "invalid_payload" and error["id"] == f"raw-{n}"
        assert error["message"].startswith(said), error
        assert error["details"]["field"] == field, error
