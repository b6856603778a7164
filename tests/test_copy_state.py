"""The decider's copy of the state (``encounter.state.copy_state``, written by
``encounter.copier``): equal to the state, sharing nothing either may change in place; a
refused command of every kind leaves the state as it was; and a state held before a command
(as the rooms' views, the GM's screen and undo hold one) stays as it was while the states
after it are decided and folded in place."""

from __future__ import annotations

import enum
from collections.abc import Iterator
from typing import Any

import msgspec
import msgspec.inspect as mi
import pytest

from encounter import engine, gm
from encounter.copier import copier, deep
from encounter.decision import Decision
from encounter.fold import apply
from encounter.harness import GM, Table
from encounter.rejected import Rejected
from encounter.state import EncounterState, copy_state, dump_state
from protocol import messages as msg
from protocol.errors import ErrorCode
from protocol.model import BattleMap, StatBlock
from rules.action_time.effects import UNTIL_REMOVED, Effect

PARTY = [
    {"name": "Twilight", "id": "twilight", "kind": "pc", "initiative": 3},
    {"name": "Dash", "id": "dash", "kind": "pc", "initiative": 5},
    {"name": "Dog", "id": "dog", "initiative": 1},
    {"name": "Lurker", "id": "lurker", "initiative": 4, "hidden": True},
]

EXAMPLES = ["action-time-changeling-scouts.yaml", "action-time-ponies-vs-diamond-dogs.yaml",
            "dramatic-canterlot-garden-party.yaml", "dramatic-everfree-timberwolves.yaml",
            "dramatic-ponies-vs-diamond-dogs.yaml"]


# --- what a copy shares ------------------------------------------------------------------------


def mutables(value: Any) -> Iterator[Any]:
    """Every object reachable from ``value`` that may be changed in place (lists, mappings,
    sets, structs that are not frozen); a frozen struct is shared on purpose, and not
    entered."""
    if isinstance(value, list | dict | set | bytearray):
        yield value
        items = value.values() if isinstance(value, dict) else value
        for item in items:
            yield from mutables(item)
    elif isinstance(value, tuple):
        for item in value:
            yield from mutables(item)
    elif isinstance(value, msgspec.Struct) and not type(value).__struct_config__.frozen:
        yield value
        for name in value.__struct_fields__:
            yield from mutables(getattr(value, name))


def assert_a_copy(original: EncounterState, copy: EncounterState) -> None:
    assert copy == original
    assert dump_state(copy) == dump_state(original)
    held = {id(m) for m in mutables(original)}
    shared = [m for m in mutables(copy) if id(m) in held]
    assert not shared, f"the copy shares {shared[:3]} with the state"


#: Frozen structs that check what they hold (shared by copies, so any valid one will do).
CHECKED: dict[type, Any] = {
    BattleMap: BattleMap(width=2, height=2, blocked=((1, 1),)),
    Effect: Effect(holder="h", target="defense", value=1, source_kind="action",
                   source="Defend", expiry=UNTIL_REMOVED),
}


def sample(t: mi.Type, depth: int = 0) -> Any:
    """A value of type ``t`` that holds something wherever it can (every list and mapping
    with an entry, every optional struct present)."""
    if isinstance(t, mi.Metadata):
        return sample(t.type, depth)
    if isinstance(t, mi.StructType):
        if t.cls in CHECKED:
            return CHECKED[t.cls]
        return t.cls(**{f.name: sample(f.type, depth + 1) for f in t.fields})
    if isinstance(t, mi.ListType | mi.VarTupleType):
        items = [sample(t.item_type, depth + 1)]
        return items if isinstance(t, mi.ListType) else tuple(items)
    if isinstance(t, mi.SetType | mi.FrozenSetType):
        return (set if isinstance(t, mi.SetType) else frozenset)({sample(t.item_type)})
    if isinstance(t, mi.TupleType):
        return tuple(sample(i, depth + 1) for i in t.item_types)
    if isinstance(t, mi.DictType):
        return {sample(t.key_type): sample(t.value_type, depth + 1)}
    if isinstance(t, mi.UnionType):
        # the member that holds the most: a struct, a container, then anything
        ranked = sorted(t.types, key=lambda u: (not isinstance(u, mi.StructType),
                                                not isinstance(u, mi.ListType | mi.DictType),
                                                isinstance(u, mi.NoneType)))
        return sample(ranked[0], depth)
    if isinstance(t, mi.LiteralType):
        return t.values[0]
    if isinstance(t, mi.EnumType):
        return next(iter(t.cls))
    if isinstance(t, mi.AnyType):
        return {"list": [1, {"in": ["a"]}], "pair": (1, [2])}
    scalars: dict[type, Any] = {mi.StrType: "s", mi.IntType: 1, mi.FloatType: 1.5,
                                mi.BoolType: True, mi.NoneType: None, mi.BytesType: b"b"}
    return scalars[type(t)]


