"""Perception checks for awareness, the GM's ``call_perception`` ("MLP Dramatic Systems",
AWARENESS AND SURPRISE: Determining Awareness; CONCEALMENT; R42, R80-R82)."""

from __future__ import annotations

from typing import Any

from encounter.boundary import Engine
from encounter.decision import find_combatant
from encounter.rejected import Rejected
from protocol import events as ev
from protocol import messages as msg
from protocol.errors import ErrorCode
from rules.attack import Concealment, perception_modifiers
from rules.dice import Roll, roll_faces
from rules.modifiers import Modifier


def call_perception(d: Engine, cmd: msg.CallPerception) -> None:
    """Determining Awareness: "She may call for Perception checks" — before the scene, or
    during it (R82). Each check is 1d20 + the stat block's ``perception`` modifier, -5 against
    concealment and -10 against total concealment (CONCEALMENT), or 10 + the modifier with
    ``take_10`` (R81); the dice are the combatant's, physical ones asked for (R80). With a
    ``dc`` it sets awareness from the result (meeting the DC succeeds): before the scene,
    whether the combatant is aware as it starts (R42); during it, whether it is aware of the
    attacks it tries to notice — one unaware loses its Dexterity bonus against them (R82)."""
    phase = d.s.chart[0]
    if phase not in ("setup", "scene"):
        raise Rejected(ErrorCode.ILLEGAL_ACTION, "Perception checks for awareness come before "
                       "the scene starts or during it")
    for cid in cmd.combatants or list(d.s.combatants):
        c = find_combatant(d, cid)
        mod = c.stats.get("perception", 0)
        if isinstance(mod, bool) or not isinstance(mod, int):
            raise Rejected(ErrorCode.INVALID_PAYLOAD, f"{c.name}: stats.perception is a number")
        if phase == "scene" and not d.s.vitals[cid].conscious:
            continue  # the unconscious notice nothing (Falling Unconscious)
        expr = "1d20" if mod == 0 else f"1d20{mod:+d}"
        ctx = {"action": "perception", "combatant": cid, "modifier": mod, "dc": cmd.dc,
               "concealment": cmd.concealment, "in_scene": phase == "scene",
               "take_10": cmd.take_10}
        if cmd.take_10:
            perception_rolled(d, ctx, roll_faces(expr, [10]))
        elif d.is_manual(cid):
            d.request_roll(expr, "perception", cid, context=ctx)
        else:
            perception_rolled(d, ctx, d.server_roll(expr, "perception", cid))


def perception_rolled(d: Engine, ctx: dict[str, Any], roll: Roll) -> None:
    """A Perception check's die is in: the check (to the GM), and awareness with a DC."""
    cid = ctx["combatant"]
    section = "AWARENESS AND SURPRISE: Determining Awareness; CONCEALMENT (R82)"
    parts = [Modifier("Perception", ctx["modifier"], section),
             *perception_modifiers(Concealment(ctx["concealment"]))]
    total = roll.total + sum(p.value for p in parts[1:])
    dc = ctx["dc"]
    success = dc is None or total >= dc
    d.emit(ev.CheckMade(combatant=cid, check="perception", natural=roll.total - ctx["modifier"],
                        modifiers=parts, total=total, dc=dc, success=success, section=section,
                        took_10=ctx["take_10"], hidden=d.hidden(cid)), ["gm"])
    if dc is not None:
        d.emit(ev.AwarenessSet(combatant=cid, aware=success, in_scene=ctx["in_scene"]), ["gm"])
