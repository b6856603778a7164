"""Per-viewer views: what each connection may see of the state and of each event.

One function decides for snapshots, live events and replays alike, so a viewer sees the same
thing whichever way it arrives. The GM sees everything; a player sees its own combatants in
full and the others as the table would (no hidden combatants, no GM-only rolls, no NPC stat
blocks); a spectator sees the public view.
"""

from __future__ import annotations

from typing import Any

import msgspec

from encounter.actors import Actor
from encounter.ruleset import declaration
from encounter.screen import screened_event
from encounter.state import EncounterState, PendingRoll
from protocol import events as ev
from protocol.events import Envelope


def may_see(envelope: Envelope, viewer: Actor) -> bool:
    if envelope.vis is None:
        return True
    return not viewer.audiences().isdisjoint(envelope.vis)


def view_event(envelope: Envelope, viewer: Actor) -> ev.AnyEvent | None:
    """The event as ``viewer`` may see it, or ``None`` when it may not see it at all."""
    if not may_see(envelope, viewer):
        return None
    event = envelope.event
    if viewer.sees_all:
        return event
    if screened_event(event):
        return None
    if isinstance(event, ev.CombatantJoined):
        # hidden combatants take no place in the order this viewer sees
        return ev.CombatantJoined(entry=event.entry, position=event.public_position,
                                  public_position=event.public_position)
    if isinstance(event, ev.OrderChanged):
        return msgspec.structs.replace(event, position=event.public_position)
    if isinstance(event, ev.InitiativeSet):
        entries = [e for e in event.entries if not e.hidden]
        if len(entries) != len(event.entries):
            return ev.InitiativeSet(entries=entries)
    if isinstance(event, ev.VitalsChanged):
        if event.fatigue_secret and event.combatant not in viewer.combatants:
            return msgspec.structs.replace(event, fatigue=None, fatigue_max=None)
        return event
    if isinstance(event, ev.AttackResolved):
        return _attack_view(event, viewer)
    if isinstance(event, ev.DamageDealt):
        if event.dice_secret and event.target not in viewer.combatants:
            # the GM's dice behind the screen: the loss is known, not how it was made up
            return msgspec.structs.replace(event, rolled=None, before_reduction=None)
        return event
    if isinstance(event, ev.CombatantAdded | ev.CombatantRevealed):
        c = event.combatant
        if c.id not in viewer.combatants:
            public = msgspec.structs.replace(c, stats={})
            return type(event)(combatant=public)
        return event
    return _others_view(event, viewer)


def _others_view(event: ev.AnyEvent, viewer: Actor) -> ev.AnyEvent:
    """What an event visible to ``viewer`` says of what it may not know: hidden combatants
    named in passing (whose turn it was, who healed), the server's bookkeeping of a roll, the
    GM's roll requests."""
    if isinstance(event, ev.RollRequested):
        if event.context is not None or event.hidden:
            return msgspec.structs.replace(
                event, context=None, combatant=None if event.hidden else event.combatant)
    elif isinstance(event, ev.DiceRolled):
        replace: dict[str, object] = {}
        if event.hidden:
            replace["combatant"] = None
        if event.gm_request and not viewer.answers_gm_rolls:
            replace["request"] = None
        if replace:
            return msgspec.structs.replace(event, **replace)
    elif isinstance(event, ev.ReadiedActionTriggered):
        if event.interrupting_hidden:
            return msgspec.structs.replace(event, interrupting=None)
    elif isinstance(event, ev.DelayedTurnRequested):
        if event.after_hidden:
            return msgspec.structs.replace(event, after=None)
    elif isinstance(event, ev.AtEffectStarted | ev.AtEffectEnded):
        if event.origin_hidden:
            return msgspec.structs.replace(
                event, effect=msgspec.structs.replace(event.effect, origin=""))
    elif isinstance(event, ev.EffectStarted) and event.origin_hidden:
        return msgspec.structs.replace(event, origin=None)
    elif isinstance(event, ev.SocialEventSet) and event.organizer_hidden:
        return msgspec.structs.replace(event, organizer=None)
    return event


def _attack_view(event: ev.AttackResolved, viewer: Actor) -> ev.AttackResolved:
    """Players see every modifier and the outcome of an attack; not the numbers of a roll
    made behind the GM's screen, nor the defense of a stat block they do not hold."""
    replace: dict[str, object] = {}
    if event.roll_secret and event.attacker not in viewer.combatants:
        replace.update(natural=None, total=None)
    if event.defense_secret and event.target not in viewer.combatants:
        replace.update(defense_value=None, defense_parts=None)
    return msgspec.structs.replace(event, **replace) if replace else event


def _sees_request(state: EncounterState, viewer: Actor, roller: str) -> bool:
    """As the ``roll_requested`` event's visibility: a player character's request is public
    (unless it is hidden), the GM's is for the GM and ``roll`` integrations."""
    if viewer.sees_all:
        return True
    if roller == "gm":
        return "roll" in viewer.scopes
    return state.visible_combatant(roller)


