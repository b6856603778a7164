"""One origin policy (``--allow-origin``) for what browsers may do with this server.

A page in a browser says where it comes from (``Origin``) when it opens a websocket or fetches
across origins. The server's own pages (the web table, the spectator page) are always allowed,
and so is every client that is no browser page (a VTT's server, a bot, the terminal client:
they send no ``Origin``). Beyond those, only the origins the operator lists, the same list for

- ``/ws``: a handshake from a page of another origin is refused (HTTP 403), so a page on some
  other site cannot open a connection with a token it got hold of;
- the HTTP endpoints (``/schemas/args/…``, ``/healthz``...): an allowed origin's ``GET`` is
  answered with ``Access-Control-Allow-Origin`` naming it (the requests are simple ones: no
  preflight), so that, say, a Foundry VTT module on the GM's own Foundry server may read the
  argument schemas.

The server's own origin is the host the request was made to (its ``Host`` header, which a
proxy in front passes on with its port: see ``deploy/nginx.conf``), in any scheme. ``*`` in
the list allows every origin.
"""

from __future__ import annotations

from urllib.parse import urlsplit


class OriginPolicy:
    def __init__(self, allowed: tuple[str, ...] = ()) -> None:
        self.any = "*" in allowed
        self.allowed = frozenset(normal(o) for o in allowed if o != "*")

    def allows(self, origin: str | None, host: str | None) -> bool:
        """Whether a request with this ``Origin`` (``None``: no browser page) made to
        ``host`` is allowed."""
        if origin is None or self.any:
            return True
        origin = normal(origin)
        return origin in self.allowed or (host is not None and _authority(origin)
                                          == host.strip().lower())

    def cors(self, origin: str | None, host: str | None) -> list[tuple[str, str]]:
        """The CORS headers of an HTTP answer to a request with this ``Origin``."""
        if origin is None or not self.allows(origin, host):
            return [("Vary", "Origin")]
        return [("Access-Control-Allow-Origin", origin), ("Vary", "Origin")]


def normal(origin: str) -> str:
    """An origin as browsers send it: scheme and host in lower case, no path, no slash."""
    return origin.strip().rstrip("/").lower()


def _authority(origin: str) -> str:
    """The host (and port, if any) of an origin."""
    try:
        return urlsplit(origin).netloc
    except ValueError:
        return ""


def origin_list(text: str) -> tuple[str, ...]:
    """``--allow-origin``: origins separated by commas (``https://foundry.example:30000``),
    or ``*``; refused when one is not an origin."""
    out = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            continue
        if item != "*":
            parts = urlsplit(item.rstrip("/"))
            if parts.scheme not in ("http", "https") or not parts.netloc or parts.path \
                    or parts.query or parts.fragment:
                raise ValueError(f"{item!r} is not an origin (scheme://host[:port])")
        out.append(item)
    return tuple(out)
