"""Several server processes on one Redis: the same events, in the same order, for everyone;
conflicting commands; a process killed mid-encounter. A server on its embedded Redis: the
redis-server dies with it, however it dies; one data directory has one owner."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from redis import Redis as SyncRedis
from redis.exceptions import RedisError

from clients.client import Client, CommandError
from server.app import Server
from server.cli import ENV
from server.embedded_redis import EmbeddedRedis, process_running
from tests.conftest import ROOT, ServerProcess, ws_url
from tests.helpers import (
    caught_up,
    create_table,
    event_log,
    join,
    kinds,
    play_turns,
    seqs,
    wait_current,
)
from tests.redis_procs import free_port, stop_process


async def test_clients_on_two_processes_see_the_same_events_in_the_same_order(
        server: Server, server_b: Server, clients: list[Client]) -> None:
    a, b = ws_url(server), ws_url(server_b)
    table = await create_table(a, clients)
    player = await join(a, table.tokens["twilight"], clients)
    spectator = await join(b, table.spectator_token, clients)
    gm_b = await join(b, table.gm_token, clients)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {"twilight": player}, 13)
    final = (await table.gm.command("ping"), table.gm.last_seq)[1]
    await gm_b.wait_seq(final)
    # the GM on A and the GM on B saw exactly the same log (since B joined)
    joined = gm_b.snapshot["seq"] if gm_b.snapshot else 0
    assert event_log(gm_b) == [e for e in event_log(table.gm) if e[0] > joined]
    assert gm_b.last_seq == final
    # a spectator on B sees a gapless subsequence, in order, never a hidden combatant
    await spectator.wait_for(lambda m: m["type"] == "event" and m["event"]["kind"] ==
                             "turn_started" and m["event"]["round"] == 3)
    spectator_log = event_log(spectator)
    assert spectator_log == sorted(set(spectator_log))
    assert set(spectator_log) <= set(event_log(table.gm))
    assert "lurker" not in str(spectator.messages)
    assert "lurker" in str(gm_b.messages)
    # the player's view: its own, public ones — the same turns as the spectator
    await caught_up(player)  # on A, like the GM: now it has every event sent before
    assert [k for k in kinds(player) if k == "turn_started"] == [
        k for k in kinds(spectator) if k == "turn_started"][: kinds(player).count("turn_started")]


async def test_conflicting_commands_from_two_processes_exactly_one_wins(
        server: Server, server_b: Server, clients: list[Client]) -> None:
    a, b = ws_url(server), ws_url(server_b)
    for _ in range(5):
        table = await create_table(a, clients)
        gm_b = await join(b, table.gm_token, clients)
        await table.gm.command("start_encounter")
        actor = await wait_current(table.gm)
        await gm_b.wait_for(lambda m: m["type"] == "legal_actions" and any(
            x["action"] == "end_turn" for x in m["actions"]))
        # both GMs end the same turn at the same moment: only one may succeed
        results = await asyncio.gather(
            table.gm.command("act", combatant=actor, action="end_turn"),
            gm_b.command("act", combatant=actor, action="end_turn"),
            return_exceptions=True,
        )
        wins = [r for r in results if isinstance(r, dict)]
        losses = [r for r in results if isinstance(r, CommandError)]
        assert len(wins) == 1 and len(losses) == 1, results
        assert losses[0].code in ("not_your_turn", "conflict")
        ended = [m for m in table.gm.events() if m["event"]["kind"] == "turn_ended"]
        await asyncio.sleep(0.05)
        ended = [m for m in table.gm.events() if m["event"]["kind"] == "turn_ended"]
        assert len(ended) == 1


async def test_a_killed_process_loses_no_acknowledged_event(spawn: type, clients: list[Client]
                                                            ) -> None:
    proc_a = spawn()
    proc_b = spawn()
    table = await create_table(proc_a.url, clients)
    player = await join(proc_a.url, table.tokens["twilight"], clients)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {"twilight": player}, 7)
    acked = table.gm.last_seq
    log_before = event_log(table.gm)
    proc_a.kill()  # SIGKILL: no shutdown, no flush
    await table.gm.closed
    # the other process serves the encounter with every acknowledged event
    gm = await join(proc_b.url, table.gm_token, clients, since=0)
    await gm.wait_seq(acked)
    replayed = event_log(gm)
    assert [e[0] for e in replayed] == list(range(1, len(replayed) + 1))
    assert [e for e in replayed if e[0] >= log_before[0][0]][: len(log_before)] == log_before
    # and play goes on there
    player_b = await join(proc_b.url, table.tokens["twilight"], clients)
    await play_turns(gm, {"twilight": player_b}, 3)
    assert kinds(gm).count("turn_started") >= kinds_count(log_before, "turn_started") + 3


def kinds_count(log: list[tuple[int, str]], kind: str) -> int:
    return sum(1 for _, k in log if k == kind)


async def test_a_restarted_process_serves_the_encounter_from_redis_alone(
        spawn: type, clients: list[Client]) -> None:
    proc = spawn()
    table = await create_table(proc.url, clients)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 4)
    seen = event_log(table.gm)
    assert await asyncio.to_thread(proc.terminate) == 0
    again = spawn()
    gm = await join(again.url, table.gm_token, clients, since=0)
    await gm.wait_seq(seen[-1][0])
    assert [e for e in event_log(gm) if e[0] >= seen[0][0]] == seen


async def test_the_log_replays_to_the_same_state(server: Server, clients: list[Client]) -> None:
    from encounter.fold import fold

    url = ws_url(server)
    table = await create_table(url, clients)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 5)
    room = server.rooms.peek(table.encounter)
    assert room is not None
    log = await server.store.read(table.encounter, 0)
    assert fold(table.encounter, log) == room.state
    reloaded = await server.store.load(table.encounter)
    assert reloaded == room.state


async def test_seqs_are_gapless_for_the_gm(server: Server, clients: list[Client]) -> None:
    table = await create_table(ws_url(server), clients)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 4)
    gm_seqs = seqs(table.gm)
    assert gm_seqs == list(range(gm_seqs[0], gm_seqs[0] + len(gm_seqs)))


# -- the embedded Redis: it dies with its server; one data directory, one owner ----------------


def sync_redis(data: Path) -> SyncRedis:
    """A client of the redis-server on ``data``'s socket (``--data-dir data``)."""
    return SyncRedis(unix_socket_path=str(data / "redis" / "redis.sock"), socket_timeout=5)


