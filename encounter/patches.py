"""A viewer's state kept in step: what changed since it was last shown, as a JSON Patch.

For each kind of viewer the server keeps what it last showed (``Shown``): the view, the state
it was worked out from, the combatants the viewer sees, each combatant's entry with the profile
and vitals it came from, and what each of the ruleset's view parts read of the state.
``follow`` works out the view of a later state from what changed since, never from the whole
state again: the engine's parts whose fields changed (``encounter.views.ENGINE_PARTS`` says
which fields each reads), the combatants whose profile or vitals were replaced (both frozen: a
change replaces them), the ruleset's parts that read a changed field (what a part reads is
recorded each time it is worked out). The patch goes from the old view to the new one and is
as small as the change (RFC 6902 operations; never the root, never a whole combatant when one
of its fields changed). A change of the combatants the viewer sees (a reveal, a combatant
added or removed) works the whole view out again, and the patch is the difference.

The view built is exactly ``encounter.views.view_state`` of the same state.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from encounter.actors import Actor
from encounter.ruleset import ViewPart, declaration
from encounter.state import EncounterState, Vitals
from encounter.views import ENGINE_PARTS, RULESET_PARTS_AT, Sight, combatant_view, visible_to
from protocol.model import CombatantProfile

Op = dict[str, Any]

FIELDS = frozenset(EncounterState.__struct_fields__)
#: Read by a part that looked at something of the state other than its fields.
EVERYTHING = "*"
#: The patches a viewer kind keeps, for resumes (``Shown.since``).
KEPT_PATCHES = 256


class _Reads:
    """The state as a ruleset's view part sees it, noting each field it reads."""

    __slots__ = ("_state", "reads")

    def __init__(self, state: EncounterState) -> None:
        self._state = state
        self.reads: set[str] = set()

    def __getattr__(self, name: str) -> Any:
        if name in FIELDS:
            self.reads.add(name)
            return getattr(self._state, name)
        found = getattr(type(self._state), name, None)
        if callable(found):  # a method of the state: it reads through this one too
            return found.__get__(self)
        self.reads.add(EVERYTHING)
        return getattr(self._state, name)


@dataclass
class Shown:
    """What one kind of viewer was last shown, and the patches that brought it there."""

    view: dict[str, Any]
    base: EncounterState
    visible: set[str]
    ids: list[str]  # the combatants' entries, in order
    #: each combatant's entry and the profile and vitals it was worked out from
    entries: dict[str, tuple[CombatantProfile, Vitals | None, dict[str, Any]]]
    #: each ruleset part's key (``None``: it gave nothing) and the fields it read
    parts: list[tuple[str | None, frozenset[str]]]
    #: the position (seq) of ``base`` for this viewer, and the patches that led to it: each
    #: from the position before it, and where the oldest kept one starts (``since``)
    at: int = 0
    patches: deque[tuple[int, int, list[Op]]] = field(
        default_factory=lambda: deque(maxlen=KEPT_PATCHES))
    since: int = 0

    def after(self, seq: int) -> list[Op] | None:
        """The patch from the view at ``seq`` to this one (``[]``: the same); ``None`` when
        the patches kept do not reach back to it."""
        if seq == self.at:
            return []
        if seq < self.since or seq > self.at:
            return None
        ops: list[Op] = []
        for start, end, patch in self.patches:
            if end <= seq:
                continue
            if start < seq:  # (a position inside one delivery: not one a viewer is given)
                return None
            ops.extend(patch)
        return ops

    def record(self, at: int, ops: list[Op]) -> None:
        if ops:
            if len(self.patches) == self.patches.maxlen:
                self.since = self.patches[0][1]
            self.patches.append((self.at, at, ops))
        self.at = at


