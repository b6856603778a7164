"""Fuzzing the protocol: over 10,000 frames against a real server process, none answered
``internal_error``, no connection closed with 1011, and no refused frame in the log.

Frames are made from ``docs/protocol/client-messages.schema.json`` (with the encounter's real
combatant ids, token ids, roll requests and statements, and the actions ``legal_actions``
offers, so that many commands go through and reach the rules), then mutated: fields dropped,
added, retyped, pushed to extreme numbers, odd unicode, nested deep, made huge; YAML stat
blocks with alias bombs, tags and deep nesting; and the serialized text truncated, spliced
or replaced (binary frames, other JSON values, numbers out of range). They go in batches over
real websockets, on connections before ``hello`` and as GM, player, spectator (also by URL,
with fuzzed ``spectate`` and ``since``) and integration, several at once.

Each connection's commands are answered one by one in order, so every reply (``ack``,
``error`` or ``welcome``) belongs to a known frame. At the end every event in every log the
run touched must come from a command that was acknowledged (or whose answer was lost with its
connection), never from one that was refused; the server must still serve, and its log must
hold no traceback. The seed is fixed, so every run draws its frames the same way (what they
take from the server — ids, tokens, the legal actions of the moment — differs from run to
run, and so does the order in which the server visits sets: ``python3 dev.py test`` prints the
``PYTHONHASHSEED`` it ran with, to run a failure again with the same one).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import string
import time
import urllib.request
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import orjson
import pytest
import yaml
from redis.asyncio import Redis
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus, InvalidURI

from clients.client import Client, CommandError
from protocol.errors import ErrorCode
from server import web
from server.store import keys
from tests.conftest import ROOT
from tests.redis_procs import RedisProcess

#: Fixed, as the property tests' examples are; ``STABLEMASTER_FUZZ_SEED=<n>`` replays another
#: run, and ``STABLEMASTER_EXPLORE=1`` draws a new one (printed with the results).
SEED = int(os.environ.get("STABLEMASTER_FUZZ_SEED") or (
    random.SystemRandom().randrange(2**32) if os.environ.get("STABLEMASTER_EXPLORE")
    else 20261201))
#: Frames sent in all (spread over the workers); URL connections come on top.
FRAMES = 21_600
#: Frames a worker sends before it reads their answers.
BATCH = 40
SCHEMA = json.loads((ROOT / "docs/protocol/client-messages.schema.json").read_text())
DEFS: dict[str, Any] = SCHEMA["$defs"]
COMMANDS = [ref["$ref"].rsplit("/", 1)[1] for ref in SCHEMA["anyOf"]]
CODES = {c.value for c in ErrorCode}
#: Close codes a fuzzed connection may end with: normal, unsupported version, its credential
#: revoked or expired (the fuzzed GM revokes and issues), no hello in time.
EXPECTED_CLOSES = {1000, 1002, 4001, 4002}

ODD_STRINGS = [
    "", " ", "\u200b", "\u202e" + "evil", "a\u0301\u0301\u0301", "😀" * 20, "²", "٣", "\uff19",
    "\x00", "\x1f\x7f", "\ufeff", "null", "None", "../../etc/passwd", "'; DROP TABLE x; --",
    "%s%n", "${jndi:ldap://x}", "\\u0000", "\U0001d54f" * 30,
    "\uff54\uff57\uff49\uff4c\uff49\uff47\uff48\uff54", "TWILIGHT", "d7", "1d20+",
    "999d999", "1d0", "-1", "1e309", "NaN", "Infinity", "dog\n", "\t", "\r\n", "x" * 41,
    "x" * 200, "€" * 300,
]
EXTREME_NUMBERS = [0, -1, 1, 2**31, 2**53, 2**63 - 1, 2**63, 2**64, -(2**63) - 1, 10**30,
                   -(10**30), 1e308, -1e308, 1e-308, 0.5, -0.0, 3.7]
ARG_KEYS = ["target", "weapon", "path", "argument", "answer", "to", "at", "maneuver",
            "ability", "spell", "lie", "mode", "statement", "x", "y", "squares", "faces",
            "with", "against", "reason"]
COMBATANT_FIELDS = {"combatant", "target", "holder", "toward", "organizer", "first", "second"}
#: How often each command is made, against 1 for the others: those that end the encounter or
#: take its combatants and credentials away are rare, so that the rest reach the rules.
WEIGHTS = {"EndEncounter": 0.03, "RemoveCombatant": 0.1, "RevokeToken": 0.1, "SetMap": 0.3,
           "CreateEncounter": 0.6, "StartEncounter": 2, "Act": 3, "SubmitRoll": 2,
           "ServerRoll": 2}


@dataclass
class Vocab:
    """What a worker has learnt of its encounter, to make frames the server may accept."""

    combatants: list[str] = field(default_factory=list)
    token_ids: list[str] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    arguments: list[str] = field(default_factory=list)
    effects: list[str] = field(default_factory=list)

    def learn(self, message: dict[str, Any]) -> None:
        if message.get("type") == "event":
            self._harvest(message.get("event") or {})
        elif message.get("type") == "ack":
            self._harvest(message.get("result") or {})
        elif message.get("type") == "snapshot":
            state = message.get("state") or {}
            for c in state.get("combatants") or []:
                self._add(self.combatants, c.get("id"))
            for p in state.get("pending_rolls") or []:
                self._add(self.requests, p.get("request"))
            for aid in state.get("arguments") or {}:
                self._add(self.arguments, aid)

    def _harvest(self, data: dict[str, Any]) -> None:
        for name, target in (("request", self.requests), ("argument", self.arguments),
                             ("effect", self.effects), ("token_id", self.token_ids),
                             ("token", self.tokens)):
            self._add(target, data.get(name))
        combatant = data.get("combatant")
        if isinstance(combatant, dict):
            self._add(self.combatants, combatant.get("id"))

    @staticmethod
    def _add(target: list[str], value: Any) -> None:
        if isinstance(value, str) and value not in target and len(target) < 200:
            target.append(value)


class Maker:
    """Frames from the schema, with realistic values, then mutated."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        data = yaml.safe_load(web.example_text("dramatic-ponies-vs-diamond-dogs.yaml"))
        self.blocks: list[dict[str, Any]] = data["combatants"]
        at = yaml.safe_load(web.example_text("action-time-ponies-vs-diamond-dogs.yaml"))
        self.blocks += at["combatants"]
        party = yaml.safe_load(web.example_text("dramatic-canterlot-garden-party.yaml"))
        self.blocks += party["combatants"]

    # -- values ----------------------------------------------------------------------------

    def text(self, low: int = 0, high: int = 12) -> str:
        r = self.rng
        if r.random() < 0.15:
            return r.choice(ODD_STRINGS)
        n = r.randint(low, max(low, high))
        return "".join(r.choice(string.ascii_lowercase + "-_ ") for _ in range(n))

    def any_json(self, depth: int = 0) -> Any:
        r = self.rng
        kind = r.random()
        if depth > 3 or kind < 0.35:
            return r.choice([None, True, False, r.choice(EXTREME_NUMBERS), r.randint(-5, 30),
                             self.text(), r.choice(ODD_STRINGS)])
        if kind < 0.65:
            return [self.any_json(depth + 1) for _ in range(r.randint(0, 4))]
        return {self.text(1, 8) if r.random() < 0.3 else r.choice(ARG_KEYS):
                self.any_json(depth + 1) for _ in range(r.randint(0, 4))}

    def pick(self, items: list[str], fallback: str = "") -> str:
        if items and self.rng.random() < 0.85:
            return self.rng.choice(items)
        return fallback or self.text(1, 10)

    def string_for(self, name: str, node: dict[str, Any], vocab: Vocab) -> str:
        r = self.rng
        if name in COMBATANT_FIELDS:
            return self.pick(vocab.combatants)
        if name == "token_id":
            return self.pick(vocab.token_ids)
        if name == "request":
            return self.pick(vocab.requests)
        if name in ("argument",):
            return self.pick(vocab.arguments)
        if name == "effect":
            return self.pick(vocab.effects)
        if name == "id":
            return "".join(r.choice("0123456789abcdef") for _ in range(r.randint(16, 36)))
        if name == "damage" or name == "expr":
            return r.choice(["1d6", "2d8+1", "d20", "", "1d", "99999d99999"])
        low, high = node.get("minLength", 0), min(node.get("maxLength", 24), 24)
        if "pattern" in node:
            return self.pick(vocab.combatants, "c" + self.text(0, 8).replace(" ", ""))
        return self.text(low, high)

    def value(self, node: dict[str, Any], name: str, vocab: Vocab, depth: int = 0) -> Any:
        r = self.rng
        if "$ref" in node:
            return self.value(DEFS[node["$ref"].rsplit("/", 1)[1]], name, vocab, depth)
        if "anyOf" in node:
            options = node["anyOf"]
            non_null = [o for o in options if o.get("type") != "null"]
            if non_null and r.random() < 0.8:
                return self.value(r.choice(non_null), name, vocab, depth)
            return self.value(r.choice(options), name, vocab, depth)
        if "enum" in node:
            return r.choice(node["enum"])
        if "const" in node:
            return node["const"]
        kind = node.get("type")
        if kind == "null":
            return None
        if kind == "boolean":
            return r.random() < 0.5
        if kind == "integer":
            low, high = node.get("minimum", -10), node.get("maximum", 60)
            if r.random() < 0.1:
                return r.choice([low, high])
            return r.randint(int(low), int(min(high, low + 60)))
        if kind == "number":
            return round(r.uniform(node.get("minimum", 0), node.get("maximum", 30)), 2)
        if kind == "string":
            return self.string_for(name, node, vocab)
        if kind == "array":
            if "prefixItems" in node:
                return [self.value(item, name, vocab, depth + 1) for item in node["prefixItems"]]
            low = node.get("minItems", 0)
            high = min(node.get("maxItems", 3), max(low, 3))
            item = node.get("items") or {}
            return [self.value(item, name, vocab, depth + 1) for _ in range(r.randint(low, high))]
        if kind == "object" or "properties" in node:
            if "properties" not in node:
                if name == "stats":
                    return self.stats()
                if name == "args":
                    return self.any_json(1) if r.random() < 0.3 else {}
                extra = node.get("additionalProperties")
                if isinstance(extra, dict):
                    return {self.text(1, 8): self.value(extra, name, vocab, depth + 1)
                            for _ in range(r.randint(0, 3))}
                return self.any_json(depth + 1)
            out: dict[str, Any] = {}
            required = set(node.get("required", []))
            for prop, sub in node["properties"].items():
                if prop in required or r.random() < 0.35:
                    out[prop] = self.value(sub, prop, vocab, depth + 1)
            return out
        return self.any_json(depth)

    def stats(self) -> dict[str, Any]:
        r = self.rng
        block = r.choice(self.blocks)
        stats: dict[str, Any] = json.loads(json.dumps(block.get("stats") or {}))
        if stats and r.random() < 0.6:
            key = r.choice(list(stats))
            stats[key] = r.choice([self.any_json(2), r.choice(EXTREME_NUMBERS),
                                   r.choice(ODD_STRINGS), None, {"reputation": "x"}])
        if r.random() < 0.2:
            stats["social"] = r.choice([{"reputation": r.choice(EXTREME_NUMBERS)},
                                        {"temporary": [{"bonus": -1}]}, {"talents": {"a": 1}},
                                        self.any_json(1)])
        return stats

    # -- messages --------------------------------------------------------------------------

    def message(self, vocab: Vocab, legal: list[dict[str, Any]], token: str | None,
                before_hello: bool) -> dict[str, Any]:
        r = self.rng
        if before_hello and r.random() < 0.3:
            return self.hello(vocab, token)
        if legal and r.random() < 0.45:
            return self.legal_act(legal)
        name = r.choices(COMMANDS, [WEIGHTS.get(c, 1) for c in COMMANDS])[0]
        if name == "CreateEncounter" and r.random() < 0.6:
            return self.create(vocab)
        message: dict[str, Any] = self.value(DEFS[name], "", vocab)
        return message

    def hello(self, vocab: Vocab, token: str | None) -> dict[str, Any]:
        r = self.rng
        message: dict[str, Any] = {"type": "hello", "versions": r.choice([[1], [1, 2], [0, 1],
                                                                          [2], [99]])
                                   if r.random() < 0.3 else [1]}
        roll = r.random()
        if roll < 0.4 and (token or vocab.tokens):
            message["token"] = token if token and r.random() < 0.5 else r.choice(vocab.tokens
                                                                                 or [token])
        elif roll < 0.6:
            message["token"] = self.text(0, 60)
        if r.random() < 0.2:
            message["since"] = r.choice([0, 1, 5, 10**6, 2**63 - 1])
        return message

    def legal_act(self, legal: list[dict[str, Any]]) -> dict[str, Any]:
        r = self.rng
        action = r.choice([a for a in legal if a["action"] != "end_encounter"] or legal)
        args: dict[str, Any] = {}
        for arg, values in (action.get("options") or {}).items():
            if values:
                args[arg] = r.choice(values)
        if action.get("targets"):
            args.setdefault("target", r.choice(action["targets"]))
        if action["action"] in ("start_encounter", "end_encounter"):
            return {"type": action["action"], "id": self.string_for("id", {}, Vocab())}
        if action["action"] in ("submit_roll", "server_roll"):
            request = (action.get("targets") or [""])[0]
            if action["action"] == "server_roll":
                return {"type": "server_roll", "id": self.string_for("id", {}, Vocab()),
                        "request": request}
            return {"type": "submit_roll", "id": self.string_for("id", {}, Vocab()),
                    "request": request, "faces": [r.randint(0, 21) for _ in range(r.randint(1, 3))]}
        return {"type": "act", "id": self.string_for("id", {}, Vocab()),
                "combatant": action.get("combatant") or "", "action": action["action"],
                "args": args}

    def create(self, vocab: Vocab) -> dict[str, Any]:
        r = self.rng
        message: dict[str, Any] = {"type": "create_encounter",
                                   "id": self.string_for("id", {}, vocab), "name": self.text(1, 20),
                                   "ruleset": r.choice(["dramatic", "action_time"])}
        choice = r.random()
        if choice < 0.35:
            message["combatants_yaml"] = self.yaml_text()
        else:
            blocks = [json.loads(json.dumps(r.choice(self.blocks)))
                      for _ in range(r.randint(0, 3))]
            for block in blocks:
                if r.random() < 0.5:
                    block["stats"] = self.stats()
                block.pop("id", None) if r.random() < 0.5 else None
            message["combatants"] = blocks
        return message

    def yaml_text(self) -> str:
        r = self.rng
        choice = r.random()
        if choice < 0.25:  # aliases, a few or a bomb
            levels, width = r.randint(1, 9), r.randint(1, 9)
            lines = ["- name: Bomb", "  stats:", "    social:", "      l0: &l0 lol"]
            for i in range(1, levels + 1):
                lines.append(f"      l{i}: &l{i} [" + ",".join([f"*l{i - 1}"] * width) + "]")
            return "\n".join(lines) + "\n"
        if choice < 0.35:
            return r.choice(["&a [*a]", "- &x {name: a, stats: *x}",
                             "- !!python/object:os.system x",
                             "- name: !!binary aGVsbG8=", "- {name: x, stats: {note: 2024-01-01}}",
                             "- {name: x, stats: {str: .inf}}", "- {name: x, ? [a] : b}",
                             "---\n- a\n---\n- b", "- name: x\n\t- tab", "*undefined",
                             "- {name: x, stats: {str: 0x7fffffffffffffffff}}"])
        if choice < 0.45:
            n = r.randint(30, 3000)
            return "[" * n + "]" * n
        blocks = [json.loads(json.dumps(r.choice(self.blocks))) for _ in range(r.randint(1, 3))]
        for block in blocks:
            if r.random() < 0.5:
                block["stats"] = self.stats()
        text = yaml.safe_dump(blocks, allow_unicode=True)
        if r.random() < 0.3:
            cut = r.randint(0, len(text))
            text = text[:cut] + r.choice(["", ":", "&", "*", "[", "{", "\n  - ", "!!"]) + text[cut:]
        return text

    # -- mutation --------------------------------------------------------------------------

    def mutate(self, message: dict[str, Any], keep: float = 0.4) -> str | bytes:
        """``message`` as sent: unchanged with probability ``keep``, else mutated."""
        r = self.rng
        roll = r.random()
        if roll < keep:
            return dump(message)
        if roll < keep + (1 - keep) / 2:
            self.mutate_fields(message)
            return dump(message, ascii_only=r.random() < 0.3)
        return self.mutate_text(message)

    def mutate_fields(self, message: dict[str, Any]) -> None:
        r = self.rng
        for _ in range(r.randint(1, 3)):
            target = message
            keys_ = list(target)
            # sometimes one level down
            nested = [k for k in keys_ if isinstance(target[k], dict) and target[k]]
            if nested and r.random() < 0.3:
                target = target[r.choice(nested)]
                keys_ = list(target)
            op = r.random()
            if not keys_ or op < 0.12:
                target[r.choice([*ARG_KEYS, "extra", "type", "id"])] = self.any_json(1)
            elif op < 0.25:
                del target[r.choice(keys_)]
            elif op < 0.45:
                target[r.choice(keys_)] = self.any_json(1)
            elif op < 0.60:
                target[r.choice(keys_)] = r.choice(EXTREME_NUMBERS)
            elif op < 0.75:
                target[r.choice(keys_)] = r.choice(ODD_STRINGS)
            elif op < 0.85:
                key = r.choice(keys_)
                value: Any = target[key]
                for _ in range(r.randint(20, 200)):  # deeper ones: mutate_text
                    value = [value] if r.random() < 0.5 else {"a": value}
                target[key] = value
            elif op < 0.92:
                target[r.choice(keys_)] = "x" * r.randint(1000, 70_000)
            else:
                message["type"] = r.choice(["", "HELLO", "Act", "act ", None, 7, "__proto__",
                                            "constructor", r.choice(COMMANDS)])

    def mutate_text(self, message: dict[str, Any]) -> str | bytes:
        r = self.rng
        text = dump(message)
        op = r.random()
        if op < 0.25:
            return text[:r.randint(0, len(text))]
        if op < 0.40:
            i = r.randint(0, len(text))
            return text[:i] + r.choice(['"', "{", "}", "[", "]", ",", ":", "\\", "\\u",
                                        "\\ud800", "\\udfff\\ud800", "\x00", "€", "😀",
                                        " ", "null"]) + text[i:]
        if op < 0.50:
            return r.choice([b"", b"\x00\xff", text.encode(), b"\x81\x80" * 100])
        if op < 0.60:
            return r.choice(["", " ", "null", "true", "1", "-0", "1e999999", "[]", "{}",
                             '"hello"', "[" * 30000, '{"type":"ping","id":"x"}' * 3,
                             "\ufeff" + text, text + " trailing", text.replace(":", ": ", 3),
                             '{"type":"ping","type":"hello","id":"dup","versions":[1]}',
                             '{"type":"ping","id":"d","id":"e"}', "NaN", "Infinity",
                             '{"type":"hello","versions":[1e400]}',
                             '{"type":"ping","id":' + "9" * 5000 + "}"])
        if op < 0.75:
            depth = r.randint(30, 30_000)
            opener, closer = r.choice([("[", "]"), ('{"a":', "}")])
            core = opener * depth + "1" + closer * depth
            return '{"type":"act","id":"deep","combatant":"x","action":"y","args":' + \
                ('{"a":' + core + "}" if opener == "[" else core) + "}"
        if op < 0.88:
            pad = r.choice(["x", "€", "😀"]) * r.randint(10_000, 80_000)
            message["pad"] = pad
            return dump(message)
        return text.replace('"', "'", 1) if r.random() < 0.5 else text.upper()


