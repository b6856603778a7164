"""Server settings: command-line flags, each with an environment variable."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

#: Websocket connections one client address may hold open on a process unless
#: ``--max-connections-per-address`` says otherwise: a household or a club behind one address
#: with every player's tab and a few overlays open fits; 2,000 idle sockets do not.
DEFAULT_MAX_CONNECTIONS_PER_ADDRESS = 64


@dataclass
class Settings:
    host: str = "127.0.0.1"
    port: int = 8765
    redis_url: str | None = None
    redis_cluster: bool = False
    data_dir: Path = field(default_factory=lambda: Path("data"))
    log_level: str = "INFO"
    log_format: str = "text"
    secret: str | None = None
    public_url: str | None = None
    #: How long a read ticket of the read API opens streams and reads (``server.read_api``).
    read_ticket_seconds: float = 60.0
    demo: bool = False
    #: The demo's encounters, by ruleset (``--demo-ruleset``).
    demo_rulesets: tuple[str, ...] = ("dramatic", "action_time")
    #: Seconds the demo waits for people to take seats before bots play the free ones; a
    #: negative value: no bots.
    demo_wait: float = 10.0
    #: Seconds between two bot moves in the demo.
    demo_pace: float = 1.5
    #: The file the demo's bots log their moves to (``--demo-log``); None: the server's log.
    demo_log: Path | None = None
    #: Largest command accepted (bytes); larger ones get ``too_large``.
    max_command_bytes: int = 64 * 1024
    #: Frames over this close the connection with 1009.
    max_frame_bytes: int = 1024 * 1024
    #: Largest event the server stores (bytes, as JSON); a command that would store a larger
    #: one gets ``too_large`` and changes nothing.
    max_event_bytes: int = 256 * 1024
    #: The most events one encounter holds (``--max-encounter-events``); a command that would
    #: store more gets ``encounter_full`` and changes nothing, but for the GM's
    #: ``end_encounter`` and ``revoke_token``. 0: no bound. A long fight is a few thousand
    #: events (docs/protocol.md "Limits"): a real campaign never meets this.
    max_encounter_events: int = 100_000
    #: The most bytes of events (as stored) one encounter holds (``--max-encounter-bytes``),
    #: the same way. 0: no bound.
    max_encounter_bytes: int = 64 * 1024 * 1024
    #: Deepest nesting of JSON objects and arrays in a message; deeper gets ``invalid_payload``.
    max_json_depth: int = 32
    #: Messages a connection may queue before it counts as stalled and is closed (1013).
    max_queued_messages: int = 1024
    #: Bytes a connection may queue before it counts as stalled and is closed (1013); a single
    #: message larger than this still goes when nothing else is queued.
    max_queued_bytes: int = 8 * 1024 * 1024
    commands_per_second: float = 20.0
    command_burst: int = 60
    #: What reads may cost (``server.budgets``): the events a credential may read by replays
    #: and history pages, refilled each second and at most at once; a client address, four
    #: times that.
    read_events_per_second: float = 1000.0
    read_event_burst: int = 10_000
    #: Messages over the rate limit in a row tolerated before the connection is closed (1008).
    flood_close_after: int = 200
    #: Redis connections a process may use at once (commands wait for a free one).
    redis_connections: int = 64
    #: Seconds between sweeps that check followed encounters against Redis.
    sweep_interval: float = 2.0
    #: Resume by replaying at most this many events; further back gets a snapshot.
    max_replay: int = 5000
    #: What an append waits for before its command is acknowledged (``--durability``):
    #: ``everysec`` (Redis's reply; the AOF is fsynced every second), ``always`` (fsynced
    #: before the ack: ``appendfsync always`` for the embedded Redis, else Redis's own
    #: setting or ``WAITAOF``), ``replicas`` (``WAIT`` for ``wait_replicas`` replicas).
    durability: str = "everysec"
    #: Replicas that must have an append before its ack (``durability = "replicas"``).
    wait_replicas: int = 1
    #: Seconds to wait for the fsync or the replicas before answering ``unavailable``.
    wait_timeout: float = 1.0
    #: Seconds a connection has to authenticate (a ``hello`` with a token that succeeds) or,
    #: having said ``hello`` without one, to create an encounter, before it is closed (4002);
    #: 0: no deadline.
    hello_timeout: float = 10.0
    #: Websocket connections one client address may hold open on this process; more are
    #: refused at the handshake (HTTP 429). 0: no limit. Local clients (a direct connection
    #: from a loopback address) are not counted.
    max_connections_per_address: int = DEFAULT_MAX_CONNECTIONS_PER_ADDRESS
    #: Proxies (addresses or networks, such as ``172.30.0.0/24``) whose ``X-Forwarded-For``
    #: names the client address; anyone else's is ignored.
    trusted_proxies: tuple[str, ...] = ()
    #: Origins (``https://foundry.example:30000``, or ``*``) whose browser pages may open
    #: ``/ws`` and read the HTTP endpoints, besides the server's own (``server.origins``).
    allow_origins: tuple[str, ...] = ()
    #: Who may create encounters (``--create``, ``server.creation``): ``open`` (anyone) or
    #: ``secret`` (a ``create_encounter`` that carries one of ``creator_secrets``). ``None``:
    #: ``secret`` when creator secrets are set, else ``open`` for a server on a loopback host
    #: that trusts no proxy; any other server refuses to start.
    create: str | None = None
    #: The secrets that let a ``create_encounter`` through (``--creator-secret``): each one a
    #: creator, with a quota of its own.
    creator_secrets: tuple[str, ...] = ()
    #: Encounters one client address may create per ``create_window`` (``server.quotas``); 0:
    #: no limit. Local clients are not counted.
    creates_per_address: int = 30
    #: Bytes of events one client address may store by creating encounters per window.
    create_bytes_per_address: int = 4 * 1024 * 1024
    #: Encounters one creator (one creator secret) may create per window, from any address.
    creates_per_creator: int = 300
    #: Bytes of events one creator may store by creating encounters per window.
    create_bytes_per_creator: int = 64 * 1024 * 1024
    #: Seconds over which a used-up create quota comes back whole (a little at a time).
    create_window: float = 3600.0
