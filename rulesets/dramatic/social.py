"""Social dramatic scenes in the encounter: statements, attitudes, Dispute, Conversation,
Blocking and lies ("MLP Dramatic Systems", SOCIAL SYSTEMS; rulings R25-R28, R40, R47-R49,
R76, R77). A social scene is an encounter like a fight — initiative, turns and the action
budget are the same; these maneuvers are standard actions aimed at Wits Defense, hurting the
mental track, and moving attitudes.

The mechanics are ``rules.social``; this module reads the state for them, stages their dice (the
server's, or physical dice) through ``rulesets.dramatic.combat``'s roll stages, and records the
events.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from encounter.decision import find_combatant
from encounter.declare import Aimed, Noted, Refusal
from encounter.rejected import Rejected
from encounter.state import EncounterState
from protocol import events as ev
from protocol import messages as msg
from protocol.errors import ErrorCode
from protocol.model import CombatantProfile
from rules.damage import damage_dealt
from rules.defenses import damage_thresholds
from rules.dice import Roll
from rules.modifiers import Modifier, RuleRefusal
from rules.sheet import DamageSource, SheetError, Size
from rules.social.access import (
    AccessRating,
    AccessSituation,
    Attire,
    Aura,
    AuraPool,
    Moment,
    access_rating,
    add_aura_point,
    aura,
    aura_points,
    low_access_argument,
)
from rules.social.attitude import DEFAULT_ATTITUDE, Attitude, shift
from rules.social.events import attend_event, challenge_rating, event_rating
from rules.social.lies import lie_check, lie_outcome
from rules.social.maneuvers import (
    ConversationSide,
    argument_formula,
    conversation,
    debate_ends,
    social_attack_check,
    social_outcome,
)
from rules.social.sheet import SocialSheet, parse_social
from rules.social.statements import Answer, answer_statement, reservation_loss, shrink
from rules.social.status import (
    Familiarity,
    RaceStanding,
    SocialStatus,
    StatusSituation,
    knowledge_skill,
    social_status,
)
from rulesets.dramatic import resolution
from rulesets.dramatic import vitals as vt
from rulesets.dramatic.args import AnswerArgs, ConversationArgs, DisputeArgs, LieArgs
from rulesets.dramatic.combat import record_damage, roll_stage

if TYPE_CHECKING:
    from encounter.boundary import Engine


log = logging.getLogger("stablemaster.social")


def social_sheet_of(profile: CombatantProfile) -> SocialSheet:
    """The combatant's social statistics. A stat block is checked whole when it enters the
    encounter; one in a log written before that, which cannot be read, counts as the default
    sheet (status 0) rather than failing everything that looks at it."""
    try:
        return parse_social(profile.stats)
    except SheetError as exc:
        log.warning("combatant %s: unreadable social sheet, read as the default: %s",
                    profile.id, exc)
        return SocialSheet()


def _vis(d: Engine, *cids: str) -> ev.Visibility:
    return ["gm"] if any(d.s.combatants[c].hidden for c in cids) else None


def attitude_of(d: Engine, holder: str, toward: str) -> Attitude:
    return Attitude(d.s.attitudes.get(holder, {}).get(toward, DEFAULT_ATTITUDE.value))


def social_status_of(d: Engine, cid: str) -> int:
    return social_standing(d.s, cid).status.total


class Standing(msgspec.Struct, frozen=True, kw_only=True):
    """A combatant's Social Status, Social Access Rating and aura at the scene's event."""

    status: SocialStatus
    access: AccessRating | None
    aura: Aura | None


def social_standing(state: EncounterState, cid: str) -> Standing:
    """SOCIAL STATUS with the situation the GM set (R70), and at an event the SOCIAL ACCESS
    RATING (R72) and the aura its difference to the Event Rating makes (R25, R73)."""
    c = state.combatants[cid]
    sheet = vt.sheet_of(c)
    social = social_sheet_of(c)
    event = state.social_event
    sit = state.social_situations.get(cid)
    situation = StatusSituation(
        familiarity=Familiarity(sit.familiarity) if sit else Familiarity.KNOWN,
        race=RaceStanding(sit.race) if sit else RaceStanding.PREVAILING,
        subject_rank=sit.subject_rank if sit else None,
        topic=event.topic if event else None, circle=event.circle if event else None)
    status = social_status(sheet, social, situation)
    if event is None or event.rating is None:
        return Standing(status=status, access=None, aura=None)
    access = access_rating(status.total, social, AccessSituation(
        invitation=sit.invitation if sit else None, knows_host=bool(sit and sit.knows_host),
        knows_most=bool(sit and sit.knows_most),
        attire=Attire(sit.attire) if sit else Attire.ORDINARY))
    return Standing(status=status, access=access,
                    aura=aura(access.total, event.rating,
                              aura_gap_band=state.options.aura_gap_band))


def set_social_event(d: Engine, cmd: msg.SetSocialEvent) -> None:
    """SOCIAL EVENTS: the organiser's rating, capped by its status and raised by VIPs (R25,
    R71); at the start of a running scene, the auras give their first points (R73)."""
    for name, value in (("topic", cmd.topic), ("circle", cmd.circle)):
        if value is not None and not value.strip():
            raise Rejected(ErrorCode.INVALID_PAYLOAD, f"a {name} needs a name (leave it out "
                           "for none)")
    if cmd.topic is not None:
        try:
            knowledge_skill(cmd.topic)
        except ValueError:
            raise Rejected(ErrorCode.INVALID_PAYLOAD, f"the topic {cmd.topic!r} names no "
                           "Knowledge skill: it needs a letter or a digit") from None
    if cmd.rating is None:
        d.emit(ev.SocialEventSet(rating=None))
        return
    parts: list[Modifier] = [Modifier("the GM's rating", cmd.rating, "SOCIAL EVENTS")]
    total = cmd.rating
    if cmd.organizer is not None:
        organizer = find_combatant(d, cmd.organizer)
        raises = [social_sheet_of(find_combatant(d, v)).event_raise for v in cmd.vips]
        try:
            rated = event_rating(social_status_of(d, organizer.id), cmd.rating, vip_raises=raises,
                                 gm_override=cmd.gm_override)
        except RuleRefusal as exc:
            raise Rejected(ErrorCode.ILLEGAL_ACTION, str(exc)) from None
        parts, total = list(rated.parts), rated.total
    d.emit(ev.SocialEventSet(rating=total, parts=parts, organizer=cmd.organizer,
                             organizer_hidden=d.hidden(cmd.organizer),
                             circle=cmd.circle, topic=cmd.topic, encounter=cmd.encounter,
                             last=cmd.last,
                             challenge_rating=challenge_rating(total, cmd.challenge_modifier)))
    if d.s.chart[0] == "scene":
        aura_moment(d, Moment.START)


def status_boosts(d: Engine) -> None:
    """SOCIAL EVENTS (R25, R70): when a qualifying event ends, each character attending gains a
    point of temporary status in the event's circle, up to half its unmodified status."""
    event = d.s.social_event
    if event is None or event.rating is None or not event.last or not event.circle:
        return
    for cid, c in d.s.combatants.items():
        if c.kind != "pc" or not d.s.vitals[cid].alive:
            continue
        social = social_sheet_of(c)
        standing = social_standing(d.s, cid)
        current = next((t for t in social.temporary if t.circle == event.circle), None)
        boost = attend_event(current, circle=event.circle, event_rating=event.rating,
                             unmodified=standing.status.unmodified,
                             event_status_boost=d.s.options.event_status_boost)
        if boost.bonus != (current.bonus if current else 0):
            d.emit(ev.StatusBoostEarned(combatant=cid, circle=event.circle, bonus=boost.bonus,
                                        hidden=c.hidden), d.combatant_vis(cid))


