"""Health, damage and the healed mark (rulings R29 and R33; the text names Health but never
defines it).

R29: the stat block gives the maximum Health; a hit deals the weapon's damage die in Health;
Health does not go below 0, and at 0 a combatant is out of the fight (its turns pass without
actions) until healed above 0. R33: a combatant healed by a Heal action is marked, and cannot
benefit from another until it next loses 1 or more Health.

Public API: :class:`Vitals`, :func:`vitals_for`, :func:`take_damage`, :func:`restore`.
"""

from __future__ import annotations

import msgspec


class Vitals(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """A combatant's Health now, its maximum, and whether it was healed since it last lost
    Health (R33)."""

    health: int
    max_health: int
    healed: bool = False

    @property
    def out_of_fight(self) -> bool:
        """R29: at 0 Health a combatant's turns pass without actions."""
        return self.health <= 0

    @property
    def injured(self) -> bool:
        return self.health < self.max_health


def vitals_for(max_health: int) -> Vitals:
    """Full Health at the start of a scene."""
    return Vitals(health=max_health, max_health=max_health)


def take_damage(vitals: Vitals, amount: int) -> Vitals:
    """R29: lose ``amount`` Health, not below 0. Losing 1 or more clears the healed mark (R33)."""
    if amount < 0:
        raise ValueError("damage cannot be negative")
    lost = min(amount, vitals.health)
    return msgspec.structs.replace(vitals, health=vitals.health - lost,
                                   healed=vitals.healed and lost == 0)


def restore(vitals: Vitals, amount: int, *, mark_healed: bool = True) -> Vitals:
    """Regain ``amount`` Health, up to the maximum (R33); a Heal marks the target healed."""
    if amount < 0:
        raise ValueError("healing cannot be negative")
    return msgspec.structs.replace(vitals, health=min(vitals.max_health, vitals.health + amount),
                                   healed=vitals.healed or mark_healed)
