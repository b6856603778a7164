"""The Stablemaster wire protocol: JSON messages over websockets.

Typed message classes (``msgspec`` structs) are the single source of truth: the server
validates every incoming message against them, and ``python -m docgen`` writes the
JSON Schema and AsyncAPI documents in ``docs/protocol/`` from them.
"""

from protocol.version import PROTOCOL_VERSION, SUPPORTED_VERSIONS

__all__ = ["PROTOCOL_VERSION", "SUPPORTED_VERSIONS"]