def dump(message: Any, ascii_only: bool = False) -> str:
    """JSON text of ``message``; the standard library's for integers past 64 bits."""
    if not ascii_only:
        try:
            return orjson.dumps(message).decode()
        except (TypeError, orjson.JSONEncodeError):
            pass
    return json.dumps(message, ensure_ascii=ascii_only)


@dataclass
class Stats:
    frames: int = 0
    replies: int = 0
    acks: int = 0
    acked_types: dict[str, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    closes: dict[int, int] = field(default_factory=dict)
    url_connections: int = 0
    acked: set[str] = field(default_factory=set)
    refused: set[str] = field(default_factory=set)
    unknown: set[str] = field(default_factory=set)
    created: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)
    #: hidden turns the GM of ``keep_the_screen`` ended
    screen_turns: int = 0


def _parsed(frame: str | bytes | None) -> dict[str, Any] | None:
    if frame is None or isinstance(frame, bytes):
        return None
    try:
        data = orjson.loads(frame)
    except orjson.JSONDecodeError:
        return None
    return data if isinstance(data, dict) and isinstance(data.get("id"), str) else None


def frame_id(frame: str | bytes | None) -> str | None:
    data = _parsed(frame)
    return None if data is None else str(data["id"])


def dedupe_key(frame: str | bytes | None, token_id: str | None) -> str | None:
    """The key the server would record the frame's command under, if it is a command."""
    data = _parsed(frame)
    if data is None:
        return None
    if data.get("type") == "create_encounter":
        return f"create:{data['id']}"
    return f"{token_id}:{data['id']}" if token_id else None


