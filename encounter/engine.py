"""The decider: a command and the current state in, events out (or a refusal).

The statechart (``statemachines.encounter_chart``) decides *when* a command is allowed; the
rules (``rules/``) decide *what* happens; this module records it as events. The server decides
*who may* send a command before calling here, except where the answer depends on the state
(whether an actor controls a combatant), which is checked here.

``decide`` works on a copy of the state and applies each event as it is emitted, so guards and
later steps of the same command see its earlier effects, and a refused command changes nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import msgspec
import yaml
from statemachine.exceptions import TransitionNotAllowed

from encounter.actors import Actor
from encounter.fold import apply_event
from encounter.state import EncounterState, copy_state
from protocol import events as ev
from protocol import messages as msg
from protocol.errors import ErrorCode
from protocol.events import Envelope, InitiativeEntry
from protocol.model import CombatantProfile, StatBlock
from rules.dice import DiceError, Roll, derived_seed, new_seed, roll_faces, roll_seeded
from rules.initiative import Contender, insertion_index, order_by_initiative
from rules.rulesets import Ruleset, RulesetError, ruleset
from rules.turn_order import Plan, Seat, plan_next
from statemachines.encounter_chart import Chart, EncounterChartModel, restore


class Rejected(Exception):
    """A command that may not be carried out; nothing was changed."""

    def __init__(self, code: ErrorCode, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.details = details or None


@dataclass
class Context:
    """What the decider may not make up itself: the time and fresh ids."""

    now_ms: int
    new_id: Callable[[], str]


@dataclass
class Outcome:
    """The events a command produced, ready to append, and the result for its ``ack``."""

    envelopes: list[Envelope]
    state: EncounterState
    result: dict[str, Any] = field(default_factory=dict)


#: Visibility of the GM's dice and roll requests.
GM_DICE: list[str] = ["gm", "roll"]

GM_COMMANDS = (
    msg.AddCombatant, msg.RemoveCombatant, msg.SetHidden, msg.SetOptions, msg.IssueInvite,
    msg.IssueSpectatorLink, msg.IssueIntegrationToken, msg.RevokeToken, msg.StartEncounter,
    msg.EndEncounter, msg.SetAwareness, msg.CallPerception, msg.AddEffect, msg.EndEffect,
)

_SLUG = re.compile(r"[^a-z0-9]+")


def slug(name: str) -> str:
    return (_SLUG.sub("-", name.lower()).strip("-") or "combatant")[:32]


class Decision(EncounterChartModel):
    """One command being decided: the working state, the events so far, and the chart's
    callbacks (the chart's model is this object; its configuration lives in ``config``)."""

    def __init__(self, state: EncounterState, actor: Actor | None, ctx: Context) -> None:
        self.s = state
        self.actor = actor
        self.ctx = ctx
        self.events: list[tuple[ev.AnyEvent, ev.Visibility]] = []
        self.result: dict[str, Any] = {}
        self.rules: Ruleset = ruleset(state.ruleset)
        self._chart: Chart | None = None
        self._last_turn: str | None = None
        self._interrupter: str | None = None
        self._plan: tuple[tuple[str | None, int], Plan] | None = None
        self._history_before = dict(state.chart_history)

    @property
    def chart(self) -> Chart:
        """The encounter statechart in the saved configuration, with this decision as its
        model."""
        if self._chart is None:
            self._chart = restore(self, self.s.chart, self.s.chart_history)
        return self._chart

    # -- recording ---------------------------------------------------------------------------

    def emit(self, event: ev.AnyEvent, vis: ev.Visibility = None) -> None:
        apply_event(self.s, event)
        self.events.append((event, vis))

    def send(self, chart_event: str, refusal: str) -> None:
        try:
            self.chart.send(chart_event)
        except TransitionNotAllowed:
            raise Rejected(ErrorCode.ILLEGAL_ACTION, refusal) from None
        self.s.chart = self.chart.configuration
        self.s.chart_history = dict(self.chart.history)

    def outcome(self, base_version: int) -> Outcome:
        if not self.events:
            raise Rejected(ErrorCode.ILLEGAL_ACTION, "nothing to do")
        cmd_chart = self.s.chart
        envelopes = [
            Envelope(seq=base_version + i + 1, ts=self.ctx.now_ms, event=e, vis=v)
            for i, (e, v) in enumerate(self.events)
        ]
        envelopes[-1].chart = list(cmd_chart)
        if self.s.chart_history != self._history_before:
            envelopes[-1].history = dict(self.s.chart_history)
        self.s.version = base_version + len(envelopes)
        if base_version == 0:
            self.s.created_ts = self.ctx.now_ms
        return Outcome(envelopes=envelopes, state=self.s, result=self.result)

    # -- visibility --------------------------------------------------------------------------

    def combatant_vis(self, cid: str | None) -> ev.Visibility:
        c = self.s.combatants.get(cid) if cid else None
        return ["gm"] if c is not None and c.hidden else None

    def dice_vis(self, cid: str | None) -> ev.Visibility:
        """Players see their own dice; NPC dice only when the GM rolls in the open. The GM's
        dice are also shown to ``roll`` integrations (a dice tower entering them)."""
        c = self.s.combatants.get(cid) if cid else None
        if c is None or c.hidden or (c.kind == "npc" and not self.s.options.npc_rolls_public):
            return GM_DICE
        return None

    # -- dice --------------------------------------------------------------------------------

    def server_roll(self, expr: str, purpose: str, cid: str | None,
                    request: str | None = None) -> Roll:
        seed = (
            new_seed() if self.s.options.dice_seed is None
            else derived_seed(self.s.options.dice_seed, self.s.server_rolls)
        )
        roll = roll_seeded(expr, seed)
        self.emit(ev.DiceRolled(purpose=purpose, roll=roll, combatant=cid, request=request),
                  self.dice_vis(cid))
        return roll

    def is_manual(self, cid: str) -> bool:
        """Physical dice: the GM's rolls with ``manual_rolls``, a player character's with
        ``players_roll``."""
        c = self.s.combatants[cid]
        return self.s.options.players_roll if c.kind == "pc" else self.s.options.manual_rolls

    def request_roll(self, expr: str, purpose: str, cid: str) -> None:
        c = self.s.combatants[cid]
        roller = cid if c.kind == "pc" else "gm"
        try:
            from rules.dice import dice_in

            dice = dice_in(expr)
        except DiceError as exc:  # a ruleset's own expression: a server bug, not a user's
            raise RuntimeError(str(exc)) from exc
        self.emit(
            ev.RollRequested(request=self.ctx.new_id(), roller=roller, combatant=cid, expr=expr,
                             dice=dice, purpose=purpose),
            GM_DICE if roller == "gm" or c.hidden else None,
        )

    # -- initiative -------------------------------------------------------------------------

    def surprise_applies(self) -> bool:
        """R1: a surprise round happens when some but not all combatants are aware (or, with
        ``surprise_when_none_aware``, also when nobody is)."""
        aware = [c for c in self.s.combatants.values() if c.aware]
        if aware:
            return len(aware) < len(self.s.combatants)
        return bool(self.s.combatants) and self.s.options.surprise_when_none_aware

    def initiative_units(self) -> list[list[str]]:
        """Those who make an Initiative check now, as units: an NPC group rolls once (R6).
        At the start of a scene with a surprise round only the aware roll (R42); later, the
        others."""
        s = self.s
        pending = {p.combatant for p in s.pending_rolls.values() if p.purpose == "initiative"}
        units: dict[str, list[str]] = {}
        for cid, c in s.combatants.items():
            if cid in s.initiative or cid in s.initiative_rolls or cid in pending:
                continue
            if s.had_surprise and not s.initiative and not s.surprise and not c.aware:
                continue  # the surprise round is still to come: only the aware roll now
            key = f"group:{c.group}" if c.group and c.kind == "npc" else cid
            units.setdefault(key, []).append(cid)
        return [u for u in units.values() if u[0] not in s.initiative_rolls]

    def unit_expr(self, unit: list[str]) -> str:
        """A group's check adds the lowest Initiative modifier in the group (R6)."""
        leader = min((self.s.combatants[c] for c in unit), key=lambda c: c.initiative_mod)
        return self.rules.initiative_expr(leader)

    def initiative_needs_dice(self) -> bool:
        return any(self.is_manual(unit[0]) for unit in self.initiative_units())

    def request_initiative(self) -> None:
        for unit in self.initiative_units():
            if self.is_manual(unit[0]):
                self.request_roll(self.unit_expr(unit), "initiative", unit[0])
            else:
                self.server_roll(self.unit_expr(unit), "initiative", unit[0])

    def roll_initiative(self) -> None:
        for unit in self.initiative_units():
            self.server_roll(self.unit_expr(unit), "initiative", unit[0])
        self.settle_initiative()

    def _members(self, leader: str) -> list[str]:
        group = self.s.combatants[leader].group
        if not group or self.s.combatants[leader].kind != "npc":
            return [leader]
        return [cid for cid, c in self.s.combatants.items()
                if c.group == group and c.kind == "npc" and cid not in self.s.initiative]

    def settle_initiative(self) -> None:
        """INITIATIVE CHECKS (R5): one order of everyone with a check; a group keeps one place,
        its members one after another in the order they were added (R6)."""
        s = self.s
        contenders, members = [], {}
        for cid, entry in s.initiative.items():  # checks made before (R42): kept
            contenders.append(Contender(cid, entry.total, entry.modifier,
                                        self.rules.initiative_tiebreak(s.combatants[cid])))
            members[cid] = [cid]
        for leader, roll in s.initiative_rolls.items():
            unit = self._members(leader)
            low = min(unit, key=lambda c: s.combatants[c].initiative_mod)
            contenders.append(Contender(leader, roll.total, s.combatants[low].initiative_mod,
                                        self.rules.initiative_tiebreak(s.combatants[low])))
            members[leader] = unit
        placed = order_by_initiative(contenders, _DecisionRoller(self, "initiative roll-off"))
        entries = []
        for p in placed:
            for cid in members[p.contender.combatant]:
                c = s.combatants[cid]
                entries.append(InitiativeEntry(
                    combatant=cid, total=p.contender.total, modifier=p.contender.modifier,
                    rolloff=p.rolloff, hidden=c.hidden, count=p.contender.total,
                    group=c.group if len(members[p.contender.combatant]) > 1 else None))
        self.emit(ev.InitiativeSet(entries=entries))

    def join_scene(self, cid: str, roll: Roll) -> None:
        """JOINING A DRAMATIC SCENE: roll initiative on entering; act when the count comes up
        (R43: after everyone it does not beat, no roll-off)."""
        c = self.s.combatants[cid]
        key = (roll.total, self.rules.initiative_tiebreak(c))
        keys = [(self.s.count_of(o), self.rules.initiative_tiebreak(self.s.combatants[o]))
                for o in self.s.order]
        entry = InitiativeEntry(combatant=cid, total=roll.total, modifier=c.initiative_mod,
                                hidden=c.hidden, count=roll.total)
        position = insertion_index(keys, key)
        self.emit(ev.CombatantJoined(entry=entry, position=position,
                                     public_position=self.public_position(position)),
                  self.combatant_vis(cid))

    def public_position(self, position: int, without: str | None = None) -> int:
        order = [o for o in self.s.order if o != without]
        return sum(1 for o in order[:position] if not self.s.combatants[o].hidden)

    # -- chart callbacks: rounds and turns ---------------------------------------------------

    def plan(self, current: str | None) -> Plan:
        """Who acts after ``current`` (memoized until the next event)."""
        memo = (current, len(self.events))
        if self._plan is not None and self._plan[0] == memo:
            return self._plan[1]
        plan = self._plan_now(current)
        self._plan = (memo, plan)
        return plan

    def _plan_now(self, current: str | None) -> Plan:
        s = self.s
        seats = [Seat(combatant=cid, count=s.count_of(cid), modifier=s.initiative[cid].modifier,
                      total=s.initiative[cid].total, delaying=cid in s.delaying,
                      until=s.delaying.get(cid),
                      eligible=not s.surprise or s.combatants[cid].aware)
                 for cid in s.order]
        return plan_next(seats, current, s.delay_queue)

    def round_goes_on(self) -> bool:
        return self.plan(self.s.current).next is not None

    def regular_rounds_now(self) -> bool:
        s = self.s
        return not s.surprise and not (s.had_surprise and s.round == 0)

    def budget_left(self) -> bool:
        return self.s.turn is not None and not self.s.turn.budget.spent()

    def surprise_over_needs_dice(self) -> bool:
        return self.s.surprise and not self.round_goes_on() and self.initiative_needs_dice()

    def next_round_now(self) -> bool:
        return not self.round_goes_on() and not self.surprise_over_needs_dice()

    def on_exit_turn(self) -> None:
        current = self.s.current
        self._last_turn = current
        if current is not None:
            hidden = self.s.combatants[current].hidden
            self.emit(ev.TurnEnded(round=self.s.round, combatant=current, hidden=hidden),
                      self.combatant_vis(current))

    def on_enter_round(self) -> None:
        s = self.s
        self._last_turn = None
        if s.had_surprise and s.round == 0 and not s.surprise:
            self.emit(ev.RoundStarted(round=0, surprise=True))
            return
        if s.surprise and self.initiative_units():  # COMBAT SEQUENCE, step 3
            self.roll_initiative()
        for effect in list(s.effects.values()):  # no turn came at or below its count
            if effect.ends_round <= s.round:
                self.emit(ev.EffectEnded(effect=effect.effect))
        self.emit(ev.RoundStarted(round=s.round + 1))

    def on_enter_turn(self) -> None:
        s = self.s
        plan = self.plan(self._last_turn)
        for move in plan.moves:
            self.emit(ev.OrderChanged(
                combatant=move.combatant, position=move.position, count=move.count,
                public_position=self.public_position(move.position, without=move.combatant),
                reason=move.reason,  # type: ignore[arg-type]
                hidden=s.combatants[move.combatant].hidden),
                self.combatant_vis(move.combatant))
        cid = plan.next
        if cid is None:
            return
        count = s.count_of(cid)
        for effect in list(s.effects.values()):
            # THE COMBAT ROUND: "Effects that last a certain number of rounds end just before
            # the same initiative number that they began on."
            if effect.ends_round == s.round and count <= effect.count:
                self.emit(ev.EffectEnded(effect=effect.effect))
        hidden = s.combatants[cid].hidden
        vis = self.combatant_vis(cid)
        if cid in s.readied:  # Ready: "you don't get to take the readied action"
            self.emit(ev.ReadiedActionLost(combatant=cid, hidden=hidden), vis)
        self.emit(ev.TurnStarted(round=s.round, combatant=cid, hidden=hidden), vis)
        if cid in s.flat_footed and not (s.surprise
                                          and s.options.flat_footed_until_regular_turn):
            self.emit(ev.FlatFooted(combatant=cid, flat_footed=False, hidden=hidden), vis)

    def begin_interrupt(self) -> None:
        cid = self._interrupter
        assert cid is not None
        self.emit(ev.ReadiedActionTriggered(combatant=cid, interrupting=self.s.current,
                                            hidden=self.s.combatants[cid].hidden),
                  self.combatant_vis(cid))

    def on_exit_interrupted(self) -> None:
        """Ready: "The count on which you took your readied action becomes your new initiative
        result" — directly ahead of the combatant whose turn it interrupted (R8.4)."""
        s = self.s
        cid = s.turn.interrupted_by if s.turn is not None else None
        assert cid is not None and s.current is not None
        order = [o for o in s.order if o != cid]
        position = order.index(s.current)
        hidden = s.combatants[cid].hidden
        self.emit(ev.OrderChanged(combatant=cid, position=position, count=s.count_of(s.current),
                                  public_position=self.public_position(position, without=cid),
                                  reason="ready", hidden=hidden), self.combatant_vis(cid))
        self.emit(ev.InterruptEnded(combatant=cid, hidden=hidden), self.combatant_vis(cid))

    def finish(self, reason: str | None) -> None:
        self.send("end_encounter", "the encounter has already ended")
        self.emit(ev.EncounterEnded(reason=reason))


class _DecisionRoller:
    """A ``DiceRoller`` for rules that logs each roll as a ``dice_rolled`` event."""

    def __init__(self, decision: Decision, purpose: str) -> None:
        self.decision = decision
        self.purpose = purpose
        self.combatant: str | None = None

    def roll(self, expr: str) -> Roll:
        return self.decision.server_roll(expr, self.purpose, None)


# --- commands -------------------------------------------------------------------------------


def profile_from(block: StatBlock, rules: Ruleset, taken: set[str]) -> CombatantProfile:
    cid = block.id or slug(block.name)
    if block.id is None:
        base, n = cid, 2
        while cid in taken:
            cid, n = f"{base}-{n}", n + 1
    elif cid in taken:
        raise Rejected(ErrorCode.CONFLICT, f"a combatant with id {cid!r} exists already")
    try:
        rules.validate_stats(block.stats)
    except RulesetError as exc:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, f"{block.name}: {exc}") from None
    side = block.side or ("party" if block.kind == "pc" else "enemies")
    return CombatantProfile(id=cid, name=block.name, kind=block.kind, side=side,
                            initiative_mod=block.initiative, hidden=block.hidden,
                            aware=block.aware, group=block.group, stats=dict(block.stats))


