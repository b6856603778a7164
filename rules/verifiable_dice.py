"""Verifiable server dice (ruling R101): the server commits to a secret before it rolls, draws
every roll's faces from HMAC-SHA256 keyed by that secret and by the entropy the table has sent
since, and reveals the secret when the scene ends, so that anyone holding the log can recompute
every roll it was shown and check the commitment.

- The **secret** of an encounter is 32 bytes the server derives from its own secret and the
  encounter's id (:func:`encounter_secret`): every process of one deployment derives the same,
  and no credential, the GM's included, is told it before the end.
- The **commitment** is the SHA-256 of the secret (:func:`commitment`), published to everyone
  in the encounter's first events.
- The **entropy chain** starts at the commitment and takes in each piece of entropy a player
  (or the GM) sends (:func:`next_entropy`): a roll's key is HMAC-SHA256 of the chain as it
  stood when the roll was made, keyed by the secret (:func:`roll_key`). Entropy sent after the
  commitment changes every later roll, so the server could not have chosen its secret for them.
- A **renewal** (ruling R117) replaces a secret that was shown while the encounter still runs
  (Redis went back to before its ``dice_revealed``): the new secret is derived from the
  server's secret, the encounter's id and a public **nonce** the log keeps
  (:func:`renewed_secret`), so every process draws the same dice from it, and nobody who knows
  only the log can.
- A roll's **place** is its dice stream and its number in it (``table:17``, ``screen:3``):
  rolls behind the GM's screen are numbered in a stream of their own, so that the numbers of
  the rolls the table sees count none of them.
"""

from __future__ import annotations

import hashlib
import hmac

#: The streams of a roll's place: what the table may see, and what is behind the GM's screen.
TABLE_STREAM = "table"
SCREEN_STREAM = "screen"
#: Longest piece of entropy one command may send, in characters.
MAX_ENTROPY_LENGTH = 64


def encounter_secret(server_secret: bytes, encounter: str) -> bytes:
    """The dice secret of ``encounter`` on a server whose secret is ``server_secret``."""
    key = hashlib.sha256(b"stablemaster dice\0" + server_secret).digest()
    return hmac.new(key, encounter.encode(), hashlib.sha256).digest()


def renewed_secret(server_secret: bytes, encounter: str, nonce: str) -> bytes:
    """The dice secret of ``encounter`` renewed with ``nonce`` (R117), on a server whose secret
    is ``server_secret``: another key than :func:`encounter_secret`'s, so that no encounter id
    and no nonce give one secret for the other."""
    key = hashlib.sha256(b"stablemaster dice renewed\0" + server_secret).digest()
    return hmac.new(key, f"{encounter}\n{nonce}".encode(), hashlib.sha256).digest()


def commitment(secret: bytes) -> str:
    """What the server publishes before its first roll: the SHA-256 of the secret, in hex."""
    return hashlib.sha256(secret).hexdigest()


def next_entropy(chain: str, entropy: str) -> str:
    """The entropy chain after ``entropy`` was sent: SHA-256 of the chain so far, a newline and
    the entropy (UTF-8), in hex."""
    return hashlib.sha256(f"{chain}\n{entropy}".encode()).hexdigest()


def roll_key(secret: bytes, chain: str) -> bytes:
    """The key the faces of a roll are drawn with while the entropy chain stands at ``chain``."""
    return hmac.new(secret, f"rolls\n{chain}".encode(), hashlib.sha256).digest()


def place(stream: str, number: int) -> str:
    """A roll's place: its stream and its number in it, counted from 0."""
    return f"{stream}:{number}"
