"""The one exception of the decider: a command that may not be carried out."""

from __future__ import annotations

import re
from typing import Any

from protocol.errors import ErrorCode

#: The refusals of the rules: the refusal of an ``act``, which a person at the table reads, is
#: a sentence (:meth:`Rejected.as_read`). (A schema error, ``invalid_payload``, names the field
#: as its first word.)
SENTENCES = frozenset({ErrorCode.ILLEGAL_ACTION, ErrorCode.NOT_YOUR_TURN, ErrorCode.FORBIDDEN})

_FIRST_WORD = re.compile(r"[a-z]+(?=[\s,:;']|$)")


def as_sentence(text: str) -> str:
    """``text`` as a sentence: its first letter a capital, unless the first word is a name or
    an identifier (``get_reach``, ``args.path``, ``'dog'``), and a full stop at the end unless
    it ends with one."""
    text = text.strip()
    if _FIRST_WORD.match(text):
        text = text[0].upper() + text[1:]
    return text if not text or text[-1] in ".!?" else text + "."


class Rejected(Exception):
    """A command that may not be carried out; nothing was changed. ``code`` is the error code
    the client gets, ``message`` says why in the rules' words."""

    def __init__(self, code: ErrorCode, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or None

    def as_read(self) -> Rejected:
        """The refusal as a person reads it: a refusal of the rules (:data:`SENTENCES`) as a
        sentence; any other (a schema error naming its field) as it is."""
        if self.code in SENTENCES:
            self.message = as_sentence(self.message)
            self.args = (self.message,)
        return self
