"""A lean RFC 6455 websocket client for load generation.

One ``asyncio.Protocol`` per connection, no task per connection and no future per message:
frames are parsed in ``data_received`` and each complete text message is handed to a callback
synchronously. Server frames are unmasked (RFC 6455 5.1); client frames are masked with the C
``apply_mask`` that ships with ``websockets``. Pings are answered, close frames are echoed.
Messages are not fragmented by the servers under test, but fragments are reassembled anyway.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
import struct
from collections.abc import Callable

try:
    from websockets.speedups import apply_mask
except ImportError:  # pragma: no cover - the C extension ships with the websockets wheels
    from websockets.utils import apply_mask

_GUID = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
_MAX_HEAD = 16 * 1024


class HandshakeError(Exception):
    pass


class WsClient(asyncio.Protocol):
    """Subclass and override :meth:`on_message` (payload bytes) and :meth:`on_lost`."""

    def __init__(self, host: str, port: int, path: str) -> None:
        self.host, self.port, self.path = host, port, path
        self.transport: asyncio.Transport | None = None
        self.key = base64.b64encode(os.urandom(16))
        self.handshake: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.open = False
        self.buf = bytearray()
        self._fragments: list[bytes] | None = None
        self.frames_in = 0
        self.bytes_in = 0  # bytes received after the handshake (frame headers included)

    # -- to override -------------------------------------------------------------------------

    def on_message(self, payload: bytes) -> None:  # pragma: no cover - overridden
        pass

    def on_lost(self, exc: Exception | None) -> None:
        pass

    # -- asyncio.Protocol --------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.transport.write(  # type: ignore[union-attr]
            b"GET %s HTTP/1.1\r\nHost: %s:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            b"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n"
            % (self.path.encode(), self.host.encode(), self.port, self.key))

    def connection_lost(self, exc: Exception | None) -> None:
        was_open = self.open
        self.open = False
        if not self.handshake.done():
            self.handshake.set_exception(HandshakeError(f"connection lost: {exc}"))
        if not self.closed.done():
            self.closed.set_result(None)
        if was_open:
            self.on_lost(exc)

    def data_received(self, data: bytes) -> None:
        self.bytes_in += len(data)
        if self.buf:
            self.buf += data
            data = bytes(self.buf)
            self.buf.clear()
        if not self.open:
            end = data.find(b"\r\n\r\n")
            if end < 0:
                if len(data) > _MAX_HEAD:
                    self._fail_handshake("response head too large")
                else:
                    self.buf += data
                return
            self._check_response(data[:end].decode("latin-1"))
            if not self.open:
                return
            data = data[end + 4:]
            self.bytes_in -= end + 4
        n = len(data)
        pos = 0
        while n - pos >= 2:
            b0 = data[pos]
            ln = data[pos + 1] & 0x7F
            hdr = 2
            if ln == 126:
                if n - pos < 4:
                    break
                ln = (data[pos + 2] << 8) | data[pos + 3]
                hdr = 4
            elif ln == 127:
                if n - pos < 10:
                    break
                ln = int.from_bytes(data[pos + 2:pos + 10], "big")
                hdr = 10
            end = pos + hdr + ln
            if end > n:
                break
            payload = data[pos + hdr:end]
            pos = end
            op = b0 & 0x0F
            if op == 1 or op == 2:
                if b0 & 0x80:
                    self.frames_in += 1
                    self.on_message(payload)
                else:
                    self._fragments = [payload]
            elif op == 0:
                if self._fragments is not None:
                    self._fragments.append(payload)
                    if b0 & 0x80:
                        whole = b"".join(self._fragments)
                        self._fragments = None
                        self.frames_in += 1
                        self.on_message(whole)
            elif op == 9:
                self._write_frame(0x8A, payload)
            elif op == 8:
                if self.transport is not None and not self.transport.is_closing():
                    self._write_frame(0x88, payload[:2])
                    self.transport.close()
                return
        if pos < n:
            self.buf += data[pos:]

    # -- handshake ---------------------------------------------------------------------------

    def _check_response(self, head: str) -> None:
        lines = head.split("\r\n")
        status = lines[0].split(" ", 2)
        if len(status) < 2 or status[1] != "101":
            self._fail_handshake(f"status {lines[0]!r}")
            return
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        expected = base64.b64encode(hashlib.sha1(self.key + _GUID).digest()).decode()
        if headers.get("sec-websocket-accept") != expected:
            self._fail_handshake("bad Sec-WebSocket-Accept")
            return
        self.open = True
        if not self.handshake.done():
            self.handshake.set_result(None)

    def _fail_handshake(self, why: str) -> None:
        if not self.handshake.done():
            self.handshake.set_exception(HandshakeError(why))
        if self.transport is not None:
            self.transport.abort()

    # -- sending -----------------------------------------------------------------------------

    def _write_frame(self, first: int, payload: bytes) -> None:
        n = len(payload)
        mask = os.urandom(4)
        if n < 126:
            head = struct.pack("!BB", first, 0x80 | n)
        elif n < 65536:
            head = struct.pack("!BBH", first, 0xFE, n)
        else:
            head = struct.pack("!BBQ", first, 0xFF, n)
        assert self.transport is not None
        self.transport.write(head + mask + apply_mask(payload, mask))

    def send(self, payload: bytes) -> None:
        """Send one text message (UTF-8 bytes)."""
        if self.open and self.transport is not None and not self.transport.is_closing():
            self._write_frame(0x81, payload)

    def start_close(self) -> None:
        """Send a close frame (1000); the server answers and closes the TCP connection."""
        if self.open and self.transport is not None and not self.transport.is_closing():
            self._write_frame(0x88, struct.pack("!H", 1000))

    def abort(self) -> None:
        if self.transport is not None:
            self.transport.abort()


async def open_ws(factory: Callable[[], WsClient], host: str, port: int,
                  timeout: float = 15.0) -> WsClient:
    """Connect and complete the opening handshake."""
    loop = asyncio.get_running_loop()
    _transport, proto = await asyncio.wait_for(loop.create_connection(factory, host, port),
                                               timeout)
    try:
        await asyncio.wait_for(asyncio.shield(proto.handshake), timeout)
    except BaseException:
        proto.abort()
        raise
    return proto
