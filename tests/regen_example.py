"""Regenerate the server lines (``←``) of the example session in ``docs/protocol.md``.

    python -m tests.regen_example

Starts a real Redis and a server (as the test fixtures do), replays the client lines of the
transcript (``→``, ``opens``, ``closes``) the way
``test_example_session_replays_against_a_real_server`` does, and writes what the server sent
in their place. Comments and client lines are kept as they are.

The session is played twice, on two encounters: a string that differs between the runs
belongs to the run (an id, a token) and is shortened with ``…``, as the transcript does.
A value the old transcript already shortened keeps its old short form (client lines refer
to it); a new one becomes its first four characters and ``…``. Session ids keep the old
line's value where there is one, and so do times, but a time of the run is written the same
on every line (as the first line that has it wrote it): an event has one ``ts`` whoever
receives it.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import re
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clients.client import Client
from docgen import docs
from server.app import Server
from tests.conftest import settings_for, ws_url
from tests.helpers import open_client
from tests.redis_procs import RedisProcess
from tests.test_protocol_docs import _LINE, _RUN_FIELDS, Bindings

Message = dict[str, Any]
QUIET = 0.3  # seconds without a new message after which a step is over
_PIECES = re.compile(r"([^A-Za-z0-9_…-]+)")  # what separates the parts of a token, a path


@dataclass
class Step:
    """A client line and the server lines after it, up to the next client line."""

    action: int  # index of the client line in the block
    server: list[int] = field(default_factory=list)  # indices of its ``←`` lines


@dataclass
class Transcript:
    lines: list[str]
    steps: list[Step]
    create_id: str

    @classmethod
    def parse(cls, block: str) -> Transcript:
        lines = block.splitlines()
        steps: list[Step] = []
        create_id = ""
        for i, line in enumerate(lines):
            if not line.strip() or line.startswith("#"):
                continue
            m = _LINE.match(line)
            assert m is not None, f"not a transcript line: {line!r}"
            if m["dir"] == "←":
                steps[-1].server.append(i)
                continue
            steps.append(Step(i))
            if m["dir"] == "→" and json.loads(m["json"])["type"] == "create_encounter":
                create_id = json.loads(m["json"])["id"]
        return cls(lines, steps, create_id)

    def match(self, i: int) -> re.Match[str]:
        m = _LINE.match(self.lines[i])
        assert m is not None
        return m

    def expected(self, i: int) -> Message:
        """A server line as the test reads it: the create id stands for a fresh one."""
        text = self.match(i)["json"].replace(self.create_id, self.create_id + "…")
        message: Message = json.loads(text)
        return message


def signature(message: Message, bindings: Bindings) -> tuple[Any, ...]:
    event, cid = message.get("event") or {}, message.get("id")
    return message.get("type"), event.get("kind"), bindings.values.get(str(cid), cid)


def bind(bindings: Bindings, expected: Any, actual: Any) -> None:
    """Bind each ``…`` value of an old line to the real one where the shapes still agree."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in expected.keys() & actual.keys() - _RUN_FIELDS.keys():
            bind(bindings, expected[key], actual[key])
    elif isinstance(expected, list) and isinstance(actual, list):
        for e, a in zip(expected, actual, strict=False):
            bind(bindings, e, a)
    elif isinstance(expected, str) and "…" in expected and isinstance(actual, str):
        bindings.values.setdefault(expected, actual)


@dataclass
class Run:
    """One replay: per step, per connection, what arrived and which old line each pairs with."""

    bindings: Bindings
    received: list[dict[str, list[Message]]] = field(default_factory=list)
    pairs: list[dict[str, list[tuple[int | None, int | None]]]] = field(default_factory=list)


async def settle(open_: dict[str, Client]) -> None:
    while True:
        counts = [len(c.wire) for c in open_.values()]
        await asyncio.sleep(QUIET)
        if counts == [len(c.wire) for c in open_.values()]:
            return


