"""Calls grouped into round trips: what many tasks ask of Redis at once goes together.

A reconnect storm brings thousands of ``hello``s within a second, each asking Redis for its
token's digest, and a busy process appends for many commands at once; one round trip each is
most of what they cost the server. ``Batched`` keeps one round trip in flight at a time: the
calls made while it runs wait, and go together in the next one. A lone call goes at once (one
loop step later, so that the calls of the same step join it): nothing waits when the server is
quiet, and the busier it is, the more each round trip carries. The store's token lookups and
its appends (``server.store``) go through it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

from server import metrics

K = TypeVar("K")
V = TypeVar("V")


class Batched(Generic[K, V]):
    """``get(key)`` answered by ``fetch(keys)``, which returns one outcome per key, in order:
    its value, or an exception for that caller alone (an exception ``fetch`` raises is every
    caller's). ``name`` labels the metrics of the calls and of the round trips that carried
    them."""

    def __init__(self, name: str,
                 fetch: Callable[[list[K]], Awaitable[Sequence[V | BaseException]]]) -> None:
        self._fetch = fetch
        self._waiting: list[tuple[K, asyncio.Future[V]]] = []
        self._runner: asyncio.Task[None] | None = None
        self._trips = metrics.GROUPED_TRIPS.labels(name)
        self._calls = metrics.GROUPED_CALLS.labels(name)

    async def get(self, key: K) -> V:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[V] = loop.create_future()
        self._waiting.append((key, future))
        if self._runner is None:
            self._runner = loop.create_task(self._run())
        return await future

    async def _run(self) -> None:
        try:
            while self._waiting:
                batch, self._waiting = self._waiting, []
                self._trips.inc()
                self._calls.inc(len(batch))
                try:
                    values = list(await self._fetch([key for key, _ in batch]))
                    if len(values) != len(batch):
                        raise RuntimeError(f"{len(values)} values for {len(batch)} keys")
                except asyncio.CancelledError:
                    for _, future in batch:
                        future.cancel()
                    raise
                except Exception as exc:  # every caller of this round trip gets its error
                    for _, future in batch:
                        if not future.done():
                            future.set_exception(exc)
                    continue
                for (_, future), value in zip(batch, values, strict=True):
                    if future.done():
                        continue  # its caller is gone (what it asked for was done all the same)
                    if isinstance(value, BaseException):
                        future.set_exception(value)
                    else:
                        future.set_result(value)
        finally:
            self._runner = None
            for _, future in self._waiting:  # (cancelled with callers still waiting)
                future.cancel()
            self._waiting = []
