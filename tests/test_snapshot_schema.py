"""A snapshot's ``state`` is exactly what ``docs/protocol/snapshot-state.schema.json`` says.

The schema is generated from ``protocol.snapshot`` and the rulesets' ``Declaration.view``
(``python -m docgen``); the state is built by ``encounter.views.view_state``. Every object of
the schema the server builds is closed (``additionalProperties: false``) and requires its
fields, so a field the server sends and the declarations do not name, or one they name and it
does not send, fails here. The snapshots checked: those of the GM, a player of each player
character, a spectator and integrations, after every command of scenes played in-process on
both rulesets' shipped examples (``server/examples/``), the social scene, a battle map with a
flyer and a grab, effects, physical dice waiting, a readied action, hidden combatants and an
ended encounter, and along the logs of ``tests/data`` (earlier commits' scenes); each matches
the alternative of its ruleset and viewer, and the snapshot message the server messages'
schema.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest

from docgen import docs
from docgen import snapshot as snap
from encounter.actors import Actor
from encounter.fold import fold
from encounter.harness import GM, Refused, Table, wire
from encounter.legal import legal_actions
from encounter.registry import declaration, names
from encounter.state import EncounterState
from encounter.views import view_state
from protocol import messages as msg
from protocol.events import Envelope
from protocol.snapshot import RULESET_PARTS
from tests.record_logs import random_act

EXAMPLES = sorted((Path(docs.ROOT) / "server" / "examples").glob("*.yaml"))
LOGS = sorted((Path(__file__).parent / "data").glob("logs-*/*.events.json"))


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((docs.OUT / name).read_text(encoding="utf-8"))
    return data


#: The state's schema closed (no field beyond those described, anywhere): what the server's
#: snapshots are held to here, so that a field it sends and the schema does not describe fails.
SCHEMA = snap.snapshot_schema(closed=True)
#: As published: the same, open to the fields a later server of protocol 1 may add.
PUBLISHED = jsonschema.Draft202012Validator(load(snap.SNAPSHOT_SCHEMA))
SERVER = jsonschema.Draft202012Validator(load(docs.SERVER_SCHEMA))


def only(alternative: str) -> jsonschema.Draft202012Validator:
    """The state's schema with one alternative: a ruleset's, as one viewer sees it."""
    return jsonschema.Draft202012Validator(
        {**SCHEMA, "oneOf": [{"$ref": f"#/$defs/{alternative}"}]})


VALIDATORS = {snap.alternative_name(r, v): only(snap.alternative_name(r, v))
              for r in names() for v in snap.VIEWERS}
WHOLE = jsonschema.Draft202012Validator(SCHEMA)


def errors_of(v: jsonschema.Draft202012Validator, instance: Any) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path)) or '<root>'}: {e.message}"
            for e in v.iter_errors(instance)]


def filled(value: Any) -> bool:
    return value not in ([], {}, None, False, "")


@dataclass
class Seen:
    """What the snapshots checked so far held: the fields each ruleset's filled, somewhere."""

    count: int = 0
    fields: dict[str, set[str]] = field(default_factory=dict)

    def note(self, ruleset: str, path: str, value: Any) -> None:
        if filled(value):
            self.fields.setdefault(ruleset, set()).add(path)
        if isinstance(value, dict) and path.count(".") < 3:
            for k, v in value.items():
                key = "*" if _by_id(path) else k
                self.note(ruleset, f"{path}.{key}" if path else key, v)
        elif isinstance(value, list) and path.count(".") < 3:
            for v in value:
                self.note(ruleset, f"{path}[]", v)


def _by_id(path: str) -> bool:
    """A mapping by combatant (or statement) id: its keys are not field names."""
    return path.rsplit(".", 1)[-1] in ("readied", "positions", "grabs", "arguments",
                                       "attitudes", "answers", "reservations", "numbers",
                                       "in_hoof", "standing", "stats", "budget")


SEEN = Seen()
CHECKED: set[tuple[str, str]] = set()


def check(state: EncounterState, viewer: Actor) -> None:
    """The viewer's snapshot of ``state`` matches its alternative, and only that one."""
    message = wire(msg.Snapshot(encounter=state.id, seq=1, reason="join",
                                state=view_state(state, viewer)))
    view = message["state"]
    name = snap.alternative_name(state.ruleset, "gm" if viewer.sees_all else "table")
    key = (name, json.dumps(view, sort_keys=True))
    if key in CHECKED:  # the same snapshot again (a command that changed nothing it shows)
        return
    CHECKED.add(key)
    errors = errors_of(VALIDATORS[name], view)
    assert not errors, f"{name} for {viewer.role} {sorted(viewer.scopes)}: {errors[:5]}"
    SEEN.count += 1
    SEEN.note(state.ruleset, "", view)
    if SEEN.count % 25 == 1:  # the whole document and the message: slower, so now and then
        assert not errors_of(WHOLE, view)
        assert not errors_of(PUBLISHED, view)
        assert not errors_of(SERVER, message)