def low_access(d: Engine, c: CombatantProfile, args: Aimed) -> Callable[[], None]:
    """Free action: point out that the target does not belong here — a Social Access Rating
    below the Event Rating is an argument against its owner, usable by one whose own rating
    reaches the Event Rating, of the size of its Discord row (SOCIAL ACCESS RATING; R72)."""
    target = _target(d, c, args.target)
    event = d.s.social_event
    if event is None or event.rating is None:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "there is no social event (set_social_event)")
    mine, theirs = social_standing(d.s, c.id).access, social_standing(d.s, target).access
    assert mine is not None and theirs is not None
    try:
        size = low_access_argument(theirs.total, mine.total, event.rating,
                                   aura_gap_band=d.s.options.aura_gap_band)
    except RuleRefusal as exc:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, str(exc)) from None
    argument = f"arg{len(d.s.arguments) + 1}"
    name = d.s.combatants[target].name
    return lambda: d.emit(ev.ArgumentChanged(
        argument=argument, combatant=c.id, size=size.value,
        text=f"{name} does not belong here", reason="a low access rating (R72)",
        hidden=c.hidden), _vis(d, c.id, target))


def set_social_situation(d: Engine, cmd: msg.SetSocialSituation) -> None:
    c = find_combatant(d, cmd.combatant)
    old = d.s.social_situations.get(c.id) or ev.SocialSituationSet(combatant=c.id)
    changes = {f: getattr(cmd, f) for f in ("familiarity", "race", "subject_rank", "invitation",
                                            "knows_host", "knows_most", "attire")
               if getattr(cmd, f) is not None}
    d.emit(msgspec.structs.replace(old, hidden=c.hidden, **changes), d.combatant_vis(c.id))


