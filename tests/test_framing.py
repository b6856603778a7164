"""The server frames its outgoing text messages itself (``server.session``): every length class
of RFC 6455's header must read back, through websockets' own parser, as the same message."""

from __future__ import annotations

import pytest
from websockets.frames import Opcode
from websockets.protocol import OPEN, Protocol, Side

from server.session import _text_frame_header


@pytest.mark.parametrize("length", [0, 1, 125, 126, 127, 65535, 65536, 200_000])
def test_a_frame_of_any_length_reads_back_as_the_same_text(length: int) -> None:
    payload = (b'{"x":"' + b"y" * length + b'"}')[:length] if length >= 8 else b"z" * length
    client = Protocol(Side.CLIENT, state=OPEN, max_size=None)
    client.receive_data(_text_frame_header(len(payload)) + payload + _text_frame_header(2)
                        + b"ok")
    frames = client.events_received()
    assert [(f.opcode, f.fin, bytes(f.data)) for f in frames] == [
        (Opcode.TEXT, True, payload), (Opcode.TEXT, True, b"ok")]