def show(state: EncounterState, viewer: Actor, at: int = 0) -> Shown:
    """The view of ``state`` for ``viewer`` (at position ``at``), and what follows it needs."""
    full = viewer.sees_all
    visible = visible_to(state, viewer)
    sight = Sight(state, viewer, full, visible)
    view: dict[str, Any] = {}
    for key, _reads, part, only in ENGINE_PARTS[:RULESET_PARTS_AT]:
        if only is None or only == full:
            view[key] = part(sight)
    ids = [cid for cid in state.combatants if cid in visible]
    entries = {}
    for cid in ids:
        c = state.combatants[cid]
        entries[cid] = (c, state.vitals.get(cid), combatant_view(state, c, viewer, full))
    view["combatants"] = [entries[cid][2] for cid in ids]
    parts = []
    for view_part in declaration(state.ruleset).views:
        found, read = _spied(view_part, sight)
        parts.append((found[0] if found is not None else None, read))
        if found is not None:
            view[found[0]] = found[1]
    for key, _reads, part, only in ENGINE_PARTS[RULESET_PARTS_AT:]:
        if only is None or only == full:
            view[key] = part(sight)
    return Shown(view, state, visible, ids, entries, parts, at=at, since=at)


def changed_fields(old: EncounterState, new: EncounterState) -> frozenset[str]:
    """The fields of the state that differ (the frozen parts compare by identity first)."""
    if old is new:
        return frozenset()
    return frozenset(f for f in FIELDS if getattr(old, f) != getattr(new, f))


def follow(shown: Shown, state: EncounterState, viewer: Actor, at: int,
           changed: frozenset[str] | None = None) -> list[Op]:
    """Bring ``shown`` to ``state`` (position ``at``) and return the patch that does it
    (``[]``: this viewer's view did not change). ``changed``: ``changed_fields`` of
    ``shown.base`` and ``state``, when the caller has it."""
    if changed is None:
        changed = changed_fields(shown.base, state)
    full = viewer.sees_all
    visible = visible_to(state, viewer) if "combatants" in changed else shown.visible
    ids = [cid for cid in state.combatants if cid in visible] \
        if "combatants" in changed else shown.ids
    if visible != shown.visible or ids != shown.ids or "ruleset" in changed:
        fresh = show(state, viewer, at)
        ops: list[Op] = []
        diff("", shown.view, fresh.view, ops)
        fresh.patches, fresh.since, fresh.at = shown.patches, shown.since, shown.at
        _take(shown, fresh)
        shown.record(at, ops)
        return ops
    ops = []
    if not changed:
        shown.base = state
        shown.record(at, ops)
        return ops
    sight = Sight(state, viewer, full, visible)
    view = dict(shown.view)
    for key, reads, part, only in ENGINE_PARTS:
        if reads and (only is None or only == full) and not changed.isdisjoint(reads):
            value = part(sight)
            diff(f"/{key}", view[key], value, ops)
            view[key] = value
    if "combatants" in changed or "vitals" in changed:
        listed: list[dict[str, Any]] | None = None
        for i, cid in enumerate(ids):
            c, v = state.combatants[cid], state.vitals.get(cid)
            before = shown.entries[cid]
            if before[0] is c and before[1] is v:
                continue
            entry = combatant_view(state, c, viewer, full)
            diff(f"/combatants/{i}", before[2], entry, ops)
            shown.entries[cid] = (c, v, entry)
            if listed is None:
                listed = list(view["combatants"])
            listed[i] = entry
        if listed is not None:
            view["combatants"] = listed
    for i, view_part in enumerate(declaration(state.ruleset).views):
        had, read = shown.parts[i]
        if EVERYTHING not in read and changed.isdisjoint(read):
            continue
        found, read = _spied(view_part, sight)
        if found is None:
            if had is not None:  # back to the engine's own part of that name
                value = next(p for k, _r, p, _o in ENGINE_PARTS if k == had)(sight)
                diff(f"/{had}", view[had], value, ops)
                view[had] = value
            shown.parts[i] = (None, read)
            continue
        diff(f"/{_escape(found[0])}", view.get(found[0], _MISSING), found[1], ops)
        view[found[0]] = found[1]
        shown.parts[i] = (found[0], read)
    shown.view, shown.base = view, state
    shown.record(at, ops)
    return ops