def parse_statblocks_yaml(text: str) -> list[StatBlock]:
    """Stat blocks written in YAML: a list of blocks, or ``{combatants: [...]}``."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise Rejected(ErrorCode.INVALID_PAYLOAD,
                       f"combatants_yaml is not valid YAML: {exc}") from None
    if isinstance(data, dict):
        data = data.get("combatants")
    if not isinstance(data, list):
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "combatants_yaml must be a list of stat blocks")
    try:
        return msgspec.convert(data, list[StatBlock])
    except msgspec.ValidationError as exc:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, f"combatants_yaml: {exc}") from None


def create(cmd: msg.CreateEncounter, encounter_id: str, gm_token_id: str, ctx: Context) -> Outcome:
    """The events that found an encounter: its rules, its combatants, the GM's credential."""
    blocks = list(cmd.combatants)
    if cmd.combatants_yaml:
        blocks += parse_statblocks_yaml(cmd.combatants_yaml)
    if len(blocks) > 200:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "at most 200 combatants")
    state = EncounterState(id=encounter_id)
    d = Decision(state, None, ctx)
    d.emit(ev.EncounterCreated(name=cmd.name, ruleset=cmd.ruleset, options=cmd.options),
           None if cmd.options.dice_seed is None else ["gm"])
    d.rules = ruleset(cmd.ruleset)
    for block in blocks:
        profile = profile_from(block, d.rules, set(d.s.combatants))
        d.emit(ev.CombatantAdded(combatant=profile), ["gm"] if profile.hidden else None)
    d.emit(ev.TokenIssued(token_id=gm_token_id, role="gm", label="game master"), ["gm"])
    d.result = {"encounter": encounter_id, "token_id": gm_token_id}
    return d.outcome(0)


