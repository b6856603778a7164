"""The benchmark's servers run on one event loop (``--server-loop``): Stablemaster's and the
floors', so that a ratio to a floor measures the server, not the loop."""

from __future__ import annotations

import asyncio
import time

import pytest

from bench import procs
from server.loop import factory


async def logged(stack: procs.Stack, text: str, timeout: float = 10) -> str:
    """The stack's log once it holds ``text`` (a port may open before the line is written)."""
    deadline = time.monotonic() + timeout
    while text not in stack.logs() and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    return stack.logs()


@pytest.mark.parametrize("loop", ["auto", "asyncio"])
@pytest.mark.parametrize("target", ["stablemaster", "redis-relay", "bare-relay"])
async def test_the_server_and_the_floors_run_on_the_loop_given(target: str, loop: str) -> None:
    expected = f"event loop {factory(loop)[0]}"
    stack = await procs.start_stack(target, None, ["--log-level", "INFO"]
                                    if target == "stablemaster" else [], loop=loop)
    try:
        assert expected in await logged(stack, expected)
    finally:
        stack.stop()
        stack.cleanup()