def _take(shown: Shown, fresh: Shown) -> None:
    shown.view, shown.base, shown.visible = fresh.view, fresh.base, fresh.visible
    shown.ids, shown.entries, shown.parts = fresh.ids, fresh.entries, fresh.parts


def _spied(part: ViewPart, sight: Sight) -> tuple[tuple[str, Any] | None, frozenset[str]]:
    """A ruleset's view part of ``sight``, and the fields of the state it read."""
    state, viewer, full, visible = sight
    stats = {cid for cid in visible if full or cid in viewer.combatants}
    spy = _Reads(state)
    try:
        found = part(spy, visible, lambda c: viewer.controls(spy, c),  # type: ignore[arg-type]
                     full, stats)
    except (TypeError, AttributeError):  # it needs the state itself: worked out every time
        found = part(state, visible, lambda c: viewer.controls(state, c), full, stats)
        return found, frozenset({EVERYTHING})
    return found, frozenset(spy.reads)


# --- the patch ------------------------------------------------------------------------------

_MISSING: Any = object()


def _escape(key: object) -> str:
    text = str(key)
    if "~" in text or "/" in text:
        text = text.replace("~", "~0").replace("/", "~1")
    return text


def diff(path: str, old: Any, new: Any, ops: list[Op]) -> None:
    """Append to ``ops`` the operations that turn ``old`` (at ``path``) into ``new``."""
    if old is new:
        return
    if old is _MISSING:
        ops.append({"op": "add", "path": path, "value": new})
        return
    if type(old) is dict and type(new) is dict:
        if old == new:
            return
        for key in old:
            if key not in new:
                ops.append({"op": "remove", "path": f"{path}/{_escape(key)}"})
        for key, value in new.items():
            where = f"{path}/{_escape(key)}"
            if key in old:
                diff(where, old[key], value, ops)
            else:
                ops.append({"op": "add", "path": where, "value": value})
        return
    if type(old) is list and type(new) is list:
        if old == new:
            return
        if _keyed(old) and _keyed(new):
            _diff_keyed(path, old, new, ops)
        elif len(old) == len(new) and all(type(x) is dict for x in old):
            for i, (a, b) in enumerate(zip(old, new, strict=True)):
                diff(f"{path}/{i}", a, b, ops)
        else:
            ops.append({"op": "replace", "path": path, "value": new})
        return
    if old != new or type(old) is not type(new):
        ops.append({"op": "replace", "path": path, "value": new})


def _keyed(items: Iterable[Any]) -> bool:
    return all(type(x) is dict and "id" in x for x in items)


def _diff_keyed(path: str, old: list[dict[str, Any]], new: list[dict[str, Any]],
                ops: list[Op]) -> None:
    """Lists of entries with ids (combatants, effects): those gone removed, those new added
    in their place, the others changed where they are; reordered: the list replaced."""
    wanted = {x["id"] for x in new}
    kept = [x for x in old if x["id"] in wanted]
    kept_ids = {x["id"] for x in kept}
    if [x["id"] for x in new if x["id"] in kept_ids] != [x["id"] for x in kept]:
        ops.append({"op": "replace", "path": path, "value": new})
        return
    for i in range(len(old) - 1, -1, -1):
        if old[i]["id"] not in wanted:
            ops.append({"op": "remove", "path": f"{path}/{i}"})
    j = 0
    for i, item in enumerate(new):
        if j < len(kept) and kept[j]["id"] == item["id"]:
            diff(f"{path}/{i}", kept[j], item, ops)
            j += 1
        else:
            ops.append({"op": "add", "path": f"{path}/{i}", "value": item})