def decide(state: EncounterState, actor: Actor, cmd: msg.Command, ctx: Context) -> Outcome:
    """Decide ``cmd`` sent by ``actor`` against ``state`` (which is not modified)."""
    if state.version == 0:
        raise Rejected(ErrorCode.NOT_FOUND, "no such encounter")
    if isinstance(cmd, GM_COMMANDS) and not actor.is_gm:
        raise Rejected(ErrorCode.FORBIDDEN, f"only the GM may {cmd.__struct_config__.tag}")
    d = Decision(copy_state(state), actor, ctx)
    if d.s.ended and not isinstance(cmd, msg.RevokeToken):
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "the encounter has ended")
    handler = _HANDLERS.get(type(cmd))
    if handler is None:
        raise Rejected(ErrorCode.UNKNOWN_TYPE, f"{cmd.__struct_config__.tag} is not a command")
    handler(d, cmd)
    return d.outcome(state.version)


def _combatant(d: Decision, cid: str) -> CombatantProfile:
    c = d.s.combatants.get(cid)
    if c is None or (c.hidden and not (d.actor and (d.actor.sees_all or d.actor.is_gm))):
        raise Rejected(ErrorCode.NOT_FOUND, f"no combatant {cid!r}")
    return c


def _add(d: Decision, cmd: msg.AddCombatant) -> None:
    profile = profile_from(cmd.combatant, d.rules, set(d.s.combatants))
    d.emit(ev.CombatantAdded(combatant=profile), d.combatant_vis(profile.id) if profile.hidden
           else None)
    d.result = {"combatant": profile.id}
    phase = d.s.chart[0]
    expr = d.rules.initiative_expr(profile)
    if phase == "rolling_initiative":
        if d.is_manual(profile.id):
            d.request_roll(expr, "initiative", profile.id)
        else:
            d.server_roll(expr, "initiative", profile.id)
    elif phase == "scene":
        if d.is_manual(profile.id):
            d.request_roll(expr, "join", profile.id)
        else:
            d.join_scene(profile.id, d.server_roll(expr, "join", profile.id))


