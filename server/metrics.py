"""Prometheus metrics (``GET /metrics``)."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

REGISTRY = CollectorRegistry(auto_describe=True)

CONNECTIONS = Gauge("stablemaster_connections", "Open websocket connections", registry=REGISTRY)
ROOMS = Gauge("stablemaster_rooms", "Encounters with connections on this process",
              registry=REGISTRY)
COMMANDS = Counter("stablemaster_commands_total", "Commands handled, by type and outcome",
                   ["type", "outcome"], registry=REGISTRY)
COMMAND_SECONDS = Histogram(
    "stablemaster_command_seconds", "Time from receiving a command to its ack or error",
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
    registry=REGISTRY,
)
FANOUT_LAG = Histogram(
    "stablemaster_fanout_lag_seconds",
    "Time from an event being appended to this process delivering it to its connections",
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0),
    registry=REGISTRY,
)
EVENTS_DELIVERED = Counter("stablemaster_events_delivered_total",
                           "Event messages queued to connections", registry=REGISTRY)
EMBEDDED_RESTARTS = Counter("stablemaster_embedded_redis_restarts_total",
                            "Times the embedded Redis died under the server and was started "
                            "again", registry=REGISTRY)
SLOW_CLIENTS = Counter("stablemaster_slow_clients_closed_total",
                       "Connections closed because their send queue overflowed",
                       registry=REGISTRY)
GROUPED_CALLS = Counter("stablemaster_grouped_calls_total",
                        "Calls to Redis made through a grouping (server.batched): token "
                        "lookups, appends", ["kind"], registry=REGISTRY)
GROUPED_TRIPS = Counter("stablemaster_grouped_round_trips_total",
                        "Round trips that carried those calls, by kind", ["kind"],
                        registry=REGISTRY)
ROOM_CHECKS = Counter("stablemaster_room_checks_total",
                      "Checks of a room against the end of its log in Redis: made, or shared "
                      "with one under way", ["way"], registry=REGISTRY)
HELLO_TIMEOUTS = Counter("stablemaster_hello_timeouts_total",
                         "Connections closed because they did not say hello in time (4002)",
                         registry=REGISTRY)
CONNECTIONS_REFUSED = Counter("stablemaster_connections_refused_total",
                              "Websocket handshakes refused, by reason", ["reason"],
                              registry=REGISTRY)
CONFLICTS = Counter("stablemaster_append_conflicts_total",
                    "Appends that lost a compare-and-set race and were retried",
                    registry=REGISTRY)

REWINDS = Counter("stablemaster_log_rewinds_total",
                  "Rooms reloaded because the log in Redis was not the one they held (it went "
                  "back, and perhaps grew again)", registry=REGISTRY)
LOST = Counter("stablemaster_encounters_lost_total",
               "Rooms whose encounter was no longer in Redis (restored to before it existed): "
               "their connections were told and closed (4003)", registry=REGISTRY)
DICE_RENEWALS = Counter("stablemaster_dice_renewals_total",
                        "Encounters whose dice were renewed because the log went back to "
                        "before their secret was shown (R117)", registry=REGISTRY)
RESUME_SNAPSHOTS = Counter("stablemaster_resume_snapshots_total",
                           "Resumes answered with a snapshot instead of the missed events, by "
                           "reason", ["reason"], registry=REGISTRY)
NOT_DURABLE = Counter("stablemaster_appends_not_durable_total",
                      "Appends that Redis did not confirm durable in time (WAIT/WAITAOF)",
                      registry=REGISTRY)
CREATE_TAKEOVERS = Counter("stablemaster_create_takeovers_total",
                           "Retried create_encounter commands that completed a create whose "
                           "first attempt did not", registry=REGISTRY)


def render() -> bytes:
    return generate_latest(REGISTRY)
