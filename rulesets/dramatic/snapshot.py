"""What the parts of a snapshot's ``state`` that are "MLP Dramatic Systems"' own hold
(``rulesets.dramatic.views`` builds them; ``Declaration.view`` names :class:`DramaticView`):
who is in the air and who grabs whom, the social scene, and each combatant's numbers. The
published schema of the snapshot (``python -m docgen``) composes them with the protocol's
(``protocol.snapshot``)."""

from __future__ import annotations

from typing import Annotated

import msgspec

from protocol.snapshot import doc
from rules.modifiers import Modifier
from rules.social.access import Aura
from rules.social.attitude import Attitude

Combatants = list[str]


class ArgumentView(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A statement a combatant can use in a social maneuver (STATEMENTS)."""

    owner: Annotated[str, doc("The combatant whose statement it is.")]
    size: Annotated[str | None, doc("Its size (`tiny` ... `large`); `null` once spent.")]
    text: Annotated[str, doc("What it says.")]
    perilous: Annotated[bool, doc("A perilous statement (R28).")]


class AnswerView(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A statement that hit and waits for its target's answer, or for the GM's ruling on the
    doubt of its target's reservation (R48)."""

    speaker: Annotated[str | None, doc("Who made it (`null`: a hidden speaker).")]
    target: Annotated[str, doc("Who answers it.")]
    loss: Annotated[int, doc(
        "What it costs the target if it does not answer (a reservation's: the loss "
        "recorded).")]


class SocialEventView(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The social event of the scene, as the `social_event_set` event gives it (without
    `kind`): its Event Rating and its parts (SOCIAL EVENTS; R25, R71)."""

    rating: Annotated[int | None, doc("The Event Rating (`null`: no event).")]
    parts: Annotated[list[Modifier], doc("The rating's parts, itemised.")]
    organizer: Annotated[str | None, doc(
        "The organiser (`null`: none, or one hidden from this viewer).")]
    organizer_hidden: Annotated[bool, doc("The organiser is a hidden combatant.")]
    circle: Annotated[str | None, doc("The social circle the event is held in.")]
    topic: Annotated[str | None, doc("Its topic.")]
    encounter: Annotated[int, doc("Which encounter of the event this is (from 1).")]
    last: Annotated[bool, doc("Whether it is the event's last encounter.")]
    challenge_rating: Annotated[int | None, doc("Its challenge rating, if the GM gave one.")]


class StandingView(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A combatant's standing at the scene's event (SOCIAL SYSTEMS; R25, R70-R73)."""

    status: Annotated[int, doc("Social Status, with the situation the GM set (R70).")]
    status_parts: Annotated[list[Modifier], doc("Its parts, itemised.")]
    access: Annotated[int | None, doc(
        "Social Access Rating at the event (R72); `null` without an event.")]
    aura: Annotated[Aura | None, doc(
        "The aura of harmony or discord the gap to the Event Rating makes (R25, R73); "
        "`null` without an event.")]
    harmony: Annotated[int, doc("Harmony points.")]
    discord: Annotated[int, doc("Discord points.")]


class SocialView(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The social event and each visible combatant's standing at it."""

    event: Annotated[SocialEventView | None, doc("The social event (`null`: none).")]
    standing: Annotated[dict[str, StandingView], doc("Each visible combatant's, by id.")]


class DefenseView(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A defense as the next attack reads it, every part itemised as
    `attack_resolved.defense_parts` is."""

    total: Annotated[int, doc("The defense.")]
    parts: Annotated[list[Modifier], doc("Its parts.")]


class DefensesView(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The four defenses (DEFENSES): effects, feats, species and conditions included (R90,
    R92)."""

    reflex: DefenseView
    fortitude: DefenseView
    will: DefenseView
    wits: DefenseView


class NumbersView(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """A combatant's numbers as the rules compute them now."""

    defenses: Annotated[DefensesView, doc("The four defenses, itemised.")]
    speed: Annotated[int, doc(
        "The speed a move counts, in squares: effects and the condition track included "
        "(SPEED; R15, R90).", extra_json_schema={"x-unit": "squares"})]
    fly_speed: Annotated[int | None, doc(
        "The same for a flying move (R83); `null` without a fly speed.",
        extra_json_schema={"x-unit": "squares"})]
    speed_modifiers: Annotated[list[Modifier], doc(
        "The effects' modifiers on speed (R90, R92).")]


class DramaticView(msgspec.Struct, kw_only=True, forbid_unknown_fields=True):
    """The parts of the view that are "MLP Dramatic Systems"' own."""

    flying: Annotated[Combatants, doc(
        "The combatants in the air after a flying move (R83), there for all to see.")]
    grabs: Annotated[dict[str, Combatants], doc(
        "Grabbed combatants and who grabs them (Grab), as far as this viewer sees them.")]
    arguments: Annotated[dict[str, ArgumentView], doc(
        "The statements of the visible combatants, by id (STATEMENTS).")]
    attitudes: Annotated[dict[str, dict[str, Attitude]], doc(
        "Attitudes: holder -> toward -> attitude (R25).")]
    blocking: Annotated[Combatants, doc("The combatants Blocking (R49).")]
    answers: Annotated[dict[str, AnswerView], doc(
        "The statements that hit and wait for their target's answer, by id (R48).")]
    reservations: Annotated[dict[str, AnswerView], doc(
        "The statements accepted with reservation that wait for the GM's ruling on the doubt "
        "(`rule_doubt`), by id, `loss` the one recorded: half of it if the doubt is "
        "unfounded (R48).")]
    debate_over: Annotated[bool, doc(
        "Whether Dispute and Conversation are over for this scene (R26).")]
    social: Annotated[SocialView | None, doc(
        "The social event and each visible combatant's standing at it; `null` outside "
        "social play.")]
    numbers: Annotated[dict[str, NumbersView], doc(
        "Each combatant's numbers as the rules compute them now, by id, for the combatants "
        "whose `stats` this viewer sees (the GM: all; a player: its own).")]