@dataclass
class Watchers:
    """The GM, a spectator, integrations (``view:gm``, ``roll``), a player of each player
    character and one of all of them. The first three players look at every snapshot; the
    others at every fourth."""

    viewers: list[Actor]
    calls: int = 0

    @classmethod
    def of(cls, table: Table) -> Watchers:
        pcs = [c.id for c in table.state.combatants.values() if c.kind == "pc"]
        viewers = [GM, table.spectator(), table.integration("view:gm"),
                   table.integration("roll"), *(table.invite(p) for p in pcs)]
        if len(pcs) > 1:
            viewers.append(table.invite(*pcs))
        return cls(viewers)

    def check(self, table: Table) -> None:
        self.calls += 1
        for v in self.viewers if self.calls % 4 == 1 else self.viewers[:2] + self.viewers[4:5]:
            check(table.state, v)


def plan(table: Table, rng: random.Random) -> msg.Command | None:
    """A command the GM might send now: a die for a roll waiting, else a legal action."""
    legal = table.legal(GM)
    rolls = [a for a in legal if a.action == "submit_roll"]
    if rolls:
        pending = table.state.pending_rolls[(rolls[0].targets or [""])[0]]
        faces = [rng.randint(1, sides) for sides in pending.dice]
        return msg.SubmitRoll(id="r", request=pending.request, faces=faces)
    return random_act(legal, rng, "a", end_share=0.3, trigger="when a dog moves")


def play(table: Table, watchers: Watchers, moves: int, seed: int) -> None:
    rng = random.Random(seed)
    for step in range(moves):
        if table.state.ended:
            break
        cmd = plan(table, rng)
        if cmd is None:
            break
        cmd = msgspec.structs.replace(cmd, id=f"p{step}")
        try:
            table.command(cmd)
        except Refused:
            continue
        watchers.check(table)


def answer_rolls(table: Table, watchers: Watchers) -> None:
    """Every die waiting answered, one request at a time, each face a 1."""
    while table.state.pending_rolls:
        pending = next(iter(table.state.pending_rolls.values()))
        table.do("submit_roll", request=pending.request, faces=[1 for _ in pending.dice])
        watchers.check(table)


def hide_one(table: Table) -> None:
    """An NPC hidden, with an effect of its own on it."""
    npc = next(c.id for c in table.state.combatants.values() if c.kind == "npc")
    table.do("set_hidden", combatant=npc, hidden=True)
    table.do("add_effect", name="Lurking", combatant=npc, rounds=3, origin=npc)


def ended(table: Table, watchers: Watchers) -> None:
    table.do("end_encounter", reason="the dogs flee")
    assert table.state.ended
    watchers.check(table)


# --- the shipped examples, played ------------------------------------------------------------


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.stem)
@pytest.mark.parametrize("dice", ["server", "physical"])
def test_every_snapshot_of_a_shipped_example_follows_the_schema(example: Path,
                                                                dice: str) -> None:
    options: dict[str, Any] = {"dice_seed": 5}
    if dice == "physical":
        options.update(players_roll=True, manual_rolls=True)
    table = Table.from_example(example, **options)
    watchers = Watchers.of(table)
    watchers.check(table)
    table.do("start_encounter")
    watchers.check(table)
    answer_rolls(table, watchers)  # initiative, with physical dice
    table.do("add_effect", name="Bless", rounds=2)
    if table.state.ruleset == "dramatic":
        for cid in list(table.state.combatants)[:3]:
            table.do("size_argument", combatant=cid, size="small", text="the mill is ours")
        pcs = [c.id for c in table.state.combatants.values() if c.kind == "pc"]
        npcs = [c.id for c in table.state.combatants.values() if c.kind == "npc"]
        table.do("set_attitude", holder=npcs[0], toward=pcs[0], attitude="unfriendly")
        table.do("call_perception", dc=100, take_10=True)  # none notices: unaware (R82)
    hide_one(table)
    watchers.check(table)
    # (the seed: one whose play reaches every field FILLED names, with the hidden NPC's dice
    # on the stream behind the screen)
    play(table, watchers, 60, seed=len(example.name) + 1)
    if not table.state.ended:
        ended(table, watchers)