async def replay(t: Transcript, base: str) -> Run:
    Client.keep_wire = True  # the transcript shows websocket messages as they come
    run = Run(Bindings())
    run.bindings.values[t.create_id + "…"] = str(uuid.uuid4())
    open_: dict[str, Client] = {}
    read: dict[str, int] = {}
    try:
        for step in t.steps:
            m = t.match(step.action)
            if m["path"]:
                open_[m["who"]] = await open_client(base + run.bindings.fill(m["path"]))
                read[m["who"]] = 0
            elif m["closes"]:
                await open_.pop(m["who"]).close()
            else:
                text = run.bindings.fill(m["json"].replace(t.create_id, t.create_id + "…"))
                await open_[m["who"]].send_raw(json.dumps(json.loads(text)))
            await settle(open_)
            received: dict[str, list[Message]] = {}
            pairs: dict[str, list[tuple[int | None, int | None]]] = {}
            for who in sorted({t.match(i)["who"] for i in step.server} | open_.keys()):
                new = open_[who].wire[read[who]:] if who in open_ else []
                read[who] = read.get(who, 0) + len(new)
                old = [i for i in step.server if t.match(i)["who"] == who]
                received[who], pairs[who] = new, align(t, old, new, run.bindings)
            run.received.append(received)
            run.pairs.append(pairs)
    finally:
        await asyncio.gather(*(c.close() for c in open_.values()), return_exceptions=True)
    return run


def align(t: Transcript, old: list[int], new: list[Message],
          bindings: Bindings) -> list[tuple[int | None, int | None]]:
    """(old line, new message) pairs in order; ``None`` on one side is a removal or an
    addition. Lines of the same type (and event kind, and id) pair up."""
    olds = [t.expected(i) for i in old]
    matcher = difflib.SequenceMatcher(a=[signature(o, bindings) for o in olds],
                                      b=[signature(n, bindings) for n in new], autojunk=False)
    pairs: list[tuple[int | None, int | None]] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for k in range(max(i2 - i1, j2 - j1)):
            o = old[i1 + k] if i1 + k < i2 else None
            n = j1 + k if j1 + k < j2 else None
            if tag == "equal":
                bind(bindings, olds[i1 + k], new[j1 + k])
            pairs.append((o, n))
    return pairs


class Shortener:
    """Writes a received message as the transcript shows it."""

    def __init__(self, t: Transcript, run: Run) -> None:
        self.t = t
        # real value -> its short form, from the old transcript; the create id goes back
        # to the literal id the client line sends
        self.whole = {v: k for k, v in run.bindings.values.items()}
        self.whole[run.bindings.values[t.create_id + "…"]] = t.create_id
        self.atoms: dict[str, str] = {}  # a random part of a value -> its short form
        self.times: dict[int, int] = {}  # a time of the run -> as the transcript writes it
        for short, real in run.bindings.values.items():
            s, r = _PIECES.split(short), _PIECES.split(real)
            if len(s) == len(r):
                self.atoms.update((b, a) for a, b in zip(s, r, strict=True) if "…" in a)

    def atom(self, real: str) -> str:
        if real not in self.atoms:
            taken = set(self.atoms.values())
            n = 4
            while real[:n] + "…" in taken:
                n += 1
            self.atoms[real] = real[:n] + "…"
        return self.atoms[real]

    def shorten(self, a: Any, b: Any, old: Any, where: str) -> Any:
        """``a`` from the written run, ``b`` the same from the other, ``old`` the old line's."""
        if isinstance(a, dict):
            assert isinstance(b, dict) and a.keys() == b.keys(), f"{where}: keys differ by run"
            o = old if isinstance(old, dict) else {}
            out = {}
            for key in a:
                if key in _RUN_FIELDS and isinstance(a[key], int):
                    # one time of the run is written alike on every line (the events of a
                    # command share their ts on every connection): as its first line had it
                    out[key] = self.times.setdefault(a[key], o[key] if key in o else a[key])
                elif key in _RUN_FIELDS:
                    out[key] = o[key] if key in o else a[key]
                    if isinstance(a[key], str) and key not in o:
                        out[key] = "…" + a[key][-4:]
                else:
                    out[key] = self.shorten(a[key], b[key], o.get(key), f"{where}.{key}")
            return out
        if isinstance(a, list):
            assert isinstance(b, list) and len(a) == len(b), f"{where}: lengths differ by run"
            olds = old if isinstance(old, list) else []
            return [self.shorten(x, y, olds[i] if i < len(olds) else None, f"{where}[{i}]")
                    for i, (x, y) in enumerate(zip(a, b, strict=True))]
        if a == b:
            return a
        assert isinstance(a, str) and isinstance(b, str), f"{where}: {a!r} / {b!r} by run"
        if a in self.whole:
            return self.whole[a]
        pa, pb = _PIECES.split(a), _PIECES.split(b)
        if len(pa) != len(pb):
            return self.atom(a)
        short = "".join(x if x == y else self.atom(x) for x, y in zip(pa, pb, strict=True))
        self.whole[a] = short
        return short


