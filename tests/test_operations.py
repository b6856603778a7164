"""Operations: the CLI, the embedded Redis, /healthz, /metrics, graceful shutdown, slow clients."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from clients.client import Client, CommandError
from server.app import Server
from server.cli import ENV, build_parser
from tests.conftest import ROOT, ws_url
from tests.helpers import create_table, join, open_client, play_turns
from tests.redis_procs import free_port


def http_get(port: int, path: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_serve_help_documents_every_flag_and_its_environment_variable() -> None:
    out = subprocess.run([sys.executable, "-m", "server", "serve", "--help"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    for flag in ("--host", "--port", "--redis-url", "--data-dir", "--log-level", "--secret"):
        assert flag in out
    for variable in ENV.values():
        assert variable in out


def test_defaults_listen_on_localhost_8765(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in ENV.values():
        monkeypatch.delenv(variable, raising=False)
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.redis_url) == ("127.0.0.1", 8765, None)
    monkeypatch.setenv("STABLEMASTER_PORT", "9000")
    monkeypatch.setenv("REDIS_URL", "redis://example:6379/0")
    args = build_parser().parse_args(["serve"])
    assert (args.port, args.redis_url) == (9000, "redis://example:6379/0")
    assert build_parser().parse_args(["serve", "--port", "9001"]).port == 9001


async def test_health_and_metrics(server: Server, clients: list[Client]) -> None:
    table = await create_table(ws_url(server), clients)
    await table.gm.command("start_encounter")
    port = server.settings.port
    status, body = await asyncio.to_thread(http_get, port, "/healthz")
    assert status == 200 and '"redis":"ok"' in body and '"version"' in body
    status, body = await asyncio.to_thread(http_get, port, "/metrics")
    assert status == 200
    assert "stablemaster_connections " in body
    assert 'stablemaster_commands_total{outcome="ok",type="start_encounter"}' in body
    assert "stablemaster_command_seconds_bucket" in body
    assert "stablemaster_fanout_lag_seconds_bucket" in body
    status, _ = await asyncio.to_thread(http_get, port, "/nope")
    assert status == 404


async def test_health_fails_when_redis_is_gone(workdir: Path, clients: list[Client]) -> None:
    from tests.conftest import settings_for
    from tests.redis_procs import RedisProcess

    redis = RedisProcess(workdir / "doomed").start()
    srv = Server(settings_for(redis.url))
    await srv.start()
    try:
        redis.stop()
        status, body = await asyncio.to_thread(http_get, srv.settings.port, "/healthz")
        assert status == 503 and "unhealthy" in body
        # a command that needs the store is answered `unavailable`, to be retried
        anon = await open_client(ws_url(srv), clients)
        await anon.hello()
        reply = await anon.request({"type": "create_encounter", "id": "0123456789abcdef-x",
                                    "name": "Nowhere"})
        assert reply["type"] == "error" and reply["code"] == "unavailable", reply
    finally:
        await srv.stop()


async def test_fan_out_between_processes_resumes_after_redis_comes_back(
        workdir: Path, clients: list[Client]) -> None:
    """Both processes' channel followers and sweeps keep going through an outage of Redis:
    once it is back (with its append-only file), a command on A reaches the GM's second
    connection, on B."""
    from tests.conftest import settings_for
    from tests.redis_procs import RedisProcess

    redis = RedisProcess(workdir / "flaky").start()
    a, b = Server(settings_for(redis.url)), Server(settings_for(redis.url))
    await a.start()
    await b.start()
    try:
        table = await create_table(ws_url(a), clients)
        gm_b = await join(ws_url(b), table.gm_token, clients)
        await table.gm.command("start_encounter")
        await gm_b.wait_seq(table.gm.last_seq)
        redis.stop()
        await asyncio.sleep(1.5)  # reads and sweeps fail meanwhile, several times
        redis.start()
        for _ in range(100):  # until A's connection pool has reconnected
            try:
                await play_turns(table.gm, {}, 1)
                break
            except CommandError as err:
                assert err.code == "unavailable", err
                await asyncio.sleep(0.1)
        await gm_b.wait_seq(table.gm.last_seq, timeout=10)
        assert gm_b.last_seq == table.gm.last_seq
        # not only the sweep: both processes still hear their channels
        assert all(not task.done() for srv in (a, b) for task in srv.follower.tasks)
    finally:
        await a.stop()
        await b.stop()
        redis.stop()


async def test_without_redis_url_an_embedded_redis_persists_encounters(
        tmp_path: Path, clients: list[Client]) -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ENV.values()}
    cmd = [sys.executable, "-m", "server", "serve", "--port", str(port), "--data-dir",
           str(tmp_path)]
    log = tmp_path / "server.log"

    def start() -> subprocess.Popen[bytes]:
        with log.open("ab") as out:
            proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out, stderr=out)
        return proc

    async def ready() -> None:
        for _ in range(200):
            try:
                status, _ = await asyncio.to_thread(http_get, port, "/healthz")
                if status == 200:
                    return
            except OSError:
                pass
            await asyncio.sleep(0.05)
        raise AssertionError(log.read_text())

    proc = start()
    try:
        await ready()
        first_line = log.read_text().splitlines()[0]
        assert "embedded Redis" in first_line
        url = f"ws://127.0.0.1:{port}/ws"
        table = await create_table(url, clients)
        await table.gm.command("start_encounter")
        await play_turns(table.gm, {}, 2)
        last = table.gm.last_seq
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(proc.wait, 20) == 0
        assert (tmp_path / "redis").is_dir()
        assert any("appendonly" in p.name for p in (tmp_path / "redis").rglob("*"))
        # the embedded redis-server was stopped with the server
        out = subprocess.run(["pgrep", "-f", str(tmp_path / "redis")], capture_output=True)
        assert out.returncode == 1, out.stdout
        proc = start()
        await ready()
        gm = await join(url, table.gm_token, clients, since=0)
        await gm.wait_seq(last)
        assert gm.last_seq == last
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            await asyncio.to_thread(proc.wait, 20)


async def test_graceful_shutdown_says_goodbye_and_closes_with_1012(
        spawn: type, clients: list[Client]) -> None:
    proc = spawn()
    table = await create_table(proc.url, clients)
    assert await asyncio.to_thread(proc.terminate) == 0
    goodbye = await table.gm.wait_for(lambda m: m["type"] == "goodbye")
    assert goodbye["reconnect"] is True
    await asyncio.wait_for(table.gm.closed, 5)
    assert table.gm.ws.close_code == 1012


async def test_a_stalled_client_is_cut_off_without_slowing_the_others(
        server: Server, clients: list[Client]) -> None:
    url = ws_url(server)
    table = await create_table(url, clients)
    healthy = await join(url, table.gm_token, clients)
    stalled = await open_client(url, clients)
    await stalled.hello(table.gm_token)
    assert stalled.welcome is not None
    stalled.ws.transport.pause_reading()  # type: ignore[attr-defined]  # reads nothing more
    session = next(s for s in server.sessions if s.id == stalled.welcome["session"])
    settings = server.settings
    saved = (settings.max_queued_messages, settings.commands_per_second, settings.command_burst)
    settings.max_queued_messages, settings.commands_per_second, settings.command_burst = (
        50, 10_000.0, 10_000)
    bulky = {"note": "x" * 50_000}
    try:
        sent = 0
        while not session._closing and sent < 400:
            await table.gm.command("add_combatant", combatant={"name": f"Dog {sent}",
                                                               "stats": bulky})
            sent += 1
        assert session._closing, "the stalled client was not cut off"
        await healthy.wait_for(lambda m: m["type"] == "event" and m["event"]["kind"] ==
                               "combatant_added" and m["event"]["combatant"]["name"] ==
                               f"Dog {sent - 1}")
        added = [m for m in healthy.events() if m["event"]["kind"] == "combatant_added"]
        assert len(added) == sent  # the healthy client got every event
    finally:
        (settings.max_queued_messages, settings.commands_per_second,
         settings.command_burst) = saved
        stalled.ws.transport.abort()
