"""Who may make and who may receive a social maneuver (HELPLESS CONDITION, Falling Unconscious,
Blocking; rulings R47, R49).

Public API:

- ``ensure_may_argue(actor, *, blocking, maneuver) -> None`` — an unconscious creature takes no
  actions; a blocking creature uses no argument of any size (R49).
- ``ensure_may_be_addressed(target, *, maneuver) -> None`` — no social maneuver against an
  unconscious target (R47).
"""

from __future__ import annotations

from rules.defenses import Status
from rules.modifiers import RuleRefusal


def ensure_may_argue(actor: Status, *, blocking: bool, maneuver: str) -> None:
    """Refuse a statement, argument or lie by an unconscious creature (Falling Unconscious) or by
    one that is Blocking (R49: "you can not use any Argument of any size")."""
    if actor.is_unconscious:
        raise RuleRefusal(f"Falling Unconscious: an unconscious creature cannot use {maneuver}")
    if blocking:
        raise RuleRefusal(f"Blocking: no argument of any size while blocking ({maneuver} "
                          "refused; stop blocking on your turn, ruling R49)")


def ensure_may_be_addressed(target: Status, *, maneuver: str) -> None:
    """R47: a social maneuver against an unconscious target is refused."""
    if target.is_unconscious:
        raise RuleRefusal(f"HELPLESS CONDITION: {maneuver} against an unconscious target is "
                          "pointless and refused (ruling R47)")