# --- scenes for what random play may miss ----------------------------------------------------


def flyer(cid: str, kind: str, at: list[int], init: int) -> dict[str, Any]:
    return {"name": cid.title(), "id": cid, "kind": kind, "initiative": init, "position": at,
            "stats": {"str": 14, "speed": 6, "fly_speed": 8, "fatigue_points": 12,
                      "skills": {"melee": 4}}}


def test_a_battle_map_a_flyer_a_grab_and_a_readied_action_follow_the_schema() -> None:
    table = Table([flyer("ace", "pc", [0, 0], 50), flyer("bee", "pc", [3, 2], 30),
                   flyer("dog", "npc", [1, 1], 10)],
                  map={"width": 12, "height": 4, "blocked": [[6, 3]],
                       "difficult": [[5, 0]]}, dice_seed=2)
    watchers = Watchers.of(table)
    table.do("start_encounter")
    table.act("ace", "move", path=[[1, 0], [2, 0]], fly=True)
    assert table.state.flying == ["ace"]
    watchers.check(table)
    table.act("ace", "end_turn")
    table.act("bee", "ready", action="move", trigger="when the dog moves")
    assert table.state.readied
    watchers.check(table)
    table.act("bee", "end_turn")
    for _ in range(6):  # the dog grabs until it holds someone
        if table.state.grabs:
            break
        if table.state.current == "dog" and "grab" in [a.action for a in table.legal()
                                                        if a.combatant == "dog"]:
            table.act("dog", "grab", target="ace")
        table.act(table.state.current or "dog", "end_turn")
    watchers.check(table)
    ended(table, watchers)


def test_a_reservation_waiting_for_the_gm_follows_the_schema() -> None:
    """A statement accepted with reservation, waiting for the GM's ruling on the doubt (R48),
    a hidden speaker's among them."""
    pony = {"cha": 30, "skills": {"persuasion": 30}, "fatigue_points": 40}
    table = Table([{"name": "Ace", "id": "ace", "kind": "pc", "initiative": 50, "stats": pony},
                   {"name": "Lurker", "id": "lurker", "initiative": 30, "stats": pony},
                   {"name": "Bee", "id": "bee", "kind": "pc", "initiative": 1}], dice_seed=2)
    watchers = Watchers.of(table)
    table.do("start_encounter")
    for speaker in ("ace", "lurker"):
        arg = table.send("size_argument", combatant=speaker, size="fine").ack["result"]
        table.act(speaker, "dispute", target="bee", argument=arg["argument"])
        table.act("bee", "answer_statement", answer="accept_with_reservation")
        table.act(speaker, "end_turn")
        if speaker == "ace":
            table.do("set_hidden", combatant="lurker", hidden=True)
    assert len(table.state.reservations) == 2
    watchers.check(table)


def test_physical_dice_waiting_follow_the_schema() -> None:
    table = Table([{"name": "Ace", "id": "ace", "kind": "pc", "initiative": 5},
                   {"name": "Dog", "id": "dog", "initiative": 1},
                   {"name": "Lurker", "id": "lurker", "initiative": 3, "hidden": True}],
                  players_roll=True, manual_rolls=True)
    watchers = Watchers.of(table)
    table.do("start_encounter")
    assert table.state.pending_rolls
    watchers.check(table)
    answer_rolls(table, watchers)


def test_a_turn_timer_and_verifiable_dice_follow_the_schema() -> None:
    table = Table([{"name": "Ace", "id": "ace", "kind": "pc", "initiative": 5},
                   {"name": "Dog", "id": "dog", "initiative": 1}],
                  dice_secret=bytes(range(32)), turn_seconds=30, turn_warning_seconds=5)
    watchers = Watchers.of(table)
    table.do("start_encounter")
    assert table.state.timer is not None and table.state.dice_commitment is not None
    watchers.check(table)
    table.do("pause_turn_timer")
    watchers.check(table)
    table.do("end_encounter")
    assert table.state.dice_secret is not None
    watchers.check(table)


