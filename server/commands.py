"""Carrying out commands: decide against the room's state, append with a compare-and-set,
deliver, acknowledge. Acknowledged only after Redis has the events (and, with a durability
setting that asks for it, only once Redis confirmed them fsynced or replicated)."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import secrets
import time
from collections.abc import Callable
from typing import Any, Protocol

import msgspec
import orjson
from redis import exceptions as redis_exceptions

from encounter import engine
from encounter.actors import Actor
from encounter.decision import Rewound
from encounter.rolls import DICE_RENEWAL, renewal
from encounter.screen import behind, waits_for_screen
from encounter.state import EncounterState
from encounter.timers import TimerDue
from encounter.undo import undo_target
from protocol import messages as msg
from protocol.errors import ErrorCode
from protocol.events import Envelope, TokenIssued, TokenRevoked
from server import auth, history, metrics
from server.budgets import ReadBudget, Refused
from server.campaigns import Campaigns, Seat
from server.config import Settings
from server.crash import crash_point
from server.creation import CreatePolicy
from server.cursor import CursorError
from server.quotas import CreateQuotas
from server.rooms import Member, Room
from server.store import Appended, Batch, EventStore, EventTooLarge, Loaded, NotDurable
from server.timers import TimerSeat

log = logging.getLogger("stablemaster.commands")

#: Tries of a command that keeps losing the compare-and-set race before answering ``conflict``.
MAX_ATTEMPTS = 8
#: Events read from the log at a time by ``get_history``.
HISTORY_CHUNK = 500

_encode = msgspec.json.Encoder()
CREATE_KEY = "stablemaster:create:{}"
CREATE_TTL = 7 * 24 * 3600
#: Seconds a retried ``create_encounter`` leaves the first attempt to finish before it carries
#: out the create itself (with the encounter and token ids the first attempt claimed).
CREATE_GRACE = 2.0



class Host(Protocol):
    """What carrying out commands needs of the server (``server.app.Server`` is one)."""

    redis: Any
    store: EventStore
    tokens: auth.Tokens
    settings: Settings
    creation: CreatePolicy
    quotas: CreateQuotas
    campaigns: Campaigns
    read_budget: ReadBudget

    def dice_secret(self, encounter: str, nonce: str | None = None) -> bytes:
        """The secret the encounter's server dice are drawn from (ruling R101)."""
        ...


class Sender(Member, Protocol):
    """The connection a command came on (``server.session.Session`` is one)."""

    room: Room | None
    #: whom it counts as for the create quotas (``None``: a local client)
    address: str | None
    #: its place in a campaign, when it came by a campaign link (R113)
    campaign_seat: Seat | None

    def created(self) -> None:
        """A ``create_encounter`` of this connection was answered with its encounter."""
        ...


def _turn_held(session: Sender, cmd: msg.Command) -> msg.Command:
    """``cmd`` as decided: with ``legal_changed`` the connection is sent no legal actions
    while its own stay the same, turn after turn, so the turn of the last ones it was sent
    (``Session.legal_turn``) stands for the current turn as long as they do (had they changed,
    the new ones would have been sent before this command was decided, under the room's
    lock): an ``expect_turn`` naming it is not stale."""
    if cmd.expect_turn is not None and getattr(session, "legal_changed", False) and \
            cmd.expect_turn == getattr(session, "legal_turn", None):
        return msgspec.structs.replace(cmd, expect_turn=None)
    return cmd


