"""The ``summaries`` feature: every event a connection that asked for it receives carries the
event in words, made by the declaration that owns the event from the event as that viewer
receives it (``encounter.words``).

Every declared kind has words (the engine's, both rulesets', the toy ruleset's: walked from the
declarations, so a new kind without words fails here); the words of typical events, exactly;
over real websockets, summaries live, on resuming and in ``history`` (the same ones), none
without the feature, and a hidden attacker's hit as a player reads it. The property that no
summary a player or spectator receives names a hidden combatant or shows a number behind the
GM's screen runs over random scenes in ``tests/test_redaction.py``.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import types
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

from clients.client import FEATURES, Client
from docgen import docs
from encounter import registry
from encounter.words import summarize, unworded
from protocol import events as ev
from rules.action_time.effects import Effect
from rules.dice import Die, Roll
from rules.modifiers import Modifier
from server.app import Server
from tests.conftest import ws_url
from tests.helpers import caught_up, create_table, join, play_turns
from tests.scene import NetScene, Network
from tests.test_protocol_docs import errors_of, validator
from tests.test_redaction import AMBUSH, answer_gm_dice, invite, spectator
from tests.toy_ruleset import NAME as TOY

SUMMARIES = [*FEATURES, "summaries"]
NAMES = {"twilight": "Twilight Sparkle", "dog": "Diamond Dog", "stalker": "Shadowy Stalker",
         "applejack": "Applejack"}


@pytest.fixture
def toy() -> Iterator[None]:
    registry.register(TOY, "tests.toy_ruleset")
    yield
    registry.unregister(TOY)


# --- every declared kind has words ------------------------------------------------------------


def test_every_declared_event_kind_has_words(toy: None) -> None:
    """The engine's kinds (those it folds), each ruleset's (its ``folds`` and ``events``),
    the toy ruleset's ``kindled`` among them: none without words."""
    assert set(registry.names()) >= {"dramatic", "action_time", TOY}
    for name in registry.names():
        assert unworded(name) == [], name


def test_a_declared_event_without_words_is_found(toy: None) -> None:
    """A ruleset that declares an event (a fold of a ``ruleset_event``) and no words for it is
    named by the check the test above makes."""
    base = registry.declaration(TOY)
    mute = dataclasses.replace(base, name="mute", events={**base.events, "sparked": _nothing})
    module = types.ModuleType("tests.mute_ruleset")
    module.RULESET = mute  # type: ignore[attr-defined]
    sys.modules[module.__name__] = module
    registry.register("mute", module.__name__)
    try:
        assert unworded("mute") == ["ruleset_event sparked"]
        wordless = dataclasses.replace(base, name="mute", words={})
        module.RULESET = wordless  # type: ignore[attr-defined]
        registry.register("mute", module.__name__)
        assert unworded("mute") == [f"ruleset_event {name}" for name in base.events]
        assert "ruleset_event kindled" in unworded("mute")
    finally:
        registry.unregister("mute")
        del sys.modules[module.__name__]


def _nothing(e: ev.RulesetEvent, s: Any) -> None:
    return None


# --- the words of typical events --------------------------------------------------------------


def test_a_dramatic_attack_itemises_its_modifiers_against_the_defense() -> None:
    attack = ev.AttackResolved(
        round=1, attacker="twilight", target="dog", action="attack", weapon="hoof",
        natural=14, modifiers=[Modifier("Melee skill", 5, "ATTACK ROLL"),
                               Modifier("flanking", 2, "FLANKING")],
        total=21, defense_value=15,
        defense_parts=[Modifier("base", 10, "REFLEX DEFENSE"), Modifier("Dexterity", 3, "x"),
                       Modifier("size", 0, "x"), Modifier("level", 2, "x")],
        outcome="hit")
    s = summarize(attack, "dramatic", NAMES)
    assert s.text == ("Twilight Sparkle attacks Diamond Dog with hoof: d20 14 +5 Melee skill "
                      "+2 flanking = 21 against Reflex Defense 15 (base 10, Dexterity 3, "
                      "level 2): hit.")
    assert [(p.label, p.value) for p in s.parts] == [
        ("d20", 14), ("Melee skill", 5), ("flanking", 2), ("total", 21),
        ("Reflex Defense", 15)]


def test_an_npcs_attack_behind_the_screen_shows_its_modifiers_not_its_numbers() -> None:
    """As a player receives it (``roll_secret``, ``defense_secret``: no numbers)."""
    attack = ev.AttackResolved(
        round=2, attacker="dog", target="twilight", action="attack", weapon="claws",
        natural=None, modifiers=[Modifier("Melee skill", 4, "ATTACK ROLL")], total=None,
        defense_value=None, defense_parts=None, outcome="miss", roll_secret=True,
        defense_secret=True)
    s = summarize(attack, "dramatic", NAMES)
    assert s.text == ("Diamond Dog attacks Twilight Sparkle with claws: d20 behind the GM's "
                      "screen +4 Melee skill against Reflex Defense: miss.")
    assert [(p.label, p.value) for p in s.parts] == [("Melee skill", 4)]


