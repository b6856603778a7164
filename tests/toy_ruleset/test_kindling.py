"""A ruleset the engine was not written for: "Kindling" (``tests/toy_ruleset``), registered for
these tests only, plays through the neutral engine with its own option, state part, event,
stat block, turn budget and action, in-process (``encounter.harness``) and over the protocol.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest

from clients.client import Client, CommandError
from encounter import registry
from encounter.harness import Refused, Table
from encounter.registry import names
from encounter.schemas import args_schemas
from encounter.words import summarize
from server.app import Server
from tests.conftest import ROOT, ws_url
from tests.helpers import open_client

CAST = [{"name": "Ash", "id": "ash", "kind": "pc", "stats": {"spark": 5}},
        {"name": "Cinder", "id": "cinder", "kind": "pc", "stats": {"spark": 2}},
        {"name": "Soot", "id": "soot", "aware": False, "stats": {"spark": 1}}]


@pytest.fixture(autouse=True)
def kindling() -> Iterator[None]:
    registry.register("kindling", "tests.toy_ruleset")  # the one registry line
    yield
    registry.unregister("kindling")


def started(**options: Any) -> Table:
    table = Table(CAST, ruleset="kindling", dice_seed=5, **options)
    table.do("start_encounter")
    return table


def test_its_own_stat_block_is_checked() -> None:
    with pytest.raises(Refused) as refused:
        Table([{"name": "Dud", "stats": {"spark": 9}}], ruleset="kindling")
    assert refused.value.code == "invalid_payload" and "spark" in refused.value.message
    with pytest.raises(Refused) as refused:  # a Dramatic sheet is not a Kindling one
        Table([{"name": "Dog", "stats": {"fatigue_points": 6}}], ruleset="kindling")
    assert "fatigue_points" in refused.value.message


def test_no_surprise_round_and_initiative_by_its_own_roll() -> None:
    """Soot is unaware, but Kindling declares no surprise round: everyone is in round 1."""
    table = started()
    s = table.state
    assert s.round == 1 and not s.surprise and not s.flat_footed
    assert sorted(s.order) == ["ash", "cinder", "soot"]
    assert all(e.total >= 1 + table.state.combatants[c].stats["spark"]
               for c, e in s.initiative.items())


def test_its_budget_is_two_beats_and_its_action_kindles_embers() -> None:
    table = started(ruleset_options={"glow": 2})
    cid = table.state.current
    assert cid is not None and table.state.turn is not None
    assert table.state.turn.budget == {"first_beat": True, "second_beat": True}
    kindle = next(a for a in table.legal() if a.action == "kindle" and a.combatant == cid)
    target = kindle.targets[0]
    assert table.act(cid, "kindle", target=target) == ["action_taken", "ruleset_event"]
    assert table.state.turn.budget == {"first_beat": False, "second_beat": True}
    table.act(cid, "kindle", target=target)
    assert table.state.ruleset_state["embers"] == {target: 4}  # glow 2, twice
    # the beats are spent: no third kindling, offered or taken
    assert "kindle" not in {a.action for a in table.legal() if a.combatant == cid}
    refused = table.refused_act(cid, "kindle", target=target)
    assert refused.code == "illegal_action"
    assert table.view()["kindling"] == {"embers": {target: 4}}
    assert table.replays()
    table.act(cid, "end_turn")
    assert table.state.current != cid


def test_its_embers_flare_once_with_a_fold_words_and_a_view_of_their_own() -> None:
    """``flared``: an event added by docs/howto/add-an-event.md alone (a ruleset's own)."""
    table = started(ruleset_options={"glow": 3})
    cid = table.state.current
    assert cid is not None
    target = next(a for a in table.legal() if a.action == "kindle"
                  and a.combatant == cid).targets[0]
    assert table.act(cid, "kindle", target=target) == ["action_taken", "ruleset_event"]
    assert "kindling" in table.view() and "flared" not in table.view()["kindling"]
    assert table.act(cid, "kindle", target=target) == \
        ["action_taken", "ruleset_event", "ruleset_event"]
    flared = table.state.ruleset_state["flared"]
    assert flared == [target]
    assert table.view()["kindling"] == {"embers": {target: 6}, "flared": [target]}
    event = table.seen()[-1]
    assert (event.name, event.combatant, event.data) == ("flared", target, {"embers": 6})
    names = {c.id: c.name for c in table.state.combatants.values()}
    said = summarize(event, "kindling", names)
    assert said.text == f"{names[target]}'s embers flare up."
    assert [(p.label, p.value) for p in said.parts] == [("embers", 6)]
    assert table.replays()
    # kindled again by the next who may (not the target itself): no second flare
    while True:
        table.act(cid, "end_turn")
        cid = table.state.current
        assert cid is not None
        if cid != target:
            break
    assert table.act(cid, "kindle", target=target) == ["action_taken", "ruleset_event"]
    assert table.state.ruleset_state["embers"][target] == 9
    assert table.state.ruleset_state["flared"] == [target]


def test_its_option_is_checked_and_unknown_arguments_refused() -> None:
    with pytest.raises(Refused) as refused:
        Table(CAST, ruleset="kindling", ruleset_options={"glow": 9})
    assert refused.value.code == "invalid_payload"
    assert refused.value.details == {"field": "options.ruleset_options"}
    with pytest.raises(Refused):
        Table(CAST, ruleset="kindling", ruleset_options={"heat": 1})
    with pytest.raises(Refused):  # the shipped rulesets have no ruleset_options
        Table(CAST[:1], ruleset="dramatic", ruleset_options={"glow": 1})
    table = started()
    cid = table.state.current
    assert cid is not None
    refused_act = table.refused_act(cid, "kindle", target="ash", heat=3)
    assert refused_act.code == "invalid_payload"
    assert refused_act.details is not None and refused_act.details["field"] == "args.heat"
    assert table.refused("fall", combatant="ash", meters=3).code == "illegal_action"


def test_an_unknown_ruleset_is_refused_listing_the_servers() -> None:
    with pytest.raises(Refused) as refused:
        Table(CAST, ruleset="kindlin")
    assert refused.value.code == "invalid_payload"
    assert refused.value.details == {"field": "ruleset", "allowed": names()}
    assert "kindling" in names() and "dramatic" in names()


async def test_it_plays_over_the_protocol(server: Server, clients: list[Client]) -> None:
    """The same ruleset through the real server: its event reaches the players' clients as a
    ``ruleset_event``; its view part is in their snapshots."""
    url = ws_url(server)
    anon = await open_client(url, clients)
    await anon.hello()
    ack = await anon.command("create_encounter", id="kindling-over-the-wire", name="Embers",
                             ruleset="kindling", combatants=CAST,
                             options={"dice_seed": 3, "ruleset_options": {"glow": 3}})
    gm = await open_client(url, clients)
    await gm.hello(ack["result"]["gm_token"])
    await gm.command("start_encounter")
    await gm.wait_for(lambda m: m["type"] == "legal_actions"
                      and any(a["action"] == "kindle" for a in m["actions"]))
    kindle = next(a for a in gm.legal if a["action"] == "kindle")
    await gm.command("act", combatant=kindle["combatant"], action="kindle",
                     args={"target": kindle["targets"][0]})
    event = await gm.wait_for(lambda m: m["type"] == "event"
                              and m["event"]["kind"] == "ruleset_event")
    assert event["event"]["name"] == "kindled" and event["event"]["data"]["embers"] == 3
    # what came over the wire is what the published schemas describe
    for name, messages in (("server-messages.schema.json", gm.messages),
                           ("events.schema.json", [m["event"] for m in gm.messages
                                                   if m["type"] == "event"])):
        schema = json.loads((ROOT / "docs" / "protocol" / name).read_text(encoding="utf-8"))
        checker = jsonschema.Draft202012Validator(schema)
        for message in messages:
            assert not list(checker.iter_errors(message)), (name, message)
    with pytest.raises(CommandError) as refused:
        await anon.command("create_encounter", id="kindling-bad-option-0", name="x",
                           ruleset="kindling", options={"ruleset_options": {"glow": "hot"}})
    assert refused.value.code == "invalid_payload"


def test_its_references_and_schemas_are_generated_from_its_declaration() -> None:
    """The docs generator, unchanged, documents a ruleset it was not written for: its actions
    (docs/actions.md), its stat block and options (docs/stat-blocks.md), their JSON Schemas
    and its encounter files, all read from its declaration."""
    from docgen import docs, reference

    actions = "\n".join(docs.actions_section("kindling"))
    assert "## Kindling" in actions and "### Kindling: `kindle`" in actions
    assert "**`target`**" in actions and "| beat |" in actions
    stats = "\n".join(reference.ruleset_section("kindling", docs.stat_block_name("kindling")))
    assert "## Kindling" in stats and "| **`spark`** | integer 1-6 |" in stats
    assert "### Encounter options of Kindling" in stats and "`ruleset_options`" in stats
    assert "#### `options.ruleset_options`" in stats and "| `glow` | integer 1-3 |" in stats

    def valid(schema: dict[str, Any], data: Any) -> bool:
        return jsonschema.Draft202012Validator(schema).is_valid(data)

    block = reference.stat_block_schema("kindling")
    assert valid(block, CAST[0]) and not valid(block, {"name": "Dud", "stats": {"spark": 9}})
    assert not valid(block, {"name": "Dog", "stats": {"spark": 1, "fatigue_points": 6}})
    act = docs.actions_schema("kindling")
    assert valid(act, {"action": "kindle", "args": {"target": "ash"}})
    assert not valid(act, {"action": "kindle", "args": {"target": "ash", "heat": 3}})
    encounter_file = reference.encounter_file_schema("kindling")
    assert "map" not in encounter_file["properties"]  # it keeps no map: no set_map command
    assert valid(encounter_file, {"ruleset": "kindling", "combatants": CAST,
                                  "options": {"ruleset_options": {"glow": 2}}})
    assert not valid(encounter_file, {"ruleset": "kindling", "combatants": CAST,
                                      "options": {"ruleset_options": {"glow": 9}}})
    # the whole set of documents takes it in, given a region of the guide for its actions
    guide = docs.GUIDE.read_text(encoding="utf-8")
    region = "\n<!-- actions-kindling:begin -->\n<!-- actions-kindling:end -->\n"
    args_schemas.cache_clear()
    try:
        files = docs.outputs(guide + region)
    finally:
        args_schemas.cache_clear()  # the ids of the shipped rulesets alone, for the other tests
    for name in ("actions", "stat-block", "options", "encounter-file"):
        assert docs.OUT / f"{name}.kindling.schema.json" in files
    assert "- [Kindling](#kindling)" in files[docs.STAT_BLOCKS_MD]
    assert "| `kindle` | beat |" in files[docs.GUIDE]
