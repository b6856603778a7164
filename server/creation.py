"""Who may create encounters (``--create``, ``--creator-secret``).

``open``: any connection may ``create_encounter``. ``secret``: only a ``create_encounter``
that carries one of the operator's creator secrets (``creator_secret``); any other gets
``unauthenticated``, with ``details.creator_secret`` ``missing`` or ``wrong``. Each secret
is a creator, known by a digest of it (never the secret itself), with a quota of its own
(``server.quotas``).

Unset, the policy is ``secret`` when creator secrets are configured, and ``open`` only for a
server nobody else reaches directly: one listening on a loopback address that trusts no
proxy. Any other server refuses to start until its operator says which (``PolicyError``), so
that a server reachable from elsewhere never lets just anyone create by default.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from dataclasses import dataclass

from encounter.rejected import Rejected
from protocol.errors import ErrorCode
from server.config import Settings

OPEN, SECRET = "open", "secret"
#: The shortest creator secret accepted: it is a credential anyone may try over the network.
MIN_SECRET_LENGTH = 16


class PolicyError(Exception):
    """The settings do not say who may create encounters, or contradict each other."""


def loopback_host(host: str) -> bool:
    """Whether a server listening on ``host`` is reachable from this machine only."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a name, or every address ("", "0.0.0.0", "::")


def creator_id(secret: str) -> str:
    """The name a creator secret's quota and log lines go by."""
    return hashlib.sha256(b"stablemaster creator\0" + secret.encode()).hexdigest()[:16]


def _digest(secret: str) -> bytes:
    return hashlib.sha256(secret.encode()).digest()


@dataclass(frozen=True)
class CreatePolicy:
    mode: str
    #: (digest of the secret, creator id) of each creator secret
    creators: tuple[tuple[bytes, str], ...] = ()

    @classmethod
    def of(cls, settings: Settings) -> CreatePolicy:
        secrets = settings.creator_secrets
        short = [s for s in secrets if len(s) < MIN_SECRET_LENGTH]
        if short:
            raise PolicyError(f"a creator secret must be at least {MIN_SECRET_LENGTH} "
                              "characters (e.g. `openssl rand -hex 16`)")
        mode = settings.create
        if mode is None:
            mode = SECRET if secrets else _default(settings)
        if mode not in (OPEN, SECRET):
            raise PolicyError(f"unknown --create {mode!r} (open, secret)")
        if mode == OPEN and secrets:
            raise PolicyError("--create open lets anyone create encounters, yet creator secrets "
                              "are set (--creator-secret): drop one or the other")
        if mode == SECRET and not secrets:
            raise PolicyError("--create secret needs at least one --creator-secret "
                              "(STABLEMASTER_CREATOR_SECRET; e.g. `openssl rand -hex 16`)")
        return cls(mode, tuple((_digest(s), creator_id(s)) for s in secrets))

    def describe(self) -> str:
        """Who may create encounters, for the log at start."""
        if self.mode == OPEN:
            return "anyone may create encounters (--create open)"
        return (f"encounters are created only with a creator secret ({len(self.creators)} "
                "set: --creator-secret)")

    def creator(self, secret: str | None) -> str | None:
        """The creator a ``create_encounter`` carrying ``secret`` counts as (``None``: none,
        the policy being ``open``); ``Rejected`` when the policy refuses it."""
        if self.mode == OPEN:
            return None
        if secret is None:
            raise Rejected(ErrorCode.UNAUTHENTICATED, "this server creates encounters only "
                           "with its creator secret: send it as create_encounter."
                           "creator_secret (ask whoever runs the server)",
                           creator_secret="missing")
        given = _digest(secret)
        found = None
        for digest, name in self.creators:  # every one compared, in constant time each
            if hmac.compare_digest(digest, given):
                found = name
        if found is None:
            raise Rejected(ErrorCode.UNAUTHENTICATED, "create_encounter.creator_secret is not "
                           "one of this server's creator secrets", creator_secret="wrong")
        return found


def _default(settings: Settings) -> str:
    """``open`` for a server only this machine reaches; else the operator must choose."""
    if not loopback_host(settings.host):
        why = f"--host {settings.host or '(every address)'} is not a loopback address"
    elif settings.trusted_proxies:
        why = "it trusts proxies (--trusted-proxies), so clients reach it through them"
    else:
        return OPEN
    raise PolicyError(
        f"who may create encounters is not set, and this server can be reached from "
        f"elsewhere ({why}): set --creator-secret (STABLEMASTER_CREATOR_SECRET, e.g. "
        "`openssl rand -hex 16`) so that only those you give it create encounters, or "
        "--create open (STABLEMASTER_CREATE=open) to let anyone create them, within the "
        "per-address quotas")
