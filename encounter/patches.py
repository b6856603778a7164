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
from itertools import compress
from operator import attrgetter, ne
from typing import Any

import msgspec

from encounter.actors import Actor
from encounter.registry import declaration
from encounter.ruleset import ViewPart
from encounter.state import EncounterState, Vitals
from encounter.views import (
    BY_ENTRY,
    ENGINE_PARTS,
    FULL_PARTS,
    RULESET_PARTS_AT,
    VIEWER_PARTS,
    Sight,
    ViewPartOf,
    combatant_view,
    seen_stats,
    visible_to,
    vitals_view,
)
from protocol.model import CombatantProfile

Op = dict[str, Any]
_json = msgspec.json.Encoder()

_NAMES: tuple[str, ...] = EncounterState.__struct_fields__
FIELDS = frozenset(_NAMES)
#: Read by a part that looked at something of the state other than its fields.
EVERYTHING = "*"
#: The patches a viewer kind keeps, for resumes (``Shown.since``).
KEPT_PATCHES = 64


Read = tuple[str, Any]  # a field of the state, and the key read in it (``WHOLE``: all of it)
#: Two states, the fields changed from one to the other, and the keys changed in those that
#: are mappings (``Changes``)
_Pair = tuple[EncounterState, EncounterState, frozenset[str], dict[str, Any]]
WHOLE: Any = object()
_NOTHING: frozenset[Any] = frozenset()


class _Reads:
    """The state as a view part sees it, noting what it reads: a field, or the keys it looks
    up in a field that is a mapping. A field or method looked up once is kept as an attribute
    of its own (its read is noted already, and a mapping notes its keys as they are looked
    up), so that the parts, which read the same fields again and again, find it directly."""

    def __init__(self, state: EncounterState) -> None:
        self._state = state
        self.reads: set[Read] = set()

    def __getattr__(self, name: str) -> Any:
        if name in FIELDS:
            value = getattr(self._state, name)
            if type(value) is dict:
                value = _Looked(value, name, self.reads)
            else:
                self.reads.add((name, WHOLE))
            self.__dict__[name] = value
            return value
        found = getattr(type(self._state), name, None)
        if callable(found):  # a method of the state: it reads through this one too
            method = self.__dict__[name] = found.__get__(self)
            return method
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
    fields among those some part of a view reads (``watched``; every field when one of them
    reads more than fields), and in a changed field that is a mapping, the keys whose values
    changed (worked out when asked)."""

    __slots__ = ("_last", "_names", "_pairs", "_values")

    def __init__(self, watched: frozenset[str] | None = None) -> None:
        names = tuple(f for f in _NAMES if watched is None or f in watched)
        self._names = names
        self._values = attrgetter(*names)
        self._pairs: deque[_Pair] = deque(maxlen=2)
        self._last: _Pair | None = None  # (the pair asked for last: asked again and again)

    def _find(self, old: EncounterState, new: EncounterState) -> _Pair:
        """The pair of ``old`` and ``new``: the two, the fields changed, and the keys changed
        in those of them that are mappings (by field, as they are asked for)."""
        last = self._last
        if last is not None and last[0] is old and last[1] is new:
            return last
        for pair in self._pairs:
            if pair[0] is old and pair[1] is new:
                self._last = pair
                return pair
        if old is new:
            fields: frozenset[str] = frozenset()
        else:  # (compared in C: for most fields, two equal values of equal types)
            fields = frozenset(compress(self._names, map(ne, self._values(old),
                                                         self._values(new))))
        pair = (old, new, fields, {})
        self._pairs.append(pair)
        self._last = pair
        return pair

    def keys(self, old: EncounterState, new: EncounterState, fields: tuple[str, ...],
             every: Iterable[Any]) -> Iterable[Any]:
        """The keys changed in these mapping ``fields`` (``every`` when one of them was
        replaced by something else than a mapping)."""
        found: set[Any] = set()
        for f in fields:
            changed = self._keys(old, new, f)
            if changed is WHOLE:
                return every
            found |= changed
        return found

    def _keys(self, old: EncounterState, new: EncounterState, f: str) -> Any:
        """The keys changed in field ``f`` (a set; ``WHOLE``: not a mapping)."""
        _old, _new, fields, changes = self._find(old, new)
        if f not in fields:
            return _NOTHING
        changed = changes.get(f)
        if changed is None:
            x, y = getattr(old, f), getattr(new, f)
            changed = changes[f] = _changed_keys(x, y) \
                if type(x) is dict and type(y) is dict else WHOLE
        return changed

    def forget(self) -> None:
        self._pairs.clear()
        self._last = None

    def fields(self, old: EncounterState, new: EncounterState) -> frozenset[str]:
        """The fields changed (the same object for every viewer of the pair)."""
        return self._find(old, new)[2]

    def touch(self, reads: frozenset[Read], old: EncounterState, new: EncounterState) -> bool:
        """Whether anything in ``reads`` changed from ``old`` to ``new``."""
        if old is new:
            return False
        fields = self._find(old, new)[2]
        for f, key in reads:
            if f not in fields:
                if f == EVERYTHING:
                    return True
                continue
            if key is WHOLE:
                return True
            changed = self._keys(old, new, f)
            if changed is WHOLE or key in changed:
                return True
        return False


def _worked(of: Callable[[EncounterState, str], Any], state: EncounterState,
            cid: str) -> tuple[Any, frozenset[Read]]:
    """``of(state, cid)`` and what it read of the state."""
    spy = _Reads(state)
    try:
        return of(spy, cid), frozenset(spy.reads)  # type: ignore[arg-type]
    except (TypeError, AttributeError):  # it needs the state itself
        return of(state, cid), frozenset({(EVERYTHING, WHOLE)})


def _changed_keys(old: dict[Any, Any], new: dict[Any, Any]) -> set[Any]:
    if old.keys() == new.keys():  # (the usual case, compared in C)
        keys = list(old)
        return set(compress(keys, map(ne, map(old.__getitem__, keys),
                                      map(new.__getitem__, keys))))
    gone = _MISSING
    return {k for k in old.keys() | new.keys()
            if (a := old.get(k, gone)) is not (b := new.get(k, gone)) and a != b}


class _At:
    """The state that values of a per-combatant part stand for, shared by those that stand
    for it together: moved on, in place, for all of them at once, while nothing they read
    changes (``Memo.carry``)."""

    __slots__ = ("held", "state")

    def __init__(self, state: EncounterState) -> None:
        self.state = state
        self.held = 0  # (how many values stand here)


class _Worked:
    """A per-combatant part's value, what it read, and where it stands (``_At``)."""

    __slots__ = ("at", "reads", "value")

    def __init__(self, value: Any, reads: frozenset[Read], at: _At) -> None:
        self.value, self.reads, self.at = value, reads, at


