"""Fixtures: a real Redis started by the suite, servers in this process or as subprocesses,
and protocol clients over real websockets."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from hypothesis import settings

from clients.client import Client
from server.app import Server
from server.config import Settings
from tests import act_schemas
from tests.browser import browser, pages  # noqa: F401 (the browser tests' fixtures)
from tests.redis_procs import RedisCluster3, RedisProcess, embedded_redis_server, free_port

if TYPE_CHECKING:
    from tests.scene import Tables

# Property tests draw the same examples on every run (and in CI), so that a failure is a
# failure of the code, reproducible as it is reported; STABLEMASTER_EXPLORE=1 draws new ones.
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile("explore" if os.environ.get("STABLEMASTER_EXPLORE") else "repeatable")

ROOT = Path(__file__).resolve().parent.parent
TEST_SECRET = "test-secret-shared-by-every-process"


@pytest.fixture(scope="session")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("stablemaster")


@pytest.fixture(scope="session")
def redis_server(workdir: Path) -> Iterator[RedisProcess]:
    proc = RedisProcess(workdir, binary=embedded_redis_server()).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="session")
def redis_cluster(workdir: Path) -> Iterator[RedisCluster3]:
    cluster = RedisCluster3(workdir / "cluster").start()
    yield cluster
    cluster.stop()


def settings_for(redis_url: str, **overrides: object) -> Settings:
    s = Settings(host="127.0.0.1", port=0, redis_url=redis_url, secret=TEST_SECRET,
                 sweep_interval=0.5)
    for key, value in overrides.items():
        setattr(s, key, value)
    return s


@pytest.fixture(scope="session")
async def server(redis_server: RedisProcess) -> AsyncIterator[Server]:
    srv = Server(settings_for(redis_server.url))
    await srv.start()
    yield srv
    await srv.stop()


@pytest.fixture(scope="session")
async def server_b(redis_server: RedisProcess) -> AsyncIterator[Server]:
    """A second server process's worth of state in this process: its own rooms, its own
    Redis connections and fan-out follower, its own port."""
    srv = Server(settings_for(redis_server.url))
    await srv.start()
    yield srv
    await srv.stop()


def ws_url(srv: Server) -> str:
    return f"ws://127.0.0.1:{srv.settings.port}/ws"


class ServerProcess:
    """``python -m server serve`` as a real subprocess; with no ``redis_url``, on an embedded
    Redis (give it its own ``--data-dir``)."""

    def __init__(self, redis_url: str | None, *extra: str,
                 env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.redis_url = redis_url
        self.extra = extra
        self.env = env or {}
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self) -> ServerProcess:
        # (on the loop that ships, unless a test asks for another)
        inherited = {k: v for k, v in os.environ.items() if k != "STABLEMASTER_LOOP"}
        env = {**inherited, "STABLEMASTER_SECRET": TEST_SECRET, **self.env}
        redis = ["--redis-url", self.redis_url] if self.redis_url else []
        if not redis:
            env.pop("REDIS_URL", None)
        self.log = Path(tempfile.mkstemp(prefix="stablemaster-", suffix=".log")[1])
        with self.log.open("wb") as out:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "server", "serve", "--port", str(self.port), *redis,
                 *self.extra],
                cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
            )
        self.wait_ready()
        return self

    def wait_ready(self, timeout: float = 20) -> None:
        import socket

        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited: {self.output()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("server did not start")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def terminate(self) -> int:
        assert self.proc is not None
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(20)
        return int(self.proc.returncode)

    def output(self) -> str:
        """Everything the process logged so far."""
        return self.log.read_text()


@pytest.fixture
def spawn(redis_server: RedisProcess) -> Iterator[type]:
    started: list[ServerProcess] = []

    class Spawn:
        @staticmethod
        def __call__(redis_url: str | None = None, *extra: str, **kw: object) -> ServerProcess:
            proc = ServerProcess(redis_url or redis_server.url, *extra, **kw)  # type: ignore[arg-type]
            started.append(proc)
            return proc.start()

    yield Spawn()  # type: ignore[misc]
    for proc in started:
        proc.kill()


async def connect(url: str) -> Client:
    return await Client.open(url)


@pytest.fixture
def tables(request: pytest.FixtureRequest) -> Tables:
    """Where a test's scenes are created (``tests/scene.py``): in-process on the engine's
    table, or over the network when the test is parametrized so (``NETWORK_ONLY``,
    ``BOTH_TRANSPORTS``)."""
    from tests.scene import IN_PROCESS, NETWORK, InProcess, Network

    transport = getattr(request, "param", IN_PROCESS)
    if transport == NETWORK:
        return Network(request.getfixturevalue("server"), request.getfixturevalue("clients"))
    return InProcess()


@pytest.fixture
async def clients() -> AsyncIterator[list[Client]]:
    """Clients opened in a test, closed after it."""
    opened: list[Client] = []
    yield opened
    await asyncio.gather(*(c.close() for c in opened), return_exceptions=True)


# --- every act the suite sends, against the published schemas (tests/act_schemas.py) --------

Client.observers.append(act_schemas.observe)


@pytest.fixture(autouse=True)
def _acts_match_the_published_schemas() -> Iterator[None]:
    act_schemas.problems.clear()
    yield
    found = list(act_schemas.problems)
    act_schemas.problems.clear()
    if found:
        pytest.fail("acts and the published action schemas disagree:\n" + "\n".join(found),
                    pytrace=False)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    c = act_schemas.counts
    if c["checked"] or c["unknown_ruleset"]:
        terminalreporter.write_line(
            f"acts checked against docs/protocol/actions.<ruleset>.schema.json: {c['checked']} "
            f"({c['refused_by_both']} refused by both the schema and the server; "
            f"{c['unknown_ruleset']} sent before the client knew its ruleset)")


@pytest.fixture
def procs() -> Iterator[list[ServerProcess]]:
    """Server processes a test starts (``tests.test_faults.start_server``), killed after it."""
    started: list[ServerProcess] = []
    yield started
    for p in started:
        p.kill()
