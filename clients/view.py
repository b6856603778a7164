"""What a client shows: the encounter as one viewer received it, and readable log lines.

:class:`TableView` folds a ``snapshot`` and the ``event`` messages after it into the few things
a client displays (names, the initiative order, whose turn, round, conditions). It decides
nothing: the server has already redacted what this viewer may not see, and the actions it may
take arrive in ``legal_actions``. Event kinds it does not know are kept in the log as they are.
"""

from __future__ import annotations

from collections.abc import Callable
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
    #: the states of a conscious combatant's ``vitals.condition`` that put it out of the fight
    #: in this encounter's ruleset (the snapshot's ``out_of_fight``)
    out_of_fight: frozenset[str] = frozenset()
    round: int = 0
    current: str | None = None
    flat_footed: set[str] = field(default_factory=set)
    delaying: set[str] = field(default_factory=set)
    effects: dict[str, dict[str, Any]] = field(default_factory=dict)
    pending_rolls: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: the battle map (``None``: none), where combatants stand on it, who grabs whom
    #: (target -> grabbers), and the "Action Time" effects by holder
    battle_map: dict[str, Any] | None = None
    positions: dict[str, tuple[int, int]] = field(default_factory=dict)
    grabs: dict[str, list[str]] = field(default_factory=dict)
    at_effects: list[dict[str, Any]] = field(default_factory=list)
    #: the social scene: statements (id -> owner, size, text, perilous; size None: spent),
    #: attitudes (holder -> toward -> attitude), who is Blocking, the statements waiting for
    #: an answer (id -> speaker, target, loss), whether the debate is over, and the event with
    #: each one's standing (as of the last snapshot; aura points kept up to date)
    arguments: dict[str, dict[str, Any]] = field(default_factory=dict)
    attitudes: dict[str, dict[str, str]] = field(default_factory=dict)
    blocking: set[str] = field(default_factory=set)
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    debate_over: bool = False
    social: dict[str, Any] | None = None
    started: bool = False
    ended: bool = False
    end_reason: str | None = None
    seq: int = 0
    #: the digest of the last event or snapshot applied (sent with ``since`` on resuming)
    digest: str | None = None
    #: why the last snapshot came (``join``, ``resume_gap``, ``resume_ahead``, ``rewound``)
    snapshot_reason: str | None = None
    state: dict[str, Any] = field(default_factory=dict)  # the last snapshot's state, as sent
    log: list[LogLine] = field(default_factory=list)
    #: set when an event cannot be placed without a fresh snapshot (a combatant revealed in a
    #: running scene: the viewer was never told its place in the order)
    needs_snapshot: bool = False
    #: each ruleset's word for fatigue points, by ruleset name (the server's
    #: ``/table/rulesets.json``, ``vitals``): "Health" in "Action Time"
    vitals_labels: dict[str, str] = field(default_factory=dict)

    @property
    def vitals_label(self) -> str:
        """This encounter's word for fatigue points ("fatigue" when the server has not said)."""
        return self.vitals_labels.get(self.ruleset, "fatigue")

    def name_of(self, cid: str | None) -> str:
        if cid is None:
            return "the GM"
        return str(self.combatants.get(cid, {}).get("name", cid))

    def apply(self, message: Message) -> list[LogLine]:
        """Fold one server message; the log lines it adds."""
        kind = message.get("type")
        if kind == "snapshot":
            self._snapshot(message["state"], message["seq"])
            self.digest, self.snapshot_reason = message.get("digest"), message.get("reason")
            if message.get("reason") in ("rewound", "resume_ahead"):
                self.log = [x for x in self.log if x.seq <= message["seq"]]
                line = LogLine(message["seq"], "snapshot", "The server went back to an earlier "
                               f"point of the encounter (seq {message['seq']}): what came "
                               "after it is undone")
                self.log.append(line)
                return [line]
            return []
        if kind != "event" or message["seq"] <= self.seq:
            return []
        self.seq, self.digest = message["seq"], message.get("digest")
        lines = [LogLine(message["seq"], e["kind"], text, roll)
                 for e in [message["event"]] for text, roll in self._event(e)]
        self.log += lines
        del self.log[:-500]
        return lines

    def _snapshot(self, s: dict[str, Any], seq: int) -> None:
        self.state = s
        self.seq = seq
        self.name, self.ruleset = s.get("name", ""), s.get("ruleset", "")
        self.out_of_fight = frozenset(s.get("out_of_fight") or ())
        self.combatants = {c["id"]: dict(c) for c in s.get("combatants", [])}
        self.order = list(s.get("order", []))
        self.initiative = {e["combatant"]: e for e in s.get("initiative", [])}
        self.round, self.current = s.get("round", 0), s.get("current")
        self.flat_footed = set(s.get("flat_footed", []))
        self.delaying = set(s.get("delaying", []))
        self.effects = {e["effect"]: e for e in s.get("effects", [])}
        self.pending_rolls = {p["request"]: p for p in s.get("pending_rolls", [])}
        self.battle_map = s.get("map")
        self.positions = {cid: (at[0], at[1]) for cid, at in (s.get("positions") or {}).items()}
        self.grabs = {cid: list(g) for cid, g in (s.get("grabs") or {}).items() if g}
        self.at_effects = list((s.get("action_time") or {}).get("effects") or [])
        self.arguments = {a: dict(v) for a, v in (s.get("arguments") or {}).items()}
        self.attitudes = {h: dict(row) for h, row in (s.get("attitudes") or {}).items()}
        self.blocking = set(s.get("blocking") or [])
        self.answers = {a: dict(v) for a, v in (s.get("answers") or {}).items()}
        self.debate_over = bool(s.get("debate_over"))
        social = s.get("social")
        self.social = {"event": social.get("event"),
                       "standing": {c: dict(v) for c, v in social.get("standing", {}).items()}} \
            if social else None
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
            self.positions.pop(e["combatant"], None)
            self._drop(e["combatant"])
            return [(line, None)]
        if k == "combatant_concealed":
            self.combatants.get(e["combatant"], {})["hidden"] = True
            return [(f"{n(e['combatant'])} is hidden again", None)]
        if k == "roll_requested":
            self.pending_rolls[e["request"]] = e
            who = "the GM" if e["roller"] == "gm" else n(e["roller"])
            return [(f"Waiting for {who} to roll {e['expr']} ({_human(e['purpose'])}"
                     f"{' for ' + n(e['combatant']) if e.get('combatant') else ''})", None)]
        if k == "dice_rolled":
            if e.get("request"):
                self.pending_rolls.pop(e["request"], None)
            who = n(e["combatant"]) if e.get("combatant") else "The GM"
            return [(f"{who} rolls {_human(e['purpose'])}: {dice_text(e['roll'])}"
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
            vitals.update({f: e.get(f) for f in ("fatigue", "fatigue_max", "physical", "mental",
                                                 "condition", "prone", "helpless",
                                                 "check_round")})
            entry["vitals"] = vitals
            return [(describe(e, n, self.vitals_label), None)]
        if k == "grab_changed":
            grabbers = [g for g in self.grabs.get(e["target"], []) if g != e["grabber"]]
            if e["held"]:
                grabbers.append(e["grabber"])
            if grabbers:
                self.grabs[e["target"]] = grabbers
            else:
                self.grabs.pop(e["target"], None)
            return [(describe(e, n, self.vitals_label), None)]
        if k == "map_set":
            self.battle_map = e.get("map")
            return [(describe(e, n, self.vitals_label), None)]
        if k in ("combatant_placed", "combatant_moved"):
            at = e.get("at") if k == "combatant_placed" else (e.get("path") or [None])[-1]
            if at is None:
                self.positions.pop(e["combatant"], None)
            else:
                self.positions[e["combatant"]] = (at[0], at[1])
            return [(describe(e, n, self.vitals_label), None)]
        if k == "at_effect_started":
            self.at_effects.append(e["effect"])
            return [(describe(e, n, self.vitals_label), None)]
        if k == "at_effect_ended":
            if e["effect"] in self.at_effects:
                self.at_effects.remove(e["effect"])
            return [(describe(e, n, self.vitals_label), None)]
        if k in SOCIAL:
            return [(self._social(e), None)]
        if k in DESCRIBED:
            return [(describe(e, n, self.vitals_label), None)]
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
            return [(f"{effect_text(e)}{on} ({effect_lasts(e)})", None)]
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

    def _social(self, e: dict[str, Any]) -> str:
        """Fold a social event; its line."""
        k = e["kind"]
        if k == "argument_changed":
            self.arguments[e["argument"]] = {"owner": e["combatant"], "size": e.get("size"),
                                             "text": e.get("text", ""),
                                             "perilous": e.get("perilous", False)}
        elif k == "attitude_changed":
            self.attitudes.setdefault(e["holder"], {})[e["toward"]] = e["attitude"]
        elif k == "blocking_changed":
            (self.blocking.add if e["blocking"] else self.blocking.discard)(e["combatant"])
        elif k == "statement_hit":
            self.answers[e["statement"]] = {"speaker": e["speaker"], "target": e["target"],
                                            "loss": e["loss"]}
        elif k == "statement_answered":
            pending = self.answers.pop(e["statement"], {})
            e = {**e, "speaker": pending.get("speaker")}
        elif k == "debate_ended":
            self.debate_over = True
        elif k == "social_event_set":
            event = {key: v for key, v in e.items() if key != "kind"}
            self.social = {"standing": {}, **(self.social or {}),
                           "event": event if e.get("rating") is not None else None}
        elif k == "aura_points_changed":
            standing = (self.social or {}).get("standing", {}).get(e["combatant"])
            if standing is not None:
                standing.update(harmony=e["harmony"], discord=e["discord"])
        return describe(e, self.name_of, self.vitals_label)

    def statements_of(self, cid: str, unspent: bool = False) -> list[tuple[str, dict[str, Any]]]:
        """A combatant's statements (id, argument), biggest first; ``unspent``: those with a
        size left."""
        own = [(a, v) for a, v in self.arguments.items() if v["owner"] == cid
               and (v.get("size") or not unspent)]
        return sorted(own, key=lambda x: -size_rank(x[1].get("size")))

    def attitude(self, holder: str, toward: str) -> str:
        """``holder``'s attitude toward ``toward`` as the server said it (indifferent when it
        said none)."""
        return self.attitudes.get(holder, {}).get(toward, "indifferent")

    def _drop(self, cid: str) -> None:
        if cid in self.order:
            self.order.remove(cid)
        if self.current == cid:
            self.current = None


def effect_text(e: dict[str, Any]) -> str:
    """An effect's name and what it changes: ``"Shield: reflex defense +2"`` (R90)."""
    mods = [f"{m['target'].replace('_', ' ')} "
            + (signed(m["amount"]) if isinstance(m["amount"], int) else str(m["amount"]))
            for m in e.get("modifiers") or []]
    return f"{e['name']}: {', '.join(mods)}" if mods else str(e["name"])


def effect_lasts(e: dict[str, Any]) -> str:
    """How long an effect lasts, in words (R90)."""
    until = e.get("until", "rounds")
    if until == "rounds":
        rounds = e.get("rounds", 0)
        return f"{rounds} round{'s' if rounds != 1 else ''}, until round {e.get('ends_round')}"
    return {"start_of_next_turn": "until its holder's next turn",
            "end_of_round": "until the end of the round", "scene": "the scene"}.get(
                until, "until ended")


class DeltaMismatch(ValueError):
    """A ``legal_actions_delta`` that does not apply to the list held (its ``base`` is another
    seq, or a run reaches past the list): ask for the full list (``get_legal_actions``)."""


def apply_legal_delta(previous: list[dict[str, Any]], delta: Message,
                      base: int | str | None = None) -> list[dict[str, Any]]:
    """The list of legal actions a ``legal_actions_delta`` makes of ``previous`` (the list
    held, got at ``seq`` ``base``, or with the ``cursor`` feature at cursor ``base``): its
    items in order, an entry as itself and ``[start, count]`` as that many entries of
    ``previous`` from ``start`` on. The web table does the same (``applyLegalDelta`` in
    ``server/static/table/model.js``)."""
    named = delta.get("base_cursor") if isinstance(base, str) else delta.get("base")
    if base is not None and named != base:
        raise DeltaMismatch(f"delta from {named!r}, list held at {base!r}")
    out: list[dict[str, Any]] = []
    for item in delta["actions"]:
        if isinstance(item, dict):
            out.append(item)
            continue
        start, count = item
        if start < 0 or count < 1 or start + count > len(previous):
            raise DeltaMismatch(f"run {item} outside a list of {len(previous)}")
        out += previous[start:start + count]
    return out


def dice_text(roll: dict[str, Any]) -> str:
    """A roll with every die: ``1d20+3: [d20: 14] + 3 = 17``; dropped dice are marked ``~``."""
    dice = roll.get("dice") or []
    faces = " ".join(f"d{d['sides']}:{d['face']}" if d.get("kept", True)
                     else f"~d{d['sides']}:{d['face']}~" for d in dice)
    text = roll.get("text") or ""
    total = roll.get("total")
    return f"{roll.get('expr', '')} → [{faces}] = {total}" + (f"   ({text})" if text else "")


# -- readable lines for the resolution events (the web table's model.js says the same) ---------

NameOf = Callable[[str | None], str]

#: Statement sizes, smallest first (SIZES.index: how big).
SIZES = ("fine", "diminutive", "tiny", "small", "medium", "large", "huge", "gargantuan",
         "colossal")
#: Attitudes, worst first.
ATTITUDES = ("hostile", "unfriendly", "indifferent", "friendly", "helpful")


def size_rank(size: str | None) -> int:
    """How big a statement is (-1: spent or unknown)."""
    return SIZES.index(size) if size in SIZES else -1


#: The social scene's event kinds (folded by :class:`TableView`, worded by :func:`describe`).
SOCIAL = frozenset({"argument_changed", "attitude_changed", "blocking_changed", "statement_hit",
                    "statement_answered", "debate_ended", "lie_told", "social_event_set",
                    "social_situation_set", "aura_points_changed"})

#: Event kinds :func:`describe` turns into a line without folding anything.
DESCRIBED = frozenset({"attack_resolved", "damage_dealt", "check_made", "gm_ruling",
                       "at_moved", "items_readied"})

_VERBS = {"dispute": "disputes", "conversation": "argues with", "attack": "attacks",
          "grab": "tries to grab", "ram": "rams",
          "break_object": "strikes at", "melee_attack": "attacks (melee)",
          "ranged_attack": "shoots at", "all_out_attack": "goes all out against",
          "charge": "charges"}
_OUTCOMES = {"hit": "HIT", "critical": "CRITICAL HIT", "miss": "MISS",
             "automatic_miss": "AUTOMATIC MISS (natural 1)"}
_CONDITIONS = {"fit": "", "active": "", "defenseless": "defenseless (0 fatigue points)",
               "unconscious": "unconscious", "awaiting_check": "awaiting a Constitution check",
               "out_for_scene": "out for the scene", "dead": "dead", "destroyed": "destroyed"}


def _plain(value: Any) -> str:
    return {True: "yes", False: "no"}.get(value, str(value)) if isinstance(value, bool) \
        else str(value)


def signed(value: int) -> str:
    return f"+{value}" if value >= 0 else f"-{-value}"


def terms(modifiers: list[dict[str, Any]] | None) -> str:
    """Itemised modifiers: ``+6 Ranged skill -2 into melee``."""
    return " ".join(f"{signed(m['value'])} {m['name']}" for m in modifiers or [])


def condition_text(condition: list[str] | None) -> str:
    """A condition chart configuration in words (empty for an active, fit combatant)."""
    words = [_CONDITIONS.get(c, c.replace("_", " ")) for c in condition or []]
    return ", ".join(w for w in words if w)


def track_text(name: str, track: dict[str, Any] | None) -> str:
    if not track or not track.get("step"):
        return ""
    text = f"{name} track step {track['step']}/5 ({signed(track.get('penalty', 0))})"
    if track.get("persistent"):
        text += f", {track['persistent']} persistent"
    if track.get("crippling"):
        text += f", {track['crippling']} crippling"
    return text


def vitals_text(v: dict[str, Any], label: str = "fatigue") -> str:
    """Fatigue (``label``: the ruleset's word for it), tracks, consciousness and stance, as far
    as this viewer may see them."""
    parts = []
    if v.get("fatigue") is not None:
        parts.append(f"{label} {v['fatigue']}/{v.get('fatigue_max')}")
    parts += [track_text("physical", v.get("physical")), track_text("mental", v.get("mental")),
              condition_text(v.get("condition"))]
    if v.get("prone"):
        parts.append("prone")
    if v.get("helpless"):  # as the server works it out (HELPLESS CONDITION)
        parts.append("helpless")
    if v.get("check_round") is not None:
        parts.append(f"Constitution check in round {v['check_round']}")
    return ", ".join(p for p in parts if p)


def describe(e: dict[str, Any], n: NameOf, label: str = "fatigue") -> str:
    """One readable line for a resolution event: every die, every modifier by name
    (``label``: the ruleset's word for fatigue points)."""
    k = e["kind"]
    if k == "attack_resolved":
        if e["action"] == "fall":
            head = f"{n(e['attacker'])} falls"
        else:
            verb = _VERBS.get(e["action"], e["action"].replace("_", " "))
            head = f"{n(e['attacker'])} {verb} {n(e['target'])}"
        if e.get("weapon"):
            head += f" with {e['weapon']}"
        die = e.get("die") or "d20"
        natural = e.get("natural")
        roll = f"{die} {natural if natural is not None else '(behind the GM screen)'}"
        mods = terms(e.get("modifiers"))
        total = e.get("total")
        text = f"{head}: {roll}{' ' + mods if mods else ''}"
        if total is not None:
            text += f" = {total}"
        defense = e.get("defense", "reflex").capitalize()
        if e.get("defense_value") is not None:
            text += f" vs {defense} {e['defense_value']}"
            parts = [p for p in e.get("defense_parts") or [] if p["value"]]
            if parts:
                text += " (" + ", ".join(f"{p['name']} {p['value']}" for p in parts) + ")"
        else:
            text += f" vs {defense}"
        return f"{text} → {_OUTCOMES.get(e['outcome'], e['outcome'])}"
    if k == "damage_dealt":
        source = f" from {n(e['source'])}" if e.get("source") else ""
        rolled = e.get("rolled")
        dice = f"rolled {rolled}" if rolled is not None else "(behind the GM screen)"
        text = (f"{n(e['target'])} takes {e.get('damage', 'physical')} damage{source}: "
                f"{e['dice']} {dice}")
        bonuses = terms(e.get("bonuses"))
        if bonuses:
            text += " " + bonuses
        if e.get("critical"):
            text += " x2 critical"
        if e.get("halved"):
            text += " halved"
        if e.get("before_reduction") is not None:
            text += f" = {e['before_reduction']}"
        if e.get("reduction"):
            text += f" - {e.get('reduction_label') or 'DR'} {e['reduction']}"
        types = f" ({', '.join(e['types'])})" if e.get("types") else ""
        return f"{text} → loses {e['loss']}{types}"
    if k == "vitals_changed":
        notes = "; ".join(e.get("notes") or [])
        status = vitals_text(e, label)
        return f"{n(e['combatant'])}: {notes}" + (f" [{status}]" if status else "")
    if k == "check_made":
        who = n(e["combatant"]) if e.get("combatant") else "The GM"
        natural = e.get("natural")
        text = (f"{who}: {e['check'].replace('_', ' ')} check: d20 "
                f"{natural if natural is not None else '(behind the GM screen)'}")
        mods = terms(e.get("modifiers"))
        if mods:
            text += " " + mods
        if e.get("total") is not None:
            text += f" = {e['total']}"
        if e.get("dc") is not None:
            text += f" vs DC {e['dc']}"
        text += " → " + ("success" if e["success"] else "failure")
        if e.get("target"):
            text += f" ({n(e['target'])})"
        return text
    if k == "grab_changed":
        if e["held"]:
            return f"{n(e['grabber'])} grabs {n(e['target'])}: it is held (-2, cannot move)"
        return f"{n(e['grabber'])} no longer holds {n(e['target'])}"
    if k == "map_set":
        m = e.get("map")
        return (f"The GM sets a battle map ({m['width']}x{m['height']} squares)" if m
                else "The GM takes the battle map away")
    if k == "combatant_placed":
        at = e.get("at")
        return (f"{n(e['combatant'])} is placed at ({at[0]},{at[1]})" if at
                else f"{n(e['combatant'])} is taken off the map")
    if k == "combatant_moved":
        verb = {"run": "runs", "crawl": "crawls"}.get(e.get("mode", "move"), "moves")
        path = " → ".join(f"({x},{y})" for x, y in e["path"])
        text = f"{n(e['combatant'])} {verb} {path}: {e['cost']} of {e['budget']} squares"
        return text + (" — and falls into a pit!" if e.get("falls") else "")
    if k == "gm_ruling":
        if e["ruling"] == "override":
            words = {"fatigue": label, "fatigue_max": f"{label} max"}
            changes = ", ".join(
                f"{words.get(c.get('field', ''), c.get('field', '').replace('_', ' '))} "
                f"{_plain(c.get('value'))}" for c in e.get("changes") or [])
            text = f"GM override: {e['description']}" + (f" ({changes})" if changes else "")
        else:
            values = {c.get("field"): c.get("value") for c in e.get("changes") or []}
            text = f"GM adjudicates: {e['description']}"
            if values.get("dc") is not None:
                text += f" (d20 {signed(int(values.get('modifier') or 0))} vs DC {values['dc']})"
        return text + (f" — reason: {e['reason']}" if e.get("reason") else "")
    if k in ("at_effect_started", "at_effect_ended"):
        f = e["effect"]
        what = f"{f['source']} ({f['target'].replace('_', ' ')} {signed(f['value'])})"
        if k == "at_effect_started":
            return f"{n(f['holder'])}: {what} begins"
        return f"{n(f['holder'])}: {what} ends ({e['reason'].replace('_', ' ')})"
    if k == "at_moved":
        text = (f"{n(e['combatant'])} {e['action'].replace('_', ' ')}: {e['yards']} of "
                f"{e['max_yards']} yards ({e['reason']})")
        if e.get("away_from"):
            text += " away from " + ", ".join(n(a) for a in e["away_from"])
        return text
    if k == "items_readied":
        bits = []
        if e.get("drawn"):
            bits.append(f"draws {e['drawn']}")
        if e.get("stowed"):
            bits.append(f"stows {e['stowed']}")
        held = ", ".join(e.get("in_hoof") or []) or "nothing"
        return f"{n(e['combatant'])} {' and '.join(bits) or 'readies'}; holds {held}"
    if k in SOCIAL:
        return social_text(e, n)
    fields = ", ".join(f"{key}={value}" for key, value in e.items() if key != "kind")
    return f"{k.replace('_', ' ')}: {fields}"


def _human(value: Any) -> str:
    return str(value).replace("_", " ")


def situation_text(e: dict[str, Any]) -> str:
    """The GM's answers to the situation tables, in words."""
    bits = [_human(e.get("familiarity") or "known"),
            f"race {_human(e.get('race') or 'prevailing')}"]
    if e.get("subject_rank") is not None:
        bits.append(f"rank in the subject {e['subject_rank']}")
    if e.get("invitation") is True:
        bits.append("invited")
    elif e.get("invitation") is False:
        bits.append("no invitation")
    if e.get("knows_host"):
        bits.append("knows the host")
    if e.get("knows_most"):
        bits.append("knows most present")
    bits.append(f"attire {_human(e.get('attire') or 'ordinary')}")
    return ", ".join(bits)


def social_text(e: dict[str, Any], n: NameOf) -> str:
    """One readable line for an event of a social scene (model.js says the same)."""
    k = e["kind"]
    if k == "argument_changed":
        what = f"{n(e['combatant'])}'s statement" + (f" “{e['text']}”" if e.get("text") else "") \
            + f" ({e['argument']})"
        why = f" ({e['reason']})" if e.get("reason") else ""
        if e.get("size"):
            return f"{what}: {e['size']}{', perilous' if e.get('perilous') else ''}{why}"
        return f"{what} is spent{why}"
    if k == "attitude_changed":
        why = f" ({e['reason']})" if e.get("reason") else ""
        return f"{n(e['holder'])} is now {e['attitude']} toward {n(e['toward'])}{why}"
    if k == "blocking_changed":
        if e["blocking"]:
            return (f"{n(e['combatant'])} blocks: withdraws from the discussion (+5 Wits Defense, "
                    "no arguments)")
        return f"{n(e['combatant'])} stops blocking and returns to the discussion"
    if k == "statement_hit":
        return (f"{n(e['speaker'])}'s statement hits {n(e['target'])} for {e['loss']} mental "
                f"fatigue: {n(e['target'])} answers (accept, accept with reservation or refuse)")
    if k == "statement_answered":
        whose = f"{n(e['speaker'])}'s statement" if e.get("speaker") else "the statement"
        if e["answer"] == "accept":
            return f"{n(e['target'])} accepts {whose}: no loss"
        if e["answer"] == "accept_with_reservation":
            return (f"{n(e['target'])} accepts {whose} with reservation: no loss now, "
                    f"{e.get('recorded', 0)} kept for the GM")
        return f"{n(e['target'])} refuses {whose}: loses {e['loss']} mental fatigue"
    if k == "debate_ended":
        return f"The debate is over: {e['reason']}"
    if k == "lie_told":
        hidden = "(behind the GM screen)"
        dec = e.get("deception_total")
        emp = e.get("empathy_total")
        to = ", ".join(n(t) for t in e.get("targets") or [])
        white = ", a white lie" if e.get("white") else ""
        return (f"{n(e['liar'])} lies to {to} ({e['size']}{white}): Deception "
                f"{hidden if dec is None else dec} vs Empathy {hidden if emp is None else emp} "
                f"({n(e['judge'])}) → {'believed' if e['believed'] else 'CAUGHT'}")
    if k == "social_event_set":
        if e.get("rating") is None:
            return "The social event is over"
        text = f"Social event: Event Rating {e['rating']}"
        parts = terms(e.get("parts"))
        if parts:
            text += f" ({parts})"
        bits = []
        if e.get("organizer"):
            bits.append(f"organised by {n(e['organizer'])}")
        if e.get("circle"):
            bits.append(f"circle: {e['circle']}")
        if e.get("topic"):
            bits.append(f"topic: {e['topic']}")
        bits.append(f"encounter {e.get('encounter', 1)}"
                    + ("" if e.get("last") is False else " (the last)"))
        return f"{text}; {', '.join(bits)}"
    if k == "social_situation_set":
        return f"{n(e['combatant'])}'s situation at the event: {situation_text(e)}"
    if k == "aura_points_changed":
        return (f"{n(e['combatant'])}: {e['reason']} → Harmony {e['harmony']}, "
                f"Discord {e['discord']}")
    return k.replace("_", " ")


def social_lines(view: TableView) -> list[str]:
    """The social scene as text: the event, each combatant's mental track, Blocking,
    standing and statements, then the attitudes."""
    if not (view.social or view.arguments or view.attitudes or view.blocking):
        return []
    event = (view.social or {}).get("event")
    out = [f"social event: Event Rating {event['rating']}"
           + (f", organised by {view.name_of(event['organizer'])}" if event.get("organizer")
              else "") if event else "no social event"]
    if view.debate_over:
        out.append("the debate is over")
    standing = (view.social or {}).get("standing") or {}
    for cid, c in view.combatants.items():
        mental = (c.get("vitals") or {}).get("mental") or {}
        bits = [f"mental {mental.get('step', 0)}/5"]
        if cid in view.blocking:
            bits.append("blocking")
        st = standing.get(cid)
        if st:
            bits.append(f"status {st['status']} ({terms(st.get('status_parts'))})")
            if st.get("access") is not None:
                bits.append(f"access {st['access']}")
            if st.get("aura") and st["aura"].get("level"):
                bits.append(f"aura {st['aura']['kind']} {st['aura']['level']}")
            bits.append(f"harmony {st.get('harmony', 0)}, discord {st.get('discord', 0)}")
        said = [f"[{a}] {v['size'] or 'spent'}" + (f" {v['text']!r}" if v.get("text") else "")
                for a, v in view.statements_of(cid)]
        if said:
            bits.append("statements: " + "; ".join(said))
        out.append(f"  {view.name_of(cid)}: {', '.join(bits)}")
    for holder, row in view.attitudes.items():
        for toward, attitude in row.items():
            out.append(f"  {view.name_of(holder)} → {view.name_of(toward)}: {attitude}")
    return out


def map_lines(view: TableView, width_limit: int = 60) -> list[str]:
    """The battle map as text, one character per square (the drawing format of
    ``BattleMap.from_ascii``), with each placed combatant as the first letter of its id."""
    m = view.battle_map
    if not m:
        return []
    w, h = m["width"], m["height"]
    if w > width_limit or h > width_limit:
        return [f"a {w}x{h} battle map (too large to draw here)"]
    grid = [["."] * w for _ in range(h)]
    for layer, char in (("difficult", "~"), ("low", "="), ("fog", ":"), ("darkness", "%"),
                        ("pits", "^"), ("improved_cover", "!"), ("blocked", "#")):
        for x, y in m.get(layer) or []:
            if 0 <= x < w and 0 <= y < h:
                grid[y][x] = char
    legend = []
    for cid, (x, y) in sorted(view.positions.items()):
        if 0 <= x < w and 0 <= y < h:
            mark = cid[0].upper()
            grid[y][x] = mark
            legend.append(f"{mark} {view.name_of(cid)} ({x},{y})")
    header = "   " + "".join(str(x % 10) for x in range(w))
    rows = [f"{y:>2} " + "".join(row) for y, row in enumerate(grid)]
    return [header, *rows, *(["   " + "; ".join(legend)] if legend else [])]


#: The characters of a map drawing and the ``BattleMap`` layer each stands for (the format of
#: ``rules.battle_map.BattleMap.from_ascii``; letters and digits are open floor).
DRAWING = {"#": "blocked", "~": "difficult", "=": "low", ":": "fog", "%": "darkness",
           "^": "pits", "!": "improved_cover"}


def drawing_to_map(text: str) -> dict[str, Any]:
    """A map drawn in text as the ``map`` of ``set_map`` (the server checks it: unknown
    characters and ragged rows are refused there)."""
    rows = ["".join(line.split()) for line in text.splitlines()]
    rows = [row for row in rows if row]
    out: dict[str, Any] = {"width": max((len(r) for r in rows), default=0),
                           "height": len(rows)}
    for y, row in enumerate(rows):
        for x, char in enumerate(row):
            if char in DRAWING:
                out.setdefault(DRAWING[char], []).append([x, y])
    return out
