"""Client addresses, and websocket connections per address (``--max-connections-per-address``).

The client address is the peer's, unless the peer is a trusted proxy (``--trusted-proxies``):
then it is the last address in ``X-Forwarded-For`` that is not a trusted proxy itself — the
one the nearest trusted proxy saw (nginx's ``$proxy_add_x_forwarded_for`` appends it on the
right; whatever a client wrote there itself stays to its left). Anyone else's
``X-Forwarded-For`` is ignored, since a client can write what it likes there.

A *local* client — a direct connection from a loopback address, with no ``X-Forwarded-For``
— is the operator's own (the demo's bots, the benchmark, a terminal client on the server's
host): it is not counted against the connection limit nor the create quotas. A loopback peer
that sends ``X-Forwarded-For`` without being a trusted proxy is a proxy the operator forgot
to list: its clients all count as that one address (and a warning says so, once).

Each process counts its own connections: behind a proxy that spreads clients over N replicas,
a client may hold up to N times the limit in all.
"""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from websockets.asyncio.server import ServerConnection

log = logging.getLogger("stablemaster.addresses")

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True, slots=True)
class ClientAddress:
    """Whom a connection counts as: its ``address``, and whether it is ``local`` (counted
    against no per-address limit)."""

    address: str
    local: bool = False


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        ip = ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


class ConnectionCounter:
    def __init__(self, limit: int, trusted_proxies: Sequence[str] = ()) -> None:
        #: Connections one address may hold; 0: no limit.
        self.limit = limit
        self.trusted: list[Network] = [ipaddress.ip_network(p, strict=False)
                                       for p in trusted_proxies]
        self.counts: dict[str, int] = {}
        self._warned = False

    def _trusted(self, ip: ipaddress.IPv4Address | ipaddress.IPv6Address | None) -> bool:
        return ip is not None and any(ip in net for net in self.trusted)

    def client(self, peer: Any, forwarded_for: Iterable[str]) -> ClientAddress:
        """Whom a connection counts as: see the module docstring. ``peer`` is the socket's
        peer name (``(host, port, ...)``), ``forwarded_for`` the ``X-Forwarded-For`` headers."""
        host = str(peer[0]) if isinstance(peer, tuple | list) and peer else str(peer)
        ip = _ip(host)
        hops = [h for h in (hop.strip() for value in forwarded_for for hop in value.split(","))
                if h]
        own = str(ip) if ip is not None else host
        loopback = ip is not None and ip.is_loopback
        if self._trusted(ip):
            for hop in reversed(hops):
                hop_ip = _ip(hop)
                if not self._trusted(hop_ip):
                    return ClientAddress(str(hop_ip) if hop_ip is not None else hop[:64])
        elif hops and loopback and not self._warned:
            self._warned = True
            log.warning("a connection from %s carries X-Forwarded-For, but %s is not a trusted "
                        "proxy: every client behind it counts as %s (for the connection limit "
                        "and the create quotas); list the proxy in --trusted-proxies",
                        own, own, own)
        return ClientAddress(own, local=loopback and not hops)

    def acquire(self, address: str) -> bool:
        """Count one more connection of ``address``, unless it is at the limit."""
        held = self.counts.get(address, 0)
        if self.limit and held >= self.limit:
            return False
        self.counts[address] = held + 1
        return True

    def release(self, address: str) -> None:
        held = self.counts.get(address, 0) - 1
        if held > 0:
            self.counts[address] = held
        else:
            self.counts.pop(address, None)


class CountedConnection(ServerConnection):
    """A websocket connection that gives its place back when it is gone, however it ends
    (the opening handshake too)."""

    release: Callable[[], None] | None = None
    #: whom the connection counts as, set at the handshake
    client: ClientAddress | None = None

    def connection_lost(self, exc: Exception | None) -> None:
        try:
            super().connection_lost(exc)
        finally:
            release, self.release = self.release, None
            if release is not None:
                release()
