"""The load generator: E encounters of 7 websocket clients each, playing turns.

Each encounter has 4 player characters (one per player connection) and 2 NPCs (acted for by
the GM connection), no hidden combatants and a fixed ``dice_seed``; 2 spectators watch. The
client that controls the current combatant sends ``act end_turn``. An *action* is one such
command; its latency runs from sending it until the last of the room's 7 clients has received
the resulting ``turn_started`` event (matched by ``seq``).

- ``human``: open loop; each encounter acts once every ``period`` seconds, encounters
  staggered uniformly over the period. A tick that finds the previous action still in flight
  is *late*: the action is sent as soon as the previous one completes.
- ``saturation``: closed loop; each encounter sends its next action as soon as all 7 clients
  have the previous ``turn_started``.

Workloads (``workload``): ``end_turn`` is the above. The others play on a battle map
(``side`` squares a side, walls and difficult terrain across all of it, as ``bench.decide``
builds it) with 16 combatants, 8 ponies (2 for each player) and 8 Diamond Dogs (the GM's):
on each turn the current combatant plays the workload's plan, ``mix`` moving 2 squares along
its column (and back on its next turn), shooting at the enemy across the map (the server rolls
the attack and the damage dice) and ending its turn; ``attack`` (attack, end of turn),
``move`` (move, end of turn) and ``map_end_turn`` (end of turn) each play one kind, so that
the server's CPU per command of each kind can be read from a window of its own. An action is
one command; its latency runs until the last of the room's 7 clients has the command's last
event (the ``seq`` of its ``ack``).

The clients ask in ``hello`` for the features the reference clients ask for
(``clients.client.REFERENCE_FEATURES``, the JavaScript package's ``DEFAULT_FEATURES``) unless
given ``features``: what integrators run is what is measured. Without ``framing`` they ask for
none; ``view`` adds (``True``) or takes out (``False``) the ``view`` feature (the patches are
received and counted, not applied), and ``lean_events`` then goes, so that both sides of such a
comparison get the same events. With ``cursor`` there are no seqs on the wire: a client
counts the ``turn_started`` events it receives (every client of a table sees every turn begin,
as nothing is hidden), and on the map an action is over when every client has the event whose
cursor its ``ack`` names. The bytes each client receives are counted by
viewer (``bytes_per_action_by_viewer``: the GM, the 4 players, the 2 spectators).

The generator honours the rate limit a server announces in ``welcome.limits`` (a token bucket
per connection, as the server keeps one): an action that would exceed it waits, and is counted
as *throttled*.
"""

from __future__ import annotations

import asyncio
import gc
import math
import os
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import orjson

from bench import procs
from bench.decide import battle_map
from bench.decide import combatants as map_combatants
from bench.wsclient import HandshakeError, WsClient, open_ws
from clients.client import REFERENCE_FEATURES

PCS = [("twilight", "Twilight Sparkle", 3), ("dash", "Rainbow Dash", 5),
       ("applejack", "Applejack", 2), ("fluttershy", "Fluttershy", 1)]
NPCS = [("dog", "Diamond Dog", 1), ("timberwolf", "Timberwolf", 4)]
COMBATANTS = ([{"name": n, "id": i, "kind": "pc", "initiative": m} for i, n, m in PCS]
              + [{"name": n, "id": i, "kind": "npc", "initiative": m} for i, n, m in NPCS])
DICE_SEED = 1337
ROOM = 7  # 1 GM, 4 players, 2 spectators
CREATES_PER_ADMIN = 50  # within the default burst of 60 messages per connection
#: the plan of each turn, by workload (``end_turn`` is today's table without a map)
PLANS = {"end_turn": ("end_turn",), "map_end_turn": ("end_turn",),
         "attack": ("attack", "end_turn"), "move": ("move", "end_turn"),
         "mix": ("move", "attack", "end_turn")}
MAP_DISTANCE = 11  # squares between a pony and the dog it shoots at (as in bench.decide)
ACTION_TIMEOUT = 10.0
REQUEST_TIMEOUT = 30.0

# Time stamps come from CLOCK_MONOTONIC (nanosecond resolution); uvloop's ``loop.time()`` has
# millisecond resolution and is cached per loop iteration, so it only schedules.
_now = time.monotonic