class Memo:
    """The per-combatant parts of views (``Declaration.combatant_views``), worked out once
    per state for every viewer, and again only when what they read changed."""

    def __init__(self) -> None:
        #: the fields some part of a view read (``None``: every field, one read more)
        self.watched: frozenset[str] | None = WATCHED
        self.changes = Changes(self.watched)
        self._entries: dict[tuple[str, str], _Worked] = {}
        #: by key, every field any combatant's value read (``EVERYTHING`` among them: any)
        self._fields: dict[str, set[str]] = {}
        #: the patches of the viewers brought to the current state, as JSON (by the id of the
        #: list, kept with it), and those made of a shared patch and a viewer's own operations
        #: (by the ids of both, ``joined``)
        self._encoded: dict[int, tuple[list[Op], bytes]] = {}
        self._joined: dict[tuple[int, ...], tuple[list[Op], list[Op]]] = {}
        #: how many times ``_fields`` grew (what a viewer's own parts read is worked out again)
        self.read_fields = 0
        #: what viewers share: the combatants they see, the values of parts of the state
        #: ``_state``, the patches between two values
        self._visible_of: EncounterState | None = None
        self._visible: dict[bool, set[str]] = {}
        self._state: EncounterState | None = None
        self._values: dict[Any, Any] = {}
        self._alive: list[set[str]] = []
        self._diffs: dict[tuple[str, int, int], tuple[Any, Any, list[Op]]] = {}
        #: by key, the last pair of states ``carry`` carried values from and to
        self._carried: dict[str, tuple[EncounterState, EncounterState]] = {}
        #: the sets of combatants seen (``visible``), one for each set of them
        self._seen: dict[frozenset[str], set[str]] = {}
        #: by key, where the values that stand for its latest state stand, and how many values
        #: it has in all
        self._at: dict[str, _At] = {}
        self._held: dict[str, int] = {}
        #: by key, by field, by the key read in it (``WHOLE``: all of it), the combatants whose
        #: values read it; and by key, the combatants whose values read something that changed
        #: between the last pair of states asked for (``touched``)
        self._readers: dict[str, dict[str, dict[Any, set[str]]]] = {}
        self._touched: dict[str, tuple[EncounterState, EncounterState, set[str]]] = {}
        #: by key, the pair of states ``advance`` brought its values between, and the
        #: combatants whose values it worked out again
        self._advanced: dict[str, tuple[EncounterState, EncounterState, set[str]]] = {}

    def unchanged(self, key: str, changed: frozenset[str]) -> bool:
        """Whether no value of ``key`` read any of the ``changed`` fields (then none needs
        working out again)."""
        fields = self._fields.get(key)
        return fields is not None and EVERYTHING not in fields and changed.isdisjoint(fields)

    def value(self, key: str, of: Callable[[EncounterState, str], Any],
              state: EncounterState, cid: str, kept: EncounterState | None = None) -> Any:
        """``of(state, cid)``, worked out again only when what it read changed; ``kept``: a
        state from which nothing it read changed (``touched`` says which)."""
        entry = self._entries.get((key, cid))
        if entry is not None:
            base = entry.at.state
            if base is state:
                return entry.value
            if base is kept or not self.changes.touch(entry.reads, base, state):
                self._move(entry, key, state)
                return entry.value
        if entry is None:
            value, reads = _worked(of, state, cid)
            at = self._standing(key, state)
            at.held += 1
            self._held[key] = self._held.get(key, 0) + 1
            self._entries[(key, cid)] = _Worked(value, reads, at)
            self._read(key, cid, _NOTHING, reads)
            self._note_fields(key, reads)
            return value
        value = self._again(key, of, state, cid, entry)
        self._move(entry, key, state)
        return value

    def _again(self, key: str, of: Callable[[EncounterState, str], Any],
               state: EncounterState, cid: str, entry: _Worked) -> Any:
        """``entry``'s value worked out again on ``state`` (what it read changed): the same
        object kept when it gives what it gave, so that no viewer has anything to compare."""
        value, reads = _worked(of, state, cid)
        if value == entry.value:
            value = entry.value
        if reads == entry.reads:
            reads = entry.reads
        else:
            self._read(key, cid, entry.reads, reads)
        entry.value, entry.reads = value, reads
        self._note_fields(key, reads)
        return value

    def _note_fields(self, key: str, reads: frozenset[Read]) -> None:
        fields = self._fields.setdefault(key, set())
        if not fields.issuperset(f for f, _ in reads):
            fields.update(f for f, _ in reads)
            self.read_fields += 1
            self.watch(fields)

    def advance(self, key: str, of: Callable[[EncounterState, str], Any],
                old: EncounterState, new: EncounterState,
                reads_of: Mapping[str, Callable[[Any], Any]] | None = None
                ) -> set[str] | None:
        """Bring every value of ``key`` from ``old`` to ``new`` at once, when they all stand
        for ``old`` (or were all brought from it to ``new`` so already): those that read
        something that changed worked out again (``touched``), the others standing for
        ``new`` with them. ``reads_of``: what the part reads of an entry of some mapping
        fields (``Declaration.combatant_view_reads``): a value whose reads changed only in
        entries that give the same there stands as it is. Returns the combatants whose values
        may have changed (a viewer who held the values at ``old`` has nothing else to
        compare); ``None`` when the values stand elsewhere (then ``value`` goes one by
        one)."""
        at = self._at.get(key)
        if at is None or at.held != self._held.get(key):
            return None
        done = self._advanced.get(key)
        if done is not None and done[0] is old and done[1] is new and at.state is new:
            return done[2]
        if at.state is not old:
            return None
        touched = self.touched(key, old, new)
        for cid in touched:
            entry = self._entries.get((key, cid))
            if entry is not None and not (reads_of and self._alike(entry, reads_of, old, new)):
                self._again(key, of, new, cid, entry)
        at.state = new  # (every value of ``key`` with it)
        self._carried[key] = (old, new)
        self._advanced[key] = (old, new, touched)
        return touched

    def _alike(self, entry: _Worked, reads_of: Mapping[str, Callable[[Any], Any]],
               old: EncounterState, new: EncounterState) -> bool:
        """Whether what ``entry`` read changed only in entries of the fields of ``reads_of``
        that give the same there (then its value stands)."""
        changes = self.changes
        fields = changes.fields(old, new)
        for f, k in entry.reads:
            if f not in fields:
                if f == EVERYTHING:
                    return False
                continue
            if k is WHOLE:
                return False
            keys = changes._keys(old, new, f)
            if keys is WHOLE:
                return False
            if k not in keys:
                continue
            of = reads_of.get(f)
            if of is None:
                return False
            a, b = getattr(old, f).get(k, _MISSING), getattr(new, f).get(k, _MISSING)
            if a is _MISSING or b is _MISSING or of(a) != of(b):
                return False
        return True

    def current(self, key: str, cid: str) -> Any:
        """The value of ``key`` for ``cid`` where it stands (after ``advance``)."""
        return self._entries[(key, cid)].value

    def _read(self, key: str, cid: str, was: frozenset[Read], now: frozenset[Read]) -> None:
        """``cid``'s value of ``key`` read ``now`` where it read ``was``."""
        readers = self._readers.setdefault(key, {})
        for f, k in was - now:
            readers[f][k].discard(cid)
        for f, k in now - was:
            readers.setdefault(f, {}).setdefault(k, set()).add(cid)

    def touched(self, key: str, old: EncounterState, new: EncounterState) -> set[str]:
        """The combatants whose values of ``key`` read something that changed from ``old``
        to ``new`` (as ``Changes.touch`` of each would say; looked up by what changed, not
        value by value): the others' values worked out on ``old`` stand for ``new``."""
        last = self._touched.get(key)
        if last is not None and last[0] is old and last[1] is new:
            return last[2]
        found: set[str] = set()
        readers = self._readers.get(key, {})
        changes = self.changes
        for f in changes.fields(old, new):
            by = readers.get(f)
            if not by:
                continue
            keys = changes._keys(old, new, f)
            if keys is WHOLE:
                for cids in by.values():
                    found |= cids
                continue
            whole = by.get(WHOLE)
            if whole:
                found |= whole
            for k in keys:
                some = by.get(k)
                if some:
                    found |= some
        if old is not new:
            for cids in readers.get(EVERYTHING, {}).values():
                found |= cids
        self._touched[key] = (old, new, found)
        return found

    def encoded(self, ops: list[Op]) -> bytes:
        """``ops`` as JSON, encoded once for the viewers who share them."""
        found = self._encoded.get(id(ops))
        if found is not None and found[0] is ops:
            return found[1]
        data = _json.encode(ops)
        self._encoded[id(ops)] = (ops, data)
        return data

    def joined(self, ops: list[Op], mine: list[Op]) -> list[Op]:
        """``ops`` and then ``mine``, one list for the viewers whose operations are the same
        objects (a shared patch, and the same changes of entries or values they share,
        ``diff``): their patch is encoded once."""
        key = (id(ops), *map(id, mine))
        found = self._joined.get(key)
        if found is not None:  # (what the ids are of is kept with it: no other has them)
            return found[1]
        both = ops + mine
        self._joined[key] = (ops, both)
        return both

    def watch(self, fields: Iterable[str]) -> None:
        """A part of a view read ``fields`` (``EVERYTHING``: more than fields): from now on,
        what changed is looked for in them too."""
        watched = self.watched
        fields = frozenset(fields)
        if watched is None or watched.issuperset(fields):
            return
        self.watched = None if EVERYTHING in fields else watched | fields
        self.changes = Changes(self.watched)
        self._touched = {}

    def fields_of(self, key: str) -> set[str] | None:
        """Every field a value of ``key`` read (``None``: none was worked out yet)."""
        return self._fields.get(key)

    def visible(self, state: EncounterState, viewer: Actor) -> set[str]:
        """The combatants ``viewer`` sees, one object for every viewer who sees the same,
        whenever it was shown (never changed: it stands for them all, and what they share is
        worked out once by its id, ``alike``)."""
        if self._visible_of is not state:
            self._visible_of, self._visible = state, {}
        found = self._visible.get(viewer.sees_all)
        if found is None:
            found = visible_to(state, viewer)
            seen = frozenset(found)
            known = self._seen.get(seen)
            if known is not None:
                found = known
            else:
                if len(self._seen) >= SEEN_AT_MOST:
                    self._seen.clear()  # (those of the views held keep their ids meanwhile)
                self._seen[seen] = found
            self._visible[viewer.sees_all] = found
        return found

    def part(self, state: EncounterState, key: str, part: ViewPartOf, sight: Sight) -> Any:
        """The value of one of ``Common``'s parts, the same object for every viewer who sees
        the same combatants (and alike, ``alike``)."""
        return self.shared(state, (key, id(sight.visible), alike(state, sight.full)),
                           lambda: part(sight), sight.visible)

    def shared(self, state: EncounterState, key: Any, work: Callable[[], Any],
               seen: set[str] | None = None) -> Any:
        """A value of a view that every viewer of ``key`` (a part, and what tells viewers
        apart for it) shares, worked out once per state. ``seen``: the set of combatants
        ``key`` names by its id, kept alive with the values, so that the id names it alone."""
        if self._state is not state:
            self._new_state(state)
        if seen is not None and not (self._alive and self._alive[-1] is seen):
            self._alive.append(seen)
        found = self._values.get(key, _MISSING)
        if found is _MISSING:
            found = self._values[key] = work()
        return found

    def _new_state(self, state: EncounterState | None) -> None:
        self._state, self._values, self._diffs, self._alive = state, {}, {}, []

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
        last = self._carried.get(key)
        if last is not None and last[0] is old and last[1] is new:
            return  # (carried for another viewer already)
        self._carried[key] = (old, new)
        at = self._at.get(key)
        if at is not None and at.state is old:
            at.state = new  # (every value that stood for ``old`` with it)
            if at.held == self._held[key]:
                return
        for k, entry in self._entries.items():  # (those that stood elsewhere)
            if k[0] == key and entry.at.state is old:
                self._move(entry, key, new)

    def _standing(self, key: str, state: EncounterState) -> _At:
        """Where ``key``'s values that stand for ``state`` stand (its latest state)."""
        at = self._at.get(key)
        if at is None or at.state is not state:
            at = self._at[key] = _At(state)
        return at

    def _move(self, entry: _Worked, key: str, state: EncounterState) -> None:
        """``entry`` (of ``key``) stands for ``state`` now."""
        at = self._standing(key, state)
        if entry.at is not at:
            entry.at.held -= 1
            at.held += 1
            entry.at = at

    def settle(self) -> None:
        """Every viewer has been brought up to date: what was kept to work out the changes
        between states goes (and with it the states left behind, as soon as possible)."""
        self.changes.forget()
        self._carried, self._encoded, self._joined, self._touched = {}, {}, {}, {}
        self._advanced = {}
        self._visible_of, self._visible = None, {}
        self._new_state(None)  # (the values shared at the state: none is looked up again)

    def holds(self, state: EncounterState) -> bool:
        return any(entry.at.state is state for entry in self._entries.values())

    def rebase(self, state: EncounterState, kept: EncounterState) -> None:
        """``state`` is about to change in place: what was worked out on it stands for
        ``kept``, its copy (and no change worked out with it stands)."""
        for entry in self._entries.values():
            if entry.at.state is state:
                entry.at.state = kept  # (with every value that stood there)
        self.changes = Changes(self.watched)
        self._visible_of, self._visible = None, {}
        self._new_state(None)
        self._carried, self._touched, self._advanced = {}, {}, {}


