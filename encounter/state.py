"""Encounter state: what a fold over the event log yields. Plain data (msgspec structs)."""

from __future__ import annotations

import msgspec

from protocol.events import InitiativeEntry, Role
from protocol.model import CombatantProfile, EncounterOptions, Roll, Scope


class TokenGrant(msgspec.Struct, kw_only=True):
    """A credential's rights (the secret itself lives only with its holder)."""

    token_id: str
    role: Role
    combatants: list[str] = []
    scopes: list[Scope] = []
    label: str | None = None
    revoked: bool = False


class PendingRoll(msgspec.Struct, kw_only=True):
    """A roll the encounter waits for (physical dice)."""

    request: str
    roller: str  # "gm" or a combatant id
    combatant: str | None
    expr: str
    dice: list[int]
    purpose: str


class EncounterState(msgspec.Struct, kw_only=True):
    id: str
    name: str = ""
    ruleset: str = "dramatic"
    options: EncounterOptions = EncounterOptions()
    version: int = 0
    created_ts: int = 0
    chart: list[str] = msgspec.field(default_factory=lambda: ["setup"])
    combatants: dict[str, CombatantProfile] = {}
    #: Initiative results by combatant; ``order`` lists combatant ids, highest first.
    initiative: dict[str, InitiativeEntry] = {}
    order: list[str] = []
    round: int = 0
    current: str | None = None
    #: Rolls the encounter waits for, by request id, and initiative rolls already in.
    pending_rolls: dict[str, PendingRoll] = {}
    initiative_rolls: dict[str, Roll] = {}
    server_rolls: int = 0
    tokens: dict[str, TokenGrant] = {}
    ended: bool = False
    end_reason: str | None = None

    def visible_combatant(self, cid: str) -> bool:
        c = self.combatants.get(cid)
        return c is not None and not c.hidden


_encode = msgspec.msgpack.Encoder()
_decode = msgspec.msgpack.Decoder(EncounterState)


def copy_state(state: EncounterState) -> EncounterState:
    """A deep copy (the decider works on a copy, so a refused command changes nothing)."""
    return _decode.decode(_encode.encode(state))


def dump_state(state: EncounterState) -> bytes:
    return _encode.encode(state)


def load_state(data: bytes) -> EncounterState:
    return _decode.decode(data)
