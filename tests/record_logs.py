"""Record event logs, and the states they fold to, for the compatibility test.

    python -m tests.record_logs tests/data/logs-<commit>

Plays a few scenes of both rulesets in-process (the decider alone, fixed dice): random moves
picked from ``legal_actions``, GM commands among them (hiding and revealing, effects, an
override, physical dice), and writes for each scene its log (``<scene>.events.json``, the
envelopes as stored) and the state it folds to (``<scene>.state.json``). Run by a commit, the
files say what that commit wrote; ``tests/test_compat.py`` folds them with today's code and
checks that every field of the recorded state still has the recorded value.
"""

from __future__ import annotations

import itertools
import random
import sys
from pathlib import Path
from typing import Any

import msgspec

from encounter import engine
from encounter.actors import Actor
from encounter.legal import legal_actions
from protocol import messages as msg
from protocol.events import Envelope
from protocol.messages import LegalAction
from protocol.model import BattleMap, EncounterOptions, StatBlock

GM = Actor(role="gm", token_id="gm")

DRAMATIC = [
    {"name": "Twilight Sparkle", "id": "twilight", "kind": "pc", "initiative": 3,
     "position": [0, 0],
     "stats": {"skills": {"ranged": 6}, "fatigue_points": 14,
               "weapons": [{"name": "magic bolt", "damage": "1d8", "kind": "ranged"}]}},
    {"name": "Rainbow Dash", "id": "dash", "kind": "pc", "initiative": 5, "position": [1, 0],
     "stats": {"skills": {"melee": 5}, "fatigue_points": 12}},
    {"name": "Diamond Dog", "id": "dog", "kind": "npc", "initiative": 1, "position": [5, 4],
     "stats": {"skills": {"melee": 4}, "fatigue_points": 10}},
    {"name": "Lurking Dog", "id": "lurker", "kind": "npc", "initiative": 4, "hidden": True,
     "position": [6, 5], "aware": False, "stats": {"fatigue_points": 8}},
]
DRAMATIC_MAP = {"width": 8, "height": 6, "blocked": [[3, 1]], "difficult": [[4, 4]],
                "walls": [[[6, 0], [6, 2]]], "fog": [[5, 0]]}

ACTION_TIME = [
    {"name": "Applejack", "id": "aj", "kind": "pc", "initiative": 2,
     "stats": {"body": "d8", "mind": "d6", "health": 12}},
    {"name": "Fluttershy", "id": "fs", "kind": "pc", "initiative": 1,
     "stats": {"body": "d6", "mind": "d10", "health": 10}},
    {"name": "Changeling", "id": "ch", "kind": "npc", "initiative": 1,
     "stats": {"body": "d6", "mind": "d8", "health": 9}},
    {"name": "Hidden Changeling", "id": "hc", "kind": "npc", "initiative": 0, "hidden": True,
     "stats": {"body": "d6", "mind": "d6", "health": 9}},
]

SCENES: dict[str, dict[str, Any]] = {
    "dramatic-battle": {"ruleset": "dramatic", "blocks": DRAMATIC, "map": DRAMATIC_MAP,
                        "options": {"dice_seed": 11}, "seed": 1, "moves": 160},
    "dramatic-physical-dice": {"ruleset": "dramatic", "blocks": DRAMATIC, "map": None,
                               "options": {"dice_seed": 12, "players_roll": True,
                                           "manual_rolls": True}, "seed": 2, "moves": 160},
    "action-time": {"ruleset": "action_time", "blocks": ACTION_TIME, "map": None,
                    "options": {"dice_seed": 13}, "seed": 3, "moves": 160},
}