class Common:
    """The engine's parts of a view that every viewer who sees the same combatants shares
    (all but ``OWN_ENGINE_PARTS`` and the combatants' entries), at one state: one object for
    all of them, whether or not they see everything, never changed (a change makes another).
    The values are a mapping shared along the way (``base``, most of them, the same for the
    whole encounter) and those changed since (``delta``), so that a step allocates no more
    than it changes."""

    __slots__ = ("base", "delta", "step")

    def __init__(self, base: dict[str, Any], delta: dict[str, Any] | None = None) -> None:
        self.base, self.delta = base, delta if delta is not None else {}
        #: the way from this one to a later state: that state, for which viewers (``alike``),
        #: the parts there, the patch, and the keys it changes (worked out once, for every
        #: viewer who holds this one)
        self.step: tuple[EncounterState, bool | None, Common, list[Op], frozenset[str]] | None \
            = None

    def __getitem__(self, key: str) -> Any:
        delta = self.delta
        return delta[key] if key in delta else self.base[key]

    def __contains__(self, key: str) -> bool:
        return key in self.delta or key in self.base

    def then(self, changed: dict[str, Any]) -> Common:
        """The parts with ``changed`` in place of their values."""
        delta = {**self.delta, **changed}
        if len(delta) > DELTA_AT_MOST:
            return Common({**self.base, **delta})
        return Common(self.base, delta)


