"""``stablemaster`` command line (also ``python -m server``)."""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from server import __version__
from server.config import Settings
from server.loop import LOOPS, LoopUnavailable
from server.loop import run as run_on
from server.origins import origin_list

ENV = {
    "host": "STABLEMASTER_HOST",
    "port": "STABLEMASTER_PORT",
    "redis_url": "REDIS_URL",
    "redis_cluster": "REDIS_CLUSTER",
    "data_dir": "STABLEMASTER_DATA_DIR",
    "log_level": "STABLEMASTER_LOG_LEVEL",
    "log_format": "STABLEMASTER_LOG_FORMAT",
    "secret": "STABLEMASTER_SECRET",
    "public_url": "STABLEMASTER_PUBLIC_URL",
    "read_ticket_seconds": "STABLEMASTER_READ_TICKET_SECONDS",
    "commands_per_second": "STABLEMASTER_COMMANDS_PER_SECOND",
    "command_burst": "STABLEMASTER_COMMAND_BURST",
    "read_events_per_second": "STABLEMASTER_READ_EVENTS_PER_SECOND",
    "read_event_burst": "STABLEMASTER_READ_EVENT_BURST",
    "durability": "STABLEMASTER_DURABILITY",
    "wait_replicas": "STABLEMASTER_WAIT_REPLICAS",
    "wait_timeout": "STABLEMASTER_WAIT_TIMEOUT",
    "hello_timeout": "STABLEMASTER_HELLO_TIMEOUT",
    "max_connections_per_address": "STABLEMASTER_MAX_CONNECTIONS_PER_ADDRESS",
    "trusted_proxies": "STABLEMASTER_TRUSTED_PROXIES",
    "allow_origins": "STABLEMASTER_ALLOW_ORIGIN",
    "create": "STABLEMASTER_CREATE",
    "creator_secrets": "STABLEMASTER_CREATOR_SECRET",
    "creates_per_address": "STABLEMASTER_CREATES_PER_ADDRESS",
    "create_bytes_per_address": "STABLEMASTER_CREATE_BYTES_PER_ADDRESS",
    "creates_per_creator": "STABLEMASTER_CREATES_PER_CREATOR",
    "create_bytes_per_creator": "STABLEMASTER_CREATE_BYTES_PER_CREATOR",
    "create_window": "STABLEMASTER_CREATE_WINDOW",
    "max_encounter_events": "STABLEMASTER_MAX_ENCOUNTER_EVENTS",
    "max_encounter_bytes": "STABLEMASTER_MAX_ENCOUNTER_BYTES",
    "loop": "STABLEMASTER_LOOP",
}


#: The demo encounters each ``--demo-ruleset`` choice starts.
_DEMOS = {"both": ("dramatic", "action_time"), "all": ("dramatic", "action_time", "social")}


def _env(name: str, default: str | None = None) -> str | None:
    value = os.environ.get(ENV[name])
    return value if value not in (None, "") else default


def proxy_list(text: str) -> tuple[str, ...]:
    """``--trusted-proxies``: addresses or networks, separated by commas."""
    proxies = tuple(part.strip() for part in text.split(",") if part.strip())
    for proxy in proxies:
        try:
            ipaddress.ip_network(proxy, strict=False)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{proxy!r} is not an IP address or network (such as 10.0.0.0/8)") from None
    return proxies