def aura_moment(d: Engine, moment: Moment) -> None:
    """R73: the points each aura gives at this moment of the event; a point of one kind first
    removes one of the other; Discord stops at one point once Harmony is gone."""
    event = d.s.social_event
    if event is None:
        return
    if moment is Moment.END and not event.last:
        moment, encounter = Moment.ENCOUNTER, event.encounter
    else:
        encounter = event.encounter
    for cid, c in d.s.combatants.items():
        if c.kind != "pc" or not d.s.vitals[cid].alive:
            continue
        a = social_standing(d.s, cid).aura
        if a is None or a.level == 0:
            continue
        points = aura_points(a, moment, encounter)
        if moment is Moment.END:  # the event's end is also this encounter's end
            points += aura_points(a, Moment.ENCOUNTER, encounter)
        harmony, discord = d.s.auras.get(cid, (0, 0))
        pool = AuraPool(harmony=harmony, discord=discord)
        for _ in range(points):
            pool = add_aura_point(pool, a.kind)
        if (pool.harmony, pool.discord) != (harmony, discord):
            d.emit(ev.AuraPointsChanged(combatant=cid, harmony=pool.harmony,
                                        discord=pool.discord,
                                        reason=f"Aura of {a.kind.value.title()} level {a.level}"
                                               f" at the {moment.value} (R73)",
                                        hidden=c.hidden), d.combatant_vis(cid))


# --- the GM's part ----------------------------------------------------------------------------


def size_argument(d: Engine, cmd: msg.SizeArgument) -> None:
    """STATEMENTS: "The scale of a statement is determined by the stable master": the GM gives
    a combatant a statement of a size (or resizes one, ``argument``)."""
    c = find_combatant(d, cmd.combatant)
    argument = cmd.argument or f"arg{len(d.s.arguments) + 1}"
    if cmd.argument is not None and cmd.argument not in d.s.arguments:
        raise Rejected(ErrorCode.NOT_FOUND, f"no argument {cmd.argument!r}")
    d.emit(ev.ArgumentChanged(argument=argument, combatant=c.id, size=cmd.size, text=cmd.text,
                              perilous=cmd.perilous, reason="sized by the GM",
                              hidden=c.hidden), d.combatant_vis(c.id))
    d.result = {"argument": argument}


def set_attitude(d: Engine, cmd: msg.SetAttitude) -> None:
    holder, toward = find_combatant(d, cmd.holder), find_combatant(d, cmd.toward)
    if holder.id == toward.id:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "an attitude is held toward another character")
    d.emit(ev.AttitudeChanged(holder=holder.id, toward=toward.id, attitude=cmd.attitude,
                              reason=cmd.reason or "set by the GM",
                              hidden=holder.hidden or toward.hidden),
           _vis(d, holder.id, toward.id))