def test_a_dramatic_damage_and_its_loss_in_fatigue_points() -> None:
    damage = ev.DamageDealt(
        target="dog", source="twilight", dice="1d6", rolled=4,
        bonuses=[Modifier("Strength", 2, "DAMAGE")], before_reduction=6, reduction=1,
        reduction_label="DR (natural armor)", loss=5)
    s = summarize(damage, "dramatic", NAMES)
    assert s.text == ("Diamond Dog takes physical damage from Twilight Sparkle: 1d6 rolled 4 "
                      "+2 Strength = 6, less DR (natural armor) 1: loses 5 fatigue points.")
    assert s.parts[-1].label == "loss" and s.parts[-1].value == 5


def test_dramatic_vitals_say_defenseless_in_fatigue_points() -> None:
    vitals = ev.VitalsChanged(
        combatant="twilight", cause="damage", fatigue=0, fatigue_max=12,
        physical=ev.Track(step=1, penalty=-1), condition=["active", "defenseless"],
        notes=["hit by Diamond Dog: 5 fatigue points"])
    assert summarize(vitals, "dramatic", NAMES).text == (
        "Twilight Sparkle: hit by Diamond Dog: 5 fatigue points. Now: fatigue points 0/12, "
        "physical track step 1 (-1), defenseless (0 fatigue points).")


def test_an_action_time_attack_rolls_an_ability_die_against_defense() -> None:
    attack = ev.AttackResolved(
        round=1, attacker="applejack", target="dog", action="melee_attack", weapon="hoof",
        defense="defense", die="d10", natural=7,
        modifiers=[Modifier("Aim (upgrade)", 1, "Minor Actions: AIM (R35)")], total=7,
        defense_value=4, defense_parts=[Modifier("Defense", 3, "stat block (R29)"),
                                        Modifier("Defend", 1, "R34")], outcome="hit")
    s = summarize(attack, "action_time", NAMES)
    assert s.text == ("Applejack attacks Diamond Dog in melee with hoof: d10 (Aim (upgrade) "
                      "+1) rolled 7 against Defense 4 (Defense 3, Defend 1): hit.")
    assert [(p.label, p.value) for p in s.parts] == [
        ("Aim (upgrade) (steps)", 1), ("d10", 7), ("total", 7), ("Defense", 4)]


def test_an_action_time_damage_takes_health() -> None:
    damage = ev.DamageDealt(target="dog", source="applejack", dice="1d6+1d4", rolled=7,
                            dice_parts=[Modifier("Champion (d4)", 3, "R95")],
                            before_reduction=7, loss=7)
    assert summarize(damage, "action_time", NAMES).text == (
        "Diamond Dog is hit by Applejack: 1d6+1d4 (Champion (d4) +3) rolled 7: loses 7 "
        "Health.")


def test_an_action_time_heal_in_its_own_words() -> None:
    """"Action Time"'s words, not Dramatic's: a heal test against difficulty 4, Health, the
    healed mark; no d20, no fatigue points."""
    check = ev.CheckMade(combatant="applejack", check="heal", natural=5, modifiers=[],
                         total=5, dc=4, success=True, section="Major Actions: HEAL (R33)")
    vitals = ev.VitalsChanged(
        combatant="twilight", cause="heal", fatigue=8, fatigue_max=10, physical=ev.Track(),
        condition=["active", "fit"],
        notes=["healed by Applejack: Health 5 -> 8 (Major Actions: HEAL, R33)"])
    mark = ev.AtEffectStarted(effect=Effect(holder="twilight", target="healed", value=1,
                                            source_kind="mark", source="healed",
                                            expiry="until_removed", origin="applejack"))
    assert summarize(check, "action_time", NAMES).text == (
        "Applejack's heal test: rolled 5 against difficulty 4: success.")
    assert summarize(vitals, "action_time", NAMES).text == (
        "Twilight Sparkle: healed by Applejack: Health 5 -> 8 (Major Actions: HEAL, R33). "
        "Now: Health 8/10.")
    assert summarize(mark, "action_time", NAMES).text == (
        "Twilight Sparkle: healed (no more healing until damaged) begins, from Applejack.")
    out = ev.VitalsChanged(combatant="dog", cause="damage", fatigue=None, fatigue_max=None,
                           physical=ev.Track(), condition=["active", "defenseless"],
                           notes=["hit by Applejack", "loses 4 Health"], fatigue_secret=True)
    assert summarize(out, "action_time", NAMES).text == (
        "Diamond Dog: hit by Applejack; loses 4 Health. Now: out of the fight (0 Health).")


