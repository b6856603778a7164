"""The resume cursor: a reader's place in an encounter's log, sealed so that it tells nothing.

A connection that asks for the ``cursor`` feature is never told a ``seq``: the log counts the
events behind the GM's screen, so the gaps between the seqs a player receives would count the
hidden events it may not see. It is given a cursor instead, with every event, snapshot, legal
actions and ack, and resumes from the last one it holds (``hello.cursor``, or ``&cursor=`` in a
spectator link).

A cursor is one AES block (the key derived from the server secret and the encounter) holding
the seq and the digest of the log at that seq (``server.store.LogChain``): 16 bytes, 22
characters of URL-safe base64. The server opens it without reading or redacting the log, and
resumes from the seq exactly as from ``since`` and ``digest``, the digest telling a log that
went back from the one the reader saw. To the reader it is opaque: cursors compare equal when
they name the same place, and nothing else can be read from them.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

#: The length of a cursor (16 bytes in URL-safe base64, without padding).
CURSOR_LENGTH = 22
_DIGEST = re.compile(rb"[A-Za-z0-9_-]{12}|\x00{12}")


class CursorError(ValueError):
    """A string that is not a cursor of this encounter's server."""


class Cursors:
    """Seals and opens the cursors of one encounter."""

    __slots__ = ("_decrypt", "_encrypt")

    def __init__(self, secret_key: bytes, encounter: str) -> None:
        key = hashlib.blake2b(encounter.encode(), key=secret_key, person=b"sm cursor",
                              digest_size=16).digest()
        # One block, one key per encounter: ECB of a single block is the cipher itself. In ECB
        # each block is enciphered on its own, so one encryptor (and one decryptor) serves
        # every cursor of the encounter, block by block, and is never finalized.
        cipher = Cipher(algorithms.AES(key), modes.ECB())
        self._encrypt = cipher.encryptor()
        self._decrypt = cipher.decryptor()

    def seal(self, seq: int, digest: str | None) -> str:
        """The cursor of ``seq``, where the log's digest is ``digest`` (``""``/``None``: before
        the first event, or an event stored before digests existed)."""
        raw = digest.encode() if digest else b"\x00" * 12
        if len(raw) != 12:
            raise ValueError(f"a digest of {len(raw)} bytes")
        block = self._encrypt.update(seq.to_bytes(4, "big") + raw)
        return base64.urlsafe_b64encode(block).rstrip(b"=").decode()

    def open(self, cursor: str) -> tuple[int, str]:
        """The seq and digest a cursor names; :class:`CursorError` for anything else."""
        if len(cursor) != CURSOR_LENGTH:
            raise CursorError(f"a cursor is {CURSOR_LENGTH} characters")
        try:
            block = base64.urlsafe_b64decode(cursor + "==")
        except (binascii.Error, ValueError):
            raise CursorError("a cursor is URL-safe base64") from None
        if len(block) != 16:
            raise CursorError("a cursor is URL-safe base64")
        plain = self._decrypt.update(block)
        digest = plain[4:]
        if not _DIGEST.fullmatch(digest):  # sealed by no server of this encounter
            raise CursorError("not a cursor of this encounter")
        return int.from_bytes(plain[:4], "big"), "" if digest[0] == 0 else digest.decode()
