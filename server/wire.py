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

from collections.abc import Sequence

import msgspec

from protocol.messages import LegalAction

_encode = msgspec.json.Encoder()

#: The most bytes of messages one ``batch`` holds; a message this large or larger leaves alone
#: (a snapshot of a big map, a long replay is cut into several batches).
BATCH_BYTES = 256 * 1024

_BATCH_HEAD = b'{"type":"batch","messages":['
_BATCH_TAIL = b"]}"


class LegalFrame:
    """The legal actions of one viewer at one ``seq`` (and, for connections with the ``cursor``
    feature, at the ``cursor`` that names it)."""

    __slots__ = ("_cframe", "_chead", "_deltas", "_entries", "_frame", "_head", "_listed",
                 "actions", "cursor", "key", "seq")

    def __init__(self, encounter: str, seq: int, turn: str, actions: list[LegalAction],
                 entries: list[bytes] | None = None, cursor: str | None = None) -> None:
        self.seq = seq
        self.cursor = cursor
        self.actions = actions
        # each entry encoded once: the full list is made of them, and deltas compare them
        self._entries = entries = [_encode.encode(a) for a in actions] if entries is None \
            else entries
        listed = b"[" + b",".join(entries) + b"]"
        self._listed = listed
        turn_b = turn.encode()
        # worth sending when the actions change, or the turn while there are any
        self.key = listed if listed == b"[]" else turn_b + listed
        self._head = b'"encounter":%b,"seq":%d,"turn_id":"%b"' % (
            _encode.encode(encounter), seq, turn_b)
        self._chead = None if cursor is None else b'"encounter":%b,"cursor":"%b","turn_id":"%b"' \
            % (_encode.encode(encounter), cursor.encode(), turn_b)
        self._frame: bytes | None = None
        self._cframe: bytes | None = None
        self._deltas: dict[tuple[int, bool], bytes] = {}

    @property
    def frame(self) -> bytes:
        """The full ``legal_actions`` message (around the encoded list, without encoding the
        list twice)."""
        if self._frame is None:
            self._frame = b'{"type":"legal_actions",%b,"actions":%b}' % (self._head,
                                                                         self._listed)
        return self._frame

    @property
    def cursor_frame(self) -> bytes:
        """The full ``legal_actions`` message with ``cursor`` in place of ``seq``."""
        if self._cframe is None:
            assert self._chead is not None, "a LegalFrame made without its cursor"
            self._cframe = b'{"type":"legal_actions",%b,"actions":%b}' % (self._chead,
                                                                          self._listed)
        return self._cframe

    @classmethod
    def failed(cls, encounter: str, seq: int, turn: str,
               cursor: str | None = None) -> LegalFrame:
        return cls(encounter, seq, turn, [], [], cursor)

    @property
    def entries(self) -> list[bytes]:
        """Each entry's JSON, in order (entries that are equal have equal bytes)."""
        return self._entries

    def delta(self, previous: list[bytes], base: int, base_cursor: str | None = None) -> bytes:
        """The ``legal_actions_delta`` from ``previous`` (a list of entries this viewer's
        connection holds, at ``seq`` ``base``; with the ``cursor`` feature at ``base_cursor``),
        or the full message when that is no longer."""
        key = (id(previous), base_cursor is not None)
        cached = self._deltas.get(key)
        if cached is not None:
            return cached
        entries = self._entries
        # the same list again (a new turn's id, the same actions): one run keeps it all
        items = delta_items(previous, entries) if previous != entries else \
            [b"[0,%d]" % len(entries)] if entries else []
        if base_cursor is None:
            head, full = self._head, self.frame
            frame = b'{"type":"legal_actions_delta",%b,"base":%d,"actions":[%b]}' % (
                head, base, b",".join(items))
        else:
            assert self._chead is not None, "a LegalFrame made without its cursor"
            head, full = self._chead, self.cursor_frame
            frame = b'{"type":"legal_actions_delta",%b,"base_cursor":"%b","actions":[%b]}' % (
                head, base_cursor.encode(), b",".join(items))
        if len(frame) >= len(self._listed) + len(head) + 36:  # the full message's size
            frame = full
        # (the previous lists a delivery sees are alive until it ends, so ids stay theirs)
        self._deltas[key] = frame
        return frame


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


def _close_run(out: list[bytes], run: list[bytes]) -> None:
    if len(run) == 1:
        out.append(run[0])
    elif run:
        out.append(_BATCH_HEAD + b",".join(run) + _BATCH_TAIL)