def test_a_hidden_healers_mark_is_someone_unseens() -> None:
    """As a player receives it: ``origin`` emptied (``origin_hidden``)."""
    mark = ev.AtEffectStarted(effect=Effect(holder="twilight", target="healed", value=1,
                                            source_kind="mark", source="healed",
                                            expiry="until_removed", origin=""),
                              origin_hidden=True)
    assert summarize(mark, "action_time", NAMES).text == (
        "Twilight Sparkle: healed (no more healing until damaged) begins, from someone unseen.")


def test_the_engines_words_for_turns_rounds_and_dice() -> None:
    assert summarize(ev.TurnStarted(round=2, combatant="twilight"), "dramatic",
                     NAMES).text == "Twilight Sparkle's turn."
    assert summarize(ev.RoundStarted(round=0, surprise=True), "action_time",
                     NAMES).text == "The surprise round begins."
    rolled = ev.DiceRolled(purpose="aid_another", combatant="twilight",
                           roll=Roll("1d20+3", 17, [Die(20, 14)], "1d20 (14) + 3 = 17"))
    s = summarize(rolled, "dramatic", NAMES)
    assert s.text == "Twilight Sparkle rolls aid another: 1d20+3 [d20: 14] = 17."
    assert [(p.label, p.value) for p in s.parts] == [("d20", 14), ("total", 17)]
    triggered = ev.ReadiedActionTriggered(combatant="twilight", interrupting=None,
                                          interrupting_hidden=True)
    assert summarize(triggered, "dramatic", NAMES).text == (
        "Twilight Sparkle's readied action interrupts the current turn!")


def test_an_effect_ends_by_its_name() -> None:
    """The GM's effect goes by the name its ``effect_started`` gave it (R97)."""
    names = {"e1": "Shield of Leaves"}
    assert summarize(ev.EffectEnded(effect="e1"), "dramatic", NAMES, names).text == \
        "Shield of Leaves ends."
    assert summarize(ev.EffectEnded(effect="e1", reason="removed"), "dramatic", NAMES,
                     names).text == "The GM removes Shield of Leaves."


def test_the_gms_screens_turn_and_someone_unseen() -> None:
    """The anonymous hidden turns' place in the order (R99), as the table reads it, and a
    hidden combatant's dice as a dice tower reads them (``combatant: null``)."""
    assert summarize(ev.TurnStarted(round=1, combatant="screen"), "dramatic", NAMES).text == \
        "The turn of someone behind the GM's screen."
    assert summarize(ev.DelayedTurnRequested(combatant="twilight", after="screen"), "dramatic",
                     NAMES).text == \
        "Twilight Sparkle will act right after someone behind the GM's screen's turn."
    rolled = ev.DiceRolled(purpose="attack", combatant=None, hidden=True, by="gm",
                           roll=Roll("1d20", 9, [Die(20, 9)], "1d20 (9) = 9", manual=True))
    assert summarize(rolled, "dramatic", NAMES).text == (
        "Someone unseen rolls attack: 1d20 [d20: 9] = 9, the GM's physical dice.")


def test_a_removed_combatant_keeps_its_name() -> None:
    """The names are the encounter's, removed combatants' too: an old event of one reads the
    same in a history page after it left."""
    assert summarize(ev.TurnEnded(round=1, combatant="dog"), "dramatic",
                     {"dog": "Diamond Dog"}).text == "Diamond Dog ends the turn."


def test_the_toy_rulesets_event_in_its_own_words(toy: None) -> None:
    kindled = ev.RulesetEvent(ruleset=TOY, name="kindled", combatant="dog",
                              data={"embers": 2, "by": "twilight"})
    s = summarize(kindled, TOY, NAMES)
    assert s.text == "Twilight Sparkle kindles Diamond Dog's embers: +2."
    assert [(p.label, p.value) for p in s.parts] == [("embers", 2)]


def test_the_gms_words_are_only_those_the_event_carries() -> None:
    """An effect a hidden combatant caused, as players receive it: no origin, no source (R97);
    the summary names neither."""
    started = ev.EffectStarted(effect="e1", name="Shield", rounds=2, round=1, count=10,
                               ends_round=3, combatant="twilight", origin=None, source="",
                               origin_hidden=True)
    assert summarize(started, "dramatic", NAMES).text == (
        "Shield begins on Twilight Sparkle, for 2 rounds, until round 3.")


# --- over the wire ------------------------------------------------------------------------------


def summaries_of(client: Client) -> list[tuple[int, str]]:
    return [(m["seq"], m["summary"]["text"]) for m in client.events()]


async def history_of(client: Client) -> list[dict[str, Any]]:
    mark = len(client.messages)
    await client.command("get_history", limit=500)
    (page,) = [m for m in client.messages[mark:] if m["type"] == "history"]
    return list(page["events"])


