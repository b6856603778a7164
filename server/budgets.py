"""What reads may cost: token buckets, per credential and per client address.

A read that works through the log — a replay (``hello.replay``), a page of history
(``get_history``, ``GET /read/history``) — is charged the events it may read: a replay the
events of the log, a page its ``limit``. Each credential has a bucket of
``read_event_burst`` events that refills at ``read_events_per_second``; each client address
(``server.addresses``: local clients have none) one of ``ADDRESS_FACTOR`` times that, shared
by the credentials used from it. A read that does not fit in both is refused
(``rate_limited``, with ``details.retry_after``, the seconds until it would) and charged to
neither. A read larger than a whole bucket is charged a whole bucket.

The requests of the read API (``/read/*``) are counted as a websocket's messages are: each is
one message against a bucket of ``command_burst`` refilling at ``commands_per_second``, per
credential and per address.

Each process counts its own: behind a proxy that spreads clients over N replicas, a client may
read up to N times as much.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

#: An address's bucket holds this many credentials' worth.
ADDRESS_FACTOR = 4
#: Buckets kept before the full ones (untouched for long) are forgotten.
KEEP = 10_000


@dataclass(frozen=True, slots=True)
class Refused:
    """A charge that did not fit: whose bucket (``credential`` or ``address``), and the
    seconds until it would (at least 1)."""

    budget: str
    retry_after: int


class Buckets:
    """Token buckets by key, each of ``burst`` refilling at ``rate`` a second."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = max(rate, 1e-9)
        self.burst = max(burst, 1.0)
        self._held: dict[str, tuple[float, float]] = {}

    def level(self, key: str, now: float) -> float:
        held = self._held.get(key)
        if held is None:
            return self.burst
        tokens, at = held
        return min(self.burst, tokens + (now - at) * self.rate)

    def wait(self, key: str, cost: float, now: float) -> float:
        """Seconds until ``cost`` fits in ``key``'s bucket (0: now)."""
        short = min(cost, self.burst) - self.level(key, now)
        return max(0.0, short / self.rate)

    def take(self, key: str, cost: float, now: float) -> None:
        self._held[key] = (self.level(key, now) - min(cost, self.burst), now)
        if len(self._held) > KEEP:
            self._forget(now)

    def _forget(self, now: float) -> None:
        full = [k for k in self._held if self.level(k, now) >= self.burst]
        for k in full:
            del self._held[k]


class ReadBudget:
    """Charges reads per credential and per address (see the module's docstring)."""

    def __init__(self, rate: float, burst: float, factor: float = ADDRESS_FACTOR) -> None:
        self.credentials = Buckets(rate, burst)
        self.addresses = Buckets(rate * factor, burst * factor)

    def charge(self, credential: str, address: str | None, cost: float) -> Refused | None:
        """Charge ``cost`` to ``credential`` and ``address`` (``None``: a local client), or
        neither: then why not (``Refused``)."""
        now = time.monotonic()
        waits = [("credential", self.credentials.wait(credential, cost, now))]
        if address is not None:
            waits.append(("address", self.addresses.wait(address, cost, now)))
        budget, wait = max(waits, key=lambda w: w[1])
        if wait > 0:
            return Refused(budget, max(1, math.ceil(wait)))
        self.credentials.take(credential, cost, now)
        if address is not None:
            self.addresses.take(address, cost, now)
        return None
