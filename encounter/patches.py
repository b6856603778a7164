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
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from encounter.actors import Actor
from encounter.ruleset import ViewPart, declaration
from encounter.state import EncounterState, Vitals
from encounter.views import (
    ENGINE_PARTS,
    RULESET_PARTS_AT,
    VIEWER_PARTS,
    Sight,
    ViewPartOf,
    combatant_view,
    seen_stats,
    visible_to,
)
from protocol.model import CombatantProfile

Op = dict[str, Any]

FIELDS = frozenset(EncounterState.__struct_fields__)
#: Read by a part that looked at something of the state other than its fields.
EVERYTHING = "*"
#: The patches a viewer kind keeps, for resumes (``Shown.since``).
KEPT_PATCHES = 64


Read = tuple[str, Any]  # a field of the state, and the key read in it (``WHOLE``: all of it)
WHOLE: Any = object()


class _Reads:
    """The state as a view part sees it, noting what it reads: a field, or the keys it looks
    up in a field that is a mapping."""

    __slots__ = ("_state", "reads")

    def __init__(self, state: EncounterState) -> None:
        self._state = state
        self.reads: set[Read] = set()

    def __getattr__(self, name: str) -> Any:
        if name in FIELDS:
            value = getattr(self._state, name)
            if type(value) is dict:
                return _Looked(value, name, self.reads)
            self.reads.add((name, WHOLE))
            return value
        found = getattr(type(self._state), name, None)
        if callable(found):  # a method of the state: it reads through this one too
            return found.__get__(self)
        self.reads.add((EVERYTHING, WHOLE))
        return getattr(self._state, name)


class _Looked(Mapping[Any, Any]):
    """A mapping of the state, noting the keys looked up in it (all of it when iterated)."""

    __slots__ = ("_items", "_name", "_reads")

    def __init__(self, items: dict[Any, Any], name: str, reads: set[Read]) -> None:
        self._items, self._name, self._reads = items, name, reads

    def __getitem__(self, key: Any) -> Any:
        self._reads.add((self._name, key))
        return self._items[key]

    def get(self, key: Any, default: Any = None) -> Any:
        self._reads.add((self._name, key))
        return self._items.get(key, default)

    def __contains__(self, key: object) -> bool:
        self._reads.add((self._name, key))
        return key in self._items

    def __iter__(self) -> Iterator[Any]:
        self._reads.add((self._name, WHOLE))
        return iter(self._items)

    def __len__(self) -> int:
        self._reads.add((self._name, WHOLE))
        return len(self._items)


class Changes:
    """What changed between two states, worked out once and kept for the last few pairs: the
    fields, and in each changed field that is a mapping, the keys whose values changed."""

    def __init__(self) -> None:
        self._pairs: deque[tuple[EncounterState, EncounterState, dict[str, Any]]] = \
            deque(maxlen=2)

    def between(self, old: EncounterState, new: EncounterState) -> dict[str, Any]:
        """Each changed field: the set of keys changed in it, or ``WHOLE``."""
        for a, b, found in self._pairs:
            if a is old and b is new:
                return found
        found = {}
        for f in changed_fields(old, new):
            x, y = getattr(old, f), getattr(new, f)
            found[f] = _changed_keys(x, y) if type(x) is dict and type(y) is dict else WHOLE
        self._pairs.append((old, new, found))
        return found

    def fields(self, old: EncounterState, new: EncounterState) -> frozenset[str]:
        return frozenset(self.between(old, new))

    def touch(self, reads: frozenset[Read], old: EncounterState, new: EncounterState) -> bool:
        """Whether anything in ``reads`` changed from ``old`` to ``new``."""
        if old is new:
            return False
        changed = self.between(old, new)
        for f, key in reads:
            if f == EVERYTHING:
                return True
            keys = changed.get(f)
            if keys is not None and (keys is WHOLE or key is WHOLE or key in keys):
                return True
        return False


