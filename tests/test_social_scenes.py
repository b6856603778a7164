"""Social dramatic scenes: statements sized by the GM, Dispute and its answers, Conversation,
Blocking, lies and attitudes ("MLP Dramatic Systems", SOCIAL SYSTEMS; rulings R25-R28, R47-R49,
R76, R77). One scenario per rule on the engine's in-process table (``tests/scene.py``; some
also through the real protocol against a real Redis, and what a spectator is shown only
there); the player
characters' dice are given face by face (``players_roll``)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from clients.client import Client
from server.app import Server
from tests.conftest import ws_url
from tests.helpers import open_client
from tests.scene import BOTH_TRANSPORTS, NETWORK_ONLY, Scene, Tables
from tests.test_resolution import last, roll

Make = Callable[..., Awaitable[Scene]]


def pony(cid: str, init: int, **stats: Any) -> dict[str, Any]:
    return {"name": cid.title(), "id": cid, "kind": "pc", "initiative": init,
            "stats": {"cha": 14, "skills": {"persuasion": 5, "deception": 4, "empathy": 2},
                      "fatigue_points": 20, **stats}}


@pytest.fixture
def make(tables: Tables) -> Make:
    async def create(combatants: list[dict[str, Any]], **options: Any) -> Scene:
        return await tables.started(combatants, **options)

    return create


async def sized(scene: Scene, who: str, size: str, text: str = "") -> str:
    ack = await scene.command("size_argument", combatant=who, size=size, text=text)
    return str(ack["result"]["argument"])


async def test_the_gm_sizes_statements_and_a_dispute_needs_one(make: Make) -> None:
    scene = await make([pony("ace", 50), pony("bee", 0)])
    assert "dispute" not in [a["action"] for a in scene.legal]  # no statement yet
    arg = await sized(scene, "ace", "small", "the mill is ours")
    assert scene.state.arguments[arg].size == "small"
    assert "dispute" in [a["action"] for a in scene.legal]
    refused = await scene.refused("ace", "dispute", target="bee", argument="nonsense")
    assert refused["code"] == "invalid_payload"


@BOTH_TRANSPORTS
async def test_a_refused_statement_costs_mental_fatigue_and_attitude(make: Make) -> None:
    scene = await make([pony("ace", 50, cha=30), pony("bee", 0, fatigue_points=40)])
    arg = await sized(scene, "ace", "medium")
    await scene.act("ace", "dispute", target="bee", argument=arg)
    await roll(scene, 10)  # 10 + Persuasion 5 = 15 against Wits 10 (R26, R76)
    attack = last(scene, "attack_resolved")
    assert (attack["defense"], attack["outcome"]) == ("wits", "hit")
    await roll(scene, 3, 4)  # Medium 2d6 = 7 + Charisma 10 = 17
    hit = last(scene, "statement_hit")
    assert (hit["target"], hit["loss"]) == ("bee", 17)
    assert scene.state.arguments[arg].size == "small"  # one size smaller per use (R27)
    # R48: Bee answers; refusing takes the loss; 17 reaches the mental threshold (Will 10)
    await scene.act("bee", "answer_statement", answer="refuse")
    bee = scene.state.vitals["bee"]
    assert (bee.fatigue, bee.mental.step) == (23, 1)  # type: ignore[union-attr]
    assert scene.state.attitudes["bee"]["ace"] == "unfriendly"
    # R26: an attitude at Unfriendly ends the debate
    assert scene.state.debate_over
    refused = await scene.refused("ace", "dispute", target="bee", argument=arg)
    assert refused["code"] == "illegal_action"
    assert await scene.replays()


async def accepted_with_reservation(scene: Scene) -> tuple[str, str]:
    """Ace disputes with a Fine statement (1, no die, + Charisma 10: 11) and Bee accepts it
    with reservation (R48); the argument's id and the statement's."""
    arg = await sized(scene, "ace", "fine")
    await scene.act("ace", "dispute", target="bee", argument=arg)
    await roll(scene, 10)
    await scene.act("bee", "answer_statement", answer="accept_with_reservation")
    return arg, str(last(scene, "statement_answered")["statement"])


async def test_accepting_a_statement_costs_nothing(make: Make) -> None:
    scene = await make([pony("ace", 50, cha=30), pony("bee", 0)])
    arg, _ = await accepted_with_reservation(scene)
    answered = last(scene, "statement_answered")
    assert (answered["loss"], answered["recorded"]) == (0, 11)  # kept for the GM (R48)
    assert scene.state.vitals["bee"].fatigue == 20
    assert scene.state.arguments[arg].size is None  # a Fine statement used is spent


@BOTH_TRANSPORTS
async def test_the_gm_rules_a_reservations_doubt_unfounded_for_half_the_loss(
        make: Make) -> None:
    """STATEMENTS: "then half the fatigue loss is still caused should the doubt turn out to
    have been unfounded" (R48): the GM's ``rule_doubt`` applies half the recorded loss,
    rounded down, as mental fatigue, the attitude unchanged (R77); once ruled, it is
    settled."""
    scene = await make([pony("ace", 50, cha=30), pony("bee", 0)])
    _, statement = await accepted_with_reservation(scene)
    assert (await scene.view())["reservations"] == {
        statement: {"speaker": "ace", "target": "bee", "loss": 11}}
    assert "rule_doubt" in [a["action"] for a in scene.legal]
    assert (await scene.send("rule_doubt", statement="st0", unfounded=True))["code"] == \
        "not_found"
    await scene.do("rule_doubt", statement=statement, unfounded=True)
    ruled = last(scene, "doubt_ruled")
    assert (ruled["target"], ruled["unfounded"], ruled["loss"]) == ("bee", True, 5)
    bee = scene.state.vitals["bee"]
    assert (bee.fatigue, bee.mental.step) == (15, 0)  # type: ignore[union-attr]
    assert "half its loss (R48)" in " ".join(last(scene, "vitals_changed")["notes"])
    assert "ace" not in scene.state.attitudes.get("bee", {})  # unchanged (R77)
    assert (await scene.view())["reservations"] == {}
    again = await scene.send("rule_doubt", statement=statement, unfounded=True)
    assert again["code"] == "not_found"
    assert await scene.replays()


async def test_a_founded_doubt_costs_nothing(make: Make) -> None:
    scene = await make([pony("ace", 50, cha=30), pony("bee", 0)])
    _, statement = await accepted_with_reservation(scene)
    assert await scene.do("rule_doubt", statement=statement, unfounded=False) == [
        "doubt_ruled"]
    assert last(scene, "doubt_ruled")["loss"] == 0
    assert scene.state.vitals["bee"].fatigue == 20 and not scene.state.reservations


async def test_an_unanswered_statement_is_refused_when_the_turn_comes(make: Make) -> None:
    scene = await make([pony("ace", 50), pony("bee", 0)])
    arg = await sized(scene, "ace", "small")
    await scene.act("ace", "dispute", target="bee", argument=arg)
    await roll(scene, 10)
    await roll(scene, 2)
    events = await scene.act("ace", "end_turn")
    assert "statement_answered" in events
    assert last(scene, "statement_answered")["answer"] == "refuse"


async def test_blocking_adds_5_to_wits_and_forbids_arguments(make: Make) -> None:
    scene = await make([pony("ace", 0), pony("bee", 50)])
    theirs = await sized(scene, "bee", "small")
    await scene.act("bee", "block")
    assert "bee" in scene.state.blocking
    await scene.act("bee", "end_turn")
    arg = await sized(scene, "ace", "small")
    await scene.act("ace", "dispute", target="bee", argument=arg)
    await roll(scene, 9)
    assert last(scene, "attack_resolved")["defense_value"] == 15  # Wits 10 + 5 (R49)
    await scene.act("ace", "end_turn")
    assert last(scene, "attack_resolved")["outcome"] == "miss"  # 9 + 5 = 14
    refused = await scene.refused("bee", "dispute", target="ace", argument=theirs)
    assert refused["code"] == "illegal_action"
    await scene.act("bee", "stop_blocking")
    assert scene.state.blocking == []


async def test_a_conversation_shrinks_the_losing_argument(make: Make) -> None:
    scene = await make([pony("ace", 50, cha=30), pony("bee", 0)])
    mine = await sized(scene, "ace", "medium")
    theirs = await sized(scene, "bee", "medium")
    await scene.act("ace", "conversation", target="bee", argument=mine, against=theirs)
    await roll(scene, 10)  # ace hits Bee's Wits
    await roll(scene, 2)  # bee misses Ace's
    await roll(scene, 3, 3)  # ace's damage 6 + 10 = 16: at least Bee's threshold (10)
    # R27: Bee's argument shrinks for losing and again for its use; Ace's for its use
    assert scene.state.arguments[theirs].size == "tiny"
    assert scene.state.arguments[mine].size == "small"
    assert scene.state.vitals["bee"].fatigue == 20  # nobody loses fatigue points


@BOTH_TRANSPORTS
async def test_a_caught_lie_becomes_a_bigger_statement_and_sours_attitudes(make: Make) -> None:
    scene = await make([pony("ace", 50), pony("bee", 0, skills={"empathy": 8})])
    await scene.act("ace", "lie", target="bee", size="small", text="we were never here")
    await roll(scene, 5)  # Deception 5 + 4 = 9
    await roll(scene, 10)  # Empathy 10 + 8 + size (small) 0: caught (R28)
    told = last(scene, "lie_told")
    assert told["believed"] is False
    (statement,) = [a for a in scene.state.arguments.values() if a.owner == "bee"]
    assert statement.size == "medium"  # one size bigger
    assert scene.state.attitudes["bee"]["ace"] == "unfriendly"


async def test_the_gm_sets_attitudes_and_no_one_argues_with_the_unconscious(
        make: Make) -> None:
    scene = await make([pony("ace", 50), pony("bee", 0)])
    await scene.do("set_attitude", holder="bee", toward="ace", attitude="friendly",
                   reason="old friends")
    assert scene.state.attitudes["bee"]["ace"] == "friendly"
    await scene.do("adjust_combatant", combatant="bee", condition="unconscious",
                   physical_step=5, reason="fainted")
    arg = await sized(scene, "ace", "small")
    refused = await scene.refused("ace", "dispute", target="bee", argument=arg)
    assert refused["code"] == "illegal_action"  # R47


# --- social status, events, access and auras ---------------------------------------------------


async def test_the_situation_changes_social_status_and_the_maneuver_difficulty(
        make: Make) -> None:
    scene = await make([pony("ace", 50, social={"reputation": 6}),
                        pony("bee", 0, social={"reputation": 6})])
    await scene.do("set_social_situation", combatant="ace", familiarity="stranger")
    arg = await sized(scene, "ace", "small")
    await scene.act("ace", "dispute", target="bee", argument=arg)
    await roll(scene, 10)
    # Ace: 6 + Cha 2 - 5 (stranger) = 3 against Bee's 8: the target is higher by 5 (R40)
    names = {m["name"]: m["value"] for m in last(scene, "attack_resolved")["modifiers"]}
    assert -4 in names.values(), names


async def test_an_event_rating_is_capped_by_the_organisers_status(make: Make) -> None:
    scene = await make([pony("ace", 50, social={"reputation": 8}), pony("bee", 0)])
    too_high = await scene.send("set_social_event", id="ev1", rating=20, organizer="ace")
    assert too_high["code"] == "illegal_action"  # Ace's status is 8 + 2 = 10 (R25)
    await scene.do("set_social_event", rating=9, organizer="ace", circle="canterlot")
    assert scene.state.social_event is not None and scene.state.social_event.rating == 9


@NETWORK_ONLY
async def test_an_invitation_raises_access_and_a_wide_gap_makes_an_aura(
        make: Make, server: Server, clients: list[Client]) -> None:
    scene = await make([pony("ace", 50, social={"reputation": 2}),
                        pony("bee", 0, social={"reputation": 20})])
    await scene.do("set_social_situation", combatant="ace", invitation=False)
    await scene.do("set_social_situation", combatant="bee", invitation=True)
    await scene.do("set_social_event", rating=12, last=True)
    spectator = await open_client(ws_url(server), clients)
    link = await scene.gm.command("issue_spectator_link")
    await spectator.hello(link["result"]["token"])
    snap = await spectator.wait_for(lambda m: m["type"] == "snapshot")
    ace = snap["state"]["social"]["standing"]["ace"]
    # status 2 + Cha 2 = 4; no invitation -5: access -1; 13 below the Event Rating: Discord
    assert (ace["status"], ace["access"]) == (4, -1)
    assert ace["aura"]["kind"] == "discord" and ace["aura"]["level"] == 2
    # level 2 gives a point at the start and at the end (R73); the event starts now
    assert scene.state.auras["ace"] == (0, 1)
    # Bee: 20 + 2 + 5 (invited) = 27, 15 above: Harmony level 3, every 2 encounters and at
    # the end
    assert "bee" not in scene.state.auras
    events = await scene.do("end_encounter", reason="the party is over")
    assert "aura_points_changed" in events
    assert scene.state.auras["bee"] == (1, 0)
    assert scene.state.auras["ace"] == (0, 1)  # Discord stops at one point (R73)


async def test_the_gm_answers_for_an_npc_out_of_its_turn(make: Make) -> None:
    noble = {**pony("noble", 0), "kind": "npc"}
    scene = await make([pony("ace", 50, cha=30), noble, pony("bee", -10)])
    arg = await sized(scene, "ace", "small")
    await scene.act("ace", "dispute", target="noble", argument=arg)
    await roll(scene, 10)
    await roll(scene, 2)
    answer = [a for a in scene.legal if a["action"] == "answer_statement"]
    assert [(a["combatant"], a["options"]["answer"][0]) for a in answer] == [("noble", "accept")]
    await scene.act("noble", "answer_statement", answer="accept")
    assert last(scene, "statement_answered")["answer"] == "accept"


async def test_a_perilous_lie_caught_may_grow_beyond_huge(make: Make) -> None:
    scene = await make([pony("ace", 50), pony("bee", 0, skills={"empathy": 8}),
                        pony("cub", -10, skills={"empathy": 8})])
    await scene.act("ace", "lie", target="bee", size="huge", text="the dam holds")
    await roll(scene, 1)
    await roll(scene, 10)
    assert [a.size for a in scene.state.arguments.values() if a.owner == "bee"] == ["huge"]
    await scene.act("ace", "end_turn")
    await scene.act("bee", "end_turn")
    await scene.act("cub", "end_turn")
    await scene.act("ace", "lie", target="cub", size="huge", perilous=True)
    await roll(scene, 1)
    await roll(scene, 10)  # R28: one size bigger, beyond Huge when perilous
    assert [a.size for a in scene.state.arguments.values() if a.owner == "cub"] == ["gargantuan"]


async def test_a_low_access_rating_is_an_argument_for_those_above_the_event(
        make: Make) -> None:
    scene = await make([pony("ace", 50, social={"reputation": 20}),
                        pony("bee", 0, social={"reputation": 2})])
    await scene.do("set_social_situation", combatant="bee", invitation=False)
    await scene.do("set_social_event", rating=12, circle="canterlot", challenge_modifier=3)
    assert scene.state.social_event is not None
    assert scene.state.social_event.challenge_rating == 15  # SOCIAL EVENTS
    low = [a for a in scene.legal if a["action"] == "low_access"]
    assert [(a["combatant"], a["targets"]) for a in low] == [("ace", ["bee"])]
    await scene.act("ace", "low_access", target="bee")
    (argument,) = [a for a in scene.state.arguments.values() if a.owner == "ace"]
    # Bee: 2 + 2 - 5 = -1 against 12: 13 below, the Discord row of level 2: a Small argument
    assert argument.size == "small" and "does not belong" in argument.text
    refused = await scene.refused("bee", "low_access", target="ace")
    assert refused["code"] == "illegal_action"


async def test_a_qualifying_event_raises_temporary_status_in_its_circle(make: Make) -> None:
    scene = await make([pony("ace", 50, social={"reputation": 6}),
                        pony("bee", 0, social={"reputation": 9})])
    await scene.do("set_social_event", rating=10, circle="canterlot", last=True)
    events = await scene.do("end_encounter", reason="the party ends")
    assert "status_boost_earned" in events
    boosts = {e["combatant"]: (e["circle"], e["bonus"])
              for e in scene.events("status_boost_earned")}
    # Ace: unmodified 6 + 2 = 8, and 10 >= 8: +1; Bee: 9 + 2 = 11 > 10: the event is beneath
    # it (R25, R70)
    assert boosts == {"ace": ("canterlot", 1)}


async def test_an_unaware_target_loses_its_intelligence_bonus_to_wits(make: Make) -> None:
    """Intelligence Modifier: "If you are flatfooted or unaware of an attack, you lose your
    Intelligence bonus (but not a penalty) to your Wits Defense"; a combatant the GM makes
    unaware of the attacks during the scene (R82) is unaware of a Dispute's too."""
    scene = await make([pony("ace", 50), pony("bee", 0, int=16)])
    arg = await sized(scene, "ace", "small")
    await scene.do("set_awareness", combatant="bee", aware=False)
    await scene.act("ace", "dispute", target="bee", argument=arg)
    await roll(scene, 2)
    assert last(scene, "attack_resolved")["defense_value"] == 10  # Wits 10, not 10 + 3
    await scene.act("ace", "end_turn")
    await scene.act("bee", "end_turn")
    await scene.do("set_awareness", combatant="bee", aware=True)
    other = await sized(scene, "ace", "small")
    await scene.act("ace", "dispute", target="bee", argument=other)
    await roll(scene, 2)
    assert last(scene, "attack_resolved")["defense_value"] == 13  # aware: Wits 10 + 3