def rewrite(t: Transcript, a: Run, b: Run) -> tuple[list[str], list[str]]:
    """The new block's lines, and a summary of the changes."""
    shortener = Shortener(t, a)
    replaced: dict[int, list[str]] = {}  # an old line -> the lines that take its place
    summary: list[str] = []
    for step, got, other, pairs in zip(t.steps, a.received, b.received, a.pairs, strict=True):
        assert got.keys() == other.keys(), f"{t.lines[step.action]}: runs differ"
        tail: list[str] = []  # lines of a connection that had none in this step
        for who, seq in pairs.items():
            assert len(got[who]) == len(other[who]), f"{t.lines[step.action]}: runs differ"
            anchor: int | None = None  # the old line new ones go after
            pending: list[str] = []  # new lines before the first old one
            for old, new in seq:
                if new is None:
                    assert old is not None
                    replaced[old], pending, anchor = pending, [], old
                    summary.append(f"  - {label(t.match(old)['who'], t.expected(old))}")
                    continue
                previous = t.expected(old) if old is not None else None
                message = shortener.shorten(got[who][new], other[who][new], previous,
                                            f"{who} ← {got[who][new]['type']}")
                line = f"{who} ← {json.dumps(message, ensure_ascii=False)}"
                if old is not None:
                    replaced[old] = [*pending, line]
                    pending, anchor = [], old
                    if line != t.lines[old]:
                        summary.append(f"  ~ {label(who, message)}: {changes(previous, message)}")
                else:
                    (replaced[anchor] if anchor is not None else pending).append(line)
                    summary.append(f"  + {label(who, message)}")
            tail += pending
        last = step.server[-1] if step.server else step.action
        replaced.setdefault(last, [t.lines[last]] if last == step.action else [])
        replaced[last] = replaced[last] + tail
    lines = [new for i, line in enumerate(t.lines) for new in replaced.get(i, [line])]
    return lines, summary


def label(who: str, message: Message) -> str:
    kind = (message.get("event") or {}).get("kind")
    seq = message.get("seq")
    return f"{who} ← {message['type']}" + (f" {kind}" if kind else "") + (
        f" (seq {seq})" if seq is not None else "")


def changes(old: Any, new: Any, where: str = "") -> str:
    """The paths at which two messages differ, leaving out times and session ids."""
    found: list[str] = []

    def walk(o: Any, n: Any, path: str) -> None:
        if isinstance(o, dict) and isinstance(n, dict):
            for key in [*o, *(k for k in n if k not in o)]:
                if key not in _RUN_FIELDS:
                    walk(o.get(key, "<absent>"), n.get(key, "<absent>"), f"{path}.{key}")
        elif isinstance(o, list) and isinstance(n, list) and len(o) == len(n):
            for i, (x, y) in enumerate(zip(o, n, strict=True)):
                walk(x, y, f"{path}[{i}]")
        elif o != n:
            found.append(path.lstrip("."))

    walk(old, new, where)
    return ", ".join(found[:6]) + (f" (+{len(found) - 6} more)" if len(found) > 6 else "")


def split_guide(guide: str) -> tuple[str, str, str]:
    """(before the block's text, the block's text, after it)."""
    head, marker, rest = guide.partition("<!-- example-session -->")
    assert marker, "the guide has no <!-- example-session --> marker"
    block = re.search(r"```text\n(.*?)```", rest, re.DOTALL)
    assert block is not None
    return head + marker + rest[:block.start(1)], block.group(1), rest[block.end(1):]


async def main() -> int:
    before, block, after = split_guide(docs.GUIDE.read_text(encoding="utf-8"))
    t = Transcript.parse(block)
    with tempfile.TemporaryDirectory(prefix="stablemaster-regen-") as workdir:
        redis = RedisProcess(Path(workdir)).start()
        try:
            server = Server(settings_for(redis.url))
            await server.start()
            try:
                base = ws_url(server).removesuffix("/ws")
                a, b = await replay(t, base), await replay(t, base)
            finally:
                await server.stop()
        finally:
            redis.stop()
    lines, summary = rewrite(t, a, b)
    text = "\n".join(lines) + "\n"
    if text == block:
        print("example session: up to date")
        return 0
    docs.GUIDE.write_text(before + text + after, encoding="utf-8")
    print(f"example session in {docs.GUIDE.relative_to(docs.ROOT)}: {len(summary)} server "
          "line(s) changed (~), added (+) or removed (-)")
    print("\n".join(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(asyncio.run(main()))