class Conn(WsClient):
    def __init__(self, gen: Generator, table: Table | None, host: str, port: int,
                 path: str, slot: int = 0) -> None:
        super().__init__(host, port, path)
        self.gen = gen
        self.table = table
        self.slot = slot  # this connection's index in its table (for the map workloads)
        self.pending: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self.welcome: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.rate: float | None = None
        self.burst = 0.0
        self.tokens = 0.0
        self.refill_at = 0.0
        self._ids = 0
        #: with the ``cursor`` feature: the turns seen begin, standing for the seq; the cursors
        #: of the last events received
        self.turns = 0
        self.cursors: deque[str] = deque(maxlen=64)

    # -- receiving: parse every frame, look at type / seq / kind only ------------------------

    def on_message(self, payload: bytes) -> None:
        if self.gen.by_seq:
            self._on_map_message(payload)
            return
        if payload.startswith(b'{"type":"batch"'):
            if b'"turn_started"' not in payload \
                    and b'"type":"ack"' not in payload and b'"type":"error"' not in payload \
                    and b'"type":"welcome"' not in payload:
                return
            for m in orjson.loads(payload)["messages"]:
                self._on_parsed(m)
            return

        # Fast paths for the frames that make up the bulk of the traffic, when the server
        # puts ``type`` first (Stablemaster and the floors do); anything else is parsed whole.
        if payload.startswith(b'{"type":"event"'):
            if b'"turn_started"' not in payload:
                return
        elif payload.startswith((b'{"type":"legal_actions"', b'{"type":"legal_actions_delta"')):
            return
        self._on_parsed(orjson.loads(payload))

    def _on_map_message(self, payload: bytes) -> None:
        """The map workloads: every event's seq counts (an action is over when every client
        has the seq of its ack), ``turn_started`` says whose turn it is."""
        m = orjson.loads(payload)
        # (with batch_head a message at the position its batch says has no cursor of its own)
        said = m.get("cursor") if m.get("type") == "batch" else None
        for x in (m["messages"] if m.get("type") == "batch" else (m,)):
            t = x.get("type")
            if said is not None and "cursor" not in x and t in ("event", "ack"):
                x["cursor"] = said
            if t == "event":
                table = self.table
                if table is not None:
                    ev = x["event"]
                    if ev.get("kind") == "turn_started":
                        self.turns += 1
                        table.on_turn_map(self.turns if self.gen.cursor else x["seq"],
                                          ev["combatant"])
                    if self.gen.cursor:
                        self.cursors.append(x["cursor"])
                        table.on_cursor(x["cursor"])
                    else:
                        table.on_seq(self.slot, x["seq"])
            elif t in ("legal_actions", "legal_actions_delta"):
                continue
            else:
                self._on_parsed(x)

    def _on_parsed(self, m: dict[str, Any]) -> None:
        t = m.get("type")
        if t == "event":
            ev = m.get("event")
            if ev is not None and ev.get("kind") == "turn_started" and self.table is not None:
                self.turns += 1
                self.table.on_turn(self.turns if self.gen.cursor else m["seq"], ev["combatant"])
            return
        if t == "ack" or t == "error":
            cid = m.get("id")
            fut = self.pending.pop(cid, None) if cid is not None else None
            if fut is not None:
                if not fut.done():
                    fut.set_result(m)
            elif t == "error":
                self.gen.on_error(self, m)
            elif self.table is not None and self.gen.by_seq and self.gen.cursor:
                self.table.on_ack_cursor(m.get("cursor"))
            elif self.table is not None and self.gen.by_seq and m.get("seq") is not None:
                self.table.on_ack(m["seq"])
            return
        if t == "welcome" or (t == "error" and not self.welcome.done()):
            limits = m.get("limits")
            if limits:
                # 5 % under the announced rate, so that clock skew never trips the server.
                self.rate = float(limits["commands_per_second"]) * 0.95
                self.burst = float(limits["burst"])
                self.tokens = self.burst
                self.refill_at = _now()
            if not self.welcome.done():
                self.welcome.set_result(m)
        elif t == "goodbye":
            self.gen.count("goodbye")

    def on_lost(self, exc: Exception | None) -> None:
        self.gen.on_lost(self)

    # -- sending -----------------------------------------------------------------------------

    def take(self, now: float) -> float:
        """Spend one token of the rate limit; returns 0, or how long to wait for one."""
        if self.rate is None:
            return 0.0
        self.tokens = min(self.burst, self.tokens + (now - self.refill_at) * self.rate)
        self.refill_at = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.rate

    def request(self, message: dict[str, Any]) -> asyncio.Future[dict[str, Any]]:
        """Send a setup command; the future gets its ``ack`` or ``error``."""
        self._ids += 1
        if "id" not in message:
            message["id"] = f"s{self._ids}"
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.pending[message["id"]] = fut
        self.take(_now())
        self.send(orjson.dumps(message))
        return fut

    async def hello(self, token: str | None) -> dict[str, Any]:
        message: dict[str, Any] = {"type": "hello", "versions": [1], "client": "bench"}
        if self.gen.features:
            message["features"] = list(self.gen.features)
        if token is not None:
            message["token"] = token
        self.send(orjson.dumps(message))
        reply = await asyncio.wait_for(asyncio.shield(self.welcome), REQUEST_TIMEOUT)
        if reply.get("type") != "welcome":
            raise RuntimeError(f"hello failed: {reply}")
        self.take(_now())
        return reply


