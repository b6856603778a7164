"""Turn timers on the server (ruling R102, ``encounter.timers``): each process that serves an
encounter watches its running turn timer on its own clock and, when the warning or the end
comes, sends the encounter the timer's command as an ordinary command, from a seat of its own
(:class:`TimerSeat`). The deadline is in the log, so a process that loads the encounter after
another died watches it too; every process fires, and the command's id (the timer's number and
stage) lets exactly one firing through: the others are duplicates, or refused as stale."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from encounter.actors import Actor
from encounter.state import EncounterState
from encounter.timers import TIMER, TimerDue, command_for, next_due
from protocol.errors import ErrorCode
from protocol.messages import ServerMessage
from server.wire import LegalFrame


class Timed(Protocol):
    """What a timer needs of the room it runs in (``server.rooms.Room`` is one)."""

    id: str
    state: EncounterState

    @property
    def lost(self) -> bool: ...

log = logging.getLogger("stablemaster.timers")

#: The least time between two firings of one timer's stage on one process (a firing that
#: changed nothing, say while Redis was away, is tried again after it).
REFIRE_SECONDS = 0.5

#: How long after its due time a stage is scheduled: uvloop's timers may fire up to a
#: millisecond early (its clock counts whole milliseconds; its open PR 755), and the time a
#: command is decided at is rounded down to the millisecond. A stage that comes due early all
#: the same waits for the rest of its time (``TimerWatch._due``): it is never sent before its
#: deadline, which the decider would refuse, and try again only ``REFIRE_SECONDS`` later.
TIMER_PAD_SECONDS = 0.002


def _now_ms() -> float:
    return time.time() * 1000


class TimerSeat:
    """The connection a timer's command comes on: the room's, with the timer's credential;
    whatever the room answers it is dropped (a refusal is logged)."""

    cursor = False
    view = False
    batch_head = False
    summaries = False
    address: str | None = None
    campaign_seat: Any = None

    def __init__(self, room: Any) -> None:
        self.room = room
        self.actor: Actor | None = TIMER

    @property
    def gone(self) -> bool:
        return False

    def created(self) -> None:
        pass

    def send(self, message: ServerMessage) -> None:
        pass

    def enqueue(self, frame: bytes, head: Any = None) -> None:
        pass

    def error(self, code: ErrorCode, message: str, cid: str | None = None,
              details: dict[str, Any] | None = None) -> None:
        if code not in (ErrorCode.STALE, ErrorCode.CONFLICT):
            log.info("turn timer command %s refused: %s: %s", cid, code.value, message,
                     extra={"encounter": self.room.id if self.room else None})

    def offer_legal(self, legal: LegalFrame, force: bool = False) -> None:
        pass

    def acknowledge(self, cid: str, seq: int | None, cursor: str | None,
                    result: dict[str, Any], duplicate: bool, held: bool = False) -> None:
        pass

    def hold_reply(self) -> None:
        pass

    def release_reply(self, frame: bytes | None) -> None:
        pass

    def close_soon(self, code: int, reason: str, flush: bool = True) -> None:
        pass


#: Carries out one timer command for a room (``CommandService.handle`` with a ``TimerSeat``).
Fire = Callable[[Any, TimerDue], Awaitable[None]]


class TimerWatch:
    """The next stage of one room's running turn timer, on this process's clock."""

    def __init__(self, room: Timed, fire: Fire) -> None:
        self._room = room
        self._fire = fire
        self._handle: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[None] | None = None
        self._watched: tuple[int, str, int] | None = None
        self._fired_at = 0.0

    def follow(self, state: EncounterState) -> None:
        """Watch the stage ``state`` waits for (none: stop watching)."""
        due = next_due(state)
        timer = state.timer
        key = None if due is None or timer is None else (timer.number, due[1], due[0])
        if key == self._watched and (self._handle is not None or self._task is not None):
            return
        self.stop()
        self._watched = key
        if due is None or timer is None:
            return
        delay = max(0.0, (due[0] - _now_ms()) / 1000 + TIMER_PAD_SECONDS,
                    self._fired_at + REFIRE_SECONDS - time.monotonic())
        command = command_for(timer, due[1])
        self._handle = asyncio.get_running_loop().call_later(delay, self._due, command, due[0])

    def _due(self, command: TimerDue, due_ms: int) -> None:
        early = due_ms - _now_ms()
        if early > 0:  # (the loop's clock is ahead of the wall clock, or coarser than it)
            self._handle = asyncio.get_running_loop().call_later(
                early / 1000 + TIMER_PAD_SECONDS, self._due, command, due_ms)
            return
        self._handle = None
        self._fired_at = time.monotonic()
        self._task = asyncio.get_running_loop().create_task(self._run(command))

    async def _run(self, command: TimerDue) -> None:
        try:
            await self._fire(self._room, command)
        except Exception:  # (the command service logs its own failures)
            log.exception("turn timer %s failed", command.id)
        finally:
            self._task = None
        if not self._room.lost:
            self.follow(self._room.state)  # the next stage, or this one again if nothing moved

    def stop(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None
        self._watched = None