def test_a_copy_of_a_state_that_holds_something_everywhere_shares_nothing_mutable() -> None:
    """Every field filled (as no encounter fills them all at once): a field added to the state
    is copied as its type says, with nothing to list by hand."""
    state = sample(mi.type_info(EncounterState))
    assert isinstance(state, EncounterState)
    assert all(getattr(state, f) not in ([], {}, None) for f in state.__struct_fields__)
    assert_a_copy(state, copy_state(state))


def test_what_a_copy_shares_is_frozen() -> None:
    state = sample(mi.type_info(EncounterState))
    copy = copy_state(state)
    assert copy.options is state.options and copy.battle_map is state.battle_map
    for field in ("combatants", "tokens", "vitals", "initiative"):
        mine, theirs = getattr(copy, field), getattr(state, field)
        assert mine is not theirs
        assert all(mine[k] is theirs[k] for k in theirs)  # frozen: replaced on a change


def test_deep_copies_plain_data_of_unknown_type() -> None:
    class Color(enum.Enum):
        RED = 1

    value = {"a": [1, {"b": (2, [3])}], "c": {4}, "d": Color.RED, "e": bytearray(b"x")}
    copy = deep(value)
    assert copy == value
    assert not {id(m) for m in mutables(copy)} & {id(m) for m in mutables(value)}


class Node(msgspec.Struct):
    name: str
    children: list[Node] = []


def test_a_struct_that_holds_itself_is_copied() -> None:
    tree = Node("a", [Node("b", [Node("c")])])
    copy = copier(Node)(tree)
    assert copy == tree and copy.children[0].children[0] is not tree.children[0].children[0]


def played(table: Table, turns: int) -> Iterator[EncounterState]:
    """The states of ``table`` as it plays ``turns`` ends of turn."""
    yield table.state
    for _ in range(turns):
        if table.state.current is None or table.state.ended:
            return
        table.command(msg.Act(id="e", combatant=table.state.current, action="end_turn"))
        yield table.state


@pytest.mark.parametrize("example", EXAMPLES)
def test_copies_of_the_shipped_examples_share_nothing_mutable(example: str) -> None:
    table = Table.from_example(example, dice_seed=5)
    table.do("start_encounter")
    for state in played(table, 8):
        assert_a_copy(state, copy_state(state))


# --- a refused command changes nothing ---------------------------------------------------------


def scene() -> Table:
    table = Table(PARTY, encounter_id="enc", dice_seed=1)
    table.do("start_encounter")
    return table


def refused(state: EncounterState, cmd: msg.Command, by: Any = GM,
            ctx: engine.Context | None = None) -> ErrorCode:
    """Decide ``cmd``, which must be refused; the state must be exactly as it was."""
    before, held = dump_state(state), copy_state(state)
    with pytest.raises(Rejected) as refusal:
        engine.decide(state, by, cmd, ctx or engine.Context(now_ms=1, new_id=lambda: "x"))
    assert dump_state(state) == before and state == held
    return refusal.value.code


