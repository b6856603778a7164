"""The decider and the fold, without I/O (on the engine's table, ``encounter.harness``):
commands in, events out, state = fold(events)."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from encounter import engine
from encounter.actors import Actor
from encounter.fold import fold
from encounter.harness import GM, Table, kind_of
from encounter.state import EncounterState
from encounter.views import view_event, view_state
from protocol import messages as msg
from protocol.events import Envelope
from protocol.model import StatBlock


class Log:
    """An encounter driven through the decider on the engine's table (``encounter.harness``),
    keeping the whole log: ``do`` decides a command and returns its events."""

    def __init__(self, blocks: list[dict[str, Any]], ruleset: str = "dramatic",
                 **options: Any) -> None:
        self.table = Table(blocks, ruleset=ruleset, encounter_id="enc", name="Test", **options)
        self.ctx = self.table.context()

    @property
    def state(self) -> EncounterState:
        return self.table.state

    @state.setter
    def state(self, state: EncounterState) -> None:
        self.table.state = state

    @property
    def envelopes(self) -> list[Envelope]:
        return self.table.envelopes

    @envelopes.setter
    def envelopes(self, envelopes: list[Envelope]) -> None:
        self.table.envelopes = envelopes

    def do(self, cmd: msg.Command, actor: Actor = GM) -> list[Envelope]:
        return self.table.command(cmd, by=actor).envelopes

    def end_turn(self, actor: Actor = GM) -> list[Envelope]:
        assert self.state.current is not None
        return self.do(msg.Act(id="x", combatant=self.state.current, action="end_turn"), actor)

    def kinds(self, envelopes: list[Envelope]) -> list[str]:
        return [kind_of(e) for e in envelopes]


PARTY = [
    {"name": "Twilight", "id": "twilight", "kind": "pc", "initiative": 3},
    {"name": "Dash", "id": "dash", "kind": "pc", "initiative": 5},
    {"name": "Dog", "id": "dog", "initiative": 1},
    {"name": "Lurker", "id": "lurker", "initiative": 4, "hidden": True},
]


def test_starting_rolls_initiative_and_begins_round_one() -> None:
    log = Log(PARTY, dice_seed=3)
    events = log.do(msg.StartEncounter(id="s"))
    assert log.kinds(events) == ["scene_started"] + ["dice_rolled"] * 4 + [
        "initiative_set", "round_started", "turn_started"]
    assert log.state.round == 1 and log.state.current == log.state.order[0]
    assert set(log.state.chart) == {"scene", "phase", "regular_rounds", "rounds", "round",
                                    "turn", "acting", "fresh"}
    totals = [log.state.initiative[c].total for c in log.state.order]
    assert totals == sorted(totals, reverse=True)


def test_every_round_visits_every_combatant_once_in_order() -> None:
    log = Log(PARTY, dice_seed=9)
    log.do(msg.StartEncounter(id="s"))
    order = list(log.state.order)
    turns = []
    for _ in range(3 * len(order)):
        turns.append(log.state.current)
        log.end_turn()
    assert turns == order * 3
    assert log.state.round == 4


def test_a_log_replays_to_the_identical_state() -> None:
    log = Log(PARTY, dice_seed=1)
    log.do(msg.StartEncounter(id="s"))
    for _ in range(5):
        log.end_turn()
    log.do(msg.AddCombatant(id="a", combatant=StatBlock(name="Late Dog", initiative=2)))
    log.do(msg.RemoveCombatant(id="r", combatant="dash"))
    assert fold("enc", log.envelopes) == log.state


def test_a_refused_command_changes_nothing() -> None:
    log = Log(PARTY, dice_seed=1)
    log.do(msg.StartEncounter(id="s"))
    before = msgspec.json.encode(log.state)
    with pytest.raises(engine.Rejected) as err:
        log.do(msg.StartEncounter(id="s2"))
    assert err.value.code == "illegal_action"
    assert msgspec.json.encode(log.state) == before


def test_deciding_leaves_the_state_it_started_from_untouched() -> None:
    """The decider's copy shares the combatants' profiles and the credentials' grants with the
    state it was made from; a command that changes them must replace them, not change them."""
    log = Log(PARTY, dice_seed=1)
    invite = log.do(msg.IssueInvite(id="i", combatants=["dog", "twilight"]))
    token_id = invite[0].event.token_id  # type: ignore[attr-defined]
    commands: list[msg.Command] = [
        msg.SetHidden(id="h", combatant="dog", hidden=True),
        msg.SetHidden(id="r", combatant="lurker", hidden=False),
        msg.SetAwareness(id="a", combatant="dash", aware=False),
        msg.RevokeToken(id="v", token_id=token_id),
        msg.RemoveCombatant(id="x", combatant="dog"),
    ]
    for cmd in commands:
        before = msgspec.json.encode(log.state)
        out = engine.decide(log.state, GM, cmd, log.ctx)
        assert msgspec.json.encode(log.state) == before, cmd  # the original: unchanged
        assert msgspec.json.encode(out.state) != before, cmd  # the copy: changed
        assert fold("enc", log.envelopes + out.envelopes) == out.state
        log.envelopes += out.envelopes
        log.state = out.state


def test_a_late_joiner_takes_its_place_and_acts_when_its_count_comes_up() -> None:
    log = Log(PARTY, dice_seed=4)
    log.do(msg.StartEncounter(id="s"))
    events = log.do(msg.AddCombatant(id="a", combatant=StatBlock(name="Late", id="late",
                                                                 initiative=50)))
    assert log.kinds(events) == ["combatant_added", "dice_rolled", "combatant_joined"]
    assert log.state.order[0] == "late"  # +50 beats everyone: first in the order
    seen = set()
    for _ in range(len(log.state.order) + 1):
        seen.add(log.state.current)
        log.end_turn()
    assert "late" in seen


def test_removing_the_current_combatant_passes_the_turn() -> None:
    log = Log(PARTY, dice_seed=4)
    log.do(msg.StartEncounter(id="s"))
    current = log.state.current
    assert current is not None
    nxt = log.state.order[(log.state.order.index(current) + 1) % len(log.state.order)]
    events = log.do(msg.RemoveCombatant(id="r", combatant=current))
    assert log.kinds(events) == ["turn_ended", "turn_started", "combatant_removed"]
    assert log.state.current == nxt and current not in log.state.order


def test_physical_dice_make_the_encounter_wait_in_rolling() -> None:
    log = Log(PARTY, manual_rolls=True, players_roll=True)
    events = log.do(msg.StartEncounter(id="s"))
    assert log.kinds(events) == ["scene_started"] + ["roll_requested"] * 4
    assert log.state.chart == ["rolling_initiative"]
    player = Actor(role="player", token_id="p", combatants=frozenset({"twilight"}))
    requests = {p.combatant: p.request for p in log.state.pending_rolls.values()}
    with pytest.raises(engine.Rejected) as err:
        log.do(msg.SubmitRoll(id="r", request=requests["dash"], faces=[5]), player)
    assert err.value.code == "forbidden"
    log.do(msg.SubmitRoll(id="r1", request=requests["twilight"], faces=[17]), player)
    log.do(msg.SubmitRoll(id="r2", request=requests["dash"], faces=[2]))  # the GM may answer
    log.do(msg.ServerRoll(id="r3", request=requests["dog"]))  # or let the server roll
    assert log.state.chart == ["rolling_initiative"]
    events = log.do(msg.SubmitRoll(id="r4", request=requests["lurker"], faces=[20]))
    assert log.kinds(events)[-3:] == ["initiative_set", "round_started", "turn_started"]
    assert log.state.initiative["twilight"].total == 20  # 17 + 3
    assert log.state.order[0] == "lurker"  # 20 + 4
    rolled = [e.event for e in log.envelopes if e.event.__struct_config__.tag == "dice_rolled"]
    assert sorted((r.by, r.roll.manual) for r in rolled) == [  # type: ignore[attr-defined]
        ("gm", True), ("gm", True), ("player", True), ("server", False)]
    assert fold("enc", log.envelopes) == log.state


def test_action_time_initiative_is_a_body_test_and_players_win_ties() -> None:
    blocks = [{"name": "Pony", "id": "pony", "kind": "pc", "stats": {"body": "d6"}},
              {"name": "Dog", "id": "dog", "stats": {"body": "d8"}}]
    log = Log(blocks, ruleset="action_time", manual_rolls=True, players_roll=True)
    log.do(msg.StartEncounter(id="s"))
    exprs = sorted(p.expr for p in log.state.pending_rolls.values())
    assert exprs == ["1d6", "1d8"]
    for p in list(log.state.pending_rolls.values()):
        log.do(msg.SubmitRoll(id=p.request, request=p.request, faces=[4]))
    assert log.state.order == ["pony", "dog"]  # tie at 4: the player character goes first


def test_action_time_needs_a_body_die() -> None:
    with pytest.raises(engine.Rejected) as err:
        Log([{"name": "Pony", "kind": "pc", "stats": {"body": "d7"}}], ruleset="action_time")
    assert err.value.code == "invalid_payload"


def test_views_hide_hidden_combatants_and_gm_rolls_from_players() -> None:
    log = Log(PARTY, dice_seed=2)
    log.do(msg.StartEncounter(id="s"))
    player = Actor(role="player", token_id="p", combatants=frozenset({"twilight"}))
    seen = [view_event(e, player) for e in log.envelopes]
    visible = msgspec.json.encode([e for e in seen if e is not None])
    assert b"lurker" not in visible and b"Lurker" not in visible
    rolls = [e for e in seen if e is not None and e.__struct_config__.tag == "dice_rolled"]
    assert {r.combatant for r in rolls} == {"twilight", "dash"}  # type: ignore[attr-defined]
    snapshot = view_state(log.state, player)
    assert "lurker" not in msgspec.json.encode(snapshot).decode()
    own = next(c for c in snapshot["combatants"] if c["id"] == "twilight")
    assert own["controlled"]


def test_revealing_a_combatant_shows_it_to_everyone() -> None:
    log = Log(PARTY, dice_seed=2)
    events = log.do(msg.SetHidden(id="h", combatant="lurker", hidden=False))
    spectator = Actor(role="spectator", token_id="s", scopes=frozenset({"view:public"}))
    shown = view_event(events[0], spectator)
    assert shown is not None and shown.combatant.id == "lurker"  # type: ignore[attr-defined]
    assert "lurker" in {c["id"] for c in view_state(log.state, spectator)["combatants"]}


# --- property: random command sequences -------------------------------------------------------

COMMANDS = st.lists(st.sampled_from(["end_turn", "end_turn", "end_turn", "add", "remove",
                                     "hide", "reveal"]), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(COMMANDS, st.integers(min_value=0, max_value=10_000))
def test_any_command_sequence_replays_and_keeps_a_total_order(
        commands: list[str], seed: int) -> None:
    log = Log(PARTY, dice_seed=seed)
    log.do(msg.StartEncounter(id="s"))
    acted_this_round: list[str] = []
    round_now = log.state.round
    for n, name in enumerate(commands):
        try:
            if name == "end_turn":
                if log.state.current is None:
                    continue
                acted_this_round.append(log.state.current)
                log.end_turn()
            elif name == "add":
                log.do(msg.AddCombatant(id=f"a{n}", combatant=StatBlock(name=f"Dog {n}")))
            elif name == "remove" and len(log.state.order) > 1:
                log.do(msg.RemoveCombatant(id=f"r{n}", combatant=log.state.order[-1]))
            elif name in ("hide", "reveal") and "dog" in log.state.combatants:
                log.do(msg.SetHidden(id=f"h{n}", combatant="dog", hidden=name == "hide"))
        except engine.Rejected as r:
            assert r.code == "illegal_action"  # e.g. hiding a hidden dog
        if log.state.round != round_now:
            # nobody acted twice in the round that just ended
            assert len(acted_this_round) == len(set(acted_this_round)), acted_this_round
            acted_this_round, round_now = [], log.state.round
        # the order is a total order of the combatants in the scene
        assert len(log.state.order) == len(set(log.state.order))
        assert set(log.state.order) <= set(log.state.combatants)
        keys = [log.state.initiative[c].total for c in log.state.order]
        assert keys == sorted(keys, reverse=True)
        assert log.state.current is None or log.state.current in log.state.order
    assert fold("enc", log.envelopes) == log.state
    assert [e.seq for e in log.envelopes] == list(range(1, len(log.envelopes) + 1))


def test_the_shared_chart_serves_encounters_after_one_has_ended() -> None:
    first = Log(PARTY, dice_seed=1)
    first.do(msg.StartEncounter(id="s"))
    first.do(msg.EndEncounter(id="e"))
    assert first.state.chart == ["ended"]
    with pytest.raises(engine.Rejected):
        first.do(msg.EndEncounter(id="e2"))
    second = Log(PARTY, dice_seed=2)
    second.do(msg.StartEncounter(id="s"))
    second.end_turn()
    assert "regular_rounds" in second.state.chart and "fresh" in second.state.chart
    assert second.state.round == 1


# --- property: random legal moves of the turn flow ----------------------------------------------

FLOW_PARTY = [
    {"name": "Ace", "id": "ace", "kind": "pc", "initiative": 4},
    {"name": "Bee", "id": "bee", "kind": "pc", "initiative": 2, "aware": False},
    {"name": "Cub", "id": "cub", "initiative": 2},
    {"name": "Dog", "id": "dog", "initiative": 1, "group": "pack"},
    {"name": "Eel", "id": "eel", "initiative": 3, "group": "pack"},
]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10_000), min_size=5, max_size=120),
       st.integers(min_value=0, max_value=10_000))
def test_random_legal_moves_keep_the_flow_sound(choices: list[int], seed: int) -> None:
    from encounter.legal import legal_actions

    log = Log(FLOW_PARTY, dice_seed=seed)
    log.do(msg.StartEncounter(id="s"))
    completed: dict[int, list[str]] = {}  # round -> combatants whose turn ran to its end
    readied_in: dict[int, set[str]] = {}
    down_in: dict[int, set[str]] = {}  # round -> combatants unconscious or dead in it
    for n, choice in enumerate(choices):
        options = [a for a in legal_actions(log.state, GM) if a.combatant is not None]
        assert options, "someone may always act in a running scene"
        enders = [o for o in options if o.action == "end_turn"]
        # half the moves end the turn, so that rounds go by; the rest is any legal move
        a = enders[0] if enders and choice % 2 == 0 else options[(choice // 2) % len(options)]
        assert a.combatant is not None
        args: dict[str, Any] = {}
        if a.action == "ready":
            args = {"action": "move", "trigger": "when it happens"}
        elif a.targets and a.action not in ("submit_roll", "server_roll"):
            args = {"target": a.targets[0]}
        events = log.do(msg.Act(id=f"m{n}", combatant=a.combatant, action=a.action, args=args))
        for e in events:
            event: Any = e.event
            tag = event.__struct_config__.tag
            delayed = a.action == "delay" and event.combatant == a.combatant \
                if tag == "turn_ended" else False
            if tag == "turn_ended" and event.combatant not in log.state.delaying and not delayed:
                completed.setdefault(event.round, []).append(event.combatant)
            if tag == "action_taken" and event.readied:
                readied_in.setdefault(log.state.round, set()).add(event.combatant)
        # fatigue and the condition tracks stay in their bounds (R14, R15, R17)
        for cid, v in log.state.vitals.items():
            assert 0 <= v.fatigue <= v.fatigue_max, (cid, v)
            for track in (v.physical, v.mental):
                assert track is not None
                assert 0 <= track.crippling <= track.persistent <= track.step <= 5, (cid, v)
            if not v.conscious:
                down_in.setdefault(log.state.round, set()).add(cid)
        # the initiative order is a total order: each combatant once, counts never rising
        assert len(log.state.order) == len(set(log.state.order))
        if log.state.initiative and log.state.round >= 1:
            counts = [log.state.count_of(c) for c in log.state.order]
            assert counts == sorted(counts, reverse=True), (log.state.order, counts)
    for rnd, who in completed.items():
        # nobody has two turns in one round (a delayed turn is the same turn, resumed)
        assert len(who) == len(set(who)), (rnd, who)
        if rnd < log.state.round and rnd >= 1:
            # every combatant had its turn in a finished round, unless it took a readied
            # action before it that round (R8.5) or was out of the fight (R16)
            missing = (set(log.state.order) - set(who) - readied_in.get(rnd, set())
                       - down_in.get(rnd, set()))
            assert not missing, (rnd, who, missing)
    assert fold("enc", log.envelopes) == log.state