def allowed_origins(text: str) -> tuple[str, ...]:
    """``--allow-origin``: origins separated by commas, or ``*``."""
    try:
        return origin_list(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def secret_list(text: str) -> tuple[str, ...]:
    """``--creator-secret``: one secret, or several separated by commas."""
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _int_env(name: str, default: int) -> int:
    return int(_env(name, str(default)) or default)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="stablemaster",
        description="Stablemaster: a real-time encounter server for tabletop role-playing games.",
    )
    parser.add_argument("--version", action="version", version=f"stablemaster {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser(
        "serve", help="run the server",
        description="Run the websocket server. Every flag has an environment variable "
        "(shown in brackets); the flag wins.",
    )
    d = Settings()
    serve.add_argument("--host", default=_env("host", d.host),
                       help=f"address to listen on [{ENV['host']}] (default {d.host})")
    serve.add_argument("--port", type=int, default=int(_env("port", str(d.port)) or d.port),
                       help=f"port for websockets and HTTP [{ENV['port']}] (default {d.port}; "
                       "0 picks a free port)")
    serve.add_argument("--redis-url", default=_env("redis_url"),
                       help=f"Redis to use, e.g. redis://host:6379/0 [{ENV['redis_url']}]; "
                       "without it an embedded Redis is started, persisting under --data-dir")
    serve.add_argument("--redis-cluster", action="store_true",
                       default=(_env("redis_cluster", "") or "").lower() in ("1", "true", "yes"),
                       help=f"treat --redis-url as a Redis Cluster node [{ENV['redis_cluster']}]")
    serve.add_argument("--data-dir", type=Path, default=Path(_env("data_dir", "data") or "data"),
                       help=f"directory for the embedded Redis's files [{ENV['data_dir']}] "
                       "(default ./data)")
    serve.add_argument("--log-level", default=(_env("log_level", "INFO") or "INFO").upper(),
                       choices=["DEBUG", "INFO", "WARNING", "ERROR"],
                       help=f"log level [{ENV['log_level']}] (default INFO)")
    serve.add_argument("--log-format", default=_env("log_format", "text"),
                       choices=["text", "json"],
                       help=f"log line format [{ENV['log_format']}] (default text)")
    serve.add_argument("--secret", default=_env("secret"),
                       help=f"server secret for tokens [{ENV['secret']}]; shared by all "
                       "processes (default: one generated once and kept in Redis)")
    serve.add_argument("--public-url", default=_env("public_url"),
                       help=f"base URL clients use, for printed links [{ENV['public_url']}]")
    serve.add_argument("--read-ticket-seconds", type=float,
                       default=float(_env("read_ticket_seconds", str(d.read_ticket_seconds))
                                     or d.read_ticket_seconds),
                       help=f"how long a read ticket of the read API (/read/) opens streams "
                       f"[{ENV['read_ticket_seconds']}] (default {d.read_ticket_seconds:g})")
    serve.add_argument("--commands-per-second", type=float,
                       default=float(_env("commands_per_second", str(d.commands_per_second))
                                     or d.commands_per_second),
                       help=f"per-connection command rate [{ENV['commands_per_second']}] "
                       f"(default {d.commands_per_second:g})")
    serve.add_argument("--command-burst", type=int,
                       default=int(_env("command_burst", str(d.command_burst))
                                   or d.command_burst),
                       help=f"commands a connection may send at once [{ENV['command_burst']}] "
                       f"(default {d.command_burst})")
    serve.add_argument("--loop", choices=LOOPS, default=_env("loop", "auto"),
                       help=f"the event loop [{ENV['loop']}]: uvloop where it is installed (a "
                       "dependency on Linux and macOS), else asyncio's (auto); uvloop (or "
                       "refuse to start); asyncio (default auto)")
    serve.add_argument("--read-events-per-second", type=float, metavar="N",
                       default=float(_env("read_events_per_second",
                                          str(d.read_events_per_second))
                                     or d.read_events_per_second),
                       help="events a credential may read by replays and history pages, "
                       "refilled each second (an address: four times as many) "
                       f"[{ENV['read_events_per_second']}] (default "
                       f"{d.read_events_per_second:g})")
    serve.add_argument("--read-event-burst", type=int, metavar="N",
                       default=_int_env("read_event_burst", d.read_event_burst),
                       help="events a credential may read at once by replays and history "
                       "pages (an address: four times as many) "
                       f"[{ENV['read_event_burst']}] (default {d.read_event_burst})")
    serve.add_argument("--durability", choices=["everysec", "always", "replicas"],
                       default=_env("durability", d.durability),
                       help=f"what a command's ack waits for [{ENV['durability']}]: everysec "
                       "(Redis's reply; a host crash may lose the last second or so), always "
                       "(the AOF fsynced: appendfsync always for the embedded Redis, else "
                       "Redis's appendfsync always or WAITAOF), replicas (WAIT for "
                       f"--wait-replicas replicas) (default {d.durability}; see the README)")
    serve.add_argument("--wait-replicas", type=int,
                       default=int(_env("wait_replicas", str(d.wait_replicas))
                                   or d.wait_replicas),
                       help=f"replicas an append must reach with --durability replicas "
                       f"[{ENV['wait_replicas']}] (default {d.wait_replicas})")
    serve.add_argument("--wait-timeout", type=float, metavar="SECONDS",
                       default=float(_env("wait_timeout", str(d.wait_timeout))
                                     or d.wait_timeout),
                       help="longest wait for the fsync or the replicas before the command "
                       f"answers `unavailable` [{ENV['wait_timeout']}] "
                       f"(default {d.wait_timeout:g})")
    serve.add_argument("--hello-timeout", type=float, metavar="SECONDS",
                       default=float(_env("hello_timeout", str(d.hello_timeout))
                                     or d.hello_timeout),
                       help="seconds a connection has to say hello with a token "
                       "(successfully), or to create an encounter after a hello without one, "
                       f"before it is closed with 4002 [{ENV['hello_timeout']}] (default "
                       f"{d.hello_timeout:g}; 0: no deadline)")
    serve.add_argument("--max-connections-per-address", type=int, metavar="N",
                       default=_int_env("max_connections_per_address",
                                        d.max_connections_per_address),
                       help="websocket connections and read API streams one client address "
                       "may hold open on this "
                       "process; more are refused at the handshake (HTTP 429); local clients "
                       "(direct from a loopback address) are not counted "
                       f"[{ENV['max_connections_per_address']}] (default "
                       f"{d.max_connections_per_address}; 0: no limit)")
    serve.add_argument("--trusted-proxies", type=proxy_list, metavar="LIST",
                       default=_env("trusted_proxies", ""),  # a string: argparse reads it
                       help="proxies, by address or network (comma-separated, e.g. "
                       "172.30.0.0/24), whose X-Forwarded-For header names the client address "
                       "for --max-connections-per-address and the create quotas "
                       f"[{ENV['trusted_proxies']}] (default none: the header is ignored)")
    serve.add_argument("--allow-origin", type=allowed_origins, metavar="LIST",
                       dest="allow_origins", default=_env("allow_origins", ""),
                       help="origins (comma-separated, e.g. https://foundry.example:30000, or "
                       "*) whose browser pages may open /ws and read the HTTP endpoints "
                       "(CORS), besides the server's own pages; clients that are no browser "
                       f"page are not concerned [{ENV['allow_origins']}] (default none)")
    serve.add_argument("--create", choices=["open", "secret"], default=_env("create"),
                       help="who may create encounters: open (anyone) or secret (only with a "
                       f"--creator-secret) [{ENV['create']}] (default: secret when a creator "
                       "secret is set, else open on a loopback --host that trusts no proxy; "
                       "any other server refuses to start without one or the other)")
    serve.add_argument("--creator-secret", type=secret_list, metavar="SECRET",
                       dest="creator_secrets",
                       default=_env("creator_secrets", ""),  # a string: argparse reads it
                       help="the secret a create_encounter must carry (several: separated by "
                       "commas, each a creator with its own quota; at least 16 characters, "
                       f"e.g. `openssl rand -hex 16`) [{ENV['creator_secrets']}: prefer it, a "
                       "flag shows in the process list]")
    serve.add_argument("--creates-per-address", type=int, metavar="N",
                       default=_int_env("creates_per_address", d.creates_per_address),
                       help="encounters one client address may create per --create-window "
                       f"[{ENV['creates_per_address']}] (default {d.creates_per_address}; "
                       "0: no limit; local clients are not counted)")
    serve.add_argument("--create-bytes-per-address", type=int, metavar="BYTES",
                       default=_int_env("create_bytes_per_address",
                                        d.create_bytes_per_address),
                       help="bytes of events one client address may store by creating "
                       f"encounters per window [{ENV['create_bytes_per_address']}] (default "
                       f"{d.create_bytes_per_address}; 0: no limit)")
    serve.add_argument("--creates-per-creator", type=int, metavar="N",
                       default=_int_env("creates_per_creator", d.creates_per_creator),
                       help="encounters one creator secret may create per window, from any "
                       f"address [{ENV['creates_per_creator']}] (default "
                       f"{d.creates_per_creator}; 0: no limit)")
    serve.add_argument("--create-bytes-per-creator", type=int, metavar="BYTES",
                       default=_int_env("create_bytes_per_creator",
                                        d.create_bytes_per_creator),
                       help="bytes of events one creator secret may store by creating "
                       f"encounters per window [{ENV['create_bytes_per_creator']}] (default "
                       f"{d.create_bytes_per_creator}; 0: no limit)")
    serve.add_argument("--create-window", type=float, metavar="SECONDS",
                       default=float(_env("create_window", str(d.create_window))
                                     or d.create_window),
                       help="the create quotas' window: a used-up quota comes back, a little "
                       f"at a time, over this many seconds [{ENV['create_window']}] (default "
                       f"{d.create_window:g})")
    serve.add_argument("--max-encounter-events", type=int, metavar="N",
                       default=_int_env("max_encounter_events", d.max_encounter_events),
                       help="the most events one encounter holds: past it a command gets "
                       "encounter_full, but for the GM ending the encounter or revoking a "
                       f"credential [{ENV['max_encounter_events']}] (default "
                       f"{d.max_encounter_events}; 0: no bound)")
    serve.add_argument("--max-encounter-bytes", type=int, metavar="BYTES",
                       default=_int_env("max_encounter_bytes", d.max_encounter_bytes),
                       help="the most bytes of events (as stored) one encounter holds, the same "
                       f"way [{ENV['max_encounter_bytes']}] (default {d.max_encounter_bytes}; "
                       "0: no bound)")
    serve.add_argument("--demo", action="store_true",
                       help="create demo encounters at start and print their links")
    serve.add_argument("--demo-ruleset", choices=["dramatic", "action_time", "social", "both",
                                                  "all"],
                       default="all", help="the demo's encounters: a ruleset, `social` (the "
                       "Canterlot garden party, a social scene), `both` rulesets' fights, or "
                       "`all` three (default all)")
    serve.add_argument("--demo-wait", type=float, default=d.demo_wait, metavar="SECONDS",
                       help="seconds a demo scene waits, once someone first opens one of its "
                       "links, for people to take seats before bots play every seat nobody "
                       f"has taken (default {d.demo_wait:g}; negative: no bots)")
    serve.add_argument("--demo-log", metavar="FILE", default=None,
                       help="file the demo's bots log their moves to, so that they do not "
                       "push the printed links away (default demo.log in --data-dir; `-`: "
                       "the server's log)")
    serve.add_argument("--demo-pace", type=float, default=d.demo_pace, metavar="SECONDS",
                       help=f"seconds between bot moves in the demo (default {d.demo_pace:g})")
    return parser


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        data = {"ts": round(record.created, 3), "level": record.levelname,
                "logger": record.name, "msg": record.getMessage()}
        for key in ("encounter", "ruleset", "session"):
            if hasattr(record, key):
                data[key] = getattr(record, key)
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        return json.dumps(data)


