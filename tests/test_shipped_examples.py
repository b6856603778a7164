"""The shipped example encounters (``server/examples/``) are playable as they stand: every
combatant has vitals with a maximum above 0 and, on its turn, an attack among its legal
actions. And a battle map is refused for an "Action Time" encounter at creation, over the real
protocol (ruling R103: the server keeps no map in Action Time)."""

from __future__ import annotations

import orjson
import pytest
import yaml

from clients.client import Client, CommandError
from encounter.harness import Table
from server.app import Server
from server.web import example_names, examples
from tests.conftest import ROOT, ws_url
from tests.helpers import open_client

EXAMPLES = ROOT / "server" / "examples"
#: The actions that attack a combatant, in either ruleset ("MLP Dramatic Systems": ATTACK
#: ROLL; "Action Time": Melee Attack, Ranged Attack, All-Out Attack).
ATTACKS = {"attack", "melee_attack", "ranged_attack", "all_out_attack"}


@pytest.mark.parametrize("name", example_names())
def test_every_combatant_of_a_shipped_example_has_vitals_and_an_attack_on_its_turn(
        name: str) -> None:
    table = Table.from_example(EXAMPLES / name, dice_seed=5)
    combatants = table.view()["combatants"]
    assert combatants
    for c in combatants:
        assert c["vitals"]["fatigue_max"] > 0, (name, c["id"], c["vitals"])
        assert c["vitals"]["fatigue"] == c["vitals"]["fatigue_max"], (name, c["id"])
    table.do("start_encounter")
    offered: dict[str, set[str]] = {}
    for _ in range(3 * len(combatants)):  # the surprise round (if any) and two rounds
        view = table.view()
        current = view["current"]
        if current is None or view["round"] > 2:
            break
        offered.setdefault(current, set()).update(
            a.action for a in table.legal() if a.combatant == current and a.targets)
        table.act(current, "end_turn")
    assert set(offered) == {c["id"] for c in combatants}, (name, sorted(offered))
    for cid, actions in offered.items():
        assert actions & ATTACKS, (name, cid, sorted(actions))


def test_no_action_time_example_has_a_map() -> None:
    listed = {ex["file"]: ex for ex in examples()}
    at = [ex for ex in listed.values() if ex["ruleset"] == "action_time"]
    assert at and all(ex["map"] is None for ex in at)


MAP = {"width": 4, "height": 3}
CAST = [{"name": "Ace", "id": "ace", "kind": "pc", "stats": {"body": "d8", "health": 8}},
        {"name": "Dog", "id": "dog", "stats": {"body": "d6", "health": 6}}]


async def test_a_map_for_an_action_time_encounter_is_refused_at_creation(
        server: Server, clients: list[Client]) -> None:
    anon = await open_client(ws_url(server), clients)
    await anon.hello()
    with pytest.raises(CommandError) as refused:
        await anon.command("create_encounter", name="Market", ruleset="action_time",
                           combatants=CAST, map=MAP)
    reply = refused.value.reply
    assert reply["code"] == "invalid_payload"
    assert reply["details"]["field"] == "map"
    assert "R103" in reply["message"] and "keeps no map in Action Time" in reply["message"]
    # nothing was created: the same encounter without the map is, and it has no map command
    ack = await anon.command("create_encounter", name="Market", ruleset="action_time",
                             combatants=CAST)
    assert ack["result"]["encounter"]
    # "MLP Dramatic Systems" keeps its map
    ack = await anon.command("create_encounter", name="Mill", ruleset="dramatic",
                             combatants=[{"name": "Ace", "kind": "pc"}], map=MAP)
    assert ack["result"]["encounter"]


def test_set_map_is_not_a_command_of_action_time() -> None:
    table = Table(CAST, ruleset="action_time")
    error = table.refused("set_map", map=MAP)
    assert error.code == "illegal_action", error
    assert "set_map" in error.message and "Action Time" in error.message


@pytest.mark.parametrize("name", example_names())
async def test_a_shipped_example_sent_alone_as_combatants_yaml_is_created_with_its_own_map(
        server: Server, clients: list[Client], name: str) -> None:
    """The file's text as ``combatants_yaml``, with only the name and ruleset it says: the
    encounter has the map the file draws (the one ``/table/examples.json`` hands out) and
    each combatant where the file places it; a ``map`` given beside it wins."""
    text = (EXAMPLES / name).read_text(encoding="utf-8")
    example = next(e for e in examples() if e["file"] == name)
    anon = await open_client(ws_url(server), clients)
    await anon.hello()
    ack = await anon.command("create_encounter", name=example["name"],
                             ruleset=example["ruleset"], combatants_yaml=text)
    gm = await open_client(ws_url(server), clients)
    await gm.hello(ack["result"]["gm_token"])
    assert gm.snapshot is not None
    state = gm.snapshot["state"]
    data = yaml.safe_load(text)
    if example["map"] is None:
        assert state.get("map") is None
        return
    assert state["map"] == orjson.loads(orjson.dumps(example["map"]))
    placed = {c["id"]: c["position"] for c in data["combatants"] if c.get("position")}
    assert placed and state["positions"] == placed
    other = {"width": 30, "height": 30}
    ack = await anon.command("create_encounter", name=example["name"],
                             ruleset=example["ruleset"], combatants_yaml=text, map=other)
    gm = await open_client(ws_url(server), clients)
    await gm.hello(ack["result"]["gm_token"])
    assert gm.snapshot is not None
    assert (gm.snapshot["state"]["map"]["width"], gm.snapshot["state"]["map"]["height"]) \
        == (30, 30)


async def test_a_bad_map_in_combatants_yaml_is_refused_naming_it(
        server: Server, clients: list[Client]) -> None:
    anon = await open_client(ws_url(server), clients)
    await anon.hello()
    text = "map:\n  drawing: |\n    ..?..\ncombatants:\n  - {name: Ace, kind: pc}\n"
    with pytest.raises(CommandError) as refused:
        await anon.command("create_encounter", name="Bad", combatants_yaml=text)
    reply = refused.value.reply
    assert reply["code"] == "invalid_payload" and reply["details"]["field"] == "combatants_yaml"
    assert reply["message"].startswith("combatants_yaml: map:") and "'?'" in reply["message"]
