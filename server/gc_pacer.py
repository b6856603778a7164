"""The cycle collector on a clock, not on allocation counts.

CPython starts a collection of its young generation after a fixed number of net allocations.
Under load that is many collections, each scanning whatever happens to be alive at that moment
(the commands in flight); when the server is quiet, the same threshold lets survivors pile up
until one collection scans them all at once. Neither suits a server whose objects mostly die by
reference counting and whose long-lived objects (connections, rooms) should never be scanned.

So while a server runs, the pacer collects on a clock: the young generation every
``YOUNG_EVERY`` seconds, the middle one every ``MIDDLE_EVERY``, the old one every
``OLD_EVERY``. Each collection scans only what was allocated since the previous one and is
still alive, so pauses stay short at any load, and under load there are fewer of them. The
objects of a started server leave the scans altogether (``gc.freeze``). Automatic collection
stays on with a high first threshold, as a backstop for a burst of allocations between ticks.

This pays because the command path leaves no cyclic garbage (a decision drops its references
back to itself when it is done, ``encounter.engine.Decision.release``): what the young
generations hold is the commands in flight and the connections' own short-lived objects. In
the benchmark (``bench/``) the pacer, with the middle generation every 0.6 s, gave 1,200
actions/s at saturation (E = 100) and a p99 of 7.8 ms at human pace (E = 500), where
thresholds of (1,000, 10, 1,000) gave 979 actions/s and 15.3 ms, with a 37 ms pause. Every
0.4 s brought the longest pause at human pace from about 11 ms down to about 8 ms.
"""

from __future__ import annotations

import asyncio
import gc

YOUNG_EVERY = 0.2
MIDDLE_EVERY = 0.4
OLD_EVERY = 300.0
#: Automatic collections only for a burst this large between two ticks.
BACKSTOP_THRESHOLD = 50_000

_running = 0
_saved_threshold: tuple[int, int, int] | None = None


class GcPacer:
    def __init__(self) -> None:
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        global _running, _saved_threshold
        gc.collect()
        gc.freeze()  # what exists now (modules, the server itself) is never garbage
        if _running == 0:
            _saved_threshold = gc.get_threshold()
            gc.set_threshold(BACKSTOP_THRESHOLD, 10, 10)
        _running += 1
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def stop(self) -> None:
        global _running
        if self._task is None:
            return
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)
        self._task = None
        _running -= 1
        if _running == 0 and _saved_threshold is not None:
            gc.set_threshold(*_saved_threshold)

    async def _run(self) -> None:
        middle = round(MIDDLE_EVERY / YOUNG_EVERY)
        old = round(OLD_EVERY / YOUNG_EVERY)
        tick = 0
        while True:
            await asyncio.sleep(YOUNG_EVERY)
            tick += 1
            if tick % old == 0:
                gc.collect(2)
            elif tick % middle == 0:
                gc.collect(1)
            else:
                gc.collect(0)