#: How many changed parts a ``Common`` keeps beside its shared mapping before it makes another.
DELTA_AT_MOST = 8
#: How many sets of combatants seen a memo keeps (``Memo.visible``) before it starts again.
SEEN_AT_MOST = 64


def alike(state: EncounterState, full: bool) -> bool | None:
    """What tells apart, for the engine's shared parts (``Common``), the viewers of ``state``
    who see the same combatants: nothing, but with anonymous hidden turns whether they see
    everything (``full``: there the table sees the screen's turn, whoever acts behind it,
    R99)."""
    return full if state.options.anonymous_hidden_turns else None


@dataclass(slots=True, eq=False)
class Shown:
    """What one kind of viewer was last shown, and the patches that brought it there: the
    engine's parts it shares with every viewer who sees the same combatants (``common``) and
    its own (``own``: the combatants' entries, ``OWN_ENGINE_PARTS``, the ruleset's parts, which
    may stand in for an engine part of the same name)."""

    viewer: Actor  # (one of them: what tells it from the others is the same)
    common: Common
    own: dict[str, Any]
    #: the view's keys, in the snapshot's order
    order: list[str]
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
    #: (flat: start, end, the patch as JSON, start... so that keeping one allocates nothing
    #: the collector looks at)
    patches: deque[int | bytes] = field(
        default_factory=lambda: deque(maxlen=3 * KEPT_PATCHES))
    since: int = 0
    #: whether the viewer sees everything; the ruleset's per-combatant parts; the keys of its
    #: own parts that stand in for an engine part of ``common`` (``_stand_in``)
    full: bool = False
    combatant_views: tuple[Any, ...] = ()
    stand_in: frozenset[str] = frozenset()
    #: the per-combatant parts and what changed between states, shared with the other viewers
    #: of the room (a memo of its own when none is given)
    memo: Memo = field(default_factory=Memo)
    #: the combatants whose stat blocks it sees (then the per-combatant parts are its), and
    #: where each combatant's entry is in ``ids``
    stats: frozenset[str] = frozenset()
    where: dict[str, int] = field(default_factory=dict)
    #: the ruleset's parts by the fields they read (``_parts_reading``), and every field its
    #: own parts read (``_own_reads``); ``None``: to work out again
    readers: dict[str, list[int]] | None = None
    reads: frozenset[str] | None = None
    reads_at: int = -1  # (``Memo.read_fields`` when ``reads`` was worked out)

    @property
    def view(self) -> dict[str, Any]:
        """The state this viewer holds (its snapshot's ``state``)."""
        own, common = self.own, self.common
        return {k: _copied(own[k]) if k in own else common[k] for k in self.order}

    def after(self, seq: int) -> bytes | None:
        """The patch from the view at ``seq`` to this one, as JSON (``NO_CHANGE``: the
        same); ``None`` when the patches kept do not reach back to it."""
        if seq == self.at:
            return NO_CHANGE
        if seq < self.since or seq > self.at:
            return None
        found: list[bytes] = []
        kept: Iterator[Any] = iter(self.patches)
        for start, end, patch in zip(kept, kept, kept, strict=True):
            if end <= seq:
                continue
            if start < seq:  # (a position inside one delivery: not one a viewer is given)
                return None
            found.append(patch)
        if len(found) == 1:
            return found[0]
        return b"[" + b",".join(p[1:-1] for p in found) + b"]"

    def latest(self) -> bytes:
        """The last patch recorded, as JSON."""
        return self.patches[-1]  # type: ignore[return-value]

    def record(self, at: int, ops: list[Op]) -> None:
        """The view is now the one at ``at``, ``ops`` from the one before (kept as JSON: the
        message that carries it is made of it, and the collector has nothing to look at)."""
        if ops:
            kept = self.patches
            if len(kept) == kept.maxlen:
                self.since = kept[1]  # type: ignore[assignment]
            kept.append(self.at)
            kept.append(at)
            kept.append(self.memo.encoded(ops))
        self.at = at


