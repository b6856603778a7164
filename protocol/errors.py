"""Error codes: stable names a client can switch on. Each comes with a readable message.

Only ``unsupported_version`` and a flood past the rate limit end the connection; every other
error leaves the connection open and the encounter unchanged.
"""

from enum import StrEnum


class ErrorCode(StrEnum):
    BAD_JSON = "bad_json"
    UNKNOWN_TYPE = "unknown_type"
    INVALID_PAYLOAD = "invalid_payload"
    UNSUPPORTED_VERSION = "unsupported_version"
    UNAUTHENTICATED = "unauthenticated"
    FORBIDDEN = "forbidden"
    NOT_YOUR_TURN = "not_your_turn"
    ILLEGAL_ACTION = "illegal_action"
    CONFLICT = "conflict"
    NOT_FOUND = "not_found"
    RATE_LIMITED = "rate_limited"
    TOO_LARGE = "too_large"
    BAD_DICE = "bad_dice"
    INTERNAL = "internal_error"
    UNAVAILABLE = "unavailable"
    STALE = "stale"
    SNAPSHOT_UNAVAILABLE = "snapshot_unavailable"
    ENCOUNTER_LOST = "encounter_lost"
    QUOTA_EXCEEDED = "quota_exceeded"
    ENCOUNTER_FULL = "encounter_full"


ERROR_DESCRIPTIONS: dict[ErrorCode, str] = {
    ErrorCode.BAD_JSON: "The frame is not valid JSON (or is a binary frame).",
    ErrorCode.UNKNOWN_TYPE: "The message has no `type`, or a `type` the server does not know.",
    ErrorCode.INVALID_PAYLOAD: "A field is missing, has the wrong type or is out of range; a "
    "stat block fails its ruleset's sheet (the `message` names the field); YAML beyond its "
    "bounds; objects and arrays nested deeper than `max_depth`.",
    ErrorCode.UNSUPPORTED_VERSION: "No protocol version in `hello.versions` is spoken by the "
    "server; the connection is closed (1002).",
    ErrorCode.UNAUTHENTICATED: "No `hello` yet, or the token is unknown, malformed, revoked "
    "or expired; or a `create_encounter` on a server that creates encounters only with a "
    "creator secret, without one (`details.creator_secret`: `missing`) or with one it does "
    "not know (`wrong`).",
    ErrorCode.FORBIDDEN: "The credential may not do this (a spectator acting, a player acting "
    "for a combatant it does not control, a player issuing GM commands).",
    ErrorCode.NOT_YOUR_TURN: "The combatant may not act now: it is not its turn.",
    ErrorCode.ILLEGAL_ACTION: "The rules do not allow this now; `message` says why.",
    ErrorCode.CONFLICT: "The encounter changed under the command and retries did not settle it, "
    "or a command id was reused with a different payload.",
    ErrorCode.NOT_FOUND: "No such encounter, combatant, token or roll request.",
    ErrorCode.RATE_LIMITED: "Too many messages; slow down. A sustained flood closes with 1008. "
    "Also a replay (`hello.replay`, refused before `welcome`) or a `get_history` page past "
    "what its credential or its client address may read for now (`details.budget`: "
    "`credential` or `address`; `details.retry_after`: the seconds until it would fit).",
    ErrorCode.TOO_LARGE: "The message is larger than the command limit (`welcome.limits`), or "
    "an event the command would store is larger than `max_event_bytes` (nothing is appended). "
    "Frames over the hard limit close the connection with 1009.",
    ErrorCode.BAD_DICE: "A dice expression or the faces given for a roll are not valid.",
    ErrorCode.INTERNAL: "The server failed; nothing was changed. Safe to retry with the same id.",
    ErrorCode.UNAVAILABLE: "The server could not reach its Redis in time (it is overloaded, or "
    "Redis is down). Retry with the same id after a moment: a retry returns the first outcome "
    "if the command did go through.",
    ErrorCode.STALE: "The command's `expect_turn` is not the current turn's `turn_id`: the turn "
    "it was meant for has ended, been interrupted or resumed (another GM's click, a double "
    "click). Nothing was changed; `details.turn_id` is the current turn. Look at the new "
    "`legal_actions` before sending it again (with a new id).",
    ErrorCode.SNAPSHOT_UNAVAILABLE: "After `welcome`: the server could not build this "
    "credential's `snapshot` (the encounter holds something it cannot show, such as a stat "
    "block stored before it was checked whole). The connection stays open and gets the "
    "encounter's events and `legal_actions`; reconnecting tries again. Everyone else is "
    "unaffected.",
    ErrorCode.ENCOUNTER_LOST: "The encounter is no longer in the server's store: its Redis was "
    "restored to a time before the encounter existed (or an operator removed it). Sent unasked "
    "to each of its connections (and as the answer to a command for it), which are then closed "
    "with 4003. Do not reconnect to it: its tokens name nothing any more.",
    ErrorCode.QUOTA_EXCEEDED: "A `create_encounter` past the server's create quota: the "
    "client's address (`details.quota`: `address`) or its creator secret (`creator`) has "
    "created as many encounters, or stored as many bytes, as the server allows over its "
    "window (`details.measure`: `encounters` or `bytes`; `limit`, `window` in seconds). "
    "Nothing was created. The allowance comes back a little at a time: `details.retry_after` "
    "is the seconds until this create would fit (`null`: it never will, being larger than "
    "the whole allowance). Retry then with the same id.",
    ErrorCode.ENCOUNTER_FULL: "The encounter holds as many events, or as many bytes of them "
    "(as stored), as the server keeps for one encounter (`details.measure`: `events` or "
    "`bytes`; `limit`; `held`, what it holds now): the command would store more, and nothing "
    "was changed. The GM may still end the encounter (`end_encounter`) and revoke "
    "credentials, and everyone may still read it (snapshots, history, replays); start a new "
    "encounter to play on. The bounds are the operator's (`--max-encounter-events`, "
    "`--max-encounter-bytes`).",
}
