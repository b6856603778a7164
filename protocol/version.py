"""Protocol versions.

The protocol version is a whole number. A client lists the versions it speaks in ``hello``;
the server answers with the highest one both speak, or ``unsupported_version``. Version 1 is
the first. Additive changes (a new optional field, a new event kind, a new message type that a
client may ignore) keep the version; anything that changes the meaning of an existing field
bumps it.
"""

PROTOCOL_VERSION = 1
SUPPORTED_VERSIONS: tuple[int, ...] = (1,)
