"""An encounter table in one process: the protocol's commands in, the encounter's events out,
with no Redis, no sockets and no server.

A :class:`Table` is what a server holds for one encounter, minus the I/O: it decodes each
command as the server decodes a message from the wire (``protocol.messages``), decides it
with :func:`encounter.engine.decide` for a given :class:`~encounter.actors.Actor` (the GM's
credential unless told otherwise), and keeps the whole log and the state the decider returns
(folding the log from scratch must give that state: :meth:`Table.replays`). What a viewer is
shown comes from the functions the server calls for each connection (:mod:`encounter.views`,
:func:`encounter.legal.legal_actions`). The test suite plays its rule scenarios on it, and
some of them over the real protocol too (docs/harness.md). ::

    table = Table([{"name": "Ace", "id": "ace", "kind": "pc", "initiative": 5},
                   {"name": "Dog", "id": "dog", "initiative": 1}], dice_seed=1)
    table.do("start_encounter")
    table.act("ace", "end_turn")              # -> ["turn_ended", "turn_started"]
    error = table.refused_act("ace", "move")   # not ace's turn: nothing appended
    assert error.code == "not_your_turn"
    assert table.replays()                     # the log folds to the state

Dice: with ``dice_seed`` the server's dice are the same on every run; with ``dice_secret``
(and no ``dice_seed``) they are verifiable as a server's are (ruling R101); with ``players_roll``
and ``manual_rolls`` every die is a physical one, answered with :meth:`Table.roll` (or any
``submit_roll``). A command refused here is refused with the same error code and message as
over the network; what only a server does (tokens and their secrets, retries of a command id,
rate limits, message sizes) is not here.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec
import orjson
import yaml

from encounter import engine
from encounter.actors import Actor
from encounter.decision import Rewound
from encounter.fold import fold
from encounter.legal import legal_actions
from encounter.state import EncounterState
from encounter.views import view_event, view_state
from protocol import messages as msg
from protocol.errors import ErrorCode
from protocol.events import Envelope
from protocol.messages import LegalAction
from rules.battle_map import BattleMap
from rules.choices import command_refusal

#: The GM's credential, as :class:`Table` issues it when the encounter is created.
GM = Actor(role="gm", token_id="gm")

_decode = msgspec.json.Decoder(msg.AnyClientMessage)
_encode = msgspec.json.Encoder()
_CLASSES = {str(c.__struct_config__.tag): c for c in msg.AnyClientMessage.__args__}


class Refused(engine.Rejected):
    """A command the encounter refused (the decider's :class:`~encounter.engine.Rejected`, or
    what the server refuses before deciding: a message it cannot decode, a credential that may
    only watch): the ``error`` a client would get. Nothing was appended."""

    def __init__(self, code: ErrorCode, message: str, details: dict[str, Any] | None = None,
                 command_id: str | None = None) -> None:
        super().__init__(code, message, **(details or {}))
        self.command_id = command_id

    @property
    def reply(self) -> dict[str, Any]:
        """The ``error`` message as a client receives it."""
        reply: dict[str, Any] = wire(msg.Error(id=self.command_id, code=self.code,
                                               message=self.message, details=self.details))
        return reply


@dataclass
class Sent:
    """What a command did: the events it appended (as stored, unredacted) and its result."""

    command: msg.Command
    envelopes: list[Envelope]
    result: dict[str, Any] = field(default_factory=dict)

    @property
    def kinds(self) -> list[str]:
        return [kind_of(e) for e in self.envelopes]

    @property
    def seq(self) -> int | None:
        return self.envelopes[-1].seq if self.envelopes else None

    def events(self, kind: str | None = None) -> list[Any]:
        """The events (of one ``kind``, or all), in order."""
        return [e.event for e in self.envelopes if kind is None or kind_of(e) == kind]

    @property
    def ack(self) -> dict[str, Any]:
        """The ``ack`` message as a client receives it."""
        return wire(msg.Ack(id=self.command.id, seq=self.seq, result=self.result))


def kind_of(envelope: Envelope) -> str:
    """The event's ``kind``: ``turn_started``, ``dice_rolled``, ..."""
    tag: str = envelope.event.__struct_config__.tag  # type: ignore[assignment]
    return tag


def wire(message: Any) -> Any:
    """A protocol struct (or a list of them) as the JSON a client decodes."""
    return orjson.loads(_encode.encode(message))


#: Where the server's shipped example encounters are (``server/examples/``).
SHIPPED_EXAMPLES = Path(__file__).resolve().parent.parent / "server" / "examples"


