"""The bytes of an end of turn, by viewer and by message type, on a real server.

    python -m bench.wirebytes                          # the reference clients' features
    python -m bench.wirebytes --features batch,legal_delta
    python -m bench.wirebytes --turns 60 --json out.json

A server is started in this process (with its embedded Redis, in a fresh directory), a table
is seated as the benchmark seats it (``bench.loadgen``: the GM, 4 players of one pony each, 2
spectators, 2 NPCs of the GM's, a fixed ``dice_seed``) and the current combatant's controller
ends its turn, following the real turn order, ``--turns`` times after 7 turns of warm-up. Each
websocket message every client receives is counted, by the viewer it went to and by the
server message it carries: a ``batch``'s messages each by their type (an ``event`` by
``event:<kind>``), what the batch adds around them as ``batch``, the websocket frame's header
as ``framing`` (as the benchmark counts the bytes received).

Viewers: the GM; the *acting* player, whose combatant's turn the end of turn began; the
*waiting* players, the others (all 4 when an NPC's turn began); the spectators. Figures are
per end of turn: for a kind of viewer, what one connection of that kind got on average, and
the table's total. Deterministic: the same code gives the same bytes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import tempfile
import uuid
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
from websockets.asyncio.client import ClientConnection, connect

from bench.loadgen import COMBATANTS, DICE_SEED, NPCS, PCS
from clients.client import REFERENCE_FEATURES

KINDS = ("gm", "acting", "waiting", "spectator")


class Counted:
    """One client: what it received, counted by message type; the turns it saw begin."""

    def __init__(self, ws: ClientConnection, role: str) -> None:
        self.ws = ws
        self.role = role
        self.bytes: dict[str, int] = defaultdict(int)
        self.turns = 0
        self.current: str | None = None
        self.replies: dict[str, dict[str, Any]] = {}
        self.changed = asyncio.Event()
        self.reader = asyncio.get_running_loop().create_task(self._read())

    async def _read(self) -> None:
        with contextlib.suppress(Exception):
            async for raw in self.ws:
                data = raw.encode() if isinstance(raw, str) else raw
                frame = orjson.loads(data)
                inner = frame["messages"] if frame.get("type") == "batch" else [frame]
                # the frame's header (RFC 6455, 5.2: unmasked from a server)
                self.bytes["framing"] += 2 if len(data) < 126 else 4 if len(data) < 65536 else 10
                if frame.get("type") == "batch":
                    self.bytes["batch"] += len(data) - sum(len(orjson.dumps(m)) for m in inner)
                for m in inner:
                    t = m.get("type", "?")
                    if t == "event":
                        kind = m["event"].get("kind", "?")
                        self.bytes[f"event:{kind}"] += len(orjson.dumps(m))
                        if kind == "turn_started":
                            self.turns += 1
                            self.current = m["event"].get("combatant")
                    else:
                        self.bytes[t] += len(orjson.dumps(m))
                    if t in ("ack", "error") and m.get("id"):
                        self.replies[m["id"]] = m
                    if t == "welcome":
                        self.replies["welcome"] = m
                self.changed.set()

    async def until(self, test: Any, timeout: float = 10) -> None:
        async def wait() -> None:
            while not test():
                self.changed.clear()
                await self.changed.wait()
        await asyncio.wait_for(wait(), timeout)

    async def request(self, message: dict[str, Any]) -> dict[str, Any]:
        await self.ws.send(orjson.dumps(message).decode())
        cid = message.get("id", "welcome")
        await self.until(lambda: cid in self.replies)
        reply = self.replies.pop(cid)
        if reply.get("type") == "error":
            raise RuntimeError(f"{message.get('type')}: {reply}")
        return reply


async def _open(url: str, role: str, token: str | None, features: Sequence[str]) -> Counted:
    ws = await connect(url, compression=None, max_size=None)
    c = Counted(ws, role)
    hello: dict[str, Any] = {"type": "hello", "versions": [1], "client": "bench.wirebytes",
                             "features": list(features)}
    if token is not None:
        hello["token"] = token
    await c.request(hello)
    return c


async def measure(url: str, features: Sequence[str], turns: int = 28,
                  warmup: int = 7) -> dict[str, Any]:
    """Seat a table of seven at ``url``, play ``warmup`` then ``turns`` ends of turn; the bytes
    per end of turn by viewer and by message type."""
    admin = await _open(url, "admin", None, ())
    created = await admin.request({
        "type": "create_encounter", "id": str(uuid.uuid4()), "name": "Bytes",
        "ruleset": "dramatic", "options": {"dice_seed": DICE_SEED}, "combatants": COMBATANTS})
    await admin.ws.close()
    gm_token = created["result"]["gm_token"]
    gm = await _open(url, "gm", gm_token, features)
    players: dict[str, Counted] = {}
    for cid, _name, _init in PCS:
        invite = await gm.request({"type": "issue_invite", "id": f"i-{cid}",
                                   "combatants": [cid]})
        players[cid] = await _open(url, "player", invite["result"]["token"], features)
    link = await gm.request({"type": "issue_spectator_link", "id": "link", "label": "overlay"})
    spectators = [await _open(url, "spectator", link["result"]["token"], features)
                  for _ in range(2)]
    everyone = [gm, *players.values(), *spectators]
    controller = {**players, **{cid: gm for cid, _n, _i in NPCS}}
    await gm.request({"type": "start_encounter", "id": "start"})
    await gm.until(lambda: gm.current is not None)
    totals: dict[str, dict[str, int]] = {k: defaultdict(int) for k in KINDS}
    count: dict[str, int] = defaultdict(int)
    for n in range(warmup + turns):
        current = gm.current
        assert current is not None
        before = [dict(c.bytes) for c in everyone]
        seen = [c.turns for c in everyone]
        await controller[current].request({"type": "act", "id": f"a{n}", "combatant": current,
                                           "action": "end_turn"})
        for c, k in zip(everyone, seen, strict=True):
            await c.until(lambda c=c, k=k: c.turns > k)
        # (each client's batch of the change arrives whole: nothing more is on its way; the
        # pause keeps the GM, who ends a third of the turns, under the rate limit)
        await asyncio.sleep(0.025)
        if n < warmup:
            continue
        acting = players.get(gm.current or "")
        for c, was in zip(everyone, before, strict=True):
            kind = c.role if c.role in ("gm", "spectator") else \
                "acting" if c is acting else "waiting"
            count[kind] += 1
            for t, b in c.bytes.items():
                totals[kind][t] += b - was.get(t, 0)
    for c in everyone:
        await c.ws.close()
        c.reader.cancel()
    per_kind = {k: {t: round(b / count[k], 1) for t, b in sorted(v.items()) if b}
                for k, v in totals.items() if count[k]}
    per_conn = {k: round(sum(v.values()), 1) for k, v in per_kind.items()}
    table = {k: round(sum(totals[k].values()) / turns, 1) for k in KINDS if count[k]}
    by_type: dict[str, float] = defaultdict(float)
    for v in totals.values():
        for t, b in v.items():
            group = "event" if t.startswith("event:") else t
            if b:
                by_type[group] += b / turns
    return {"features": list(features), "turns": turns,
            "per_action": round(sum(table.values()), 1),
            "per_action_by_viewer": table,
            "per_connection_by_viewer": per_conn,
            "per_action_by_type": {t: round(b, 1) for t, b in
                                   sorted(by_type.items(), key=lambda kv: -kv[1])},
            "per_connection_by_viewer_and_type": per_kind}


async def _serve_and_measure(features: Sequence[str], turns: int) -> dict[str, Any]:
    from server.app import Server
    from server.config import Settings

    with tempfile.TemporaryDirectory(prefix="sm-wirebytes-") as tmp:
        server = Server(Settings(host="127.0.0.1", port=0, data_dir=Path(tmp),
                                 secret="bench-wirebytes"))
        await server.start()
        try:
            return await measure(f"ws://127.0.0.1:{server.settings.port}/ws", features, turns)
        finally:
            await server.stop()


def render(result: dict[str, Any]) -> str:
    out = [f"features: {', '.join(result['features']) or 'none'}; "
           f"{result['per_action']:.0f} bytes per end of turn for the table"]
    names = {"gm": "GM", "acting": "acting player", "waiting": "waiting player",
             "spectator": "spectator"}
    for k, v in result["per_connection_by_viewer"].items():
        parts = ", ".join(f"{t} {b:.0f}" for t, b in
                          result["per_connection_by_viewer_and_type"][k].items())
        out.append(f"  {names[k]}: {v:.0f} per connection ({parts})")
    out.append("  by type (table): " + ", ".join(
        f"{t} {b:.0f}" for t, b in result["per_action_by_type"].items()))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.wirebytes", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--features", default=",".join(REFERENCE_FEATURES),
                        help="comma-separated features the clients ask for (default: the "
                        "reference clients')")
    parser.add_argument("--turns", type=int, default=28)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args(argv)
    features = [f for f in args.features.split(",") if f]
    result = asyncio.run(_serve_and_measure(features, args.turns))
    print(render(result))
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
