"""The GM's commands every ruleset has: setting the encounter up, credentials, awareness,
starting and ending the scene, effects ("MLP Dramatic Systems": COMBAT SEQUENCE, AWARENESS AND
SURPRISE, THE COMBAT ROUND). A ruleset's own commands are in its declaration
(``Declaration.commands``: Dramatic's Perception checks in ``rulesets.dramatic.perception``),
and so are its steps as the scene ends and after it (Dramatic's recovery and rest:
``rulesets.dramatic.recovery``)."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import msgspec
import yaml

from encounter import bounded_yaml, rolls
from encounter.decision import Context, Decision, Outcome, find_combatant
from encounter.placing import place
from encounter.registry import catalog, check_options, declaration, names
from encounter.rejected import Rejected
from encounter.state import SCREEN, EncounterState
from protocol import events as ev
from protocol import messages as msg
from protocol.errors import ErrorCode
from protocol.model import CombatantProfile, EncounterOptions, StatBlock
from rules.battle_map import BattleMap, MapError
from rules.choices import with_allowed
from rules.rulesets import Ruleset, RulesetError
from rules.verifiable_dice import commitment

_SLUG = re.compile(r"[^a-z0-9]+")


def slug(name: str) -> str:
    return (_SLUG.sub("-", name.lower()).strip("-") or "combatant")[:32]


#: The largest magnitude of a number in a stat block: beyond every rule's range, and small
#: enough that what the rules add up from such numbers stays a 64-bit integer.
MAX_STAT_NUMBER = 1_000_000


def _check_numbers(value: Any, where: str) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _check_numbers(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_numbers(item, f"{where}[{i}]")
    elif isinstance(value, int | float) and not isinstance(value, bool) and not (
            math.isfinite(value) and abs(value) <= MAX_STAT_NUMBER):
        raise ValueError(f"{where}: {value!r} is out of range (at most {MAX_STAT_NUMBER} "
                         "either way)")


def plain_stats(stats: dict[str, Any], name: str) -> dict[str, Any]:
    """``stats`` as the encounter stores it: as JSON reads it back (so that every process,
    and this one after a restart, reads the same), with every number in range."""
    try:
        plain: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(stats))
    except (TypeError, ValueError) as exc:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, f"{name}: stats: {exc}") from None
    try:
        _check_numbers(plain, "stats")
    except ValueError as exc:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, f"{name}: {exc}") from None
    return plain


def combatant_id(block: StatBlock, s: EncounterState, new_id: Callable[[], str]) -> str:
    """The id of the combatant ``block`` makes in ``s`` (ruling R116): the stat block's own,
    or the server's. A visible combatant's default is the name's slug, numbered
    (``diamond-dog-2``) past every id the encounter has had, a removed combatant's too; a
    hidden one's is the slug and four characters of ``new_id``, the first a letter
    (``diamond-dog-k3x9``), so that no default the table reads steps around a hidden
    combatant. With anonymous hidden turns, no combatant takes the id ``screen`` (R99)."""
    screen = s.options.anonymous_hidden_turns
    if block.id is not None:
        if screen and block.id == SCREEN:
            raise Rejected(ErrorCode.INVALID_PAYLOAD, f"the id {SCREEN!r} is the GM's screen's "
                           "in the order (R99): no combatant may take it", field="id")
        if block.id in s.combatants:
            raise Rejected(ErrorCode.CONFLICT, f"a combatant with id {block.id!r} exists already")
        return block.id
    base = slug(block.name)
    given = s.names.keys() | s.combatants.keys() | ({SCREEN} if screen else set())
    if block.hidden:
        while True:
            suffix = new_id()[:4]
            cid = f"{base}-{suffix}"
            if suffix[:1].isalpha() and cid not in given:  # a slug of 32 at most: 37 in all
                return cid
    cid, n = base, 2
    while cid in given:
        cid, n = f"{base}-{n}", n + 1
    return cid


def profile_from(block: StatBlock, rules: Ruleset, cid: str) -> CombatantProfile:
    """The combatant a stat block makes with the id ``cid``, its ``stats`` checked whole by
    the ruleset (every part of the sheet, the social statistics included) before it enters
    the encounter."""
    stats = plain_stats(block.stats, block.name)
    try:
        rules.validate_stats(stats)
    except RulesetError as exc:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, f"{block.name}: {exc}") from None
    side = block.side or ("party" if block.kind == "pc" else "enemies")
    return CombatantProfile(id=cid, name=block.name, kind=block.kind, side=side,
                            initiative_mod=block.initiative, hidden=block.hidden,
                            aware=block.aware, group=block.group, stats=stats,
                            external_ids=dict(block.external_ids))


def parse_statblocks_yaml(text: str) -> list[StatBlock]:
    """Stat blocks written in YAML: a list of blocks, or ``{combatants: [...]}``; aliases
    and nesting within the bounds of :mod:`encounter.bounded_yaml`."""
    return _yaml_document(text)[0]


def _yaml_document(text: str) -> tuple[list[StatBlock], BattleMap | None]:
    """The stat blocks of ``combatants_yaml`` and, for an encounter file (a mapping), the
    battle map it draws (its ``map``: a ``BattleMap``, or ``{drawing, walls}`` as the shipped
    examples write it), or None."""
    try:
        data = bounded_yaml.load(text)
    except bounded_yaml.YamlBoundError as exc:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, f"combatants_yaml: {exc}") from None
    except yaml.YAMLError as exc:
        raise Rejected(ErrorCode.INVALID_PAYLOAD,
                       f"combatants_yaml is not valid YAML: {exc}") from None
    drawn = None
    if isinstance(data, dict):
        drawn = _drawn_map(data.get("map"))
        data = data.get("combatants")
    if not isinstance(data, list):
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "combatants_yaml must be a list of stat blocks")
    try:
        return msgspec.convert(data, list[StatBlock]), drawn
    except msgspec.ValidationError as exc:
        raise Rejected(ErrorCode.INVALID_PAYLOAD,
                       f"combatants_yaml: {with_allowed(str(exc), list[StatBlock])}") from None


def _drawn_map(raw: Any) -> BattleMap | None:
    """An encounter file's ``map`` as ``create_encounter.map`` takes it, checked as that is;
    None without one."""
    if raw is None:
        return None
    try:
        if isinstance(raw, dict) and "drawing" in raw:
            walls = [(tuple(a), tuple(b)) for a, b in raw.get("walls") or []]
            raw = msgspec.to_builtins(BattleMap.from_ascii(str(raw["drawing"]), walls=walls))
        if not isinstance(raw, dict):
            raise MapError("a battle map is a mapping (width, height, ...), or {drawing, walls}")
        return BattleMap.from_dict(raw)
    except (MapError, TypeError, ValueError) as exc:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, f"combatants_yaml: map: {exc}",
                       field="combatants_yaml") from None


#: The ruling that a ruleset without ``set_map`` among its commands keeps no battle map.
NO_MAP_RULING = "R103"


def keeps_map(ruleset: str) -> bool:
    """Whether encounters of ``ruleset`` have a battle map: its commands include ``set_map``
    ("MLP Dramatic Systems"); "Action Time" keeps none (ruling R103)."""
    return msg.SetMap in declaration(ruleset).commands


def create(cmd: msg.CreateEncounter, encounter_id: str, gm_token_id: str, ctx: Context,
           campaign: str | None = None) -> Outcome:
    """The events that found an encounter: its rules, its combatants, the GM's credential;
    ``campaign``: the campaign it is begun from (R113)."""
    blocks = list(cmd.combatants)
    battle_map = cmd.map
    if cmd.combatants_yaml:
        from_yaml, drawn = _yaml_document(cmd.combatants_yaml)
        blocks += from_yaml
        if battle_map is None and drawn is not None and keeps_map(cmd.ruleset):
            battle_map = drawn  # an encounter file's own map; a `map` given wins
    if len(blocks) > 200:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "at most 200 combatants")
    known = names()
    if cmd.ruleset not in known:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, f"ruleset: no ruleset {cmd.ruleset!r} "
                       f"(allowed: {', '.join(known)})", field="ruleset", allowed=known)
    _check_ruleset_options(cmd.ruleset, cmd.options)
    if cmd.map is not None and not keeps_map(cmd.ruleset):
        rules = declaration(cmd.ruleset)
        raise Rejected(ErrorCode.INVALID_PAYLOAD, f"map: {rules.title} has no battle map "
                       f"(ruling {NO_MAP_RULING}: the server keeps no map in {rules.title}; "
                       "attacks, Heal and movement state their yards): leave the map out",
                       field="map")
    state = EncounterState(id=encounter_id)
    d = Decision(state, None, ctx)
    d.emit(ev.EncounterCreated(name=cmd.name, ruleset=cmd.ruleset, options=cmd.options,
                               campaign=campaign),
           None if cmd.options.dice_seed is None else ["gm"])
    d.ruleset = declaration(cmd.ruleset)
    d.rules = d.ruleset.rules
    if cmd.options.dice_seed is None and ctx.dice_secret is not None:  # R101
        d.emit(ev.DiceCommitted(commitment=commitment(ctx.dice_secret(encounter_id))))
    if battle_map is not None:
        d.emit(ev.MapSet(map=battle_map))
    for block in blocks:
        profile = profile_from(block, d.rules, combatant_id(block, d.s, ctx.new_id))
        d.emit(ev.CombatantAdded(combatant=profile), ["gm"] if profile.hidden else None)
        if block.position is not None:
            place(d, profile, block.position)
    d.emit(ev.TokenIssued(token_id=gm_token_id, role="gm", label="game master"), ["gm"])
    d.result = {"encounter": encounter_id, "token_id": gm_token_id}
    return d.outcome(0)



def add_combatant(d: Decision, cmd: msg.AddCombatant) -> None:
    profile = profile_from(cmd.combatant, d.rules, combatant_id(cmd.combatant, d.s, d.ctx.new_id))
    d.emit(ev.CombatantAdded(combatant=profile), ["gm"] if profile.hidden else None)
    if cmd.combatant.position is not None:
        place(d, profile, cmd.combatant.position)
    d.result = {"combatant": profile.id}
    phase = d.s.chart[0]
    expr = d.rules.initiative_expr(profile)
    if phase == "rolling_initiative":
        if d.is_manual(profile.id):
            d.request_roll(expr, "initiative", profile.id)
        else:
            d.server_roll(expr, "initiative", profile.id)
    elif phase == "scene" and d.ruleset.joins_next_round is not None \
            and d.ruleset.joins_next_round(d.s):
        return  # it rolls when the next round starts (the ruleset's ``round_started``)
    elif phase == "scene":
        if d.is_manual(profile.id):
            d.request_roll(expr, "join", profile.id)
        else:
            d.join_scene(profile.id, d.server_roll(expr, "join", profile.id))


def _mentions(value: Any, cid: str) -> bool:
    if isinstance(value, str):
        return value == cid
    if isinstance(value, dict):
        return any(_mentions(v, cid) for v in value.values())
    if isinstance(value, list | tuple):
        return any(_mentions(v, cid) for v in value)
    return False


def remove_combatant(d: Decision, cmd: msg.RemoveCombatant) -> None:
    c = find_combatant(d, cmd.combatant)
    for p in d.s.pending_rolls.values():
        # its own rolls go with it; one of another's that concerns it must be settled first
        if p.combatant != c.id and p.roller != c.id and _mentions(p.context, c.id):
            raise Rejected(ErrorCode.ILLEGAL_ACTION, f"a roll that concerns {c.name} is "
                           f"pending ({p.purpose}, request {p.request}): settle it first "
                           "(submit_roll or server_roll)")
    turn = d.s.turn
    if turn is not None and turn.interrupted_by is not None and cmd.combatant in (
            turn.interrupted_by, d.s.current):
        # the interrupt ends first, with either side of it leaving: the interrupter's readied
        # action has nothing left to interrupt, or nobody is left to take it
        d.send("resume", "the interrupted turn cannot resume now")
    if d.s.current == cmd.combatant:
        if len(d.s.order) > 1:
            d.send("next_turn", "cannot end this turn now")
        else:
            d.on_exit_turn()
    d.emit(ev.CombatantRemoved(combatant=cmd.combatant), d.combatant_vis(cmd.combatant))
    rolls.maybe_settle_initiative(d)
    rolls.end_newcomers_wait(d)


def set_hidden(d: Decision, cmd: msg.SetHidden) -> None:
    c = find_combatant(d, cmd.combatant)
    if c.hidden == cmd.hidden:
        raise Rejected(ErrorCode.ILLEGAL_ACTION,
                       f"{c.name} is {'hidden' if c.hidden else 'visible'} already")
    if cmd.hidden:
        d.emit(ev.CombatantConcealed(combatant=c.id), ["gm"])
    else:
        d.emit(ev.CombatantRevealed(combatant=msgspec.structs.replace(c, hidden=False)))


def _check_ruleset_options(ruleset: str, options: EncounterOptions) -> None:
    problem = check_options(ruleset, options.ruleset_options)
    if problem is not None:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, f"options.ruleset_options: {problem}",
                       field="options.ruleset_options")
    if options.turn_expiry != "notify" and catalog(ruleset).get(options.turn_expiry) is None:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, f"options.turn_expiry: "
                       f"{declaration(ruleset).title} has no {options.turn_expiry} action "
                       f"(R102): notify or end_turn", field="options.turn_expiry",
                       allowed=["notify", "end_turn"])


def set_options(d: Decision, cmd: msg.SetOptions) -> None:
    _check_ruleset_options(d.s.ruleset, cmd.options)
    before, after = d.s.options, cmd.options
    started = d.s.chart != ["setup"]
    if started and before.anonymous_hidden_turns != after.anonymous_hidden_turns:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "anonymous_hidden_turns is set before "
                       "start_encounter (R99): the table has seen the order", field=
                       "options.anonymous_hidden_turns")
    if after.anonymous_hidden_turns and SCREEN in d.s.combatants:
        raise Rejected(ErrorCode.CONFLICT, f"a combatant has the id {SCREEN!r}, the GM's "
                       "screen's with anonymous_hidden_turns (R99): remove it first",
                       field="options.anonymous_hidden_turns")
    d.emit(ev.OptionsChanged(options=after), ["gm"])
    if started and after.anonymous_hidden_turns and before.screen_count != after.screen_count:
        # R99: the screen moves from the next round, and everyone sees where to
        d.emit(ev.ScreenMoved(count=after.screen_count, round=d.s.round + 1))


def _issue(d: Decision, role: ev.Role, combatants: list[str], scopes: list[Any],
           label: str | None, expires_in: int | None) -> None:
    """A credential. Its expiry is part of its event, so that every process knows it, and
    knows it again after a restart."""
    token_id = d.ctx.new_id()
    expires_at = None if expires_in is None else d.ctx.now_ms + expires_in * 1000
    d.emit(ev.TokenIssued(token_id=token_id, role=role, combatants=combatants, scopes=scopes,
                          label=label, expires_at=expires_at), ["gm"])
    d.result = {"token_id": token_id, "role": role}
    if expires_at is not None:
        d.result["expires_at"] = expires_at


def invite(d: Decision, cmd: msg.IssueInvite) -> None:
    for cid in cmd.combatants:
        find_combatant(d, cid)
    _issue(d, "player", sorted(set(cmd.combatants)), [], cmd.label, cmd.expires_in)


def spectator(d: Decision, cmd: msg.IssueSpectatorLink) -> None:
    _issue(d, "spectator", [], ["view:public"], cmd.label, cmd.expires_in)


def integration(d: Decision, cmd: msg.IssueIntegrationToken) -> None:
    _issue(d, "integration", [], sorted(set(cmd.scopes)), cmd.label, cmd.expires_in)


def revoke(d: Decision, cmd: msg.RevokeToken) -> None:
    grant = d.s.tokens.get(cmd.token_id)
    if grant is None:
        raise Rejected(ErrorCode.NOT_FOUND, f"no token {cmd.token_id!r}")
    if grant.revoked:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "that token is revoked already")
    if d.actor is not None and grant.token_id == d.actor.token_id:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "a credential cannot revoke itself")
    d.emit(ev.TokenRevoked(token_id=cmd.token_id), ["gm"])



def start(d: Decision, cmd: msg.StartEncounter) -> None:
    """COMBAT SEQUENCE, step 1: a surprise round if some but not all are aware (R1); then
    everyone starts flat-footed (R2)."""
    if not d.s.combatants:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "add combatants before starting")
    if d.s.chart != ["setup"]:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "the encounter has already started")
    if d.s.pending_rolls:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "rolls are pending (the Perception checks "
                       "called for): settle them first (submit_roll or server_roll)")
    surprise = d.surprise_applies()
    d.emit(ev.SceneStarted(surprise=surprise))
    if d.ruleset.scene_started is not None:
        d.ruleset.scene_started(d, surprise)
    d.send("start_encounter", "the encounter has already started")



def set_awareness(d: Decision, cmd: msg.SetAwareness) -> None:
    """AWARENESS AND SURPRISE: "The stablemaster determines who is aware of whom at the start
    of a dramatic scene" (R42); during the scene, whether a combatant is aware of the attacks
    made on it ("unaware of an attack", R82)."""
    c = find_combatant(d, cmd.combatant)
    phase = d.s.chart[0]
    if phase not in ("setup", "scene"):
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "awareness is set before the scene starts "
                       "or during it")
    in_scene = phase == "scene"
    if in_scene and (c.id not in d.s.unaware) == cmd.aware:
        already = "aware" if cmd.aware else "unaware"
        raise Rejected(ErrorCode.ILLEGAL_ACTION, f"{c.name} is {already} of attacks already")
    d.emit(ev.AwarenessSet(combatant=c.id, aware=cmd.aware, in_scene=in_scene), ["gm"])


def add_effect(d: Decision, cmd: msg.AddEffect) -> None:
    """THE COMBAT ROUND: an effect lasting N rounds ends just before the same initiative count
    N rounds later; other durations and what an effect changes: R90."""
    if d.s.chart[0] != "scene" or d.s.current is None:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "effects start on a turn of the running scene")
    if cmd.combatant is not None:
        find_combatant(d, cmd.combatant)
    if cmd.origin is not None:
        find_combatant(d, cmd.origin)
    if (cmd.rounds is None) == (cmd.until == "rounds"):
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "rounds: give the number of rounds with "
                       "until \"rounds\" (the default), and only then (R90)")
    if cmd.combatant is None and (cmd.modifiers or cmd.until == "start_of_next_turn"):
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "combatant: an effect that changes numbers or "
                       "lasts until a next turn is held by a combatant (R90)")
    targets = d.ruleset.effect_targets
    for m in cmd.modifiers:
        if not m.target.startswith("gm:") and m.target not in targets:
            raise Rejected(ErrorCode.INVALID_PAYLOAD, f"modifiers: {m.target!r} is not a "
                           f"target of {d.ruleset.title}; it knows {', '.join(targets)} and "
                           "gm:<name> (R90)")
        if isinstance(m.amount, str) != m.target.endswith("_die"):
            raise Rejected(ErrorCode.INVALID_PAYLOAD, f"modifiers: {m.target} takes "
                           + ("a die (\"d6\")" if m.target.endswith("_die") else "a number"))
    rounds = cmd.rounds or 0
    d.emit(ev.EffectStarted(effect=d.ctx.new_id(), name=cmd.name, rounds=rounds,
                            round=d.s.round, count=d.s.turn_count(),
                            ends_round=d.s.round + rounds if rounds else 0,
                            combatant=cmd.combatant, until=cmd.until,
                            modifiers=list(cmd.modifiers), source=cmd.source or "",
                            source_kind=cmd.source_kind, origin=cmd.origin,
                            origin_hidden=cmd.origin is not None
                            and d.s.combatants[cmd.origin].hidden),
           d.combatant_vis(cmd.combatant))  # an effect on a hidden combatant is the GM's


def end_effect(d: Decision, cmd: msg.EndEffect) -> None:
    effect = d.s.effects.get(cmd.effect)
    if effect is None:
        raise Rejected(ErrorCode.NOT_FOUND, f"no effect {cmd.effect!r}")
    d.emit(ev.EffectEnded(effect=cmd.effect, reason="removed"),
           d.combatant_vis(effect.combatant))



def end(d: Decision, cmd: msg.EndEncounter) -> None:
    if cmd.rest and d.s.campaign is not None:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "this encounter belongs to a campaign, whose "
                       "clock counts the rest: end it without rest, then rest on the campaign "
                       "(advance_clock with rest; ruling R110)")
    if cmd.rest and d.ruleset.rest is None:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, f"rest: {d.ruleset.title} has no rule for "
                       "resting after the scene; leave it out")
    if d.s.chart[0] == "scene" and d.ruleset.after_scene is not None:
        d.ruleset.after_scene(d)
    if cmd.rest and d.ruleset.rest is not None:
        d.ruleset.rest(d)
    d.finish(cmd.reason)