#: ``Shown.after`` of the position it is at: no operation.
NO_CHANGE = b"[]"


def show(state: EncounterState, viewer: Actor, at: int = 0, memo: Memo | None = None) -> Shown:
    """The view of ``state`` for ``viewer`` (at position ``at``), and what follows it needs;
    ``memo``: the room's, shared by its viewers."""
    memo = memo if memo is not None else Memo()
    full = viewer.sees_all
    visible = memo.visible(state, viewer)
    sight = Sight(state, viewer, full, visible)
    common = memo.shared(state, ("common", id(visible), alike(state, full)), lambda: Common(
        {key: memo.part(state, key, part, sight) for key, part in _common()}), visible)
    own: dict[str, Any] = {}
    ids = [cid for cid in state.combatants if cid in visible]
    entries = {}
    for cid in ids:
        c = state.combatants[cid]
        entries[cid] = (c, state.vitals.get(cid), _entry(memo, state, c, viewer, full))
    own["combatants"] = [entries[cid][2] for cid in ids]
    for key, _reads, part, only in ENGINE_PARTS:
        if key in OWN_ENGINE_PARTS and (only is None or only == full):
            own[key] = part(sight)
    parts = []
    rules = declaration(state.ruleset)
    for view_part in rules.views:
        found, read = _spied(view_part, sight)
        memo.watch(f for f, _ in read)
        parts.append((found[0] if found is not None else None, read))
        if found is not None:
            own[found[0]] = found[1]
    for key, of in rules.combatant_views:
        own[key] = _per_combatant(memo, key, of, sight)
    order = [key for key, _r, _p, only in ENGINE_PARTS[:RULESET_PARTS_AT]
             if only is None or only == full]
    order += [key for key in own if key not in order and key not in ENGINE_KEYS]
    order += [key for key, _r, _p, only in ENGINE_PARTS[RULESET_PARTS_AT:]
              if only is None or only == full]
    return Shown(viewer, common, own, order, state, visible, ids, entries, parts, at=at, since=at,
                 full=full, combatant_views=rules.combatant_views, stand_in=_stand_in(own),
                 memo=memo, stats=frozenset(seen_stats(sight)),
                 where={cid: i for i, cid in enumerate(ids)})


