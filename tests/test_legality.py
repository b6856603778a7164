"""One legality (docs/architecture.md, "Actions, declared once"): in random scenes of both
rulesets and for every role, a command built from an entry of ``legal_actions`` is accepted,
and an action, a combatant or a target that ``legal_actions`` does not list is refused and
changes nothing. In-process, through ``engine.decide`` and ``legal_actions``."""

from __future__ import annotations

import functools
import itertools
from typing import Any

import msgspec
from hypothesis import given, settings
from hypothesis import strategies as st

from encounter import engine
from encounter.actors import Actor
from encounter.declare import GROUPS, Action
from encounter.harness import Table
from encounter.legal import legal_actions
from encounter.registry import catalog
from encounter.state import EncounterState
from protocol import messages as msg
from protocol.messages import LegalAction

GM = Actor(role="gm", token_id="gm")

#: The credentials a scene is checked for (``None``: a player of the scene's first player
#: character, made for the scene).
ROLES: dict[str, Actor | None] = {
    "gm": GM,
    "player": None,
    "players integration": Actor(role="integration", token_id="i1",
                                 scopes=frozenset({"command:players", "view:public"})),
    "gm integration": Actor(role="integration", token_id="i2",
                            scopes=frozenset({"command:gm", "view:public"})),
    "gm integration that sees all": Actor(role="integration", token_id="i3",
                                          scopes=frozenset({"command:gm", "view:gm"})),
}


# --- scenes -------------------------------------------------------------------------------------


@st.composite
def dramatic_block(draw: st.DrawFn, i: int) -> dict[str, Any]:
    pc = draw(st.booleans())
    stats: dict[str, Any] = {
        "fatigue_points": draw(st.integers(3, 12)),
        "skills": {"melee": draw(st.integers(0, 8)), "persuasion": draw(st.integers(0, 8)),
                   "deception": draw(st.integers(0, 6))},
        "size": draw(st.sampled_from(["small", "medium", "medium", "large", "huge"])),
        "weapons": draw(st.sampled_from([
            [], [{"name": "hoof", "damage": "1d4", "kind": "melee"}],
            [{"name": "claws", "damage": "1d6", "kind": "natural"},
             {"name": "club", "damage": "1d8", "kind": "melee"}]])),
    }
    if not pc and draw(st.integers(0, 5)) == 0:
        stats = {"nature": "object", "fatigue_points": 6, "str": 14}  # a door to break
    return {"name": f"C{i}", "id": f"c{i}", "kind": "pc" if pc else "npc",
            "side": draw(st.sampled_from(["party", "party", "enemies"])) if pc else None,
            "initiative": draw(st.integers(-2, 6)), "hidden": draw(st.integers(0, 6)) == 0,
            "aware": draw(st.integers(0, 4)) != 0, "stats": stats}


@st.composite
def action_time_block(draw: st.DrawFn, i: int) -> dict[str, Any]:
    die = st.sampled_from(["d4", "d6", "d8", "d10"])
    weapons: list[dict[str, Any]] = [{"name": "Hoof", "damage": "d6", "kind": "melee",
                                      "stowed": draw(st.integers(0, 4)) == 0}]
    if draw(st.booleans()):
        weapons.append({"name": "Sling", "damage": "d4", "kind": "ranged", "range": 20,
                        "reload": draw(st.sampled_from(["free", "minor", "major"])),
                        "stowed": draw(st.booleans())})
    stats: dict[str, Any] = {
        "body": draw(die), "mind": draw(die), "health": draw(st.integers(3, 10)),
        "defense": draw(st.integers(2, 6)), "speed": draw(st.sampled_from([6, 10])),
        "bandages": draw(st.sampled_from(["ready", "stowed", "none"])), "weapons": weapons,
    }
    if draw(st.booleans()):
        stats["spells"] = [{"name": "Glow", "cast": draw(st.sampled_from(["major", "minor",
                                                                          "free"]))}]
    pc = draw(st.booleans())
    return {"name": f"C{i}", "id": f"c{i}", "kind": "pc" if pc else "npc",
            "side": "party" if pc else draw(st.sampled_from(["enemies", "enemies", "party"])),
            "hidden": draw(st.integers(0, 6)) == 0, "stats": stats}