# --- maneuvers --------------------------------------------------------------------------------


def _argument(d: Engine, c: CombatantProfile, name: str) -> str:
    if name not in d.s.arguments \
            or d.s.arguments[name].owner != c.id:
        mine = sorted(a for a, arg in d.s.arguments.items() if arg.owner == c.id and arg.size)
        raise Rejected(ErrorCode.INVALID_PAYLOAD, f"args.argument names one of {c.name}'s "
                      f"statements: {', '.join(mine) or 'none (the GM sizes them)'}")
    if d.s.arguments[name].size is None:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "this argument is spent and cannot be used "
                      "again (R27)")
    return name


def _target(d: Engine, c: CombatantProfile, raw: str) -> str:
    if raw not in d.s.combatants or raw == c.id or (
            d.s.combatants[raw].hidden and not c.hidden):
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "args.target names another combatant")
    return raw


def _check(d: Engine, speaker: str, target: str, argument: str, maneuver: str) -> Any:
    s_sheet = vt.sheet_of(d.s.combatants[speaker])
    t_sheet = vt.sheet_of(d.s.combatants[target])
    size = d.s.arguments[argument].size
    try:
        return social_attack_check(
            s_sheet, t_sheet, Size(size) if size else None, maneuver=maneuver,
            speaker_status=resolution.status_of(d, speaker),
            target_status=resolution.status_of(d, target),
            speaker_social=social_status_of(d, speaker),
            target_social=social_status_of(d, target),
            speaker_blocking=speaker in d.s.blocking, target_blocking=target in d.s.blocking,
            debate_over=d.s.debate_over, social_attack_skill=d.s.options.social_attack_skill,
            # "unaware of an attack, you lose your Intelligence bonus" (Intelligence Modifier):
            # in the surprise round (R42), or unaware of the attacks during the scene (R82)
            unaware=resolution.unaware_of_attacks(d.s, target))
    except RuleRefusal as exc:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, str(exc)) from None


def dispute(d: Engine, c: CombatantProfile, args: DisputeArgs) -> Callable[[], None]:
    """Standard action: Dispute (R26) — a social attack with a statement (``args.argument``)
    against the target's Wits Defense; a hit rolls the statement's damage + Charisma modifier,
    which the target answers (R48)."""
    target = _target(d, c, args.target)
    argument = _argument(d, c, args.argument)
    _check(d, c.id, target, argument, "Dispute")  # refuses before anything is recorded
    ctx = {"action": "dispute", "attacker": c.id, "target": target, "argument": argument}
    return lambda: roll_stage(d, ctx, "dispute", "1d20")


def after_roll(d: Engine, stage: str, ctx: dict[str, Any], roll: Roll) -> None:
    if stage == "dispute":
        _dispute_attack(d, ctx, roll)
    elif stage == "dispute_damage":
        _dispute_damage(d, ctx, roll)
    elif stage.startswith("conversation"):
        _conversation_step(d, stage, ctx, roll)
    elif stage.startswith("lie"):
        _lie_step(d, stage, ctx, roll)


def _use(d: Engine, argument: str, reason: str, steps: int = 1) -> None:
    """STATEMENTS: "A statement loses one size step every time it is used" (R27)."""
    size = d.s.arguments[argument].size
    _resize(d, argument, shrink(Size(size) if size else None, steps), reason)


def _resize(d: Engine, argument: str, size: Size | None, reason: str) -> None:
    """Record a statement's new size (``None``: spent), keeping its owner and text."""
    arg = d.s.arguments[argument]
    d.emit(ev.ArgumentChanged(argument=argument, combatant=arg.owner,
                              size=size.value if size else None, text=arg.text,
                              perilous=arg.perilous, reason=reason,
                              hidden=d.s.combatants[arg.owner].hidden),
           d.combatant_vis(arg.owner))


