"""Processes under test: a redis-server, the Stablemaster server, the floors; pinned to a core,
with their CPU time and memory read from /proc."""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CLK_TCK = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def raise_nofile() -> int:
    """Raise this process's open-file limit to its hard limit; returns the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def _child_setup() -> None:
    raise_nofile()


def cpu_seconds(pid: int) -> float | None:
    """utime + stime of a process, in seconds."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def machine_cpu() -> tuple[float, float]:
    """Seconds of CPU busy in user or kernel mode over all cores since boot, and of steal."""
    with open("/proc/stat") as f:
        fields = f.readline().split()[1:]
    user, nice, system = (int(x) for x in fields[:3])
    steal = int(fields[7]) if len(fields) > 7 else 0
    return (user + nice + system) / CLK_TCK, steal / CLK_TCK


async def wait_quiet(limit_pct: float, max_wait: float, window: float = 1.0) -> float:
    """Wait until the machine's CPU use (with nothing of ours running) stays under
    ``limit_pct`` of one core for ``window`` seconds, at most ``max_wait`` seconds.
    Returns the seconds waited."""
    begun = time.monotonic()
    while True:
        a, _ = machine_cpu()
        mine_a = sum(os.times()[:2])
        await asyncio.sleep(window)
        b, _ = machine_cpu()
        mine_b = sum(os.times()[:2])
        busy = 100 * ((b - a) - (mine_b - mine_a)) / window
        waited = time.monotonic() - begun
        if busy < limit_pct or waited >= max_wait:
            return round(waited, 1)


async def redis_calls(url: str) -> dict[str, int]:
    """Calls per command since the redis-server started (INFO commandstats)."""
    from redis.asyncio import Redis

    client = Redis.from_url(url, socket_timeout=5)
    try:
        stats = await client.info("commandstats")
    finally:
        await client.aclose()
    return {name.removeprefix("cmdstat_"): int(v["calls"]) for name, v in stats.items()}


def rss_kib(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def pid_listening_on(port: int) -> int | None:
    """The process that listens on a local TCP port (for a server started elsewhere)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError), open(table) as f:
            next(f)
            for line in f:
                parts = line.split()
                if parts[3] == "0A" and int(parts[1].rsplit(":", 1)[1], 16) == port:
                    inodes.add(f"socket:[{parts[9]}]")
    if not inodes:
        return None
    for pid in filter(str.isdigit, os.listdir("/proc")):
        fd_dir = f"/proc/{pid}/fd"
        with contextlib.suppress(OSError):
            for fd in os.listdir(fd_dir):
                with contextlib.suppress(OSError):
                    if os.readlink(f"{fd_dir}/{fd}") in inodes:
                        return int(pid)
    return None


def pin_generator(no_pin: bool) -> tuple[int | None, int | None]:
    """Pin this process (the load generator) to core 1 (or the last one) and leave core 0 to
    the servers and Redis: ``(server core, generator core)``, both ``None`` when not pinned
    (``no_pin``, fewer than two cores, or no affinity on this platform)."""
    if no_pin or not hasattr(os, "sched_setaffinity"):
        return None, None
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2 or 0 not in cores:
        return None, None
    gen_core = 1 if 1 in cores else cores[-1]
    os.sched_setaffinity(0, {gen_core})
    return 0, gen_core


def pin_prefix(core: int | None) -> list[str]:
    if core is None or shutil.which("taskset") is None:
        return []
    return ["taskset", "-c", str(core)]


async def wait_port(port: int, proc: subprocess.Popen[bytes] | None, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"process exited at start with code {proc.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.5):
            return
        await asyncio.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} after {timeout} s")


@dataclass
class Proc:
    name: str
    popen: subprocess.Popen[bytes]
    log: Path

    @property
    def pid(self) -> int:
        return self.popen.pid

    def stop(self, sig: int = signal.SIGINT, timeout: float = 15) -> None:
        if self.popen.poll() is not None:
            return
        self.popen.send_signal(sig)
        try:
            self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()

    def tail(self, n: int = 20) -> str:
        with contextlib.suppress(OSError):
            return "\n".join(self.log.read_text(errors="replace").splitlines()[-n:])
        return ""


def _spawn(name: str, argv: list[str], workdir: Path, root: Path = ROOT,
           env: dict[str, str] | None = None) -> Proc:
    """Start ``argv`` in ``root`` (where ``python -m`` finds the packages first), with ``env``
    added to this process's environment."""
    log = workdir / f"{name}.log"
    out = open(log, "wb")  # noqa: SIM115 - owned by the child
    popen = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                             cwd=root, preexec_fn=_child_setup,
                             env={**os.environ, **env} if env else None)
    out.close()
    return Proc(name, popen, log)


