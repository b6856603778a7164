"""Event logs written by earlier versions still fold to the states they folded to then.

``tests/data/logs-<commit>/`` holds logs recorded by that commit (``python -m
tests.record_logs``: both rulesets, a battle map, hidden combatants, GM rulings, physical
dice) and the state each folded to there. Today's fold must give every recorded field its
recorded value; fields added since may hold anything (they are new). One change of layout is
named here, with the recorded value it must equal: Action Time's turn budget has its own
slots since its economy (``rules.action_time.turn_budget.ECONOMY``): ``major`` is the recorded
``standard`` slot, ``minor`` the recorded ``move`` slot (its ``swift`` slot was never free).
And the server rolls are counted in two streams since the GM's screen (``encounter.screen``):
the recorded ``server_rolls`` is today's ``server_rolls`` plus ``screened_rolls``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from encounter.fold import apply_event, fold
from encounter.state import EncounterState, copy_state, dump_state, load_state
from protocol import events as ev
from protocol.events import Envelope

DATA = Path(__file__).parent / "data"
LOGS = sorted(DATA.glob("logs-*/*.events.json"))


def at_budget_then(recorded: dict[str, Any]) -> None:
    """An Action Time state as recorded, its turn budget written with today's slot names."""
    turn = recorded.get("turn")
    if recorded.get("ruleset") == "action_time" and turn is not None:
        old = turn["budget"]
        assert old["swift"] is False
        turn["budget"] = {"major": old["standard"], "minor": old["move"]}


def rolls_then(now: dict[str, Any]) -> None:
    """Today's state with its server rolls counted in one, as they were recorded."""
    now["server_rolls"] += now["screened_rolls"]


def same_where_recorded(recorded: Any, now: Any, where: str = "state") -> None:
    if isinstance(recorded, dict):
        assert isinstance(now, dict), where
        for key, value in recorded.items():
            assert key in now, f"{where}.{key} is gone"
            same_where_recorded(value, now[key], f"{where}.{key}")
    elif isinstance(recorded, list):
        assert isinstance(now, list) and len(now) == len(recorded), f"{where}: {now!r}"
        for i, (r, n) in enumerate(zip(recorded, now, strict=True)):
            same_where_recorded(r, n, f"{where}[{i}]")
    else:
        assert recorded == now, f"{where}: recorded {recorded!r}, now {now!r}"


@pytest.mark.parametrize("log", LOGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_a_recorded_log_folds_to_the_recorded_state(log: Path) -> None:
    envelopes = msgspec.json.decode(log.read_bytes(), type=list[Envelope])
    state = fold("enc", envelopes)
    recorded = msgspec.json.decode(log.with_name(log.name.replace(".events", ".state"))
                                   .read_bytes())
    now = msgspec.json.decode(msgspec.json.encode(state))
    at_budget_then(recorded)
    rolls_then(now)
    same_where_recorded(recorded, now)
    # and today's state survives a snapshot and a copy unchanged
    assert load_state(dump_state(state)) == state == copy_state(state)


def test_the_recordings_are_there() -> None:
    assert {p.name for p in LOGS} >= {"dramatic-battle.events.json",
                                      "dramatic-physical-dice.events.json",
                                      "action-time.events.json"}


def test_a_vitals_change_written_before_bound_or_asleep_keeps_the_gms_flag() -> None:
    """Logs from before ``bound_or_asleep`` kept the GM's "bound or asleep" in ``helpless``."""
    log = next(p for p in LOGS if "dramatic-battle" in p.name)
    raw = msgspec.json.decode(log.read_bytes())
    assert not any("bound_or_asleep" in e["event"] for e in raw)
    helpless = [e for e in raw if e["event"]["kind"] == "vitals_changed"
                and e["event"]["helpless"]]
    assert helpless
    envelopes = msgspec.json.decode(log.read_bytes(), type=list[Envelope])
    seq = helpless[0]["seq"]
    state = fold("enc", [e for e in envelopes if e.seq <= seq])
    assert state.vitals[helpless[0]["event"]["combatant"]].bound_or_asleep


def test_action_time_slots_named_by_an_earlier_log_spend_todays_slots() -> None:
    """An Action Time log written before its own economy names the slots ``standard`` (a
    major action) and ``move`` (a minor one): folded today they spend the major and the minor
    slot. Two minors in a turn (R51): the second takes the major slot."""
    log = next(p for p in LOGS if "action-time" in p.name)
    raw = msgspec.json.decode(log.read_bytes())
    envelopes = msgspec.json.decode(log.read_bytes(), type=list[Envelope])
    taken = [e for e in raw if e["event"]["kind"] == "action_taken"]
    seen = set()
    for entry in taken:
        slot = entry["event"]["slot"]
        if slot is None:
            continue
        state = fold("enc", [e for e in envelopes if e.seq <= entry["seq"]])
        assert state.turn is not None
        spent = {"standard": "major", "move": "minor"}[slot]
        assert state.turn.budget[spent] is False, entry
        assert set(state.turn.budget) == {"major", "minor"}
        seen.add(slot)
    assert seen == {"standard", "move"}


def test_another_rulesets_event_in_an_older_log_folds_as_it_did() -> None:
    """Before each ruleset's GM commands were its own, the GM of an Action Time encounter could
    set attitudes or load objects: such events, Dramatic's, still fold (through Dramatic's
    declaration), and as they did."""
    state = EncounterState(id="enc", ruleset="action_time")
    apply_event(state, ev.AttitudeChanged(holder="a", toward="b", attitude="friendly"))
    apply_event(state, ev.ObjectLoaded(combatant="crate", weight=50.0, round=1, count=12))
    assert state.attitudes == {"a": {"b": "friendly"}}
    assert state.loads["crate"].weight == 50.0 and state.loads["crate"].strained_round == 1