def _emit_social_attack(d: Engine, chk: Any, out: Any,
                        speaker: str, target: str, maneuver: str) -> None:
    outcome: Literal["hit", "critical", "miss", "automatic_miss"] = (
        "critical" if out.critical else "hit" if out.hit
        else "automatic_miss" if out.automatic == "miss" else "miss")
    d.emit(ev.AttackResolved(
        round=d.s.round, attacker=speaker, target=target, action=maneuver,
        weapon=f"argument ({chk.argument.value})", defense="wits", natural=out.natural,
        modifiers=list(chk.parts), total=out.total, defense_value=out.defense,
        defense_parts=list(chk.defense.parts), outcome=outcome,
        roll_secret=d.dice_vis(speaker) is not None,
        defense_secret=d.s.combatants[target].kind == "npc"), _vis(d, speaker, target))


def _dispute_attack(d: Engine, ctx: dict[str, Any], roll: Roll) -> None:
    speaker, target, argument = ctx["attacker"], ctx["target"], ctx["argument"]
    chk = _check(d, speaker, target, argument, "Dispute")
    out = social_outcome(chk, roll.total)
    _emit_social_attack(d, chk, out, speaker, target, "dispute")
    if out.hit:
        formula = argument_formula(vt.sheet_of(d.s.combatants[speaker]),
                                   chk.argument)
        roll_stage(d, {**ctx, "critical": out.critical, "size": chk.argument.value},
                   "dispute_damage", formula.dice)
    else:
        _use(d, argument, "used in a Dispute")


def _dispute_damage(d: Engine, ctx: dict[str, Any], roll: Roll) -> None:
    speaker, target, argument = ctx["attacker"], ctx["target"], ctx["argument"]
    formula = argument_formula(vt.sheet_of(d.s.combatants[speaker]),
                               Size(ctx["size"]))
    t_sheet = vt.sheet_of(d.s.combatants[target])
    dmg = damage_dealt(formula, roll.total, critical=bool(ctx.get("critical")),
                       reductions=t_sheet.damage_reduction)
    record_damage(d, target, speaker, formula, roll, dmg)
    _use(d, argument, "used in a Dispute")
    statement = f"st{len(d.s.answers) + d.s.version}"
    d.emit(ev.StatementHit(statement=statement, speaker=speaker, target=target, loss=dmg.dealt,
                           hidden=d.s.combatants[target].hidden), _vis(d, speaker, target))


def waiting_answers(state: EncounterState, cid: str, sees_all: bool = True) -> list[str]:
    """The statements waiting for ``cid``'s answer (R48)."""
    return [s for s, a in state.answers.items() if a.target == cid]


def may_answer(state: EncounterState, cid: str) -> str | None:
    if not any(a.target == cid for a in state.answers.values()):
        return f"no statement waits for {state.combatants[cid].name}'s answer (R48)"
    return None


def answer(d: Engine, c: CombatantProfile, args: AnswerArgs) -> Callable[[], None]:
    """The target answers a statement that hit it (R48): ``args.answer`` is ``accept``,
    ``accept_with_reservation`` or ``refuse``; ``args.statement`` which (default: the only
    one waiting)."""
    waiting = waiting_answers(d.s, c.id)
    statement = args.statement if args.statement is not None else (
        waiting[0] if len(waiting) == 1 else None)
    if statement is None or statement not in waiting:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, f"args.statement names a statement waiting "
                       f"for {c.name}'s answer: {', '.join(waiting) or 'none'}")
    return lambda: settle(d, statement, Answer(args.answer))


def settle(d: Engine, statement: str, given: Answer | None) -> None:
    """Apply an answer (``None``: no answer before the target's turn, which refuses): the
    loss, the mental track and the attitude toward the speaker (R26 step 4, R48, R77), then
    whether the debate ends (R26 step 5)."""
    pending = d.s.answers[statement]
    target, speaker = pending.target, pending.speaker
    answered = answer_statement(pending.loss, given)
    d.emit(ev.StatementAnswered(statement=statement, target=target,
                                answer=answered.answer.value,
                                loss=answered.loss, recorded=answered.recorded,
                                hidden=d.s.combatants[target].hidden), _vis(d, target, speaker))
    if answered.loss and d.s.vitals[target].alive:
        sheet, defs = resolution.defenses_of(d, target)
        threshold = damage_thresholds(sheet, defs,
                                      resolution.status_of(d, target)).mental.total
        who = d.public_name(speaker, target, unseen="")
        resolution.lose_fatigue(d, target, answered.loss, DamageSource.MENTAL, "dispute",
                                [f"refuses {who}'s statement" if who
                                 else "refuses the statement of someone unseen"])
        if answered.loss >= max(1, threshold):  # R26 step 4: the attitude follows the track
            before = attitude_of(d, target, speaker)
            after = shift(before, -1)
            if after != before:
                d.emit(ev.AttitudeChanged(holder=target, toward=speaker, attitude=after.value,
                                          reason="the statement reached the mental damage "
                                                 "threshold (R26)"), _vis(d, target, speaker))
    _maybe_end_debate(d)