@st.composite
def scenes(draw: st.DrawFn) -> tuple[str, list[dict[str, Any]], dict[str, Any], bool]:
    ruleset = draw(st.sampled_from(["dramatic", "action_time"]))
    block = dramatic_block if ruleset == "dramatic" else action_time_block
    count = draw(st.integers(2, 5))
    blocks = [draw(block(i)) for i in range(count)]
    if not any(b["kind"] == "pc" and not b["hidden"] for b in blocks):
        blocks[0] = {**blocks[0], "kind": "pc", "hidden": False, "side": "party"}
    options: dict[str, Any] = {"dice_seed": draw(st.integers(0, 10_000)),
                               "manual_rolls": draw(st.integers(0, 3)) == 0,
                               "players_roll": draw(st.integers(0, 3)) == 0}
    if ruleset == "dramatic":
        options["recover_in_scene"] = draw(st.booleans())
        options["reactions_while_flat_footed"] = draw(st.booleans())
    else:
        options["heal_self"] = draw(st.booleans())
    statements = ruleset == "dramatic" and draw(st.booleans())  # a social scene
    return ruleset, blocks, options, statements


class Scene:
    """An encounter driven through the decider, on the engine's table (``encounter.harness``);
    ``decide`` asks the decider without keeping what it decides."""

    def __init__(self, ruleset: str, blocks: list[dict[str, Any]], options: dict[str, Any],
                 statements: bool = False) -> None:
        self.table = Table(blocks, ruleset=ruleset, name="Legality", encounter_id="enc",
                           **options)
        self.ctx = self.table.context()
        self.ruleset = ruleset
        self.n = itertools.count()
        for cid in self.state.combatants if statements else ():  # something to argue with
            self.do(msg.SizeArgument(id=f"s{cid}", combatant=cid, size="medium"))
        self.do(msg.StartEncounter(id="start"))

    @property
    def state(self) -> EncounterState:
        return self.table.state

    def do(self, cmd: msg.Command, actor: Actor = GM) -> None:
        self.table.command(cmd, by=actor)

    def decide(self, cmd: msg.Command, actor: Actor) -> None:
        engine.decide(self.state, actor, cmd, self.ctx)

    def player(self) -> Actor:
        pcs = [c for c in self.state.combatants.values() if c.kind == "pc" and not c.hidden]
        return Actor(role="player", token_id="p", combatants=frozenset({pcs[0].id}))


# --- commands built from the schema ---------------------------------------------------------------


@functools.cache
def _fields(args: type[msgspec.Struct]) -> dict[str, tuple[bool, Any]]:
    """Each argument: whether it is required, and the first example its schema gives (or the
    first of the values it may take)."""
    (ref,), defs = msgspec.json.schema_components([args])
    props = defs[ref["$ref"].rsplit("/", 1)[1]].get("properties", {})

    def example(schema: dict[str, Any]) -> Any:
        if "$ref" in schema:
            schema = {**defs[schema["$ref"].rsplit("/", 1)[1]], **schema}
        return (schema.get("examples") or schema.get("enum") or [None])[0]
    return {f.name: (f.required, example(props.get(f.name, {})))
            for f in msgspec.structs.fields(args)}


def build_args(state: EncounterState, action: Action, entry: LegalAction | None,
               target: str | None) -> dict[str, Any]:
    """The arguments of a command for ``entry``: ``target`` where the action names its
    target, the first of each listed option, and the schema's example of any other required
    argument. A Conversation answers with a statement of the target's (its ``against``)."""
    fields = _fields(action.args)
    args: dict[str, Any] = {}
    if target is not None and action.targets is not None:
        args[action.targets.fields[0]] = target
    for name, values in ((entry.options or {}) if entry is not None else {}).items():
        if values and name in fields and name not in args:
            args[name] = values[0]
    for name, (required, example) in fields.items():
        if name == "against" and target is not None:
            args[name] = next((a for a, arg in sorted(state.arguments.items())
                               if arg.owner == target and arg.size), "none")
        elif required and name not in args:
            assert example is not None, f"{action.name}: args.{name} needs an example"
            args[name] = example
    return args


