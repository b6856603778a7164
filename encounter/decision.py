"""One command being decided: the working state, the events it emits so far, its dice, its
visibility, and the callbacks the encounter chart calls (``Decision``), with what the decider
may not make up itself (``Context``) and what it hands back (``Outcome``). The steps of every
command and of every ruleset get a ``Decision``; ``encounter.engine`` creates it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from statemachine.exceptions import TransitionNotAllowed

from encounter.actors import Actor
from encounter.boundary import Engine
from encounter.fold import apply_event, end_command
from encounter.registry import declaration
from encounter.rejected import Rejected
from encounter.ruleset import Declaration
from encounter.screen import behind as held_back
from encounter.screen import behind_screen, fold_screen, screened_roll
from encounter.screen_turn import acts_behind, anonymous
from encounter.screen_turn import plan as plan_with_screen
from encounter.state import SCREEN, EncounterState
from protocol import events as ev
from protocol import messages as msg
from protocol.errors import ErrorCode
from protocol.events import Envelope, InitiativeEntry
from protocol.model import CombatantProfile
from rules.dice import (
    DiceError,
    Roll,
    derived_seed,
    dice_in,
    new_seed,
    roll_keyed,
    roll_seeded,
    screened_seed,
)
from rules.initiative import (
    ROLLOFF_DIE,
    Contender,
    insertion_index,
    order_by_initiative,
)
from rules.rulesets import Ruleset
from rules.turn_order import Plan, Seat, plan_next
from rules.verifiable_dice import SCREEN_STREAM, TABLE_STREAM, commitment, place, roll_key
from statemachines.encounter_chart import Chart, EncounterChartModel, restore


class DiceSecret(Protocol):
    """The dice secret of ``encounter``; with ``nonce``, the one a renewal gave (R117)."""

    def __call__(self, encounter: str, nonce: str | None = None, /) -> bytes: ...


@dataclass
class Context:
    """What the decider may not make up itself: the time and fresh ids."""

    now_ms: int
    new_id: Callable[[], str]
    #: The dice secret of an encounter, by its id and the nonce of its last renewal, if any
    #: (rulings R101, R117): the server derives it from its own secret; ``None``: no
    #: verifiable dice (each roll's seed fresh from the operating system, as before them).
    dice_secret: DiceSecret | None = None
    #: The log for an undo (ruling R108): the state at a seq and the envelopes after it, by
    #: the seq (``None``: the log does not reach it here, and nothing is taken back).
    rewind: Callable[[int], Rewound | None] | None = None


@dataclass(frozen=True)
class Rewound:
    """The encounter at ``state.version`` and the envelopes after it, up to the present."""

    state: EncounterState
    after: list[Envelope]


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
    msg.AdjustCombatant, msg.Adjudicate, msg.SetMap, msg.PlaceCombatant, msg.Fall,
    msg.Collide, msg.LoadObject, msg.SizeArgument, msg.SetAttitude, msg.RuleDoubt,
    msg.SetSocialEvent, msg.SetSocialSituation, msg.PauseTurnTimer, msg.ResumeTurnTimer,
    msg.Undo, msg.RefuseUndo,
)

#: The purpose of a die thrown to break a tie of initiative (R5; physical dice, R80).
ROLLOFF = "initiative roll-off"


class RolloffNeeded(Exception):
    """A tie of initiative waits for the physical roll-off die of ``combatant`` (R80)."""

    def __init__(self, combatant: str) -> None:
        super().__init__(combatant)
        self.combatant = combatant


#: Events that change nothing a turn plan reads (the order, counts, delays, awareness,
#: consciousness, the round): a plan made before them still holds after them.
_PLAN_NEUTRAL: frozenset[type] = frozenset({ev.TurnEnded, ev.DiceRolled})


class Decision(EncounterChartModel):
    """One command being decided: the working state, the events so far, and the chart's
    callbacks (the chart's model is this object; its configuration lives in ``config``)."""

    def __init__(self, state: EncounterState, actor: Actor | None, ctx: Context) -> None:
        self.s = state
        self.actor = actor
        self.ctx = ctx
        self.events: list[tuple[ev.AnyEvent, ev.Visibility]] = []
        self.result: dict[str, Any] = {}
        #: The ruleset the engine interprets (``encounter.ruleset.Declaration``), and its
        #: pure rules.
        self.ruleset: Declaration = declaration(state.ruleset)
        self.rules: Ruleset = self.ruleset.rules
        self._chart: Chart | None = None
        self._last_turn: str | None = None
        self._finishing = False
        self._interrupter: str | None = None
        self._plan: tuple[tuple[str | None, int], Plan] | None = None
        self._plan_epoch = 0
        self._history_before = dict(state.chart_history)
        #: Steps an action's resolver asks for once the chart has taken the action (a turn that
        #: ends with it, an interrupt that follows it); run by ``encounter.turns``.
        self.followups: list[Callable[[], None]] = []
        #: The roll-off dice already thrown for a tie of initiative, by combatant, in the
        #: order they were thrown (R80); the settling of the order uses them first.
        self.rolloffs: dict[str, list[int]] = {}
        #: The ts of the command that began the hold the table is in as this command starts
        #: (``None``: the table has been told everything): the table's record gives this
        #: command's events that time (``Envelope.told_ts``, R96.6).
        self.held_since: int | None = state.held_ts if held_back(state) and state.held_ts \
            else None
        #: For each event emitted: whether the screen was up before it, whether it turned the
        #: turn (``encounter.screen.fold_screen`` folds them into the outcome's state).
        self._screen: list[tuple[bool, bool]] = []

    @property
    def chart(self) -> Chart:
        """The encounter statechart in the saved configuration, with this decision as its
        model."""
        if self._chart is None:
            self._chart = restore(self, self.s.chart, self.s.chart_history)
        return self._chart

    # -- recording ---------------------------------------------------------------------------

    def emit(self, event: ev.AnyEvent, vis: ev.Visibility = None,
             change: Callable[[], None] | None = None) -> None:
        """Record ``event`` and apply it to the working state (``change``: the change it
        stands for, made in its place: an undo's, ``encounter.fold.restore``)."""
        behind, serial = behind_screen(self.s), self.s.turn_serial
        if change is None:
            apply_event(self.s, event)
        else:
            change()
        self.events.append((event, vis))
        self._screen.append((behind, self.s.turn_serial != serial))
        if type(event) not in _PLAN_NEUTRAL:
            self._plan_epoch += 1

    def send(self, chart_event: str, refusal: str) -> None:
        try:
            self.chart.send(chart_event)
        except TransitionNotAllowed:
            raise Rejected(ErrorCode.ILLEGAL_ACTION, refusal) from None
        self.s.chart = self.chart.configuration
        self.s.chart_history = dict(self.chart.history)

    def pass_turns(self) -> None:
        """The turn of a combatant that cannot act (unconscious, dead, or whatever the
        ruleset's hook says) passes: after every command the chart is told ``pass_turn``
        (guarded by ``turn_passes``) until someone who can act has the turn, or nobody has."""
        passed = 0
        while self.turn_passes() and "acting" in self.s.chart:
            # Passing round after round would never reach anyone who can act (all at 0
            # Health, say): the turn stays where it is, and the GM decides what now.
            if self.nobody_acts() or passed > 3 * (len(self.s.order) + 2):
                return
            self.send("pass_turn", "the turn cannot pass now")
            passed += 1

    def nobody_acts(self) -> bool:
        """Whether the ruleset passes the turn of everyone in the order ("Action Time": all at
        0 Health, R29), so that passing turns would never reach anyone who can act."""
        passes = self.ruleset.turn_passes
        return passes is not None and all(passes(self.s, cid) for cid in self.s.order)

    def begin_regular_rounds_now(self) -> None:
        """COMBAT SEQUENCE, step 4: after every command the chart's phase is told that the
        regular rounds have begun (guarded by ``regular_rounds_now``)."""
        if "surprise_round" in self.s.chart and self.regular_rounds_now():
            self.send("begin_regular_rounds", "the regular rounds cannot begin now")

    def release(self) -> None:
        """Drop the references back to this decision (its chart's model, its follow-ups), so
        that reference counting frees it at once instead of the cycle collector later."""
        self._chart = None
        self.followups.clear()
        self._plan = None

    def outcome(self, base_version: int) -> Outcome:
        if not self.events:
            raise Rejected(ErrorCode.ILLEGAL_ACTION, "nothing to do")
        cmd_chart = self.s.chart
        envelopes = [
            Envelope(seq=base_version + i + 1, ts=self.ctx.now_ms, event=e, vis=v,
                     told_ts=self.held_since)
            for i, (e, v) in enumerate(self.events)
        ]
        envelopes[-1].chart = list(cmd_chart)
        if self.s.chart_history != self._history_before:
            envelopes[-1].history = dict(self.s.chart_history)
        self.s.version = base_version + len(envelopes)
        for envelope, (behind, turned) in zip(envelopes, self._screen, strict=True):
            fold_screen(self.s, envelope, behind, turned)
        end_command(self.s, envelopes[-1])
        if base_version == 0:
            self.s.created_ts = self.ctx.now_ms
        return Outcome(envelopes=envelopes, state=self.s, result=self.result)

    # -- visibility --------------------------------------------------------------------------

    def combatant_vis(self, cid: str | None) -> ev.Visibility:
        c = self.s.combatants.get(cid) if cid else None
        return ["gm"] if c is not None and c.hidden else None

    def hidden(self, cid: str | None) -> bool:
        c = self.s.combatants.get(cid) if cid else None
        return c is not None and c.hidden

    def public_name(self, cid: str, about: str | None = None,
                    unseen: str = "someone unseen") -> str:
        """``cid``'s name as the text of an event about ``about`` gives it. Everyone who sees
        the event reads its text, so an event about a visible combatant names a hidden one as
        ``unseen`` (the GM sees who it was in the GM's own events); an event about a hidden
        combatant is the GM's alone and names it."""
        if self.hidden(cid) and not self.hidden(about):
            return unseen
        return self.s.combatants[cid].name

    def actor_sees(self, cid: str) -> bool:
        """Whether this decision's actor may be told of ``cid`` (a refusal is built for the
        actor who gets it): a hidden combatant only to those who see everything."""
        return not self.hidden(cid) or (self.actor is not None and self.actor.sees_all)

    def name_for_actor(self, cid: str, unseen: str = "another combatant") -> str:
        """``cid``'s name as a refusal sent to this decision's actor gives it."""
        return self.s.combatants[cid].name if self.actor_sees(cid) else unseen

    def may_aim(self, actor: str, target: str) -> bool:
        """Whether ``actor`` may aim an action at ``target``: a visible combatant cannot aim at
        a hidden one (ruling R79); a hidden one, the GM's own, may aim at anyone."""
        return not self.hidden(target) or self.hidden(actor)

    def dice_vis(self, cid: str | None) -> ev.Visibility:
        """Players see their own dice; NPC dice only when the GM rolls in the open. The GM's
        dice are also shown to ``roll`` integrations (a dice tower entering them)."""
        c = self.s.combatants.get(cid) if cid else None
        if c is None or c.hidden or (c.kind == "npc" and not self.s.options.npc_rolls_public):
            return GM_DICE
        return None

    # -- dice --------------------------------------------------------------------------------

    def server_roll(self, expr: str, purpose: str, cid: str | None,
                    request: str | None = None, behind: bool = False) -> Roll:
        """A roll of the server's dice, logged; ``behind``: made behind the GM's screen though
        it is nobody's (a roll-off of a tie with a hidden combatant)."""
        base = self.s.options.dice_seed
        hidden = self.hidden(cid) or behind
        screened = screened_roll(self.s, cid, hidden)
        secret = self.verifiable_secret()
        if secret is not None:  # R101: drawn from the keyed stream, its place numbered in it
            number = self.s.screened_rolls if screened else self.s.server_rolls
            roll = roll_keyed(expr, roll_key(secret, self.s.dice_chain),
                              place(SCREEN_STREAM if screened else TABLE_STREAM, number))
        else:
            roll = roll_seeded(expr, (
                new_seed() if base is None
                else screened_seed(base, self.s.screened_rolls) if screened
                else derived_seed(base, self.s.server_rolls)))
        pending = self.s.pending_rolls.get(request) if request is not None else None
        self.emit(ev.DiceRolled(purpose=purpose, roll=roll, combatant=cid, request=request,
                                gm_request=pending is not None and pending.roller == "gm",
                                hidden=hidden),
                  self.dice_vis(cid))
        return roll

    def verifiable_secret(self) -> bytes | None:
        """The secret the encounter's server dice are drawn from, when they are verifiable: it
        committed to one (``dice_committed``) and the server's secret still gives it (a server
        given another secret since rolls fresh dice, ``seed`` set and no ``place``, R101)."""
        if self.s.dice_commitment is None or self.ctx.dice_secret is None:
            return None
        secret = self.ctx.dice_secret(self.s.id, self.s.dice_nonce)
        return secret if commitment(secret) == self.s.dice_commitment else None

    def is_manual(self, cid: str) -> bool:
        """Physical dice: the GM's rolls with ``manual_rolls``, a player character's with
        ``players_roll``."""
        c = self.s.combatants[cid]
        return self.s.options.players_roll if c.kind == "pc" else self.s.options.manual_rolls

    def request_roll(self, expr: str, purpose: str, cid: str | None,
                     context: dict[str, Any] | None = None) -> None:
        """Wait for physical dice: those of ``cid`` (a player character's are its player's,
        the others the GM's), or the GM's own for a roll of nobody's (``cid`` ``None``)."""
        c = self.s.combatants[cid] if cid is not None else None
        roller = cid if cid is not None and c is not None and c.kind == "pc" else "gm"
        hidden = c is not None and c.hidden
        try:
            dice = dice_in(expr)
        except DiceError as exc:  # a ruleset's own expression: a server bug, not a user's
            raise RuntimeError(str(exc)) from exc
        self.emit(
            ev.RollRequested(request=self.ctx.new_id(), roller=roller, combatant=cid, expr=expr,
                             dice=dice, purpose=purpose, context=context, hidden=hidden),
            GM_DICE if roller == "gm" else ["gm"] if hidden else None,
        )

    # -- initiative -------------------------------------------------------------------------

    def surprise_applies(self) -> bool:
        """R1: a surprise round happens when some but not all combatants are aware (or, with
        ``surprise_when_none_aware``, also when nobody is) — in a ruleset that has one."""
        if not self.ruleset.surprise_round:
            return False
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

    def _rolloff_dice(self, recorded: dict[str, list[int]],
                      physical: bool) -> Callable[[str], int]:
        """The roll-off die of each tied contender: one already thrown (``recorded``, in
        order), else the server's — or, with ``physical`` and the contender's dice physical,
        :class:`RolloffNeeded` (R80). The server's dice are recorded too, so that settling
        the order again later throws none of them twice."""
        used: dict[str, int] = {}
        # a tie with a hidden contender is the GM's business: its roll-off dice are rolled
        # behind the screen (the dice the table sees stay the ones it would see without it)
        ties = {c.combatant: (c.total, c.tiebreak) for c in self._contenders()[0]}
        hidden_ties = {key for cid, key in ties.items() if self.hidden(cid)}

        def roll_for(cid: str) -> int:
            index = used.get(cid, 0)
            used[cid] = index + 1
            thrown = recorded.setdefault(cid, [])
            if index < len(thrown):
                return thrown[index]
            if physical and self.is_manual(cid):
                raise RolloffNeeded(cid)
            thrown.append(self.server_roll(ROLLOFF_DIE, ROLLOFF, None,
                                           behind=ties.get(cid) in hidden_ties).total)
            return thrown[-1]
        return roll_for

    def rolloff_needed(self, recorded: dict[str, list[int]]) -> str | None:
        """The contender whose physical roll-off die the order waits for, if any (R80);
        ``recorded`` gains the server's roll-off dice thrown meanwhile."""
        contenders, _ = self._contenders()
        try:
            order_by_initiative(contenders, _DecisionRoller(self, ROLLOFF),
                                rolloff=self._rolloff_dice(recorded, physical=True))
        except RolloffNeeded as need:
            return need.combatant
        return None

    def _contenders(self) -> tuple[list[Contender], dict[str, list[str]]]:
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
        return contenders, members

    def settle_initiative(self) -> None:
        """INITIATIVE CHECKS (R5): one order of everyone with a check; a group keeps one place,
        its members one after another in the order they were added (R6). Ties are broken by
        the roll-off dice thrown already (R80), else the server's."""
        s = self.s
        contenders, members = self._contenders()
        placed = order_by_initiative(contenders, _DecisionRoller(self, ROLLOFF),
                                     rolloff=self._rolloff_dice(self.rolloffs, physical=False))
        entries = []
        for p in placed:
            for cid in members[p.contender.combatant]:
                c = s.combatants[cid]
                entries.append(InitiativeEntry(
                    combatant=cid, total=p.contender.total, modifier=p.contender.modifier,
                    rolloff=tuple(p.rolloff), hidden=c.hidden, count=p.contender.total,
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
        """Who acts after ``current`` (memoized until an event that may change the order)."""
        memo = (current, self._plan_epoch)
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
                      eligible=(not s.surprise or s.combatants[cid].aware) and self.has_turn(cid))
                 for cid in s.order]
        turn = s.turn
        gone: tuple[int, int | None] | None = None
        if turn is not None and turn.combatant == current and turn.gone_at is not None \
                and current not in s.order:  # it died in its own turn
            entry = s.initiative.get(current)
            gone = (turn.gone_at, None if entry is None else s.count_of(current))
        if anonymous(s):  # the screen's turn, and the turns inside it (R99)
            return plan_with_screen(s, seats, current, gone)
        if gone is not None:
            return plan_next(seats, current, s.delay_queue, gone_at=gone[0], gone_count=gone[1])
        return plan_next(seats, current, s.delay_queue)

    def round_goes_on(self) -> bool:
        return self.plan(self.s.current).next is not None

    def regular_rounds_now(self) -> bool:
        s = self.s
        return not s.surprise and not (s.had_surprise and s.round == 0)

    def budget_left(self) -> bool:
        return self.s.turn is not None and not self.rules.economy.spent(self.s.turn.budget)

    def has_turn(self, cid: str) -> bool:
        """Unconscious combatants have no turns, but for the one in which their Constitution
        check is due (R16); the dead and destroyed have none."""
        v = self.s.vitals.get(cid)
        if v is None or v.conscious:
            return True
        return (v.condition == ("unconscious", "awaiting_check") and v.check_round is not None
                and self.s.round >= v.check_round)

    def turn_passes(self) -> bool:
        s = self.s
        cid = s.current
        if cid is None or s.turn is None or cid == SCREEN:
            return False  # (the screen's own turn is the GM's to end, R99)
        if any(p.combatant == cid and p.context is not None
               for p in s.pending_rolls.values()):
            return False  # a step of its turn waits for its dice (its Constitution check, R80)
        v = s.vitals.get(cid)
        if v is not None and not v.conscious:
            return True
        passes = self.ruleset.turn_passes
        return passes is not None and passes(s, cid)

    def check_round_for(self, cid: str) -> int:
        """R16: the round of the Constitution check of a combatant falling unconscious now —
        the first of its turns after 10 full rounds."""
        s = self.s
        if cid not in s.order:
            return s.round + 10
        fell_at = s.order.index(s.current) if s.current in s.order else 0
        return s.round + 10 if s.order.index(cid) >= fell_at else s.round + 11

    def round_waits_for_newcomers(self) -> bool:
        """R32, R80: a round whose newcomers roll initiative as it starts (the ruleset's
        ``joins_next_round``) waits for their physical dice before its first turn — but for
        a hidden one's with anonymous hidden turns: it acts inside the screen's (R99.2)."""
        joins = self.ruleset.joins_next_round
        s = self.s
        return joins is not None and joins(s) and any(
            p.purpose == "join" and not (anonymous(s) and p.combatant is not None
                                         and s.combatants[p.combatant].hidden)
            for p in s.pending_rolls.values())

    def surprise_over_needs_dice(self) -> bool:
        return self.s.surprise and not self.round_goes_on() and self.initiative_needs_dice()

    def next_round_now(self) -> bool:
        return not self.round_goes_on() and not self.surprise_over_needs_dice()

    def on_exit_turn(self) -> None:
        s = self.s
        current = s.current
        self._last_turn = current
        if current is None or current == SCREEN:
            if current == SCREEN:
                self.emit(ev.TurnEnded(round=s.round, combatant=SCREEN))
            return
        if s.screen_turn:  # a turn inside the screen's (R99): the GM's
            self.emit(ev.TurnEnded(round=s.round, combatant=current, hidden=True), ["gm"])
            if self._finishing or not acts_behind(s, self.plan(current).next):
                # the last of them: the screen's turn ends with it
                self.emit(ev.TurnEnded(round=s.round, combatant=SCREEN))
            return
        hidden = s.combatants[current].hidden
        self.emit(ev.TurnEnded(round=s.round, combatant=current, hidden=hidden),
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
            if (effect.until == "rounds" and effect.ends_round <= s.round) or (
                    effect.until == "end_of_round" and s.round):  # "until the end of the round"
                self.emit(ev.EffectEnded(effect=effect.effect),
                          self.combatant_vis(effect.combatant))
        if s.round and self.ruleset.round_ending is not None:
            self.ruleset.round_ending(self)
        self.emit(ev.RoundStarted(round=s.round + 1))
        if self.ruleset.round_started is not None:
            self.ruleset.round_started(self)

    def on_enter_turn(self) -> None:
        s = self.s
        if self._last_turn is None and self.round_waits_for_newcomers():
            return  # its first turn starts once their dice are in (R32, R80; encounter.rolls)
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
        behind = acts_behind(s, cid)
        opening = behind and not s.screen_turn  # the screen's turn begins (R99)
        count = s.screen_at() if behind else s.count_of(cid)
        for effect in list(s.effects.values()):
            # THE COMBAT ROUND: "Effects that last a certain number of rounds end just before
            # the same initiative number that they began on."
            # R90: one lasting "until the start of your next turn" ends as its holder's starts
            rounds_up = effect.until == "rounds" and effect.ends_round == s.round \
                and count <= effect.count and (opening or not behind)
            if rounds_up or (effect.until == "start_of_next_turn" and effect.combatant == cid):
                self.emit(ev.EffectEnded(effect=effect.effect),
                          self.combatant_vis(effect.combatant))
        if opening:  # what comes on a count comes on the screen's, as it begins (R99)
            if self.ruleset.turn_starting is not None:
                self.ruleset.turn_starting(self, SCREEN)
            self.emit(ev.TurnStarted(round=s.round, combatant=SCREEN))
        if cid == SCREEN:
            return
        # a turn inside the screen's is the GM's (its deeds are told as its visibility says)
        hidden = s.combatants[cid].hidden or behind
        vis = self.combatant_vis(cid)
        if cid in s.readied:  # Ready: "you don't get to take the readied action"
            self.emit(ev.ReadiedActionLost(combatant=cid, hidden=hidden), vis)
        if self.ruleset.turn_starting is not None:
            self.ruleset.turn_starting(self, cid)
        self.emit(ev.TurnStarted(round=s.round, combatant=cid, hidden=hidden),
                  ["gm"] if behind else vis)
        if self.ruleset.turn_started is not None:
            self.ruleset.turn_started(self, cid)

    def interrupt(self, cid: str) -> None:
        """A readied action of ``cid`` interrupts the current turn now (R8.2-3; a ruleset's own
        readied actions, as Action Time's pursuit, come this way too)."""
        self._interrupter = cid
        self.send("interrupt", "the turn cannot be interrupted now")

    def begin_interrupt(self) -> None:
        cid = self._interrupter
        assert cid is not None
        # a turn inside the screen's is the screen's to all but the GM (R99)
        screen = self.s.screen_turn
        self.emit(ev.ReadiedActionTriggered(
            combatant=cid, interrupting=SCREEN if screen else self.s.current,
            hidden=self.s.combatants[cid].hidden,
            interrupting_hidden=not screen and self.hidden(self.s.current)),
            self.combatant_vis(cid))

    def on_exit_interrupted(self) -> None:
        """Ready: "The count on which you took your readied action becomes your new initiative
        result" — directly ahead of the combatant whose turn it interrupted (R8.4); not when
        either has died meanwhile (Death: the dead leave the order, R8.4)."""
        s = self.s
        cid = s.turn.interrupted_by if s.turn is not None else None
        assert cid is not None
        hidden = s.combatants[cid].hidden
        if self.ruleset.readied_moves_order and s.screen_turn and cid in s.order \
                and cid not in s.screened:  # ahead of the screen, on its count (R99)
            order = [o for o in s.order if o != cid]
            after = [o for o in order if o not in s.screened and s.count_of(o) < s.screen_at()]
            position = order.index(after[0]) if after else len(order)
            self.emit(ev.OrderChanged(
                combatant=cid, position=position, count=s.screen_at(),
                public_position=self.public_position(position, without=cid), reason="ready",
                hidden=hidden), self.combatant_vis(cid))
        elif (self.ruleset.readied_moves_order and s.current is not None and cid in s.order
                and s.current in s.order):
            order = [o for o in s.order if o != cid]
            position = order.index(s.current)
            self.emit(ev.OrderChanged(
                combatant=cid, position=position, count=s.count_of(s.current),
                public_position=self.public_position(position, without=cid), reason="ready",
                hidden=hidden), self.combatant_vis(cid))
        self.emit(ev.InterruptEnded(combatant=cid, hidden=hidden), self.combatant_vis(cid))

    def finish(self, reason: str | None) -> None:
        self._finishing = True  # (a screen's turn running ends with the turn inside it)
        self.send("end_encounter", "the encounter has already ended")
        secret = self.verifiable_secret()
        if secret is not None:  # R101: the dice are shown once nothing is rolled any more
            self.emit(ev.DiceRevealed(secret=secret.hex()))
        self.emit(ev.EncounterEnded(reason=reason))


class _DecisionRoller:
    """A ``DiceRoller`` for rules that logs each roll as a ``dice_rolled`` event."""

    def __init__(self, decision: Decision, purpose: str) -> None:
        self.decision = decision
        self.purpose = purpose

    def roll(self, expr: str) -> Roll:
        return self.decision.server_roll(expr, self.purpose, None)


def find_combatant(d: Engine, cid: str) -> CombatantProfile:
    """The combatant a command names; a hidden one exists only for those who see everything
    (a ``command:gm`` credential without ``view:gm`` is answered as for an unknown id)."""
    c = d.s.combatants.get(cid)
    if c is None or (c.hidden and not d.actor_sees(c.id)):
        raise Rejected(ErrorCode.NOT_FOUND, f"no combatant {cid!r}")
    return c