def _stand_in(own: dict[str, Any]) -> frozenset[str]:
    """The keys of a viewer's own parts that stand in for an engine part of ``Common``."""
    common = _common_keys()
    return frozenset(key for key in own if key in common)


@lru_cache(maxsize=1)
def _common_keys() -> frozenset[str]:
    return frozenset(key for key, _part in _common())


def _copied(value: Any) -> Any:
    """An own part as ``follow`` may change it in place: the mapping or list copied."""
    kind = type(value)
    return kind(value) if kind is dict or kind is list else value


ENGINE_KEYS = frozenset(key for key, _r, _p, _o in ENGINE_PARTS)


#: The engine's parts each viewer holds on its own: those that differ between viewers who
#: see the same combatants, and those shown to one kind of viewer only.
OWN_ENGINE_PARTS = frozenset(key for key, _r, _p, only in ENGINE_PARTS
                             if key in VIEWER_PARTS or key in FULL_PARTS or only is not None)


@lru_cache(maxsize=1)
def _common() -> tuple[tuple[str, ViewPartOf], ...]:
    """The engine's parts in ``Common``."""
    return tuple((key, part) for key, _reads, part, _only in ENGINE_PARTS
                 if key not in OWN_ENGINE_PARTS and key != "combatants")


@lru_cache(maxsize=512)
def _common_reading(changed: frozenset[str]
                    ) -> tuple[tuple[tuple[str, ViewPartOf], ...], frozenset[str]]:
    """The parts of ``_common()`` that read a field of ``changed``, and their keys (the same
    few sets come again and again: end of turn, move, attack)."""
    reading = tuple((key, part) for key, reads, part, _only in ENGINE_PARTS
                    if reads and not changed.isdisjoint(reads) and key not in OWN_ENGINE_PARTS
                    and key != "combatants")
    return reading, frozenset(key for key, _part in reading)


@lru_cache(maxsize=512)
def _viewer_reading(changed: frozenset[str],
                    full: bool) -> tuple[tuple[str, ViewPartOf], ...]:
    """The ``OWN_ENGINE_PARTS`` of a viewer who sees everything (``full``) or not that read
    a field of ``changed``."""
    return tuple((key, part) for key, reads, part, only in ENGINE_PARTS
                 if key in OWN_ENGINE_PARTS and not changed.isdisjoint(reads)
                 and (only is None or only == full))


#: What a viewer's own parts read beside the ruleset's: the entries and ``OWN_ENGINE_PARTS``.
OWN_READS = frozenset({"combatants", "vitals"}).union(
    *(reads for key, reads, _p, _o in ENGINE_PARTS if key in OWN_ENGINE_PARTS))
#: The fields every room's memo watches from the start: those the engine's parts read, the
#: entries', and the ruleset (a new one makes every view again).
WATCHED = OWN_READS.union(*(reads for _k, reads, _p, _o in ENGINE_PARTS), {"ruleset"})


def _step(memo: Memo, common: Common, state: EncounterState, sight: Sight,
          changed: frozenset[str], base: EncounterState
          ) -> tuple[Common, list[Op], frozenset[str]]:
    """``common`` (the parts at ``base``) brought to ``state``: the parts there, the patch,
    the keys it changes; worked out once for all the viewers who hold ``common``, and the parts
    there once for all who see the same combatants alike (those who hold another ``Common`` of
    the same, shown at another time, hold this one from now on)."""
    found = common.step
    kind = alike(state, sight.full)
    if found is not None and found[0] is state and found[1] is kind:
        return found[2], found[3], found[4]
    reading, keys = _common_reading(changed)
    ops: list[Op] = []
    if not reading:
        after = common
    else:
        after = memo.shared(state, ("common", id(sight.visible), kind), lambda: common.then(
            {key: _again(memo, common, key, part, sight, base) for key, part in reading}),
            sight.visible)
        for key, _part in reading:
            was, now = common[key], after[key]
            if was is not now:
                diff(f"/{key}", was, now, ops)
    common.step = (state, kind, after, ops, keys)
    return after, ops, keys


def _again(memo: Memo, common: Common, key: str, part: ViewPartOf, sight: Sight,
           base: EncounterState) -> Any:
    """The part ``key`` at ``sight.state``, from its value at ``base`` (in ``common``)."""
    by = BY_ENTRY.get(key)
    if by is None:
        return part(sight)
    name, of = by
    keys = memo.changes._keys(base, sight.state, name)
    if keys is WHOLE:
        return part(sight)
    was = common[key]
    items = getattr(sight.state, name)
    value = dict(was)
    visible = sight.visible
    for cid in keys:
        if cid not in visible:
            continue
        if cid in items:
            if cid not in was:  # (a new entry: where it goes is the whole part's to say)
                return part(sight)
            value[cid] = of(items[cid])
        else:
            value.pop(cid, None)
    return value


def _own_reads(shown: Shown) -> frozenset[str]:
    """Every field of the state that this viewer's own parts read (all of them when one of
    them reads more, or when a per-combatant part was never worked out)."""
    memo = shown.memo
    if shown.reads is not None and shown.reads_at == memo.read_fields:
        return shown.reads
    fields = set(OWN_READS)
    for _had, read in shown.parts:
        fields.update(f for f, _ in read)
    if shown.stats:
        for key, _of in declaration(shown.base.ruleset).combatant_views:
            fields.update(memo.fields_of(key) or (EVERYTHING,))
    shown.reads = FIELDS if EVERYTHING in fields else frozenset(fields)  # (any change)
    shown.reads_at = memo.read_fields
    return shown.reads


