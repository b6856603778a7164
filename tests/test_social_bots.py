"""A social dramatic scene played by bots against a real server and Redis, from the invitation
to the end of the dispute: the GM sets the event of the Canterlot garden party example and who
is invited, the GM bot gives every character a statement and starts the scene, and bots argue
(Dispute, answering the statements that hit them) until the debate is over. Also the server's
words for the social events, the bots' choices from the state, and the bots-only social demo."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
import yaml

from clients.bot import Bot, Policy
from clients.client import Client
from clients.live import Seat
from clients.view import TableView
from encounter.words import summarize
from protocol import events as ev
from server import web
from server.app import Server
from tests.conftest import settings_for, ws_url
from tests.helpers import join, kinds, open_client
from tests.redis_procs import RedisProcess

GARDEN = "dramatic-canterlot-garden-party.yaml"


def events(client: Client, kind: str) -> list[dict[str, Any]]:
    return [m["event"] for m in client.events() if m["event"]["kind"] == kind]


async def test_bots_play_a_social_scene_from_the_invitation_to_the_end_of_the_dispute(
        server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    text = web.example_text(GARDEN)
    setup, statements = web.example_social(yaml.safe_load(text))
    anon = await open_client(url, clients)
    await anon.hello()
    ack = await anon.command("create_encounter", name="Garden party", combatants_yaml=text,
                             options={"dice_seed": 11})
    gm = await join(url, ack["result"]["gm_token"], clients)
    invites = {cid: (await gm.command("issue_invite", combatants=[cid]))["result"]["token"]
               for cid in ("rarity", "twilight")}
    # the GM: who is invited (Fluttershy is not), the situations and the event
    for command, fields in setup:
        await gm.command(command, **fields)
    # bots: the GM's seat (the nobles and Fluttershy; it sizes the statements and starts) and
    # a seat per invited player
    seats = [Seat(url, ack["result"]["gm_token"]).start(),
             *(Seat(url, token).start() for token in invites.values())]
    bot = Bot(seats, pace=0, start=True, end_after=6, social=True, statements=statements)
    try:
        await asyncio.wait_for(bot.run(), 40)
    finally:
        await asyncio.gather(*(s.stop() for s in seats))
    await gm.wait_for(lambda m: m["type"] == "event"
                      and m["event"]["kind"] == "encounter_ended")
    seen = kinds(gm)
    # the invitation and the situation, the event
    invited = {e["combatant"]: e["invitation"] for e in events(gm, "social_situation_set")}
    assert invited["rarity"] is True and invited["fluttershy"] is False
    assert events(gm, "social_event_set")[0]["rating"] == 12
    # a statement for every character, sized by the GM before the scene
    sized = {e["combatant"] for e in events(gm, "argument_changed")
             if e["reason"] == "sized by the GM"}
    assert sized == {"rarity", "twilight", "fluttershy", "blueblood", "jetset", "uppercrust"}
    assert seen.index("argument_changed") < seen.index("scene_started")
    # disputes against Wits, answered; the mental track or an attitude moved; the debate ended
    disputes = [e for e in events(gm, "attack_resolved") if e["action"] == "dispute"]
    assert disputes and all(e["defense"] == "wits" for e in disputes)
    assert "attack" not in {e["action"] for e in events(gm, "attack_resolved")}  # no brawl
    assert events(gm, "statement_hit") and events(gm, "statement_answered")
    assert any(e["damage"] == "mental" for e in events(gm, "damage_dealt"))
    mental = [e for e in events(gm, "vitals_changed") if (e.get("mental") or {}).get("step")]
    assert mental or events(gm, "attitude_changed")
    assert "debate_ended" in seen
    end = events(gm, "encounter_ended")[0]
    assert end["reason"] == "the debate is over"
    # every event of the scene has a line in the log of the GM bot's seat: the server's words
    lines = [line.text for line in seats[0].log]
    assert any(" disputes with " in t and "against Wits Defense" in t for t in lines), lines
    assert any(t.startswith("The debate is over") for t in lines)
    assert any("situation at the event: " in t and "no invitation" in t for t in lines)


def test_the_social_events_in_the_servers_words() -> None:
    """The words the server sends with the social events (the ``summaries`` feature), which
    the terminal client and the bots' logs show as they are."""
    def said(**e: Any) -> str:
        return summarize(msgspec.convert(e, ev.AnyEvent), "dramatic",
                         {"ace": "Ace", "bee": "Bee", "cat": "Cat"}).text

    assert said(kind="argument_changed", argument="arg1", combatant="ace", size="large",
                text="we belong here", reason="sized by the GM") == \
        "Ace's statement “we belong here” is large (sized by the GM)."
    assert said(kind="statement_hit", statement="st1", speaker="cat", target="bee",
                loss=12).startswith("Cat's statement hits Bee for 12 mental fatigue points")
    assert said(kind="statement_answered", statement="st1", target="bee", answer="refuse",
                loss=12) == "Bee refuses the statement: loses 12 mental fatigue points."
    assert said(kind="attitude_changed", holder="bee", toward="cat", attitude="unfriendly",
                reason="R26") == "Bee is now unfriendly toward Cat (R26)."
    assert said(kind="lie_told", liar="ace", targets=["bee", "cat"], size="small", white=True,
                deception_total=None, empathy_total=14, judge="bee", believed=False) == (
        "Ace lies to Bee and Cat (small, a white lie): Deception behind the GM's screen "
        "against Bee's Empathy 14: caught!")
    assert said(kind="blocking_changed", combatant="cat", blocking=True).startswith(
        "Cat blocks")
    assert said(kind="aura_points_changed", combatant="ace", harmony=1, discord=0,
                reason="Aura of Harmony level 1 at the start (R73)").endswith(
        "; Harmony 1, Discord 0.")
    assert said(kind="social_event_set", rating=9, organizer="bee", circle="canterlot",
                parts=[{"name": "the GM's rating", "value": 9, "section": "R43"}],
                encounter=1, last=True) == (
        "Social event: Event Rating 9 (+9 the GM's rating); organised by Bee, circle: "
        "canterlot, encounter 1 (the last).")
    assert said(kind="debate_ended", reason="an attitude reached Unfriendly (R26)") == \
        "The debate is over: an attitude reached Unfriendly (R26)."


