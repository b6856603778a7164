"""What a client shows: the encounter as one viewer received it, and readable log lines.

:class:`TableView` folds a ``snapshot`` and the ``event`` messages after it into the few things
a client displays (names, the initiative order, whose turn, round, conditions). It decides
nothing: the server has already redacted what this viewer may not see, and the actions it may
take arrive in ``legal_actions``. Event kinds it does not know are kept in the log as they are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Message = dict[str, Any]


@dataclass
class LogLine:
    seq: int
    kind: str
    text: str
    roll: dict[str, Any] | None = None


@dataclass
class TableView:
    combatants: dict[str, dict[str, Any]] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    initiative: dict[str, dict[str, Any]] = field(default_factory=dict)
    name: str = ""
    ruleset: str = ""
    round: int = 0
    current: str | None = None
    flat_footed: set[str] = field(default_factory=set)
    delaying: set[str] = field(default_factory=set)
    effects: dict[str, dict[str, Any]] = field(default_factory=dict)
    pending_rolls: dict[str, dict[str, Any]] = field(default_factory=dict)
    started: bool = False
    ended: bool = False
    end_reason: str | None = None
    seq: int = 0
    state: dict[str, Any] = field(default_factory=dict)  # the last snapshot's state, as sent
    log: list[LogLine] = field(default_factory=list)
    #: set when an event cannot be placed without a fresh snapshot (a combatant revealed in a
    #: running scene: the viewer was never told its place in the order)
    needs_snapshot: bool = False

    def name_of(self, cid: str | None) -> str:
        if cid is None:
            return "the GM"
        return str(self.combatants.get(cid, {}).get("name", cid))

    def apply(self, message: Message) -> list[LogLine]:
        """Fold one server message; the log lines it adds."""
        kind = message.get("type")
        if kind == "snapshot":
            self._snapshot(message["state"], message["seq"])
            return []
        if kind != "event" or message["seq"] <= self.seq:
            return []
        self.seq = message["seq"]
        lines = [LogLine(message["seq"], e["kind"], text, roll)
                 for e in [message["event"]] for text, roll in self._event(e)]
        self.log += lines
        del self.log[:-500]
        return lines

    def _snapshot(self, s: dict[str, Any], seq: int) -> None:
        self.state = s
        self.seq = seq
        self.name, self.ruleset = s.get("name", ""), s.get("ruleset", "")
        self.combatants = {c["id"]: dict(c) for c in s.get("combatants", [])}
        self.order = list(s.get("order", []))
        self.initiative = {e["combatant"]: e for e in s.get("initiative", [])}
        self.round, self.current = s.get("round", 0), s.get("current")
        self.flat_footed = set(s.get("flat_footed", []))
        self.delaying = set(s.get("delaying", []))
        self.effects = {e["effect"]: e for e in s.get("effects", [])}
        self.pending_rolls = {p["request"]: p for p in s.get("pending_rolls", [])}
        phase = s.get("phase", [])
        self.started = bool(phase) and phase[0] not in ("setup",)
        self.ended, self.end_reason = bool(s.get("ended")), s.get("end_reason")
        self.needs_snapshot = False

    def _event(self, e: dict[str, Any]) -> list[tuple[str, dict[str, Any] | None]]:
        k = e["kind"]
        n = self.name_of
        if k == "encounter_created":
            self.name, self.ruleset = e["name"], e["ruleset"]
            return [(f"Encounter {e['name']!r} created", None)]
        if k in ("combatant_added", "combatant_revealed"):
            c = e["combatant"]
            self.combatants[c["id"]] = {**self.combatants.get(c["id"], {}), **c}
            if k == "combatant_revealed":
                if self.started and c["id"] not in self.order and not self.ended:
                    self.needs_snapshot = True
                return [(f"{c['name']} is revealed!", None)]
            return [(f"{c['name']} joins the encounter", None)]
        if k == "combatant_removed":
            line = f"{n(e['combatant'])} leaves the encounter"
            self.combatants.pop(e["combatant"], None)
            self._drop(e["combatant"])
            return [(line, None)]
        if k == "combatant_concealed":
            self.combatants.get(e["combatant"], {})["hidden"] = True
            return [(f"{n(e['combatant'])} is hidden again", None)]
        if k == "roll_requested":
            self.pending_rolls[e["request"]] = e
            who = "the GM" if e["roller"] == "gm" else n(e["roller"])
            return [(f"Waiting for {who} to roll {e['expr']} ({e['purpose']}"
                     f"{' for ' + n(e['combatant']) if e.get('combatant') else ''})", None)]
        if k == "dice_rolled":
            if e.get("request"):
                self.pending_rolls.pop(e["request"], None)
            who = n(e["combatant"]) if e.get("combatant") else "The GM"
            return [(f"{who} rolls {e['purpose']}: {dice_text(e['roll'])}"
                     f"{' (physical dice)' if e['roll'].get('manual') else ''}", e["roll"])]
        if k == "initiative_set":
            self.order = [x["combatant"] for x in e["entries"]]
            self.initiative = {x["combatant"]: x for x in e["entries"]}
            return [("Initiative: " + ", ".join(f"{n(x['combatant'])} {x['total']}"
                                                for x in e["entries"]), None)]
        if k == "combatant_joined":
            cid = e["entry"]["combatant"]
            self._drop(cid)
            self.order.insert(min(e["position"], len(self.order)), cid)
            self.initiative[cid] = e["entry"]
            return [(f"{n(cid)} joins the order at {e['entry']['total']}", None)]
        if k == "vitals_changed":
            entry = self.combatants.setdefault(e["combatant"], {})
            vitals = dict(entry.get("vitals") or {})
            vitals.update({f: e[f] for f in ("fatigue", "fatigue_max", "physical", "mental",
                                             "condition", "prone", "check_round")})
            entry["vitals"] = vitals
            return [(f"{n(e['combatant'])}: {'; '.join(e.get('notes') or [])}", None)]
        if k == "awareness_set":
            self.combatants.get(e["combatant"], {})["aware"] = e["aware"]
            return [(f"{n(e['combatant'])} is {'aware' if e['aware'] else 'unaware'}", None)]
        if k == "scene_started":
            self.started = True
            return [("The scene begins with a surprise round!" if e["surprise"]
                     else "The scene begins", None)]
        if k == "flat_footed":
            (self.flat_footed.add if e["flat_footed"] else self.flat_footed.discard)(
                e["combatant"])
            return [(f"{n(e['combatant'])} is {'flat-footed' if e['flat_footed'] else 'ready'}",
                     None)]
        if k == "round_started":
            self.round = e["round"]
            return [("— surprise round —" if e.get("surprise") else f"— round {e['round']} —",
                     None)]
        if k == "turn_started":
            self.current = e["combatant"]
            self.delaying.discard(e["combatant"])
            return [(f"{n(e['combatant'])}'s turn", None)]
        if k == "turn_ended":
            if self.current == e["combatant"]:
                self.current = None
            return [(f"{n(e['combatant'])} ends the turn", None)]
        if k == "action_taken":
            text = f"{n(e['combatant'])}: {e['action'].replace('_', ' ')}"
            if e.get("target"):
                text += f" → {n(e['target'])}"
            if e.get("needed", 1) > 1:
                text += f" ({e['progress']}/{e['needed']})"
            if e.get("note"):
                text += f" — {e['note']}"
            return [(text, None)]
        if k == "turn_delayed":
            self.delaying.add(e["combatant"])
            until = f" until count {e['until_count']}" if e.get("until_count") is not None else ""
            return [(f"{n(e['combatant'])} delays{until}", None)]
        if k == "delayed_turn_requested":
            return [(f"{n(e['combatant'])} will act next", None)]
        if k == "order_changed":
            self._drop(e["combatant"])
            self.order.insert(min(e["position"], len(self.order)), e["combatant"])
            return []
        if k == "action_readied":
            return [(f"{n(e['combatant'])} readies {e['action'].replace('_', ' ')}: "
                     f"{e['trigger']}", None)]
        if k == "readied_action_triggered":
            return [(f"{n(e['combatant'])}'s readied action interrupts!", None)]
        if k == "interrupt_ended":
            return [(f"{n(e['combatant'])}'s readied action is resolved", None)]
        if k == "readied_action_lost":
            return [(f"{n(e['combatant'])}'s readied action lapses", None)]
        if k == "effect_started":
            self.effects[e["effect"]] = e
            on = f" on {n(e['combatant'])}" if e.get("combatant") else ""
            return [(f"{e['name']}{on} ({e['rounds']} rounds)", None)]
        if k == "effect_ended":
            effect = self.effects.pop(e["effect"], {})
            return [(f"{effect.get('name', 'An effect')} ends", None)]
        if k == "encounter_ended":
            self.ended, self.end_reason, self.current = True, e.get("reason"), None
            self.pending_rolls.clear()
            return [(f"The scene ends.{' ' + e['reason'] if e.get('reason') else ''}", None)]
        if k in ("token_issued", "token_revoked", "options_changed"):
            return [(k.replace("_", " "), None)]
        # a kind this client does not know yet: show what it says
        fields = ", ".join(f"{key}={value}" for key, value in e.items() if key != "kind")
        return [(f"{k.replace('_', ' ')}: {fields}", None)]

    def _drop(self, cid: str) -> None:
        if cid in self.order:
            self.order.remove(cid)
        if self.current == cid:
            self.current = None


def dice_text(roll: dict[str, Any]) -> str:
    """A roll with every die: ``1d20+3: [d20: 14] + 3 = 17``; dropped dice are marked ``~``."""
    dice = roll.get("dice") or []
    faces = " ".join(f"d{d['sides']}:{d['face']}" if d.get("kept", True)
                     else f"~d{d['sides']}:{d['face']}~" for d in dice)
    text = roll.get("text") or ""
    total = roll.get("total")
    return f"{roll.get('expr', '')} → [{faces}] = {total}" + (f"   ({text})" if text else "")
