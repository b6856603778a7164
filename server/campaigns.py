"""Campaigns over the protocol: their logs in Redis, their links, their commands (R109-R114).

A campaign's keys share the hash tag ``{camp:<id>}`` (one Redis Cluster slot; an encounter's
keys live in slots of their own):

- ``{camp:<id>}:events`` — the Stream of its events (entry ids ``<seq>-0``);
- ``{camp:<id>}:meta`` — hash: ``version``, the last seq;
- ``{camp:<id>}:cmds`` — hash: dedupe key -> the first outcome (JSON);
- ``{camp:<id>}:tokens`` — hash: token id -> SHA-256 of the link.

Appends are a compare-and-set on the version, with the dedupe key in the same script: a
retried command, and the write-back of an encounter (keyed by the encounter and its final seq),
lands once. An encounter begun from a campaign is appended to its own keys after the
campaign's ``encounter_begun``, with ids derived from the command, so that a retry after a
crash between the two creates the same encounter. Every append also publishes the campaign's
new version on its channel ``{camp:<id>}:appended`` (``channel``), to which the processes that
hold a connection of the campaign are subscribed, so that each tells its campaign connections.

A link reads ``smc1.<campaign>.<token id>.<secret>``: the secret is an HMAC of both under the
server secret, as an encounter token's is; Redis keeps its SHA-256.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import itertools
import logging
import re
import time
from dataclasses import dataclass
from typing import Any, Protocol

import msgspec
import orjson
from redis.asyncio.cluster import RedisCluster

from campaign import decide
from campaign.fold import apply, fold
from campaign.views import campaign_view
from encounter import engine
from encounter.actors import Actor
from encounter.decision import Context
from encounter.registry import names as ruleset_names
from encounter.rejected import Rejected
from protocol import campaign as cp
from protocol import messages as msg
from protocol.errors import ErrorCode
from protocol.events import TokenIssued
from server import auth
from server.crash import crash_point
from server.store import APPENDED, PUBLISH, SPUBLISH, Channels

log = logging.getLogger("stablemaster.campaigns")

_LINK = re.compile(r"^smc1\.([a-z0-9]{6,32})\.([a-z0-9]{6,32})\.([A-Za-z0-9_-]{20,64})$")
_encode = msgspec.json.Encoder()
_decode_env = msgspec.json.Decoder(cp.CampaignEnvelope)
#: Close code after ``moved``: connect again with the same link.
CLOSE_MOVED = 4004
#: Tries of a command whose append lost the compare-and-set to another process's.
TRIES = 8

# KEYS: events, meta, cmds   ARGV: expected version, dedupe key, outcome, channel, publish
# command, n, envelope 1..n
_APPEND = """
if ARGV[2] ~= '' then
  local dup = redis.call('HGET', KEYS[3], ARGV[2])
  if dup then return {'dup', dup} end
end
local v = tonumber(redis.call('HGET', KEYS[2], 'version') or '0')
if v ~= tonumber(ARGV[1]) then return {'conflict', tostring(v)} end
local n = tonumber(ARGV[6])
for i = 1, n do
  redis.call('XADD', KEYS[1], (v + i) .. '-0', 'e', ARGV[6 + i])
