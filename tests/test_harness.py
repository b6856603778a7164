"""The engine's in-process table (``encounter.harness``, docs/harness.md): its documented
example runs, it refuses as the server does, and a scene played on it gives the GM the same
events, legal actions and refusals as the same scene over the real protocol."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from clients.client import Client
from encounter import harness
from encounter.harness import GM, Refused, Table
from server.app import Server
from tests.scene import InProcess, Network, Scene

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted((ROOT / "server" / "examples").glob("*.yaml"))
PARTY = [{"name": "Ace", "id": "ace", "kind": "pc", "initiative": 50},
         {"name": "Bee", "id": "bee", "kind": "pc", "initiative": 25, "aware": False},
         {"name": "Dog", "id": "dog", "initiative": 0},
         {"name": "Eel", "id": "eel", "initiative": 10, "hidden": True}]


def test_the_documented_example_runs() -> None:
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "harness.md").read_text(),
                        re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, "docs/harness.md", "exec"), {})


def test_the_module_docstring_example_runs() -> None:
    doc = harness.__doc__ or ""
    example = doc.split("::\n\n", 1)[1].split("\n\n", 1)[0]
    lines = [line[4:] for line in example.splitlines()]
    assert lines and lines[0].startswith("table = Table(")
    exec(compile("from encounter.harness import Table\n" + "\n".join(lines), "harness", "exec"),
         {})


def test_refused_fails_when_the_command_goes_through() -> None:
    table = Table(PARTY[:3], dice_seed=1)
    table.do("start_encounter")
    with pytest.raises(AssertionError, match="was not refused"):
        table.refused_act("ace", "move")
    assert table.state.turn is not None and not table.state.turn.budget["move"]  # it moved


def test_commands_are_decoded_as_the_server_decodes_them() -> None:
    table = Table(PARTY[:3], dice_seed=1)
    unknown = table.refused("summon_dragon")
    assert unknown.code == "unknown_type" and unknown.reply["id"] == "cmd1"
    extra = table.refused("start_encounter", colour="blue", id="mine")
    assert extra.code == "invalid_payload" and "colour" in extra.message
    assert extra.reply["id"] == "mine"
    assert table.refused("act", combatant="ace", action="move", args=[1]).code == \
        "invalid_payload"
    with pytest.raises(Refused) as err:
        Table([{"name": "Odd", "stats": {"body": "d8", "charm": 3}}], ruleset="action_time")
    assert err.value.code == "invalid_payload" and "charm" in err.value.message
    assert table.state.version == table.created  # nothing got in


def test_credentials_come_from_the_commands_that_issue_them() -> None:
    table = Table(PARTY, dice_seed=2)
    spectator = table.spectator()
    assert spectator.role == "spectator" and not spectator.may_command
    assert table.refused("start_encounter", by=spectator).message == \
        "this credential may only watch"
    player = table.invite("ace")
    assert player.combatants == frozenset({"ace"})
    table.do("start_encounter")
    assert (table.refused_act("dog", "free", by=player)).code == "forbidden"
    assert table.act("ace", "free", note="Hi!", by=player) == ["action_taken"]
    dice_tower = table.integration("roll")
    assert dice_tower.answers_gm_rolls and not dice_tower.is_gm
    table.do("revoke_token", token_id=player.token_id)
    assert table.refused_act("ace", "free", by=player).code == "unauthenticated"
    assert table.replays()


def test_each_viewer_is_shown_what_the_server_would_show_it() -> None:
    table = Table(PARTY, dice_seed=2)
    player, spectator = table.invite("ace"), table.spectator()
    table.do("start_encounter")
    everything = table.messages(GM)
    assert [m["seq"] for m in everything] == list(range(1, table.state.version + 1))
    for viewer in (player, spectator):
        shown = table.messages(viewer)
        assert len(shown) < len(everything) and "eel" not in str(shown)
        assert [m["event"] for m in shown] == harness.wire(table.seen(viewer))
        assert "eel" not in str(table.view(viewer)) and "eel" in str(table.view(GM))
    assert table.legal(spectator) == []
    assert {a.combatant for a in table.legal(player)} == {"ace"}


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.stem for e in EXAMPLES])
def test_every_shipped_example_plays_on_the_table(example: Path) -> None:
    table = Table.from_example(example, dice_seed=7)
    assert table.state.combatants and table.state.name
    table.do("start_encounter")
    for _ in range(3 * len(table.state.combatants)):  # a surprise round, then round 1
        assert table.state.current is not None
        table.act(table.state.current, "end_turn")
        if table.state.round == 2:
            break
    assert table.state.round == 2
    table.do("end_encounter")
    assert table.replays()


def test_physical_dice_are_answered_face_by_face() -> None:
    table = Table(PARTY[:3], players_roll=True, manual_rolls=True)
    table.do("start_encounter")
    assert len(table.state.pending_rolls) == 2  # Bee is unaware: it rolls after the surprise
    faces = {"ace": 1, "dog": 20}
    for request, pending in list(table.state.pending_rolls.items()):
        table.do("submit_roll", request=request, faces=[faces[pending.combatant or ""]])
    assert table.state.order == ["ace", "dog"]  # 1 + 50 against 20 + 0
    table.act("ace", "end_turn")
    table.act("dog", "end_turn")
    assert table.roll(4) == ["dice_rolled", "initiative_set", "round_started",
                             "turn_started"]  # Bee's initiative, after the surprise round
    assert table.replays()


# --- the same scene on both transports --------------------------------------------------------

#: The ids each transport makes up (the server's are random).
MADE_UP = ("id", "request", "effect", "token_id")


def comparable(message: Any) -> Any:
    """``message`` (an event, an ``ack``, an ``error``) without the ids made up for it."""
    if isinstance(message, list):
        return [comparable(m) for m in message]
    if isinstance(message, dict):
        return {k: comparable(v) for k, v in message.items() if k not in MADE_UP}
    return message


async def play(scene: Scene) -> list[Any]:
    """A scene touching the turn flow: surprise, delay, ready and its interrupt, refusals, a
    GM's effect; what the GM was told of it."""
    told: list[Any] = [await scene.do("start_encounter")]
    told.append(await scene.turns_in_round())  # the surprise round: Bee is unaware
    told.append(await scene.refused("bee", "move"))
    told.append(await scene.act("ace", "ready", action="move", trigger="when the eel moves"))
    told.append(await scene.act("ace", "end_turn"))
    told.append(await scene.act("bee", "move"))
    told.append(await scene.act("ace", "trigger_ready"))
    told.append(scene.legal)
    told.append(await scene.act("ace", "move"))
    told.append(await scene.act("bee", "end_turn"))
    told.append(await scene.act("eel", "delay"))
    told.append(await scene.act("eel", "take_delayed_turn"))
    told.append(await scene.send("add_effect", name="Fog", rounds=2))
    told.append(await scene.send("adjudicate", description="a falling beam", target="nobody"))
    told.append(await scene.send("set_hidden", combatant="eel", hidden="maybe"))
    told.append(await scene.turns_in_round())
    told.append(scene.legal)
    told.append(await scene.do("end_encounter"))
    told.append(scene.events())
    assert await scene.replays()
    return comparable(told)


async def test_a_scene_tells_the_gm_the_same_on_both_transports(
        server: Server, clients: list[Client]) -> None:
    local = await play(await InProcess().create(PARTY, dice_seed=11))
    remote = await play(await Network(server, clients).create(PARTY, dice_seed=11))
    assert local[2]["code"] == "not_your_turn"
    assert local[12]["type"] == "ack"
    assert local[13]["code"] == "not_found" and local[14]["code"] == "invalid_payload"
    assert remote == local


def test_an_example_is_read_from_its_text_its_path_or_a_file_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``Table.from_example`` takes an example's YAML text, its file as a ``Path``, or the
    file's name as a string (one line ending in ``.yaml``), and a shipped example by its bare
    name from any working directory; anything that is not a YAML mapping is refused with what
    it takes."""
    example = EXAMPLES[0]
    monkeypatch.chdir(tmp_path)
    names = {Table.from_example(source).state.name
             for source in (example, str(example), example.read_text(encoding="utf-8"),
                            example.name, Path(example.name))}
    assert len(names) == 1 and names != {""}
    with pytest.raises(FileNotFoundError):
        Table.from_example("no-such-example.yaml")
    with pytest.raises(ValueError, match="YAML mapping"):
        Table.from_example("just some words")