def rule_doubt(d: Engine, cmd: msg.RuleDoubt) -> None:
    """STATEMENTS: "An argument can be accepted with reservation; then half the fatigue loss
    is still caused should the doubt turn out to have been unfounded" (R48): the GM's ruling
    on the doubt; an unfounded one costs the target half the recorded loss, rounded down, as
    a mental fatigue loss (the threshold counts, R45), its attitude unchanged (R77)."""
    waiting = {sid: a for sid, a in d.s.reservations.items() if a.target in d.s.combatants}
    pending = waiting.get(cmd.statement)
    if pending is None:
        raise Rejected(ErrorCode.NOT_FOUND, f"statement names one accepted with reservation "
                       f"whose doubt the GM has not ruled on (R48): "
                       f"{', '.join(sorted(waiting)) or 'none'}")
    target, speaker = pending.target, pending.speaker
    present = speaker in d.s.combatants  # (the speaker may have left the scene)
    loss = reservation_loss(pending.loss, doubt_unfounded=cmd.unfounded)
    d.emit(ev.DoubtRuled(statement=cmd.statement, target=target, unfounded=cmd.unfounded,
                         loss=loss, hidden=d.s.combatants[target].hidden),
           _vis(d, target, *([speaker] if present else [])))
    if loss and d.s.vitals[target].alive:
        who = d.public_name(speaker, target, unseen="someone unseen") if present else ""
        whose = f"the statement of {who}" if who else "the statement"
        resolution.lose_fatigue(d, target, loss, DamageSource.MENTAL, "dispute", [
            f"the doubt about {whose} proves unfounded: half its loss (R48)"])
    d.result = {"loss": loss}


def _maybe_end_debate(d: Engine) -> None:
    if d.s.debate_over or d.s.answers:
        return
    attitudes = [Attitude(a) for row in d.s.attitudes.values() for a in row.values()]
    if debate_ends(attitudes, dispute_ends_at_unfriendly=d.s.options.dispute_ends_at_unfriendly):
        d.emit(ev.DebateEnded(reason="an attitude reached Unfriendly (R26)"))


def unanswered_at_turn(d: Engine, cid: str) -> None:
    """R48: "A target that does not answer before its next turn starts refuses"."""
    for statement, pending in list(d.s.answers.items()):
        if pending.target == cid:
            settle(d, statement, None)


def block(d: Engine, c: CombatantProfile, args: Noted) -> Callable[[], None]:
    """Standard action: Blocking (R49) — +5 Wits Defense against every social maneuver until it
    stops, and no arguments of its own (while Blocking already: refused, ``may_block``)."""
    return lambda: d.emit(ev.BlockingChanged(combatant=c.id, blocking=True, hidden=c.hidden),
                          d.combatant_vis(c.id))


def may_block(state: EncounterState, cid: str) -> str | None:
    if cid in state.blocking:
        return f"{state.combatants[cid].name} is Blocking already"
    return None


def may_stop_blocking(state: EncounterState, cid: str) -> str | Refusal | None:
    if cid not in state.blocking:
        return f"{state.combatants[cid].name} is not Blocking"
    if state.current != cid:
        return Refusal("Blocking stops on the blocker's own turn (R49)", ErrorCode.NOT_YOUR_TURN)
    return None