def act(actor: str, action: str, args: dict[str, Any]) -> msg.Act:
    return msg.Act(id="probe", combatant=actor, action=action, args=args)


# --- the property ---------------------------------------------------------------------------------


def check(scene: Scene, viewer: Actor) -> int:
    """Every listed entry accepted, anything else refused; the state unchanged. Returns how
    many commands were tried."""
    state = scene.state
    before = msgspec.json.encode(state)
    cat = catalog(state.ruleset)
    legal = legal_actions(state, viewer)
    listed: dict[tuple[str, str], LegalAction] = {}
    tried = 0
    for entry in legal:
        # each entry says its group, and an action what it costs, as the declarations say
        assert entry.group in GROUPS, entry
        if entry.action in ("submit_roll", "server_roll"):
            assert entry.group == "dice" and entry.cost is None, entry
            assert entry.targets is not None
            pending = state.pending_rolls[entry.targets[0]]
            cmd: msg.Command = (msg.ServerRoll(id="probe", request=pending.request)
                                if entry.action == "server_roll" else
                                msg.SubmitRoll(id="probe", request=pending.request,
                                               faces=[1] * len(pending.dice)))
            scene.decide(cmd, viewer)
            tried += 1
            continue
        if entry.action == "request_undo":  # a command of its own (R108), as listed
            assert entry.group == "turn" and entry.combatant is not None, entry
            scene.decide(msg.RequestUndo(id="probe", combatant=entry.combatant), viewer)
            tried += 1
            continue
        if entry.combatant is None:
            assert entry.group == "scene", entry
            continue  # the GM's own commands
        assert (entry.action, entry.combatant) not in listed, entry
        listed[(entry.action, entry.combatant)] = entry
        action = cat.get(entry.action)
        assert action is not None, entry
        assert (entry.group, entry.cost) == (cat.group_of(action), cat.cost_of(action)), entry
        if action.targets is not None and not action.targets.optional:
            assert entry.targets, f"{entry}: an action aimed at someone lists its targets"
        choices: list[str | None] = list(entry.targets or [])
        if not choices or entry.optional_target:
            choices.append(None)
        for target in choices:
            args = build_args(state, action, entry, target)
            try:
                scene.decide(act(entry.combatant, entry.action, args), viewer)
            except engine.Rejected as r:
                raise AssertionError(f"listed but refused: {entry.combatant} {entry.action} "
                                     f"{args}: {r.code} {r.message}") from None
            tried += 1
    # nothing else: every action of the ruleset for every combatant, and every other target
    everyone = [*state.combatants, "nobody"]
    for cid in everyone:
        for action in (*cat.actions, None):
            name = action.name if action is not None else "fly_to_the_moon"
            entry = listed.get((name, cid))
            if entry is None:
                others = [o for o in everyone if o != cid]
                target = others[0] if action is not None and action.targets else None
                args = build_args(state, action, None, target) if action is not None else {}
                refused(scene, viewer, act(cid, name, args))
                tried += 1
            elif action is not None and action.targets is not None:
                for other in everyone:
                    if other not in (entry.targets or []):
                        args = build_args(state, action, entry, other)
                        refused(scene, viewer, act(cid, name, args))
                        tried += 1
    assert msgspec.json.encode(scene.state) == before  # deciding changed nothing
    return tried


def refused(scene: Scene, viewer: Actor, cmd: msg.Act) -> None:
    try:
        scene.decide(cmd, viewer)
    except engine.Rejected:
        return
    raise AssertionError(f"not listed but accepted: {cmd.combatant} {cmd.action} {cmd.args}")


#: Moves that lead to the scenes worth checking (interrupts, statements waiting for an
#: answer, delays, pursuits): played more often than their share of the list.
INTERESTING = ("trigger_ready", "answer_statement", "take_delayed_turn", "pursue",
               "conversation", "dispute", "low_access", "stop_blocking", "ready", "prepare",
               "press_the_attack", "delay", "grab", "melee_attack", "lie", "block", "attack",
               "move")