def _remove(d: Decision, cmd: msg.RemoveCombatant) -> None:
    _combatant(d, cmd.combatant)
    if d.s.current == cmd.combatant:
        if len(d.s.order) > 1:
            d.send("next_turn", "cannot end this turn now")
        else:
            d.on_exit_turn()
    d.emit(ev.CombatantRemoved(combatant=cmd.combatant), d.combatant_vis(cmd.combatant))
    _maybe_settle_initiative(d)


def _set_hidden(d: Decision, cmd: msg.SetHidden) -> None:
    c = _combatant(d, cmd.combatant)
    if c.hidden == cmd.hidden:
        raise Rejected(ErrorCode.ILLEGAL_ACTION,
                       f"{c.name} is {'hidden' if c.hidden else 'visible'} already")
    if cmd.hidden:
        d.emit(ev.CombatantConcealed(combatant=c.id), ["gm"])
    else:
        d.emit(ev.CombatantRevealed(combatant=msgspec.structs.replace(c, hidden=False)))


def _set_options(d: Decision, cmd: msg.SetOptions) -> None:
    d.emit(ev.OptionsChanged(options=cmd.options), ["gm"])


def _issue(d: Decision, role: ev.Role, combatants: list[str], scopes: list[Any],
           label: str | None) -> None:
    token_id = d.ctx.new_id()
    d.emit(ev.TokenIssued(token_id=token_id, role=role, combatants=combatants, scopes=scopes,
                          label=label), ["gm"])
    d.result = {"token_id": token_id, "role": role}