def test_a_request_to_undo_and_an_undo_follow_the_schema() -> None:
    """A player's request to take back its attack, waiting for the GM, then the undo that
    grants it (R108)."""
    table = Table([{"name": "Ace", "id": "ace", "kind": "pc", "initiative": 50},
                   {"name": "Dog", "id": "dog", "initiative": 1}], dice_seed=4)
    watchers = Watchers.of(table)
    table.do("start_encounter")
    player = table.invite("ace")
    table.act("ace", "attack", target="dog", by=player)
    table.send("request_undo", combatant="ace", reason="the other dog", by=player)
    assert table.state.undo_requests
    watchers.check(table)
    check(table.state, player)
    table.do("undo", request=next(iter(table.state.undo_requests)))
    watchers.check(table)


def test_the_turn_of_the_gms_screen_follows_the_schema() -> None:
    """Anonymous hidden turns (R99): ``screen`` in the order, as ``current`` and the table's
    ``turn``, and the two options a player or spectator is told, along a round with someone
    behind the screen and one without."""
    table = Table([{"name": "Ace", "id": "ace", "kind": "pc", "initiative": 50},
                   {"name": "Lurker", "id": "lurker", "initiative": 30, "hidden": True},
                   {"name": "Dog", "id": "dog", "initiative": -50}],
                  dice_seed=5, anonymous_hidden_turns=True, screen_count=10)
    watchers = Watchers.of(table)
    table.do("start_encounter")
    for cid in ("ace", "lurker", "dog"):
        assert table.state.current == cid
        watchers.check(table)
        table.act(cid, "end_turn")
    table.do("remove_combatant", combatant="lurker")
    table.act("ace", "end_turn")
    assert table.state.current == "screen"
    watchers.check(table)
    table.act("screen", "end_turn")
    watchers.check(table)


def test_action_time_numbers_effects_and_what_is_in_hoof_follow_the_schema() -> None:
    table = Table.from_example(
        next(p for p in EXAMPLES if p.stem == "action-time-ponies-vs-diamond-dogs"),
        dice_seed=9)
    watchers = Watchers.of(table)
    table.do("start_encounter")
    for _ in range(12):
        cid = table.state.current
        assert cid is not None
        acts = [a.action for a in table.legal() if a.combatant == cid]
        for action in ("defend", "guard_up", "aim"):
            if action in acts:
                table.act(cid, action)
                break
        watchers.check(table)
        table.act(cid, "end_turn")
    assert table.state.action_time.effects
    watchers.check(table)


# --- earlier commits' logs, folded one event at a time ---------------------------------------


def prefixes(envelopes: list[Envelope]) -> Iterator[EncounterState]:
    for n in range(1, len(envelopes) + 1, 3):
        yield fold("enc", envelopes[:n])