def redis_pid(data: Path) -> int:
    """The pid of the redis-server answering on ``data``'s socket."""
    with contextlib.closing(sync_redis(data)) as client:
        return int(client.info("server")["process_id"])


def redis_servers_on(data: Path) -> list[int]:
    """The running redis-servers whose command line names ``data``."""
    out = subprocess.run(["pgrep", "-f", f"redis-server.*{data}"], capture_output=True,
                         text=True)
    return sorted(int(pid) for pid in out.stdout.split())


def gone_within(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while process_running(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture
def data(tmp_path: Path) -> Path:
    return tmp_path / "data"


@pytest.fixture
def embedded(data: Path) -> Iterator[Callable[[], ServerProcess]]:
    """``serve`` processes on an embedded Redis in ``data``, SIGKILLed after the test; a
    redis-server a failed test leaves answering there is shut down then."""
    started: list[ServerProcess] = []

    def start() -> ServerProcess:
        proc = ServerProcess(None, "--data-dir", str(data))
        started.append(proc)
        return proc.start()

    yield start
    for proc in started:
        proc.kill()
    with contextlib.suppress(RedisError, OSError), contextlib.closing(sync_redis(data)) as c:
        c.shutdown(nosave=True)


async def test_a_killed_server_takes_its_embedded_redis_with_it_and_the_next_has_the_data(
        embedded: Callable[[], ServerProcess], data: Path, clients: list[Client]) -> None:
    first = embedded()
    table = await create_table(first.url, clients)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 2)
    seen = event_log(table.gm)
    pid = redis_pid(data)
    first.kill()  # SIGKILL: no shutdown, nothing of the server's runs
    assert gone_within(pid, 5), "the embedded redis-server outlived its server"
    # the directory is free for the next server at once, and the encounter is there
    again = embedded()
    assert redis_servers_on(data) == [redis_pid(data)] != [pid]
    gm = await join(again.url, table.gm_token, clients, since=0)
    await gm.wait_seq(seen[-1][0])
    assert [e for e in event_log(gm) if e[0] >= seen[0][0]] == seen


def healthz(proc: ServerProcess) -> int:
    """The status of the server's ``/healthz``."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{proc.port}/healthz", timeout=5) as r:
            return int(r.status)
    except urllib.error.HTTPError as exc:
        return exc.code


def until(check: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def another_redis_answers(data: Path, dead: int) -> bool:
    with contextlib.suppress(RedisError, OSError):
        return redis_pid(data) != dead
    return False


async def test_an_embedded_redis_that_dies_comes_back_on_the_same_data(
        embedded: Callable[[], ServerProcess], data: Path, clients: list[Client]) -> None:
    """The OOM killer takes the embedded redis-server: the server starts it again on its
    AOF, ``/healthz`` is 200 again, and the encounter goes on where it was."""
    server = embedded()
    table = await create_table(server.url, clients)
    await table.gm.command("start_encounter")
    await play_turns(table.gm, {}, 2)
    seen = event_log(table.gm)
    pid = redis_pid(data)
    os.kill(pid, 9)
    assert await asyncio.to_thread(until, lambda: another_redis_answers(data, pid), 15)
    assert await asyncio.to_thread(until, lambda: healthz(server) == 200, 15)
    assert "the embedded Redis died (exit status -9): starting it again" in server.output()
    assert redis_servers_on(data) == [redis_pid(data)]
    gm = await join(server.url, table.gm_token, clients, since=0)
    await gm.wait_seq(seen[-1][0])
    assert [e for e in event_log(gm) if e[0] >= seen[0][0]] == seen
    await play_turns(gm, {}, 1)  # and it takes commands again


async def test_an_embedded_redis_that_keeps_dying_stops_the_server_non_zero(
        embedded: Callable[[], ServerProcess], data: Path) -> None:
    """Killed again and again, the embedded Redis is not started a fourth time within the
    minute: the server says why and exits 1 (its supervisor restarts it), never answering
    ``/healthz`` 503 for good."""
    server = embedded()
    assert server.proc is not None
    for death in range(4):
        pid = redis_pid(data)
        os.kill(pid, 9)
        if death < 3:  # (a restart on a busy machine: the AOF read again, the socket made)
            # killed again only once the server has it back (killed while the server still
            # waits for it to answer, it is one that could not be started: another exit 1)
            assert await asyncio.to_thread(
                until, lambda n=death + 1, dead=pid: server.output().count(
                    "embedded Redis started again") >= n and another_redis_answers(data, dead),
                30), f"no redis-server came back after death {death + 1}:\n{server.output()}"
    code = await asyncio.to_thread(server.proc.wait, 30)
    assert code == 1
    assert "the embedded Redis died 4 times within 60 s" in server.output()
    assert redis_servers_on(data) == []


async def test_a_second_server_on_a_data_directory_is_refused_while_the_first_runs(
        embedded: Callable[[], ServerProcess], data: Path, clients: list[Client]) -> None:
    first = embedded()
    assert first.proc is not None
    pid = redis_pid(data)
    env = {k: v for k, v in os.environ.items() if k not in ENV.values()}
    second = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "server", "serve", "--port", str(free_port()),
                         "--data-dir", str(data)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=20)
    assert second.returncode == 2
    assert (f"the data directory {data.resolve()} is in use by another Stablemaster server "
            f"(pid {first.proc.pid}") in second.stderr
    assert "embedded Redis started" not in second.stderr
    # it started no redis-server there: the first's is the only one, and the first serves on
    assert redis_servers_on(data) == [pid]
    table = await create_table(first.url, clients)
    await table.gm.command("start_encounter")


async def test_a_new_owner_shuts_down_the_redis_server_a_killed_owner_left_running(
        embedded: Callable[[], ServerProcess], data: Path) -> None:
    # as a server started by a version without the parent-death signal, then killed, leaves it
    left = EmbeddedRedis(data / "redis")
    left.data_dir.mkdir(parents=True)
    orphan = subprocess.Popen(left.command(), stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        for _ in range(200):
            with contextlib.suppress(RedisError), contextlib.closing(sync_redis(data)) as c:
                c.set("left:behind", "still here")
                break
            await asyncio.sleep(0.05)
        server = embedded()
        # it was shut down (cleanly: its AOF flushed) before the new one started
        assert await asyncio.to_thread(orphan.wait, 10) == 0
        assert f"(pid {orphan.pid}) left running by a previous owner" in server.output()
        assert redis_servers_on(data) == [redis_pid(data)] != [orphan.pid]
        with contextlib.closing(sync_redis(data)) as c:
            assert c.get("left:behind") == b"still here"
    finally:
        stop_process(orphan)


WATCHED = """
import asyncio, sys, threading, time
from pathlib import Path
from server.embedded_redis import EmbeddedRedis

redis = EmbeddedRedis(Path(sys.argv[1]))
thread = threading.Thread(target=asyncio.run, args=(redis.start(),))
thread.start()
thread.join()  # the thread that started the redis-server is gone
print(redis.lifeline.mode, redis.process.pid, flush=True)
time.sleep(600)
"""


def test_started_off_the_main_thread_the_embedded_redis_dies_with_the_process(
        tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", WATCHED, str(tmp_path)], cwd=ROOT,
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        mode, pid = proc.stdout.readline().split()
        # the parent-death signal would come when the thread ends: a watchdog instead
        assert mode == "watchdog"
        time.sleep(0.5)
        assert process_running(int(pid)), "the redis-server died with the thread"
        proc.kill()
        proc.wait()
        assert gone_within(int(pid), 5), "the embedded redis-server outlived its process"
    finally:
        proc.kill()
        proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        with contextlib.suppress(RedisError, OSError), contextlib.closing(
                SyncRedis(unix_socket_path=str(tmp_path / "redis.sock"))) as c:
            c.shutdown(nosave=True)


async def test_a_watched_embedded_redis_stopped_on_purpose_takes_its_watchdog_along(
        tmp_path: Path) -> None:
    redis = EmbeddedRedis(tmp_path, watchdog=True)
    await redis.start()
    try:
        watchdog = redis.lifeline.watchdog
        assert redis.lifeline.mode == "watchdog" and watchdog is not None
        assert threading.current_thread() is threading.main_thread()
    finally:
        redis.stop()
    assert redis.process is not None and redis.process.returncode == 0  # SIGTERM: clean
    assert watchdog.returncode == 0 and redis.lifeline.watchdog is None
