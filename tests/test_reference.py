"""The reference generated from the declarations (``docs/actions.md``, ``docs/stat-blocks.md``,
the schemas of ``docs/protocol/``): the shipped examples and the reference's own examples
validate against the published schemas and are what the server accepts; no published
description sends the reader to source code; a value outside a few allowed lists them; every
``legal_actions`` entry names a schema the server serves; the physical-dice guide names every
roll purpose; and the act checker of the suite (``tests/act_schemas.py``) catches an act the
schema refuses."""

from __future__ import annotations

import ast
import asyncio
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import orjson
import pytest
import yaml

from clients.client import Client, CommandError
from docgen import docs
from docgen import reference as ref
from encounter.harness import Refused, Table
from encounter.registry import catalog, declaration, names
from encounter.schemas import args_schemas
from protocol.reference import inner
from rules.action_time.sheet import SheetError as AtSheetError
from rules.action_time.sheet import parse_sheet as parse_at_sheet
from rules.sheet import SheetError, parse_sheet
from server import web
from server.app import Server
from tests import act_schemas
from tests.conftest import ROOT, ws_url
from tests.helpers import open_client
from tests.scene import NetScene, Network
from tests.test_clients import http_get

PUBLISHED = ROOT / "docs" / "protocol"
EXAMPLES = sorted((ROOT / "server" / "examples").glob("*.yaml"))