def _pending_view(pending: PendingRoll, visible: set[str], full: bool) -> dict[str, Any]:
    """A roll request as in its ``roll_requested`` event for this viewer: its ``context`` is
    the GM's; a dice tower is not told whose hidden roll it answers."""
    view: dict[str, Any] = msgspec.to_builtins(pending)
    if not full:
        view["context"] = None
        if pending.combatant not in visible:
            view["combatant"] = None
    return view


def untagged(event: ev.Event) -> dict[str, Any]:
    data: dict[str, Any] = msgspec.to_builtins(event)
    data.pop("kind", None)
    return data


def _turn_view(state: EncounterState, visible: set[str]) -> dict[str, Any] | None:
    """The running turn: whose, what is left of its budget, whether a readied action
    interrupts it (everyone at the table sees this)."""
    turn = state.turn
    if turn is None or turn.combatant not in visible:
        return None
    view: dict[str, Any] = msgspec.to_builtins(turn)
    if turn.interrupted_by is not None and turn.interrupted_by not in visible:
        view["interrupted_by"] = None
    del view["was_flat_footed"]
    return view


def view_state(state: EncounterState, viewer: Actor) -> dict[str, Any]:
    """The snapshot of ``state`` for ``viewer``, as plain JSON-ready data."""
    full = viewer.sees_all
    rules = declaration(state.ruleset)
    combatants = []
    for c in state.combatants.values():
        if c.hidden and not full:
            continue
        entry = msgspec.to_builtins(c)
        if not (full or c.id in viewer.combatants):
            entry["stats"] = {}
        entry["controlled"] = viewer.controls(state, c.id)
        # the size of its space is there for all to see on the map
        entry["size"] = rules.size_of(c) if rules.size_of is not None else None
        v = state.vitals.get(c.id)
        if v is not None:
            vitals = msgspec.to_builtins(v)
            if c.kind == "npc" and not (full or c.id in viewer.combatants):
                vitals["fatigue"] = vitals["fatigue_max"] = None  # behind the GM's screen
            entry["vitals"] = vitals
        combatants.append(entry)
    visible = {c["id"] for c in combatants}
    current = state.current if state.current in visible else None
    view: dict[str, Any] = {
        "id": state.id,
        "name": state.name,
        "ruleset": state.ruleset,
        "phase": state.chart,
        "round": state.round,
        "current": current,
        "combatants": combatants,
        # the states of a conscious combatant's condition that put it out of the fight
        "out_of_fight": list(rules.out_of_fight),
        "order": [cid for cid in state.order if cid in visible],
        "initiative": [
            msgspec.to_builtins(state.initiative[cid])
            for cid in state.order if cid in visible and cid in state.initiative
        ],
        "flat_footed": [cid for cid in state.flat_footed if cid in visible],
        # protocol 1's parts of the view that are Dramatic's (``rulesets.dramatic.views``) for
        # every ruleset: empty unless the ruleset's view parts fill them
        "flying": [],
        "turn": _turn_view(state, visible),
        "delaying": [cid for cid in state.delaying if cid in visible],
        "readied": {
            cid: msgspec.to_builtins(r) for cid, r in state.readied.items()
            if cid in visible and (full or viewer.controls(state, cid))
        },
        "effects": [untagged(e if e.origin is None or e.origin in visible
                             else msgspec.structs.replace(e, origin=None))
                    for e in state.effects.values()
                    if e.combatant is None or e.combatant in visible],
        "pending_rolls": [
            _pending_view(p, visible, full) for p in state.pending_rolls.values()
            if _sees_request(state, viewer, p.roller)
        ],
        "map": msgspec.to_builtins(state.battle_map) if state.battle_map else None,
        "positions": {cid: list(at) for cid, at in state.positions.items() if cid in visible},
        "grabs": {},
        "arguments": {},
        "attitudes": {},
        "blocking": [],
        "answers": {},
        "debate_over": False,
        # a part of protocol 1's view for every ruleset; its value is a ruleset's (Dramatic's)
        "social": None,
        "ended": state.ended,
        "end_reason": state.end_reason,
        "created_ts": state.created_ts,
    }
    # whose stat blocks this viewer sees (``entry["stats"]``) sees their computed numbers too
    stats = {cid for cid in visible if full or cid in viewer.combatants}
    for part in rules.views:
        found = part(state, visible, lambda c: viewer.controls(state, c), full, stats)
        if found is not None:
            view[found[0]] = found[1]
    if full:
        # unaware of the attacks made on them (R82): the GM's call, as ``awareness_set`` is
        view["unaware"] = list(state.unaware)
        view["options"] = msgspec.to_builtins(state.options)
        view["tokens"] = [msgspec.to_builtins(t) for t in state.tokens.values()]
    else:
        view["options"] = {
            "players_roll": state.options.players_roll,
            "npc_rolls_public": state.options.npc_rolls_public,
        }
    return view