def stop_blocking(d: Engine, c: CombatantProfile, args: Noted) -> Callable[[], None]:
    """Free action on its own turn: back into the discussion (R49; ``may_stop_blocking``)."""
    return lambda: d.emit(ev.BlockingChanged(combatant=c.id, blocking=False, hidden=c.hidden),
                          d.combatant_vis(c.id))


# --- Conversation (R27) -----------------------------------------------------------------------


def converse(d: Engine, c: CombatantProfile, args: ConversationArgs) -> Callable[[], None]:
    """Standard action: Conversation (R27) — both sides roll a social attack with their
    arguments (``args.argument``, and the target's ``args.against``) against the other's Wits;
    the net damage may shrink the loser's argument; nobody loses fatigue points."""
    target = _target(d, c, args.target)
    mine = _argument(d, c, args.argument)
    theirs = _argument(d, d.s.combatants[target], args.against)
    _check(d, c.id, target, mine, "Conversation")
    _check(d, target, c.id, theirs, "Conversation")
    ctx = {"action": "conversation", "attacker": c.id, "target": target, "argument": mine,
           "against": theirs}
    return lambda: roll_stage(d, ctx, "conversation_a", "1d20")


def _conversation_step(d: Engine, stage: str, ctx: dict[str, Any], roll: Roll) -> None:
    a, b = ctx["attacker"], ctx["target"]
    if stage in ("conversation_a", "conversation_b"):
        speaker, other, arg = (a, b, ctx["argument"]) if stage == "conversation_a" \
            else (b, a, ctx["against"])
        chk = _check(d, speaker, other, arg, "Conversation")
        out = social_outcome(chk, roll.total)
        _emit_social_attack(d, chk, out, speaker, other, "conversation")
        ctx = {**ctx, f"hit_{stage[-1]}": out.hit, f"crit_{stage[-1]}": out.critical}
        if stage == "conversation_a":
            roll_stage(d, ctx, "conversation_b", "1d20", roller=b)
            return
        _conversation_damage(d, ctx, "a")
        return
    side = stage[-1]
    ctx = {**ctx, f"damage_{side}": _argument_damage(d, ctx, side, roll)}
    _conversation_damage(d, ctx, "b" if side == "a" else None)


def _argument_damage(d: Engine, ctx: dict[str, Any], side: str, roll: Roll) -> int:
    speaker, other, arg = (ctx["attacker"], ctx["target"], ctx["argument"]) if side == "a" \
        else (ctx["target"], ctx["attacker"], ctx["against"])
    size = Size(d.s.arguments[arg].size or "fine")
    formula = argument_formula(vt.sheet_of(d.s.combatants[speaker]), size)
    t_sheet = vt.sheet_of(d.s.combatants[other])
    return damage_dealt(formula, roll.total, critical=bool(ctx.get(f"crit_{side}")),
                        reductions=t_sheet.damage_reduction).dealt


def _conversation_damage(d: Engine, ctx: dict[str, Any], side: str | None) -> None:
    """Roll the damage of each side that hit, in turn; then settle the exchange."""
    while side is not None:
        if ctx.get(f"hit_{side}") and f"damage_{side}" not in ctx:
            arg = ctx["argument"] if side == "a" else ctx["against"]
            speaker = ctx["attacker"] if side == "a" else ctx["target"]
            size = Size(d.s.arguments[arg].size or "fine")
            formula = argument_formula(vt.sheet_of(d.s.combatants[speaker]), size)
            roll_stage(d, ctx, f"conversation_damage_{side}", formula.dice, roller=speaker)
            return
        side = "b" if side == "a" else None
    sides = []
    for s, arg in (("a", ctx["argument"]), ("b", ctx["against"])):
        # R27: a losing argument shrinks when the net reaches its own side's (its owner's)
        # Mental Damage Threshold
        owner = d.s.arguments[arg].owner
        sheet, defs = resolution.defenses_of(d, owner)
        sides.append(ConversationSide(
            argument=Size(d.s.arguments[arg].size or "fine"), hit=bool(ctx.get(f"hit_{s}")),
            damage=ctx.get(f"damage_{s}", 0),
            threshold=damage_thresholds(sheet, defs,
                                        resolution.status_of(d, owner)).mental.total))
    result = conversation(sides[0], sides[1])
    for arg, after in ((ctx["argument"], result.arguments[0]),
                       (ctx["against"], result.arguments[1])):
        reason = "used in a Conversation (R27)"
        if result.loser is not None and arg == (ctx["argument"], ctx["against"])[result.loser] \
                and result.loser_shrinks:
            reason = (f"lost the Conversation by {result.net}: one size for the loss, one "
                      "for the use (R27)")
        _resize(d, arg, after, reason)