class Worker:
    def __init__(self, name: str, url: str, role: str, token: str | None, vocab: Vocab,
                 rng: random.Random, stats: Stats) -> None:
        self.name, self.url, self.role, self.token = name, url, role, token
        self.vocab, self.stats = vocab, stats
        self.maker = Maker(rng)
        self.rng = rng
        self.ws: ClientConnection | None = None
        self.token_id: str | None = None
        self.legal: list[dict[str, Any]] = []

    async def open(self) -> None:
        self.token_id, self.legal = None, []
        if self.role == "url":
            await self.open_url()
            return
        # max_queue=None: what the server sends between batches must not stop this client
        # from reading (a client that stops reading cannot finish a close handshake)
        self.ws = await connect(self.url, compression=None, max_size=2**24, max_queue=None,
                                open_timeout=20)
        if self.role != "pre" and self.token:
            await self.ws.send(orjson.dumps({"type": "hello", "versions": [1],
                                             "token": self.token}).decode())
            await self.read_replies(1, [None])

    async def open_url(self) -> None:
        r = self.rng
        while True:
            spectate = self.token if self.token and r.random() < 0.7 else \
                self.maker.text(1, 60) or "x"
            query = f"spectate={quote(spectate)}"
            if r.random() < 0.6:
                since = r.choice(["0", "3", "²", "٣", "-1", "1e3", "0x10", " 1", "9" * 30,
                                  "", "1&since=2", "%00", "🙂", str(r.randint(0, 40))])
                query += f"&since={quote(since, safe='&=')}"
            if r.random() < 0.1:
                query += "&spectate=" + quote(self.maker.text(1, 30) or "y")
            self.stats.url_connections += 1
            try:
                self.ws = await connect(f"{self.url}?{query}", compression=None,
                                        max_size=2**24, max_queue=None)
            except (InvalidURI, InvalidStatus) as exc:  # not a URL websockets will send
                self.stats.problems.append(f"{self.name}: URL refused: {exc}")
                continue
            break
        if "spectate=" in query and not query.startswith("spectate=&"):
            await self.read_replies(1, [None])  # the server's own hello answers first

    async def run(self, frames: int) -> None:
        await self.open()
        sent = 0
        while sent < frames:
            if self.role == "url" and self.rng.random() < 0.1:
                await self.reopen()
            acting = self.role in ("gm", "player", "integration")
            keep = 0.6 if acting else 0.3
            # those who act read their legal actions often, to act on what is legal now
            size = BATCH // 4 if acting else BATCH
            batch = [self.maker.mutate(self.maker.message(
                self.vocab, self.legal, self.token, before_hello=self.token_id is None), keep)
                for _ in range(min(size, frames - sent))]
            sent += len(batch)
            self.stats.frames += len(batch)
            assert self.ws is not None
            try:
                for frame in batch:
                    await self.ws.send(frame)
            except ConnectionClosed:
                pass
            await self.read_replies(len(batch), batch)
            if self.ws is None or self.ws.close_code is not None:
                await self.reopen()

    async def reopen(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.note_close(self.ws)
        await self.open()

    def note_close(self, ws: ClientConnection) -> None:
        code = ws.close_code if ws.close_code is not None else 1006
        self.stats.closes[code] = self.stats.closes.get(code, 0) + 1
        if code not in EXPECTED_CLOSES:
            self.stats.problems.append(f"{self.name} ({self.role}): closed with {code} "
                                       f"{ws.close_reason!r}")

    async def read_replies(self, n: int, batch: list[Any]) -> None:
        """Read until ``n`` replies have come (or the connection closed), checking each."""
        assert self.ws is not None
        got = 0
        try:
            async with asyncio.timeout(60):
                while got < n:
                    message = orjson.loads(await self.ws.recv())
                    kind = message.get("type")
                    self.vocab.learn(message)
                    if kind == "legal_actions":
                        self.legal = message.get("actions") or []
                    if kind not in ("ack", "error", "welcome"):
                        continue
                    self.check(batch[got], message)
                    got += 1
        except ConnectionClosed:
            for frame in batch[got:]:
                key = dedupe_key(frame, self.token_id) if frame is not None else None
                if key:
                    self.stats.unknown.add(key)
        except TimeoutError:
            self.stats.problems.append(f"{self.name}: {n - got} frames unanswered after 60 s: "
                                       f"{str(batch[got])[:300]!r}")

    def check(self, frame: str | bytes | None, reply: dict[str, Any]) -> None:
        stats = self.stats
        stats.replies += 1
        kind = reply["type"]
        if kind == "welcome":
            if reply.get("token_id"):
                self.token_id = reply["token_id"]
            return
        key = dedupe_key(frame, self.token_id) if frame is not None else None
        sent_id = frame_id(frame)
        if reply.get("id") is not None and sent_id is not None and reply["id"] != sent_id:
            stats.problems.append(f"{self.name}: reply {reply['id']!r} out of order, for "
                                  f"{str(frame)[:300]!r}")
        if kind == "ack":
            stats.acks += 1
            data = _parsed(frame)
            kind_sent = str(data.get("type") if data else "?")
            if data and data.get("type") == "act":
                kind_sent = f"act:{data.get('action')}"
            stats.acked_types[kind_sent] = stats.acked_types.get(kind_sent, 0) + 1
            if key:
                stats.acked.add(key)
            encounter = (reply.get("result") or {}).get("encounter")
            if isinstance(encounter, str):
                stats.created.add(encounter)
            return
        code = reply.get("code")
        stats.errors[code] = stats.errors.get(code, 0) + 1
        if key:
            stats.refused.add(key)
        if code not in CODES or code == ErrorCode.INTERNAL.value:
            shown = frame if isinstance(frame, bytes) else (frame or "")[:400]
            stats.problems.append(f"{self.name} ({self.role}): {code}: {reply.get('message')} "
                                  f"for {shown!r}")


async def setup_table(url: str, example: str, ruleset: str) -> dict[str, Any]:
    """An encounter from a shipped example, with a credential per role, for the workers."""
    data = yaml.safe_load(web.example_text(example))
    async with Client.connect(url) as anon:
        await anon.hello()
        ack = await anon.command("create_encounter", name=data["name"], ruleset=ruleset,
                                 combatants_yaml=web.example_text(example),
                                 map=web.example_map(data))
    result = ack["result"]
    setup = {f"create:{ack['id']}"}
    gm = await Client.open(url)
    await gm.hello(result["gm_token"])
    pcs = [c["id"] for c in data["combatants"] if c.get("kind") == "pc"]
    player = await gm.command("issue_invite", combatants=pcs[:2])
    spectator = await gm.command("issue_spectator_link")
    integration = await gm.command("issue_integration_token",
                                   scopes=["view:public", "command:players", "roll"])
    setup |= {f"{result['token_id']}:{a['id']}" for a in (player, spectator, integration)}
    await gm.close()
    vocab = Vocab(combatants=[c.get("id") or c["name"].lower() for c in data["combatants"]])
    return {"encounter": result["encounter"], "vocab": vocab, "setup": setup,
            "tokens": {"gm": result["gm_token"], "player": player["result"]["token"],
                       "spectator": spectator["result"]["token"],
                       "integration": integration["result"]["token"]}}


async def keep_the_screen(url: str, token: str, stats: Stats, done: asyncio.Event) -> None:
    """The GM of one table, ending the hidden turns the fuzzing leaves running (rolling the
    server's dice they wait for): a table connection's ack that leads into a hidden turn,
    and every reply after it, wait until the table is told what follows."""
    n = 0
    while not done.is_set():
        await asyncio.sleep(0.3)
        try:
            async with Client.connect(url, open_timeout=20) as gm:
                try:
                    welcome = await gm.hello(token)
                except CommandError:
                    return  # (the fuzzing revoked the GM's credential)
                state = (await gm.wait_for(lambda m: m["type"] == "snapshot"))["state"]
                hidden = {c["id"] for c in state["combatants"] if c["hidden"]}
                turn = state["turn"] or {}
                if state["ended"]:
                    continue
                if turn.get("interrupted_by") in hidden:
                    # a hidden readier's action interrupts the turn: the GM reveals it
                    steps = [("set_hidden", {"combatant": turn["interrupted_by"],
                                             "hidden": False})]
                elif state["current"] in hidden:
                    steps = [("server_roll", {"request": r["request"]})
                             for r in state["pending_rolls"]]
                    steps.append(("act", {"combatant": state["current"],
                                          "action": "end_turn"}))
                    # (a turn that cannot end: the GM reveals its combatant)
                    steps.append(("set_hidden", {"combatant": state["current"],
                                                 "hidden": False}))
                else:
                    continue
                for kind, fields in steps:
                    n += 1
                    cid = f"screen-{n}"
                    key = f"{welcome['token_id']}:{cid}"
                    stats.unknown.add(key)
                    try:
                        await gm.command(kind, id=cid, **fields)
                    except CommandError:
                        stats.refused.add(key)
                        stats.unknown.discard(key)
                        continue
                    stats.acked.add(key)
                    stats.unknown.discard(key)
                    if kind != "server_roll":
                        stats.screen_turns += 1
                        break
        except (ConnectionClosed, OSError, TimeoutError):
            continue


async def logged_commands(redis: Redis, encounter: str) -> list[str | None]:
    rows = await redis.xrange(keys(encounter)["events"])
    return [orjson.loads(fields[b"e"]).get("cmd") for _id, fields in rows]


@pytest.mark.timeout(240)
async def test_fuzzed_frames_never_get_internal_error_nor_change_the_log(
        spawn: Any, redis_server: RedisProcess) -> None:
    proc = spawn(None, "--commands-per-second", "1000000", "--command-burst", "1000000",
                 "--hello-timeout", "4")
    url = proc.url
    tables = [await setup_table(url, "dramatic-ponies-vs-diamond-dogs.yaml", "dramatic"),
              await setup_table(url, "dramatic-canterlot-garden-party.yaml", "dramatic"),
              await setup_table(url, "action-time-ponies-vs-diamond-dogs.yaml", "action_time")]
    setup_keys = set().union(*(t["setup"] for t in tables))
    stats = Stats()
    rng = random.Random(SEED)
    workers = []
    for i, table in enumerate(tables):
        for role in ("gm", "player", "spectator", "integration", "url"):
            token = table["tokens"]["spectator" if role == "url" else role]
            workers.append(Worker(f"{role}-{i}", url, role, token, table["vocab"],
                                  random.Random(rng.random()), stats))
    for i in range(3):
        workers.append(Worker(f"pre-{i}", url, "pre", tables[i]["tokens"]["player"],
                              tables[i]["vocab"], random.Random(rng.random()), stats))
    share = -(-FRAMES // len(workers))
    started = time.monotonic()
    done = asyncio.Event()
    keepers = [asyncio.create_task(keep_the_screen(url, t["tokens"]["gm"], stats, done))
               for t in tables]
    await asyncio.gather(*(w.run(share) for w in workers))
    elapsed = time.monotonic() - started
    done.set()
    await asyncio.gather(*keepers)
    for w in workers:
        if w.ws is not None:
            await w.ws.close()

    # the server is alive and serves a new client at once
    def health() -> int:
        with urllib.request.urlopen(f"http://127.0.0.1:{proc.port}/healthz", timeout=5) as r:
            return int(r.status)

    assert await asyncio.to_thread(health) == 200
    async with Client.connect(url) as anon:
        await anon.hello()
        ack = await anon.command("create_encounter", name="after the storm")
        assert ack["result"]["gm_token"]
    assert proc.proc is not None and proc.proc.poll() is None

    # no refused frame is in any log, and every event comes from an acknowledged command
    redis = Redis.from_url(redis_server.url)
    try:
        allowed = stats.acked | stats.unknown | setup_keys
        stray: list[str] = []
        encounters = {t["encounter"] for t in tables} | stats.created
        for encounter in sorted(encounters):
            for cmd in await logged_commands(redis, encounter):
                if cmd is None:
                    stray.append(f"{encounter}: an event without a command")
                elif cmd in stats.refused and cmd not in allowed:
                    stray.append(f"{encounter}: refused command {cmd} is in the log")
                elif cmd not in allowed:
                    stray.append(f"{encounter}: {cmd} was never acknowledged")
    finally:
        await redis.aclose()
    output = proc.output()
    guarded = output.count("inconsistent")
    print(f"\nfuzz (seed {SEED}): {stats.frames} frames + {stats.url_connections} URL "
          f"connections in {elapsed:.1f} s; {stats.acks} acks, errors "
          f"{dict(sorted(stats.errors.items()))}, closes {dict(sorted(stats.closes.items()))}, "
          f"{len(encounters)} encounters checked, {guarded} refused as inconsistent, "
          f"{stats.screen_turns} hidden turns ended or revealed by the GM; "
          f"acknowledged: {dict(sorted(stats.acked_types.items()))}")
    assert stats.frames >= 10_000
    # the server's first traceback says why (hash randomisation makes a run hard to replay)
    first = output[output.find("Traceback"):][:4000] if "Traceback" in output else ""
    assert not stats.problems, "\n".join(stats.problems[:10]) + "\n" + first
    assert not stray, "\n".join(stray[:30])
    assert "Traceback" not in output, output[-5000:]
    assert stats.acks > 500  # many frames went through and reached the rules