def play(scene: Scene, choice: int) -> None:
    """A move the GM's list offers (half of them end the turn, some pick the moves that lead
    to interrupts, answers, delays and pursuits), or one of the GM's rulings that make the
    scene more varied: a statement, a wound, a fall, a social event."""
    state = scene.state
    n = next(scene.n)
    living = [c for c in state.combatants if state.vitals[c].alive]
    # no ruling while an action's dice are awaited: knocking out an attacker whose die is
    # still to come leaves a roll that its stage then refuses (a GM ruling in the middle of an
    # action, outside what act and legal_actions decide)
    awaited = any(p.context is not None for p in state.pending_rolls.values())
    if state.ruleset == "dramatic" and choice % 9 == 4 and living and not awaited:
        cid = living[choice // 9 % len(living)]
        v = state.vitals[cid]
        ruling: msg.Command = [
            msg.SizeArgument(id=f"g{n}", combatant=cid, size="medium"),
            msg.SizeArgument(id=f"g{n}", combatant=cid, size="small"),
            msg.AdjustCombatant(id=f"g{n}", combatant=cid, reason="the scenario",
                                prone=not v.prone, fatigue=max(0, v.fatigue - choice % 5)),
            msg.AdjustCombatant(id=f"g{n}", combatant=cid, reason="the scenario",
                                condition="unconscious" if v.conscious else "conscious"),
            msg.SetSocialEvent(id=f"g{n}", rating=choice % 12),
        ][choice // 90 % 5]
        scene.do(ruling)
        return
    options = [a for a in legal_actions(state, GM) if a.combatant is not None]
    if not options:
        return
    enders = [o for o in options if o.action == "end_turn"]
    wanted = [o for name in INTERESTING for o in options if o.action == name]
    if enders and choice % 2 == 0:
        entry = enders[0]
    elif wanted and choice % 3 == 1:
        entry = wanted[choice // 6 % min(2, len(wanted))]
    else:
        entry = options[(choice // 2) % len(options)]
    take(scene, entry, choice, n)


def take(scene: Scene, entry: LegalAction, choice: int, n: int) -> None:
    """The GM takes the listed ``entry``: a physical die rolled by the server, or the action
    at a listed target (which one: ``choice``) with arguments from the schema."""
    state = scene.state
    assert entry.combatant is not None
    if entry.action in ("submit_roll", "server_roll"):
        assert entry.targets is not None
        scene.do(msg.ServerRoll(id=f"m{n}", request=entry.targets[0]))
        return
    action = catalog(state.ruleset).get(entry.action)
    assert action is not None
    target = entry.targets[choice % len(entry.targets)] if entry.targets else None
    args = build_args(state, action, entry, target)
    if state.ruleset == "action_time" and entry.action in ("move", "run"):
        # pursuits (R37); away from whom it may aim at (a visible pony not from a hidden
        # combatant, R79)
        hidden = state.combatants[entry.combatant].hidden
        args["away_from"] = [c for c in state.order if c != entry.combatant
                             and (hidden or not state.combatants[c].hidden)]
    scene.do(act(entry.combatant, entry.action, args))


@settings(max_examples=150, deadline=None)
@given(scenes(), st.lists(st.integers(0, 10_000), min_size=6, max_size=30),
       st.lists(st.sampled_from(sorted(ROLES)), min_size=1, max_size=3))
def test_a_command_is_accepted_exactly_when_legal_actions_lists_it(
        scene_of: tuple[str, list[dict[str, Any]], dict[str, Any], bool], moves: list[int],
        roles: list[str]) -> None:
    scene = Scene(*scene_of)
    for step, choice in enumerate(moves):
        role = roles[step % len(roles)]
        viewer = ROLES[role] or scene.player()
        check(scene, viewer)
        if scene.state.ended:
            break
        play(scene, choice)
    check(scene, GM)


def viewers_of(state: EncounterState) -> list[Actor]:
    """The GM, a dice tower, a spectator and a player for each combatant (hidden ones too)."""
    out = [GM, *(a for a in ROLES.values() if a is not None)]
    out += [Actor(role="player", token_id=f"p-{cid}", combatants=frozenset({cid}))
            for cid in state.combatants]
    return out


@settings(max_examples=80, deadline=None)
@given(scenes(), st.lists(st.integers(0, 10_000), min_size=6, max_size=30))
def test_the_lists_worked_out_together_are_each_the_list_worked_out_alone(
        scene_of: tuple[str, list[dict[str, Any]], dict[str, Any], bool],
        moves: list[int]) -> None:
    """A delivery works out every viewer's legal actions in one state, sharing the parts that
    do not depend on the viewer (``legal_actions``' ``shared``): each list is the one worked
    out for that viewer alone, at every step of a scene, hidden combatants, interrupts and the
    unconscious included."""
    scene = Scene(*scene_of)
    for choice in [*moves, 0]:
        state = scene.state
        shared: dict[object, list[LegalAction]] = {}
        viewers = viewers_of(state)
        together = [legal_actions(state, v, None, shared) for v in viewers]
        assert together == [legal_actions(state, v) for v in viewers]
        if state.ended:
            break
        play(scene, choice)


def test_the_gm_may_trigger_an_npcs_readied_action_from_its_legal_actions() -> None:
    """The drift this test guards against: the GM's list never offered ``trigger_ready`` (nor
    free actions or reactions) for an NPC whose turn it was not, while ``act`` accepted them;
    the GM console draws its buttons from the list."""
    scene = Scene("dramatic", [
        {"name": "Ace", "id": "ace", "kind": "pc", "initiative": 1},
        {"name": "Dog", "id": "dog", "initiative": 5},
    ], {"dice_seed": 1})
    assert scene.state.current == "dog"
    scene.do(act("dog", "ready", {"action": "other_standard", "trigger": "when Ace moves"}))
    scene.do(act("dog", "end_turn", {}))
    assert scene.state.current == "ace"
    offered = {(a.action, a.combatant) for a in legal_actions(scene.state, GM)}
    assert {("trigger_ready", "dog"), ("free", "dog"), ("reaction", "dog")} <= offered
    player = Actor(role="player", token_id="p", combatants=frozenset({"ace"}))
    assert not any(a.combatant == "dog" for a in legal_actions(scene.state, player))
    scene.do(act("dog", "trigger_ready", {}))
    assert [a.action for a in legal_actions(scene.state, GM) if a.combatant == "dog"] == [
        "other_standard"]
    check(scene, GM)


# --- the states random play seldom reaches, played on purpose --------------------------------


def every_role(scene: Scene) -> None:
    for role, viewer in ROLES.items():
        check(scene, viewer or scene.player()), role


def answer(scene: Scene, *faces: int) -> None:
    """Answer the one roll waiting with these faces (then 1s for any other die)."""
    (pending,) = scene.state.pending_rolls.values()
    given = [*faces, *[1] * (len(pending.dice) - len(faces))]
    scene.do(msg.SubmitRoll(id=f"r{next(scene.n)}", request=pending.request, faces=given))


def start(scene: Scene, faces: dict[str, int]) -> None:
    for pending in list(scene.state.pending_rolls.values()):
        scene.do(msg.SubmitRoll(id=f"i{pending.combatant}", request=pending.request,
                                faces=[faces[pending.combatant or ""]]))


def test_delay_ready_interrupt_and_grab_are_offered_as_act_takes_them() -> None:
    pony = {"skills": {"melee": 8}, "fatigue_points": 30,
            "weapons": [{"name": "hoof", "damage": "1d4", "kind": "melee"}]}
    scene = Scene("dramatic", [
        {"name": "Ace", "id": "ace", "kind": "pc", "initiative": 5, "stats": pony},
        {"name": "Bee", "id": "bee", "kind": "pc", "initiative": 3, "stats": pony},
        {"name": "Dog", "id": "dog", "initiative": 1, "stats": pony},
    ], {"players_roll": True, "manual_rolls": True})
    start(scene, {"ace": 10, "bee": 10, "dog": 10})
    assert scene.state.order == ["ace", "bee", "dog"]
    moves: list[tuple[str, str, dict[str, Any]]] = [
        ("ace", "delay", {}), ("ace", "take_delayed_turn", {}), ("bee", "end_turn", {}),
        ("ace", "ready", {"action": "move", "trigger": "when the dog moves"}),
        ("ace", "end_turn", {}), ("ace", "trigger_ready", {}), ("ace", "move", {}),
        ("dog", "grab", {"target": "ace"})]
    for who, name, args in moves:
        every_role(scene)
        scene.do(act(who, name, args))
    every_role(scene)  # the grab's die awaited: only the dice
    answer(scene, 20)
    assert scene.state.grabs == {"ace": ["dog"]}
    every_role(scene)
    scene.do(act("dog", "end_turn", {}))
    while scene.state.current != "ace":  # the delay and the readied action moved Ace (R7, R8)
        every_role(scene)
        scene.do(act(scene.state.current or "", "end_turn", {}))
    every_role(scene)
    assert "move" not in [a.action for a in legal_actions(scene.state, GM)
                          if a.combatant == "ace"]  # grabbed
    scene.do(act("ace", "break_grab", {}))
    every_role(scene)


def test_statements_answers_and_blocking_are_offered_as_act_takes_them() -> None:
    pony = {"cha": 14, "skills": {"persuasion": 5}, "fatigue_points": 40}
    scene = Scene("dramatic", [
        {"name": "Ace", "id": "ace", "kind": "pc", "initiative": 5, "stats": pony},
        {"name": "Bee", "id": "bee", "kind": "pc", "initiative": 3, "stats": pony},
    ], {"players_roll": True}, statements=True)
    start(scene, {"ace": 10, "bee": 10})
    every_role(scene)
    argument = next(a for a, arg in scene.state.arguments.items() if arg.owner == "ace")
    scene.do(act("ace", "dispute", {"target": "bee", "argument": argument}))
    answer(scene, 20)
    answer(scene, 6, 6)
    assert [a.target for a in scene.state.answers.values()] == ["bee"]
    every_role(scene)  # the answer waits: offered to whoever controls Bee
    player_of_bee = Actor(role="player", token_id="b", combatants=frozenset({"bee"}))
    check(scene, player_of_bee)
    assert "answer_statement" in [a.action for a in legal_actions(scene.state, player_of_bee)]
    scene.do(act("bee", "answer_statement", {"answer": "accept_with_reservation"}))
    every_role(scene)
    scene.do(act("ace", "end_turn", {}))
    scene.do(act("bee", "block", {}))
    every_role(scene)
    scene.do(act("bee", "end_turn", {}))
    scene.do(act("ace", "end_turn", {}))
    every_role(scene)  # Bee's own turn: it may stop Blocking
    scene.do(act("bee", "stop_blocking", {}))
    every_role(scene)


def test_a_removed_combatant_leaves_no_statement_waiting() -> None:
    pony = {"cha": 14, "skills": {"persuasion": 5}, "fatigue_points": 40}
    scene = Scene("dramatic", [
        {"name": "Ace", "id": "ace", "kind": "pc", "initiative": 5, "stats": pony},
        {"name": "Bee", "id": "bee", "kind": "pc", "initiative": 3, "stats": pony},
        {"name": "Cat", "id": "cat", "kind": "pc", "initiative": 1, "stats": pony},
    ], {"players_roll": True}, statements=True)
    start(scene, {"ace": 10, "bee": 10, "cat": 10})
    argument = next(a for a, arg in scene.state.arguments.items() if arg.owner == "ace")
    scene.do(act("ace", "dispute", {"target": "bee", "argument": argument}))
    answer(scene, 20)
    answer(scene, 6, 6)
    assert [a.target for a in scene.state.answers.values()] == ["bee"]
    scene.do(msg.RemoveCombatant(id="rm-bee", combatant="bee"))
    assert scene.state.answers == {} and scene.state.reservations == {}
    every_role(scene)


def test_prepare_press_the_attack_and_pursuit_are_offered_as_act_takes_them() -> None:
    hoof = [{"name": "Hoof", "damage": "d6", "kind": "melee"}]
    scene = Scene("action_time", [
        {"name": "Ace", "id": "ace", "kind": "pc",
         "stats": {"body": "d8", "health": 12, "defense": 4, "weapons": hoof}},
        {"name": "Bloom", "id": "bloom", "kind": "pc",
         "stats": {"body": "d6", "health": 10, "defense": 4, "weapons": hoof}},
        {"name": "Brute", "id": "brute",
         "stats": {"body": "d10", "health": 15, "defense": 5, "speed": 10, "weapons": hoof}},
    ], {"players_roll": True, "manual_rolls": True})
    start(scene, {"ace": 8, "bloom": 6, "brute": 4})
    assert scene.state.order == ["ace", "bloom", "brute"]
    every_role(scene)
    scene.do(act("ace", "melee_attack", {"target": "brute"}))
    every_role(scene)  # Ace's die awaited
    answer(scene, 8)  # a hit
    answer(scene, 1)
    every_role(scene)
    scene.do(act("ace", "press_the_attack", {"target": "brute"}))
    scene.do(act("ace", "end_turn", {}))
    scene.do(act("bloom", "prepare", {"action": "melee_attack"}))
    assert scene.state.current == "brute"
    every_role(scene)  # Bloom may take its prepared attack at any time: trigger_ready
    scene.do(act("brute", "move", {"yards": 2, "away_from": ["ace"]}))
    assert scene.state.turn is not None and scene.state.turn.interrupted_by == "ace"
    every_role(scene)  # Ace's pursuit interrupts the Brute's turn (R37)
    scene.do(act("ace", "pursue", {"yards": 2}))
    every_role(scene)
    scene.do(act("bloom", "trigger_ready", {}))
    every_role(scene)
    scene.do(act("bloom", "melee_attack", {"target": "brute"}))
    every_role(scene)


def test_grab_and_ram_are_offered_against_those_within_reach_on_the_battle_map() -> None:
    """REACH: on the battle map a grab or a ram lists only those within the combatant's reach
    (each of them accepted), and leaves out those further away (each refused): an action with
    nobody in reach is not offered at all."""
    table = Table.from_example("dramatic-ponies-vs-diamond-dogs.yaml", dice_seed=3)
    table.do("start_encounter")
    while table.state.current != "twilight":
        table.act(table.state.current or "", "end_turn")
    ctx = table.context()

    def offered() -> dict[str, LegalAction]:
        return {a.action: a for a in legal_actions(table.state, GM) if a.combatant == "twilight"}

    assert table.state.positions["twilight"] == (1, 2)  # two squares from everyone
    assert "grab" not in offered() and "ram" not in offered()
    assert "attack" in offered()  # a ranged weapon reaches them, or a thrown one
    table.act("twilight", "move", path=[[1, 3]])
    entries = offered()
    for name in ("grab", "ram"):
        assert entries[name].targets == ["applejack"]  # next to her now
        for target in [o for o in table.state.combatants if o != "twilight"]:
            cmd = act("twilight", name, {"target": target})
            if target == "applejack":
                engine.decide(table.state, GM, cmd, ctx)
            else:
                try:
                    engine.decide(table.state, GM, cmd, ctx)
                except engine.Rejected:
                    continue
                raise AssertionError(f"{name} at {target}, out of reach, was accepted")


def test_every_action_is_in_a_group_a_page_can_show_first() -> None:
    """Each ruleset sorts its actions for people (``Catalog.groups``): the attacks of a fight
    and the maneuvers of a debate are apart, the turn's own moves in ``turn``; a group the
    engine does not know, or an action in two groups, is refused at declaration."""
    from encounter.declare import Catalog

    for ruleset in ("dramatic", "action_time"):
        cat = catalog(ruleset)
        groups = {a.name: cat.group_of(a) for a in cat.actions}
        assert groups["end_turn"] == "turn" and groups["move"] == "movement"
    dramatic = catalog("dramatic")
    assert {dramatic.group_of(a) for a in dramatic.actions
            if a.name in ("dispute", "lie", "block")} == {"social"}
    assert catalog("action_time").group_of(catalog("action_time").by_name["melee_attack"]) \
        == "attack"
    end = dramatic.by_name["end_turn"]
    for groups in ({"fighting": ("end_turn",)}, {"attack": ("end_turn",)},
                   {"attack": ("no_such_action",)}):
        try:
            Catalog("toy", "Toy", (end,), groups=groups)
        except ValueError:
            continue
        raise AssertionError(f"{groups} was accepted")