@pytest.mark.parametrize("log", LOGS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_snapshots_along_a_recorded_log_follow_the_schema(log: Path) -> None:
    envelopes = msgspec.json.decode(log.read_bytes(), type=list[Envelope])
    for state in prefixes(envelopes):
        pcs = frozenset(c.id for c in state.combatants.values() if c.kind == "pc")
        for viewer in (GM, Actor(role="spectator", token_id="s"),
                       *(Actor(role="player", token_id=f"p-{p}", combatants=frozenset({p}))
                         for p in sorted(pcs))):
            check(state, viewer)
        assert legal_actions(state, GM) is not None


# --- what the checks saw, and what they refuse ----------------------------------------------


def test_the_snapshots_checked_fill_every_field_of_the_schema() -> None:
    """Run after the scenes above (pytest runs a file's tests in order): each field of the
    protocol's state was filled in some snapshot checked, each of a ruleset's own parts in one
    of that ruleset, and so were the objects within, so that the checks above saw each of
    them."""
    if not SEEN.count:
        pytest.skip("run with the scenes above")
    common = set(snap.VIEWERS["gm"][0].__struct_fields__) - set(RULESET_PARTS)
    anywhere = set().union(*SEEN.fields.values())
    assert common <= anywhere, common - anywhere
    for ruleset in ("dramatic", "action_time"):
        own = declaration(ruleset).view
        assert own is not None
        unfilled = set(own.__struct_fields__) - SEEN.fields[ruleset]
        assert not unfilled, (ruleset, unfilled)
    for ruleset, paths in FILLED.items():
        missing = [p for p in paths if p not in SEEN.fields[ruleset]]
        assert not missing, (ruleset, missing)


#: Objects within the state that the scenes above must have shown (``[]``: an item of a list,
#: ``*``: a value of a mapping by id).
FILLED = {
    "dramatic": ("combatants[].vitals", "combatants[].stats", "effects[].origin",
                 "pending_rolls[].context", "social.event", "social.standing.*",
                 "answers.*", "reservations.*", "arguments.*", "attitudes.*", "numbers.*",
                 "readied.*", "map", "positions.*", "grabs.*", "tokens[]", "turn.budget",
                 "initiative[]"),
    "action_time": ("action_time.effects[]", "action_time.in_hoof.*",
                    "action_time.numbers.*", "combatants[].vitals"),
}


def gm_view() -> dict[str, Any]:
    table = Table([{"name": "Ace", "id": "ace", "kind": "pc", "initiative": 5},
                   {"name": "Dog", "id": "dog", "initiative": 1}], dice_seed=1)
    table.do("start_encounter")
    view: dict[str, Any] = wire(table.view(GM))
    return view


def test_the_schema_refuses_an_undocumented_field_a_missing_one_and_a_viewers_mixup() -> None:
    view = gm_view()
    v = VALIDATORS["dramatic.gm"]
    assert not errors_of(v, view)
    assert errors_of(v, {**view, "sparkles": 1})
    extra = json.loads(json.dumps(view))
    extra["combatants"][0]["sparkles"] = 1
    assert errors_of(v, extra)
    extra = json.loads(json.dumps(view))
    extra["combatants"][0]["vitals"]["physical"]["sparkles"] = 1
    assert errors_of(v, extra)
    missing = {k: val for k, val in view.items() if k != "flat_footed"}
    assert errors_of(v, missing)
    # the GM's state is not a player's, nor one ruleset's another's
    assert errors_of(VALIDATORS["dramatic.table"], view)
    assert errors_of(VALIDATORS["action_time.gm"], view)
    assert len(SCHEMA["oneOf"]) == len(VALIDATORS) + len(snap.VIEWERS)
    assert not errors_of(WHOLE, view)


def test_the_published_schema_is_open_to_fields_a_later_server_adds() -> None:
    """As published the objects are open, as the protocol's messages are: a field a later
    server of protocol 1 adds passes; a missing field, or the GM's state taken for a
    player's, does not."""
    view = gm_view()
    extra = json.loads(json.dumps(view))
    extra["sparkles"] = extra["combatants"][0]["sparkles"] = 1
    assert not errors_of(PUBLISHED, extra)
    assert errors_of(PUBLISHED, {k: v for k, v in view.items() if k != "flat_footed"})
    published = load(snap.SNAPSHOT_SCHEMA)
    table = jsonschema.Draft202012Validator(
        {**published, "oneOf": [{"$ref": "#/$defs/dramatic.table"}]})
    assert errors_of(table, view)
    assert '"additionalProperties": false' not in json.dumps(published)


def test_a_ruleset_beyond_the_documented_ones_has_the_protocol_s_fields() -> None:
    """A ruleset the server registers beyond the shipped ones (the tests' toy ruleset, say)
    sends the protocol's fields and parts of its own, which the document does not describe."""
    view = {**gm_view(), "ruleset": "kindling", "kindling": {"embers": {}}}
    assert not errors_of(WHOLE, view)
    assert not errors_of(only(snap.alternative_name(snap.OTHER, "gm")), view)
    assert errors_of(WHOLE, {k: v for k, v in view.items() if k != "combatants"})


def test_the_server_messages_schema_takes_the_state_in() -> None:
    schema = load(docs.SERVER_SCHEMA)
    state = schema["$defs"]["Snapshot"]["properties"]["state"]
    assert state["$ref"] == f"#/$defs/{snap.EMBEDDED}"
    message = {"type": "snapshot", "encounter": "e", "seq": 1, "reason": "join",
               "state": gm_view(), "digest": None}
    assert not errors_of(SERVER, message)
    # open to fields a later server may add, not to a state without its fields
    assert not errors_of(SERVER, {**message, "state": {**message["state"], "sparkles": 1}})
    without = {k: v for k, v in message["state"].items() if k != "combatants"}
    assert errors_of(SERVER, {**message, "state": without})
    asyncapi = docs.asyncapi()
    ref = asyncapi["components"]["schemas"]["Snapshot"]["properties"]["state"]["$ref"]
    assert ref == f"#/components/schemas/{snap.EMBEDDED}"


def test_the_guide_s_table_names_every_field() -> None:
    guide = docs.GUIDE.read_text(encoding="utf-8")
    region = guide.split("<!-- snapshot-state:begin -->")[1].split("<!-- snapshot-state:end -->")[0]
    for r in names():
        for name in SCHEMA["$defs"][snap.alternative_name(r, "gm")]["properties"]:
            assert f"| `{name}` |" in region, name