end
redis.call('HSET', KEYS[2], 'version', v + n)
if ARGV[2] ~= '' then redis.call('HSET', KEYS[3], ARGV[2], ARGV[3]) end
redis.call(ARGV[5], ARGV[4], tostring(v + n))
return {'ok', tostring(v + n)}
"""


def keys(campaign: str) -> dict[str, str]:
    tag = f"{{camp:{campaign}}}"
    return {name: f"{tag}:{name}" for name in ("events", "meta", "cmds", "tokens")}


def channel(campaign: str) -> str:
    """The pub/sub channel of ``campaign``'s appends (in its keys' slot)."""
    return f"{{camp:{campaign}}}{APPENDED}"


def parse_link(token: str) -> tuple[str, str] | None:
    """``(campaign, token id)`` of a well-formed campaign link, else ``None``."""
    m = _LINK.match(token)
    return (m.group(1), m.group(2)) if m else None


def is_link(token: str) -> bool:
    return token.startswith("smc1.")


class CampaignStore:
    def __init__(self, redis: Any, cluster: bool) -> None:
        self.redis = redis
        self.cluster = cluster
        self._append = redis.register_script(_APPEND)

    async def load(self, campaign: str) -> cp.CampaignState | None:
        rows = await self.redis.xrange(keys(campaign)["events"])
        if not rows:
            return None
        return fold(campaign, (_decode_env.decode(fields[b"e"]) for _, fields in rows))

    async def append(self, state: cp.CampaignState, events: list[cp.CampaignEvent],
                     dedupe: str, outcome: dict[str, Any]) -> tuple[str, Any]:
        """``("ok", version)``, ``("dup", first outcome)`` or ``("conflict", version)``."""
        now = int(time.time() * 1000)
        envs = [cp.CampaignEnvelope(seq=state.version + i + 1, ts=now, event=e,  # type: ignore[arg-type]
                                    cmd=dedupe or None) for i, e in enumerate(events)]
        k = keys(state.id)
        script_keys = [k["events"], k["meta"], k["cmds"]]
        reply = await self._append(keys=script_keys, args=[
            state.version, dedupe, orjson.dumps(outcome), channel(state.id),
            SPUBLISH if self.cluster else PUBLISH, len(envs), *[_encode.encode(e) for e in envs]])
        status = reply[0].decode() if isinstance(reply[0], bytes) else reply[0]
        value = reply[1]
        if status == "dup":
            return "dup", orjson.loads(value)
        if status == "ok":
            for env in envs:
                apply(state, env)
        return status, int(value)

    async def put_token(self, campaign: str, token_id: str, digest: str) -> None:
        await self.redis.hset(keys(campaign)["tokens"], token_id, digest)

    async def token_digest(self, campaign: str, token_id: str) -> str | None:
        raw = await self.redis.hget(keys(campaign)["tokens"], token_id)
        return None if raw is None else raw.decode()


@dataclass(eq=False)
class Seat:
    """A connection's place in a campaign, from its link."""

    campaign: str
    token_id: str
    role: cp.CampaignRole
    characters: frozenset[str]
    #: the encounter it was joined to by the link, if any
    encounter: str | None = None
    #: the campaign's last seq it was told of
    told: int = 0


class Session(Protocol):
    """A connection that came by a campaign link (``server.session.Session`` is one)."""

    campaign_seat: Seat | None
    #: whom it counts as for the create quotas (``None``: a local client)
    address: str | None

    def send(self, message: msg.ServerMessage) -> None: ...

    def close_soon(self, code: int, reason: str, flush: bool = True) -> None: ...

    def created(self) -> None:
        """A command without a token made something (the hello deadline is met)."""
        ...


class Host(Protocol):
    redis: Any
    store: Any
    tokens: auth.Tokens
    settings: Any
    creation: Any
    quotas: Any
    rooms: Any

    def dice_secret(self, encounter: str, nonce: str | None = None) -> bytes: ...