def _invite(d: Decision, cmd: msg.IssueInvite) -> None:
    for cid in cmd.combatants:
        _combatant(d, cid)
    _issue(d, "player", sorted(set(cmd.combatants)), [], cmd.label)


def _spectator(d: Decision, cmd: msg.IssueSpectatorLink) -> None:
    _issue(d, "spectator", [], ["view:public"], cmd.label)


def _integration(d: Decision, cmd: msg.IssueIntegrationToken) -> None:
    _issue(d, "integration", [], sorted(set(cmd.scopes)), cmd.label)


def _revoke(d: Decision, cmd: msg.RevokeToken) -> None:
    grant = d.s.tokens.get(cmd.token_id)
    if grant is None:
        raise Rejected(ErrorCode.NOT_FOUND, f"no token {cmd.token_id!r}")
    if grant.revoked:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "that token is revoked already")
    if d.actor is not None and grant.token_id == d.actor.token_id:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "a credential cannot revoke itself")
    d.emit(ev.TokenRevoked(token_id=cmd.token_id), ["gm"])


def _start(d: Decision, cmd: msg.StartEncounter) -> None:
    """COMBAT SEQUENCE, step 1: a surprise round if some but not all are aware (R1); then
    everyone starts flat-footed (R2)."""
    if not d.s.combatants:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "add combatants before starting")
    if d.s.chart != ["setup"]:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "the encounter has already started")
    surprise = d.surprise_applies()
    d.emit(ev.SceneStarted(surprise=surprise))
    if surprise:
        for cid, c in d.s.combatants.items():
            d.emit(ev.FlatFooted(combatant=cid, flat_footed=True, hidden=c.hidden),
                   d.combatant_vis(cid))
    d.send("start_encounter", "the encounter has already started")


