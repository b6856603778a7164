"""Events in brief (the ``lean_events`` feature): what an event says that the view and its
summary do not.

A connection with the ``view`` and ``summaries`` features holds the state, kept by patches,
and reads each event's words in its ``summary``. Its events then need only what neither says:
the ``kind`` (a line's look, an animation's choice), the ids an animation needs (who acted,
on whom: ``combatant``, ``target``, ``source``…), and the fields the schema requires (so
that a brief event is still a valid event of its kind). The events a client checks or
acts on field by field go whole: the dice (``clients/dice_check.py`` verifies them), a roll
asked for (answered from it), an undo (the chat strikes through what it took back).
"""

from __future__ import annotations

from typing import Any

import msgspec

#: The kinds that go whole: read field by field by the dice check, the roll requests, undo.
WHOLE = frozenset({"encounter_created", "dice_committed", "dice_entropy_added", "dice_rolled",
                   "dice_revealed", "dice_renewed", "roll_requested", "commands_undone",
                   "undo_requested", "undo_refused", "token_issued", "token_revoked"})
#: The optional fields kept: the ids of the combatants an event is about, and a move's path.
IDS = frozenset({"combatant", "combatants", "target", "targets", "source", "origin",
                 "organizer", "by", "path"})

_encode = msgspec.json.Encoder()
_dropped: dict[type, frozenset[str]] = {}


def dropped(kind: type) -> frozenset[str]:
    """The fields of an event type that a brief event leaves out: the optional ones but ids."""
    found = _dropped.get(kind)
    if found is None:
        found = _dropped[kind] = frozenset(
            f.encode_name for f in msgspec.structs.fields(kind)
            if not f.required and f.name not in IDS)
    return found


def brief_event(event: Any) -> bytes:
    """``event``'s JSON as a brief event: its required fields, its kind and its ids."""
    if event.__struct_config__.tag in WHOLE:
        return _encode.encode(event)
    out = _encode.encode(event)
    leave = dropped(type(event))
    if not leave:
        return out
    data: dict[str, Any] = msgspec.json.decode(out)
    return _encode.encode({k: v for k, v in data.items() if k not in leave})