def _changed_keys(old: dict[Any, Any], new: dict[Any, Any]) -> set[Any]:
    gone = _MISSING
    return {k for k in old.keys() | new.keys()
            if (a := old.get(k, gone)) is not (b := new.get(k, gone)) and a != b}


class Memo:
    """The per-combatant parts of views (``Declaration.combatant_views``), worked out once
    per state for every viewer, and again only when what they read changed."""

    def __init__(self) -> None:
        self.changes = Changes()
        self._entries: dict[tuple[str, str], tuple[Any, frozenset[Read], EncounterState]] = {}
        #: by key, every field any combatant's value read (``EVERYTHING`` among them: any)
        self._fields: dict[str, set[str]] = {}
        #: what viewers share: the combatants they see, the values of parts of the state
        #: ``_state``, the patches between two values
        self._visible_of: EncounterState | None = None
        self._visible: dict[bool, set[str]] = {}
        self._state: EncounterState | None = None
        self._values: dict[Any, Any] = {}
        self._alive: list[set[str]] = []
        self._diffs: dict[tuple[str, int, int], tuple[Any, Any, list[Op]]] = {}

    def unchanged(self, key: str, changed: frozenset[str]) -> bool:
        """Whether no value of ``key`` read any of the ``changed`` fields (then none needs
        working out again)."""
        fields = self._fields.get(key)
        return fields is not None and EVERYTHING not in fields and changed.isdisjoint(fields)

    def value(self, key: str, of: Callable[[EncounterState, str], Any],
              state: EncounterState, cid: str) -> Any:
        entry = self._entries.get((key, cid))
        if entry is not None:
            value, reads, base = entry
            if base is state:
                return value
            if not self.changes.touch(reads, base, state):
                self._entries[(key, cid)] = (value, reads, state)
                return value
        spy = _Reads(state)
        try:
            value = of(spy, cid)  # type: ignore[arg-type]
            reads = frozenset(spy.reads)
        except (TypeError, AttributeError):  # it needs the state itself
            value, reads = of(state, cid), frozenset({(EVERYTHING, WHOLE)})
        self._entries[(key, cid)] = (value, reads, state)
        self._fields.setdefault(key, set()).update(f for f, _ in reads)
        return value

    def visible(self, state: EncounterState, viewer: Actor) -> set[str]:
        """The combatants ``viewer`` sees, one object for every viewer who sees the same
        (never changed: it stands for them all)."""
        if self._visible_of is not state:
            self._visible_of, self._visible = state, {}
        found = self._visible.get(viewer.sees_all)
        if found is None:
            found = self._visible[viewer.sees_all] = visible_to(state, viewer)
        return found

    def shared(self, state: EncounterState, key: Any, work: Callable[[], Any],
               seen: set[str] | None = None) -> Any:
        """A value of a view that every viewer of ``key`` (a part, and what tells viewers
        apart for it) shares, worked out once per state. ``seen``: the set of combatants
        ``key`` names by its id, kept alive with the values, so that the id names it alone."""
        if self._state is not state:
            self._state, self._values, self._diffs, self._alive = state, {}, {}, []
        if seen is not None and not (self._alive and self._alive[-1] is seen):
            self._alive.append(seen)
        found = self._values.get(key, _MISSING)
        if found is _MISSING:
            found = self._values[key] = work()
        return found

    def diff(self, path: str, old: Any, new: Any, ops: list[Op]) -> None:
        """``diff``, worked out once for viewers who had the same value and get the same."""
        key = (path, id(old), id(new))
        found = self._diffs.get(key)
        if found is not None and found[0] is old and found[1] is new:
            ops.extend(found[2])
            return
        mine: list[Op] = []
        diff(path, old, new, mine)
        self._diffs[key] = (old, new, mine)  # (until the state changes: ``shared``)
        ops.extend(mine)

    def carry(self, key: str, old: EncounterState, new: EncounterState) -> None:
        """Nothing ``key``'s values read changed from ``old`` to ``new``: those worked out on
        ``old`` stand for ``new`` (and ``old`` is not kept alive by them)."""
        for k, (value, reads, base) in self._entries.items():
            if base is old and k[0] == key:
                self._entries[k] = (value, reads, new)

    def holds(self, state: EncounterState) -> bool:
        return any(base is state for _, _, base in self._entries.values())

    def rebase(self, state: EncounterState, kept: EncounterState) -> None:
        """``state`` is about to change in place: what was worked out on it stands for
        ``kept``, its copy (and no change worked out with it stands)."""
        for k, (value, reads, base) in self._entries.items():
            if base is state:
                self._entries[k] = (value, reads, kept)
        self.changes = Changes()
        self._visible_of, self._visible = None, {}
        self._state, self._values = None, {}


