"""A connection given only what it lacks ends every command as one given everything.

The reference clients ask for ``legal_changed`` (legal actions only where they changed),
``legal_recall`` (entries that come back named by reference), ``batch_head`` (what the
messages of a change repeat said once) and ``lean_events`` (events that say only what the view
and the summary do not). For random scenes of both rulesets (random legal actions with the
arguments their lists offer, the dice the server rolls, hidden combatants revealed and hidden
again, deaths, ends of turn) each credential has two connections, one with those features and
one with the features the reference clients asked for before them; after every command both
hold the same state, the same legal actions and the same log lines (kind, words and position
of every event), and so they do after the lean one drops and resumes from its cursor with the
state it held; every frame the lean one gets is valid against the published schema. Against
a real server and Redis, over websockets.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import jsonschema
import orjson
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clients.client import REFERENCE_FEATURES, Client, CommandError
from docgen import docs
from server.app import Server
from tests.conftest import ws_url

#: What the reference clients asked for before 1.11: everything, whole.
WHOLE = ["batch", "legal_delta", "cursor", "view", "summaries"]
LEAN = list(REFERENCE_FEATURES)
EXAMPLES = Path(__file__).resolve().parent.parent / "server" / "examples"
#: The published schema of what the server sends: a lean frame is held to it as any other.
SERVER = jsonschema.Draft202012Validator(orjson.loads((docs.OUT / docs.SERVER_SCHEMA)
                                                      .read_bytes()))
#: What the scenes above did (the first word of each step, ``resume`` for each resume).
SEEN: set[str] = set()


class Pair:
    """Two connections of one credential: ``lean`` given only what it lacks, ``whole`` given
    everything; ``lines``: the log lines of the lean one's earlier connections (resumes)."""

    def __init__(self, token: str, lean: Client, whole: Client) -> None:
        self.token, self.lean, self.whole = token, lean, whole
        self.lines: list[tuple[str, str, str]] = []
        self.resumes = 0
        self.checked = 0  # the lean connection's frames checked against the schema

    @staticmethod
    def log(client: Client) -> list[tuple[str, str, str]]:
        return [(m["event"]["kind"], m["summary"]["text"], m["cursor"])
                for m in client.messages if m["type"] == "event"]

    async def settle(self) -> None:
        for c in (self.lean, self.whole):
            await c.command("ping")  # all that a command caused arrived before this ack

    def check(self, where: str) -> None:
        lean, whole = self.lean, self.whole
        for frame in lean.wire[self.checked:]:
            errors = [e.message for e in SERVER.iter_errors(frame)]
            assert not errors, (where, frame, errors[:3])
        self.checked = len(lean.wire)
        assert lean.view_mismatches == 0 and lean.delta_mismatches == 0, where
        assert lean.state == whole.state, where
        assert lean.legal == whole.legal, where
        assert self.lines + self.log(lean) == self.log(whole), where

    async def resume(self, url: str) -> None:
        """Drop the lean connection and resume from its cursor with the state it held."""
        old = self.lean
        self.lines += self.log(old)
        await old.close()
        back = await Client.open(url)
        back.keep_wire = True
        self.checked = 0
        back.state = old.state
        await back.hello(self.token, cursor=old.last_cursor, features=LEAN)
        self.lean = back
        self.resumes += 1


async def pair(url: str, token: str) -> Pair:
    lean, whole = await Client.open(url), await Client.open(url)
    lean.keep_wire = True
    await lean.hello(token, features=LEAN)
    await whole.hello(token, features=WHOLE)
    return Pair(token, lean, whole)


def scene(ruleset: str) -> dict[str, Any]:
    """The shipped ponies-vs-dogs scene of ``ruleset``, without its map, one Diamond Dog
    hidden."""
    data = yaml.safe_load((EXAMPLES / f"{ruleset.replace('_', '-')}-ponies-vs-diamond-dogs.yaml")
                          .read_text(encoding="utf-8"))
    combatants = [{k: v for k, v in c.items() if k != "position"}  # (no map: all in reach)
                  for c in data["combatants"]]
    npcs = [c for c in combatants if c.get("kind") == "npc"]
    npcs[-1]["hidden"] = True
    return {"name": data["name"], "ruleset": ruleset, "combatants": combatants}


