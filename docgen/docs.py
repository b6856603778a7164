"""Write the protocol documents from the message classes, or check that they are current.

    python -m docgen           # write docs/protocol/*, docs/actions.md, docs/stat-blocks.md
                               # and the generated parts of docs/protocol.md
    python -m docgen --check   # exit 1, naming each stale file, when they differ

The message classes and the rulesets' declarations (``encounter.ruleset``: every registered
ruleset, none named here) are the single source of truth. From them this writes:

- ``docs/protocol/client-messages.schema.json``, ``server-messages.schema.json`` and
  ``events.schema.json``: one JSON Schema (draft 2020-12) per union, with ``$defs``;
- ``docs/protocol/snapshot-state.schema.json``: the JSON Schema of a ``snapshot``'s
  ``state``, from ``protocol.snapshot`` and each ruleset's ``Declaration.view``
  (``docgen.snapshot``), which ``server-messages.schema.json`` and the AsyncAPI document take
  in as ``SnapshotState``;
- ``docs/protocol/actions.<ruleset>.schema.json``: for each ruleset, the JSON Schema of the
  ``action`` and ``args`` of an ``act`` command, one entry per action with the schema of its
  arguments, from the actions' declarations (``encounter.declare``);
- ``docs/protocol/args-schemas.json``: the JSON Schema of every ``args_schema`` id a
  ``legal_actions`` entry may name (``encounter.schemas``), as the server serves them;
- ``docs/protocol/stat-block.<ruleset>.schema.json``, ``battle-map.schema.json``,
  ``options.<ruleset>.schema.json`` and ``encounter-file.<ruleset>.schema.json``: what a GM
  writes (``docgen.reference``);
- ``docs/protocol/asyncapi.yaml``: an AsyncAPI 3.0.0 document of the server application,
  naming all of the above;
- ``docs/actions.md`` and ``docs/stat-blocks.md``: the reference for people: each ruleset's
  actions (cost, arguments, rule section, an example command), its stat blocks (every field,
  an example, the feats), its options, the battle map and encounter files;
- the regions of the hand-written guide ``docs/protocol.md`` between
  ``<!-- NAME:begin -->`` and ``<!-- NAME:end -->`` markers (message and event indexes, the
  error codes, the close codes, the default limits, the fields of a snapshot's ``state`` and
  each ruleset's actions).

Every output is deterministic (schema keys sorted, a fixed layout, a newline at the end), so
the check compares bytes.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import typing
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import msgspec
import yaml

from docgen import reference as ref
from docgen import snapshot as snap
from docgen.words import summaries_markdown
from encounter.declare import GROUPS, field_names
from encounter.registry import catalog, declaration, effect_targets, names
from encounter.schemas import action_args_schema, action_schema_id, args_schemas
from protocol.errors import ERROR_DESCRIPTIONS, ErrorCode
from protocol.events import AnyEvent
from protocol.messages import AnyClientMessage, AnyServerMessage, Command
from protocol.reference import fields_table, inner, sorted_keys, struct_schema, type_text
from protocol.strict import VOCABULARY_SCHEMA, strict, vocabulary_schema
from protocol.version import PROTOCOL_VERSION, SUPPORTED_VERSIONS
from server.config import Settings

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
OUT = DOCS / "protocol"
GUIDE = DOCS / "protocol.md"



def rulesets() -> list[str]:
    """The rulesets documented: every registered one (``encounter.registry.names``)."""
    return names()


CLIENT_SCHEMA = "client-messages.schema.json"
SERVER_SCHEMA = "server-messages.schema.json"
EVENTS_SCHEMA = "events.schema.json"
ASYNCAPI = "asyncapi.yaml"
ARGS_SCHEMAS = "args-schemas.json"
BATTLE_MAP = "battle-map.schema.json"
ACTIONS_MD = DOCS / "actions.md"
STAT_BLOCKS_MD = DOCS / "stat-blocks.md"
SUMMARIES_MD = DOCS / "summaries.md"

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
#: Where the AsyncAPI document says the server is: the default of ``stablemaster serve``.
DEFAULT_HOST = "localhost:8765"
WS_PATH = "/ws"

#: Websocket close codes a client may see, with the name RFC 6455 gives them (or ours).
#: ``tests/test_protocol_docs.py`` checks this against the constants in ``server.session``.
CLOSE_CODES: dict[int, tuple[str, str]] = {
    1002: (
        "protocol error",
        "No version in `hello.versions` is spoken by the server. An `unsupported_version` "
        "error comes first. Do not reconnect with the same versions.",
    ),
    1008: (
        "policy violation",
        "A message flood: the connection kept sending past the rate limit after many "
        "`rate_limited` errors; or more commands (1,024, the send queue's bound) waiting for "
        "their answers behind an ack the GM's screen holds.",
    ),
    1009: (
        "message too big",
        "A frame larger than `welcome.limits.max_frame_bytes`. The websocket layer closes at "
        "once; no `error` is sent.",
    ),
    1011: (
        "internal error",
        "The client did not answer the server's websocket keepalive ping in time (every "
        "websocket library and browser answers pings by itself). Reconnect and resume with "
        "`since`.",
    ),
    1012: (
        "service restart",
        "The server is shutting down. A `goodbye` with `reconnect: true` comes first. "
        "Reconnect (to any server process) and resume with `since`.",
    ),
    1013: (
        "try again later",
        "The client read too slowly: its send queue was full. Reconnect and resume with "
        "`since`.",
    ),
    4001: (
        "credential revoked",
        "The token this connection said `hello` with was revoked (`revoke_token`), has "
        "expired (`expires_in`; the close reason says which), or was issued by events the "
        "server's log no longer holds (it went back). Do not reconnect with it.",
    ),
    4002: (
        "no hello",
        "The connection was not welcomed in time: no `hello` that succeeded within the "
        "server's hello deadline (10 s by default) after it opened; or it said `hello` "
        "without a token and created no encounter by then (the close reason says which). "
        "Reconnect and say `hello` at once (without a token: only to create an encounter "
        "at once).",
    ),
    4003: (
        "encounter lost",
        "The encounter is no longer in the server's store (its Redis was restored to a time "
        "before the encounter existed): an `encounter_lost` error comes first. Do not "
        "reconnect to it.",
    ),
    4004: (
        "moved",
        "A campaign link's character went into another encounter: a `moved` message comes "
        "first. Reconnect at once with the same link and without a cursor: it reaches that "
        "encounter (R113).",
    ),
}

_REGION = re.compile(r"(<!-- (?P<name>[a-z-]+):begin -->\n)(?P<body>.*?)(<!-- (?P=name):end -->)",
                     re.DOTALL)


class DocsError(Exception):
    """The hand-written guide cannot take the generated regions (a marker is missing)."""


# --- reading the message classes ------------------------------------------------------------


def members(union: Any) -> list[type[msgspec.Struct]]:
    """The struct classes of a tagged union, in the order the union lists them."""
    return list(typing.get_args(union))


def tag_of(cls: type[msgspec.Struct]) -> str:
    return str(cls.__struct_config__.tag)


def _tidy(node: Any) -> Any:
    """Schemas with Markdown descriptions (docstrings use reST's double backquotes)."""
    if isinstance(node, dict):
        return {
            k: (v.replace("``", "`") if k == "description" and isinstance(v, str) else _tidy(v))
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_tidy(v) for v in node]
    return node


def _drop_key(node: Any, key: str) -> Any:
    if isinstance(node, dict):
        return {k: _drop_key(v, key) for k, v in node.items() if k != key}
    if isinstance(node, list):
        return [_drop_key(v, key) for v in node]
    return node


def _draft7_tuples(node: Any) -> Any:
    """Tuples in draft 7's words: draft 2020-12's ``prefixItems`` (with ``items: false``) is
    draft 7's ``items`` list with ``additionalItems: false`` (AsyncAPI's schema format is a
    superset of draft 7)."""
    if isinstance(node, dict):
        out = {k: _draft7_tuples(v) for k, v in node.items()}
        if "prefixItems" in out:
            out["items"] = out.pop("prefixItems")
            out["additionalItems"] = False
        return out
    if isinstance(node, list):
        return [_draft7_tuples(v) for v in node]
    return node


def summary(description: str) -> str:
    """The first sentence of a description, on one line."""
    text = " ".join(description.split())
    cut = text.find(". ")
    return text if cut < 0 else text[: cut + 1]


# --- JSON Schema ----------------------------------------------------------------------------


_UNIONS: dict[str, tuple[Any, str, str]] = {
    CLIENT_SCHEMA: (
        AnyClientMessage,
        "Stablemaster client messages",
        "Every message a client sends to the Stablemaster server, a JSON object tagged by "
        "`type`. The server refuses unknown fields (`invalid_payload`).",
    ),
    SERVER_SCHEMA: (
        AnyServerMessage,
        "Stablemaster server messages",
        "Every message the Stablemaster server sends to a client, a JSON object tagged by "
        "`type`. Clients should ignore fields and message types they do not know: additive "
        "changes keep the protocol version.",
    ),
    EVENTS_SCHEMA: (
        AnyEvent,
        "Stablemaster encounter events",
        "Every encounter event, a JSON object tagged by `kind`, as carried in the `event` field "
        "of an `event` message (redacted for its viewer). Clients should ignore kinds they do "
        "not know.",
    ),
}


def json_schema(filename: str) -> dict[str, Any]:
    """The JSON Schema document written to ``docs/protocol/<filename>``: the header first,
    then the union, then its definitions, each with its keys sorted."""
    union, title, description = _UNIONS[filename]
    (top,), components = msgspec.json.schema_components([union], ref_template="#/$defs/{name}")
    if filename == SERVER_SCHEMA:
        components = snap.with_state(components, "#/$defs/")
    stem = filename.removesuffix(".schema.json")
    return _tidy({
        "$schema": JSON_SCHEMA_DIALECT,
        "$id": f"urn:stablemaster:protocol:{PROTOCOL_VERSION}:{stem}",
        "title": f"{title} (protocol {PROTOCOL_VERSION})",
        "description": f"{description} Protocol version {PROTOCOL_VERSION}. Generated from "
        "the message classes by `python -m docgen`; do not edit.",
        "x-protocol-version": PROTOCOL_VERSION,
        **sorted_keys(top),
        "$defs": sorted_keys(components),
    })


# --- the actions of each ruleset -----------------------------------------------------------


def actions_schema_name(ruleset: str) -> str:
    return f"actions.{ruleset}.schema.json"


def actions_schema(ruleset: str) -> dict[str, Any]:
    """The JSON Schema written to ``docs/protocol/actions.<ruleset>.schema.json``: an object
    with the ``action`` and ``args`` of an ``act`` command, one alternative per action of the
    ruleset (in the order ``legal_actions`` lists them), each with its arguments' schema."""
    cat = catalog(ruleset)
    structs = list(dict.fromkeys(a.args for a in cat.actions))
    refs, defs = msgspec.json.schema_components(structs, ref_template="#/$defs/{name}")
    ref_of = dict(zip(structs, refs, strict=True))
    alternatives = []
    for a in cat.actions:
        required = [f.name for f in msgspec.structs.fields(a.args) if f.required]
        alternatives.append(sorted_keys({
            "title": a.name,
            "description": f"{a.label} ({a.section}). Costs: {cat.cost_name(a)}; when: "
            f"{a.timing}.",
            "type": "object",
            "properties": {"action": {"const": a.name}, "args": ref_of[a.args]},
            "required": ["action", "args"] if required else ["action"],
            "x-cost": cat.cost_name(a),
            "x-group": cat.group_of(a),
            "x-budget": a.cost.value if a.cost is not None else "none",
            "x-when": a.timing.value,
            "x-section": a.section,
            "x-args": list(field_names(a.args)),
            "x-args-schema": action_schema_id(ruleset, a.name),
        }))
    stem = actions_schema_name(ruleset).removesuffix(".schema.json")
    return _tidy({
        "$schema": JSON_SCHEMA_DIALECT,
        "$id": f"urn:stablemaster:protocol:{PROTOCOL_VERSION}:{stem}",
        "title": f"Stablemaster actions of {cat.title} (protocol {PROTOCOL_VERSION})",
        "description": f"The `action` and `args` of an `act` command in an encounter of the "
        f"ruleset `{ruleset}` ({cat.title}): one alternative per action, with the schema of "
        "its arguments. The server refuses an argument an action does not take, or one of "
        "the wrong type or out of bounds (`invalid_payload`, naming it in `details.field`). "
        "`x-cost` is what the action costs, in the ruleset's words (`none`: the turn's own "
        "moves), `x-group` the group its `legal_actions` entries name (for people: attacks, "
        "movement, social maneuvers...), `x-budget` the kind of the turn's budget it spends "
        "(as `action_taken."
        "action_type` records it), `x-when` when it may be taken (`turn`: on the "
        "combatant's turn; `any_turn`: free actions and reactions, on any turn; `any_time`: "
        "whenever `legal_actions` lists "
        "it), `x-args-schema` the `args_schema` id of its `legal_actions` entries. The action "
        f"reference for people is `docs/actions.md`. Protocol version {PROTOCOL_VERSION}. "
        "Generated from the actions' declarations by `python -m docgen`; do not edit.",
        "x-protocol-version": PROTOCOL_VERSION,
        "x-ruleset": ruleset,
        "type": "object",
        "properties": {"action": {"enum": [a.name for a in cat.actions]},
                       "args": {"type": "object"}},
        "required": ["action"],
        "anyOf": alternatives,
        "$defs": sorted_keys(defs),
    })


def actions_table(ruleset: str) -> str:
    """The actions of ``ruleset`` and their arguments, as a Markdown table (a required
    argument is in bold; the others show their default)."""
    schema = actions_schema(ruleset)
    defs = schema["$defs"]
    rows = ["| action | costs | group | when | arguments |", "| --- | --- | --- | --- | --- |"]
    for alt, action in zip(schema["anyOf"], catalog(ruleset).actions, strict=True):
        struct = defs[alt["properties"]["args"]["$ref"].rsplit("/", 1)[1]]
        required = set(struct.get("required", []))
        props = struct.get("properties", {})
        # the required arguments first, then in the struct's order, the note last
        order = sorted(msgspec.structs.fields(action.args),
                       key=lambda f: (not f.required, f.name == "note"))
        parts = []
        for name, field in ((f.name, props[f.name]) for f in order):
            text = f"`{name}`: {type_text(field, defs)}"
            if name in required:
                text = f"**`{name}`**: {type_text(field, defs)}"
            elif field.get("default") not in (None, [], ""):
                text += f" (default `{json.dumps(field['default'])}`)".replace('"', "")
            parts.append(text)
        rows.append(f"| `{alt['title']}` | {alt['x-cost']} | {alt['x-group']} | {alt['x-when']} | "
                    f"{_cell('; '.join(parts)) or '—'} |")
    return "\n".join(rows)


# --- tables (Markdown) ----------------------------------------------------------------------


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def error_table() -> str:
    rows = ["| code | meaning |", "| --- | --- |"]
    for code in ErrorCode:
        rows.append(f"| `{code.value}` | {_cell(ERROR_DESCRIPTIONS[code])} |")
    return "\n".join(rows)


def close_code_table() -> str:
    rows = ["| code | name | when |", "| --- | --- | --- |"]
    for code, (name, text) in sorted(CLOSE_CODES.items()):
        rows.append(f"| {code} | {name} | {_cell(text)} |")
    return "\n".join(rows)


def _description(cls: type[msgspec.Struct]) -> str:
    schema = _tidy(msgspec.json.schema(cls))
    name = cls.__name__
    found = schema.get("$defs", {}).get(name, schema)
    return str(found.get("description", ""))


def message_table(union: Any, heading: str) -> str:
    rows = [f"| {heading} | summary |", "| --- | --- |"]
    for cls in members(union):
        rows.append(f"| `{tag_of(cls)}` | {_cell(summary(_description(cls)))} |")
    return "\n".join(rows)


def limits_table() -> str:
    s = Settings()
    rows = [
        "| limit | default | what happens |",
        "| --- | --- | --- |",
        f"| `max_command_bytes` | {s.max_command_bytes} | A longer message gets `too_large` "
        "(measured in UTF-8 bytes). |",
        f"| `max_frame_bytes` | {s.max_frame_bytes} | A larger frame closes the connection "
        "(1009). |",
        f"| `max_event_bytes` | {s.max_event_bytes} | A command that would store a larger "
        "event (as JSON) gets `too_large` and changes nothing. |",
        f"| `max_depth` | {s.max_json_depth} | A message with objects and arrays nested deeper "
        "gets `invalid_payload` (before `hello` too). |",
        f"| `commands_per_second` | {s.commands_per_second:g} | The rate at which the "
        "allowance refills; every message counts, `hello` included. |",
        f"| `burst` | {s.command_burst} | Messages a connection may send at once before "
        "`rate_limited`. |",
        f"| flood | {s.flood_close_after} | Messages in a row past the rate limit that the "
        "server answers with `rate_limited` before it closes the connection (1008); a message "
        "within the limit starts the count again. |",
        f"| send queue | {s.max_queued_messages} | Messages waiting for a slow client before "
        "the server closes the connection (1013). |",
        f"| send queue bytes | {s.max_queued_bytes} | Bytes waiting for a slow client before "
        "the server closes the connection (1013); a resume's replay never fills the queue, "
        "it waits for the client to take what it was sent. |",
        f"| replay | {s.max_replay} | Events the server replays on resume; a client further "
        "behind gets a `snapshot` (`resume_gap`). |",
        f"| hello deadline | {s.hello_timeout:g} s | A connection not welcomed by then (no "
        "`hello` that succeeded), or welcomed without a token and with no encounter created "
        "by then, is closed (4002). |",
        f"| connections per address | {s.max_connections_per_address or 'none'} | Websocket "
        "connections one client address may hold open on a server process; a handshake past "
        "it is refused with HTTP 429. Local clients (direct from a loopback address) are not "
        "counted. |",
        f"| creates per address | {s.creates_per_address} encounters, "
        f"{s.create_bytes_per_address} bytes per {s.create_window:g} s | What one client "
        "address may create (its events' bytes as stored), coming back a little at a time; "
        "past it `create_encounter` gets `quota_exceeded`. Local clients are not counted. |",
        f"| events per encounter | {s.max_encounter_events} events, "
        f"{s.max_encounter_bytes} bytes | What one encounter holds (its events' bytes as "
        "stored): a command that would store more gets `encounter_full` and changes nothing; "
        "the GM may still `end_encounter` and `revoke_token`, and reads go on. |",
        f"| creates per creator | {s.creates_per_creator} encounters, "
        f"{s.create_bytes_per_creator} bytes per {s.create_window:g} s | The same, for each "
        "creator secret, from any address (where the server asks for one). |",
    ]
    return "\n".join(rows)


def _regions() -> dict[str, Callable[[], str]]:
    return {
        "client-messages": lambda: message_table(AnyClientMessage, "client message"),
        "server-messages": lambda: message_table(AnyServerMessage, "server message"),
        "events": lambda: message_table(AnyEvent, "event kind"),
        "errors": error_table,
        "close-codes": close_code_table,
        "limits": limits_table,
        "snapshot-state": snap.state_table,
        **{region_name(r): partial(actions_table, r) for r in rulesets()},
    }


def region_name(ruleset: str) -> str:
    """The guide's region of the actions of ``ruleset``."""
    return "actions-" + ruleset.replace("_", "-")


def render_guide(text: str) -> str:
    """``text`` (the guide) with every generated region filled in anew."""
    regions = _regions()
    found = {m.group("name") for m in _REGION.finditer(text)}
    missing = sorted(set(regions) - found)
    if missing:
        raise DocsError(f"{GUIDE.relative_to(ROOT)} lacks the regions {missing}: add "
                        "'<!-- NAME:begin -->' and '<!-- NAME:end -->' lines for each")
    unknown = sorted(found - set(regions))
    if unknown:
        raise DocsError(f"{GUIDE.relative_to(ROOT)} has unknown regions {unknown}")

    def fill(m: re.Match[str]) -> str:
        return f"{m.group(1)}{regions[m.group('name')]()}\n{m.group(4)}"

    return _REGION.sub(fill, text)


# --- AsyncAPI -------------------------------------------------------------------------------


def _ref(*parts: str) -> dict[str, str]:
    return {"$ref": "#/" + "/".join(p.replace("~", "~0").replace("/", "~1") for p in parts)}


def asyncapi() -> dict[str, Any]:
    """The AsyncAPI 3.0.0 document of the Stablemaster server (written as ``asyncapi.yaml``).

    It describes the server application: what clients send, the server *receives*; what the
    server pushes, it *sends*.
    """
    client, server = members(AnyClientMessage), members(AnyServerMessage)
    _, schemas = msgspec.json.schema_components(
        [AnyClientMessage, AnyServerMessage, AnyEvent],
        ref_template="#/components/schemas/{name}",
    )
    schemas = snap.with_state(schemas, "#/components/schemas/")
    # The AsyncAPI schema format's ``discriminator`` is a property name for inheritance, not
    # OpenAPI's object; the unions validate by their ``anyOf`` and each member's tag alone.
    schemas = sorted_keys(_tidy(_draft7_tuples(_drop_key(schemas, "discriminator"))))

    messages: dict[str, Any] = {}
    for cls in client + server:
        tag = tag_of(cls)
        description = schemas[cls.__name__].get("description", "")
        message: dict[str, Any] = {
            "name": tag,
            "title": cls.__name__,
            "summary": summary(description),
            "description": description,
            "contentType": "application/json",
            "payload": _ref("components", "schemas", cls.__name__),
        }
        if issubclass(cls, Command) or tag in ("ack", "error"):
            message["correlationId"] = {
                "description": "The client-chosen command id; the `ack` or `error` answering "
                "a command carries it too.",
                "location": "$message.payload#/id",
            }
        if tag == "error":
            message["description"] = f"{description}\n\nError codes:\n\n{error_table()}\n"
        if tag == "act":
            files = ", ".join(f"`{actions_schema_name(r)}`" for r in rulesets())
            message["description"] = (f"{description}\n\nThe actions of each ruleset and the "
                                      f"JSON Schema of their arguments: {files}, beside this "
                                      "document.")
            message["x-action-arguments"] = {r: actions_schema_name(r) for r in rulesets()}
            message["x-args-schemas"] = ARGS_SCHEMAS
        if tag == "legal_actions":
            message["description"] = (f"{description}\n\nEach entry's `args_schema` is an id "
                                      f"of `{ARGS_SCHEMAS}`, beside this document, which the "
                                      "server also serves: `GET /schemas/args/<id>.json`.")
            message["x-args-schemas"] = ARGS_SCHEMAS
        if tag in ("create_encounter", "add_combatant", "set_map", "set_options"):
            message["x-stat-blocks"] = {r: stat_block_name(r) for r in rulesets()}
            message["x-options"] = {r: f"options.{r}.schema.json" for r in rulesets()}
            message["x-battle-map"] = BATTLE_MAP
        messages[tag] = message

    hello = [tag_of(c) for c in client if tag_of(c) == "hello"]
    commands = [tag_of(c) for c in client if issubclass(c, Command)]
    server_tags = [tag_of(c) for c in server]

    def channel_messages(tags: Sequence[str]) -> list[dict[str, str]]:
        return [_ref("channels", "ws", "messages", t) for t in tags]

    return {
        "asyncapi": "3.0.0",
        "id": f"urn:stablemaster:protocol:{PROTOCOL_VERSION}",
        "info": {
            "title": "Stablemaster",
            "version": str(PROTOCOL_VERSION),
            "description": _info_description(),
            "license": {"name": "MIT"},
        },
        "defaultContentType": "application/json",
        "servers": {
            "local": {
                "host": DEFAULT_HOST,
                "protocol": "ws",
                "title": "A Stablemaster server on its default port",
                "description": "`stablemaster serve` listens on port 8765. The same port "
                "answers plain HTTP: `GET /healthz` (JSON: status, Redis latency, server and "
                "protocol version; 503 when Redis is unreachable), `GET /metrics` (Prometheus), "
                "`GET /schemas/args/<id>.json` (the JSON Schema of the arguments of a "
                "`legal_actions` entry whose `args_schema` is `<id>`; `GET /schemas/args.json`: "
                "all of them by id) and "
                "`GET /watch?spectate=<spectator token>` (a spectator page). Behind a TLS "
                "proxy the scheme is `wss`.",
            },
        },
        "channels": {
            "ws": {
                "address": WS_PATH,
                "title": "The protocol connection",
                "description": _channel_description(),
                "servers": [_ref("servers", "local")],
                "messages": {t: _ref("components", "messages", t) for t in messages},
                "bindings": {
                    "ws": {
                        "method": "GET",
                        "query": {
                            "type": "object",
                            "properties": {
                                "spectate": {
                                    "type": "string",
                                    "description": "A spectator token. The server then says "
                                    "`hello` on the client's behalf: `welcome`, `snapshot` and "
                                    "`legal_actions` arrive without the client sending "
                                    "anything. Only spectator tokens may ride in a URL.",
                                },
                            },
                        },
                        "bindingVersion": "0.1.0",
                    },
                },
            },
        },
        "operations": {
            "receiveHello": {
                "action": "receive",
                "channel": _ref("channels", "ws"),
                "title": "Say hello",
                "summary": "The first message of every connection: version negotiation and "
                "authentication.",
                "description": "Answered by `welcome` (then a `snapshot` or the missed events, "
                "and `legal_actions`) or by `error` (`unsupported_version` closes with 1002; "
                "`unauthenticated` for an unknown or revoked token).",
                "messages": channel_messages(hello),
                "reply": {
                    "channel": _ref("channels", "ws"),
                    "messages": channel_messages(["welcome", "error"]),
                },
            },
            "receiveCommand": {
                "action": "receive",
                "channel": _ref("channels", "ws"),
                "title": "Send a command",
                "summary": "A command with a client-chosen `id`, answered by exactly one `ack` "
                "or `error` naming that id.",
                "description": "Events a command causes arrive before its `ack`. Retrying a "
                "command with the same `id` (on any connection of the same credential) "
                "returns the first outcome with `duplicate: true` and changes nothing.",
                "messages": channel_messages(commands),
                "reply": {
                    "channel": _ref("channels", "ws"),
                    "messages": channel_messages(["ack", "error"]),
                },
            },
            "sendServerMessage": {
                "action": "send",
                "channel": _ref("channels", "ws"),
                "title": "Push to a client",
                "summary": "Answers, encounter events, snapshots and legal actions, each "
                "redacted for the connection's credential.",
                "messages": channel_messages(server_tags),
            },
        },
        "components": {
            "messages": messages,
            "schemas": schemas,
        },
    }


def _info_description() -> str:
    versions = ", ".join(str(v) for v in SUPPORTED_VERSIONS)
    return (
        "A real-time encounter server for tabletop role-playing games. Clients (virtual "
        "tabletops, bots, overlays) speak JSON over one websocket; every message is an object "
        "tagged by `type`. The guide, with an example session, is `docs/protocol.md`; the "
        "JSON Schemas beside this file describe the same messages, and also: a snapshot's "
        f"`state` (`{snap.SNAPSHOT_SCHEMA}`, which this document holds as `SnapshotState`), "
        "the arguments "
        "of each ruleset's actions (`actions.<ruleset>.schema.json`), of every `legal_actions` "
        f"entry by its `args_schema` id (`{ARGS_SCHEMAS}`), the stat blocks "
        "(`stat-block.<ruleset>.schema.json`), the battle map "
        f"(`{BATTLE_MAP}`), the encounter options (`options.<ruleset>.schema.json`) and "
        "encounter files (`encounter-file.<ruleset>.schema.json`). For people: "
        "`docs/actions.md` and `docs/stat-blocks.md`.\n\n"
        f"Protocol version {PROTOCOL_VERSION} (this server speaks: {versions}). The client "
        "lists the versions it speaks in `hello`; the server picks the highest both speak. "
        "Additive changes (a new optional field, event kind or message type) keep the version: "
        "clients ignore what they do not know.\n\n"
        f"## Error codes\n\n{error_table()}\n\n"
        f"## Close codes\n\n{close_code_table()}\n\n"
        "Generated from the message classes by `python -m docgen`; do not edit.\n"
    )


def _channel_description() -> str:
    return (
        "One websocket per credential. The client sends `hello` first; then commands, each "
        "answered by one `ack` or `error`. The server pushes `event` messages (each with the "
        "encounter's `seq`), `snapshot`s and `legal_actions`. Text frames only.\n\n"
        f"Close codes:\n\n{close_code_table()}\n"
    )


# --- writing --------------------------------------------------------------------------------


def render_json(data: Any) -> str:
    """A JSON Schema document as strict validators take it (``docgen.strict``): two-space
    indents, keys in the order given (callers sort them), a newline at the end."""
    return json.dumps(strict(data), indent=2, ensure_ascii=False) + "\n"


class _Dumper(yaml.SafeDumper):
    """Block scalars for multi-line text; no anchors."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if "\n" in value:
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|")
    return dumper.represent_scalar("tag:yaml.org,2002:str", value)


_Dumper.add_representer(str, _str)


def render_yaml(data: Any) -> str:
    header = (
        "# The Stablemaster protocol as AsyncAPI 3.0.0. Generated from the message classes by\n"
        "# `python -m docgen`; do not edit.\n"
    )
    body = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100,
                     default_flow_style=False)
    return header + body


# --- what a GM writes, the args schemas, and the reference for people ------------------------


def stat_block_name(ruleset: str) -> str:
    return f"stat-block.{ruleset}.schema.json"


def gm_schemas() -> dict[str, dict[str, Any]]:
    """The published schemas of what a GM writes, by file name."""
    files: dict[str, dict[str, Any]] = {}
    for ruleset in rulesets():
        title = declaration(ruleset).title
        files[stat_block_name(ruleset)] = ref.published(
            ref.stat_block_schema(ruleset), f"stat-block.{ruleset}",
            f"A Stablemaster stat block of {title} (protocol {PROTOCOL_VERSION})",
            f"A combatant of an encounter of the ruleset `{ruleset}` ({title}) as the GM writes "
            "it (`create_encounter.combatants`, `add_combatant.combatant`, a combatant of "
            "`combatants_yaml`), its `stats` those of the ruleset. Every field with its "
            "description, unit (`x-unit`), default and allowed values; `feats`' `x-known` "
            "lists the feats the server reads. The reference for people is "
            "`docs/stat-blocks.md`.")
        files[f"options.{ruleset}.schema.json"] = ref.published(
            ref.options_schema(ruleset), f"options.{ruleset}",
            f"Stablemaster encounter options of {title} (protocol {PROTOCOL_VERSION})",
            str(ref.options_schema(ruleset)["description"]))
        files[f"encounter-file.{ruleset}.schema.json"] = ref.encounter_file_schema(ruleset)
    files[BATTLE_MAP] = ref.published(
        ref.battle_map_schema(), "battle-map",
        f"A Stablemaster battle map (protocol {PROTOCOL_VERSION})",
        str(ref.battle_map_schema()["description"]) + " (`create_encounter.map`, `set_map`.)")
    return files


def args_schemas_document() -> dict[str, Any]:
    """``docs/protocol/args-schemas.json``: every ``args_schema`` id and its schema."""
    return {
        "$comment": "The JSON Schema of the arguments of every `legal_actions` entry, by its "
        "`args_schema` id (`<ruleset>.<action>`: the `args` of `act`; `command.<type>`: the "
        "fields of that command but `type`, `id` and `expect_turn`). The server serves each "
        "at `GET /schemas/args/<id>.json`, and this whole document at `GET "
        f"/schemas/args.json`. Protocol version {PROTOCOL_VERSION}. Generated from the "
        "declarations by `python -m docgen`; do not edit.",
        **{k: sorted_keys(v) for k, v in args_schemas().items()},
    }


_WHEN = {
    "turn": "on its own turn",
    "any_turn": "on any turn (a free action or reaction)",
    "any_time": "whenever `legal_actions` lists it",
}
#: The combatants the examples of ``docs/actions.md`` act for and aim at (those of the shipped
#: example ``*-ponies-vs-diamond-dogs.yaml`` of each ruleset).
ACTOR, TARGET = "twilight", "brute"
def example_args(ruleset: str, action: Any, schema: dict[str, Any]) -> dict[str, Any]:
    """Arguments of ``action`` for the reference's example: the ruleset's (its declaration's
    ``example_args``), else a value for each required argument (its first example, the target,
    the first allowed value)."""
    given = declaration(ruleset).example_args.get(action.name)
    if given is not None:
        return dict(given)
    defs = schema.get("$defs", {})
    out: dict[str, Any] = {}
    for name in schema.get("required", []):
        field = inner(schema["properties"][name], defs)
        if "examples" in field:
            out[name] = field["examples"][0]
        elif name == "target":
            out[name] = TARGET
        elif "enum" in field:
            out[name] = field["enum"][0]
        elif field.get("type") == "integer":
            out[name] = field.get("minimum", 1)
        else:
            out[name] = "…"
    return out


def actions_markdown() -> str:
    """``docs/actions.md``: every action of each ruleset."""
    out = [
        "# Actions",
        "",
        "Generated from the actions' declarations by `python -m docgen`; do not edit.",
        "",
        "An action is taken with an `act` command: `{\"type\": \"act\", \"id\": …, "
        "\"combatant\": <who acts>, \"action\": <name>, \"args\": {…}}` (add `expect_turn`, "
        "the `turn_id` of the `legal_actions` it was meant for: see "
        "[protocol.md](protocol.md#commands-acks-and-retries)). The server offers in "
        "`legal_actions` exactly the actions it would accept now, each entry with its "
        "`targets`, the few values some arguments may take (`options`) and `args_schema`, the "
        "id of its arguments' JSON Schema (`GET /schemas/args/<id>.json`; all of them in "
        "`docs/protocol/args-schemas.json`; by ruleset in "
        "`docs/protocol/actions.<ruleset>.schema.json`). An argument an action does not take "
        "is refused with `invalid_payload`, naming it and listing those it takes; a value "
        "outside the few allowed lists them. A required argument is in bold. The examples act "
        "for `twilight` against the combatants of the shipped example \"Ponies vs. Diamond "
        "Dogs\" of each ruleset.",
        "",
        *(f"- [{catalog(r).title}]({ref.anchor(catalog(r).title)})" for r in rulesets()),
    ]
    for ruleset in rulesets():
        out += actions_section(ruleset)
    return "\n".join(out) + "\n"


#: The groups of the ``legal_actions`` entries of commands, not of actions.
_COMMAND_GROUPS = ("scene", "dice")


def actions_section(ruleset: str) -> list[str]:
    """The section of ``docs/actions.md`` for ``ruleset``: its actions, each with its
    arguments and an example, and what its effects may change."""
    cat = catalog(ruleset)
    costs = declaration(ruleset).costs_text
    out = ["", f"## {cat.title}", "",
           f"The ruleset `{ruleset}`. Costs are what the action spends of the turn"
           + (f" {costs}" if costs else "."),
           "", "The group is the one its `legal_actions` entries name (`group`), by which a "
           "page sorts them for people:", "",
           *(f"- `{g}`: {text}" for g, text in GROUPS.items() if g not in _COMMAND_GROUPS),
           "", "| action | costs | group | when | rule |", "| --- | --- | --- | --- | --- |"]
    for a in cat.actions:
        anchor = f"{ruleset}-{a.name}".replace("_", "-")
        out.append(f"| [`{a.name}`](#{anchor}) | {cat.cost_name(a)} | {cat.group_of(a)} | "
                   f"{a.timing.value} | {_cell(a.section)} |")
    for a in cat.actions:
        schema = action_args_schema(ruleset, a)
        defs = schema.get("$defs", {})
        struct_doc = " ".join(str(struct_schema(a.args).get("description", "")).split())
        sid = action_schema_id(ruleset, a.name)
        out += ["", f'<a id="{ruleset}-{a.name}"></a>'.replace("_", "-"),
                f"### {cat.title}: `{a.name}`", "",
                f"{a.label}. Rule: {a.section}. Costs: {cat.cost_name(a)}; taken "
                f"{_WHEN[a.timing.value]}. Schema: `{sid}`.", ""]
        if schema.get("properties"):
            # the required arguments first, the note last
            required = set(schema.get("required", []))
            props = schema["properties"]
            schema = {**schema, "properties": {k: props[k] for k in sorted(
                props, key=lambda k: (k not in required, k == "note"))}}
            out += [_cell(struct_doc), ""]
            rows = fields_table(schema, defs)
            out += [r.replace("| field |", "| argument |").replace(
                " unit |", "").replace(" --- | --- | --- | --- | --- |",
                                      " --- | --- | --- | --- |") for r in rows[:2]]
            for r in rows[2:]:
                cells = r.split(" | ")
                out.append(" | ".join(cells[:2] + cells[3:]))
            out.append("")
        else:
            out += ["No arguments.", ""]
        command: dict[str, Any] = {"type": "act", "id": "c1",
                                   "combatant": ACTOR, "action": a.name}
        args = example_args(ruleset, a, schema)
        if args:
            command["args"] = args
        out += ["```json", json.dumps(command, ensure_ascii=False), "```"]
    out += _effects_section(ruleset, cat.title)
    return out


def _effects_section(ruleset: str, title: str) -> list[str]:
    """What an effect may change in a ruleset (``add_effect``'s ``modifiers``, R90)."""
    targets = effect_targets(ruleset)
    if not targets:
        return []
    rule = declaration(ruleset).stacking_text
    out = ["", f'<a id="{ruleset}-effects"></a>'.replace("_", "-"),
           f"### {title}: effects", "",
           "The GM's `add_effect` (`modifiers`: a list of `{\"target\": <name>, \"amount\": "
           "<number, or a die for a target ending in `_die`>}`), a cast spell's `modifiers` and "
           "what the stat block's feats, talents and species grant change these numbers in "
           "every later computation; each result's itemised modifiers name the effect. "
           + (f"Stacking: {rule}. " if rule else "")
           + "A target `gm:<name>` is a quantity the GM names and reads (R90).", "",
           "| target | what it changes |", "| --- | --- |"]
    out += [f"| `{name}` | {_cell(what)} |" for name, what in targets.items()]
    example = {"type": "add_effect", "id": "c2", "name": "Shield of Leaves",
               "combatant": ACTOR, "until": "rounds", "rounds": 3,
               "modifiers": [{"target": next(iter(targets)), "amount": 2}]}
    return [*out, "", f"For example: `{json.dumps(example, ensure_ascii=False)}`."]


def reference_outputs() -> dict[Path, str]:
    files = {OUT / name: render_json(schema) for name, schema in gm_schemas().items()}
    files[OUT / ARGS_SCHEMAS] = render_json(args_schemas_document())
    # beside the guide (wherever it is: the tests move it)
    files[GUIDE.with_name(ACTIONS_MD.name)] = actions_markdown()
    files[GUIDE.with_name(STAT_BLOCKS_MD.name)] = ref.stat_blocks_markdown(
        {r: stat_block_name(r) for r in rulesets()})
    files[GUIDE.with_name(SUMMARIES_MD.name)] = summaries_markdown(rulesets())
    return files


def outputs(guide_text: str | None = None) -> dict[Path, str]:
    """Every generated file and its content. The guide's content is ``guide_text`` (by
    default the guide as it is now) with its regions filled in."""
    if guide_text is None:
        guide_text = GUIDE.read_text(encoding="utf-8")
    files = {OUT / name: render_json(json_schema(name)) for name in _UNIONS}
    files[OUT / snap.SNAPSHOT_SCHEMA] = render_json(snap.snapshot_schema())
    files[OUT / VOCABULARY_SCHEMA] = render_json(vocabulary_schema())
    for ruleset in rulesets():
        files[OUT / actions_schema_name(ruleset)] = render_json(actions_schema(ruleset))
    files.update(reference_outputs())
    files[OUT / ASYNCAPI] = render_yaml(asyncapi())
    files[GUIDE] = render_guide(guide_text)
    return files


def stale(files: dict[Path, str]) -> list[Path]:
    """The files whose committed content differs from ``files``."""
    out = []
    for path, text in files.items():
        try:
            current = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            current = None
        if current != text:
            out.append(path)
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m docgen",
        description="Write the protocol documents (docs/protocol/, docs/protocol.md) from the "
        "message classes.",
    )
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 when a document differs from what would be "
                        "written")
    args = parser.parse_args(argv)
    try:
        files = outputs()
    except (DocsError, FileNotFoundError) as exc:
        print(f"docgen: {exc}", file=sys.stderr)
        return 1
    if args.check:
        differ = stale(files)
        for path in differ:
            print(f"stale: {path.relative_to(ROOT)}", file=sys.stderr)
        if differ:
            print("run `python -m docgen` and commit the result", file=sys.stderr)
            return 1
        print(f"protocol docs are current ({len(files)} files)")
        return 0
    OUT.mkdir(parents=True, exist_ok=True)
    written = stale(files)
    for path in written:
        path.write_text(files[path], encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
    if any(p.name in _TYPED_SCHEMAS for p in written):
        _write_typescript()
    return 0


#: The schemas the JavaScript package's TypeScript declarations are generated from.
_TYPED_SCHEMAS = ("client-messages.schema.json", "server-messages.schema.json")
_PACKAGE = ROOT / "clients" / "js"


def _write_typescript() -> None:
    """Generate the JavaScript package's message types again (``npm run types``), when its
    dependencies are installed (the package's tests install them, and check the types)."""
    generator = _PACKAGE / "node_modules" / "json-schema-to-typescript"
    node = shutil.which("node")
    if node is None or not generator.is_dir():
        print("the schemas of clients/js/types changed: run `npm ci && npm run types` in "
              "clients/js", file=sys.stderr)
        return
    done = subprocess.run([node, "scripts/generate-types.mjs"], cwd=_PACKAGE,
                          capture_output=True, text=True, check=False)
    print(done.stdout.strip() or done.stderr.strip())


if __name__ == "__main__":
    raise SystemExit(main())
