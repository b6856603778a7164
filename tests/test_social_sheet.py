"""The social statistics of a stat block (rules/social/sheet.py; rulings R70, R71)."""

from __future__ import annotations

import pytest

from rules.sheet import SheetError, parse_sheet
from rules.social.sheet import TemporaryStatus, parse_social


def test_no_social_key_is_all_defaults() -> None:
    social = parse_social({})
    assert (social.reputation, social.talents, social.temporary) == (0, {}, ())
    assert (social.clothing, social.event_raise) == (0, 0)


def test_the_main_sheet_accepts_the_social_mapping() -> None:
    """rules/sheet.py keeps ``social`` as it is; parse_social reads it."""
    stats = {"cha": 14, "social": {
        "reputation": 3, "talents": {"vip": 2}, "clothing": 1, "event_raise": 2,
        "temporary": [{"circle": "canterlot high society", "bonus": 2}, {"bonus": 1}]}}
    assert parse_sheet(stats).social == stats["social"]
    social = parse_social(stats)
    assert social.reputation == 3 and social.talents == {"vip": 2}
    assert social.temporary_in("canterlot high society") == (
        TemporaryStatus(bonus=2, circle="canterlot high society"), TemporaryStatus(bonus=1))
    assert social.temporary_in("cooking contests") == (TemporaryStatus(bonus=1),)


@pytest.mark.parametrize(("social", "message"), [
    ({"fame": 3}, "stats.social: Object contains unknown field `fame`"),
    ({"reputation": "high"}, "stats.social.reputation: Expected `int`, got `str`"),
    ({"temporary": [{"bonus": -1}]}, "cannot be negative"),
    ({"temporary": [{"bonus": 1}, {"bonus": 2}]}, "one temporary status per circle"),
    ({"event_raise": -2}, "event_raise cannot be negative"),
])
def test_bad_social_stats_name_the_field(social: dict[str, object], message: str) -> None:
    with pytest.raises(SheetError, match=message.replace("(", r"\(").replace("`", ".")):
        parse_social({"social": social})
