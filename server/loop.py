"""The event loop the server runs on (``--loop``, ``STABLEMASTER_LOOP``): uvloop where the
platform has it (a dependency on every platform but Windows), else asyncio's own.

- ``auto`` (the default): uvloop when it can be imported, else asyncio's loop;
- ``uvloop``: uvloop, or the server does not start;
- ``asyncio``: asyncio's own loop, uvloop or not.

uvloop's timers may fire up to a millisecond before their time (its clock is read in whole
milliseconds); ``server.timers`` pads its deadlines by ``TIMER_PAD_SECONDS`` and never fires a
stage before its deadline on any loop.
"""

from __future__ import annotations

import asyncio
import platform
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

#: The choices of ``--loop``.
LOOPS = ("auto", "uvloop", "asyncio")

T = TypeVar("T")


class LoopUnavailable(RuntimeError):
    """``--loop uvloop`` where uvloop cannot be imported."""


def factory(choice: str = "auto") -> tuple[str, Callable[[], asyncio.AbstractEventLoop] | None]:
    """The name of the loop ``choice`` picks here, and what makes one (``None``: asyncio's
    default)."""
    if choice not in LOOPS:
        raise ValueError(f"--loop is one of {', '.join(LOOPS)}, not {choice!r}")
    if choice == "asyncio":
        return "asyncio", None
    try:
        import uvloop
    except ImportError:
        if choice == "uvloop":
            raise LoopUnavailable("--loop uvloop: uvloop is not installed here (it is a "
                                  "dependency on Linux and macOS); use --loop auto or "
                                  "asyncio") from None
        return "asyncio", None
    return "uvloop", uvloop.new_event_loop


def run(main: Coroutine[Any, Any, T], choice: str = "auto") -> T:
    """Run ``main`` to its end on the loop ``choice`` picks (``asyncio.run`` otherwise)."""
    _, make = factory(choice)
    with asyncio.Runner(loop_factory=make) as runner:
        return runner.run(main)


def describe(loop: asyncio.AbstractEventLoop | None = None) -> str:
    """The running loop, as the server's log and the benchmark name it ("uvloop 0.21.0",
    "asyncio")."""
    loop = loop or asyncio.get_running_loop()
    module = type(loop).__module__.split(".")[0]
    if module == "uvloop":
        import uvloop

        return f"uvloop {uvloop.__version__}"
    return f"asyncio ({type(loop).__name__}, Python {platform.python_version()})"
