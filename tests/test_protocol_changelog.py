"""The protocol changelog is complete: every name today's published protocol holds that the
first published protocol did not (a command, a server message, an event kind, a field of a
message, event or object protocol 1 had, a value of one of its enumerations, an error or close
code, a feature, a roll purpose, an action of a ruleset or an argument of one of protocol 1's
actions, an option, a stat block field, a field of the snapshot's state) is named, in
backticks, in ``docs/protocol-changelog.md``.

The names of protocol 1 are in ``tests/data/protocol-1-names.json``, extracted from the
documents of its commit by ``python -m tests.protocol_names --commit 5433342``; today's are
read from ``docs/protocol/`` (and the guide's table of roll purposes) by the same functions.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from protocol.messages import FEATURES
from tests.protocol_names import (
    ROOT,
    mentions,
    names,
    tree_reader,
    unmentioned,
)

DATA = Path(__file__).parent / "data" / "protocol-1-names.json"
CHANGELOG = ROOT / "docs" / "protocol-changelog.md"


def first_protocol() -> dict[str, Any]:
    return dict(json.loads(DATA.read_text(encoding="utf-8")))


def today() -> dict[str, Any]:
    found = names(tree_reader())
    # the features the server grants, besides those the description of `hello` names
    found["features"] = sorted(set(found["features"]) | set(FEATURES))
    return found


def test_every_name_new_since_protocol_1_is_in_the_changelog() -> None:
    missing = unmentioned(today(), first_protocol(), CHANGELOG.read_text(encoding="utf-8"))
    assert not missing, (
        "names of the published protocol that are neither protocol 1's nor named in "
        "docs/protocol-changelog.md (give each its entry, in backticks):\n  "
        + "\n  ".join(missing)
    )


def test_the_check_fails_for_each_kind_of_name_left_out() -> None:
    """Without the changelog every kind of new name is reported; and taking one name out of
    the changelog's text reports exactly that name."""
    now, first = today(), first_protocol()
    reported = unmentioned(now, first, "")
    kinds = {line.split(":", 1)[0] for line in reported}
    assert kinds >= {"commands", "server_messages", "events", "error_codes", "close_codes",
                     "features", "roll_purposes", "action", "field", "value", "options",
                     "stat_block", "state"}
    text = CHANGELOG.read_text(encoding="utf-8")
    before = set(unmentioned(now, first, text))
    for name, reported_as in (("quick_draw", "action: dramatic.quick_draw"),
                              ("initiative roll-off", "roll_purposes: initiative roll-off"),
                              ("4003", "close_codes: 4003")):
        assert f"`{name}`" in text
        without = text.replace(f"`{name}`", name)
        assert set(unmentioned(now, first, without)) - before == {reported_as}


def test_a_mention_is_a_name_in_backticks() -> None:
    said = mentions('`hello.features: ["view"]`, `stand firm (stunt)` and view alone')
    assert {"hello.features", "hello", "features", "view", "stand firm (stunt)"} <= said
    assert "alone" not in said


def test_today_s_names_are_read_from_the_schemas() -> None:
    now = today()
    assert {"hello", "act", "get_history"} <= set(now["commands"])
    assert {"welcome", "view", "batch"} <= set(now["server_messages"])
    assert {"attack_resolved", "turn_started"} <= set(now["events"])
    assert {"stale", "quota_exceeded"} <= set(now["error_codes"])
    assert {"4001", "4003"} <= set(now["close_codes"])
    assert {"initiative", "constitution check"} <= set(now["roll_purposes"])
    assert {"end_turn", "attack"} <= set(now["actions"]["dramatic"])
    assert "melee_attack" in now["actions"]["action_time"]
    assert "hello.features" in now["fields"]
    assert "snapshot.reason=rewound" in now["values"]
    assert "state.combatants.vitals" in now["state"]
    # the features `hello`'s description names are features the server grants
    described = names(tree_reader())["features"]
    assert described
    assert set(described) <= set(FEATURES)


def test_the_data_file_holds_protocol_1_as_it_was_published() -> None:
    """The data file is extracted from the first published commit's documents
    (``python -m tests.protocol_names --commit <commit>``, which needs the repository's
    history; the suite does not, so it checks what protocol 1 is known to have held): 16
    commands, 7 server messages, 16 event kinds and one action."""
    first = first_protocol()
    first.pop("commit")
    assert (len(first["commands"]), len(first["server_messages"]), len(first["events"])) == (
        16, 7, 16)
    assert first["actions"] == {"*": ["end_turn"]}
    assert first["features"] == []