def _act(d: Decision, cmd: msg.Act) -> None:
    assert d.actor is not None
    c = _combatant(d, cmd.combatant)
    if not d.actor.controls(d.s, c.id):
        raise Rejected(ErrorCode.FORBIDDEN, f"you do not control {c.name}")
    turns.act(d, c, cmd)


def _set_awareness(d: Decision, cmd: msg.SetAwareness) -> None:
    """AWARENESS AND SURPRISE: "The stablemaster determines who is aware of whom at the start
    of a dramatic scene" (R42)."""
    c = _combatant(d, cmd.combatant)
    if d.s.chart != ["setup"]:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "awareness is set before the scene starts")
    d.emit(ev.AwarenessSet(combatant=c.id, aware=cmd.aware), ["gm"])


def _call_perception(d: Decision, cmd: msg.CallPerception) -> None:
    """Determining Awareness: "She may call for Perception checks". The server rolls 1d20 +
    the stat block's ``perception`` modifier; with a ``dc`` it sets awareness from the result
    (meeting the DC succeeds)."""
    if d.s.chart != ["setup"]:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "Perception checks for awareness come before "
                       "the scene starts")
    for cid in cmd.combatants or list(d.s.combatants):
        c = _combatant(d, cid)
        mod = c.stats.get("perception", 0)
        if isinstance(mod, bool) or not isinstance(mod, int):
            raise Rejected(ErrorCode.INVALID_PAYLOAD, f"{c.name}: stats.perception is a number")
        roll = d.server_roll("1d20" if mod == 0 else f"1d20{mod:+d}", "perception", cid)
        if cmd.dc is not None:
            d.emit(ev.AwarenessSet(combatant=cid, aware=roll.total >= cmd.dc), ["gm"])