def test_refusals_before_the_decider_changes_anything_change_nothing() -> None:
    table = scene()
    s = table.state
    player = table.invite("twilight")
    s = table.state
    assert refused(EncounterState(id="none"), msg.StartEncounter(id="s")) == \
        ErrorCode.NOT_FOUND
    assert refused(s, msg.Act(id="a", combatant=s.current or "", action="end_turn",
                              expect_turn="no-such-turn")) == ErrorCode.STALE
    assert refused(s, msg.AddCombatant(id="a", combatant=StatBlock(name="Dog 2")),
                   by=player) == ErrorCode.FORBIDDEN
    assert refused(s, msg.StartEncounter(id="s2")) == ErrorCode.ILLEGAL_ACTION  # the chart
    assert refused(s, msg.Act(id="a", combatant="dog", action="no_such_action")) in (
        ErrorCode.ILLEGAL_ACTION, ErrorCode.INVALID_PAYLOAD)
    assert refused(s, msg.Act(id="a", combatant="twilight", action="end_turn"),
                   by=player) in (ErrorCode.NOT_YOUR_TURN, ErrorCode.ILLEGAL_ACTION)
    # another ruleset's GM command
    at = Table.from_example("action-time-ponies-vs-diamond-dogs.yaml", dice_seed=1)
    assert refused(at.state, msg.LoadObject(id="l", combatant="brute", weight=1.0)) == \
        ErrorCode.ILLEGAL_ACTION
    # an encounter that has ended
    table.do("end_encounter")
    assert refused(table.state, msg.Act(id="a", combatant="dog", action="end_turn")) == \
        ErrorCode.ILLEGAL_ACTION


def test_refusals_after_the_decider_changed_its_copy_change_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A refusal that comes after events were emitted and folded into the decider's copy:
    a step that refuses after another, an inconsistency found at the end, a command that
    emits nothing."""
    table = scene()
    s = table.state

    def add_then_refuse(d: Decision, cmd: msg.AddCombatant) -> None:
        gm.add_combatant(d, cmd)
        assert d.events and len(d.s.combatants) > len(s.combatants)
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "refused after the change")

    def remove_then_break(d: Decision, cmd: msg.RemoveCombatant) -> None:
        gm.remove_combatant(d, cmd)
        d.s.order.append(d.s.order[0])  # a combatant twice in the order: inconsistent

    def nothing(d: Decision, cmd: msg.SetHidden) -> None:
        d.s.round += 10  # (changed, yet no event: refused as nothing to do)

    monkeypatch.setitem(engine._HANDLERS, msg.AddCombatant, add_then_refuse)
    monkeypatch.setitem(engine._HANDLERS, msg.RemoveCombatant, remove_then_break)
    monkeypatch.setitem(engine._HANDLERS, msg.SetHidden, nothing)
    assert refused(s, msg.AddCombatant(id="a", combatant=StatBlock(
        name="Late Dog", initiative=2))) == ErrorCode.ILLEGAL_ACTION
    assert refused(s, msg.RemoveCombatant(id="r", combatant="dash")) == \
        ErrorCode.ILLEGAL_ACTION
    assert refused(s, msg.SetHidden(id="h", combatant="dog", hidden=True)) == \
        ErrorCode.ILLEGAL_ACTION


def test_refused_acts_in_the_shipped_examples_change_nothing() -> None:
    """Through the engine's table (``Table.refused`` checks the state and the log): an attack
    out of turn, an unknown target, a roll nobody asked for."""
    for example in EXAMPLES:
        table = Table.from_example(example, dice_seed=5)
        table.do("start_encounter")
        current = table.state.current
        other = next(c for c in table.state.order if c != current)
        if table.state.combatants[other].kind == "pc":  # (a player's, out of its turn)
            table.refused_act(other, "end_turn", by=table.invite(other))
        table.refused_act(current or "", "attack", target="nobody")
        table.refused("submit_roll", request="no-such-request", faces=[1])


# --- a state held before a command -------------------------------------------------------------


def test_states_held_before_commands_stay_as_they_were() -> None:
    """Each state after a command is kept, as the rooms keep the one their viewers were
    shown; the later commands are decided from the newest, and the log is folded in place
    over a copy of an early one, as a room folds another process's events: nothing held
    changes."""
    table = scene()
    table.invite("twilight", "dash")
    table.command(msg.AddCombatant(id="a", combatant=StatBlock(name="Late Dog",
                                                               initiative=2)))
    held = [(s, dump_state(s)) for s in played(table, 12)]
    table.command(msg.SetHidden(id="h", combatant="lurker", hidden=False))
    table.command(msg.AdjustCombatant(id="j", combatant="dog", fatigue=-3, reason="a fall"))
    held += [(s, dump_state(s)) for s in played(table, 6)]
    table.command(msg.RemoveCombatant(id="r", combatant="dash"))
    held.append((table.state, dump_state(table.state)))
    first = held[0][0]
    folded = copy_state(first)
    for envelope in table.envelopes[first.version:]:
        apply(folded, envelope)
    assert folded == table.state
    for state, dump in held:
        assert dump_state(state) == dump
