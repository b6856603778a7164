"""What a connection's negotiated features change on the wire: legal actions as deltas against
the connection's previous list (``legal_delta``), and one websocket message for everything
ready for a connection at once (``batch``).

A :class:`LegalFrame` is one viewer's legal actions as of a delivery, shared by every
connection of the viewers that see the same: its full ``legal_actions`` message, the key that
says whether it changed, and (for connections with ``legal_delta``) its entries encoded one
by one and the ``legal_actions_delta`` from a previous list, worked out once per previous
list (the connections of one viewer that got the same lists before share it).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence

import msgspec

from protocol.messages import LegalAction

_encode = msgspec.json.Encoder()

#: The most bytes of messages one ``batch`` holds; a message this large or larger leaves alone
#: (a snapshot of a big map, a long replay is cut into several batches).
BATCH_BYTES = 256 * 1024

_BATCH_HEAD = b'{"type":"batch","messages":['
_BATCH_TAIL = b"]}"


#: The JSON of entries encoded lately, by the entry's id (with the entry, so that the id is not
#: another's while it is here): most entries are made once and offered again and again
#: (``encounter.legal`` keeps them), and each is then encoded once.
_ENTRY_BYTES: dict[int, tuple[LegalAction, bytes]] = {}
_ENTRY_BYTES_KEPT = 8192


def _entry_bytes(action: LegalAction) -> bytes:
    found = _ENTRY_BYTES.get(id(action))
    if found is not None and found[0] is action:
        return found[1]
    encoded = _encode.encode(action)
    if len(_ENTRY_BYTES) >= _ENTRY_BYTES_KEPT:
        _ENTRY_BYTES.clear()
    _ENTRY_BYTES[id(action)] = (action, encoded)
    return encoded


class LegalFrame:
    """The legal actions of one viewer at one ``seq`` (and, for connections with the ``cursor``
    feature, at the ``cursor`` that names it)."""

    __slots__ = ("_chead", "_deltas", "_encounter", "_entries", "_frames", "_groups", "_head",
                 "_listed", "_owners", "_recalls", "_turn", "actions", "cursor", "key", "seq",
                 "turn")

    def __init__(self, encounter: str, seq: int, turn: str, actions: list[LegalAction],
                 entries: list[bytes] | None = None, cursor: str | None = None) -> None:
        self.seq = seq
        self.cursor = cursor
        self.actions = actions
        # each entry encoded once: the full list is made of them, and deltas compare them
        self._entries = entries = [_entry_bytes(a) for a in actions] if entries is None \
            else entries
        listed = b"[" + b",".join(entries) + b"]"
        #: the list alone: with ``legal_changed`` it is worth sending when this changes
        self._listed = listed
        self.turn = turn
        turn_b = turn.encode()
        # worth sending when the actions change, or the turn while there are any
        self.key = listed if listed == b"[]" else turn_b + listed
        self._encounter = b'"encounter":%b,' % _encode.encode(encounter)
        self._head = b'"seq":%d,"turn_id":"%b"' % (seq, turn_b)
        self._chead = None if cursor is None else b'"cursor":"%b","turn_id":"%b"' \
            % (cursor.encode(), turn_b)
        self._turn = b'"turn_id":"%b"' % turn_b
        self._frames: dict[tuple[bool, bool], bytes] = {}
        self._deltas: dict[tuple[int, bool, bool, int], bytes] = {}
        self._groups: Recall | None = None
        self._owners: dict[bytes, str] = {}
        self._recalls: dict[tuple[int, int], Recall] = {}

    @property
    def groups(self) -> Recall:
        """The entries of each combatant (``combatant`` not null), in order."""
        if self._groups is None:
            groups: Recall = {}
            owners: dict[bytes, str] = {}
            for action, entry in zip(self.actions, self._entries, strict=True):
                if action.combatant is not None:
                    groups.setdefault(action.combatant, []).append(entry)
                    owners[entry] = action.combatant
            self._groups, self._owners = groups, owners
        return self._groups

    @property
    def owners(self) -> dict[bytes, str]:
        """The combatant of each entry that has one."""
        if self._groups is None:
            self.groups  # noqa: B018 - works out both
        return self._owners

    def recall_after(self, previous: Recall, recall: Recall) -> Recall:
        """``legal_recall``: what a connection recalls once this list replaced by a delta
        the one whose ``groups`` are ``previous``, having recalled ``recall``: for each
        combatant whose entries changed, its entries of the list replaced (``recall_after``
        of the delta's rule, ``docs/protocol.md``). The connections that held the same lists
        share the result."""
        key = (id(previous), id(recall))
        found = self._recalls.get(key)
        if found is None:
            groups = self.groups
            changed = {c: entries for c, entries in previous.items()
                       if groups.get(c) != entries}
            found = self._recalls[key] = _recall_with(recall, changed) if changed else recall
        return found

    @property
    def listed(self) -> bytes:
        """The list's JSON: equal lists have equal bytes."""
        return self._listed

    def full(self, cursor: bool = False, lean: bool = False) -> bytes:
        """The full ``legal_actions`` message (around the encoded list, without encoding the
        list twice); ``cursor``: with ``cursor`` in place of ``seq``; ``lean``: without
        ``encounter`` (and ``cursor``), which the batch it goes in says (``batch_head``)."""
        found = self._frames.get((cursor, lean))
        if found is None:
            head = self._chead if cursor else self._head
            assert head is not None, "a LegalFrame made without its cursor"
            if lean and cursor:
                head = self._turn  # (the batch says the cursor)
            found = self._frames[(cursor, lean)] = b'{"type":"legal_actions",%b%b,"actions":%b}' \
                % (b"" if lean else self._encounter, head, self._listed)
        return found

    @property
    def frame(self) -> bytes:
        """The full ``legal_actions`` message."""
        return self.full()

    @property
    def cursor_frame(self) -> bytes:
        """The full ``legal_actions`` message with ``cursor`` in place of ``seq``."""
        return self.full(cursor=True)

    @classmethod
    def failed(cls, encounter: str, seq: int, turn: str,
               cursor: str | None = None) -> LegalFrame:
        return cls(encounter, seq, turn, [], [], cursor)

    @property
    def entries(self) -> list[bytes]:
        """Each entry's JSON, in order (entries that are equal have equal bytes)."""
        return self._entries

    def delta(self, previous: list[bytes], base: int, base_cursor: str | None = None,
              lean: bool = False, recall: Recall | None = None) -> bytes:
        """The ``legal_actions_delta`` from ``previous`` (a list of entries this viewer's
        connection holds, at ``seq`` ``base``; with the ``cursor`` feature at ``base_cursor``),
        or the full message when that is no longer; ``lean``: without ``encounter``;
        ``recall`` (``legal_recall``): the entries the connection recalls, by combatant, which
        the delta may name by ``[start, count, combatant]``."""
        key = (id(previous), base_cursor is not None, lean, id(recall))
        cached = self._deltas.get(key)
        if cached is not None:
            return cached
        entries = self._entries
        # the same list again (a new turn's id, the same actions): one run keeps it all
        items = delta_items(previous, entries) if previous != entries else \
            [b"[0,%d]" % len(entries)] if entries else []
        if recall:
            items = recalled(items, recall, self.owners)
        encounter = b"" if lean else self._encounter
        if base_cursor is None:
            head, full = self._head, self.full(False, lean)
            # (with legal_recall a delta always applies to the list last sent: no base)
            based = b"" if recall is not None else b',"base":%d' % base
        else:
            assert self._chead is not None, "a LegalFrame made without its cursor"
            head, full = self._turn if lean else self._chead, self.full(True, lean)
            based = b"" if recall is not None else b',"base_cursor":"%b"' % base_cursor.encode()
        frame = b'{"type":"legal_actions_delta",%b%b%b,"actions":[%b]}' % (
            encounter, head, based, b",".join(items))
        if len(frame) >= len(full):
            frame = full
        # (the previous lists a delivery sees are alive until it ends, so ids stay theirs)
        self._deltas[key] = frame
        return frame


#: What a connection with ``legal_recall`` recalls: by combatant, its entries of the last list
#: replaced (by a delta) by one in which they were not the same.
Recall = dict[str, list[bytes]]


#: Where each entry is in a list of one combatant's entries that a recall holds (by the list's
#: id, with the list itself, so that the id is not another's while it is here). The lists a
#: recall holds are the ``groups`` of the frames they came from, shared by every connection
#: that recalls them, so each is indexed once, not once per connection and delivery.
_INDEXES: OrderedDict[int, tuple[list[bytes], dict[bytes, int]]] = OrderedDict()
_INDEXES_KEPT = 4096


def _index_of(entries: list[bytes]) -> dict[bytes, int]:
    """Where each of ``entries`` is (the first place, when it is there more than once)."""
    found = _INDEXES.get(id(entries))
    if found is not None and found[0] is entries:
        return found[1]
    where: dict[bytes, int] = {}
    for i, entry in enumerate(entries):
        where.setdefault(entry, i)
    if len(_INDEXES) >= _INDEXES_KEPT:  # the oldest goes (first in, first out)
        _INDEXES.popitem(last=False)
    _INDEXES[id(entries)] = (entries, where)
    return where


def _recall_with(recall: Recall, changed: Recall) -> Recall:
    """``recall`` with the entries of ``changed`` in place of those of its combatants."""
    return {**recall, **changed}


def _owner(entry: bytes, recall: Recall) -> str | None:
    """The combatant of the recall ``entry`` may be one of (an entry names its combatant, so
    it can be among that combatant's entries only), without an owner map: the first combatant
    whose entries hold it."""
    for combatant, entries in recall.items():
        if entry in _index_of(entries):
            return combatant
    return None


def recalled(items: list[bytes], recall: Recall,
             owners: dict[bytes, str] | None = None) -> list[bytes]:
    """The items of a delta with each run of entries found in ``recall`` named by reference:
    ``[start, count, combatant]``, ``count`` entries of what is recalled of ``combatant`` from
    ``start`` on. ``owners``: the combatant of each entry of the new list (an entry names its
    combatant, so it is looked for among that combatant's recalled entries alone)."""
    if not recall:
        return items
    out: list[bytes] = []
    run: tuple[str, int, int] | None = None  # combatant, start, count
    indexes: dict[str, dict[bytes, int]] = {}  # (each combatant's, looked up once)

    def close() -> None:
        if run is not None:
            out.append(b"[%d,%d,%b]" % (run[1], run[2], _encode.encode(run[0])))

    for item in items:
        found: tuple[str, int] | None = None
        if item[:1] == b"{":
            combatant = owners.get(item) if owners is not None else _owner(item, recall)
            if combatant is not None:
                where = indexes.get(combatant)
                if where is None:
                    entries = recall.get(combatant)
                    where = indexes[combatant] = _index_of(entries) if entries else {}
                i = where.get(item)
                if i is not None:
                    found = (combatant, i)
        if found is None:
            close()
            run = None
            out.append(item)
        elif run is not None and run[0] == found[0] and run[1] + run[2] == found[1]:
            run = (run[0], run[1], run[2] + 1)
        else:
            close()
            run = (found[0], found[1], 1)
    close()
    return out


def delta_items(previous: Sequence[bytes], current: Sequence[bytes]) -> list[bytes]:
    """The items of a delta: ``[start,count]`` for runs of entries of ``previous`` kept, the
    entry itself for the others. An entry that occurs several times in ``previous`` is taken
    from its occurrences in order, so each index is named at most once. (The entries both
    lists begin and end with are compared in place first: most changes are in the middle.)"""
    n, m = len(previous), len(current)
    head = 0
    while head < n and head < m and previous[head] == current[head]:
        head += 1
    tail = 0
    while tail < n - head and tail < m - head and previous[n - 1 - tail] == current[m - 1 - tail]:
        tail += 1
    items: list[bytes] = [b"[0,%d]" % head] if head else []
    where: dict[bytes, list[int]] = {}
    for i in range(n - tail - 1, head - 1, -1):
        where.setdefault(previous[i], []).append(i)
    start = count = 0
    for k in range(head, m - tail):
        entry = current[k]
        free = where.get(entry)
        if free:
            i = free.pop()
            if count and i == start + count:
                count += 1
                continue
            if count:
                items.append(b"[%d,%d]" % (start, count))
            start, count = i, 1
            continue
        if count:
            items.append(b"[%d,%d]" % (start, count))
            count = 0
        items.append(entry)
    if tail:
        if count and start + count == n - tail:
            count += tail
        else:
            if count:
                items.append(b"[%d,%d]" % (start, count))
            start, count = n - tail, tail
    if count:
        items.append(b"[%d,%d]" % (start, count))
    if head and len(items) > 1 and items[1][:1] == b"[":
        # the prefix run and a run right after it that continues it
        first = items[1][1:-1].split(b",")
        if int(first[0]) == head:
            items[:2] = [b"[0,%d]" % (head + int(first[1]))]
    return items


def batched(payloads: Sequence[bytes]) -> list[bytes]:
    """``payloads`` as ``batch`` messages of at most :data:`BATCH_BYTES` each; a lone message,
    or one too large to share, goes unwrapped."""
    if len(payloads) < 2:
        return list(payloads)
    out: list[bytes] = []
    run: list[bytes] = []
    size = 0
    for payload in payloads:
        if len(payload) >= BATCH_BYTES:
            _close_run(out, run)
            run, size = [], 0
            out.append(payload)
            continue
        if run and size + len(payload) > BATCH_BYTES:
            _close_run(out, run)
            run, size = [], 0
        run.append(payload)
        size += len(payload) + 1
    _close_run(out, run)
    return out


#: What a message of a connection's queue leaves its batch to say (``batch_head``): its
#: ``ts`` (an event's, or ``None``) and its ``cursor`` (or ``None``). (Its ``encounter`` it
#: leaves out too: the connection's, which its ``welcome`` names.)
Head = tuple[int | None, str | None]
#: The head of a message that leaves only ``encounter`` out.
LEAN: Head = (None, None)


def batched_head(payloads: Sequence[bytes], heads: Sequence[Head | None]) -> list[bytes]:
    """``payloads`` as ``batch`` messages (``batch_head``) that say once what their messages
    leave out: a message whose head is not ``None`` is said without the ``ts`` and the
    ``cursor`` its head holds, which the batch says. A batch holds messages of one ``ts`` and
    one ``cursor``; a message alone goes unwrapped, as in :func:`batched`, unless it leaves
    its batch something to say."""
    out: list[bytes] = []
    run: list[bytes] = []
    size = 0
    ts: int | None = None
    cursor: str | None = None
    lean = False

    def close() -> None:
        if len(run) == 1 and not lean:
            out.append(run[0])
        elif run:
            head = b'{"type":"batch",' + (b'"ts":%d,' % ts if ts is not None else b"") + \
                (b'"cursor":"%b",' % cursor.encode() if cursor is not None else b"") + \
                b'"messages":['
            out.append(head + b",".join(run) + _BATCH_TAIL)

    for payload, said in zip(payloads, heads, strict=True):
        if run and (size + len(payload) > BATCH_BYTES or (said is not None and (
                (said[0] is not None and ts is not None and said[0] != ts) or
                (said[1] is not None and cursor is not None and said[1] != cursor)))):
            close()
            run, size, ts, cursor, lean = [], 0, None, None, False
        run.append(payload)
        size += len(payload) + 1
        if said is not None:
            if said[0] is not None:
                ts, lean = said[0], True
            if said[1] is not None:
                cursor, lean = said[1], True
    close()
    return out


def _close_run(out: list[bytes], run: list[bytes]) -> None:
    if len(run) == 1:
        out.append(run[0])
    elif run:
        out.append(_BATCH_HEAD + b",".join(run) + _BATCH_TAIL)