@dataclass
class Stack:
    """The processes of one target: a server and, for some, its redis-server."""

    url: str
    server: Proc | None = None
    redis: Proc | None = None
    #: a replica of ``redis`` (``--durability replicas``)
    replica: Proc | None = None
    server_pid: int | None = None
    redis_url: str | None = None
    workdir: Path | None = None
    extra: dict[str, str] = field(default_factory=dict)

    @property
    def redis_pid(self) -> int | None:
        return self.redis.pid if self.redis is not None else None

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop(signal.SIGINT)
        if self.replica is not None:
            self.replica.stop(signal.SIGTERM)
        if self.redis is not None:
            self.redis.stop(signal.SIGTERM)

    def cleanup(self) -> None:
        if self.workdir is not None:
            shutil.rmtree(self.workdir, ignore_errors=True)

    def logs(self) -> str:
        parts = []
        for p in (self.server, self.redis, self.replica):
            if p is not None:
                parts.append(f"--- {p.name} ---\n{p.tail()}")
        return "\n".join(parts)


async def start_redis(workdir: Path, core: int | None, appendfsync: str = "everysec",
                      name: str = "redis", *extra: str) -> tuple[Proc, str]:
    from server.embedded_redis import find_redis_server

    port = free_port()
    data = workdir / name
    data.mkdir(exist_ok=True)
    argv = [*pin_prefix(core), find_redis_server(), "--port", str(port), "--bind", "127.0.0.1",
            "--dir", str(data), "--save", "", "--appendonly", "yes",
            "--appendfsync", appendfsync, "--daemonize", "no", "--maxclients", "10000", *extra]
    proc = _spawn(name, argv, workdir)
    await wait_port(port, proc.popen)
    return proc, f"redis://127.0.0.1:{port}/0"


async def wait_replica(url: str, timeout: float = 20) -> None:
    from redis.asyncio import Redis

    client = Redis.from_url(url, socket_timeout=5)
    try:
        deadline = time.monotonic() + timeout
        while (await client.info("replication")).get("master_link_status") != "up":
            if time.monotonic() > deadline:
                raise RuntimeError("the replica did not catch up with its master")
            await asyncio.sleep(0.05)
    finally:
        await client.aclose()


async def start_stack(target: str, core: int | None, server_args: list[str],
                      gc_log: bool = False, durability: str = "everysec",
                      root: Path = ROOT, loop: str = "auto") -> Stack:
    """Start a fresh redis-server (if the target needs one) and the target's server.
    ``durability`` (Stablemaster only): ``always`` runs Redis with ``appendfsync always``,
    ``replicas`` adds a replica (on the same core) that each append waits for (``WAIT 1``).
    ``root``: the tree Stablemaster's server runs from (``bench.compiled``). ``loop``: the event
    loop of the server and of the floors alike (``server.loop``: ``auto``, ``uvloop`` or
    ``asyncio``), so that a ratio to a floor measures the server, not the loop; Stablemaster is
    told by ``STABLEMASTER_LOOP`` (a tree from before ``--loop`` runs on its own loop)."""
    workdir = Path(tempfile.mkdtemp(prefix=f"bench-{target}-"))
    redis: Proc | None = None
    replica: Proc | None = None
    redis_url = None
    try:
        if target in ("stablemaster", "redis-relay"):
            fsync = "always" if durability == "always" and target == "stablemaster" \
                else "everysec"
            redis, redis_url = await start_redis(workdir, core, fsync)
        port = free_port()
        if target == "stablemaster":
            assert redis_url is not None
            module = "bench.gcwatch" if gc_log else "server"
            extra = []
            if durability == "always":
                extra = ["--durability", "always"]
            elif durability == "replicas":
                master_port = redis_url.rsplit(":", 1)[1].split("/")[0]
                replica, replica_url = await start_redis(
                    workdir, core, "everysec", "replica", "--replicaof", "127.0.0.1",
                    master_port)
                await wait_replica(replica_url)
                extra = ["--durability", "replicas", "--wait-replicas", "1"]
            argv = [*pin_prefix(core), sys.executable, "-m", module, "serve", "--host",
                    "127.0.0.1", "--port", str(port), "--redis-url", redis_url,
                    "--secret", "bench-secret", "--log-level", "WARNING", *extra, *server_args]
        else:
            kind = "redis" if target == "redis-relay" else "bare"
            watch = ["bench.gcwatch", "--module"] if gc_log else []
            argv = [*pin_prefix(core), sys.executable, "-m", *watch, "bench.floors", "--kind",
                    kind, "--port", str(port), "--loop", loop]
            if redis_url:
                argv += ["--redis-url", redis_url]
        server = _spawn(target, argv, workdir, root if target == "stablemaster" else ROOT,
                        env={"STABLEMASTER_LOOP": loop})
        stack = Stack(url=f"ws://127.0.0.1:{port}/ws", server=server, redis=redis,
                      replica=replica, server_pid=server.pid, redis_url=redis_url,
                      workdir=workdir)
        try:
            await wait_port(port, server.popen)
        except Exception:
            logs = stack.logs()
            stack.stop()
            stack.cleanup()
            raise RuntimeError(f"{target} did not start:\n{logs}") from None
        return stack
    except Exception:
        for p in (replica, redis):
            if p is not None:
                p.stop(signal.SIGTERM)
        shutil.rmtree(workdir, ignore_errors=True)
        raise