def _entry(memo: Memo, state: EncounterState, c: CombatantProfile, viewer: Actor,
           full: bool, before: dict[str, Any] | None = None) -> dict[str, Any]:
    """``combatant_view``, the same object for every viewer who sees that combatant alike;
    ``before``: its entry when only its vitals changed since (then the rest is kept)."""
    alike = ("combatant", c.id, full, full or c.id in viewer.combatants,
             viewer.controls(state, c.id))
    if before is None:
        return memo.shared(state, alike, lambda: combatant_view(state, c, viewer, full))
    # (what else an entry holds follows from the profile, the same, and the viewer: alike)
    return memo.shared(state, alike, lambda: {
        **before, "vitals": vitals_view(c, state.vitals[c.id], viewer, full)})


def _per_combatant(memo: Memo, key: str, of: Callable[[EncounterState, str], Any],
                   sight: Sight) -> dict[str, Any]:
    state = sight.state
    stats = seen_stats(sight)
    return {cid: value for cid in state.combatants
            if cid in stats and (value := memo.value(key, of, state, cid)) is not None}





def follow(shown: Shown, state: EncounterState, viewer: Actor, at: int,
           changed: frozenset[str] | None = None) -> list[Op]:
    """Bring ``shown`` to ``state`` (position ``at``) and return the patch that does it
    (``[]``: this viewer's view did not change). ``changed``: the fields changed from
    ``shown.base`` to ``state`` among those watched (``Memo.changes``), when the caller has
    them."""
    memo = shown.memo
    if changed is None:
        changed = memo.changes.fields(shown.base, state)
    if not changed:
        shown.base = state
        shown.record(at, [])
        return []
    full = shown.full
    visible, ids = shown.visible, shown.ids
    if "combatants" in changed or "ruleset" in changed:
        visible = memo.visible(state, viewer)
        ids = [cid for cid in state.combatants if cid in visible]
        if visible != shown.visible or ids != shown.ids or "ruleset" in changed:
            fresh = show(state, viewer, at, memo)
            ops: list[Op] = []
            diff("", shown.view, fresh.view, ops)
            fresh.patches, fresh.since, fresh.at = shown.patches, shown.since, shown.at
            _take(shown, fresh)
            shown.record(at, ops)
            return ops
    step = shown.common.step
    if step is not None and step[0] is state and \
            step[1] is alike(state, full):
        common, ops, keys = step[2], step[3], step[4]  # (worked out for another viewer)
    else:
        common, ops, keys = _step(memo, shown.common, state,
                                  Sight(state, viewer, full, visible), changed, shown.base)
    shown.common, shown.visible = common, visible
    if not shown.stand_in.isdisjoint(keys):  # an engine part the ruleset's stands in for
        # changed (looked up key by key: the few keys of the step, not the view's)
        ops = [op for op in ops if op["path"].split("/", 2)[1] not in shown.own]
    reads = shown.reads
    if reads is None or shown.reads_at != memo.read_fields:
        reads = _own_reads(shown)
    if changed.isdisjoint(reads):
        # its own parts did not change: the patch is the one it shares
        if shown.stats:
            for key, _of in shown.combatant_views:
                memo.carry(key, shown.base, state)
        shown.base = state
        shown.record(at, ops)
        return ops
    # Its own parts change in place (``view`` copies them): nothing new for the collector to
    # look at but what changed.
    sight = Sight(state, viewer, full, visible)
    own = shown.own
    mine: list[Op] = []
    for key, part in _viewer_reading(changed, full):
        value = part(sight)
        memo.diff(f"/{key}", own[key], value, mine)
        own[key] = value
    if "combatants" in changed or "vitals" in changed:
        listed = own["combatants"]
        where = shown.where
        for cid in memo.changes.keys(shown.base, state, ("combatants", "vitals"), ids):
            i = where.get(cid)
            if i is None:
                continue
            c, v = state.combatants[cid], state.vitals.get(cid)
            before = shown.entries[cid]
            if before[0] is c:
                if before[1] is v:
                    continue
                entry = _entry(memo, state, c, viewer, full,
                               before[2] if before[1] is not None and v is not None else None)
            else:
                entry = _entry(memo, state, c, viewer, full)
            memo.diff(f"/combatants/{i}", before[2], entry, mine)
            shown.entries[cid] = (c, v, entry)
            listed[i] = entry
    rules = declaration(state.ruleset)
    for i in _parts_reading(shown, changed):
        view_part = rules.views[i]
        had, read = shown.parts[i]
        if not memo.changes.touch(read, shown.base, state):
            continue
        found, read = _spied(view_part, sight)
        memo.watch(f for f, _ in read)
        shown.readers = shown.reads = None
        if found is None:
            if had is not None:  # back to the engine's own part of that name
                diff(f"/{had}", own.pop(had), common[had], mine)
                shown.stand_in = _stand_in(own)
            shown.parts[i] = (None, read)
            continue
        key = found[0]
        before = own.get(key, _MISSING)
        if before is _MISSING and key in common:
            before = common[key]
        diff(f"/{_escape(key)}", before, found[1], mine)
        if key not in own:
            own[key] = found[1]
            shown.stand_in = _stand_in(own)
        else:
            own[key] = found[1]
        if key not in shown.order:
            shown.order.append(key)
        shown.parts[i] = (key, read)
    if shown.stats:
        for key, of in rules.combatant_views:
            if memo.unchanged(key, changed):
                memo.carry(key, shown.base, state)
                continue
            held = own[key]
            again = memo.advance(key, of, shown.base, state,
                                 rules.combatant_view_reads.get(key))
            if again is not None:  # (the others' values are those it holds)
                stats = shown.stats
                for cid in again:
                    if cid in stats:
                        _hold(memo, held, key, cid, memo.current(key, cid), mine)
                continue
            touched = memo.touched(key, shown.base, state)
            for cid in shown.stats:
                _hold(memo, held, key, cid, memo.value(key, of, state, cid,
                                                       None if cid in touched else shown.base),
                      mine)
    shown.base = state
    if mine:
        ops = memo.joined(ops, mine)
    shown.record(at, ops)
    return ops