class CommandService:
    def __init__(self, server: Host) -> None:
        self.server = server
        #: the clock commands are decided by (seconds since the epoch): the events' ``ts``
        self.clock: Callable[[], float] = time.time

    def context(self) -> engine.Context:
        return engine.Context(now_ms=int(self.clock() * 1000), new_id=auth.new_id,
                              dice_secret=self.server.dice_secret)

    async def handle(self, session: Sender, cmd: msg.Command) -> None:
        kind = cmd.__struct_config__.tag
        started = time.perf_counter()
        outcome = "ok"
        try:
            if isinstance(cmd, msg.Ping):
                session.acknowledge(cmd.id, None, None, {}, False)
            elif isinstance(cmd, msg.CreateEncounter):
                await self.create(session, cmd)
            elif isinstance(cmd, msg.CreateCampaign):
                await self.server.campaigns.create(session, cmd)
            elif isinstance(cmd, msg.RecoverCampaign):
                await self.server.campaigns.recover(session, cmd)
            elif isinstance(cmd, msg.CAMPAIGN_COMMANDS) or (
                    session.campaign_seat is not None and session.room is None):
                await self.server.campaigns.handle(session, cmd)
            elif session.actor is None or session.room is None:
                outcome = ErrorCode.UNAUTHENTICATED.value
                session.error(ErrorCode.UNAUTHENTICATED, "say hello with a token first", cmd.id)
            elif isinstance(cmd, msg.GetHistory):
                await self.history(session, cmd)
                session.room.answer(session, cmd.id, {}, hold=False)
            elif isinstance(cmd, msg.GetSnapshot):
                session.room.send_snapshot(session, "asked", join=False)
                session.room.answer(session, cmd.id, {}, hold=False)
            elif isinstance(cmd, msg.GetReach):
                room = session.room
                result = engine.reach(room.state_for(session.actor), session.actor, cmd,
                                      self.context())
                room.answer(session, cmd.id, result, hold=False)
            elif isinstance(cmd, msg.GetAim):
                room = session.room
                result = engine.aim(room.state_for(session.actor), session.actor, cmd,
                                    self.context())
                room.answer(session, cmd.id, result, hold=False)
            elif isinstance(cmd, msg.GetLegalActions):
                room = session.room
                session.offer_legal(room.legal_frame(session.actor, cursor=session.cursor),
                                    force=True)
                room.answer(session, cmd.id, {}, hold=False)
            else:
                outcome = await self.execute(session, cmd)
        except engine.Rejected as r:
            outcome = r.code.value
            session.error(r.code, r.message, cmd.id, r.details)
        except NotDurable as exc:
            outcome = ErrorCode.UNAVAILABLE.value
            metrics.NOT_DURABLE.inc()
            log.warning("command %s: %s", kind, exc)
            session.error(ErrorCode.UNAVAILABLE, "Redis did not confirm the change durable in "
                          "time; retry with the same id", cmd.id)
        except (redis_exceptions.ConnectionError, redis_exceptions.TimeoutError) as exc:
            outcome = ErrorCode.UNAVAILABLE.value
            log.warning("command %s: Redis unavailable: %s", kind, exc)
            session.error(ErrorCode.UNAVAILABLE, "the server cannot reach its store right now; "
                          "retry with the same id", cmd.id)
        except Exception:
            outcome = ErrorCode.INTERNAL.value
            log.exception("command %s failed", kind)
            session.error(ErrorCode.INTERNAL, "the server failed; nothing was changed", cmd.id)
        metrics.COMMANDS.labels(str(kind), outcome).inc()
        metrics.COMMAND_SECONDS.observe(time.perf_counter() - started)

    async def fire_timer(self, room: Room, cmd: TimerDue) -> None:
        """A turn timer's warning or end (R102), sent by this process for ``room``."""
        await self.handle(TimerSeat(room), cmd)

    async def renew_dice(self, encounter: str, loaded: Loaded, revealed: str) -> Loaded | None:
        """R117: append the renewal of the dice of ``encounter``, as Redis holds it
        (``loaded``), whose secret ``revealed`` was shown; the encounter with it, or ``None``
        when the log moved meanwhile (another process renewed them, or a command went in).
        The nonce is fresh; the one in the log is the one every process derives the secret
        with. Called by the room's ``LogFollow`` as it reloads, before it tells anyone."""
        cmd = renewal(revealed, secrets.token_hex(16))
        dedupe = f"{DICE_RENEWAL.token_id}:{cmd.id}"
        try:
            out = engine.decide(loaded.state, DICE_RENEWAL, cmd, self.context())
        except engine.Rejected as r:
            log.error("encounter %s: its dice cannot be renewed: %s", encounter, r.message)
            return loaded
        for e in out.envelopes:
            e.cmd = dedupe
        store = self.server.store
        appended = await store.append(encounter, loaded.state.version, out.envelopes, dedupe,
                                      {"seq": out.state.version}, loaded.head,
                                      store.encode(out.envelopes), delivers=True, bounded=False)
        if appended.status != "ok":
            return None
        log.warning("encounter %s: dice renewed at seq %d (R117): commitment %s", encounter,
                    out.state.version, out.state.dice_commitment)
        return Loaded(out.state, appended.head)

    # -- history -----------------------------------------------------------------------------

    async def history(self, session: Sender, cmd: msg.GetHistory) -> None:
        """``get_history``: the last ``limit`` events before ``before`` this viewer may see,
        as it would have received them, found in the room's index (``server.history``) and
        read from the log, they and no others. When the log no longer holds them as indexed
        (trimmed, or gone back meanwhile): the log read back a chunk at a time, keeping the
        events the viewer may see, until ``limit`` of them, the log's start, or
        ``max_replay`` events read (then ``before`` says where to go on)."""
        room, actor = session.room, session.actor
        assert room is not None and actor is not None
        end = room.position(actor)[0] + 1  # nothing after what it has been told
        if isinstance(cmd.before, str):
            try:
                end = min(end, room.cursors.open(cmd.before)[0])
            except CursorError as exc:
                raise engine.Rejected(ErrorCode.INVALID_PAYLOAD, f"before: {exc}") from None
        elif cmd.before is not None:
            end = min(end, cmd.before)
        wanted, older_seq = await history.locate(room, actor, end, cmd.limit)
        # (charged what it reads: the page's events; when they must be looked for in the
        # log, as many as it may return)
        refused = self.server.read_budget.charge(f"{room.id}:{actor.token_id}",
                                                 session.address, max(1, len(wanted)))
        if refused is not None:
            raise budget_refusal(refused, "history pages")
        shown: list[tuple[int, str, bytes]] = []
        found = await history.read(room, wanted)
        if found is not None:  # (the index: the page's events, read and nothing else)
            envelopes, digests = found
            shown = room.seen_by(envelopes, digests, actor, session.cursor, session.summaries)
            older_at: int | str | None = older_seq
            if older_seq is not None and session.cursor:
                older_at = room.seal(older_seq, shown[0][1])
            session.enqueue(_history_frame(room.id, shown, older_at))
            return
        budget, at, last_digest = self.server.settings.max_replay, end, ""
        while len(shown) < cmd.limit and at > 1 and budget > 0:
            envelopes, digests = await self.server.store.read_before(
                room.id, at, min(HISTORY_CHUNK, budget))
            if not envelopes:
                at = 1  # (a trimmed log: nothing older is held)
                break
            budget -= len(envelopes)
            shown[:0] = room.seen_by(envelopes, digests, actor, session.cursor,
                                     session.summaries)
            at, last_digest = envelopes[0].seq, digests[0]
        older: int | None = None
        if len(shown) >= cmd.limit:
            shown = shown[-cmd.limit:]
            older, last_digest = shown[0][0], shown[0][1]
        elif at > 1:
            older = at
        before: int | str | None = older
        if older is not None and session.cursor:
            before = room.seal(older, last_digest)
        session.enqueue(_history_frame(room.id, shown, before))

    # -- create ------------------------------------------------------------------------------

    async def create(self, session: Sender, cmd: msg.CreateEncounter) -> None:
        """A retried create (same id, same payload) answers with the same encounter and GM
        token; the same id with another payload is a ``conflict``.

        The first attempt claims the id (with the encounter and token ids it will use and the
        time) before it appends. A retry that finds the claim waits for that attempt while it
        is young (``CREATE_GRACE``), then carries out the create itself with the claimed ids:
        the append's compare-and-set at version 0 lets exactly one attempt create the
        encounter, and the other answers with it, so a create whose first attempt died with
        its process still completes.

        Who may create is the server's policy (``server.creation``); a first attempt is
        charged to the connection's address and creator (``server.quotas``) once its events
        are known, before anything is stored, and refused past their quota."""
        creator = self.server.creation.creator(cmd.creator_secret)
        redis = self.server.redis
        payload_hash = _fingerprint(cmd)
        key = CREATE_KEY.format(hashlib.sha256(cmd.id.encode()).hexdigest())
        encounter, gm_token_id = auth.new_id(10), auth.new_id()
        claim = {"encounter": encounter, "token_id": gm_token_id, "payload": payload_hash,
                 "at": time.time()}
        first = None
        if not await redis.set(key, orjson.dumps(claim), nx=True, ex=CREATE_TTL):
            first = orjson.loads(await redis.get(key) or b"{}")
            if first.get("payload") != payload_hash:
                raise engine.Rejected(ErrorCode.CONFLICT,
                                      "this command id was used for another create_encounter")
            claim = first
            encounter, gm_token_id = first["encounter"], first["token_id"]
            young_until = float(first.get("at", 0)) + CREATE_GRACE
            while not await self.server.store.version(encounter):
                if "seq" in first or time.time() >= young_until:
                    break  # (a claim with a seq has its encounter: it cannot be missing)
                await asyncio.sleep(0.05)
            else:
                await self._ack_created(session, cmd, encounter, gm_token_id, first.get("seq"))
                return
            log.info("create_encounter %s: carrying out the create of an attempt that did not "
                     "finish", cmd.id[:8], extra={"encounter": encounter})
            metrics.CREATE_TAKEOVERS.inc()
        else:
            crash_point("create_claimed")
        dedupe = f"create:{cmd.id}"
        try:
            out = engine.create(cmd, encounter, gm_token_id, self.context())
            for e in out.envelopes:
                e.cmd = dedupe
            encoded = _encoded(self.server.store, out)
            if first is None:
                await self.server.quotas.charge(session.address, creator,
                                                sum(len(e) for e in encoded))
        except engine.Rejected:
            await redis.delete(key)
            raise
        token = self.server.tokens.mint(encounter, gm_token_id)
        await self.server.store.put_token(encounter, gm_token_id, auth.digest(token))
        appended = await self.server.store.append(encounter, 0, out.envelopes, dedupe,
                                                  {"seq": out.state.version}, "", encoded)
        if appended.status == "full":  # (a create larger than an encounter may be)
            await redis.delete(key)
            raise encounter_full(appended)
        if appended.status != "ok":  # the other attempt created it meanwhile
            seq = appended.outcome.get("seq") if appended.outcome else None
            await self._ack_created(session, cmd, encounter, gm_token_id, seq)
            return
        crash_point("create_appended")
        await redis.set(key, orjson.dumps({**claim, "seq": out.state.version}),
                        xx=True, keepttl=True)
        log.info("encounter created (by %s)", _who(session.address, creator),
                 extra={"encounter": encounter, "ruleset": cmd.ruleset})
        session.created()
        session.send(msg.Ack(id=cmd.id, seq=out.state.version,
                             result=self._create_result(encounter, gm_token_id),
                             duplicate=first is not None))

    async def _ack_created(self, session: Sender, cmd: msg.CreateEncounter, encounter: str,
                           token_id: str, seq: int | None) -> None:
        """Answer a retried create whose encounter exists."""
        if seq is None:
            first = await self.server.store.dedupe_lookup(encounter, f"create:{cmd.id}")
            seq = first.get("seq") if first else None
        session.created()
        session.send(msg.Ack(id=cmd.id, seq=seq, duplicate=True,
                             result=self._create_result(encounter, token_id)))

    def _create_result(self, encounter: str, token_id: str) -> dict[str, Any]:
        return {"encounter": encounter, "token_id": token_id, "role": "gm",
                "gm_token": self.server.tokens.mint(encounter, token_id)}

    # -- everything else ---------------------------------------------------------------------

    async def execute(self, session: Sender, cmd: msg.Command) -> str:
        room, actor = session.room, session.actor
        assert room is not None and actor is not None
        if not actor.may_command:
            raise engine.Rejected(ErrorCode.FORBIDDEN, "this credential may only watch")
        if cmd.expect_turn is not None and waits_for_screen(actor):
            # A table command meant for the turn the table holds, while the screen is up: that
            # turn is over (or a hidden readier interrupts it), which the table is not told
            # yet. It is decided once the table is told what follows, as it would have been
            # without the hidden combatant (stale, if another turn began). A connection that
            # closes meanwhile gets nothing: its retry decides it anew.
            while behind(room.state):
                if session.gone:
                    return "abandoned"
                await room.until_told()
        dedupe = f"{actor.token_id}:{cmd.id}"
        fingerprint = _fingerprint(cmd)
        store = self.server.store
        async with room.command_lock:
            for _attempt in range(MAX_ATTEMPTS):
                if room.lost:
                    raise engine.Rejected(ErrorCode.ENCOUNTER_LOST, "this encounter is no "
                                          "longer in the server's store")
                known = room.recent.get(dedupe)
                if known is not None:
                    self._ack_duplicate(session, cmd, room, known, fingerprint)
                    return "duplicate"
                state, head = room.state, room.head
                ctx = self.context()
                if isinstance(cmd, msg.Undo) and actor.is_gm:
                    ctx = await self._rewinding(room, state, cmd, ctx)
                    if room.state is not state or room.head != head:
                        continue  # moved on while the log was read: decide again
                try:
                    out = engine.decide(state, actor, _turn_held(session, cmd), ctx)
                except engine.Rejected:
                    # A retry of a command that went through (perhaps on another process)
                    # is no longer legal: answer with its first outcome.
                    first = await store.dedupe_lookup(room.id, dedupe)
                    if first is not None:
                        self._ack_duplicate(session, cmd, room, first, fingerprint)
                        return "duplicate"
                    raise
                for e in out.envelopes:
                    e.cmd = dedupe
                encoded = _encoded(store, out)
                result = self._with_token(room.id, out.result)
                for token_id in _issued(out):
                    token = self.server.tokens.mint(room.id, token_id)
                    await store.put_token(room.id, token_id, auth.digest(token))
                first_outcome = {"seq": out.state.version, "result": _secretless(result),
                                 "fingerprint": fingerprint}
                try:
                    appended = await store.append(room.id, state.version, out.envelopes,
                                                  dedupe, first_outcome, head, encoded,
                                                  delivers=True, bounded=_bounded(cmd, actor))
                except BaseException:
                    # perhaps appended after all: read back whatever Redis has
                    room.following.schedule_catchup()
                    raise
                if appended.status == "ok":
                    room.following.offer(Batch(out.envelopes, appended.digests, head), out.state)
                    room.remember_outcome(dedupe, first_outcome)
                    for token_id in _revoked(out):
                        await store.delete_token(room.id, token_id)
                    if out.state.ended and not state.ended and out.state.campaign is not None:
                        # (before the ack: once the GM is told the end, the campaign has it)
                        await self._write_back(out.state.campaign, room.id, out.state)
                    room.answer(session, cmd.id, result, seq=out.state.version)
                    return "ok"
                if appended.status == "duplicate":
                    assert appended.outcome is not None
                    self._ack_duplicate(session, cmd, room, appended.outcome, fingerprint)
                    return "duplicate"
                if appended.status == "full":
                    raise encounter_full(appended)
                metrics.CONFLICTS.inc()
                if appended.version < room.version or (
                        appended.version == room.version and appended.head != room.head):
                    # Redis's log is behind what this room holds, or holds other events: the
                    # room reloads (and tells its connections) instead of losing every race
                    await room.following.rewind(
                        f"an append found Redis's log at seq {appended.version} (this room "
                        f"was at {room.version})", (session, cmd.id))
                    if room.lost:  # (told to this command with the rest of the room)
                        return ErrorCode.ENCOUNTER_LOST.value
                else:
                    await room.following.catch_up()
        raise engine.Rejected(ErrorCode.CONFLICT, "the encounter kept changing; try again")

    async def _write_back(self, campaign: str, encounter: str, final: EncounterState) -> None:
        """An encounter of a campaign ended: its results go back to the campaign (R113). A
        failure here loses nothing: the next read of the campaign writes them."""
        crash_point("encounter_ended")
        try:
            await self.server.campaigns.write_back(campaign, encounter, final)
        except Exception:
            log.exception("write-back of %s to campaign %s failed; the campaign's next read "
                          "writes it", encounter, campaign)

    async def _rewinding(self, room: Room, state: EncounterState, cmd: msg.Undo,
                         ctx: engine.Context) -> engine.Context:
        """``ctx`` with what an undo goes back to (R108): the state there and the events
        after it, read from the log."""
        target = undo_target(state, cmd)
        store = self.server.store
        past = await store.load_at(room.id, target)
        after: list[Envelope] = []
        while past is not None and len(after) < state.version - target:
            chunk = await store.read(room.id, target + len(after),
                                     count=min(1024, state.version - target - len(after)))
            if not chunk or chunk[0].seq != target + len(after) + 1:
                past = None  # (the log does not reach back: the decider says so)
                break
            after += chunk
        found = None if past is None else Rewound(past, after[:state.version - target])
        return dataclasses.replace(ctx, rewind=lambda seq: found if seq == target else None)

    def _with_token(self, encounter: str, result: dict[str, Any]) -> dict[str, Any]:
        """The result of a command that issued a credential carries its token, minted again
        from its id (tokens are never stored)."""
        result = dict(result)
        if "token_id" in result and result.get("role") not in (None, "gm"):
            result["token"] = self.server.tokens.mint(encounter, result["token_id"])
            if result["role"] == "spectator":
                result["path"] = f"/ws?spectate={result['token']}"
        return result

    def _ack_duplicate(self, session: Sender, cmd: msg.Command, room: Room,
                       first: dict[str, Any], fingerprint: str) -> None:
        if first.get("fingerprint") not in (None, fingerprint):
            raise engine.Rejected(ErrorCode.CONFLICT, f"command id {cmd.id!r} was used for a "
                                  "different command; use a new id for a new command")
        result = self._with_token(room.id, first.get("result") or {})
        room.answer(session, cmd.id, result, duplicate=True, seq=first.get("seq"))