def start_peer(stack: Stack, core: int | None, server_args: list[str],
               name: str = "peer") -> tuple[Proc, str]:
    """Another Stablemaster server on ``stack``'s Redis (its process and URL): the processes
    of one deployment (``bench.spread``)."""
    assert stack.redis_url is not None and stack.workdir is not None
    port = free_port()
    argv = [*pin_prefix(core), sys.executable, "-m", "server", "serve", "--host", "127.0.0.1",
            "--port", str(port), "--redis-url", stack.redis_url, "--secret", "bench-secret",
            "--log-level", "WARNING", *server_args]
    return _spawn(name, argv, stack.workdir), f"ws://127.0.0.1:{port}/ws"


def _cluster_port() -> int:
    """A free port whose cluster bus port (port + 10000) is free too."""
    for _ in range(200):
        port = free_port()
        if port + 10000 > 65535:
            continue
        try:
            with socket.socket() as s:
                s.bind(("127.0.0.1", port + 10000))
        except OSError:
            continue
        return port
    raise RuntimeError("no free port pair for a cluster node")


async def start_cluster(workdir: Path, core: int | None, nodes: int = 3) -> tuple[list[Proc], str]:
    """A Redis Cluster of ``nodes`` masters (no replicas) of the Redis 7 or later on PATH
    (sharded pub/sub), formed with ``redis-cli --cluster create``; its processes and the URL
    of its first node."""
    binary, cli = shutil.which("redis-server"), shutil.which("redis-cli")
    if binary is None or cli is None:
        raise RuntimeError("a Redis Cluster needs redis-server and redis-cli 7 or later on PATH")
    started: list[Proc] = []
    ports = []
    try:
        for k in range(nodes):
            port = _cluster_port()
            data = workdir / f"node-{k}"
            data.mkdir(exist_ok=True)
            argv = [*pin_prefix(core), binary, "--port", str(port), "--bind", "127.0.0.1",
                    "--dir", str(data), "--save", "", "--appendonly", "yes", "--daemonize", "no",
                    "--maxclients", "10000", "--cluster-enabled", "yes",
                    "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "5000"]
            proc = _spawn(f"node-{k}", argv, workdir)
            started.append(proc)
            await wait_port(port, proc.popen)
            ports.append(port)
        subprocess.run([cli, "--cluster", "create", *(f"127.0.0.1:{p}" for p in ports),
                        "--cluster-replicas", "0", "--cluster-yes"], check=True,
                       capture_output=True, timeout=60)
        deadline = time.monotonic() + 20
        while "cluster_state:ok" not in subprocess.run(
                [cli, "-p", str(ports[0]), "cluster", "info"], capture_output=True,
                text=True).stdout:
            if time.monotonic() > deadline:
                raise RuntimeError("the cluster did not reach cluster_state:ok")
            await asyncio.sleep(0.1)
    except BaseException:
        for proc in started:
            proc.stop(signal.SIGTERM)
        raise
    return started, f"redis://127.0.0.1:{ports[0]}/0"