@dataclass
class Shown:
    """What one kind of viewer was last shown, and the patches that brought it there."""

    view: dict[str, Any]
    base: EncounterState
    visible: set[str]
    ids: list[str]  # the combatants' entries, in order
    #: each combatant's entry and the profile and vitals it was worked out from
    entries: dict[str, tuple[CombatantProfile, Vitals | None, dict[str, Any]]]
    #: each ruleset part's key (``None``: it gave nothing) and what it read of the state
    parts: list[tuple[str | None, frozenset[Read]]]
    #: the position (seq) of ``base`` for this viewer, and the patches that led to it: each
    #: from the position before it, and where the oldest kept one starts (``since``)
    at: int = 0
    patches: deque[tuple[int, int, list[Op]]] = field(
        default_factory=lambda: deque(maxlen=KEPT_PATCHES))
    since: int = 0
    #: the per-combatant parts and what changed between states, shared with the other viewers
    #: of the room (a memo of its own when none is given)
    memo: Memo = field(default_factory=Memo)

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


def show(state: EncounterState, viewer: Actor, at: int = 0, memo: Memo | None = None) -> Shown:
    """The view of ``state`` for ``viewer`` (at position ``at``), and what follows it needs;
    ``memo``: the room's, shared by its viewers."""
    memo = memo if memo is not None else Memo()
    full = viewer.sees_all
    visible = memo.visible(state, viewer)
    sight = Sight(state, viewer, full, visible)
    view: dict[str, Any] = {}

    def engine_part(key: str, part: ViewPartOf) -> Any:
        if key in VIEWER_PARTS:
            return part(sight)
        return memo.shared(state, (key, full, id(visible)), lambda: part(sight), visible)

    for key, _reads, part, only in ENGINE_PARTS[:RULESET_PARTS_AT]:
        if only is None or only == full:
            view[key] = engine_part(key, part)
    ids = [cid for cid in state.combatants if cid in visible]
    entries = {}
    for cid in ids:
        c = state.combatants[cid]
        entries[cid] = (c, state.vitals.get(cid), _entry(memo, state, c, viewer, full))
    view["combatants"] = [entries[cid][2] for cid in ids]
    parts = []
    for view_part in declaration(state.ruleset).views:
        found, read = _spied(view_part, sight)
        parts.append((found[0] if found is not None else None, read))
        if found is not None:
            view[found[0]] = found[1]
    for key, of in declaration(state.ruleset).combatant_views:
        view[key] = _per_combatant(memo, key, of, sight)
    for key, _reads, part, only in ENGINE_PARTS[RULESET_PARTS_AT:]:
        if only is None or only == full:
            view[key] = engine_part(key, part)
    return Shown(view, state, visible, ids, entries, parts, at=at, since=at, memo=memo)


def _entry(memo: Memo, state: EncounterState, c: CombatantProfile, viewer: Actor,
           full: bool) -> dict[str, Any]:
    """``combatant_view``, the same object for every viewer who sees that combatant alike."""
    alike = ("combatant", c.id, full, full or c.id in viewer.combatants,
             viewer.controls(state, c.id))
    return memo.shared(state, alike,
                       lambda: combatant_view(state, c, viewer, full))