async def ok(fut: asyncio.Future[dict[str, Any]]) -> dict[str, Any]:
    reply = await asyncio.wait_for(fut, REQUEST_TIMEOUT)
    if reply.get("type") != "ack":
        raise RuntimeError(f"command failed: {reply}")
    return reply


class Table:
    __slots__ = ("ack_cursor", "ack_seq", "conn_seq", "conns", "controller", "dead", "encounter",
                 "gen",
                 "gm_token", "idx", "inflight", "moved", "n", "next_tick", "reached", "seen",
                 "sent_at", "spectator_token", "started", "step", "tokens", "turn_comb",
                 "turn_seq", "waiting_rate", "wanted")

    def __init__(self, gen: Generator, idx: int) -> None:
        self.gen = gen
        self.idx = idx
        self.conns: list[Conn] = []
        self.controller: dict[str, Conn] = {}
        self.encounter = ""
        self.gm_token = ""
        self.tokens: dict[str, str] = {}
        self.spectator_token = ""
        self.turn_seq = -1
        self.turn_comb = ""
        self.seen = 0
        self.inflight = False
        self.waiting_rate = False
        self.wanted = False
        self.sent_at = 0.0
        self.n = 0
        self.next_tick = 0.0
        self.dead = False
        self.started: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        # the map workloads: the step of the turn's plan, who moved forward, and the seq the
        # action in flight ends at (its ack's) and how many clients have it
        self.step = 0
        self.moved: set[str] = set()
        self.ack_seq: int | None = None
        self.ack_cursor: str | None = None
        self.conn_seq = [0] * ROOM
        self.reached = 0

    def on_turn_map(self, seq: int, combatant: str) -> None:
        if seq > self.turn_seq:
            self.turn_seq, self.turn_comb = seq, combatant
            if not self.started.done():
                self.started.set_result(None)

    def on_seq(self, slot: int, seq: int) -> None:
        if seq <= self.conn_seq[slot]:
            return
        before = self.conn_seq[slot]
        self.conn_seq[slot] = seq
        target = self.ack_seq
        if target is not None and before < target <= seq:
            self.reached += 1
            if self.reached == ROOM:
                self.ack_seq = None
                self.gen.action_complete(self)

    def on_cursor(self, cursor: str) -> None:
        if self.ack_cursor is not None and cursor == self.ack_cursor:
            self.reached += 1
            if self.reached == ROOM:
                self.ack_cursor = None
                self.gen.action_complete(self)

    def on_ack_cursor(self, cursor: str | None) -> None:
        if not self.inflight or cursor is None:
            return
        self.ack_cursor = cursor
        self.reached = sum(1 for c in self.conns if cursor in c.cursors)
        if self.reached == ROOM:
            self.ack_cursor = None
            self.gen.action_complete(self)

    def on_ack(self, seq: int) -> None:
        if not self.inflight:
            return
        self.ack_seq = seq
        self.reached = sum(1 for s in self.conn_seq if s >= seq)
        if self.reached == ROOM:
            self.ack_seq = None
            self.gen.action_complete(self)

    def on_turn(self, seq: int, combatant: str) -> None:
        if seq > self.turn_seq:
            self.turn_seq, self.turn_comb, self.seen = seq, combatant, 1
        elif seq == self.turn_seq:
            self.seen += 1
        else:
            return
        if self.seen == ROOM:
            self.gen.turn_complete(self)


