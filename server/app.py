"""The server: wires Redis, the event store, rooms, fan-out and websockets together."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import signal
import time
from collections import deque
from collections.abc import Awaitable
from http import HTTPStatus
from typing import Any

import orjson
from redis.asyncio import BlockingConnectionPool, Redis
from redis.asyncio.cluster import RedisCluster
from redis.exceptions import ResponseError
from websockets.asyncio.server import Server as WsServer
from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

from encounter.actors import Actor
from encounter.patches import NO_CHANGE
from encounter.screen import waits_for_screen
from encounter.views import may_see
from protocol.events import CommandsUndone, Envelope
from protocol.messages import Limits
from protocol.version import PROTOCOL_VERSION
from rules.verifiable_dice import encounter_secret, renewed_secret
from server import __version__, auth, metrics, web
from server.addresses import ConnectionCounter, CountedConnection
from server.budgets import ReadBudget
from server.campaigns import Campaigns
from server.commands import CommandService
from server.config import Settings
from server.creation import CreatePolicy, PolicyError
from server.embedded_redis import DataDirInUse, DataDirLock, EmbeddedRedis
from server.fanout import ChannelFollower, ShardedPubSubMissing, require_sharded_pubsub
from server.gc_pacer import GcPacer
from server.loop import describe as describe_loop
from server.origins import OriginPolicy
from server.presence import PresenceWatch
from server.quotas import CreateQuotas
from server.read_api import EventStream, ReadApi, Tickets
from server.rooms import Room, Rooms
from server.session import Outbox, Session
from server.store import Durability, EventStore, LogChain

log = logging.getLogger("stablemaster")

SECRET_KEY = "stablemaster:secret"
#: Events read from Redis at a time when replaying what a resuming client missed.
REPLAY_CHUNK = 256
#: The most seconds a step of a graceful shutdown waits (the demo's bots stopping, the
#: goodbyes, the connections closing) before the shutdown goes on without it.
SHUTDOWN_STEP_SECONDS = 15.0
#: How often the server looks whether its embedded Redis is still running (s).
EMBEDDED_CHECK_SECONDS = 0.5
#: Deaths of the embedded Redis within ``EMBEDDED_DEATHS_WINDOW`` seconds after which the server
#: stops restarting it and exits (a supervisor restarts the server, or a person looks).
EMBEDDED_DEATHS = 3
EMBEDDED_DEATHS_WINDOW = 60.0


#: what follows a room: a websocket connection, or a read API stream
Follower = Session | EventStream


class Server:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.embedded: EmbeddedRedis | None = None
        #: this process's claim on ``--data-dir`` (with the embedded Redis only)
        self.data_lock: DataDirLock | None = None
        self.redis: Any
        self.store: EventStore
        self.rooms: Rooms
        self.tokens: auth.Tokens
        self.creation: CreatePolicy
        self.quotas: CreateQuotas
        self.campaigns: Campaigns
        self._dice_root = b""
        self.commands = CommandService(self)
        self.follower: ChannelFollower
        self.sessions: set[Session] = set()
        self.outbox = Outbox()
        self.gc_pacer = GcPacer()
        self.ws: WsServer | None = None
        self.limits = Limits(
            max_command_bytes=settings.max_command_bytes,
            max_frame_bytes=settings.max_frame_bytes,
            commands_per_second=settings.commands_per_second,
            burst=settings.command_burst,
            max_event_bytes=settings.max_event_bytes,
            max_depth=settings.max_json_depth,
        )
        self._stopped = asyncio.Event()
        #: set when the server must stop (a signal, or a failure it cannot serve through)
        self._shutdown = asyncio.Event()
        #: why the server stopped on its own (it exits non-zero), if it did
        self.failure: str | None = None
        self._embedded_watch: asyncio.Task[None] | None = None
        self.demo: Any = None
        self.presence: PresenceWatch | None = None
        self.origins = OriginPolicy(settings.allow_origins)
        self.addresses = ConnectionCounter(settings.max_connections_per_address,
                                           settings.trusted_proxies)
        #: what replays and history pages may read, per credential and per address
        self.read_budget = ReadBudget(settings.read_events_per_second,
                                      settings.read_event_burst)

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        s = self.settings
        try:
            self.creation = CreatePolicy.of(s)
        except PolicyError as exc:
            raise ConfigError(str(exc)) from None
        url = s.redis_url
        if url is None:
            url = await self._start_embedded()
        self.redis, follower_redis = self._connect(url)
        if isinstance(self.redis, RedisCluster):
            try:
                await require_sharded_pubsub(self.redis)
            except ShardedPubSubMissing as exc:
                await self.redis.aclose()
                await follower_redis.aclose()
                raise ConfigError(str(exc)) from None
        self.quotas = CreateQuotas(self.redis, s)
        secret = await self._secret()
        self._dice_root = secret
        self.tokens = auth.Tokens(secret)
        self.read_api = ReadApi(self, Tickets(secret, s.read_ticket_seconds))
        durability = await durability_for(self.redis, s, embedded=self.embedded is not None)
        origin = auth.new_id(12)  # this process, in the notifications of its own appends
        self.store = EventStore(self.redis, LogChain(secret), durability, s.max_event_bytes,
                                origin=origin, max_events=s.max_encounter_events,
                                max_bytes=s.max_encounter_bytes)
        self.rooms = Rooms(self.store, self.commands.fire_timer, self.commands.renew_dice)
        self.campaigns = Campaigns(self, secret)
        self.follower = ChannelFollower(self.redis, follower_redis, self.rooms, s.sweep_interval,
                                        on_campaign=self.campaigns.offer, origin=origin)
        self.rooms.channels = self.campaigns.channels = self.follower
        await self.follower.start()
        self.ws = await serve(
            self._handle, s.host, s.port,
            process_request=self._http,
            create_connection=CountedConnection,
            compression=None,  # small JSON frames: compression costs more than it saves
            max_size=s.max_frame_bytes,
            max_queue=16,
            write_limit=64 * 1024,
            ping_interval=20, ping_timeout=20,
            server_header=f"Stablemaster/{__version__}",
        )
        sockets = self.ws.sockets
        if sockets:
            self.settings.port = sockets[0].getsockname()[1]
        log.info("listening on ws://%s:%d/ws (protocol %d, event loop %s)", s.host,
                 self.settings.port, PROTOCOL_VERSION, describe_loop())
        log.info("%s", self.creation.describe())
        self.gc_pacer.start()
        if self.embedded is not None:
            self._embedded_watch = asyncio.get_running_loop().create_task(
                self._watch_embedded())
        self.presence = PresenceWatch(self.redis, self.rooms)
        self.presence.start()
        if s.demo:
            from server.demo import Demo

            self.demo = Demo(self)
            await self.demo.start()

    async def _start_embedded(self) -> str:
        """Own the data directory, then start a redis-server in it (``server.embedded_redis``:
        one owner per directory; the redis-server dies with this process); its URL."""
        s = self.settings
        self.data_lock = DataDirLock(s.data_dir)
        self.embedded = EmbeddedRedis(s.data_dir / "redis",
                                      appendfsync="always" if s.durability == "always"
                                      else "everysec")
        try:
            self.data_lock.acquire()
            await self.embedded.start()
        except BaseException as exc:
            self.data_lock.release()
            if isinstance(exc, DataDirInUse):
                raise ConfigError(str(exc)) from None
            raise
        assert self.embedded.process is not None
        log.info("embedded Redis started: %s, pid %d (AOF in %s)", self.embedded.binary,
                 self.embedded.process.pid, self.embedded.data_dir)
        return self.embedded.url

    async def _watch_embedded(self) -> None:
        """The embedded Redis comes back, or the server goes: when the redis-server dies under
        the server (the OOM killer, say), it is started again on the same files (its AOF);
        when it keeps dying (``EMBEDDED_DEATHS`` times within ``EMBEDDED_DEATHS_WINDOW``
        seconds) or cannot be started, the server stops and exits non-zero, saying why,
        rather than answer ``/healthz`` 503 for good."""
        embedded = self.embedded
        assert embedded is not None
        deaths: deque[float] = deque()
        while True:
            await asyncio.sleep(EMBEDDED_CHECK_SECONDS)
            status = embedded.died()
            if status is None:
                continue
            now = time.monotonic()
            deaths.append(now)
            while deaths and now - deaths[0] > EMBEDDED_DEATHS_WINDOW:
                deaths.popleft()
            where = embedded.data_dir
            if len(deaths) > EMBEDDED_DEATHS:
                self.fail(f"the embedded Redis died {len(deaths)} times within "
                          f"{EMBEDDED_DEATHS_WINDOW:g} s (last exit status {status}); the "
                          f"server stops rather than serve without its store (its data is "
                          f"in {where}; its log: {where / 'redis.log'})")
                return
            log.error("the embedded Redis died (exit status %s): starting it again on the same "
                      "data (%s)", status, where)
            metrics.EMBEDDED_RESTARTS.inc()
            try:
                await embedded.restart()
            except Exception as exc:
                self.fail(f"the embedded Redis died (exit status {status}) and could not be "
                          f"started again: {exc}; the server stops rather than serve without "
                          f"its store (its data is in {where}; its log: "
                          f"{where / 'redis.log'})")
                return
            with contextlib.suppress(Exception):  # (the connections to the dead one go)
                await self.redis.connection_pool.disconnect()
            assert embedded.process is not None
            log.warning("embedded Redis started again: pid %d, on the same data; rooms check "
                        "their logs against it", embedded.process.pid)

    def fail(self, why: str) -> None:
        """Stop the server for a failure it cannot serve through: it exits non-zero."""
        log.critical("%s", why)
        self.failure = why
        self._shutdown.set()

    def _connect(self, url: str) -> tuple[Any, Any]:
        if self.settings.redis_cluster or url.startswith("redis+cluster://"):
            url = url.replace("redis+cluster://", "redis://", 1)
            cluster = RedisCluster.from_url(url, max_connections=self.settings.redis_connections)
            # (the subscriptions' connections, per shard, wait for messages without a timeout)
            return cluster, RedisCluster.from_url(url, socket_timeout=None)
        # A blocking pool: under load a command waits for a free connection instead of failing.
        pool = BlockingConnectionPool.from_url(
            url, max_connections=self.settings.redis_connections, timeout=10,
            socket_timeout=10, health_check_interval=30)
        single = Redis.from_pool(pool)
        # the subscriptions get a connection of their own, without a socket timeout
        return single, Redis.from_url(url, socket_timeout=None)

    def dice_secret(self, encounter: str, nonce: str | None = None) -> bytes:
        """The secret the encounter's server dice are drawn from (ruling R101), or after a
        renewal with ``nonce`` (R117): derived from the server's secret, so every process of a
        deployment draws the same dice."""
        if nonce is not None:
            return renewed_secret(self._dice_root, encounter, nonce)
        return encounter_secret(self._dice_root, encounter)

    async def _secret(self) -> bytes:
        if self.settings.secret:
            return self.settings.secret.encode()
        await self.redis.set(SECRET_KEY, auth.new_id(48), nx=True)
        value = await self.redis.get(SECRET_KEY)
        assert value is not None
        return bytes(value)

    async def stop(self) -> None:
        """Graceful shutdown: tell every client to reconnect (elsewhere), then close. Each step
        has a deadline (``SHUTDOWN_STEP_SECONDS``): one that overruns is logged, and the
        connections still open then are cut, so that a stop always ends."""
        if self._embedded_watch is not None and \
                self._embedded_watch is not asyncio.current_task():
            self._embedded_watch.cancel()
        if self.demo is not None:
            await self._within("the demo's bots stopping", self.demo.stop())
        if self.ws is not None:
            self.ws.close(close_connections=False)
            self.read_api.close_all("server shutting down")
            await self._within("the goodbyes", asyncio.gather(
                *(s.goodbye("server shutting down") for s in list(self.sessions)),
                return_exceptions=True))
            if not await self._within("the connections closing", self.ws.wait_closed()):
                for connection in list(self.ws.connections):  # (late or unresponsive)
                    connection.transport.abort()
                await self._within("the cut connections' handlers", self.ws.wait_closed())
        if self.presence is not None:
            await self._within("the presence watch stopping", self.presence.stop())
        await self.follower.stop()
        await self.gc_pacer.stop()
        await self.store.aclose()
        await self.redis.aclose()
        if self.embedded is not None:
            self.embedded.stop()
            log.info("embedded Redis stopped")
        if self.data_lock is not None:
            self.data_lock.release()
        self._stopped.set()

    @staticmethod
    async def _within(what: str, step: Awaitable[Any]) -> bool:
        """Await a step of the shutdown for at most ``SHUTDOWN_STEP_SECONDS``."""
        try:
            await asyncio.wait_for(step, SHUTDOWN_STEP_SECONDS)
            return True
        except TimeoutError:
            log.warning("shutting down: %s took more than %g s; going on", what,
                        SHUTDOWN_STEP_SECONDS)
            return False

    async def serve_forever(self) -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, self._shutdown.set)
        await self._shutdown.wait()
        log.info("shutting down")
        await self.stop()

    # -- websockets --------------------------------------------------------------------------

    async def _handle(self, ws: ServerConnection) -> None:
        session = Session(self, ws)
        self.sessions.add(session)
        try:
            await session.run()
        finally:
            self.sessions.discard(session)

    async def authenticate(self, token: str) -> tuple[Room, Actor] | str:
        """The room and rights of ``token``, or why it is refused. The room is held for the
        caller (``Rooms.get``), who releases it once its connection joined it or gave up."""
        unknown = "unknown, malformed or revoked token"
        parsed = auth.parse(token)
        if parsed is None:
            return unknown
        encounter, token_id = parsed
        stored = await self.store.token_digest(encounter, token_id)
        if stored is None or not auth.matches(token, stored):
            return unknown
        room = await self.rooms.get(encounter)
        if room is None:
            return unknown
        grant = room.state.tokens.get(token_id)
        if grant is None or grant.revoked or grant.expired(time.time() * 1000):
            self.rooms.release(room)
            return unknown if grant is None or grant.revoked else "this credential has expired"
        actor = Actor(role=grant.role, token_id=token_id, combatants=frozenset(grant.combatants),
                      scopes=frozenset(grant.scopes))
        return room, actor

    async def attach(self, session: Follower, room: Room, since: int | None,
                     digest: str | None = None) -> None:
        """Subscribe a session to its room, first sending what it missed (or a snapshot).

        The missed events are read from Redis a chunk at a time and queued as the connection
        takes them (its send queue stays under its bounds), until the room's ring of recent
        events covers the rest; the last step, from the ring, and joining the room happen
        without a pause, so no event is missed or sent twice. The digest at ``since`` (from the
        client, when it sent one) must be the log's: otherwise the log went back and grew again
        since the client saw it, and the client gets a snapshot (``rewound``)."""
        actor = session.actor
        assert actor is not None
        if since is None:
            room.send_snapshot(session, "join")
            return
        await room.following.check()  # the room against Redis: behind, ahead, or another log
        # the table is replayed no further than it has been told (encounter.screen): what
        # follows reaches it with the room's next delivery that tells it
        waits = waits_for_screen(actor)
        if since > (room.state.told if waits else room.version):
            self._resume_snapshot(session, room, "resume_ahead")
            return
        limit = self.settings.max_replay
        # the last seq queued for the client, and its digest as far as it is known (the
        # client's, then the log's)
        sent_to, sent_digest = since, digest
        checks = 0
        undone = False  # an undo this reader may see is among the events replayed (R108)
        while True:
            if sent_to > room.version:  # the log went back (while it was being replayed)
                self._resume_snapshot(session, room,
                                      "resume_ahead" if sent_to == since else "rewound")
                return
            if room.version - sent_to > limit:
                self._resume_snapshot(session, room, "resume_gap")
                return
            if not await session.wait_sent():
                return  # the connection is gone
            batch = room.ring_after(sent_to)
            if batch is not None:  # the ring covers the rest: the last step, without a pause
                doubt = _doubt(since, sent_to, sent_digest, batch.prev)
                if doubt is not None:
                    if sent_to != since:  # Redis's log and the room's differ
                        await room.following.check()
                    self._resume_snapshot(session, room, doubt)
                    return
                end = room.state.told if waits else room.version
                shown = [(e, d) for e, d in zip(batch.envelopes, batch.digests, strict=True)
                         if e.seq <= end]
                for frame in room.frames_for([e for e, _ in shown], [d for _, d in shown],
                                             actor, cursor=session.cursor,
                                             summaries=session.summaries):
                    session.enqueue(frame)
                undone = undone or _undid([e for e, _ in shown], actor)
                self._join_resumed(session, room, since, undone)
                return
            batch = await self.store.read_batch(room.id, sent_to, count=REPLAY_CHUNK)
            # no further than the room has folded (the rest comes from its ring, or live), nor
            # than the table has been told
            while batch.envelopes and batch.envelopes[-1].seq > (
                    room.state.told if waits else room.version):
                batch.envelopes.pop()
                batch.digests.pop()
                batch.raws.pop()
            if batch.envelopes and (batch.prev is None
                                    or batch.envelopes[0].seq != sent_to + 1):
                # the log no longer reaches back that far (trimmed)
                self._resume_snapshot(session, room, "resume_gap")
                return
            if waits and not batch.envelopes and batch.prev is not None \
                    and sent_to == room.state.told:
                # a table reader at the point it has been told, the rest of the log behind
                # the screen (a room loaded while a hidden turn runs: its ring is empty)
                doubt = _doubt(since, sent_to, sent_digest, batch.prev)
                if doubt is not None:
                    self._resume_snapshot(session, room, doubt)
                    return
                self._join_resumed(session, room, since, undone)
                return
            if batch.prev is None or not batch.envelopes:
                # Redis's log ends at or before sent_to, behind the room: check the room
                checks += 1
                if checks > 3:
                    self._resume_snapshot(session, room, "rewound")
                    return
                await room.following.check()
                continue
            doubt = _doubt(since, sent_to, sent_digest, batch.prev)
            if doubt is not None:
                self._resume_snapshot(session, room, doubt)
                return
            for frame in room.frames_for(batch.envelopes, batch.digests, actor,
                                         cursor=session.cursor, summaries=session.summaries):
                session.enqueue(frame)
            undone = undone or _undid(batch.envelopes, actor)
            sent_to, sent_digest = batch.envelopes[-1].seq, batch.head

    def _join_resumed(self, session: Follower, room: Room, since: int,
                      undone: bool = False) -> None:
        """The last step of a resume, the events replayed: with the ``view`` feature the
        patch from the view at ``since`` (or a snapshot, when the patches kept do not reach
        back to it); then the room and the legal actions. After an undo among the events
        replayed (``undone``, R108), a snapshot (``rewound``), as a live connection got."""
        actor = session.actor
        assert actor is not None
        if undone:
            self._resume_snapshot(session, room, "rewound")
            return
        if session.view:
            patch = room.view_since(actor, since)
            if patch is None:
                self._resume_snapshot(session, room, "resume_gap")
                return
            if patch != NO_CHANGE:
                seq, digest = room.position(actor)
                session.enqueue(room.view_frame(patch, seq, digest, session.cursor))
        room.add_session(session)
        session.offer_legal(room.legal_frame(actor, cursor=session.cursor), force=True)

    def _resume_snapshot(self, session: Follower, room: Room, reason: str) -> None:
        metrics.RESUME_SNAPSHOTS.labels(reason).inc()
        room.send_snapshot(session, reason)

    # -- plain HTTP on the same port ---------------------------------------------------------

    async def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        """A websocket handshake goes on (``None``) or is refused; any other request is
        answered, with the CORS headers of the origin policy (``server.origins``)."""
        origin, host = request.headers.get("Origin"), request.headers.get("Host")
        if request.headers.get("Upgrade", "").lower() == "websocket":
            if not self.origins.allows(origin, host):
                metrics.CONNECTIONS_REFUSED.labels("origin").inc()
                return _respond(HTTPStatus.FORBIDDEN, b"pages of this origin may not connect "
                                b"(the server's --allow-origin)\n")
            return await self._handshake(connection, request)
        cors = list(self.origins.cors(origin, host))
        if request.path.startswith("/read/"):
            response = await self.read_api.respond(connection, request, _respond, cors)
        else:
            response = await self._page(request)
        for name, value in cors:
            response.headers[name] = value
        return response

    async def _handshake(self, connection: ServerConnection, request: Request
                         ) -> Response | None:
        path = request.path.split("?", 1)[0]
        if path not in ("/ws", "/"):
            return _respond(HTTPStatus.NOT_FOUND, b"websocket endpoint is /ws\n")
        assert isinstance(connection, CountedConnection)
        client = self.addresses.client(connection.remote_address,
                                       request.headers.get_all("X-Forwarded-For"))
        connection.client = client
        if self.addresses.limit and not client.local:
            if not self.addresses.acquire(client.address):
                metrics.CONNECTIONS_REFUSED.labels("address_limit").inc()
                return _respond(HTTPStatus.TOO_MANY_REQUESTS,
                                b"too many connections from this address\n")
            connection.release = functools.partial(self.addresses.release, client.address)
        return None

    async def _page(self, request: Request) -> Response:
        path = request.path.split("?", 1)[0]
        if path == "/healthz":
            try:
                latency = await asyncio.wait_for(self.store.ping(), 2)
                body = {"status": "ok", "redis": "ok", "redis_latency_ms": round(latency * 1000, 3),
                        "version": __version__, "protocol": PROTOCOL_VERSION}
                status = HTTPStatus.OK
            except Exception as exc:  # any failure to reach Redis is "unhealthy"
                body = {"status": "unhealthy", "redis": str(exc) or type(exc).__name__,
                        "version": __version__, "protocol": PROTOCOL_VERSION}
                status = HTTPStatus.SERVICE_UNAVAILABLE
            return _respond(status, orjson.dumps(body), "application/json")
        if path == "/metrics":
            return _respond(HTTPStatus.OK, metrics.render(), "text/plain; version=0.0.4")
        if path == "/":
            return _respond(HTTPStatus.OK, _INDEX.encode(), "text/html; charset=utf-8")
        found = web.lookup(path)  # the web table (/table/…) and the spectator page (/watch)
        if found is not None:
            return _respond(HTTPStatus.OK, *found)
        return _respond(HTTPStatus.NOT_FOUND, b"not found\n")


_INDEX = """<!doctype html><meta charset="utf-8"><title>Stablemaster</title>
<h1>Stablemaster</h1><p>Encounter server. Websocket endpoint: <code>/ws</code>.
Health: <a href="/healthz">/healthz</a>. Metrics: <a href="/metrics">/metrics</a>.
Web table (GM console, players' view): <a href="/table/">/table/</a>.
Campaigns (a roster and a clock between encounters): <a href="/campaign/">/campaign/</a>.
Spectator page: <code>/watch?spectate=&lt;spectator token&gt;</code>.</p>
"""


class ConfigError(Exception):
    """The settings cannot be honoured with this Redis (said at start, before serving)."""


async def durability_for(redis: Any, settings: Settings, embedded: bool) -> Durability:
    """What each append waits for, as ``settings.durability`` asks (see the README's
    "Durability")."""
    mode = settings.durability
    timeout_ms = max(1, round(settings.wait_timeout * 1000))
    if mode == "everysec":
        return Durability()
    if isinstance(redis, RedisCluster):
        raise ConfigError(f"--durability {mode} is not supported on a Redis Cluster: set "
                          "appendfsync always (and replicas) on its nodes instead")
    if mode == "replicas":
        n = settings.wait_replicas
        if n < 1:
            raise ConfigError("--wait-replicas must be at least 1")
        # (a replica lost later makes commands answer ``unavailable`` until it is back)
        have = int((await redis.info("replication")).get("connected_slaves", 0))
        if have < n:
            raise ConfigError(
                f"--durability replicas waits for {n} replica(s) of this Redis, and it has "
                f"{have} connected (INFO replication): start them first (replicaof), or use "
                "--durability always or everysec")
        return Durability(("WAIT", n, timeout_ms), n, f"WAIT for {n} replica(s)")
    if mode != "always":
        raise ConfigError(f"unknown durability {mode!r} (everysec, always, replicas)")
    if embedded:
        return Durability(label="appendfsync always")  # started with it
    with contextlib.suppress(ResponseError):  # CONFIG may be disabled (managed Redis)
        config = await redis.config_get("appendfsync")
        if config.get("appendfsync") == "always":
            return Durability(label="Redis's appendfsync always")
    try:
        await redis.execute_command("WAITAOF", 1, 0, timeout_ms)
    except ResponseError as exc:
        raise ConfigError(
            "--durability always needs a Redis that fsyncs before it answers: set "
            "`appendonly yes` and `appendfsync always` in its configuration, or use Redis "
            f"7.2 or newer with `appendonly yes` (for WAITAOF); this one said: {exc}") from None
    return Durability(("WAITAOF", 1, 0, timeout_ms), 1, "WAITAOF (the AOF fsynced)")


def _doubt(since: int, sent_to: int, sent_digest: str | None, prev: str | None) -> str | None:
    """Why a resume cannot go on from ``sent_to`` (the reason of the snapshot it gets), the log
    holding the digest ``prev`` there: ``rewound`` when the digest the client sent (or that of
    the last event replayed) is another; ``unverified`` when the client sent none for its
    ``since`` (beyond the start) though the log has one there: the server cannot tell its log
    from a log that went back and grew again since the client saw it, so it never replays
    one that may have been rewritten. ``None``: go on."""
    if sent_digest is None:
        return "unverified" if sent_to == since > 0 and prev else None
    return "rewound" if prev != sent_digest else None


def _respond(status: HTTPStatus, body: bytes, content_type: str = "text/plain") -> Response:
    # no-referrer: a page opened by a link that carries a token (a spectator link) passes its
    # URL on to nothing it loads or links to
    headers = Headers([("Content-Type", content_type), ("Content-Length", str(len(body))),
                       ("Cache-Control", "no-store"), ("Referrer-Policy", "no-referrer")])
    return Response(status.value, status.phrase, headers, body)


async def run(settings: Settings) -> None:
    server = Server(settings)
    await server.start()
    started = time.time()
    try:
        await server.serve_forever()
    finally:
        log.info("stopped after %.0f s", time.time() - started)
    if server.failure is not None:
        raise SystemExit(1)  # (said why already; a supervisor restarts it)


def _undid(envelopes: list[Envelope], actor: Actor) -> bool:
    """Whether an undo ``actor`` may see is among ``envelopes`` (R108)."""
    return any(type(e.event) is CommandsUndone and may_see(e, actor) for e in envelopes)