def _encoded(store: EventStore, out: engine.Outcome) -> list[bytes]:
    """The outcome's events as stored; ``too_large`` when one is over the store's limit."""
    try:
        return store.encode(out.envelopes)
    except EventTooLarge as exc:
        raise engine.Rejected(ErrorCode.TOO_LARGE, str(exc), event=exc.kind, bytes=exc.size,
                              limit=exc.limit) from None


def _bounded(cmd: msg.Command, actor: Actor) -> bool:
    """Whether the encounter's bounds (``--max-encounter-events``, ``--max-encounter-bytes``)
    refuse ``cmd``: every command but the GM's ending of the encounter and revoking of a
    credential, which a full encounter must still take."""
    return not (actor.is_gm and isinstance(cmd, msg.EndEncounter | msg.RevokeToken))


def encounter_full(appended: Appended) -> engine.Rejected:
    """``encounter_full``: an append past the encounter's bounds (nothing was appended)."""
    what = "events" if appended.measure == "events" else "bytes of events"
    return engine.Rejected(
        ErrorCode.ENCOUNTER_FULL,
        f"this encounter holds {appended.held} {what}, and the server keeps at most "
        f"{appended.limit} for one encounter: nothing was changed. The GM may still end it; "
        "start a new encounter to play on", measure=appended.measure, limit=appended.limit,
        held=appended.held)


