"""The rules of time of a campaign (rulings R109-R112), in-process, on random sequences of
encounters, rests and clock steps: per-day uses never exceed the day's allowance, Natural
Healing happens at most once in 24 in-game hours (and never with a persistent condition),
temporary status fades exactly a point per whole week and never below 0, a write-back applied
twice changes nothing, the log folds to the state kept, and each credential's view of the
campaign shows another's character only as a table would."""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from campaign import decide
from campaign.fold import apply, fold
from campaign.views import campaign_view
from encounter.harness import Table
from encounter.state import EncounterState, Vitals
from protocol import campaign as cp
from protocol import messages as msg
from protocol.events import Track
from protocol.model import StatBlock
from rules.condition_track import second_lunch_refusal
from rules.sheet import parse_sheet

MOST = 20


@dataclass
class Log:
    """A campaign's log kept in memory, as the server keeps it in Redis."""

    state: cp.CampaignState
    envelopes: list[cp.CampaignEnvelope] = field(default_factory=list)

    def add(self, events: list[cp.CampaignEvent]) -> None:
        for e in events:
            env = cp.CampaignEnvelope(seq=self.state.version + 1, ts=0,
                                      event=e)  # type: ignore[arg-type]
            apply(self.state, env)
            self.envelopes.append(env)


def new_campaign(extra_lunches: int) -> Log:
    log = Log(cp.CampaignState(id="camp1"))
    log.add([cp.CampaignCreated(name="Road", ruleset="dramatic", gm_token_id="gm1",
                                recovery="x")])
    for cid, feats in (("ace", ["extra_second_lunch"] * extra_lunches), ("bee", [])):
        block = msgspec.convert({"name": cid.title(), "id": cid, "kind": "pc",
                                 "stats": {"fatigue_points": MOST, "feats": feats,
                                           "social": {"reputation": 6}}}, StatBlock)
        log.add(decide.add_character(log.state, msg.AddCharacter(id=f"add-{cid}",
                                                                 character=block), f"t{cid}"))
    return log


#: clock steps: within a day, across one, to the next week and beyond
hours = st.one_of(st.integers(1, 30), st.sampled_from([8, 16, 23, 24, 167, 168, 336, 500]))
steps = st.lists(st.one_of(
    st.tuples(st.just("clock"), hours, st.booleans()),
    st.tuples(st.just("encounter"), st.booleans(), st.integers(0, 4), st.integers(0, 15),
              st.booleans(), st.booleans()),
    st.tuples(st.just("injure"), st.integers(0, 3), st.booleans()),
    st.tuples(st.just("gala"), st.integers(1, 4)),
), min_size=1, max_size=30)


