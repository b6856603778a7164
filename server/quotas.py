"""Create quotas: how many encounters, and how many bytes of events, one client address and
one creator (a creator secret, ``server.creation``) may create over a window.

Each holder has a bucket in Redis, so that every process counts the same creates: what it has
used, draining at ``limit / window`` a second. A create that would take the bucket over its
limit — one more encounter, or its events' bytes as stored — is refused (``quota_exceeded``)
and creates nothing; so a holder may create up to the limit at once, and then, once it is used
up, one more encounter every ``window / limit`` seconds; after a window without creating, the
whole allowance is back. A create is charged to its address and its creator together, or to
neither. A retried create (the same command id) is not charged again. Local clients
(``server.addresses``) have no address quota; without a creator secret there is no creator
quota.

The buckets share the hash tag ``{quota}``: one Redis Cluster slot, so that one script charges
both.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

from encounter.rejected import Rejected
from protocol.errors import ErrorCode
from server.config import Settings

KEY = "stablemaster:{{quota}}:{}:{}"

# KEYS: the buckets to charge   ARGV: now (s), window (s), the create's bytes, then per bucket
# its encounter limit and its byte limit (0: none). Refused: {bucket index, 1 for encounters or
# 2 for bytes, seconds until it would fit (-1: never)}; else {0}.
_CHARGE = """
local now, window = tonumber(ARGV[1]), tonumber(ARGV[2])
local cost = {1, tonumber(ARGV[3])}
local n = #KEYS
local used = {}
for i = 1, n do
  local limits = {tonumber(ARGV[2 + 2 * i]), tonumber(ARGV[3 + 2 * i])}
  local held = redis.call('HMGET', KEYS[i], 'n', 'b', 't')
  local elapsed = math.max(0, now - (tonumber(held[3]) or now))
  used[i] = {}
  for j = 1, 2 do
    local u = 0
    if limits[j] > 0 then
      u = math.max(0, (tonumber(held[j]) or 0) - elapsed * limits[j] / window)
      if u + cost[j] > limits[j] then
        local wait = -1
        if cost[j] <= limits[j] then wait = (u + cost[j] - limits[j]) * window / limits[j] end
        return {i, j, tostring(wait)}
      end
    end
    used[i][j] = u + cost[j]
  end
end
for i = 1, n do
  redis.call('HSET', KEYS[i], 'n', tostring(used[i][1]), 'b', tostring(used[i][2]),
             't', tostring(now))
  redis.call('EXPIRE', KEYS[i], math.ceil(window))
end
return {0}
"""

MEASURES = ("encounters", "bytes")


@dataclass(frozen=True)
class Allowance:
    """What one holder may create over the window; 0: no limit."""

    encounters: int
    bytes: int

    @property
    def unlimited(self) -> bool:
        return self.encounters <= 0 and self.bytes <= 0


class CreateQuotas:
    def __init__(self, redis: Any, settings: Settings) -> None:
        self.window = max(1.0, settings.create_window)
        self.per_address = Allowance(settings.creates_per_address,
                                     settings.create_bytes_per_address)
        self.per_creator = Allowance(settings.creates_per_creator,
                                     settings.create_bytes_per_creator)
        self._charge = redis.register_script(_CHARGE)

    async def charge(self, address: str | None, creator: str | None, size: int) -> None:
        """Count a create of ``size`` bytes against ``address`` (``None``: a local client) and
        ``creator`` (``None``: none), or refuse it (``Rejected``, ``quota_exceeded``) and count
        nothing."""
        holders = [(scope, name, allowance) for scope, name, allowance in (
            ("address", address, self.per_address), ("creator", creator, self.per_creator))
            if name is not None and not allowance.unlimited]
        if not holders:
            return
        limits = [x for _, _, a in holders for x in (max(0, a.encounters), max(0, a.bytes))]
        reply = await self._charge(keys=[KEY.format(scope, name) for scope, name, _ in holders],
                                   args=[repr(time.time()), repr(self.window), size, *limits])
        if int(reply[0]) == 0:
            return
        scope, _, allowance = holders[int(reply[0]) - 1]
        measure = MEASURES[int(reply[1]) - 1]
        wait = float(reply[2])
        limit = allowance.encounters if measure == "encounters" else allowance.bytes
        retry_after = None if wait < 0 else max(1, math.ceil(wait))
        who = "this address" if scope == "address" else "this creator secret"
        what = (f"{limit} encounters" if measure == "encounters"
                else f"{limit} bytes of encounters")
        when = ("this encounter is larger than the whole allowance" if retry_after is None
                else f"retry in {retry_after} s")
        raise Rejected(ErrorCode.QUOTA_EXCEEDED,
                       f"{who} may create {what} per {self.window:g} s: {when}",
                       quota=scope, measure=measure, limit=limit, window=self.window,
                       retry_after=retry_after)
