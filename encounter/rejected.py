"""The one exception of the decider: a command that may not be carried out."""

from __future__ import annotations

from typing import Any

from protocol.errors import ErrorCode


class Rejected(Exception):
    """A command that may not be carried out; nothing was changed. ``code`` is the error code
    the client gets, ``message`` says why in the rules' words."""

    def __init__(self, code: ErrorCode, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or None