class Recorder:
    def __init__(self, scene: dict[str, Any]) -> None:
        ids = (f"id{i}" for i in itertools.count())
        self.ctx = engine.Context(now_ms=1_000, new_id=lambda: next(ids))
        battle_map = scene["map"]
        create = msg.CreateEncounter(
            id="0123456789abcdef", name="Recorded", ruleset=scene["ruleset"],
            combatants=[msgspec.convert({k: v for k, v in b.items()
                                         if battle_map is not None or k != "position"},
                                        StatBlock) for b in scene["blocks"]],
            options=EncounterOptions(**scene["options"]),
            map=None if battle_map is None else msgspec.convert(battle_map, BattleMap))
        out = engine.create(create, "enc", "gm", self.ctx)
        self.envelopes: list[Envelope] = list(out.envelopes)
        self.state = out.state
        self.n = itertools.count()

    def do(self, cmd: msg.Command) -> bool:
        try:
            out = engine.decide(self.state, GM, cmd, self.ctx)
        except engine.Rejected:
            return False
        self.envelopes += out.envelopes
        self.state = out.state
        return True

    def id(self) -> str:
        return f"c{next(self.n)}"


def play(scene: dict[str, Any]) -> Recorder:
    rng = random.Random(scene["seed"])
    r = Recorder(scene)
    r.do(msg.AddEffect(id=r.id(), name="Bless", rounds=2))
    r.do(msg.StartEncounter(id=r.id()))
    for step in range(scene["moves"]):
        if r.state.ended:
            break
        legal = legal_actions(r.state, GM)
        rolls = [a for a in legal if a.action == "submit_roll"]
        if rolls:
            a = rolls[0]
            pending = r.state.pending_rolls[(a.targets or [""])[0]]
            faces = [rng.randint(1, sides) for sides in pending.dice]
            r.do(msg.SubmitRoll(id=r.id(), request=pending.request, faces=faces))
            continue
        if step % 23 == 7:
            cid = rng.choice(sorted(r.state.combatants))
            r.do(msg.SetHidden(id=r.id(), combatant=cid,
                               hidden=not r.state.combatants[cid].hidden))
            continue
        if step % 31 == 11 and r.state.ruleset == "dramatic":
            cid = rng.choice(sorted(r.state.combatants))
            r.do(msg.AdjustCombatant(id=r.id(), combatant=cid, reason="recorded ruling",
                                     helpless=rng.random() < 0.5, prone=rng.random() < 0.5))
            continue
        act = random_act(legal, rng, r.id(), end_share=0.4, trigger="when it happens")
        if act is None:
            break
        r.do(act)
    return r


def random_act(legal: list[LegalAction], rng: random.Random, cid: str, *, end_share: float,
               trigger: str) -> msg.Act | None:
    """A combatant's action picked at random from ``legal`` (``None``: there is none): the end
    of a turn ``end_share`` of the time when one is offered; a target and each option at
    random; for ``ready`` and ``prepare``, an action held back until ``trigger``."""
    turn = [a for a in legal if a.combatant is not None]
    if not turn:
        return None
    enders = [a for a in turn if a.action == "end_turn"]
    a = enders[0] if enders and rng.random() < end_share else rng.choice(turn)
    assert a.combatant is not None
    args: dict[str, Any] = {}
    if a.action in ("ready", "prepare"):
        args = {"action": "move" if a.action == "ready" else "melee_attack", "trigger": trigger}
    elif a.targets:
        args = {"target": rng.choice(a.targets)}
        for name, values in (a.options or {}).items():
            args[name] = rng.choice(values)
    return msg.Act(id=cid, combatant=a.combatant, action=a.action, args=args)


def main(argv: list[str]) -> None:
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    for name, scene in SCENES.items():
        r = play(scene)
        (out / f"{name}.events.json").write_bytes(
            msgspec.json.format(msgspec.json.encode(r.envelopes), indent=0))
        (out / f"{name}.state.json").write_bytes(
            msgspec.json.format(msgspec.json.encode(r.state), indent=1))
        print(f"{name}: {len(r.envelopes)} events")


if __name__ == "__main__":
    main(sys.argv[1:])