def setup_logging(level: str, fmt: str) -> None:
    handler = logging.StreamHandler(sys.stderr)
    if fmt == "json":
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    logging.getLogger("websockets").setLevel(max(logging.WARNING, root.level))


def settings_from(args: argparse.Namespace) -> Settings:
    return Settings(
        host=args.host, port=args.port, redis_url=args.redis_url,
        redis_cluster=args.redis_cluster, data_dir=args.data_dir, log_level=args.log_level,
        log_format=args.log_format, secret=args.secret, public_url=args.public_url,
        read_ticket_seconds=args.read_ticket_seconds,
        demo=args.demo, commands_per_second=args.commands_per_second,
        demo_rulesets=_DEMOS.get(args.demo_ruleset, (args.demo_ruleset,)),
        demo_wait=args.demo_wait, demo_pace=args.demo_pace,
        demo_log=None if args.demo_log == "-" else
        Path(args.demo_log) if args.demo_log else args.data_dir / "demo.log",
        command_burst=args.command_burst, durability=args.durability,
        read_events_per_second=args.read_events_per_second,
        read_event_burst=args.read_event_burst,
        wait_replicas=args.wait_replicas, wait_timeout=args.wait_timeout,
        hello_timeout=args.hello_timeout,
        max_connections_per_address=args.max_connections_per_address,
        trusted_proxies=args.trusted_proxies, allow_origins=args.allow_origins,
        create=args.create, creator_secrets=args.creator_secrets,
        creates_per_address=args.creates_per_address,
        create_bytes_per_address=args.create_bytes_per_address,
        creates_per_creator=args.creates_per_creator,
        create_bytes_per_creator=args.create_bytes_per_creator,
        create_window=args.create_window,
        max_encounter_events=args.max_encounter_events,
        max_encounter_bytes=args.max_encounter_bytes,
    )


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "serve":
        settings = settings_from(args)
        setup_logging(settings.log_level, settings.log_format)
        from server.app import ConfigError, run

        try:
            with contextlib.suppress(KeyboardInterrupt):
                run_on(run(settings), args.loop)
        except (ConfigError, LoopUnavailable) as exc:
            logging.getLogger("stablemaster").error("%s", exc)
            return 2
        return 0
    return 2


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