def play_encounter(log: Log, n: int, lunch: bool, boost: int, damage: int, rested: bool,
                   eaten: dict[tuple[str, int], int]) -> None:
    """An encounter of both characters: each starts as the campaign left it (``begin``); ace
    takes ``damage`` and, when asked and its rules allow (the stat block the encounter got),
    a Second Lunch; a social event gives it ``boost``."""
    s = log.state
    cmd = msg.BeginEncounter(id=f"b{n}", name=f"Scene {n}", characters=["ace", "bee"],
                             rested=["bee"] if rested else [])
    begun = decide.begin(s, cmd, f"enc{n}", "gm")
    blocks = {b.id: b for b in begun.create.combatants}
    carried = {a.combatant: a for a in begun.carried}
    log.add([begun.event])
    day = cp.day_of(s.hour)
    vitals: dict[str, Vitals] = {}
    for cid in ("ace", "bee"):
        ch = s.characters[cid]
        start = carried[cid].fatigue if cid in carried and carried[cid].fatigue is not None \
            else MOST
        assert start == (MOST if ch.fatigue is None else ch.fatigue)
        fatigue = max(0, start - (damage if cid == "ace" else 0))
        took = False
        if cid == "ace" and lunch:
            sheet = parse_sheet(blocks[cid].stats)
            today = blocks[cid].stats["second_lunches_today"]
            assert today == (ch.lunches if ch.lunch_day == day else 0)
            if second_lunch_refusal(sheet, fatigue, uses_today=today,
                                    used_this_encounter=False) is None:
                took = True
                fatigue = min(MOST, fatigue + MOST // 4)
                eaten[(cid, day)] = eaten.get((cid, day), 0) + 1
        vitals[cid] = Vitals(fatigue=fatigue, fatigue_max=MOST, physical=ch.physical,
                             mental=ch.mental, second_lunch=took)
    final = EncounterState(id=f"enc{n}", name=f"Scene {n}", ended=True, version=40 + n,
                           vitals=vitals, campaign=s.id,
                           status_boosts={"ace": {"canterlot": boost}} if boost else {})
    written = decide.write_back(s, f"enc{n}", final)
    assert written and isinstance(written[-1], cp.EncounterWrittenBack)
    log.add(written)
    assert decide.write_back(log.state, f"enc{n}", final) == []  # twice: nothing more
    assert all(ch.encounter is None for ch in log.state.characters.values())


@settings(max_examples=300, deadline=None)
@given(extra_lunches=st.integers(0, 1), plan=steps)
def test_the_rules_of_time_hold_over_random_campaigns(
        extra_lunches: int, plan: list[tuple[Any, ...]]) -> None:
    log = new_campaign(extra_lunches)
    allowance = {"ace": 1 + extra_lunches, "bee": 1}
    eaten: dict[tuple[str, int], int] = {}
    healed: dict[str, list[int]] = {"ace": [], "bee": []}
    for n, step in enumerate(plan):
        s = log.state
        before = {cid: ch for cid, ch in s.characters.items()}
        if step[0] == "clock":
            hours, rest = step[1], step[2] and step[1] >= decide.REST_HOURS
            events = decide.advance_clock(s, msg.AdvanceClock(id=f"c{n}", hours=hours,
                                                              rest=rest))
            log.add(events)
            for e in events:
                if isinstance(e, cp.CharacterChanged) and e.cause == "natural_healing":
                    assert rest
                    old = before[e.character]
                    assert not old.physical.persistent and not (
                        old.mental and old.mental.persistent), "healed with a persistent step"
                    healed[e.character].append(log.state.hour)
            for cid, old in before.items():
                now = log.state.characters[cid]
                weeks_ago = {b.circle: b for b in old.status}
                for b in now.status:  # a point a whole week, from when it rose or faded
                    was = weeks_ago[b.circle]
                    weeks = (log.state.hour - was.since) // cp.HOURS_PER_WEEK
                    assert b.bonus == was.bonus - weeks > 0
                for circle, was in weeks_ago.items():
                    if circle not in {b.circle for b in now.status}:
                        assert was.bonus - (log.state.hour - was.since) // cp.HOURS_PER_WEEK <= 0
        elif step[0] == "encounter":
            play_encounter(log, n, *step[1:5], eaten)
        elif step[0] == "injure":
            steps_down, persistent = step[1], step[2]
            log.add(decide.adjust_character(s, msg.AdjustCharacter(
                id=f"i{n}", character="ace", reason="a fall", fatigue=MOST // 2,
                physical_step=steps_down,
                physical_persistent=min(steps_down, 1) if persistent else 0,
                physical_crippling=0)))
        else:
            log.add(decide.adjust_character(s, msg.AdjustCharacter(
                id=f"g{n}", character="ace", reason="a gala",
                status=[msg.StatusBoostInput(bonus=step[1], circle="canterlot")])))
        for (cid, _day), count in eaten.items():
            assert count <= allowance[cid], "more Second Lunches in a day than allowed"
        for cid, ch in log.state.characters.items():
            assert ch.lunches <= allowance[cid]
            assert all(b.bonus > 0 for b in ch.status)  # never below its floor (0: gone)
        for hours in healed.values():
            assert all(b - a >= 24 for a, b in pairwise(hours))
    assert fold("camp1", log.envelopes) == log.state  # the log is the truth

    # each credential's view: its own in full, the other as a table would see it
    s = log.state
    for me, other in (("ace", "bee"), ("bee", "ace")):
        view = msgspec.to_builtins(campaign_view(s, "player", frozenset({me})))
        by_id = {c["id"]: c for c in view["characters"]}
        assert "stats" in by_id[me] and "link" not in by_id[me]
        assert set(by_id[other]) == {"id", "name", "kind", "life", "conscious", "band",
                                     "encounter"}
        assert "gm_link" not in str(view) and "tace" not in str(view)
        for line in view["log"]:  # the campaign's lines and those about its own character
            assert not line["gm_only"] and (not line["characters"] or me in line["characters"])
        shown = {line["seq"] for line in view["log"]}
        assert all(line.seq in shown for line in s.log if line.characters == [me])
    gm = msgspec.to_builtins(campaign_view(s, "gm", frozenset(), links={"tace": "L1"}))
    assert next(c for c in gm["characters"] if c["id"] == "ace")["link"] == "L1"


def test_a_rest_heals_once_in_24_hours_and_not_with_a_persistent_step() -> None:
    log = new_campaign(0)
    log.add(decide.adjust_character(log.state, msg.AdjustCharacter(
        id="a", character="ace", reason="hurt", fatigue=3, physical_step=2)))
    log.add(decide.advance_clock(log.state, msg.AdvanceClock(id="r1", hours=8, rest=True)))
    ace = log.state.characters["ace"]
    assert ace.fatigue is None and ace.physical == Track() and ace.healed_at == 8
    log.add(decide.adjust_character(log.state, msg.AdjustCharacter(
        id="b", character="ace", reason="hurt", fatigue=3, physical_step=1,
        physical_persistent=1)))
    events = decide.advance_clock(log.state, msg.AdvanceClock(id="r2", hours=8, rest=True))
    refused = {e.character: e.why for e in events if isinstance(e, cp.HealingRefused)}
    assert "once in a 24-hour period" in refused["ace"]
    log.add(events)
    events = decide.advance_clock(log.state, msg.AdvanceClock(id="r3", hours=16, rest=True))
    refused = {e.character: e.why for e in events if isinstance(e, cp.HealingRefused)}
    assert "persistent" in refused["ace"]


def test_a_character_kept_unconscious_starts_the_next_scene_unconscious() -> None:
    """R16, R113: the encounter leaves Ace unconscious (its checks failed); the campaign keeps
    it so (``CharacterView.conscious``), and the next encounter starts it unconscious, prone
    and with its checks to come ("You make a new Constitution check every sceen until you
    regain consciousness"). Before, the campaign kept only the tracks, and the next scene
    started it "active, defenseless": a free action was accepted and no check was rolled."""
    log = new_campaign(0)
    log.add(decide.adjust_character(log.state, msg.AdjustCharacter(
        id="con", character="ace", reason="frail", fatigue=0)))

    def scene(n: int) -> Table:
        begun = decide.begin(log.state, msg.BeginEncounter(id=f"b{n}", name=f"Scene {n}",
                                                           characters=["ace"]), f"enc{n}", "gm")
        log.add([begun.event])
        blocks = [msgspec.to_builtins(b) for b in begun.create.combatants]
        # Con -5: 1d20 - 5 fails below 15 (dice_seed 1 rolls low)
        blocks[0]["stats"] = {**blocks[0]["stats"], "con": 0}
        table = Table([*blocks, {"name": "Dog", "id": "dog", "initiative": -50}],
                      dice_seed=1)
        for adjust in begun.carried:
            table.command(adjust)
        return table

    first = scene(1)
    first.do("start_encounter")
    first.do("adjust_combatant", combatant="ace", physical_step=5, physical_persistent=1,
             condition="unconscious", reason="a crushing blow")
    assert first.state.vitals["ace"].condition == ("unconscious", "awaiting_check")
    first.do("end_encounter")
    assert not first.state.vitals["ace"].conscious  # the check as the scene ends failed
    log.add(decide.write_back(log.state, "enc1", first.state))
    ace = log.state.characters["ace"]
    assert (ace.conscious, ace.physical.step) == (False, 5)
    for role in ("gm", "player"):  # the table sees it, as it sees the condition
        view = msgspec.to_builtins(campaign_view(log.state, role,  # type: ignore[arg-type]
                                                 frozenset({"bee"})))
        assert next(c for c in view["characters"] if c["id"] == "ace")["conscious"] is False
    assert fold("camp1", log.envelopes) == log.state

    second = scene(2)
    v = second.state.vitals["ace"]
    assert (v.condition, v.prone, v.helpless) == (("unconscious", "awaiting_check"), True, True)
    second.do("start_encounter")
    assert second.state.current == "dog"  # its turns pass without actions
    second.act("dog", "end_turn")
    assert second.state.current == "dog" and second.state.round == 2
    assert second.refused_act("ace", "free").code in ("illegal_action", "not_your_turn")
    checks = sum(m["event"]["kind"] == "check_made" for m in second.messages())
    second.do("end_encounter")  # its next check comes as the scene ends (R16)
    assert sum(m["event"]["kind"] == "check_made" for m in second.messages()) == checks + 1
    assert second.replays()
