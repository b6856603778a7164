"""Floors: the least a server must do to carry the benchmark's workload.

Two minimal servers that speak just enough of the Stablemaster protocol's shapes for the same
load generator to drive them: ``hello`` is answered by ``welcome``; ``create_encounter``,
``issue_invite`` and ``issue_spectator_link`` are answered by an ``ack`` with an encounter id
or a token; ``start_encounter`` and every ``act`` are relayed to the room's connections as an
``event`` with the next ``seq`` and a ``turn_started`` payload naming the next combatant in
the order the combatants were created, followed by an ``ack`` to the sender.

- ``bare``: relay in memory, nothing else (no Redis, no validation, no authentication).
- ``redis``: XADD the event to a per-room Stream, read it back with XRANGE, broadcast what was
  read. One Redis round trip to write and one to read, as a store-then-fan-out design needs.

Both run on the event loop Stablemaster runs on (``--loop``, as ``stablemaster serve --loop``:
uvloop where it is installed, else asyncio's; the benchmark gives both the same) with the same
``websockets`` server options as Stablemaster (no compression, same queue and write limits), so
the difference to Stablemaster is what Stablemaster does beyond relaying.

    python -m bench.floors --kind bare --port 9001
    python -m bench.floors --kind redis --port 9002 --redis-url redis://127.0.0.1:6390/0
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import resource
import signal
import time
from typing import Any

import orjson
from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed

from server.loop import LOOPS, describe, run

_ids = itertools.count(1)


class Room:
    __slots__ = ("conns", "id", "key", "order", "round", "seq", "turn")

    def __init__(self, order: list[str]) -> None:
        self.id = f"r{next(_ids)}"
        self.key = f"floor:{{{self.id}}}:events"
        self.order = order or ["x"]
        self.seq = 0
        self.turn = -1
        self.round = 0
        self.conns: set[ServerConnection] = set()

    def next_event(self) -> bytes:
        """The next ``turn_started`` event frame, shaped like Stablemaster's."""
        self.seq += 1
        self.turn += 1
        if self.turn % len(self.order) == 0:
            self.round += 1
        combatant = self.order[self.turn % len(self.order)]
        return orjson.dumps({
            "type": "event", "encounter": self.id, "seq": self.seq,
            "ts": int(time.time() * 1000),
            "event": {"kind": "turn_started", "round": self.round, "combatant": combatant,
                      "hidden": False},
        })


class Floor:
    def __init__(self, kind: str, redis_url: str | None) -> None:
        self.kind = kind
        self.rooms: dict[str, Room] = {}
        self.tokens: dict[str, tuple[Room, str, list[str]]] = {}
        self.redis: Any = None
        if kind == "redis":
            from redis.asyncio import BlockingConnectionPool, Redis

            assert redis_url, "--redis-url is required for the redis floor"
            # A pool that waits for a free connection: redis-py's default pool raises
            # MaxConnectionsError beyond 100 commands in flight, which would close websockets.
            pool = BlockingConnectionPool.from_url(redis_url, max_connections=1000, timeout=None,
                                                   socket_timeout=10)
            self.redis = Redis(connection_pool=pool)

    def _token(self, room: Room, role: str, combatants: list[str]) -> str:
        token = f"{role}.{room.id}.{next(_ids)}"
        self.tokens[token] = (room, role, combatants)
        return token

    async def relay(self, room: Room) -> None:
        frame = room.next_event()
        if self.redis is not None:
            entry = await self.redis.xadd(room.key, {"e": frame})
            rows = await self.redis.xrange(room.key, entry, entry)
            frame = rows[0][1][b"e"]
        broadcast(room.conns, frame.decode())

    async def handle(self, ws: ServerConnection) -> None:
        room: Room | None = None
        try:
            async for raw in ws:
                m = orjson.loads(raw)
                kind = m.get("type")
                cid = m.get("id")
                if kind == "act" or kind == "start_encounter":
                    if room is None:
                        await ws.send(orjson.dumps({"type": "error", "id": cid,
                                                    "code": "unauthenticated",
                                                    "message": "hello first"}).decode())
                        continue
                    await self.relay(room)
                    await ws.send(orjson.dumps({"type": "ack", "id": cid,
                                                "seq": room.seq}).decode())
                elif kind == "hello":
                    token = m.get("token")
                    welcome: dict[str, Any] = {"type": "welcome", "protocol": 1,
                                               "server": f"floor-{self.kind}",
                                               "session": f"{id(ws):x}", "role": None}
                    if token is not None:
                        found = self.tokens.get(token)
                        if found is None:
                            await ws.send(orjson.dumps({"type": "error", "code": "unauthenticated",
                                                        "message": "unknown token"}).decode())
                            continue
                        room, role, combatants = found
                        room.conns.add(ws)
                        welcome.update(role=role, encounter=room.id, combatants=combatants)
                    await ws.send(orjson.dumps(welcome).decode())
                elif kind == "create_encounter":
                    new = Room([c.get("id") or c["name"] for c in m.get("combatants", [])])
                    self.rooms[new.id] = new
                    gm = self._token(new, "gm", [])
                    await ws.send(orjson.dumps({"type": "ack", "id": cid, "result": {
                        "encounter": new.id, "gm_token": gm, "token_id": gm}}).decode())
                elif kind in ("issue_invite", "issue_spectator_link") and room is not None:
                    if kind == "issue_invite":
                        token = self._token(room, "player", list(m.get("combatants", [])))
                    else:
                        token = self._token(room, "spectator", [])
                    await ws.send(orjson.dumps({"type": "ack", "id": cid, "result": {
                        "token": token, "token_id": token}}).decode())
                else:
                    await ws.send(orjson.dumps({"type": "ack", "id": cid}).decode())
        except ConnectionClosed:
            pass
        finally:
            if room is not None:
                room.conns.discard(ws)


async def main_async(kind: str, host: str, port: int, redis_url: str | None) -> None:
    floor = Floor(kind, redis_url)
    if floor.redis is not None:
        await floor.redis.ping()
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    async with serve(floor.handle, host, port, compression=None, max_size=1024 * 1024,
                     max_queue=16, write_limit=64 * 1024, ping_interval=20, ping_timeout=20):
        print(f"{kind} floor listening on {host}:{port}, event loop {describe()}", flush=True)
        await stop.wait()
    if floor.redis is not None:
        await floor.redis.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.floors", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kind", choices=["bare", "redis"], required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--redis-url")
    parser.add_argument("--loop", choices=LOOPS, default="auto",
                        help="the event loop, as the server's --loop (default auto)")
    args = parser.parse_args()
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    run(main_async(args.kind, args.host, args.port, args.redis_url), args.loop)


if __name__ == "__main__":
    main()