def published(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((PUBLISHED / name).read_text(encoding="utf-8"))
    return data


def validator(name: str) -> jsonschema.Draft202012Validator:
    schema = published(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def problems(v: jsonschema.Draft202012Validator, data: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in v.iter_errors(data)]


# --- the examples -----------------------------------------------------------------------------


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_every_shipped_example_validates_against_the_published_schemas(path: Path) -> None:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    ruleset = data.get("ruleset", "dramatic")
    assert not problems(validator(f"encounter-file.{ruleset}.schema.json"), data)
    blocks = validator(f"stat-block.{ruleset}.schema.json")
    for block in data["combatants"]:
        assert not problems(blocks, block), block["name"]
    if data.get("options"):
        assert not problems(validator(f"options.{ruleset}.schema.json"), data["options"])
    built = web.example_map(data)
    if built is not None:
        assert not problems(validator(docs.BATTLE_MAP), json.loads(json.dumps(built)))
    # and nothing in it sends the reader to source code
    assert ".py" not in path.read_text(encoding="utf-8")


async def test_every_shipped_example_makes_an_encounter(server: Server,
                                                        clients: list[Client]) -> None:
    anon = await open_client(ws_url(server), clients)
    await anon.hello()
    for path in EXAMPLES:
        text = path.read_text(encoding="utf-8")
        data = yaml.safe_load(text)
        ack = await anon.command("create_encounter", id=f"example-{path.stem}-{id(text)}",
                                 name=data["name"], ruleset=data["ruleset"],
                                 options=data.get("options") or {},
                                 map=web.example_map(data), combatants_yaml=text)
        assert ack["result"]["encounter"], path.name


@pytest.mark.parametrize("ruleset", names())
def test_the_reference_examples_validate_and_the_server_reads_them(ruleset: str) -> None:
    block = declaration(ruleset).example_stat_block
    assert block is not None
    assert not problems(validator(docs.stat_block_name(ruleset)), block)
    example = declaration(ruleset).example_encounter
    if example is not None:
        assert not problems(validator(f"encounter-file.{ruleset}.schema.json"), example)
    declaration(ruleset).rules.validate_stats(block["stats"])
    assert not problems(validator(docs.BATTLE_MAP), ref.EXAMPLE_MAP)
    text = (ROOT / "docs" / "stat-blocks.md").read_text(encoding="utf-8")
    for example in re.findall(r"```yaml\n(.*?)```", text, re.DOTALL):
        data = yaml.safe_load(example)
        if isinstance(data, dict) and "combatants" in data:
            assert not problems(validator("encounter-file.dramatic.schema.json"), data)
            built = web.example_map(data)
            assert built is not None
            assert not problems(validator(docs.BATTLE_MAP), json.loads(json.dumps(built)))


def test_the_reference_examples_of_actions_validate() -> None:
    text = (ROOT / "docs" / "actions.md").read_text(encoding="utf-8")
    sections = text.split("\n## ")
    seen = 0
    for ruleset, title in (("dramatic", "MLP Dramatic Systems"), ("action_time", "Action Time")):
        (section,) = [s for s in sections if s.startswith(title)]
        v = validator(docs.actions_schema_name(ruleset))
        for raw in re.findall(r"```json\n(.*?)\n```", section):
            command = json.loads(raw)
            assert command["type"] == "act"
            assert not problems(v, {"action": command["action"],
                                    "args": command.get("args", {})}), raw
            seen += 1
    assert seen == sum(len(catalog(r).names()) for r in names())


def test_the_reference_examples_of_actions_are_accepted_where_they_are_offered() -> None:
    """Each example of ``docs/actions.md`` whose action the shipped example offers `twilight`
    at the start of her first turn is accepted there (with the brute next to her on the
    battle map, for the actions in reach): an example is what a reader sends."""
    text = (ROOT / "docs" / "actions.md").read_text(encoding="utf-8")
    sections = text.split("\n## ")
    refused, tried = [], 0
    for ruleset, title in (("dramatic", "MLP Dramatic Systems"), ("action_time", "Action Time")):
        (section,) = [s for s in sections if s.startswith(title)]
        (example,) = [p for p in EXAMPLES if p.name.endswith("ponies-vs-diamond-dogs.yaml")
                      and p.name.startswith(ruleset.replace("_", "-"))]
        for raw in re.findall(r"```json\n(.*?)\n```", section):
            command = json.loads(raw)
            table = Table.from_example(example, dice_seed=7)
            if table.state.battle_map is not None:
                table.do("place_combatant", combatant=docs.TARGET, at=[0, 3])
            table.do("start_encounter")
            while table.state.current != docs.ACTOR:
                table.act(table.state.current, "end_turn")
            if not any(a.action == command["action"] and a.combatant == docs.ACTOR
                       for a in table.legal()):
                continue
            tried += 1
            try:
                table.act(command["combatant"], command["action"], **command.get("args", {}))
            except Refused as refusal:
                refused.append(f"{ruleset}: {raw}: {refusal}")
    assert tried > 30
    assert not refused, "\n".join(refused)


# --- what the published schemas say -------------------------------------------------------------


def descriptions(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [v for k, v in node.items() if k in ("description", "$comment")
                 and isinstance(v, str)]
        return found + [d for v in node.values() for d in descriptions(v)]
    if isinstance(node, list):
        return [d for v in node for d in descriptions(v)]
    return []


#: A source file, a docstring, or a package folder (``docs/protocol/`` and the data of
#: ``server/examples/`` are no source code).
SOURCE = re.compile(r"\.py\b|docstring|(?<![\w/])(rules|encounter|protocol|clients|"
                    r"server(?!/examples))/")


def test_no_published_description_sends_the_reader_to_source_code() -> None:
    found = []
    for path in sorted(PUBLISHED.iterdir()):
        text = path.read_text(encoding="utf-8")
        data = yaml.safe_load(text) if path.suffix == ".yaml" else json.loads(text)
        found += [f"{path.name}: {d[:120]}" for d in descriptions(data) if SOURCE.search(d)]
    for path in (ROOT / "docs" / "actions.md", ROOT / "docs" / "stat-blocks.md"):
        found += [f"{path.name}: {line[:120]}" for line in path.read_text().splitlines()
                  if SOURCE.search(line)]
    assert not found, "\n".join(found)


DRAMATIC_ENUMS = {
    "size": {"size": "big"},
    "nature": {"nature": "rock"},
    "armor_type": {"armor_type": "plate"},
    "garment": {"garment": "gown"},
    "weapons[0].kind": {"weapons": [{"name": "x", "damage": "1d4", "kind": "laser"}]},
    "damage_reduction[0].source": {"damage_reduction": [{"value": 1, "source": "fire"}]},
}
AT_ENUMS = {
    "bandages": {"bandages": "lost"},
    "weapons[0].kind": {"weapons": [{"name": "x", "damage": "d4", "kind": "laser"}]},
    "weapons[0].reload": {"weapons": [{"name": "x", "damage": "d4", "reload": "slow"}]},
    "spells[0].cast": {"spells": [{"name": "x", "cast": "swift"}]},
}


def allowed_in(schema: dict[str, Any], path: str, defs: dict[str, Any]) -> list[Any]:
    """The ``enum`` of the field at ``path`` of a published stats schema."""
    node = schema
    for name, index in re.findall(r"([a-z_]+)(\[\d+\])?", path):
        node = inner(node["properties"][name], defs)
        if index:
            node = inner(node["items"], defs)
    return list(node["enum"])


@pytest.mark.parametrize("path", DRAMATIC_ENUMS)
def test_a_bad_value_of_a_dramatic_enum_lists_the_allowed_ones(path: str) -> None:
    with pytest.raises(SheetError) as err:
        parse_sheet(DRAMATIC_ENUMS[path])
    schema = published(docs.stat_block_name("dramatic"))
    allowed = allowed_in(schema["properties"]["stats"], path, schema["$defs"])
    assert f"stats.{path}: Invalid enum value" in str(err.value)
    listed = str(err.value).split("(allowed: ", 1)[1].rstrip(")").split(", ")
    assert sorted(listed) == sorted(allowed)


@pytest.mark.parametrize("path", AT_ENUMS)
def test_a_bad_value_of_an_action_time_enum_lists_the_allowed_ones(path: str) -> None:
    with pytest.raises(AtSheetError) as err:
        parse_at_sheet({"body": "d6", **AT_ENUMS[path]})
    schema = published(docs.stat_block_name("action_time"))
    allowed = allowed_in(schema["properties"]["stats"], path, schema.get("$defs", {}))
    listed = str(err.value).split("(allowed: ", 1)[1].rstrip(")").split(", ")
    assert sorted(listed) == sorted(allowed)


async def test_a_bad_option_or_argument_over_the_protocol_lists_the_allowed_values(
        server: Server, clients: list[Client]) -> None:
    anon = await open_client(ws_url(server), clients)
    await anon.hello()
    with pytest.raises(CommandError) as err:
        await anon.command("create_encounter", id="bad-option-0000000000", name="x",
                           options={"white_lie_statement": "bigger"})
    assert err.value.code == "invalid_payload"
    assert "(allowed: same, smaller)" in err.value.reply["message"]
    with pytest.raises(CommandError) as err:
        await anon.command("create_encounter", id="bad-block-00000000000", name="x",
                           combatants=[{"name": "Dog", "stats": {"size": "enormous"}}])
    assert "allowed: fine, diminutive, tiny" in err.value.reply["message"]
    scene = await Network(server, clients).create([
        {"name": "Twilight", "id": "twilight", "kind": "pc",
         "stats": {"body": "d20", "health": 10, "defense": 4}},
        {"name": "Brute", "id": "brute", "stats": {"body": "d4", "health": 10, "defense": 4}},
    ], ruleset="action_time", dice_seed=7)
    await scene.do("start_encounter")
    if scene.state.current != "twilight":
        await scene.act("brute", "end_turn")
    reply = await scene.refused("twilight", "guard_up", amount=3)
    assert reply["code"] == "invalid_payload" and reply["details"]["allowed"] == [1, 2]
    # the suite's checker agrees: the schema refuses it, and so did the server
    assert not act_schemas.problems


# --- args_schema ------------------------------------------------------------------------------


def test_the_args_schemas_cover_every_action_and_are_valid_schemas() -> None:
    document = published(docs.ARGS_SCHEMAS)
    served = args_schemas()
    assert {k: v for k, v in document.items() if k != "$comment"} == \
        json.loads(json.dumps(served, sort_keys=True))
    for ruleset in names():
        for name in catalog(ruleset).names():
            assert f"{ruleset}.{name}" in served
    for schema in served.values():
        jsonschema.Draft202012Validator.check_schema(schema)


async def test_every_legal_action_names_a_schema_the_server_serves(
        server: Server, clients: list[Client]) -> None:
    port = server.settings.port
    seen: set[str] = set()
    for combatants, ruleset in (
        ([{"name": "Twilight", "id": "twilight", "kind": "pc", "initiative": 5},
          {"name": "Dog", "id": "dog"}], "dramatic"),
        ([{"name": "Twilight", "id": "twilight", "kind": "pc",
           "stats": {"body": "d6", "health": 10, "defense": 4}},
          {"name": "Brute", "id": "brute", "stats": {"body": "d8", "health": 10,
                                                     "defense": 4}}], "action_time"),
    ):
        scene = await Network(server, clients).create(combatants, ruleset=ruleset,
                                                      players_roll=True)
        assert isinstance(scene, NetScene)
        legal = list(scene.gm.legal)
        await scene.do("start_encounter")
        await scene.gm.wait_for(lambda m: m["type"] == "legal_actions"
                                and any(e["action"] == "submit_roll" for e in m["actions"]))
        for request, pending in list(scene.state.pending_rolls.items()):
            await scene.do("submit_roll", request=request, faces=[min(pending.dice[0], 10)])
        await scene.gm.wait_for(lambda m: m["type"] == "legal_actions"
                                and any(e["action"] == "end_turn" for e in m["actions"]))
        legal += scene.gm.legal
        for m in scene.gm.messages:
            if m["type"] == "legal_actions":
                legal += m["actions"]
        for entry in legal:
            sid = entry["args_schema"]
            if entry.get("combatant") is not None and entry["action"] not in (
                    "submit_roll", "server_roll"):
                assert sid == f"{ruleset}.{entry['action']}"
            seen.add(sid)
    assert {"command.start_encounter", "command.submit_roll", "command.server_roll",
            "dramatic.end_turn", "action_time.end_turn", "command.adjudicate"} <= seen
    document = published(docs.ARGS_SCHEMAS)
    for sid in sorted(seen):
        status, kind, body = await asyncio.to_thread(http_get, port, f"/schemas/args/{sid}.json")
        assert status == 200 and kind == "application/json", sid
        assert orjson.loads(body) == document[sid]
    status, _, body = await asyncio.to_thread(http_get, port, "/schemas/args.json")
    assert status == 200 and set(orjson.loads(body)) == set(document) - {"$comment"}
    status, _, _ = await asyncio.to_thread(http_get, port, "/schemas/args/nothing.json")
    assert status == 404


# --- the act checker --------------------------------------------------------------------------


def test_the_act_checker_fails_an_act_the_schema_refuses_that_was_accepted() -> None:
    wrong = {"type": "act", "action": "guard_up", "args": {"amount": 3}}
    problem = act_schemas.check("action_time", wrong, {"type": "ack", "id": "1"})
    assert problem is not None and "refuses it" in problem
    unknown = {"type": "act", "action": "attack", "args": {"bonus": 3, "target": "dog"}}
    assert act_schemas.check("dramatic", unknown, {"type": "ack", "id": "1"}) is not None
    refused = {"type": "error", "code": "invalid_payload", "details": {"field": "args.amount"}}
    assert act_schemas.check("action_time", wrong, refused) is None
    fine = {"type": "act", "action": "guard_up", "args": {"amount": 2}}
    assert act_schemas.check("action_time", fine, {"type": "ack"}) is None
    assert act_schemas.check("action_time", fine, refused) is not None


# --- the physical dice ------------------------------------------------------------------------


_ROLLERS = {"request_roll": 1, "server_roll": 1, "_roll": 2, "roll_stage": 2,
            "_DecisionRoller": 1}


def roll_purposes() -> set[str]:
    """The purposes the engine and the rulesets roll dice for (literal strings, and f-strings
    as patterns with ``*`` for what they fill in)."""
    found: set[str] = set()
    for path in sorted([*(ROOT / "encounter").glob("*.py"), *(ROOT / "rulesets").glob("*/*.py")]):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            at = _ROLLERS.get(name)
            if at is None or len(node.args) <= at:
                continue
            arg = node.args[at]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                found.add(arg.value)
            elif isinstance(arg, ast.JoinedStr):
                found.add("".join(v.value if isinstance(v, ast.Constant) else "*"
                                  for v in arg.values))
    return found


def test_the_physical_dice_guide_names_every_roll_purpose() -> None:
    guide = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = guide.split("## Physical dice", 1)[1].split("\n## ", 1)[0]
    named = set(re.findall(r"`([a-z_ ()-]+)`", section))
    purposes = roll_purposes()
    assert {"initiative", "join", "attack", "damage", "heal", "perception"} <= purposes
    missing = sorted(p for p in purposes
                     if not any(re.fullmatch(re.escape(p).replace(r"\*", ".+"), n)
                                for n in named))
    assert not missing, f"roll purposes the physical-dice guide does not name: {missing}"


def test_every_encounter_option_is_read_by_a_ruleset() -> None:
    """Each ruleset's declaration names the ``create_encounter.options`` it reads (the option
    reference of each ruleset lists those); every option is some ruleset's, and a declaration
    names only options that exist."""
    from encounter.registry import declaration, names
    from protocol.model import EncounterOptions

    fields = set(EncounterOptions.__struct_fields__) - {"ruleset_options"}
    read = {name: set(declaration(name).encounter_options) for name in names()}
    for name, options in read.items():
        assert options <= fields, (name, options - fields)
    assert set().union(*read.values()) == fields


# --- what the rulings and the references say of the code --------------------------------------


RULINGS = (ROOT / "docs" / "rulings.md").read_text(encoding="utf-8")


def ruling(number: int) -> str:
    """The text of ruling R<number> in docs/rulings.md."""
    return RULINGS.split(f"\n### R{number} ", 1)[1].split("\n### ", 1)[0]


def test_r60_names_every_field_of_an_action_time_stat_block() -> None:
    """R60: "Any other field is refused with an error naming it" — so every field the stat
    block takes (talents and spells' modifiers included, R93, R95) is in R60's list."""
    from rules.action_time.sheet import Sheet, Spell, Talent, Weapon

    text = ruling(60).split("- **Ruling.**", 1)[1].split("- **Why.**", 1)[0]
    for struct in (Sheet, Weapon, Spell, Talent):
        for name in set(struct.__struct_fields__) - {"abilities"}:
            assert f"`{name}`" in text, f"R60 does not name {struct.__name__}.{name}"
    with pytest.raises(AtSheetError, match="armor"):  # and a field outside it is refused
        parse_at_sheet({"body": "d8", "armor": 3})


def test_the_rulings_say_which_command_sets_awareness_and_attitudes() -> None:
    """`adjust_combatant` sets neither awareness nor attitudes (`set_awareness`,
    `call_perception`, `set_attitude` do): the rulings' lists of what it sets say so."""
    from protocol.messages import CLIENT_TYPES, AdjustCombatant

    assert {"set_awareness", "call_perception", "set_attitude"} <= CLIENT_TYPES
    assert not {"aware", "awareness", "attitude"} & set(AdjustCombatant.__struct_fields__)
    lists = re.findall(r"`adjust_combatant`[^()]*?by\s+hand\s*\(([^)]*)\)", RULINGS)
    assert len(lists) >= 2  # the Conventions and the names the rulings use
    for listed in lists:
        assert not re.search(r"awareness|attitude", listed), listed


def reference_row(path: Path, name: str, containing: str = "") -> str:
    """The row of a reference table for ``name`` (the first with ``containing``)."""
    return next(line for line in path.read_text(encoding="utf-8").splitlines()
                if line.startswith(f"| `{name}` |") and containing in line)


def test_the_stat_block_reference_says_when_perception_is_rolled() -> None:
    """`call_perception` rolls the stat block's `perception` before the scene (R42) and during
    it (R82), and the reference says both."""
    row = reference_row(ROOT / "docs" / "stat-blocks.md", "perception")
    assert "`call_perception`" in row and "before the scene" in row and "during it" in row


def test_the_add_combatant_summary_says_what_each_ruleset_does_with_a_newcomer() -> None:
    """JOINING A DRAMATIC SCENE (R43) and Action Time's newcomers (R32): the summary of
    `add_combatant` in the protocol's reference names both, not Dramatic's words alone."""
    row = reference_row(ROOT / "docs" / "protocol.md", "add_combatant", "Add a combatant")
    for said in ("MLP Dramatic Systems", "R43", "Action Time", "R32"):
        assert said in row, said