# --- lies (R28) -------------------------------------------------------------------------------


def lie(d: Engine, c: CombatantProfile, args: LieArgs) -> Callable[[], None]:
    """Standard action: a lie (Creating a Lie; R28) — Deception against the best Empathy of the
    targets (``args.targets``, or ``args.target``), the lie's ``args.size`` (default
    ``medium``) making it harder;
    ``args.white`` for a white lie, ``args.perilous`` when the GM rules it perilous (then the
    caught lie's statement may exceed Huge), ``args.text`` what is said."""
    raw = args.targets or ([args.target] if args.target is not None else [])
    if not raw:
        raise Rejected(ErrorCode.INVALID_PAYLOAD, "args.targets lists who is lied to")
    targets = [_target(d, c, t) for t in raw]
    size = Size(args.size)
    _lie_check(d, c.id, targets, size)
    ctx = {"action": "lie", "attacker": c.id, "targets": targets, "size": size.value,
           "white": args.white, "perilous": args.perilous, "text": args.text}
    return lambda: roll_stage(d, ctx, "lie_deception", "1d20")


def _lie_check(d: Engine, liar: str, targets: list[str], size: Size) -> Any:
    try:
        return lie_check(vt.sheet_of(d.s.combatants[liar]),
                         [vt.sheet_of(d.s.combatants[t]) for t in targets], size,
                         liar_status=resolution.status_of(d, liar),
                         target_statuses=[resolution.status_of(d, t) for t in targets],
                         liar_blocking=liar in d.s.blocking)
    except RuleRefusal as exc:
        raise Rejected(ErrorCode.ILLEGAL_ACTION, str(exc)) from None


def _lie_step(d: Engine, stage: str, ctx: dict[str, Any], roll: Roll) -> None:
    targets = ctx["targets"]
    chk = _lie_check(d, ctx["attacker"], targets, Size(ctx["size"]))
    judge = targets[chk.judge]
    if stage == "lie_deception":
        roll_stage(d, {**ctx, "deception": roll.total}, "lie_empathy", "1d20", roller=judge)
        return
    out = lie_outcome(chk, ctx["deception"], roll.total, white=ctx["white"],
                      perilous=ctx.get("perilous", False),
                      white_lie_statement=d.s.options.white_lie_statement)
    liar = ctx["attacker"]
    vis = _vis(d, liar, *targets)
    d.emit(ev.LieTold(liar=liar, targets=targets, size=ctx["size"], white=ctx["white"],
                      deception_total=out.deception_total, empathy_total=out.empathy_total,
                      judge=judge, believed=out.believed), vis)
    if out.believed:
        return
    for t in targets:
        if out.statement is not None:
            argument = f"arg{len(d.s.arguments) + 1}"
            # Creating a Lie: "the Lie can be used as a one Size bigger statement against the
            # liar": a statement of one the table sees is at the table (R79), but not the GM's
            # words of what a hidden liar said (R97)
            said = ctx["text"] if not d.hidden(liar) or d.hidden(t) else ""
            d.emit(ev.ArgumentChanged(argument=argument, combatant=t, size=out.statement.value,
                                      text=f"the lie: {said}" if said else "a caught lie",
                                      reason="a caught lie (R28)", hidden=d.hidden(t)),
                   d.combatant_vis(t))
        if out.attitude_steps:
            after = shift(attitude_of(d, t, liar), out.attitude_steps)
            d.emit(ev.AttitudeChanged(holder=t, toward=liar, attitude=after.value,
                                      reason="caught lying (R28)"), vis)
    _maybe_end_debate(d)
