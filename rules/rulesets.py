"""The rulesets an encounter can name at creation, and what each decides.

The pure part of a ruleset: what a roll is, how initiative ties break, whether a stat block is
usable, what a turn's budget is. Each ruleset's declaration (``rulesets/<name>``, interpreted
by the engine through ``encounter.ruleset``) names one of these as its ``rules``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from rules.action_time.dice_ladder import DieError, parse_die
from rules.action_time.turn_budget import ECONOMY as ACTION_TIME_ECONOMY
from rules.actions import DRAMATIC, Budget, Economy
from rules.sheet import SheetError, parse_sheet
from rules.social.sheet import parse_social

DIE_LADDER = (4, 6, 8, 10, 12, 20)


class RulesetError(ValueError):
    """A stat block that this ruleset cannot use."""


class CombatantLike(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def initiative_mod(self) -> int: ...
    @property
    def stats(self) -> dict[str, Any]: ...


class Ruleset(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def title(self) -> str: ...

    def validate_stats(self, stats: dict[str, Any]) -> None: ...
    def initiative_expr(self, combatant: CombatantLike) -> str: ...
    def initiative_tiebreak(self, combatant: CombatantLike) -> tuple[int, ...]: ...
    @property
    def economy(self) -> Economy: ...

    def turn_budget(self, single_action: bool) -> Budget: ...


@dataclass(frozen=True)
class DramaticSystems:
    """"MLP Dramatic Systems" (d20)."""

    name: str = "dramatic"
    title: str = "MLP Dramatic Systems"

    def validate_stats(self, stats: dict[str, Any]) -> None:
        """The stat block's ``stats`` must be a Dramatic sheet (``rules.sheet``), its
        ``social`` part included (``rules.social.sheet``)."""
        try:
            sheet = parse_sheet(stats)
            parse_social(stats)
        except SheetError as exc:
            raise RulesetError(str(exc)) from None
        unknown = sheet.unknown_feats()
        if unknown:  # R93: a name the server does not know needs what it does declared
            raise RulesetError(
                f"stats.feats: {', '.join(map(repr, unknown))}: not a feat the server knows "
                "(docs/stat-blocks.md); declare a homebrew feat in stats.homebrew_feats with "
                "its modifiers")

    def initiative_expr(self, combatant: CombatantLike) -> str:
        """INITIATIVE CHECKS: "each player makes an Initiative skill check"; a check is 1d20 plus
        the modifier, as the group check spells out ("rolling 1d20 and adding the lowest
        Initiative check modifier in the group")."""
        mod = combatant.initiative_mod
        return "1d20" if mod == 0 else f"1d20{mod:+d}"

    def initiative_tiebreak(self, combatant: CombatantLike) -> tuple[int, ...]:
        """INITIATIVE CHECKS: "If two characters involved have the same Initiative check result,
        the character with the highest Initiative check modifier acts first." (ruling R5)"""
        return (combatant.initiative_mod,)

    @property
    def economy(self) -> Economy:
        return DRAMATIC

    def turn_budget(self, single_action: bool) -> Budget:
        """ACTIONS IN COMBAT: a standard, a move and a swift action; THE SURPRISE ROUND (and 0
        fatigue points, R14.5): a single standard, move or swift action."""
        return DRAMATIC.fresh(single_action)


def ability_die(stats: dict[str, Any], ability: str) -> int:
    """The sides of an "Action Time" ability die, written as the stat sheet takes it (``"d8"``,
    ``"1d8"`` or ``8``: ``rules.action_time.dice_ladder.parse_die``)."""
    try:
        return parse_die(stats.get(ability), ability)
    except DieError as exc:
        raise RulesetError(str(exc)) from None


@dataclass(frozen=True)
class ActionTime:
    """"Action Time" (Tails of Thedastria): abilities are dice."""

    name: str = "action_time"
    title: str = "Action Time"

    def validate_stats(self, stats: dict[str, Any]) -> None:
        """The stat block's ``stats`` must be an Action Time sheet (ruling R60)."""
        from rules.action_time.sheet import SheetError as AtSheetError
        from rules.action_time.sheet import parse_sheet as parse_at_sheet

        try:
            parse_at_sheet(stats)
        except AtSheetError as exc:
            raise RulesetError(str(exc)) from None

    def initiative_expr(self, combatant: CombatantLike) -> str:
        """Action Time: "Each player makes an initiative roll. This is a Body test." """
        return f"1d{ability_die(combatant.stats, 'body')}"

    def initiative_tiebreak(self, combatant: CombatantLike) -> tuple[int, ...]:
        """Action Time: "If there's a tie, players before NPCs. If it's still a tie, whoever has
        the higher ability wins." The ability is the Body die (ruling R31)."""
        return (1 if combatant.kind == "pc" else 0, ability_die(combatant.stats, "body"))

    @property
    def economy(self) -> Economy:
        return ACTION_TIME_ECONOMY

    def turn_budget(self, single_action: bool) -> Budget:
        """Action Time: "one major and one minor action, or two minor actions": its own major
        and minor slots (``rules.action_time.turn_budget.ECONOMY``)."""
        return ACTION_TIME_ECONOMY.fresh(single_action)