async def test_summaries_live_on_resuming_and_in_history(server: Server,
                                                         clients: list[Client]) -> None:
    """A connection with ``summaries`` gets a summary with every event, live; a resume from
    seq 0 and a history page give the very same messages; one without the feature gets the
    same events without a ``summary`` field."""
    url = ws_url(server)
    table = await create_table(url, clients, dice_seed=5)
    worded = await Client.open(url)
    clients.append(worded)
    await worded.hello(table.tokens["twilight"], features=SUMMARIES)
    plain = await join(url, table.tokens["twilight"], clients)
    sealed = await Client.open(url)  # with cursors: the same words
    clients.append(sealed)
    await sealed.hello(table.tokens["twilight"], features=[*SUMMARIES, "cursor"])
    assert worded.welcome is not None and "summaries" in worded.welcome["features"]
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 6)
    await caught_up(worded)
    await caught_up(plain)
    live = list(worded.events())
    assert live and all(m["summary"]["text"] for m in live)
    assert not any("summary" in m for m in plain.events())
    assert [{k: v for k, v in m.items() if k != "summary"} for m in live] == list(plain.events())
    await caught_up(sealed)
    assert [m["summary"] for m in sealed.messages if m["type"] == "event"] == \
        [m["summary"] for m in live]
    said = dict(summaries_of(worded))
    assert any(text == "Twilight Sparkle's turn." for text in said.values())
    assert any(text.startswith("Initiative: ") for text in said.values())
    assert "lurk" not in str([m["summary"] for m in live]).lower()
    published = validator(docs.SERVER_SCHEMA)  # the summaries follow the published schema
    assert not [e for m in live for e in errors_of(published, m)]
    history = await history_of(worded)
    assert history[-len(live):] == live
    resumed = await Client.open(url)
    clients.append(resumed)
    await resumed.hello(table.tokens["twilight"], since=0, features=SUMMARIES)
    await caught_up(resumed)
    assert list(resumed.events())[-len(live):] == live
    assert not any("summary" in m for m in await history_of(plain))


async def test_the_gms_summaries_name_the_hidden_the_tables_do_not(
        server: Server, clients: list[Client]) -> None:
    """The stalker, hidden, hits Twilight: the GM reads who, with the dice; Twilight's player
    and a spectator read the loss, from "an unseen attacker", and nothing of the stalker."""
    scene = await Network(server, clients).create(AMBUSH, manual_rolls=True)
    assert isinstance(scene, NetScene)
    url = ws_url(server)
    gm = await Client.open(url)
    clients.append(gm)
    player, watcher = await Client.open(url), await Client.open(url)
    clients.extend((player, watcher))
    await player.hello(await invite(scene, "twilight"), features=SUMMARIES)
    await watcher.hello(await spectator(scene), features=SUMMARIES)
    await gm.hello(scene.gm_token, features=SUMMARIES)
    await scene.do("start_encounter")
    await answer_gm_dice(scene, 10)
    assert scene.state.current == "stalker"
    await scene.act("stalker", "attack", target="twilight")
    await answer_gm_dice(scene, 20)
    await answer_gm_dice(scene, 3)
    for c in (gm, player, watcher):
        await caught_up(c)
    gm_said = [m["summary"]["text"] for m in gm.events()]
    assert "Shadowy Stalker attacks Twilight Sparkle with unarmed: d20 20 +0 Melee skill = 20 " \
        "against Reflex Defense 10: critical hit!" in gm_said
    assert "Twilight Sparkle takes physical damage from Shadowy Stalker: 1d6 rolled 3 +0 " \
        "Strength modifier, doubled by the critical hit = 6: loses 6 fatigue points " \
        "(bludgeoning)." in gm_said
    for c in (player, watcher):
        said = [m["summary"]["text"] for m in c.events()]
        hit = [t for t in said if t.startswith("Twilight Sparkle: hit by")]
        assert hit == ["Twilight Sparkle: hit by an unseen attacker; loses 6 fatigue points "
                       "(10 -> 4). Now: fatigue points 4/10."], said
        assert "stalker" not in str(said).lower()


def test_the_guides_example_is_what_the_server_says() -> None:
    """docs/protocol.md's example of an event with its summary: the summary is the words of
    its event, and the message follows the published schema."""
    text = docs.GUIDE.read_text(encoding="utf-8")
    section = text[text.index("### Events in words (`summaries`)"):]
    message = json.loads(section.split("```json\n", 1)[1].split("\n```", 1)[0])
    assert not errors_of(validator(docs.SERVER_SCHEMA), message)
    event = msgspec.convert(message["event"], ev.AttackResolved)
    said = msgspec.to_builtins(summarize(event, "dramatic", NAMES))
    assert said == {**message["summary"], "parts": tuple(message["summary"]["parts"])}