class Table:
    """One encounter, created from stat blocks (dicts as ``create_encounter`` takes them, or
    ``StatBlock`` structs) and YAML, a ruleset, a battle map and options; see the module's
    docstring."""

    def __init__(self, combatants: Iterable[Any] = (), *, ruleset: str = "dramatic",
                 map: Mapping[str, Any] | BattleMap | None = None,
                 combatants_yaml: str | None = None, name: str = "Encounter",
                 encounter_id: str = "table", now_ms: int = 1_700_000_000_000,
                 dice_secret: bytes | None = None, **options: Any) -> None:
        self.id = encounter_id
        #: The secret the server's dice are drawn from, as a server derives it (verifiable
        #: dice, ruling R101); ``None``: none, each roll seeded as ``dice_seed`` says.
        self.dice_secret = dice_secret
        #: The clock the decider is given (milliseconds); tests may move it on.
        self.now_ms = now_ms
        self._ids = (f"id{n}" for n in itertools.count(1))
        self._commands = (f"cmd{n}" for n in itertools.count(1))
        self.envelopes: list[Envelope] = []
        self.state = EncounterState(id=encounter_id)
        create = self._decode({
            "type": "create_encounter", "id": "table-create-000000", "name": name,
            "ruleset": ruleset, "combatants": list(combatants),
            "combatants_yaml": combatants_yaml, "options": options, "map": map})
        assert isinstance(create, msg.CreateEncounter)
        try:
            out = engine.create(create, encounter_id, GM.token_id, self.context())
        except engine.Rejected as r:
            raise Refused(r.code, r.message, r.details, create.id) from None
        self._append(out, f"create:{create.id}", create)
        #: The seq of the last event of the encounter's creation.
        self.created = self.state.version

    @classmethod
    def from_example(cls, source: str | Path, **options: Any) -> Table:
        """An encounter from an example's YAML (its text or its file, as in
        ``server/examples/``): its name, ruleset, battle map and combatants, and the social
        scene's set-up (each one's situation and the event) as the GM's commands. A ``Path``,
        or a one-line string ending in ``.yaml`` or ``.yml``, names the file; a bare file name
        that is not in the working directory names a shipped example."""
        if isinstance(source, str) and "\n" not in source \
                and source.strip().endswith((".yaml", ".yml")):
            source = Path(source.strip())
        if isinstance(source, Path) and not source.exists() and source.name == str(source) \
                and (SHIPPED_EXAMPLES / source).exists():
            source = SHIPPED_EXAMPLES / source
        text = source.read_text(encoding="utf-8") if isinstance(source, Path) else source
        data = yaml.safe_load(text)
        if not isinstance(data, dict):
            raise ValueError("an example encounter is a YAML mapping (name, ruleset, "
                             f"combatants...), not {type(data).__name__}: pass its text, or "
                             "its file as a Path")
        raw = data.get("map")
        battle_map: Mapping[str, Any] | BattleMap | None = raw
        if isinstance(raw, dict) and "drawing" in raw:
            walls = [(tuple(a), tuple(b)) for a, b in raw.get("walls") or []]
            battle_map = BattleMap.from_ascii(str(raw["drawing"]), walls=walls)
        table = cls(ruleset=data.get("ruleset", "dramatic"), map=battle_map,
                    combatants_yaml=text, name=data.get("name", "Encounter"), **options)
        social = data.get("social") or {}
        for cid, situation in (social.get("situations") or {}).items():
            table.send("set_social_situation", combatant=cid, **situation)
        if social.get("event"):
            table.send("set_social_event", **social["event"])
        return table

    def context(self) -> engine.Context:
        secret = self.dice_secret
        return engine.Context(now_ms=self.now_ms, new_id=lambda: next(self._ids),
                              dice_secret=None if secret is None else lambda *_: secret,
                              rewind=self._rewind)

    def _rewind(self, seq: int) -> Rewound | None:
        """The encounter at ``seq`` and the events after it, from the log (an undo's)."""
        if not 0 < seq <= self.state.version:
            return None
        return Rewound(fold(self.id, self.envelopes[:seq]), self.envelopes[seq:])

    # -- commands --------------------------------------------------------------------------------

    def send(self, type_: str, /, *, by: Actor = GM, **fields: Any) -> Sent:
        """Send the command ``type_`` with ``fields`` (as a client writes them, e.g.
        ``send("act", combatant="ace", action="move", args={"path": [[1, 0]]})``) as ``by``;
        raises :class:`Refused`. An ``id`` is made up unless given."""
        message = {"type": type_, "id": fields.pop("id", None) or next(self._commands),
                   **fields}
        cmd = self._decode(message)
        if not isinstance(cmd, msg.Command) or isinstance(cmd, msg.CreateEncounter):
            raise Refused(ErrorCode.INVALID_PAYLOAD, f"{type_} is not a command for an "
                          "encounter that exists", command_id=message["id"])
        return self.command(cmd, by=by)

    def command(self, cmd: msg.Command, *, by: Actor = GM) -> Sent:
        """Decide a command already built (``protocol.messages``) as ``by``."""
        if isinstance(cmd, msg.Ping):
            return Sent(cmd, [])
        if not by.may_command:
            raise Refused(ErrorCode.FORBIDDEN, "this credential may only watch",
                          command_id=cmd.id)
        grant = self.state.tokens.get(by.token_id)
        if grant is not None and (grant.revoked or grant.expired(self.now_ms)):
            raise Refused(ErrorCode.UNAUTHENTICATED, "unknown, malformed or revoked token",
                          command_id=cmd.id)
        try:
            out = engine.decide(self.state, by, cmd, self.context())
        except engine.Rejected as r:
            raise Refused(r.code, r.message, r.details, cmd.id) from None
        return self._append(out, f"{by.token_id}:{cmd.id}", cmd)

    def do(self, type_: str, /, *, by: Actor = GM, **fields: Any) -> list[str]:
        """:meth:`send`, returning the kinds of the events it appended, in order."""
        return self.send(type_, by=by, **fields).kinds

    def act(self, combatant: str, action: str, /, *, by: Actor = GM, **args: Any) -> list[str]:
        """``act``: ``combatant`` takes ``action`` with ``args``; the kinds of its events."""
        return self.do("act", by=by, combatant=combatant, action=action, args=args)

    def refused(self, type_: str, /, *, by: Actor = GM, **fields: Any) -> Refused:
        """The refusal of a command that must be refused; fails when it is not, or when
        anything was appended or changed."""
        before, seq = _encode.encode(self.state), self.state.version
        try:
            sent = self.send(type_, by=by, **fields)
        except Refused as refusal:
            assert self.state.version == seq and len(self.envelopes) == seq, "appended"
            assert _encode.encode(self.state) == before, "the state changed"
            return refusal
        raise AssertionError(f"{type_} {fields} was not refused: {sent.kinds}")

    def refused_act(self, combatant: str, action: str, /, *, by: Actor = GM,
                    **args: Any) -> Refused:
        """:meth:`refused` for ``act``."""
        return self.refused("act", by=by, combatant=combatant, action=action, args=args)

    def roll(self, *faces: int, by: Actor = GM) -> list[str]:
        """Answer the one pending physical roll with ``faces``."""
        (request,) = self.state.pending_rolls
        return self.do("submit_roll", by=by, request=request, faces=list(faces))

    # -- credentials -----------------------------------------------------------------------------

    def actor(self, token_id: str) -> Actor:
        """The rights of a credential the encounter issued, as the server gives them to the
        connection that says hello with it."""
        grant = self.state.tokens[token_id]
        return Actor(role=grant.role, token_id=token_id, combatants=frozenset(grant.combatants),
                     scopes=frozenset(grant.scopes))

    def invite(self, *combatants: str) -> Actor:
        """A player's credential for ``combatants`` (``issue_invite``)."""
        sent = self.send("issue_invite", combatants=list(combatants))
        return self.actor(sent.result["token_id"])

    def spectator(self) -> Actor:
        """A spectator's credential (``issue_spectator_link``)."""
        return self.actor(self.send("issue_spectator_link").result["token_id"])

    def integration(self, *scopes: str) -> Actor:
        """An integration's credential with ``scopes`` (``issue_integration_token``)."""
        sent = self.send("issue_integration_token", scopes=list(scopes))
        return self.actor(sent.result["token_id"])

    # -- what a viewer is shown ------------------------------------------------------------------

    def legal(self, viewer: Actor = GM) -> list[LegalAction]:
        """The ``legal_actions`` the server would send ``viewer`` now."""
        return legal_actions(self.state, viewer)

    def view(self, viewer: Actor = GM) -> dict[str, Any]:
        """The state in ``viewer``'s snapshot."""
        return view_state(self.state, viewer)

    def seen(self, viewer: Actor = GM, since: int = 0) -> list[Any]:
        """The events after seq ``since`` that ``viewer`` is shown, as it is shown them."""
        shown = (view_event(e, viewer) for e in self.envelopes[since:])
        return [e for e in shown if e is not None]

    def messages(self, viewer: Actor = GM, since: int = 0) -> list[dict[str, Any]]:
        """The ``event`` messages after seq ``since`` that ``viewer`` receives, as JSON (the
        server adds each one's ``digest``)."""
        out = []
        for envelope in self.envelopes[since:]:
            event = view_event(envelope, viewer)
            if event is not None:
                out.append(wire(msg.EventMessage(encounter=self.id, seq=envelope.seq,
                                                 ts=envelope.ts, event=event)))
        return out

    def replays(self) -> bool:
        """Folding the whole log from scratch gives the state the table holds."""
        return fold(self.id, self.envelopes) == self.state

    # -- inside ----------------------------------------------------------------------------------

    def _decode(self, message: dict[str, Any]) -> msg.AnyClientMessage:
        try:
            return _decode.decode(_encode.encode(message))
        except msgspec.ValidationError as exc:
            if message.get("type") not in msg.CLIENT_TYPES:
                raise Refused(ErrorCode.UNKNOWN_TYPE,
                              f"unknown message type {message.get('type')!r}",
                              command_id=message.get("id")) from None
            kind = str(message["type"])
            raise Refused(ErrorCode.INVALID_PAYLOAD,
                          command_refusal(str(exc), _CLASSES[kind], kind),
                          command_id=message.get("id")) from None

    def _append(self, out: engine.Outcome, dedupe: str, cmd: msg.Command) -> Sent:
        for e in out.envelopes:
            e.cmd = dedupe
        self.envelopes += out.envelopes
        self.state = out.state
        return Sent(cmd, out.envelopes, out.result)


__all__ = ["GM", "Refused", "Sent", "Table", "kind_of", "wire"]