def test_the_social_policy_reads_the_state() -> None:
    """The bots choose from the state the server keeps (attitudes, statements, the answers
    waiting) and the legal actions."""
    view = TableView({
        "name": "t", "ruleset": "dramatic", "combatants": [
            {"id": "ace", "name": "Ace", "side": "ponies"},
            {"id": "bee", "name": "Bee", "side": "nobles"},
            {"id": "cat", "name": "Cat", "side": "nobles"}],
        "attitudes": {"bee": {"ace": "friendly"}},
        "arguments": {"arg1": {"owner": "ace", "size": "large", "text": "we belong here",
                               "perilous": False},
                      "arg2": {"owner": "ace", "size": "small", "text": "", "perilous": False}},
        "answers": {"st2": {"speaker": "ace", "target": "bee", "loss": 5},
                    "st3": {"speaker": "ace", "target": "cat", "loss": 5}},
        "blocking": ["cat"],
        "social": {"event": None, "standing": {"ace": {"status": 4, "harmony": 1,
                                                       "discord": 0}}}})
    assert "cat" in view.blocking and view.statements_of("ace")[0][0] == "arg1"
    # Bee answers Ace (friendly toward her) with accept, Cat refuses
    policy = Policy()
    legal = [{"action": "answer_statement", "combatant": "bee", "targets": ["st2"]}]
    move = policy.choose(view, legal)
    assert move is not None and move.fields["args"] == {"statement": "st2", "answer": "accept"}
    legal = [{"action": "answer_statement", "combatant": "cat", "targets": ["st3"]}]
    move = policy.choose(view, legal)
    assert move is not None and move.fields["args"]["answer"] == "refuse"
    # on its turn, Ace disputes an opponent with its largest statement left
    legal = [{"action": "dispute", "combatant": "ace", "targets": ["bee", "cat"]},
             {"action": "attack", "combatant": "ace", "targets": ["bee", "cat"]},
             {"action": "end_turn", "combatant": "ace"}]
    move = Policy(social=True).choose(view, legal)
    assert move is not None and move.fields["action"] == "dispute"
    assert move.fields["args"] == {"target": "bee", "argument": "arg1"}


async def test_a_bots_only_social_demo_argues_until_the_debate_is_over(
        redis_server: RedisProcess, clients: list[Client]) -> None:
    srv = Server(settings_for(redis_server.url, demo=True, demo_rulesets=("social",),
                              demo_wait=0.0, demo_pace=0.0))
    await srv.start()
    try:
        await asyncio.wait_for(srv.demo.ready.wait(), 20)
        enc = srv.demo.encounters[0]
        watcher = await join(ws_url(srv), enc.bot_token, clients)
        if not (watcher.snapshot and watcher.snapshot["state"]["ended"]):
            await watcher.wait_for(lambda m: m["type"] == "event" and (
                m["event"]["kind"] == "encounter_ended"), timeout=30)
        state = srv.rooms.peek(enc.encounter).state  # type: ignore[union-attr]
        assert state.social_event is not None and state.social_event.rating == 12
        assert state.social_situations["fluttershy"].invitation is False
        assert {a.owner for a in state.arguments.values()} >= {"rarity", "blueblood"}
        assert state.end_reason in ("the debate is over", "every statement is spent")
        # a new garden party, waiting for its first visitor
        async with asyncio.timeout(10):
            while srv.demo.scenes < 1:
                await asyncio.sleep(0.1)
        assert srv.demo.encounters[0].encounter != enc.encounter
    finally:
        await srv.stop()
