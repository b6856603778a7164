"""The social system of "MLP Dramatic Systems" (SOCIAL SYSTEMS to the end of the text; rulings
R25-R28, R40, R47-R49 and R70-R76 in docs/rulings.md), as pure functions over plain data.

One job per module:

- ``sheet`` — the social statistics of a stat block (``stats["social"]``): ``parse_social``.
- ``status`` — Social Status, its situation modifiers, related status, the maneuver modifier by
  status difference (R40) and maneuvers not usable against a higher status.
- ``access`` — Social Access Rating and the Aura of Harmony/Discord by the difference to the
  Event Rating (R25).
- ``events`` — Event Rating, the temporary status boost of events, the challenge rating.
- ``statements`` — statement sizes, their damage, the per-use size loss and answering (R48).
- ``attitude`` — the attitude ladder (R25) per pair of characters.
- ``guards`` — who may make or receive social maneuvers (R47, R49).
- ``lies`` — Deception against Empathy, caught and white lies (R28).
- ``maneuvers`` — the social attack roll, Dispute (R26), Conversation (R27), Blocking (R49).
"""