def _hold(memo: Memo, held: dict[str, Any], key: str, cid: str, value: Any,
          mine: list[Op]) -> None:
    """``cid``'s value of the per-combatant part ``key`` is ``value`` now (``None``: none):
    ``held`` changed to it, and the operations that say so appended to ``mine``."""
    was = held.get(cid, _MISSING)
    if value is was:
        return
    if value is None:
        if was is not _MISSING:
            del held[cid]
            mine.append({"op": "remove", "path": f"/{key}/{_escape(cid)}"})
    else:
        memo.diff(f"/{key}/{_escape(cid)}", was, value, mine)
        held[cid] = value


def _parts_reading(shown: Shown, changed: frozenset[str]) -> list[int]:
    """The ruleset's parts (their places in ``Declaration.views``) that read a field of
    ``changed`` when they were last worked out, in order."""
    readers = shown.readers
    if readers is None:
        readers = shown.readers = {}
        for i, (_had, read) in enumerate(shown.parts):
            for f in {f for f, _ in read}:
                readers.setdefault(f, []).append(i)
    found = set(readers.get(EVERYTHING, ()))
    for f in changed:
        found.update(readers.get(f, ()))
    return sorted(found)


def _take(shown: Shown, fresh: Shown) -> None:
    shown.common, shown.own, shown.order = fresh.common, fresh.own, fresh.order
    shown.base, shown.visible = fresh.base, fresh.visible
    shown.ids, shown.entries, shown.parts = fresh.ids, fresh.entries, fresh.parts
    shown.stats, shown.where, shown.viewer = fresh.stats, fresh.where, fresh.viewer
    shown.full, shown.combatant_views = fresh.full, fresh.combatant_views
    shown.stand_in = fresh.stand_in
    shown.readers = shown.reads = None


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
    """Append to ``ops`` the operations that turn ``old`` (at ``path``) into ``new``.

    ``new`` is a value just worked out, which nothing has changed in place since (nor will):
    what it holds that equals what ``old`` holds at the same place is replaced by ``old``'s
    (the same value, long-lived already), so that the copies made to compare go at once
    rather than wait for the cycle collector."""
    if old is new:
        return
    if old is _MISSING:
        ops.append({"op": "add", "path": path, "value": new})
        return
    kind = type(old)
    if kind is type(new) and (kind is dict or kind is list):
        if old != new:
            _differ(path, old, new, ops)
        return
    if old != new or kind is not type(new):
        ops.append({"op": "replace", "path": path, "value": new})


def _differ(path: str, old: Any, new: Any, ops: list[Op]) -> None:
    """``diff`` of two dicts or two lists known to differ."""
    if type(old) is dict:
        if not new.keys() >= old.keys():
            for key in old:
                if key not in new:
                    ops.append({"op": "remove", "path": f"{path}/{_escape(key)}"})
        for key, value in new.items():
            was = old.get(key, _MISSING)
            if was is value:
                continue
            if was is _MISSING:
                ops.append({"op": "add", "path": f"{path}/{_escape(key)}", "value": value})
                continue
            kind = type(was)
            if kind is not type(value):
                ops.append({"op": "replace", "path": f"{path}/{_escape(key)}", "value": value})
            elif was == value:
                if kind is dict or kind is list:
                    new[key] = was  # (a value for a key there already: no new key)
            elif kind is dict or kind is list:
                _differ(f"{path}/{_escape(key)}", was, value, ops)
            else:
                ops.append({"op": "replace", "path": f"{path}/{_escape(key)}", "value": value})
        return
    if old and new and type(old[0]) is dict and type(new[0]) is dict \
            and _keyed(old) and _keyed(new):
        _diff_keyed(path, old, new, ops)
        return
    if len(old) == len(new):
        changed = [i for i, (a, b) in enumerate(zip(old, new, strict=True))
                   if a is not b and (a != b or type(a) is not type(b))]
        # entry by entry (entries of a phase too, when few of them changed)
        if 2 * len(changed) <= len(old) or all(type(x) is dict for x in old):
            for i in changed:
                a, b = old[i], new[i]
                if type(a) in _CONTAINERS and type(b) is type(a):
                    _differ(f"{path}/{i}", a, b, ops)
                else:
                    ops.append({"op": "replace", "path": f"{path}/{i}", "value": b})
            if type(new[0]) in _CONTAINERS:
                _share(old, new, changed)
            return
    ops.append({"op": "replace", "path": path, "value": new})


_CONTAINERS = (dict, list)


def _share(old: list[Any], new: list[Any], changed: list[int]) -> None:
    """The entries of ``new`` that equal ``old``'s at the same place (all but ``changed``)
    replaced by ``old``'s."""
    skip = set(changed)
    for i, was in enumerate(old):
        if i not in skip:
            new[i] = was


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
            was = kept[j]
            if was is not item and was == item:
                new[i] = was
            else:
                diff(f"{path}/{i}", was, item, ops)
            j += 1
        else:
            ops.append({"op": "add", "path": f"{path}/{i}", "value": item})