class Campaigns:
    def __init__(self, server: Host, secret: bytes) -> None:
        self.server = server
        self._key = hashlib.sha256(b"stablemaster campaign\0" + secret).digest()
        self.store = CampaignStore(server.redis, cluster=isinstance(server.redis, RedisCluster))
        self.followers: dict[str, set[Session]] = {}
        #: hears the campaigns that have a connection here (``server.fanout``)
        self.channels: Channels | None = None
        self._telling: set[asyncio.Task[None]] = set()

    # -- ids and links -------------------------------------------------------------------------

    def _derive(self, *parts: str, length: int = 12) -> str:
        mac = hmac.new(self._key, "\0".join(parts).encode(), hashlib.sha256).digest()
        n = int.from_bytes(mac, "big")
        out = []
        for _ in range(length):
            n, r = divmod(n, 36)
            out.append("abcdefghijklmnopqrstuvwxyz0123456789"[r])
        return "".join(out)

    def link(self, campaign: str, token_id: str) -> str:
        mac = hmac.new(self._key, f"link\0{campaign}.{token_id}".encode(),
                       hashlib.sha256).digest()
        secret = base64.urlsafe_b64encode(mac).decode().rstrip("=")[:40]
        return f"smc1.{campaign}.{token_id}.{secret}"

    def _recovery_secret(self, campaign: str, token_id: str) -> str:
        mac = hmac.new(self._key, f"recovery\0{campaign}.{token_id}".encode(),
                       hashlib.sha256).digest()
        return "smr-" + base64.urlsafe_b64encode(mac).decode().rstrip("=")[:32]

    def _links(self, s: cp.CampaignState) -> dict[str, str]:
        """Each player's campaign link that works, by token id."""
        return {tid: self.link(s.id, tid) for tid, g in s.tokens.items()
                if g.role == "player" and not g.revoked}

    def _encounter_links(self, s: cp.CampaignState) -> dict[str, str]:
        return {e.id: self.server.tokens.mint(e.id, e.gm_token_id) for e in s.encounters.values()}

    def _with_link(self, campaign: str, result: dict[str, Any]) -> dict[str, Any]:
        """A result that names a player's link carries it, minted again from its id (links
        are never stored, only their digests)."""
        token_id = result.get("token_id")
        if token_id is None:
            return result
        link = self.link(campaign, token_id)
        return {**result, "token": link, "table": f"/table/#token={link}"}

    def _gm_result(self, campaign: str, token_id: str) -> dict[str, Any]:
        """What answers a command that gives a GM link: the link and the recovery secret,
        minted again from the token id (neither is stored)."""
        link = self.link(campaign, token_id)
        return {"campaign": campaign, "token_id": token_id, "role": "gm", "gm_token": link,
                "page": f"/campaign/#token={link}",
                "recovery_secret": self._recovery_secret(campaign, token_id)}

    def links_of(self, s: cp.CampaignState) -> dict[str, Any]:
        """The GM's listing (the read API's ``/read/links`` for a campaign link): each
        player's link, and each encounter's GM link."""
        links, gm_links = self._links(s), self._encounter_links(s)
        players = [{"character": ch.id, "name": ch.block.name, "token_id": ch.token_id,
                    "token": links[ch.token_id], "table": f"/table/#token={links[ch.token_id]}"}
                   for ch in s.characters.values() if ch.token_id in links]
        encounters = [{"encounter": e.id, "name": e.name, "running": e.written_back is None,
                       "gm_token": gm_links[e.id], "table": f"/table/#token={gm_links[e.id]}"}
                      for e in s.encounters.values()]
        return {"campaign": s.id, "links": players, "encounters": encounters}

    def view(self, s: cp.CampaignState, seat: Seat) -> msg.CampaignMessage:
        seat.told = max(seat.told, s.version)
        gm = seat.role == "gm"
        state = campaign_view(s, seat.role, seat.characters,
                              links=self._links(s) if gm else None,
                              encounter_links=self._encounter_links(s) if gm else None)
        return msg.CampaignMessage(campaign=s.id, seq=s.version, state=state)

    # -- the commands without a link -----------------------------------------------------------

    async def create(self, session: Session, cmd: msg.CreateCampaign) -> None:
        """Who may create, and the quotas, are those of ``create_encounter`` (a campaign counts
        as one create); a retry with the same id and payload answers the same."""
        creator = self.server.creation.creator(cmd.creator_secret)
        if cmd.ruleset not in ruleset_names():
            raise Rejected(ErrorCode.INVALID_PAYLOAD, f"ruleset: no ruleset {cmd.ruleset!r}",
                           allowed=ruleset_names())
        campaign = self._derive("campaign", cmd.id, length=12)
        gm_token_id = self._derive("gm", campaign, "1")
        recovery = self._recovery_secret(campaign, gm_token_id)
        fingerprint = hashlib.sha256(_encode.encode([cmd.name, cmd.ruleset])).hexdigest()
        state = cp.CampaignState(id=campaign)
        event = cp.CampaignCreated(name=cmd.name, ruleset=cmd.ruleset, gm_token_id=gm_token_id,
                                   recovery=hashlib.sha256(recovery.encode()).hexdigest())
        link = self.link(campaign, gm_token_id)
        if not await self.server.redis.hexists(keys(campaign)["cmds"], f"create:{cmd.id}"):
            await self.server.quotas.charge(session.address, creator, len(_encode.encode(event)))
        await self.store.put_token(campaign, gm_token_id, auth.digest(link))
        status, value = await self.store.append(state, [event], f"create:{cmd.id}",
                                                {"fingerprint": fingerprint})
        duplicate = status != "ok"
        if status == "dup" and value.get("fingerprint") != fingerprint:
            raise Rejected(ErrorCode.CONFLICT, "this command id was used for another "
                           "create_campaign")
        if status == "conflict":  # (a campaign by this id exists: only a retry gets here)
            raise Rejected(ErrorCode.CONFLICT, "this command id was used for another "
                           "create_campaign")
        log.info("campaign created", extra={"campaign": campaign})
        session.created()
        session.send(msg.Ack(id=cmd.id, seq=None, duplicate=duplicate,
                             result=self._gm_result(campaign, gm_token_id)))

    async def recover(self, session: Session, cmd: msg.RecoverCampaign) -> None:
        """R114: the recovery secret gives a new GM link and a new secret, once each; the old
        GM link stops working. A retry (same id) answers the same."""
        s = await self.store.load(cmd.campaign)
        wrong = Rejected(ErrorCode.UNAUTHENTICATED, "no such campaign, or not its recovery "
                         "secret")
        if s is None:
            raise wrong
        dedupe = f"recover:{hashlib.sha256(cmd.recovery_secret.encode()).hexdigest()}:{cmd.id}"
        first = await self.server.redis.hget(keys(s.id)["cmds"], dedupe)
        if first is not None:
            session.created()
            session.send(msg.Ack(id=cmd.id, seq=None, duplicate=True, result=self._gm_result(
                s.id, orjson.loads(first)["token_id"])))
            return
        given = hashlib.sha256(cmd.recovery_secret.encode()).hexdigest()
        if not hmac.compare_digest(given, s.recovery):
            raise wrong
        for _ in range(TRIES):
            old = next(tid for tid, g in s.tokens.items() if g.role == "gm" and not g.revoked)
            new_id = self._derive("gm", s.id, str(len(s.tokens) + 1), cmd.id)
            recovery = self._recovery_secret(s.id, new_id)
            link = self.link(s.id, new_id)
            await self.store.put_token(s.id, new_id, auth.digest(link))
            status, value = await self.store.append(s, [cp.GmRecovered(
                token_id=new_id, revoked=old,
                recovery=hashlib.sha256(recovery.encode()).hexdigest())], dedupe,
                {"token_id": new_id})
            if status == "conflict":
                s = await self._must_load(s.id)
                if not hmac.compare_digest(given, s.recovery):
                    raise wrong
                continue
            await self.server.redis.hdel(keys(s.id)["tokens"], old)
            if status == "dup":
                new_id = value["token_id"]
            self._tell_state(s)
            session.created()
            session.send(msg.Ack(id=cmd.id, seq=None, duplicate=status == "dup",
                                 result=self._gm_result(s.id, new_id)))
            return
        raise Rejected(ErrorCode.UNAVAILABLE, "the campaign changed too often meanwhile; retry "
                       "with the same id")

    # -- hello ---------------------------------------------------------------------------------

    async def authenticate(self, token: str) -> tuple[cp.CampaignState, Seat] | str:
        unknown = "unknown, malformed or revoked campaign link"
        parsed = parse_link(token)
        if parsed is None:
            return unknown
        campaign, token_id = parsed
        stored = await self.store.token_digest(campaign, token_id)
        if stored is None or not auth.matches(token, stored):
            return unknown
        s = await self.store.load(campaign)
        grant = None if s is None else s.tokens.get(token_id)
        if s is None or grant is None or grant.revoked:
            return unknown
        s = await self.settle(s)
        return s, Seat(campaign=campaign, token_id=token_id, role=grant.role,
                       characters=frozenset(grant.characters))

    def encounter_token(self, s: cp.CampaignState, seat: Seat) -> str | None:
        """The encounter credential a player's link reaches now: its character's running
        encounter's (R113), if any."""
        for cid in sorted(seat.characters):
            ch = s.characters.get(cid)
            if ch is not None and ch.encounter is not None:
                record = s.encounters[ch.encounter]
                token_id = record.links.get(cid)
                if token_id is not None:
                    seat.encounter = ch.encounter
                    return self.server.tokens.mint(ch.encounter, token_id)
        seat.encounter = None
        return None

    async def follow(self, session: Session, seat: Seat,
                     s: cp.CampaignState) -> cp.CampaignState:
        """Tell ``session`` of the campaign's changes from now on; the campaign as it is once
        it follows (a change between ``s`` and now would have been told to nobody)."""
        group = self.followers.setdefault(seat.campaign, set())
        if not group and self.channels is not None:
            self.channels.watch(channel(seat.campaign))
        group.add(session)
        now = await self.server.redis.hget(keys(s.id)["meta"], "version")
        if now is not None and int(now) != s.version:
            s = await self.settle(await self._must_load(s.id))
        return s

    def leave(self, session: Session) -> None:
        seat = session.campaign_seat
        if seat is None:
            return
        group = self.followers.get(seat.campaign)
        if group is not None:
            group.discard(session)
            if not group:
                del self.followers[seat.campaign]
                if self.channels is not None:
                    self.channels.unwatch(channel(seat.campaign))

    # -- commands on a link --------------------------------------------------------------------

    async def handle(self, session: Session, cmd: msg.Command) -> None:
        seat = session.campaign_seat
        if seat is None:
            raise Rejected(ErrorCode.UNAUTHENTICATED, f"{cmd.__struct_config__.tag} is a "
                           "campaign's: say hello with a campaign link (smc1.…) first")
        if not isinstance(cmd, msg.CAMPAIGN_COMMANDS):
            if seat.role == "gm":
                raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{cmd.__struct_config__.tag} is an "
                               "encounter's: the campaign's GM link commands the campaign; "
                               "open an encounter with its own GM link (its gm_link in the "
                               "campaign)")
            raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{cmd.__struct_config__.tag} is an "
                           "encounter's, and this campaign link is in no running encounter: "
                           "wait for the GM to begin one (a moved message), or send "
                           "get_campaign")
        s = await self._must_load(seat.campaign)
        grant = s.tokens.get(seat.token_id)
        if grant is None or grant.revoked:
            session.close_soon(4001, "credential revoked")
            raise Rejected(ErrorCode.UNAUTHENTICATED, "this campaign link was revoked")
        if isinstance(cmd, msg.GetCampaign):
            s = await self.settle(s)
            session.send(self.view(s, seat))
            session.send(msg.Ack(id=cmd.id, seq=None, result={"seq": s.version}))
            return
        if seat.role != "gm":
            raise Rejected(ErrorCode.FORBIDDEN, f"only the campaign's GM may "
                           f"{cmd.__struct_config__.tag}")
        if isinstance(cmd, msg.BeginEncounter):
            await self.begin(session, seat, s, cmd)
            return
        dedupe = f"{seat.token_id}:{cmd.id}"
        for _ in range(TRIES):
            s = await self.settle(s)
            try:
                events, result = await self._decide(s, cmd)
            except Rejected:
                # a retry of a command that went through is no longer legal: its first answer
                first = await self._first_outcome(s.id, dedupe)
                if first is None:
                    raise
                session.send(msg.Ack(id=cmd.id, seq=None, duplicate=True,
                                     result=self._with_link(s.id, first)))
                return
            status, value = await self.store.append(s, events, dedupe, result)
            if status == "conflict":
                s = await self._must_load(seat.campaign)
                continue
            if status == "dup":
                session.send(msg.Ack(id=cmd.id, seq=None, duplicate=True,
                                     result=self._with_link(s.id, value)))
                return
            result["seq"] = s.version
            self._tell_state(s)
            session.send(msg.Ack(id=cmd.id, seq=None, result=self._with_link(s.id, result)))
            return
        raise Rejected(ErrorCode.UNAVAILABLE, "the campaign changed too often meanwhile; retry "
                       "with the same id")

    async def _decide(self, s: cp.CampaignState, cmd: msg.Command
                      ) -> tuple[list[cp.CampaignEvent], dict[str, Any]]:
        """The events of a GM's command of the roster or the clock, and its ack's result (a
        new player's link stored by its digest)."""
        if isinstance(cmd, msg.AddCharacter):
            token_id = self._derive("player", s.id, cmd.character.id or "", cmd.id)
            events = decide.add_character(s, cmd, token_id)
            added = events[0]
            assert isinstance(added, cp.CharacterAdded)
            if added.token_id is not None:
                link = self.link(s.id, added.token_id)
                await self.store.put_token(s.id, added.token_id, auth.digest(link))
            return events, {"character": cmd.character.id, "token_id": added.token_id}
        if isinstance(cmd, msg.AdjustCharacter):
            return decide.adjust_character(s, cmd), {}
        if isinstance(cmd, msg.AdvanceClock):
            return decide.advance_clock(s, cmd), {}
        raise Rejected(ErrorCode.UNKNOWN_TYPE, f"{cmd.__struct_config__.tag} is not a command "
                       "of a campaign link")

    async def _first_outcome(self, campaign: str, dedupe: str) -> dict[str, Any] | None:
        first = await self.server.redis.hget(keys(campaign)["cmds"], dedupe)
        return None if first is None else dict(orjson.loads(first))

    async def begin(self, session: Session, seat: Seat, s: cp.CampaignState,
                    cmd: msg.BeginEncounter) -> None:
        """R113: the campaign records the encounter (its characters taken), then the encounter
        is created with them as the campaign keeps them, all its ids derived from the command:
        a retry after a crash between the two creates the same encounter."""
        dedupe = f"{seat.token_id}:{cmd.id}"
        encounter = self._derive("encounter", s.id, cmd.id, length=12)
        out: engine.Outcome | None = None  # (decided here; None: by an attempt before)
        duplicate = False
        for attempt in range(TRIES):
            s = await self.settle(s)
            try:
                begun, out = self._encounter_events(s, cmd, encounter)
            except Rejected:
                # a retry of a begin that went through: its characters are taken (by it)
                if await self._first_outcome(s.id, dedupe) is None:
                    raise
                duplicate, out = True, None
                break
            status, _ = await self.store.append(s, [begun.event], dedupe,
                                                {"encounter": encounter})
            if status != "conflict":
                duplicate = status == "dup"
                if duplicate:
                    s, out = await self._must_load(s.id), None
                break
            s = await self._must_load(s.id)
            if attempt == TRIES - 1:
                raise Rejected(ErrorCode.UNAVAILABLE, "the campaign changed too often "
                               "meanwhile; retry with the same id")
        record = s.encounters.get(encounter)
        if record is None:
            raise Rejected(ErrorCode.CONFLICT, "this command id was used for another command")
        crash_point("campaign_begun")
        await self._create_encounter(s, record, cmd, out)
        self._tell_state(s)
        gm_link = self.server.tokens.mint(encounter, record.gm_token_id)
        session.send(msg.Ack(id=cmd.id, seq=None, duplicate=duplicate, result={
            "encounter": encounter, "gm_token": gm_link, "table": f"/table/#token={gm_link}",
            "characters": record.characters, "seq": s.version}))

    def _context(self, encounter: str) -> Context:
        counter = itertools.count(1)
        return Context(now_ms=int(time.time() * 1000),
                       new_id=lambda: self._derive("id", encounter, str(next(counter))),
                       dice_secret=self.server.dice_secret)

    def _encounter_events(self, s: cp.CampaignState, cmd: msg.BeginEncounter,
                          encounter: str) -> tuple[decide.Begun, engine.Outcome]:
        """The campaign's ``encounter_begun`` and every event of the new encounter (the create,
        each player's credential, each character's carried state): decided before anything is
        stored, so that a refusal stores nothing."""
        gm_token_id = self._derive("encounter-gm", encounter)
        begun = decide.begin(s, cmd, encounter, gm_token_id)
        ctx = self._context(encounter)
        out = engine.create(begun.create, encounter, gm_token_id, ctx, campaign=s.id)
        gm = Actor(role="gm", token_id=gm_token_id)
        envelopes = list(out.envelopes)
        state = out.state
        links: dict[str, str] = {}
        for cid in begun.event.characters:
            ch = s.characters[cid]
            if ch.token_id is None:
                continue
            o = engine.decide(state, gm, msg.IssueInvite(
                id=f"{encounter}-link-{cid}", combatants=[cid], label=ch.block.name), ctx)
            state = o.state
            envelopes += o.envelopes
            links[cid] = next(e.event.token_id for e in o.envelopes
                              if isinstance(e.event, TokenIssued))
        for adjust in begun.carried:
            o = engine.decide(state, gm, adjust, ctx)
            state = o.state
            envelopes += o.envelopes
        begun.event.links = links
        for e in envelopes:
            e.cmd = f"campaign:{s.id}:{encounter}"
        return begun, engine.Outcome(envelopes=envelopes, state=state)

    async def _create_encounter(self, s: cp.CampaignState, record: cp.CampaignEncounter,
                                cmd: msg.BeginEncounter, out: engine.Outcome | None) -> None:
        """The encounter's events appended at version 0: ``out`` as this attempt decided them,
        or (``None``: a retry of a begin the campaign recorded) decided again, the same."""
        store = self.server.store
        if await store.version(record.id):
            return  # created by the first attempt
        if out is None:
            # decided against the campaign as it was before the encounter took its
            # characters (which nothing changes while they are in it: R113)
            before = msgspec.structs.replace(
                s, characters={cid: msgspec.structs.replace(ch, encounter=None)
                               if ch.encounter == record.id else ch
                               for cid, ch in s.characters.items()},
                encounters={k: v for k, v in s.encounters.items() if k != record.id})
            _, out = self._encounter_events(before, cmd, record.id)
        for token_id in [record.gm_token_id, *record.links.values()]:
            await store.put_token(record.id, token_id,
                                  auth.digest(self.server.tokens.mint(record.id, token_id)))
        encoded = store.encode(out.envelopes)
        # (unbounded: the campaign holds the encounter begun already, R113)
        await store.append(record.id, 0, out.envelopes, f"campaign:{s.id}:{record.id}",
                           {"seq": out.state.version}, "", encoded, bounded=False)
        log.info("campaign encounter created", extra={"campaign": s.id,
                                                      "encounter": record.id})

    # -- write-back ----------------------------------------------------------------------------

    async def settle(self, s: cp.CampaignState) -> cp.CampaignState:
        """Write back every encounter of the campaign that has ended but is not written back
        yet (its process may have stopped before it did): the campaign is then as its
        encounters left it."""
        for record in decide.running(s):
            final = await self.server.store.load(record.id)
            if final is not None and final.ended:
                s = await self.write_back(s.id, record.id, final) or s
        return s

    async def write_back(self, campaign: str, encounter: str,
                         final: Any = None) -> cp.CampaignState | None:
        """R113: the ended encounter's results into the campaign's log, keyed by the encounter
        and its final seq: written once, whichever process does it, however often asked."""
        if final is None:
            final = await self.server.store.load(encounter)
        if final is None or not final.ended:
            return None
        for _ in range(TRIES):
            s = await self.store.load(campaign)
            if s is None:
                return None
            events = decide.write_back(s, encounter, final)
            if not events:
                return s
            status, _ = await self.store.append(
                s, events, f"writeback:{encounter}:{final.version}", {"seq": final.version})
            if status == "conflict":
                continue
            if status == "ok":
                log.info("encounter written back", extra={"campaign": campaign,
                                                           "encounter": encounter})
                self._tell_state(s)
            return s if status == "ok" else await self.store.load(campaign)
        log.warning("write-back of %s to campaign %s kept losing the race; the next read "
                    "of the campaign writes it", encounter, campaign)
        return None

    # -- telling the connections ---------------------------------------------------------------

    def offer(self, campaign: str) -> None:
        """The campaign changed (here or on another process): tell its connections here."""
        if campaign in self.followers:
            task = asyncio.get_running_loop().create_task(self._tell(campaign))
            self._telling.add(task)
            task.add_done_callback(self._telling.discard)

    async def _tell(self, campaign: str) -> None:
        try:
            s = await self.store.load(campaign)
        except Exception:
            log.exception("could not read campaign %s", campaign)
            return
        if s is not None:
            self._tell_state(s)

    def _tell_state(self, s: cp.CampaignState) -> None:
        """Each connection of the campaign here is told once of each position: the GM's and a
        player's outside encounters get the campaign; a player's whose character went into
        another encounter is moved there."""
        for session in list(self.followers.get(s.id, ())):
            seat = session.campaign_seat
            if seat is None or s.version <= seat.told:
                continue
            seat.told = s.version
            grant = s.tokens.get(seat.token_id)
            if grant is None or grant.revoked:
                session.close_soon(4001, "credential revoked")
                continue
            if seat.role == "gm":
                session.send(self.view(s, seat))
                continue
            now = next((s.characters[c].encounter for c in sorted(seat.characters)
                        if c in s.characters and s.characters[c].encounter is not None), None)
            if now != seat.encounter and now is not None:
                session.send(msg.Moved(campaign=s.id, encounter=now,
                                       characters=sorted(seat.characters)))
                session.close_soon(CLOSE_MOVED, "moved to another encounter")
                self.leave(session)
            elif seat.encounter is None:
                session.send(self.view(s, seat))

    async def _must_load(self, campaign: str) -> cp.CampaignState:
        s = await self.store.load(campaign)
        if s is None:
            raise Rejected(ErrorCode.NOT_FOUND, "no such campaign")
        return s



