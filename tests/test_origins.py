"""The origin policy (``--allow-origin``) at the websocket handshake and on the HTTP
endpoints, against a real server: what a browser would send, sent by hand."""

from __future__ import annotations

import asyncio
import urllib.request

import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import InvalidStatus

from server.app import Server
from server.cli import build_parser, settings_from
from tests.conftest import settings_for, ws_url
from tests.redis_procs import RedisProcess


def _get(url: str, origin: str) -> tuple[int, str | None]:
    request = urllib.request.Request(url, headers={"Origin": origin})
    with urllib.request.urlopen(request, timeout=5) as response:
        return response.status, response.headers.get("Access-Control-Allow-Origin")


async def test_the_handshake_and_cors_follow_one_list(redis_server: RedisProcess) -> None:
    server = Server(settings_for(redis_server.url, allow_origins=("https://vtt.example:30000",)))
    await server.start()
    port = server.settings.port
    try:
        for origin, allowed in (("https://vtt.example:30000", True),
                                ("https://VTT.example:30000/", True),  # as browsers may not
                                (f"http://127.0.0.1:{port}", True),  # the server's own
                                ("https://evil.example", False),
                                ("null", False)):  # a sandboxed page, a file
            if allowed:
                async with connect(ws_url(server), origin=origin) as ws:
                    assert ws.response is not None and ws.response.status_code == 101
            else:
                with pytest.raises(InvalidStatus) as refused:
                    async with connect(ws_url(server), origin=origin):
                        pass
                assert refused.value.response.status_code == 403
            status, cors = await asyncio.to_thread(
                _get, f"http://127.0.0.1:{port}/schemas/args/command.submit_roll.json", origin)
            assert status == 200 and cors == (origin if allowed else None), origin
        async with connect(ws_url(server)):  # no Origin: no browser page
            pass
    finally:
        await server.stop()


def test_the_flag_takes_origins_and_refuses_anything_else() -> None:
    args = build_parser().parse_args(["serve", "--allow-origin",
                                      "https://a.example, http://b.example:8080"])
    assert settings_from(args).allow_origins == ("https://a.example", "http://b.example:8080")
    assert settings_from(build_parser().parse_args(["serve", "--allow-origin", "*"])
                         ).allow_origins == ("*",)
    for bad in ("a.example", "https://a.example/path", "ftp://a.example"):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["serve", "--allow-origin", bad])