def _who(address: str | None, creator: str | None) -> str:
    """A creator, for the log: its address and its creator secret's id."""
    where = address or "a local client"
    return f"{where}, creator {creator}" if creator else where


def _fingerprint(cmd: msg.Command) -> str:
    """Identifies a command's content, to tell a retry from a reused id. A create's leaves
    out its creator secret (and is what it was before the field existed): a retry is the same
    create whichever secret it carries, and nothing derived from a secret is stored."""
    if isinstance(cmd, msg.CreateEncounter):
        data = msgspec.to_builtins(cmd)
        data.pop("creator_secret", None)
        return hashlib.sha256(msgspec.json.encode(data, order="sorted")).hexdigest()[:32]
    return hashlib.sha256(msgspec.json.encode(cmd, order="sorted")).hexdigest()[:32]


def _issued(out: engine.Outcome) -> list[str]:
    return [e.event.token_id for e in out.envelopes if isinstance(e.event, TokenIssued)]


def _revoked(out: engine.Outcome) -> list[str]:
    return [e.event.token_id for e in out.envelopes if isinstance(e.event, TokenRevoked)]


def _secretless(result: dict[str, Any]) -> dict[str, Any]:
    """The result as stored for retries: tokens are minted again, never stored."""
    return {k: v for k, v in result.items() if k not in ("token", "path", "gm_token")}


def _history_frame(encounter: str, shown: list[tuple[int, str, bytes]],
                   before: int | str | None) -> bytes:
    """The ``history`` message of the events ``shown`` (as ``Room.seen_by`` gives them)."""
    return b"".join((b'{"type":"history","encounter":', _encode.encode(encounter),
                     b',"events":[', b",".join(f for _, _, f in shown), b'],"before":',
                     _encode.encode(before), b"}"))


def budget_refusal(refused: Refused, what: str) -> engine.Rejected:
    """``rate_limited``: a read past the budget of its credential or its address
    (``server.budgets``)."""
    who = "this credential" if refused.budget == "credential" else "this address"
    return engine.Rejected(ErrorCode.RATE_LIMITED,
                           f"{who} has read as many events by replays and {what} as the "
                           f"server allows for now: retry in {refused.retry_after} s",
                           budget=refused.budget, retry_after=refused.retry_after)
