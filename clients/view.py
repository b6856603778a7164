"""What a client shows: the encounter's state as the server keeps it for one viewer, and the
log of the server's words.

:class:`TableView` reads the snapshot state (the ``snapshot``'s ``state`` with every ``view``
patch applied, ``docs/protocol/snapshot-state.schema.json``) for the few things a client
displays: names, the initiative order, whose turn, the round, vitals, the map, the social
scene. It works nothing out: the server has already redacted what this viewer may not see,
keeps the state, and lists the actions this viewer may take in ``legal_actions``. A log line
is an event's ``summary`` as the server wrote it (:func:`log_line`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

Message = dict[str, Any]


@dataclass
class LogLine:
    """One event of the log: its position (``cursor``, or ``seq`` without the ``cursor``
    feature), its ``kind``, the server's ``summary`` (``text`` and the numbers itemised in
    ``parts``) and the event message as it came (for ``clients.dice_check``)."""

    at: str | int | None
    kind: str
    text: str
    parts: list[dict[str, Any]] = field(default_factory=list)
    message: Message = field(default_factory=dict, repr=False)


def log_line(message: Message) -> LogLine:
    """An ``event`` message as a log line: its ``summary`` (the ``summaries`` feature); an
    event without one (a server that writes no words) goes by its kind."""
    kind = str((message.get("event") or {}).get("kind", ""))
    summary = message.get("summary") or {}
    return LogLine(message.get("cursor", message.get("seq")), kind,
                   str(summary.get("text") or kind.replace("_", " ")),
                   list(summary.get("parts") or []), message)


def parts_text(parts: list[dict[str, Any]]) -> str:
    """A summary's numbers, itemised: ``d20 14 · Melee skill 5 · total 19``."""
    return " · ".join(f"{p.get('label')} {p.get('value')}" for p in parts)


class TableView:
    """A read-only view of a snapshot state (``state``: the dict the connection holds, which
    the server's patches keep), with the accessors the terminal client and the bots use."""

    def __init__(self, state: dict[str, Any] | None = None,
                 vitals_labels: dict[str, str] | None = None) -> None:
        self.state: dict[str, Any] = state if state is not None else {}
        #: each ruleset's word for fatigue points, by ruleset name (the server's
        #: ``/table/rulesets.json``, ``vitals``): "Health" in "Action Time"
        self.vitals_labels: dict[str, str] = dict(vitals_labels or {})

    def _get(self, key: str, default: Any) -> Any:
        value = self.state.get(key)
        return default if value is None else value

    @property
    def name(self) -> str:
        return str(self._get("name", ""))

    @property
    def ruleset(self) -> str:
        return str(self._get("ruleset", ""))

    @property
    def vitals_label(self) -> str:
        """This encounter's word for fatigue points ("fatigue" when the server has not said)."""
        return self.vitals_labels.get(self.ruleset, "fatigue")

    @property
    def combatants(self) -> dict[str, dict[str, Any]]:
        """The combatants this viewer sees, by id, in the state's order."""
        return {c["id"]: c for c in self._get("combatants", [])}

    @property
    def order(self) -> list[str]:
        return list(self._get("order", []))

    @property
    def initiative(self) -> dict[str, dict[str, Any]]:
        return {e["combatant"]: e for e in self._get("initiative", [])}

    @property
    def round(self) -> int:
        return int(self._get("round", 0))

    @property
    def current(self) -> str | None:
        current = self.state.get("current")
        return str(current) if current is not None else None

    @property
    def phase(self) -> list[str]:
        return list(self._get("phase", []))

    @property
    def started(self) -> bool:
        phase = self.phase
        return bool(phase) and phase[0] != "setup"

    @property
    def ended(self) -> bool:
        return bool(self.state.get("ended"))

    @property
    def end_reason(self) -> str | None:
        reason = self.state.get("end_reason")
        return str(reason) if reason is not None else None

    @property
    def out_of_fight(self) -> frozenset[str]:
        """The states of a conscious combatant's ``vitals.condition`` that put it out of the
        fight in this encounter's ruleset (the state's ``out_of_fight``)."""
        return frozenset(self._get("out_of_fight", ()))

    @property
    def flat_footed(self) -> set[str]:
        return set(self._get("flat_footed", []))

    @property
    def delaying(self) -> set[str]:
        return set(self._get("delaying", []))

    @property
    def effects(self) -> dict[str, dict[str, Any]]:
        return {e["effect"]: e for e in self._get("effects", [])}

    @property
    def pending_rolls(self) -> dict[str, dict[str, Any]]:
        return {p["request"]: p for p in self._get("pending_rolls", [])}

    @property
    def timer(self) -> dict[str, Any] | None:
        """The running turn timer (``None``: none runs)."""
        timer = self.state.get("timer")
        return timer if isinstance(timer, dict) else None

    @property
    def battle_map(self) -> dict[str, Any] | None:
        m = self.state.get("map")
        return m if isinstance(m, dict) else None

    @property
    def positions(self) -> dict[str, tuple[int, int]]:
        return {cid: (at[0], at[1]) for cid, at in self._get("positions", {}).items()}

    @property
    def grabs(self) -> dict[str, list[str]]:
        """Who grabs whom: target -> grabbers."""
        return {cid: list(g) for cid, g in self._get("grabs", {}).items() if g}

    @property
    def at_effects(self) -> list[dict[str, Any]]:
        """The "Action Time" effects running."""
        return list(self._get("action_time", {}).get("effects") or [])

    @property
    def arguments(self) -> dict[str, dict[str, Any]]:
        """The statements: id -> owner, size (``None``: spent), text, perilous."""
        return dict(self._get("arguments", {}))

    @property
    def attitudes(self) -> dict[str, dict[str, str]]:
        return dict(self._get("attitudes", {}))

    @property
    def blocking(self) -> set[str]:
        return set(self._get("blocking", []))

    @property
    def answers(self) -> dict[str, dict[str, Any]]:
        """The statements that hit and wait for an answer: id -> speaker, target, loss."""
        return dict(self._get("answers", {}))

    @property
    def debate_over(self) -> bool:
        return bool(self.state.get("debate_over"))

    @property
    def social(self) -> dict[str, Any] | None:
        social = self.state.get("social")
        return social if isinstance(social, dict) else None

    def name_of(self, cid: str | None) -> str:
        if cid is None:
            return "the GM"
        return str(self.combatants.get(cid, {}).get("name", cid))

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