def _per_combatant(memo: Memo, key: str, of: Callable[[EncounterState, str], Any],
                   sight: Sight) -> dict[str, Any]:
    state = sight.state
    stats = seen_stats(sight)
    return {cid: value for cid in state.combatants
            if cid in stats and (value := memo.value(key, of, state, cid)) is not None}


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
    memo = shown.memo
    if changed is None:
        changed = memo.changes.fields(shown.base, state)
    full = viewer.sees_all
    visible = memo.visible(state, viewer) if "combatants" in changed else shown.visible
    ids = [cid for cid in state.combatants if cid in visible] \
        if "combatants" in changed else shown.ids
    if visible != shown.visible or ids != shown.ids or "ruleset" in changed:
        fresh = show(state, viewer, at, memo)
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
    for key, part, only in _engine_parts(changed):
        if only is None or only == full:
            # the same for every viewer who sees the same combatants, but a few parts
            value = part(sight) if key in VIEWER_PARTS else \
                memo.shared(state, (key, full, id(visible)),
                            lambda p=part: p(sight), visible)  # type: ignore[misc]
            memo.diff(f"/{key}", view[key], value, ops)
            view[key] = value
    if "combatants" in changed or "vitals" in changed:
        listed: list[dict[str, Any]] | None = None
        for i, cid in enumerate(ids):
            c, v = state.combatants[cid], state.vitals.get(cid)
            before = shown.entries[cid]
            if before[0] is c and before[1] is v:
                continue
            entry = _entry(memo, state, c, viewer, full)
            memo.diff(f"/combatants/{i}", before[2], entry, ops)
            shown.entries[cid] = (c, v, entry)
            if listed is None:
                listed = list(view["combatants"])
            listed[i] = entry
        if listed is not None:
            view["combatants"] = listed
    rules = declaration(state.ruleset)
    for i, view_part in enumerate(rules.views):
        had, read = shown.parts[i]
        fields = _fields_of(read)
        if EVERYTHING not in fields and changed.isdisjoint(fields):
            continue  # (the cheap test first: no field it read changed)
        if not memo.changes.touch(read, shown.base, state):
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
    for key, of in rules.combatant_views:
        if memo.unchanged(key, changed):
            memo.carry(key, shown.base, state)
            continue
        value = _per_combatant(memo, key, of, sight)
        diff(f"/{key}", view[key], value, ops)
        view[key] = value
    shown.view, shown.base = view, state
    shown.record(at, ops)
    return ops


@lru_cache(maxsize=256)
def _engine_parts(changed: frozenset[str]) -> tuple[tuple[str, ViewPartOf, bool | None], ...]:
    """The engine's parts that read a field of ``changed`` (the same few sets come again and
    again: end of turn, move, attack)."""
    return tuple((key, part, only) for key, reads, part, only in ENGINE_PARTS
                 if reads and not changed.isdisjoint(reads))


@lru_cache(maxsize=1024)
def _fields_of(reads: frozenset[Read]) -> frozenset[str]:
    """The fields ``reads`` reads (``EVERYTHING`` among them for a part that read more)."""
    return frozenset(f for f, _ in reads)


def _take(shown: Shown, fresh: Shown) -> None:
    shown.view, shown.base, shown.visible = fresh.view, fresh.base, fresh.visible
    shown.ids, shown.entries, shown.parts = fresh.ids, fresh.entries, fresh.parts


def _spied(part: ViewPart, sight: Sight) -> tuple[tuple[str, Any] | None, frozenset[Read]]:
    """A ruleset's view part of ``sight``, and what it read of the state."""
    state, viewer, full, visible = sight
    stats = seen_stats(sight)
    spy = _Reads(state)
    try:
        found = part(spy, visible, lambda c: viewer.controls(spy, c),  # type: ignore[arg-type]
                     full, stats)
    except (TypeError, AttributeError):  # it needs the state itself: worked out every time
        found = part(state, visible, lambda c: viewer.controls(state, c), full, stats)
        return found, frozenset({(EVERYTHING, WHOLE)})
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
        elif len(old) == len(new) and (all(type(x) is dict for x in old) or 2 * sum(
                a != b for a, b in zip(old, new, strict=True)) <= len(old)):
            # entry by entry (entries of a phase too, when few of them changed)
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