@dataclass
class Sample:
    t: float
    server_cpu: float | None
    redis_cpu: float | None
    gen_cpu: float
    frames: int
    bytes: int
    #: bytes received by the clients of each slot of a table (0: the GM, 1-4: the players,
    #: 5-6: the spectators)
    by_slot: list[int]
    machine_cpu: float
    steal: float


@dataclass
class RunResult:
    target: str
    mode: str
    encounters: int
    connections: int = 0
    tables_ok: int = 0
    duration: float = 0.0
    actions: int = 0
    actions_per_s: float = 0.0
    latency_ms: dict[str, float] = field(default_factory=dict)
    late_ticks: int = 0
    throttled: int = 0
    frames_per_action: float | None = None
    #: bytes the room's clients received per action (websocket frame headers included)
    bytes_per_action: float | None = None
    #: the same by viewer: the GM, the 4 players together, the 2 spectators together
    bytes_per_action_by_viewer: dict[str, float] = field(default_factory=dict)
    #: the features the clients asked for in ``hello``
    features: list[str] = field(default_factory=list)
    #: the server's CPU (user + system) per action, ms
    server_cpu_ms_per_action: float | None = None
    workload: str = "end_turn"
    map_side: int | None = None
    #: the clients asked for one websocket message per command and legal action deltas
    framing: bool = True
    #: Redis commands per action, by command (INFO commandstats over the window)
    redis_commands_per_action: dict[str, float] = field(default_factory=dict)
    server_cpu_pct: float | None = None
    redis_cpu_pct: float | None = None
    generator_cpu_pct: float | None = None
    #: CPU used on this machine by processes other than the server, its Redis and the
    #: generator during the window (other work disturbs the figures), and hypervisor steal
    other_cpu_pct: float | None = None
    steal_pct: float | None = None
    generator_loop_lag_ms: dict[str, float] = field(default_factory=dict)
    rss_mib: dict[str, float | None] = field(default_factory=dict)
    mem_per_conn_kib: float | None = None
    #: the same with the RSS at the end of the window (rings, caches and heap growth included)
    mem_per_conn_end_kib: float | None = None
    setup_s: float = 0.0
    errors: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: server garbage-collector pauses in the window (with --gc-log)
    server_gc: dict[str, Any] = field(default_factory=dict)
    #: per second of the window: [actions sent, p50 ms, max ms]
    timeline: list[list[float]] = field(default_factory=list)


def percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    rank = max(1, math.ceil(q * len(sorted_values)))
    return sorted_values[rank - 1]