async def step(gm: Client, rng: random.Random, npcs: list[str], pcs: list[str]) -> str:
    """One random command of the GM's: a roll the server makes, a reveal or a hiding, a
    death, an action its legal actions offer, or an end of turn. What it did, for reports."""
    rolls = [a for a in gm.legal if a["action"] == "server_roll"]
    if rolls:
        await gm.command("server_roll", request=rolls[0]["targets"][0])
        return "server_roll"
    roll = rng.random()
    if roll < 0.1:
        who = rng.choice(npcs)
        hidden = not next(c["hidden"] for c in (gm.state or {})["combatants"] if c["id"] == who)
        await gm.command("set_hidden", combatant=who, hidden=hidden)
        return f"{'hide' if hidden else 'reveal'} {who}"
    if roll < 0.14:
        who = rng.choice(npcs + pcs)
        await gm.command("adjust_combatant", combatant=who, reason="the dice were cruel",
                         condition="dead")
        return f"dead {who}"
    acts = [a for a in gm.legal if a.get("combatant") is not None
            and not str(a.get("args_schema", "")).startswith("command.")]
    if not acts or roll < 0.4:
        ends = [a for a in gm.legal if a["action"] == "end_turn"]
        if not ends:
            return "nothing"
        await gm.command("act", combatant=ends[0]["combatant"], action="end_turn")
        return "end_turn"
    a = rng.choice(acts)
    args: dict[str, Any] = {}
    if a.get("targets"):
        args["target"] = rng.choice(a["targets"])
    for option, values in (a.get("options") or {}).items():
        if values:
            args[option] = rng.choice(values)
    await gm.command("act", combatant=a["combatant"], action=a["action"], args=args)
    return f"{a['action']} {args}"


@pytest.mark.parametrize("ruleset", ["dramatic", "action_time"])
@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(1, 10_000))
async def test_a_connection_given_only_what_it_lacks_ends_every_command_as_a_whole_one(
        server: Server, ruleset: str, seed: int) -> None:
    url = ws_url(server)
    rng = random.Random(seed)
    opened: list[Client] = []
    try:
        creator = await Client.open(url)
        opened.append(creator)
        await creator.hello()
        made = await creator.command("create_encounter", options={"dice_seed": seed},
                                     **scene(ruleset))
        gm_token = made["result"]["gm_token"]
        gm = await Client.open(url)
        opened.append(gm)
        await gm.hello(gm_token, features=WHOLE)
        state = gm.state
        assert state is not None
        pcs = [c["id"] for c in state["combatants"] if c["kind"] == "pc"]
        npcs = [c["id"] for c in state["combatants"] if c["kind"] == "npc"]
        invite = await gm.command("issue_invite", combatants=[pcs[0]])
        link = await gm.command("issue_spectator_link")
        pairs = [await pair(url, gm_token), await pair(url, invite["result"]["token"]),
                 await pair(url, link["result"]["token"])]
        await gm.command("start_encounter")
        did = ["start_encounter"]
        for n in range(30):
            for p in pairs:
                await p.settle()
                p.check(f"{ruleset} seed {seed}, after {did[-3:]}")
                if rng.random() < 0.08:
                    await p.resume(url)
                    opened.append(p.lean)
                    await p.settle()
                    p.check(f"{ruleset} seed {seed}, resumed after {did[-3:]}")
            try:
                did.append(await step(gm, rng, npcs, pcs))
            except CommandError as refused:  # refused: nothing changed
                did.append(f"refused {refused}")
            await gm.command("ping")
            if n == 0:
                opened += [c for p in pairs for c in (p.lean, p.whole)]
        for p in pairs:
            await p.settle()
            p.check(f"{ruleset} seed {seed}, at the end, after {did[-3:]}")
        SEEN.update(d.split()[0] for d in did)
        SEEN.update(["resume"] * sum(p.resumes for p in pairs))
    finally:
        for c in opened:
            await c.close()


def test_the_scenes_above_revealed_hid_killed_and_resumed() -> None:
    """Run after the property (pytest runs a file's tests in order): the random scenes
    revealed and hid combatants, killed some, and resumed lean connections."""
    if not SEEN:
        pytest.skip("run with the property above")
    assert {"reveal", "hide", "dead", "resume", "end_turn"} <= SEEN, SEEN
