"""The server's event loop (``server.loop``, ``--loop``): uvloop where the platform has it,
asyncio's own on request or where it has not; a turn timer's stage is never sent before its
deadline on the loop that ships (uvloop's timers may fire up to a millisecond early)."""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Any

import pytest

from encounter.state import EncounterState, TurnTimer
from encounter.timers import TimerDue
from server.cli import ENV, build_parser
from server.loop import LOOPS, describe, factory, run
from server.timers import TimerWatch

SHIPS_UVLOOP = sys.platform != "win32" and sys.implementation.name == "cpython"


def test_auto_is_uvloop_where_it_ships_and_asyncio_is_asyncio() -> None:
    name, make = factory("auto")
    assert name == ("uvloop" if SHIPS_UVLOOP else "asyncio")
    assert (make is not None) == SHIPS_UVLOOP
    assert factory("asyncio") == ("asyncio", None)
    with pytest.raises(ValueError):
        factory("trio")


@pytest.mark.parametrize("choice", LOOPS)
def test_run_runs_on_the_loop_chosen(choice: str) -> None:
    async def which() -> str:
        return describe()

    name, _ = factory(choice)
    assert run(which(), choice).startswith(name)


def test_the_flag_and_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ENV.values():
        monkeypatch.delenv(variable, raising=False)
    assert build_parser().parse_args(["serve"]).loop == "auto"
    monkeypatch.setenv("STABLEMASTER_LOOP", "asyncio")
    assert build_parser().parse_args(["serve"]).loop == "asyncio"
    assert build_parser().parse_args(["serve", "--loop", "uvloop"]).loop == "uvloop"


class Room:
    """What a timer reads of its room: the state with the running timer."""

    def __init__(self, deadline: int) -> None:
        self.id = "enc"
        self.lost = False
        self.state = EncounterState(id="enc", version=1, timer=TurnTimer(
            number=1, combatant="ace", deadline=deadline))


async def fired_at(deadlines: list[int]) -> list[tuple[int, float]]:
    """Watch a timer per deadline; each deadline and the wall-clock time (ms) its command
    came."""
    fired: list[tuple[int, float]] = []
    done = asyncio.get_running_loop().create_future()

    async def fire(room: Any, command: TimerDue) -> None:
        fired.append((room.state.timer.deadline, time.time() * 1000))
        room.state = EncounterState(id="enc", version=2)  # the timer is over
        if len(fired) == len(deadlines) and not done.done():
            done.set_result(None)

    watches = []
    for deadline in deadlines:
        watch = TimerWatch(Room(deadline), fire)
        watch.follow(watch._room.state)
        watches.append(watch)
    await asyncio.wait_for(done, 10)
    for watch in watches:
        watch.stop()
    return fired


def test_a_timer_never_fires_before_its_deadline_on_the_loop_that_ships() -> None:
    """Deadlines a few to a hundred milliseconds away, at every fraction of a millisecond
    from now: each stage is sent at or after its deadline, and soon after it."""
    async def main() -> list[tuple[int, float]]:
        now = time.time() * 1000
        return await fired_at([int(now) + 3 + i % 97 for i in range(200)])

    fired = run(main(), "auto")
    assert len(fired) == 200
    late = [at - deadline for deadline, at in fired]
    assert min(late) >= 0, f"fired {-min(late):.3f} ms before its deadline"
    assert sorted(late)[len(late) // 2] < 100  # (not on the refire path: half a second)


def test_a_stage_that_comes_due_early_waits_for_the_rest_of_its_time() -> None:
    """The loop's clock ahead of the wall clock: the stage comes due 40 ms early, and is
    sent only when its deadline has passed."""
    async def main() -> list[tuple[int, float]]:
        fired: list[tuple[int, float]] = []
        done = asyncio.get_running_loop().create_future()

        async def fire(room: Any, command: TimerDue) -> None:
            fired.append((room.state.timer.deadline, time.time() * 1000))
            room.state = EncounterState(id="enc", version=2)
            done.set_result(None)

        deadline = int(time.time() * 1000) + 40
        watch = TimerWatch(Room(deadline), fire)
        watch._due(TimerDue(id="timer-1-expire", number=1, stage="expire"), deadline)
        await asyncio.wait_for(done, 5)
        return fired

    ((deadline, at),) = run(main(), "auto")
    assert at >= deadline


def logged(proc: Any, text: str, timeout: float = 10) -> bool:
    """Whether ``proc`` logs ``text`` within ``timeout`` (its port may open before the line
    is written)."""
    deadline = time.monotonic() + timeout
    while text not in proc.output():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


def test_a_server_process_runs_on_the_loop_that_ships_and_says_so(spawn: type) -> None:
    proc = spawn()
    assert logged(proc, f"event loop {'uvloop' if SHIPS_UVLOOP else 'asyncio'}"), proc.output()
    other = spawn(None, "--loop", "asyncio")
    assert logged(other, "event loop asyncio"), other.output()