class DeltaMismatch(ValueError):
    """A ``legal_actions_delta`` that does not apply to the list held (its ``base`` is another
    seq, or a run reaches past the list): ask for the full list (``get_legal_actions``)."""


def apply_legal_delta(previous: list[dict[str, Any]], delta: Message,
                      base: int | str | None = None,
                      recall: dict[str, list[dict[str, Any]]] | None = None
                      ) -> list[dict[str, Any]]:
    """The list of legal actions a ``legal_actions_delta`` makes of ``previous`` (the list
    held, got at ``seq`` ``base``, or with the ``cursor`` feature at cursor ``base``): its
    items in order, an entry as itself and ``[start, count]`` as that many entries of
    ``previous`` from ``start`` on; with ``legal_recall``, ``[start, count, combatant]`` as
    that many entries of what is recalled of ``combatant`` (``recall``, kept by
    :func:`recall_after`). The JavaScript package does the same (``applyLegalDelta``).
    Deltas are the wire's encoding of a list, not a fold of events."""
    named = delta.get("base_cursor") if isinstance(base, str) else delta.get("base")
    # (with legal_recall a delta names no base: it applies to the list last received)
    if base is not None and named is not None and named != base:
        raise DeltaMismatch(f"delta from {named!r}, list held at {base!r}")
    out: list[dict[str, Any]] = []
    for item in delta["actions"]:
        if isinstance(item, dict):
            out.append(item)
            continue
        if len(item) == 3:
            start, count, combatant = item
            held = (recall or {}).get(combatant, [])
            if start < 0 or count < 1 or start + count > len(held):
                raise DeltaMismatch(f"run {item} outside what is recalled of {combatant!r}")
            out += held[start:start + count]
            continue
        start, count = item
        if start < 0 or count < 1 or start + count > len(previous):
            raise DeltaMismatch(f"run {item} outside a list of {len(previous)}")
        out += previous[start:start + count]
    return out


def recall_after(previous: list[dict[str, Any]], current: list[dict[str, Any]],
                 recall: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """What a connection with ``legal_recall`` recalls once a delta made ``current`` of
    ``previous``: for each combatant whose entries are not the same in both, its entries of
    ``previous`` (a full ``legal_actions`` recalls nothing)."""
    def groups(entries: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
        out: dict[str, list[dict[str, Any]]] = {}
        for entry in entries:
            if entry.get("combatant") is not None:
                out.setdefault(entry["combatant"], []).append(entry)
        return out

    before, after = groups(previous), groups(current)
    changed = {c: entries for c, entries in before.items() if after.get(c) != entries}
    return {**recall, **changed} if changed else recall


#: Statement sizes, smallest first (SIZES.index: how big).
SIZES = ("fine", "diminutive", "tiny", "small", "medium", "large", "huge", "gargantuan",
         "colossal")
#: Attitudes, worst first.
ATTITUDES = ("hostile", "unfriendly", "indifferent", "friendly", "helpful")


def size_rank(size: str | None) -> int:
    """How big a statement is (-1: spent or unknown)."""
    return SIZES.index(size) if size in SIZES else -1


_CONDITIONS = {"fit": "", "active": "", "defenseless": "defenseless (0 fatigue points)",
               "unconscious": "unconscious", "awaiting_check": "awaiting a Constitution check",
               "out_for_scene": "out for the scene", "dead": "dead", "destroyed": "destroyed"}


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


# -- renderers of the state ------------------------------------------------------------------


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