def _add_effect(d: Decision, cmd: msg.AddEffect) -> None:
    """THE COMBAT ROUND: an effect lasting N rounds ends just before the same initiative count
    N rounds later."""
    if d.s.chart[0] != "scene" or d.s.current is None:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "effects start on a turn of the running scene")
    if cmd.combatant is not None:
        _combatant(d, cmd.combatant)
    d.emit(ev.EffectStarted(effect=d.ctx.new_id(), name=cmd.name, rounds=cmd.rounds,
                            round=d.s.round, count=d.s.count_of(d.s.current),
                            ends_round=d.s.round + cmd.rounds, combatant=cmd.combatant))


def _end_effect(d: Decision, cmd: msg.EndEffect) -> None:
    if cmd.effect not in d.s.effects:
        raise Rejected(ErrorCode.NOT_FOUND, f"no effect {cmd.effect!r}")
    d.emit(ev.EffectEnded(effect=cmd.effect, reason="removed"))


def _pending(d: Decision, request: str) -> Any:
    assert d.actor is not None
    pending = d.s.pending_rolls.get(request)
    if pending is None:
        raise Rejected(ErrorCode.NOT_FOUND, f"no pending roll {request!r}")
    if pending.roller == "gm":
        allowed = d.actor.is_gm or "roll" in d.actor.scopes
    else:
        allowed = d.actor.controls(d.s, pending.roller)
    if not allowed:
        raise Rejected(ErrorCode.FORBIDDEN, "that roll is not yours to make")
    return pending


def _submit_roll(d: Decision, cmd: msg.SubmitRoll) -> None:
    pending = _pending(d, cmd.request)
    try:
        roll = roll_faces(pending.expr, cmd.faces)
    except DiceError as exc:
        raise Rejected(ErrorCode.BAD_DICE, str(exc), dice=pending.dice) from None
    assert d.actor is not None
    by: Literal["gm", "player"] = "gm" if pending.roller == "gm" or d.actor.is_gm else "player"
    d.emit(ev.DiceRolled(purpose=pending.purpose, roll=roll, by=by, combatant=pending.combatant,
                         request=pending.request), d.dice_vis(pending.combatant))
    _after_roll(d, pending.purpose, pending.combatant, roll)


def _server_roll(d: Decision, cmd: msg.ServerRoll) -> None:
    pending = _pending(d, cmd.request)
    roll = d.server_roll(pending.expr, pending.purpose, pending.combatant, pending.request)
    _after_roll(d, pending.purpose, pending.combatant, roll)


def _after_roll(d: Decision, purpose: str, cid: str | None, roll: Roll) -> None:
    if purpose == "initiative":
        _maybe_settle_initiative(d)
    elif purpose == "join" and cid is not None:
        d.join_scene(cid, roll)


def _maybe_settle_initiative(d: Decision) -> None:
    if d.s.chart == ["rolling_initiative"] and not any(
        p.purpose == "initiative" for p in d.s.pending_rolls.values()
    ):
        d.send("initiative_complete", "initiative is not complete")


def _end(d: Decision, cmd: msg.EndEncounter) -> None:
    d.finish(cmd.reason)


_HANDLERS: dict[type, Callable[[Decision, Any], None]] = {
    msg.AddCombatant: _add,
    msg.RemoveCombatant: _remove,
    msg.SetHidden: _set_hidden,
    msg.SetOptions: _set_options,
    msg.IssueInvite: _invite,
    msg.IssueSpectatorLink: _spectator,
    msg.IssueIntegrationToken: _integration,
    msg.RevokeToken: _revoke,
    msg.StartEncounter: _start,
    msg.SetAwareness: _set_awareness,
    msg.CallPerception: _call_perception,
    msg.AddEffect: _add_effect,
    msg.EndEffect: _end_effect,
    msg.Act: _act,
    msg.SubmitRoll: _submit_roll,
    msg.ServerRoll: _server_roll,
    msg.EndEncounter: _end,
}


from encounter import turns  # noqa: E402  (the turn handlers need Decision and Rejected)
