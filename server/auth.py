"""Credentials: unguessable tokens, stored hashed, checked by every process.

A token reads ``sm1.<encounter>.<token id>.<secret>``. The secret is an HMAC of the encounter
and token id under the server secret, so that a retried ``issue_invite`` (same command id)
can hand out the same token again without the token ever being stored; Redis keeps only its
SHA-256. What a token may do (role, combatants, scopes, revoked) is part of the encounter's
event log (``token_issued``, ``token_revoked``), so every process knows it.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets

_TOKEN = re.compile(r"^sm1\.([a-z0-9]{6,32})\.([a-z0-9]{6,32})\.([A-Za-z0-9_-]{20,64})$")
_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"


def new_id(length: int = 12) -> str:
    """A random id (encounters, token ids, roll requests): ~62 bits at 12 characters."""
    return "".join(secrets.choice(_ALPHABET) for _ in range(length))


class Tokens:
    def __init__(self, server_secret: bytes) -> None:
        self._key = server_secret

    def mint(self, encounter: str, token_id: str) -> str:
        mac = hmac.new(self._key, f"{encounter}.{token_id}".encode(), hashlib.sha256).digest()
        secret = base64.urlsafe_b64encode(mac).decode().rstrip("=")[:40]
        return f"sm1.{encounter}.{token_id}.{secret}"


def digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def parse(token: str) -> tuple[str, str] | None:
    """``(encounter, token id)`` of a well-formed token, else ``None``."""
    m = _TOKEN.match(token)
    return (m.group(1), m.group(2)) if m else None


def matches(token: str, stored_digest: str) -> bool:
    return hmac.compare_digest(digest(token), stored_digest)
