""""Action Time" (Tails of Thedastria): the pure game mechanics of the second ruleset.

Rule text: ``../shared/rules/action-time.txt``; rulings R29-R39, R51 and R60 onwards in
``docs/rulings.md``. Nothing here does I/O or rolls dice: a function that needs a roll takes
the face shown, so the server can roll with a recorded seed or wait for physical dice. Results
are frozen msgspec Structs.

Modules, smallest first:

- :mod:`~rules.action_time.options` — the encounter options these rules read (:class:`AtOptions`).
- :mod:`~rules.action_time.dice_ladder` — ability dice, upgrades and downgrades (R30).
- :mod:`~rules.action_time.effects` — the stacking rule and when effects end (R51, R61).
- :mod:`~rules.action_time.checks` — tests against a Difficulty and opposed tests (R29, R38).
- :mod:`~rules.action_time.sheet` — the stat sheet read from a stat block's ``stats`` (R60).
- :mod:`~rules.action_time.health` — Health, damage and the healed mark (R29, R33).
- :mod:`~rules.action_time.turn_budget` — one major and one minor, or two minors (R51).
- :mod:`~rules.action_time.actions` — the major and minor actions and how each resolves.

A rule failure that the server should answer with ``illegal_action`` raises
:class:`rules.actions.IllegalAction` (the same class the Dramatic ruleset raises).
"""