class Generator:
    """One run: connect E tables to ``url``, play turns in ``mode``, measure."""

    def __init__(self, url: str, mode: str, encounters: int, *, warmup: float, duration: float,
                 period: float = 2.0, connect_concurrency: int = 200,
                 server_pid: int | None = None, redis_pid: int | None = None,
                 target: str = "stablemaster", log: Any = print,
                 on_window: Any = None, redis_url: str | None = None,
                 workload: str = "end_turn", side: int = 40, framing: bool = True,
                 view: bool | None = None, features: Any = None) -> None:
        parts = urlsplit(url)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self.path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self.mode = mode
        self.E = encounters
        self.warmup = warmup
        self.duration = duration
        self.period = period
        self.concurrency = connect_concurrency
        self.server_pid = server_pid
        self.redis_pid = redis_pid
        self.log = log
        self.on_window = on_window  # called with the window's length when measuring starts
        self.redis_url = redis_url  # the server's Redis, to count commands per action
        self.loop = asyncio.get_running_loop()
        self.tables: list[Table] = []
        self.conns: list[Conn] = []
        self.workload = workload
        self.plan = PLANS[workload]
        self.by_seq = workload != "end_turn"
        self.side = side
        if features is None:
            features = REFERENCE_FEATURES if framing else ()
        features = [f for f in features if f != "view"] if view is False else \
            [*features, *(["view"] if view and "view" not in features else [])]
        if view is not None:
            # what the view costs is measured on the same events (``lean_events`` would say
            # less in them with the view than without)
            features = [f for f in features if f != "lean_events"]
        #: what the clients ask for in ``hello``
        self.features: tuple[str, ...] = tuple(features)
        self.framing = "batch" in self.features or "view" in self.features
        self.view = "view" in self.features
        self.cursor = "cursor" in self.features
        self.result = RunResult(target=target, mode=mode, encounters=encounters,
                                workload=workload, map_side=side if self.by_seq else None,
                                framing=self.framing, features=list(self.features))
        if self.by_seq:
            ponies = [f"c{i}" for i in range(0, 16, 2)]
            self.seats = [ponies[k::4] for k in range(4)]  # 2 ponies per player
            self.npcs = [f"c{i}" for i in range(1, 16, 2)]
        else:
            self.seats = [[cid] for cid, _n, _m in PCS]
            self.npcs = [cid for cid, _n, _m in NPCS]
        self.sending = False
        self.closing = False
        self.measure_from = math.inf
        self.stop_at = math.inf
        self.latencies: list[float] = []
        self.sent: list[float] = []  # send time of each measured action, for the timeline
        self.errors: dict[str, int] = {}
        self.late = 0
        self.throttled = 0
        self.lags: list[float] = []
        self._rss_end: float | None = None

    # -- bookkeeping -------------------------------------------------------------------------

    def count(self, what: str, n: int = 1) -> None:
        self.errors[what] = self.errors.get(what, 0) + n

    def on_error(self, conn: Conn, m: dict[str, Any]) -> None:
        self.count(f"error:{m.get('code')}")
        table = conn.table
        cid = m.get("id") or ""
        if table is not None and cid.startswith("a") and table.inflight:
            table.inflight = False  # the action did not happen: the turn is unchanged
            table.ack_seq = table.ack_cursor = None
            if self.by_seq and self.plan[table.step] != "end_turn":
                table.step = len(self.plan) - 1  # skip to the end of the turn
            if self.mode == "saturation" and self.sending:
                self.loop.call_later(0.01, self.fire, table)

    def on_lost(self, conn: Conn) -> None:
        if self.closing:
            return
        self.count("connection_lost")
        if conn.table is not None and not conn.table.dead:
            conn.table.dead = True
            conn.table.inflight = False

    # -- the turn loop -----------------------------------------------------------------------

    def turn_complete(self, table: Table) -> None:
        now = _now()
        if table.inflight:
            table.inflight = False
            if self.measure_from <= table.sent_at < self.stop_at:
                self.latencies.append(now - table.sent_at)
                self.sent.append(table.sent_at)
        elif not table.started.done():
            table.started.set_result(None)
            return
        if not self.sending or table.dead:
            return
        if self.mode == "saturation" or table.wanted:
            table.wanted = False
            self.fire(table)

    def action_complete(self, table: Table) -> None:
        """The map workloads: every client has the last event of the action in flight."""
        if not table.inflight:
            return
        kind = self.plan[table.step]
        table.step = (table.step + 1) % len(self.plan)
        if kind == "move":
            table.moved ^= {table.turn_comb}
        self.turn_complete(table)

    def map_command(self, table: Table) -> bytes:
        cid = table.turn_comb
        kind = self.plan[table.step]
        if kind == "end_turn":
            return b'{"type":"act","id":"a%d","combatant":"%s","action":"end_turn"}' % (
                table.n, cid.encode())
        i = int(cid[1:])
        if kind == "attack":
            enemy = f"c{i + 1 if i % 2 == 0 else i - 1}"
            return (b'{"type":"act","id":"a%d","combatant":"%s","action":"attack",'
                    b'"args":{"target":"%s","weapon":"sling"}}'
                    % (table.n, cid.encode(), enemy.encode()))
        pony = i % 2 == 0
        side = self.side
        x = (i // 2 * 3) % side if side > 24 else i // 2
        home = 0 if pony else min(MAP_DISTANCE, side - 1)
        ahead = 1 if pony else -1
        if cid in table.moved:  # back home
            path = [[x, home + ahead], [x, home]]
        else:
            path = [[x, home + ahead], [x, home + 2 * ahead]]
        return (b'{"type":"act","id":"a%d","combatant":"%s","action":"move",'
                b'"args":{"path":%b}}' % (table.n, cid.encode(), orjson.dumps(path)))

    def fire(self, table: Table) -> None:
        waited = table.waiting_rate
        table.waiting_rate = False
        if table.dead or table.inflight:
            return
        now = _now()
        if now >= self.stop_at:
            return
        conn = table.controller[table.turn_comb]
        wait = conn.take(now)
        if wait > 0:
            if self.measure_from <= now and not waited:
                self.throttled += 1  # once per action, however many times it waits
            table.waiting_rate = True
            self.loop.call_later(wait + 0.0005, self.fire, table)
            return
        table.n += 1
        payload = self.map_command(table) if self.by_seq else (
            b'{"type":"act","id":"a%d","combatant":"%s","action":"end_turn"}' % (
                table.n, table.turn_comb.encode()))
        table.inflight = True
        table.sent_at = _now()
        conn.send(payload)

    def tick(self, table: Table) -> None:
        if not self.sending or table.dead:
            return
        if table.inflight or table.waiting_rate:
            table.wanted = True
            if self.measure_from <= _now() < self.stop_at:
                self.late += 1
        else:
            self.fire(table)
        table.next_tick += self.period
        if table.next_tick < self.stop_at:
            self.loop.call_later(table.next_tick - _now(), self.tick, table)

    async def watchdog(self) -> None:
        while self.sending or any(t.inflight for t in self.tables):
            now = _now()
            for t in self.tables:
                if t.inflight and now - t.sent_at > ACTION_TIMEOUT:
                    self.count("action_timeout")
                    t.inflight = False
                    t.dead = True
            await asyncio.sleep(0.5)

    async def lag_probe(self) -> None:
        interval = 0.05
        while self.sending:
            before = _now()
            await asyncio.sleep(interval)
            late = _now() - before - interval
            if self.measure_from <= before < self.stop_at:
                self.lags.append(max(0.0, late))

    # -- setup -------------------------------------------------------------------------------

    async def connect(self, table: Table | None, sem: asyncio.Semaphore,
                      token: str | None, slot: int = 0) -> Conn:
        async with sem:
            last: BaseException | None = None
            for attempt in range(4):
                try:
                    conn = await open_ws(
                        lambda: Conn(self, table, self.host, self.port, self.path, slot),
                        self.host, self.port)
                    break
                except (TimeoutError, OSError, HandshakeError) as exc:
                    last = exc
                    self.count("connect_retry")
                    await asyncio.sleep(0.25 * (attempt + 1))
            else:
                raise RuntimeError(f"cannot connect: {last}")
            assert isinstance(conn, Conn)
            self.conns.append(conn)
            await conn.hello(token)
            return conn

    async def seat(self, table: Table, sem: asyncio.Semaphore) -> None:
        try:
            gm = await self.connect(table, sem, table.gm_token, 0)
            async with sem:
                invites = [gm.request({"type": "issue_invite", "combatants": seat})
                           for seat in self.seats]
                link = gm.request({"type": "issue_spectator_link", "label": "overlay"})
                tokens = [(await ok(fut))["result"]["token"] for fut in invites]
                table.spectator_token = (await ok(link))["result"]["token"]
            others = await asyncio.gather(
                *(self.connect(table, sem, token, 1 + k) for k, token in enumerate(tokens)),
                self.connect(table, sem, table.spectator_token, 1 + len(tokens)),
                self.connect(table, sem, table.spectator_token, 2 + len(tokens)))
            table.conns = [gm, *others]
            table.controller = {cid: conn for seat, conn in zip(self.seats, others,
                                                                strict=False) for cid in seat}
            table.controller.update({cid: gm for cid in self.npcs})
        except Exception as exc:
            table.dead = True
            self.count(f"setup_failed:{type(exc).__name__}")
            if self.errors[f"setup_failed:{type(exc).__name__}"] <= 3:
                self.log(f"    table {table.idx} could not be seated: {exc!r}")

    async def setup(self) -> None:
        sem = asyncio.Semaphore(self.concurrency)
        self.tables = [Table(self, i) for i in range(self.E)]
        n_admin = math.ceil(self.E / CREATES_PER_ADMIN)
        admins = await asyncio.gather(*(self.connect(None, sem, None) for _ in range(n_admin)))

        async def create(admin: Conn, chunk: list[Table]) -> None:
            extra: dict[str, Any] = {"combatants": COMBATANTS}
            if self.by_seq:
                extra = {"combatants": map_combatants(self.side, MAP_DISTANCE),
                         "map": battle_map(self.side)}
            futs = [admin.request({
                "type": "create_encounter", "id": str(uuid.uuid4()), "name": f"Bench {t.idx}",
                "ruleset": "dramatic", "options": {"dice_seed": DICE_SEED}, **extra})
                for t in chunk]
            for t, fut in zip(chunk, futs, strict=True):
                result = (await ok(fut))["result"]
                t.encounter, t.gm_token = result["encounter"], result["gm_token"]

        await asyncio.gather(*(
            create(a, self.tables[i * CREATES_PER_ADMIN:(i + 1) * CREATES_PER_ADMIN])
            for i, a in enumerate(admins)))
        await self.close_conns(admins)
        await asyncio.gather(*(self.seat(t, sem) for t in self.tables))

    async def start_tables(self) -> None:
        """The GM of every encounter sends ``start_encounter``, a bounded number at once."""
        live = [t for t in self.tables if not t.dead]
        sem = asyncio.Semaphore(self.concurrency)

        async def start(t: Table) -> None:
            async with sem:
                fut = t.conns[0].request({"type": "start_encounter"})
                try:
                    reply = await asyncio.wait_for(fut, REQUEST_TIMEOUT)
                except TimeoutError:
                    reply = {"type": "error", "code": "timeout"}
                self._started(t, reply)

        await asyncio.gather(*(start(t) for t in live))
        await asyncio.wait([t.started for t in live], timeout=30)
        for t in live:
            if not t.started.done():
                t.dead = True
                self.count("start_timeout")

    def _started(self, table: Table, reply: dict[str, Any]) -> None:
        if reply.get("type") != "ack":
            self.count(f"start_failed:{reply.get('code')}")
            table.dead = True
            if not table.started.done():
                table.started.set_result(None)

    async def close_conns(self, conns: list[Conn], timeout: float = 5.0) -> None:
        closing, self.closing = self.closing, True
        for c in conns:
            c.start_close()
        waiting = [c.closed for c in conns if not c.closed.done()]
        if waiting:
            await asyncio.wait(waiting, timeout=timeout)
        for c in conns:
            if not c.closed.done():
                c.abort()
        self.closing = closing
        gone = set(map(id, conns))
        self.conns = [c for c in self.conns if id(c) not in gone]

    # -- measuring ---------------------------------------------------------------------------

    def sample(self) -> Sample:
        return Sample(
            t=_now(),
            server_cpu=procs.cpu_seconds(self.server_pid) if self.server_pid else None,
            redis_cpu=procs.cpu_seconds(self.redis_pid) if self.redis_pid else None,
            gen_cpu=sum(os.times()[:2]),
            frames=sum(c.frames_in for c in self.conns),
            bytes=sum(c.bytes_in for c in self.conns),
            by_slot=[sum(c.bytes_in for c in self.conns if c.slot == k) for k in range(ROOM)],
            machine_cpu=procs.machine_cpu()[0],
            steal=procs.machine_cpu()[1],
        )

    def rss_mib(self) -> float | None:
        kib = procs.rss_kib(self.server_pid) if self.server_pid else None
        return None if kib is None else kib / 1024

    async def redis_calls(self) -> dict[str, int] | None:
        if self.redis_url is None:
            return None
        try:
            return await procs.redis_calls(self.redis_url)
        except Exception:  # the figure is a nicety; never fail a run for it
            return None

    async def run(self) -> RunResult:
        r = self.result
        t_setup = time.monotonic()
        rss_before = procs.rss_kib(self.server_pid) if self.server_pid else None
        try:
            await self.setup()
            live = [t for t in self.tables if not t.dead]
            r.connections = sum(len(t.conns) for t in live)
            await asyncio.sleep(0.5)
            rss_after = procs.rss_kib(self.server_pid) if self.server_pid else None
            await self.start_tables()
            live = [t for t in self.tables if not t.dead]
            r.tables_ok = len(live)
            r.setup_s = round(time.monotonic() - t_setup, 2)
            if not live:
                raise RuntimeError("no encounter could be set up")
            gc.collect()
            gc.freeze()
            await self.play(live)
            r.rss_mib = {
                "before": None if rss_before is None else round(rss_before / 1024, 1),
                "connected": None if rss_after is None else round(rss_after / 1024, 1),
                "end": None if self._rss_end is None else round(self._rss_end, 1),
            }
            if rss_before is not None and rss_after is not None and r.connections:
                r.mem_per_conn_kib = round((rss_after - rss_before) / r.connections, 1)
                if self._rss_end is not None:
                    r.mem_per_conn_end_kib = round(
                        (self._rss_end * 1024 - rss_before) / r.connections, 1)
        finally:
            await self.close_conns(list(self.conns))
            gc.unfreeze()
            r.errors = dict(sorted(self.errors.items()))
        return r

    async def play(self, live: list[Table]) -> None:
        r = self.result
        t0 = _now() + 0.2
        self.measure_from = t0 + self.warmup
        self.stop_at = self.measure_from + self.duration
        self.sending = True
        if self.mode == "saturation":
            for t in live:
                self.loop.call_later(t0 - _now(), self.fire, t)
        else:
            for i, t in enumerate(live):
                t.next_tick = t0 + i * self.period / len(live)
                self.loop.call_later(t.next_tick - _now(), self.tick, t)
        watchdog = self.loop.create_task(self.watchdog())
        probe = self.loop.create_task(self.lag_probe())
        await asyncio.sleep(max(0.0, self.measure_from - _now()))
        calls_a = await self.redis_calls()
        a = self.sample()
        if self.on_window is not None:
            self.on_window(self.duration)
        await asyncio.sleep(max(0.0, self.stop_at - _now()))
        b = self.sample()
        calls_b = await self.redis_calls()
        self._rss_end = self.rss_mib()
        self.sending = False
        # Let the actions sent inside the window complete (bounded by the action timeout).
        deadline = _now() + ACTION_TIMEOUT + 1
        while any(t.inflight for t in live) and _now() < deadline:
            await asyncio.sleep(0.05)
        await probe
        watchdog.cancel()
        wall = b.t - a.t
        lat = sorted(self.latencies)
        r.duration = round(wall, 2)
        r.actions = len(lat)
        r.actions_per_s = round(len(lat) / wall, 1)
        r.latency_ms = {k: round(percentile(lat, q) * 1000, 2) for k, q in
                        (("p50", 0.50), ("p95", 0.95), ("p99", 0.99), ("max", 1.0))}
        r.late_ticks = self.late
        r.throttled = self.throttled
        if lat:
            r.frames_per_action = round((b.frames - a.frames) / len(lat), 2)
            r.bytes_per_action = round((b.bytes - a.bytes) / len(lat), 1)
            slots = [(y - x) / len(lat) for x, y in zip(a.by_slot, b.by_slot, strict=True)]
            r.bytes_per_action_by_viewer = {"gm": round(slots[0], 1),
                                            "players": round(sum(slots[1:5]), 1),
                                            "spectators": round(sum(slots[5:]), 1)}
        if calls_a is not None and calls_b is not None and lat:
            # Commands sent in the window (INFO itself excluded) per action measured.
            per = {k: round((v - calls_a.get(k, 0)) / len(lat), 2) for k, v in calls_b.items()
                   if k != "info" and v - calls_a.get(k, 0) > 0}
            r.redis_commands_per_action = dict(sorted(per.items(), key=lambda kv: -kv[1]))
        if a.server_cpu is not None and b.server_cpu is not None:
            r.server_cpu_pct = round(100 * (b.server_cpu - a.server_cpu) / wall, 1)
            if lat:
                r.server_cpu_ms_per_action = round(
                    1000 * (b.server_cpu - a.server_cpu) / len(lat), 3)
        if a.redis_cpu is not None and b.redis_cpu is not None:
            r.redis_cpu_pct = round(100 * (b.redis_cpu - a.redis_cpu) / wall, 1)
        r.generator_cpu_pct = round(100 * (b.gen_cpu - a.gen_cpu) / wall, 1)
        ours = (b.gen_cpu - a.gen_cpu) + sum(
            (y - x) for x, y in ((a.server_cpu, b.server_cpu), (a.redis_cpu, b.redis_cpu))
            if x is not None and y is not None)
        r.other_cpu_pct = round(max(0.0, 100 * ((b.machine_cpu - a.machine_cpu) - ours) / wall), 1)
        r.steal_pct = round(100 * (b.steal - a.steal) / wall, 1)
        buckets: dict[int, list[float]] = {}
        for sent, latency in zip(self.sent, self.latencies, strict=True):
            buckets.setdefault(int(sent - self.measure_from), []).append(latency)
        for second in range(math.ceil(self.duration)):
            values = sorted(buckets.get(second, []))
            r.timeline.append([len(values), round(percentile(values, 0.5) * 1000, 2)
                               if values else 0.0,
                               round(values[-1] * 1000, 2) if values else 0.0])
        lags = sorted(self.lags)
        r.generator_loop_lag_ms = {"p99": round(percentile(lags, 0.99) * 1000, 2),
                                   "max": round(percentile(lags, 1.0) * 1000, 2)}
