"""The protocol documents: current with the code, complete, valid, and true to what a real
server sends over a real websocket.

``docs/protocol/*.json``, ``docs/protocol/asyncapi.yaml`` and the generated regions of
``docs/protocol.md`` are written by ``python -m docgen``; the example session in the
guide is hand-written and replayed here against a server.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import shutil
import subprocess
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest
import yaml

from clients.client import FEATURES, Client, CommandError
from docgen import docs
from protocol.errors import ERROR_DESCRIPTIONS, ErrorCode
from protocol.events import AnyEvent
from protocol.messages import CLIENT_TYPES, AnyClientMessage, AnyServerMessage, Command
from protocol.version import PROTOCOL_VERSION
from server import session as server_session
from server.app import Server
from server.config import Settings
from server.store import keys as store_keys
from tests.conftest import settings_for, ws_url
from tests.helpers import create_table, join, open_client
from tests.redis_procs import RedisProcess

Message = dict[str, Any]

CLIENT = docs.members(AnyClientMessage)
SERVER = docs.members(AnyServerMessage)
EVENTS = docs.members(AnyEvent)
CLIENT_TAGS = [docs.tag_of(c) for c in CLIENT]
SERVER_TAGS = [docs.tag_of(c) for c in SERVER]
EVENT_KINDS = [docs.tag_of(c) for c in EVENTS]


def load_json(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((docs.OUT / name).read_text(encoding="utf-8"))
    return data


def load_asyncapi() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((docs.OUT / docs.ASYNCAPI).read_text(encoding="utf-8"))
    return data


def validator(name: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(load_json(name))


def errors_of(v: jsonschema.protocols.Validator, instance: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"
            for e in v.iter_errors(instance)]


def resolve(document: dict[str, Any], ref: str) -> Any:
    """Follow a local JSON pointer (``#/a/b``) in ``document``."""
    assert ref.startswith("#/"), ref
    node: Any = document
    for part in ref[2:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        assert isinstance(node, dict) and part in node, f"{ref} does not resolve (at {part!r})"
        node = node[part]
    return node


def refs_in(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for v in node.values() for r in refs_in(v)]
    if isinstance(node, list):
        return [r for v in node for r in refs_in(v)]
    return []


# --- the documents are current --------------------------------------------------------------


def test_committed_documents_equal_what_the_generator_writes_now() -> None:
    files = docs.outputs()
    assert set(files) == {
        docs.OUT / docs.CLIENT_SCHEMA, docs.OUT / docs.SERVER_SCHEMA,
        docs.OUT / docs.EVENTS_SCHEMA, docs.OUT / docs.ASYNCAPI, docs.GUIDE,
        docs.OUT / docs.snap.SNAPSHOT_SCHEMA,
        *(docs.OUT / docs.actions_schema_name(r) for r in docs.rulesets()),
        *(docs.OUT / f"{kind}.{r}.schema.json" for r in docs.rulesets()
          for kind in ("stat-block", "options", "encounter-file")),
        docs.OUT / docs.BATTLE_MAP, docs.OUT / docs.ARGS_SCHEMAS, docs.ACTIONS_MD,
        docs.STAT_BLOCKS_MD, docs.SUMMARIES_MD, docs.OUT / docs.VOCABULARY_SCHEMA,
    }
    stale = [str(p.relative_to(docs.ROOT)) for p in docs.stale(files)]
    assert not stale, f"stale protocol docs {stale}: run `python -m docgen`"
    for path, text in files.items():
        assert text.endswith("\n") and not text.endswith("\n\n"), path


def test_generation_is_deterministic() -> None:
    assert docs.outputs() == docs.outputs()
    schema = docs.json_schema(docs.SERVER_SCHEMA)
    assert docs.render_json(schema) == docs.render_json(json.loads(docs.render_json(schema)))


def test_check_names_the_stale_file_and_write_mends_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "repo"
    shutil.copytree(docs.OUT, root / "docs" / "protocol")
    shutil.copy(docs.GUIDE, root / "docs" / "protocol.md")
    for reference in (docs.ACTIONS_MD, docs.STAT_BLOCKS_MD, docs.SUMMARIES_MD):
        shutil.copy(reference, root / "docs" / reference.name)
    monkeypatch.setattr(docs, "ROOT", root)
    monkeypatch.setattr(docs, "OUT", root / "docs" / "protocol")
    monkeypatch.setattr(docs, "GUIDE", root / "docs" / "protocol.md")
    assert docs.main(["--check"]) == 0

    events = root / "docs" / "protocol" / docs.EVENTS_SCHEMA
    events.write_text(events.read_text().replace('"turn_started"', '"turn_begun"'))
    guide = root / "docs" / "protocol.md"
    guide.write_text(guide.read_text().replace("| `bad_json` |", "| `bad_json_frame` |"))
    (root / "docs" / "protocol" / docs.ASYNCAPI).unlink()
    actions = root / "docs" / "actions.md"
    actions.write_text(actions.read_text().replace("`guard_up`", "`guard`"))
    capsys.readouterr()
    assert docs.main(["--check"]) == 1
    err = capsys.readouterr().err
    assert "stale: docs/actions.md" in err and "stat-blocks" not in err
    assert "stale: docs/protocol/events.schema.json" in err
    assert "stale: docs/protocol/asyncapi.yaml" in err
    assert "stale: docs/protocol.md" in err
    assert "client-messages" not in err

    assert docs.main([]) == 0
    assert docs.main(["--check"]) == 0
    assert guide.read_text() == docs.GUIDE.read_text()

    guide.write_text(guide.read_text().replace("<!-- errors:end -->", ""))
    assert docs.main(["--check"]) == 1
    assert "errors" in capsys.readouterr().err


def test_the_module_runs_as_a_command() -> None:
    done = subprocess.run([sys.executable, "-m", "docgen", "--check"], cwd=docs.ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


# --- the documents are complete -------------------------------------------------------------


@pytest.mark.parametrize("ruleset", docs.rulesets())
def test_the_action_schemas_describe_what_act_accepts(ruleset: str) -> None:
    """Each ruleset's actions schema has every declared action with its arguments, and accepts
    an ``act``'s ``action`` and ``args`` exactly when the action's struct does: the examples
    of the declarations, and a sample of wrong arguments."""
    from encounter.registry import catalog

    schema = load_json(docs.actions_schema_name(ruleset))
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["x-ruleset"] == ruleset and schema["x-protocol-version"] == PROTOCOL_VERSION
    v = jsonschema.Draft202012Validator(schema)
    cat = catalog(ruleset)
    assert [alt["title"] for alt in schema["anyOf"]] == cat.names()
    for action in cat.actions:
        fields = msgspec.structs.fields(action.args)
        required = {f.name: f for f in fields if f.required}
        alt = next(a for a in schema["anyOf"] if a["title"] == action.name)
        defs = schema["$defs"][alt["properties"]["args"]["$ref"].rsplit("/", 1)[1]]
        assert set(defs["properties"]) == {f.name for f in fields}, action.name
        args: dict[str, Any] = {}
        for name in required:
            prop = defs["properties"][name]
            if "$ref" in prop:
                prop = schema["$defs"][prop["$ref"].rsplit("/", 1)[1]]
            args[name] = (prop.get("examples") or prop.get("enum") or ["c1"])[0]
        samples: list[tuple[dict[str, Any], bool]] = [
            (args, True), ({**args, "no_such_argument": True}, False)]
        samples += [({k: v for k, v in args.items() if k != name}, False) for name in required]
        samples += [({**args, name: 12_345_678}, False) for name in required]  # out of bounds
        samples += [({**args, "note": 7}, False)] if "note" in defs["properties"] else []
        for given, ok in samples:
            message = {"action": action.name, "args": given}
            try:
                msgspec.convert(given, action.args)
                accepted = True
            except msgspec.ValidationError:
                accepted = False
            assert accepted is ok, (action.name, given)
            assert (not errors_of(v, message)) is ok, (action.name, given,
                                                       errors_of(v, message))
    assert errors_of(v, {"action": "fly_to_the_moon"})
    asyncapi_doc = load_asyncapi()
    act = asyncapi_doc["components"]["messages"]["act"]
    assert act["x-action-arguments"][ruleset] == docs.actions_schema_name(ruleset)
    assert docs.actions_schema_name(ruleset) in act["description"]



@pytest.mark.parametrize(("filename", "union", "tag_field"), [
    (docs.CLIENT_SCHEMA, AnyClientMessage, "type"),
    (docs.SERVER_SCHEMA, AnyServerMessage, "type"),
    (docs.EVENTS_SCHEMA, AnyEvent, "kind"),
])
def test_every_member_of_each_union_is_in_its_schema(filename: str, union: Any,
                                                    tag_field: str) -> None:
    schema = load_json(filename)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == docs.JSON_SCHEMA_DIALECT
    assert schema["$id"] and schema["title"] and schema["description"]
    assert schema["x-protocol-version"] == PROTOCOL_VERSION
    assert str(PROTOCOL_VERSION) in schema["title"]
    members = docs.members(union)
    assert [r["$ref"] for r in schema["anyOf"]] == [f"#/$defs/{c.__name__}" for c in members]
    # a plain union, each member tagged (strict validators refuse OpenAPI's discriminator)
    assert "discriminator" not in schema
    for cls in members:
        definition = schema["$defs"][cls.__name__]
        assert definition["properties"][tag_field] == {"enum": [docs.tag_of(cls)]}
        assert tag_field in definition["required"]
        assert definition.get("description"), f"{cls.__name__} needs a docstring"
        assert "``" not in definition["description"]
    for ref in refs_in(schema):
        resolve(schema, ref)


def test_every_message_and_event_is_in_the_asyncapi_document() -> None:
    doc = load_asyncapi()
    messages = doc["components"]["messages"]
    channel = doc["channels"]["ws"]
    assert set(messages) == set(CLIENT_TAGS) | set(SERVER_TAGS)
    assert set(channel["messages"]) == set(messages)
    by_action: dict[str, set[str]] = {"send": set(), "receive": set()}
    for op in doc["operations"].values():
        assert resolve(doc, op["channel"]["$ref"]) is channel
        for ref in op["messages"]:
            assert ref["$ref"].startswith("#/channels/ws/messages/")
            by_action[op["action"]].add(ref["$ref"].rsplit("/", 1)[1])
    # The document describes the server: it receives what clients send, sends the rest.
    assert by_action == {"receive": set(CLIENT_TAGS), "send": set(SERVER_TAGS)}
    schemas = doc["components"]["schemas"]
    for cls in CLIENT + SERVER + EVENTS:
        assert cls.__name__ in schemas, cls
    event_refs = schemas["EventMessage"]["properties"]["event"]["anyOf"]
    assert [r["$ref"] for r in event_refs] == [
        f"#/components/schemas/{c.__name__}" for c in EVENTS]


def test_asyncapi_document_is_valid_and_every_payload_resolves() -> None:
    text = (docs.OUT / docs.ASYNCAPI).read_text(encoding="utf-8")
    doc = yaml.safe_load(text)
    assert doc["asyncapi"] == "3.0.0"
    assert doc["info"]["title"] == "Stablemaster"
    assert doc["info"]["version"] == str(PROTOCOL_VERSION)
    assert doc["servers"]["local"]["protocol"] == "ws"
    assert doc["servers"]["local"]["host"] == "localhost:8765"
    assert doc["channels"]["ws"]["address"] == "/ws"
    for op in doc["operations"].values():
        assert op["action"] in ("send", "receive")
        for ref in op.get("reply", {}).get("messages", []):
            assert ref["$ref"].startswith("#/channels/ws/messages/")
    for ref in refs_in(doc):
        resolve(doc, ref)
    for tag in CLIENT_TAGS + SERVER_TAGS:
        message = resolve(doc, doc["channels"]["ws"]["messages"][tag]["$ref"])
        assert message["name"] == tag
        assert message["summary"] and message["description"]
        payload = resolve(doc, message["payload"]["$ref"])
        assert payload["type"] == "object"
        assert payload["properties"]["type"] == {"enum": [tag]}
    # AsyncAPI's schema format is a superset of JSON Schema draft 7 in which
    # ``discriminator`` is a string, not OpenAPI's object.
    for name, schema in doc["components"]["schemas"].items():
        jsonschema.Draft7Validator.check_schema(schema)
        assert "discriminator" not in json.dumps(schema), name
    errors = resolve(doc, "#/components/messages/error")["description"]
    for code in ErrorCode:
        assert f"`{code.value}`" in errors
    for close_code in docs.CLOSE_CODES:
        assert f"| {close_code} |" in doc["channels"]["ws"]["description"]


def test_close_codes_of_the_server_are_documented() -> None:
    used = {server_session.CLOSE_PROTOCOL_ERROR, server_session.CLOSE_POLICY,
            server_session.CLOSE_RESTART, server_session.CLOSE_TRY_LATER,
            server_session.CLOSE_REVOKED, server_session.CLOSE_NO_HELLO, 1009}
    assert used <= set(docs.CLOSE_CODES)
    guide = docs.GUIDE.read_text(encoding="utf-8")
    for code in used:
        assert f"| {code} |" in guide


def test_no_table_of_the_documents_is_cut_in_two() -> None:
    """Every table of the Markdown documents starts with its header row and separator: a
    blank line inside a table makes its remaining rows a table without a header, which
    Markdown does not render as one."""
    root = docs.GUIDE.parent.parent
    cut = []
    for path in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        lines = path.read_text(encoding="utf-8").splitlines()
        fenced = False
        for i, line in enumerate(lines):
            if line.startswith("```"):
                fenced = not fenced
            elif (not fenced and line.startswith("|") and (i == 0 or not lines[i - 1]
                                                             .startswith("|"))
                  and not re.match(r"\|\s*:?-+:?\s*\|", lines[i + 1] if i + 1 < len(lines)
                                   else "")):
                cut.append(f"{path.name}:{i + 1}: {line[:60]}")
    assert not cut, "tables without a header row:\n" + "\n".join(cut)


def test_guide_tables_list_every_error_code_and_default_limit() -> None:
    guide = docs.GUIDE.read_text(encoding="utf-8")
    region = guide.split("<!-- errors:begin -->", 1)[1].split("<!-- errors:end -->", 1)[0]
    assert set(re.findall(r"^\| `([a-z_]+)` \|", region, re.M)) == {c.value for c in ErrorCode}
    assert len(ERROR_DESCRIPTIONS) == len(ErrorCode)
    limits = guide.split("<!-- limits:begin -->", 1)[1].split("<!-- limits:end -->", 1)[0]
    s = Settings()
    for value in (s.max_command_bytes, s.max_frame_bytes, s.command_burst, s.max_replay):
        assert f"| {value} |" in limits


# --- real messages validate -----------------------------------------------------------------


@dataclass
class Recorder:
    """Sends client messages, keeping each one and each reply to validate them later."""

    sent: list[Message] = field(default_factory=list)
    replies: list[Message] = field(default_factory=list)
    ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    async def request(self, client: Client, type_: str, **fields: Any) -> Message:
        cid = str(uuid.uuid4()) if type_ in ("create_encounter", "create_campaign") \
            else f"r{next(self.ids)}"
        message = {"type": type_, "id": cid, **fields}
        self.sent.append(message)
        reply = await client.request(message)
        self.replies.append(reply)
        return reply

    async def ok(self, client: Client, type_: str, **fields: Any) -> Message:
        reply = await self.request(client, type_, **fields)
        assert reply["type"] == "ack", reply
        return reply

    async def hello(self, client: Client, token: str | None = None,
                    since: int | None = None,
                    features: list[str] | tuple[str, ...] = FEATURES) -> Message:
        message: Message = {"type": "hello", "versions": [PROTOCOL_VERSION],
                            "features": list(features)}
        if token is not None:
            message["token"] = token
        if since is not None:
            message["since"] = since
        self.sent.append(message)
        return await client.hello(token, since=since, features=features)


def events_of(client: Client, kind: str, start: int = 0) -> list[Message]:
    return [m["event"] for m in client.messages[start:]
            if m["type"] == "event" and m["event"]["kind"] == kind]


async def acting_now(gm: Client, start: int) -> str:
    """The combatant whose turn it is, from the GM's legal actions after message ``start``."""
    await gm.wait_for(lambda m: m["type"] == "legal_actions"
                      and any(a["action"] == "end_turn" for a in m["actions"]), start=start)
    return str(next(a["combatant"] for a in gm.legal if a["action"] == "end_turn"))


async def play_flow(rec: Recorder, url: str, clients: list[Client]) -> None:
    """A scene with awareness, a surprise round, actions, an effect, delay and ready, so that
    every event of the turn flow crosses the wire."""
    anon = await open_client(url, clients)
    await anon.hello()
    ack = await anon.command("create_encounter", name="Flow", combatants=[
        {"name": "Ace", "id": "ace", "kind": "pc", "initiative": 9},
        {"name": "Bee", "id": "bee", "kind": "pc", "initiative": 5},
        {"name": "Cub", "id": "cub", "kind": "npc", "initiative": 1}], options={"dice_seed": 3})
    gm = await open_client(url, clients)
    await rec.hello(gm, ack["result"]["gm_token"])
    await rec.ok(gm, "call_perception", combatants=["cub"], dc=99)
    await rec.ok(gm, "set_awareness", combatant="cub", aware=False)
    mark = len(gm.messages)
    await rec.ok(gm, "start_encounter")
    for _ in range(2):  # the surprise round: the two aware ponies act once each
        actor = await acting_now(gm, mark)
        mark = len(gm.messages)
        await rec.ok(gm, "act", combatant=actor, action="move")
        await rec.ok(gm, "act", combatant=actor, action="end_turn")
    first = await acting_now(gm, mark)  # round 1
    effect = await rec.ok(gm, "add_effect", name="Smoke", rounds=1)
    other = await rec.ok(gm, "add_effect", name="Dust", rounds=5)
    dust = events_of(gm, "effect_started")[-1]["effect"]
    assert effect["seq"] < other["seq"]
    await rec.ok(gm, "end_effect", effect=dust)
    await rec.ok(gm, "act", combatant=first, action="ready",
                 args={"action": "move", "trigger": "when a dog moves"})
    mark = len(gm.messages)
    await rec.ok(gm, "act", combatant=first, action="end_turn")
    second = await acting_now(gm, mark)
    mark = len(gm.messages)
    await rec.ok(gm, "act", combatant=second, action="delay")
    third = await acting_now(gm, mark)
    await rec.ok(gm, "act", combatant=second, action="take_delayed_turn")
    await rec.ok(gm, "act", combatant=first, action="trigger_ready")
    await rec.ok(gm, "act", combatant=first, action="move")
    mark = len(gm.messages)
    await rec.ok(gm, "act", combatant=third, action="end_turn")
    assert await acting_now(gm, mark) == second
    await rec.ok(gm, "act", combatant=second, action="ready",
                 args={"action": "other_standard", "trigger": "never"})
    for _ in range(6):  # play on until the readied action lapses
        if events_of(gm, "readied_action_lost"):
            break
        actor = await acting_now(gm, len(gm.messages) - 1)
        mark = len(gm.messages)
        await rec.ok(gm, "act", combatant=actor, action="end_turn")
        await gm.wait_for(lambda m: m["type"] == "legal_actions", start=mark)
    assert events_of(gm, "readied_action_lost") and events_of(gm, "effect_ended")


async def play_resolution(rec: Recorder, url: str, clients: list[Client]) -> None:
    """An attack that hits, a GM override and an adjudicated check, so that the events of
    resolution cross the wire."""
    anon = await open_client(url, clients)
    await anon.hello()
    ack = await anon.command("create_encounter", name="Blows", combatants=[
        {"name": "Ace", "id": "ace", "kind": "pc", "initiative": 9, "position": [0, 0],
         "stats": {"skills": {"melee": 30, "persuasion": 30}, "str": 14, "cha": 30}},
        {"name": "Cub", "id": "cub", "kind": "npc", "initiative": 1, "position": [3, 0],
         "stats": {"skills": {"melee": 30}, "fatigue_points": 40}},
        {"name": "Cart", "id": "cart", "stats": {"nature": "object", "load_limit": 10}}],
        options={"dice_seed": 3}, map={"width": 6, "height": 4, "blocked": [[5, 3]]})
    gm = await open_client(url, clients)
    await rec.hello(gm, ack["result"]["gm_token"])
    mark = len(gm.messages)
    await rec.ok(gm, "start_encounter")
    assert await acting_now(gm, mark) == "ace"
    await rec.ok(gm, "get_reach", combatant="ace")
    await rec.ok(gm, "act", combatant="ace", action="move", args={"path": [[1, 0], [2, 0]]})
    await rec.ok(gm, "get_aim", combatant="ace", action="attack", args={"weapon": "unarmed"})
    await rec.ok(gm, "act", combatant="ace", action="attack", args={"target": "cub"})
    await rec.ok(gm, "act", combatant="ace", action="end_turn")
    await rec.ok(gm, "act", combatant="cub", action="grab", args={"target": "ace"})
    await rec.ok(gm, "fall", combatant="cub", meters=6)
    await rec.ok(gm, "place_combatant", combatant="cub", at=[4, 2])
    await rec.ok(gm, "set_map", map={"width": 8, "height": 8})
    await rec.ok(gm, "load_object", combatant="cart", weight=12)
    await rec.ok(gm, "collide", first="ace", second="cub")
    await rec.ok(gm, "act", combatant="cub", action="end_turn")
    await rec.ok(gm, "act", combatant="cart", action="end_turn")
    await rec.ok(gm, "act", combatant="ace", action="harvest",
                 args={"target": "cart", "skill": "melee", "resource": "planks"})
    await rec.ok(gm, "adjust_combatant", combatant="cub", prone=True, reason="slipped in mud")
    await rec.ok(gm, "adjudicate", combatant="ace", description="swing from the chandelier",
                 modifier=2, dc=12)
    await play_social(rec, gm)
    await rec.ok(gm, "end_encounter", reason="the party ends")
    for kind in ("attack_resolved", "damage_dealt", "vitals_changed", "gm_ruling",
                 "check_made", "map_set", "combatant_placed", "combatant_moved",
                 "grab_changed", "object_loaded", "harvested", "argument_changed",
                 "attitude_changed", "blocking_changed", "statement_hit",
                 "statement_answered", "doubt_ruled", "debate_ended", "lie_told",
                 "social_event_set", "social_situation_set", "aura_points_changed",
                 "status_boost_earned"):
        assert events_of(gm, kind), kind


async def play_undo(rec: Recorder, url: str, clients: list[Client]) -> None:
    """Undo (R108): a player asks its attack back, the GM refuses, grants the next request,
    then takes back a command of its own."""
    anon = await open_client(url, clients)
    await anon.hello()
    ack = await anon.command("create_encounter", name="Takebacks", combatants=[
        {"name": "Ace", "id": "ace", "kind": "pc", "initiative": 9},
        {"name": "Cub", "id": "cub", "kind": "npc", "initiative": 1}],
        options={"dice_seed": 5})
    gm = await open_client(url, clients)
    await rec.hello(gm, ack["result"]["gm_token"])
    invite = await rec.ok(gm, "issue_invite", combatants=["ace"])
    player = await open_client(url, clients)
    await rec.hello(player, invite["result"]["token"])
    mark = len(gm.messages)
    await rec.ok(gm, "start_encounter")
    assert await acting_now(gm, mark) == "ace"
    await rec.ok(player, "act", combatant="ace", action="attack", args={"target": "cub"})
    await rec.ok(player, "request_undo", combatant="ace", reason="the wrong one")
    asked = (await gm.wait_for(lambda m: m["type"] == "event"
                               and m["event"]["kind"] == "undo_requested"))["event"]
    await rec.ok(gm, "refuse_undo", request=asked["request"], reason="it stands")
    await rec.ok(player, "request_undo", combatant="ace")
    again = await gm.wait_for(lambda m: m["type"] == "event" and m["event"]["kind"]
                              == "undo_requested" and m["event"]["request"] != asked["request"])
    await rec.ok(gm, "undo", request=again["event"]["request"])
    await rec.ok(gm, "act", combatant="ace", action="delay")
    await rec.ok(gm, "undo", reason="not yet")
    await player.wait_for(lambda m: m["type"] == "snapshot" and m["reason"] == "rewound")
    await rec.ok(player, "get_history", limit=20)
    for kind in ("commands_undone", "undo_requested", "undo_refused"):
        assert events_of(gm, kind), kind


async def play_action_time(rec: Recorder, url: str, clients: list[Client]) -> None:
    """An "Action Time" turn: an effect gained and used up, an item readied, a move."""
    anon = await open_client(url, clients)
    await anon.hello()
    stats = {"body": "d8", "health": 6, "defense": 3, "bandages": "stowed"}
    ack = await anon.command("create_encounter", name="Action", ruleset="action_time",
                             combatants=[{"name": "Ace", "kind": "pc", "stats": stats},
                                         {"name": "Cub", "stats": stats}],
                             options={"dice_seed": 3})
    gm = await open_client(url, clients)
    await rec.hello(gm, ack["result"]["gm_token"])
    mark = len(gm.messages)
    await rec.ok(gm, "start_encounter")
    first = await acting_now(gm, mark)
    await rec.ok(gm, "act", combatant=first, action="aim")
    await rec.ok(gm, "act", combatant=first, action="ready_item", args={"draw": "bandages"})
    mark = len(gm.messages)
    await rec.ok(gm, "act", combatant=first, action="end_turn")
    second = await acting_now(gm, mark)
    await rec.ok(gm, "act", combatant=second, action="move", args={"yards": 4})
    for kind in ("at_effect_started", "at_effect_ended", "items_readied", "at_moved"):
        assert events_of(gm, kind), kind


async def play_social(rec: Recorder, gm: Client) -> None:
    """Statements, a Dispute answered, a caught lie, Blocking: the social events on the wire."""
    await rec.ok(gm, "set_social_situation", combatant="ace", invitation=False)
    await rec.ok(gm, "set_social_event", rating=15, circle="the mill", topic="digging")
    ace = await rec.ok(gm, "size_argument", combatant="ace", size="medium", text="we win")
    await rec.ok(gm, "set_attitude", holder="cub", toward="ace", attitude="indifferent")
    await rec.ok(gm, "act", combatant="ace", action="end_turn")
    await rec.ok(gm, "size_argument", combatant="cub", size="fine")
    while gm_current(gm) != "ace":
        await rec.ok(gm, "act", combatant=gm_current(gm), action="end_turn")
    await rec.ok(gm, "act", combatant="ace", action="dispute",
                 args={"target": "cub", "argument": ace["result"]["argument"]})
    await rec.ok(gm, "act", combatant="cub", action="answer_statement",
                 args={"answer": "accept_with_reservation"})
    doubted = events_of(gm, "statement_answered")[-1]["statement"]
    await rec.ok(gm, "rule_doubt", statement=doubted, unfounded=True)
    await rec.ok(gm, "act", combatant="ace", action="end_turn")
    while gm_current(gm) != "ace":
        await rec.ok(gm, "act", combatant=gm_current(gm), action="end_turn")
    await rec.ok(gm, "act", combatant="ace", action="dispute",
                 args={"target": "cub", "argument": ace["result"]["argument"]})
    await rec.ok(gm, "act", combatant="cub", action="answer_statement",
                 args={"answer": "refuse"})
    await rec.ok(gm, "act", combatant="ace", action="end_turn")
    await rec.ok(gm, "act", combatant="cub", action="lie",
                 args={"target": "ace", "size": "colossal"})
    await rec.ok(gm, "act", combatant="cub", action="end_turn")
    await rec.ok(gm, "act", combatant="cart", action="block")


def gm_current(gm: Client) -> str:
    started = [m["event"]["combatant"] for m in gm.events()
               if m["event"]["kind"] == "turn_started"]
    return started[-1]


async def next_error(client: Client, start: int) -> Message:
    return await client.wait_for(lambda m: m["type"] == "error", start=start)


async def test_real_messages_validate_against_the_schemas(
        server: Server, redis_server: RedisProcess, clients: list[Client],
        monkeypatch: pytest.MonkeyPatch) -> None:
    # every client keeps what came over the wire: batches and legal action deltas as sent
    monkeypatch.setattr(Client, "keep_wire", True)
    url = ws_url(server)
    rec = Recorder()
    table = await create_table(url, clients, players_roll=True, dice_seed=5)
    gm = table.gm
    player = await join(url, table.tokens["twilight"], clients)
    spectator = await join(url, table.spectator_token, clients)
    overlay = await open_client(f"{url}?spectate={table.spectator_token}", clients)
    await overlay.wait_for(lambda m: m["type"] == "legal_actions")

    # a new encounter, from an unauthenticated connection
    anon = await open_client(url, clients)
    await rec.hello(anon)
    await rec.ok(anon, "ping")
    created = await rec.ok(anon, "create_encounter", name="Validation", ruleset="action_time",
                           combatants=[{"name": "Scout", "kind": "pc", "stats": {"body": "d8"}}],
                           options={"manual_rolls": True})
    assert set(created["result"]) == {"encounter", "token_id", "role", "gm_token"}

    # anonymous hidden turns (R99): the screen's turn, moved, ended by the GM, watched
    behind = await rec.ok(anon, "create_encounter", name="Screen", combatants=[
        {"name": "Ace", "id": "ace", "kind": "pc", "initiative": 50},
        {"name": "Lurker", "id": "lurker", "initiative": 30, "hidden": True}],
        options={"dice_seed": 5, "anonymous_hidden_turns": True, "screen_count": 10})
    screen_gm = await open_client(url, clients)
    await rec.hello(screen_gm, behind["result"]["gm_token"])
    link = await rec.ok(screen_gm, "issue_spectator_link")
    await join(url, link["result"]["token"], clients)
    await rec.ok(screen_gm, "start_encounter")
    await rec.ok(screen_gm, "set_options", options={"dice_seed": 5, "screen_count": -10,
                                                    "anonymous_hidden_turns": True})
    await rec.ok(screen_gm, "act", combatant="ace", action="end_turn")
    await rec.ok(screen_gm, "act", combatant="lurker", action="end_turn")
    await rec.ok(screen_gm, "remove_combatant", combatant="lurker")
    await rec.ok(screen_gm, "act", combatant="ace", action="end_turn")
    await rec.ok(screen_gm, "act", combatant="screen", action="end_turn")

    # verifiable dice (R101) and a turn timer (R102): committed, entropy, a timer started,
    # warned, paused, resumed and run out, the secret revealed at the end
    timed = await rec.ok(anon, "create_encounter", name="Timed", combatants=[
        {"name": "Ace", "id": "ace", "kind": "pc", "initiative": 50},
        {"name": "Dog", "id": "dog", "initiative": 1}],
        options={"turn_seconds": 2, "turn_warning_seconds": 1})
    timed_gm = await open_client(url, clients)
    await rec.hello(timed_gm, timed["result"]["gm_token"])
    await rec.ok(timed_gm, "add_dice_entropy", entropy="c0ffee")
    mark = len(timed_gm.messages)
    await rec.ok(timed_gm, "start_encounter")
    await timed_gm.wait_for(lambda m: m["type"] == "event" and m["event"]["kind"] ==
                            "turn_timer_warned", start=mark, timeout=10)
    await rec.ok(timed_gm, "pause_turn_timer")
    await rec.ok(timed_gm, "resume_turn_timer")
    await timed_gm.wait_for(lambda m: m["type"] == "event" and m["event"]["kind"] ==
                            "turn_timer_expired", start=mark, timeout=10)
    before_end = {key: await server.redis.dump(key)
                  for key in store_keys(timed["result"]["encounter"]).values()}
    await rec.ok(timed_gm, "end_encounter")
    from_the_start = await open_client(url, clients)  # the commitment came before any hello
    await from_the_start.hello(timed["result"]["gm_token"], since=0)
    await from_the_start.wait_for(lambda m: m["type"] == "event" and m["event"]["kind"] ==
                                  "encounter_ended")
    played_back = await open_client(url, clients)  # and played back, with the view
    await played_back.hello(timed["result"]["gm_token"], features=["batch", "view"],
                            replay={"speed": 1000})
    await played_back.wait_for(lambda m: m["type"] == "replay_ended")
    # the store back to before the reveal (a restored backup): the dice renewed (R117)
    mark = len(timed_gm.messages)
    pipe = server.redis.pipeline(transaction=True)
    for key, dumped in before_end.items():
        pipe.delete(key)
        if dumped is not None:
            pipe.restore(key, 0, dumped)
    await pipe.execute()
    await timed_gm.wait_for(lambda m: m["type"] == "snapshot" and m["reason"] == "rewound",
                            start=mark, timeout=10)
    renewed = await open_client(url, clients)
    await renewed.hello(timed["result"]["gm_token"], since=0)
    await renewed.wait_for(lambda m: m["type"] == "event" and m["event"]["kind"] ==
                           "dice_renewed")

    # setup: options, credentials, hiding, adding and removing
    await rec.ok(gm, "set_options", options={"players_roll": True, "dice_seed": 5,
                                             "npc_rolls_public": True})
    integ = await rec.ok(gm, "issue_integration_token", scopes=["view:gm", "roll"], label="bot")
    bot = await open_client(url, clients)
    welcome = await rec.hello(bot, integ["result"]["token"])
    assert welcome["role"] == "integration" and welcome["scopes"] == ["roll", "view:gm"]
    await rec.ok(gm, "revoke_token", token_id=integ["result"]["token_id"])
    await asyncio.wait_for(bot.closed, 10)
    assert bot.ws.close_code == server_session.CLOSE_REVOKED
    await rec.ok(gm, "set_hidden", combatant="lurker", hidden=False)
    await rec.ok(gm, "set_hidden", combatant="lurker", hidden=True)
    await rec.ok(gm, "add_combatant", combatant={"name": "Spike", "kind": "npc"})
    await rec.ok(gm, "remove_combatant", combatant="spike")
    await rec.ok(gm, "issue_invite", combatants=["dash"], label="second seat")
    link = await rec.ok(gm, "issue_spectator_link", label="second overlay")
    assert link["result"]["path"] == f"/ws?spectate={link['result']['token']}"

    # initiative with physical dice: the player rolls its own, the server the rest
    mark = len(player.messages)
    await rec.ok(gm, "start_encounter")
    await player.wait_for(lambda m: m["type"] == "legal_actions" and bool(m["actions"]),
                          start=mark)
    requests = events_of(player, "roll_requested", mark)
    assert len(requests) == 4  # every player character's, in the open
    (mine,) = [r for r in requests if r["roller"] == "twilight"]
    bad = await rec.request(player, "submit_roll", request=mine["request"], faces=[21])
    assert bad["code"] == "bad_dice" and bad["details"] == {"dice": [20]}
    await rec.ok(player, "submit_roll", request=mine["request"], faces=[12])
    for request in events_of(gm, "roll_requested"):
        if request["request"] != mine["request"]:
            await rec.ok(gm, "server_roll", request=request["request"])
    await gm.wait_for(lambda m: m["type"] == "event" and m["event"]["kind"] == "turn_started")

    # the scene: someone joins, turns pass, a player oversteps
    await rec.ok(gm, "add_combatant", combatant={"name": "Spike", "kind": "npc",
                                                 "initiative": 2})
    for _ in range(3):
        mark = len(gm.messages)
        acting = [a for a in gm.legal if a["action"] == "end_turn"]
        await rec.ok(gm, "act", combatant=acting[0]["combatant"], action="end_turn")
        await gm.wait_for(lambda m: m["type"] == "legal_actions", start=mark)
    forbidden = await rec.request(player, "act", combatant="dog", action="end_turn")
    assert forbidden["code"] == "forbidden"
    await rec.ok(gm, "get_legal_actions")
    # the view: a player's state kept by patches, and its snapshot asked for again
    viewer = await open_client(url, clients)
    await rec.hello(viewer, table.tokens["twilight"], features=[*FEATURES, "view"])
    await viewer.wait_for(lambda m: m["type"] == "legal_actions")
    # who is connected, to a GM connection that asks
    watcher = await open_client(url, clients)
    await rec.hello(watcher, table.gm_token, features=[*FEATURES, "presence"])
    await watcher.wait_for(lambda m: m["type"] == "presence")
    mark = len(viewer.messages)
    for _ in range(4):  # (a hidden combatant's turn changes nothing the player sees)
        acting = [a for a in gm.legal if a["action"] == "end_turn"]
        await rec.ok(gm, "act", combatant=acting[0]["combatant"], action="end_turn")
        await rec.ok(gm, "ping")
        if any(m["type"] == "view" for m in viewer.messages[mark:]):
            break
    await viewer.wait_for(lambda m: m["type"] == "view", start=mark)
    await rec.ok(viewer, "get_snapshot")
    mark = len(viewer.messages)
    await rec.ok(viewer, "get_history", limit=5)
    assert [m["type"] for m in viewer.messages[mark:]] == ["history"]
    assert viewer.snapshot is not None and viewer.snapshot["reason"] == "asked"
    assert viewer.state == viewer.snapshot["state"]

    await play_flow(rec, url, clients)
    await play_resolution(rec, url, clients)
    await play_undo(rec, url, clients)
    await play_action_time(rec, url, clients)

    # resuming: from the start (every event), and from ahead of the log (a snapshot)
    replay = await open_client(url, clients)
    await rec.hello(replay, table.gm_token, since=0)
    await replay.wait_for(lambda m: m["type"] == "legal_actions")
    ahead = await open_client(url, clients)
    await rec.hello(ahead, table.tokens["twilight"], since=10**6)
    snap = await ahead.wait_for(lambda m: m["type"] == "snapshot")
    assert snap["reason"] == "resume_ahead"

    await rec.ok(gm, "end_encounter", reason="validated")
    await spectator.wait_for(lambda m: m["type"] == "event"
                             and m["event"]["kind"] == "encounter_ended")

    # a campaign (R109-R114): its roster, clock and links; a player's link moved into the
    # encounter begun from it; a GM link recovered
    made = await rec.ok(anon, "create_campaign", name="Validation road")
    camp_gm = await open_client(url, clients)
    await rec.hello(camp_gm, made["result"]["gm_token"])
    added = await rec.ok(camp_gm, "add_character", character={
        "name": "Ace", "id": "ace", "kind": "pc", "stats": {"fatigue_points": 12}})
    await rec.ok(camp_gm, "adjust_character", character="ace", reason="a bruise", fatigue=5,
                 status=[{"bonus": 1, "circle": "canterlot"}], items=[{"name": "bandages"}])
    await rec.ok(camp_gm, "advance_clock", hours=8, rest=True)
    await rec.ok(camp_gm, "advance_clock", hours=8, rest=True)  # (a healing refused)
    await rec.ok(camp_gm, "get_campaign")
    camp_player = await open_client(url, clients)
    await rec.hello(camp_player, added["result"]["token"])
    await camp_player.wait_for(lambda m: m["type"] == "campaign")
    await rec.ok(camp_gm, "begin_encounter", name="Validation ambush", characters=["ace"],
                 npcs=[{"name": "Dog", "id": "dog", "kind": "npc"}])
    await camp_player.wait_for(lambda m: m["type"] == "moved")
    await rec.ok(anon, "recover_campaign", campaign=made["result"]["campaign"],
                 recovery_secret=made["result"]["recovery_secret"])

    # errors, each from a real server; some close the connection
    raw = await open_client(url, clients)
    await raw.send_raw('{"type": "ping", "id": "early"}')
    assert (await next_error(raw, 0))["code"] == "unauthenticated"
    await rec.hello(raw)
    probes: list[tuple[str | bytes, str]] = [
        ("{not json", "bad_json"),
        (b"\x00binary", "bad_json"),
        ('{"type": "teleport", "id": "t1"}', "unknown_type"),
        ('{"id": "t2"}', "unknown_type"),
        ('[1, 2]', "invalid_payload"),
        ('{"type": "ping", "id": "' + "x" * 200 + '"}', "invalid_payload"),
        ('{"type": "ping", "id": "t3", "pad": "' + "x" * 70_000 + '"}', "too_large"),
    ]
    for frame, code in probes:
        mark = len(raw.messages)
        await raw.send_raw(frame)
        error = await next_error(raw, mark)
        assert error["code"] == code, (frame[:40], error)
    with pytest.raises(CommandError) as refused:
        await gm.command("act", combatant="twilight", action="end_turn")
    rec.replies.append(refused.value.reply)

    old = await open_client(url, clients)
    await old.send_raw('{"type": "hello", "versions": [99]}')
    assert (await next_error(old, 0))["code"] == "unsupported_version"
    await asyncio.wait_for(old.closed, 10)
    assert old.ws.close_code == server_session.CLOSE_PROTOCOL_ERROR

    huge = await open_client(url, clients)
    await huge.hello()
    await huge.send_raw('{"type": "ping", "id": "big", "pad": "' + "x" * 1_100_000 + '"}')
    await asyncio.wait_for(huge.closed, 10)
    assert huge.ws.close_code == 1009

    # a server shutting down says goodbye, then closes with 1012
    other = Server(settings_for(redis_server.url))
    await other.start()
    leaving = await Client.open(ws_url(other))
    try:
        await leaving.hello()
        await other.stop()
        await asyncio.wait_for(leaving.closed, 10)
        assert leaving.ws.close_code == server_session.CLOSE_RESTART
    finally:
        await leaving.close()
    everyone = [*clients, leaving]

    # --- validate everything that came over the wire ------------------------------------
    server_v = validator(docs.SERVER_SCHEMA)
    events_v = validator(docs.EVENTS_SCHEMA)
    client_v = validator(docs.CLIENT_SCHEMA)
    received = [m for c in everyone for m in c.messages] + rec.replies + [
        m for c in everyone for f in c.wire for m in [f, *f.get("messages", [])]]
    for message in received:
        assert not errors_of(server_v, message), (message, errors_of(server_v, message))
        if message["type"] == "event":
            assert not errors_of(events_v, message["event"]), message
    assert {m["type"] for m in received} == set(SERVER_TAGS)
    kinds = {m["event"]["kind"] for m in received if m["type"] == "event"}
    # ``ruleset_event`` belongs to rulesets beyond the shipped two: the toy ruleset's test
    # (tests/toy_ruleset) sends it over the wire and validates it against these schemas
    expected = set(EVENT_KINDS) - {"ruleset_event"}
    assert kinds == expected, f"no real event seen of kinds {expected - kinds}"
    assert {m["reason"] for m in received if m["type"] == "snapshot"} == {
        "join", "resume_ahead", "asked", "replay", "rewound"}  # (rewound: after an undo)
    codes = {m["code"] for m in received if m["type"] == "error"}
    assert codes <= {c.value for c in ErrorCode}
    assert {"bad_json", "unknown_type", "invalid_payload", "unauthenticated", "forbidden",
            "bad_dice", "too_large", "unsupported_version", "illegal_action"} <= codes

    for message in rec.sent:
        assert not errors_of(client_v, message), (message, errors_of(client_v, message))
    assert {m["type"] for m in rec.sent} == CLIENT_TYPES

    # the AsyncAPI payloads accept the same messages
    doc = load_asyncapi()
    by_tag = {
        tag: jsonschema.Draft7Validator({
            "components": doc["components"],
            **resolve(doc, doc["components"]["messages"][tag]["payload"]["$ref"]),
        })
        for tag in SERVER_TAGS + CLIENT_TAGS
    }
    for message in received + rec.sent:
        assert not errors_of(by_tag[message["type"]], message), message

    # and the schemas can fail: tampered messages are refused
    welcome = next(m for m in received if m["type"] == "welcome")
    event = next(m for m in received if m["type"] == "event")
    for broken in ({k: v for k, v in welcome.items() if k != "limits"},
                   {**event, "seq": "7"},
                   {**event, "event": {**event["event"], "kind": "teleported"}},
                   {"type": "farewell"}):
        assert errors_of(server_v, broken), broken


@pytest.mark.parametrize(("frame", "why"), [
    ({"type": "ping", "id": "a", "extra": 1}, "unknown field"),
    ({"type": "ping", "id": "x" * 65}, "id too long"),
    ({"type": "ping", "id": ""}, "empty id"),
    ({"type": "hello", "versions": []}, "no versions"),
    ({"type": "create_encounter", "id": "short", "name": "n"}, "create id under 16"),
    ({"type": "act", "id": "a", "combatant": "twilight"}, "no action"),
    ({"type": "submit_roll", "id": "a", "request": "r", "faces": []}, "no faces"),
    ({"type": "issue_integration_token", "id": "a", "scopes": ["admin"]}, "unknown scope"),
    ({"type": "add_combatant", "id": "a", "combatant": {"name": "X", "id": "Bad Id"}},
     "combatant id pattern"),
])
async def test_server_and_client_schema_refuse_the_same_messages(
        server: Server, clients: list[Client], frame: Message, why: str) -> None:
    client_v = validator(docs.CLIENT_SCHEMA)
    assert errors_of(client_v, frame), why
    c = await open_client(ws_url(server), clients)
    await c.hello()
    await c.send_raw(json.dumps(frame))
    error = await next_error(c, 1)
    assert error["code"] == "invalid_payload", (why, error)


# --- the example session in the guide is real -----------------------------------------------


_LINE = re.compile(r"^(?P<who>[a-z]+) (?:(?P<dir>→|←) (?P<json>\{.*\})|opens (?P<path>\S+)|"
                   r"(?P<closes>closes))$")
#: Fields whose values belong to the run, not to the example: times, and the connection's
#: session id (which may repeat once a connection is gone).
_RUN_FIELDS: dict[str, type] = {"ts": int, "created_ts": int, "session": str}


def example_session() -> list[re.Match[str]]:
    """The lines of the example session: the fenced block after ``<!-- example-session -->``."""
    guide = docs.GUIDE.read_text(encoding="utf-8")
    after = guide.split("<!-- example-session -->", 1)
    assert len(after) == 2, "the guide has no <!-- example-session --> marker"
    block = re.search(r"```text\n(.*?)```", after[1], re.DOTALL)
    assert block is not None
    lines = []
    for line in block.group(1).splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        m = _LINE.match(line)
        assert m is not None, f"not a transcript line: {line!r}"
        lines.append(m)
    return lines


def test_example_session_lines_follow_the_schemas() -> None:
    lines = example_session()
    client_v, server_v = validator(docs.CLIENT_SCHEMA), validator(docs.SERVER_SCHEMA)
    sent, received = set(), set()
    for m in lines:
        if m["dir"] == "→":
            message = json.loads(m["json"])
            assert not errors_of(client_v, message), m.group(0)
            sent.add(message["type"])
        elif m["dir"] == "←":
            message = json.loads(m["json"])
            assert not errors_of(server_v, message), m.group(0)
            received.add(message["type"])
            received.update(inner["type"] for inner in message.get("messages", []))
    assert {"hello", "create_encounter", "start_encounter", "submit_roll", "act"} <= sent
    # (``presence`` comes on its own time, about once a second: not in a transcript; a
    # campaign's messages are the campaign guide's, docs/campaigns.md, checked below)
    assert set(SERVER_TAGS) - {"goodbye", "presence", "campaign", "moved"} <= received


def test_the_campaign_guide_s_messages_follow_the_schemas() -> None:
    """The JSON objects of docs/campaigns.md that are whole messages (one per line, or the
    block of the ``campaign`` message) validate against the published schemas."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "campaigns.md").read_text(
        encoding="utf-8")
    client_v = validator(docs.CLIENT_SCHEMA)
    server_v = validator(docs.SERVER_SCHEMA)
    seen = set()
    for line in text.splitlines():
        if line.startswith('{"type": ') and "…" not in line:
            message = json.loads(line)
            v = client_v if message["type"] in CLIENT_TYPES else server_v
            assert not errors_of(v, message), (line, errors_of(v, message))
            seen.add(message["type"])
    assert {"hello", "create_campaign", "recover_campaign"} <= seen, seen


class Bindings:
    """Values shortened with ``…`` in the example: each stands for one real value."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def match(self, expected: Any, actual: Any, where: str) -> None:
        if isinstance(expected, dict):
            assert isinstance(actual, dict), where
            assert set(expected) == set(actual), f"{where}: fields {set(expected) ^ set(actual)}"
            for key in expected:
                if key in _RUN_FIELDS:
                    assert isinstance(actual[key], _RUN_FIELDS[key]), f"{where}.{key}"
                else:
                    self.match(expected[key], actual[key], f"{where}.{key}")
        elif isinstance(expected, list):
            assert isinstance(actual, list) and len(expected) == len(actual), f"{where}: {actual}"
            for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
                self.match(e, a, f"{where}[{i}]")
        elif isinstance(expected, str) and "…" in expected:
            assert isinstance(actual, str), where
            bound = self.values.setdefault(expected, actual)
            assert bound == actual, f"{where}: {expected} was {bound}, now {actual}"
            others = [k for k, v in self.values.items() if v == actual and k != expected]
            assert not others, f"{where}: {expected} and {others} are the same value"
        else:
            assert type(expected) is type(actual) or {type(expected), type(actual)} <= {
                int, float}, f"{where}: {expected!r} != {actual!r}"
            assert expected == actual, f"{where}: {expected!r} != {actual!r}"

    def fill(self, text: str) -> str:
        for short in sorted(self.values, key=len, reverse=True):
            text = text.replace(short, self.values[short])
        assert "…" not in text, f"unbound value in {text!r}"
        return text


async def test_example_session_replays_against_a_real_server(
        server: Server, clients: list[Client], monkeypatch: pytest.MonkeyPatch) -> None:
    # the transcript shows websocket messages as they come (a batch is one line)
    monkeypatch.setattr(Client, "keep_wire", True)
    base = ws_url(server).removesuffix("/ws")
    bindings = Bindings()
    open_: dict[str, Client] = {}
    read: dict[str, int] = {}
    lines = example_session()
    # The example's create_encounter id, replaced by a fresh one: a create id is remembered
    # by the server (a retry returns the same encounter), so each replay needs its own.
    (create_id,) = [json.loads(m["json"])["id"] for m in lines
                    if m["dir"] == "→" and json.loads(m["json"])["type"] == "create_encounter"]
    bindings.values[create_id + "…"] = str(uuid.uuid4())
    for m in lines:
        who, line = m["who"], m.group(0)
        if m["path"]:
            open_[who] = await open_client(base + bindings.fill(m["path"]), clients)
            read[who] = 0
        elif m["closes"]:
            client = open_.pop(who)
            assert read[who] == len(client.wire), f"{who} got more: " \
                f"{client.wire[read[who]:]}"
            await client.close()
        elif m["dir"] == "→":
            text = bindings.fill(m["json"].replace(create_id, create_id + "…"))
            await open_[who].send_raw(json.dumps(json.loads(text)))
        else:
            client = open_[who]
            try:
                actual = await client.wait_for(lambda _: True, timeout=5, start=read[who],
                                               wire=True)
            except TimeoutError:
                pytest.fail(f"no message for: {line}")
            read[who] += 1
            expected = json.loads(m["json"].replace(create_id, create_id + "…"))
            bindings.match(expected, actual, f"{line[:60]}…")
    await asyncio.sleep(0.3)
    for who, client in open_.items():
        assert read[who] == len(client.wire), f"{who} got more: {client.wire[read[who]:]}"


def test_command_messages_have_ids_and_hello_has_none() -> None:
    # The guide and the AsyncAPI document treat every message but hello as a command.
    assert [docs.tag_of(c) for c in CLIENT if not issubclass(c, Command)] == ["hello"]
    doc = load_asyncapi()
    for tag in CLIENT_TAGS:
        has_id = "correlationId" in doc["components"]["messages"][tag]
        assert has_id == (tag != "hello"), tag
