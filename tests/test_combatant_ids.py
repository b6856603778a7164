"""The ids the server gives combatants whose stat blocks give none (ruling R116): what the
table reads of them is what it would read without the hidden ones."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from encounter.gm import slug
from encounter.harness import Table

NAMES = ("Diamond Dog", "Diamond Dog Brute", "Screen")

#: The stat blocks the encounter is created with: a name, hidden or not.
blocks = st.lists(st.tuples(st.sampled_from(NAMES), st.booleans()), max_size=6)
#: What the GM does next: add a combatant (a name, hidden or not), or remove the k-th one
#: still there (counted over all, hidden ones too).
steps = st.lists(st.one_of(st.tuples(st.just("add"), st.sampled_from(NAMES), st.booleans()),
                           st.tuples(st.just("remove"), st.integers(0, 20), st.booleans())),
                 max_size=14)

Step = tuple[str, object, bool]
#: What the GM did, in order: ("add" or "remove", the combatant's id, its name, hidden).
Trace = list[tuple[str, str, str, bool]]


def new_table(blocks: list[dict[str, object]], anonymous: bool) -> Table:
    return Table([{"name": "Twilight Sparkle", "id": "twilight", "kind": "pc"}, *blocks],
                 dice_seed=1, anonymous_hidden_turns=anonymous)


def played(first: list[tuple[str, bool]], later: list[Step], anonymous: bool
           ) -> tuple[Table, Trace]:
    """The encounter ``first`` and ``later`` make, and what the GM did in it."""
    table = new_table([{"name": n, "hidden": h} for n, h in first], anonymous)
    trace: Trace = [("add", cid, c.name, c.hidden) for cid, c in table.state.combatants.items()
                    if cid != "twilight"]
    present = [cid for _, cid, _, _ in trace]
    for kind, what, hidden in later:
        if kind == "add":
            cid = table.send("add_combatant", combatant={"name": what, "hidden": hidden}
                             ).result["combatant"]
            trace.append(("add", cid, str(what), hidden))
            present.append(cid)
        elif present:
            assert isinstance(what, int)
            gone = table.state.combatants[present.pop(what % len(present))]
            trace.append(("remove", gone.id, gone.name, gone.hidden))
            table.send("remove_combatant", combatant=gone.id)
    return table, trace


def without_hidden(trace: Trace, created: int, anonymous: bool) -> list[str]:
    """The ids the visible combatants get, in order, in the same encounter played without its
    hidden ones (nor their removal); the first ``created`` of the trace created it."""
    table = new_table([{"name": name} for _, _, name, h in trace[:created] if not h], anonymous)
    ids = [cid for cid in table.state.combatants if cid != "twilight"]
    theirs = dict(zip([cid for _, cid, _, h in trace[:created] if not h], ids, strict=True))
    for kind, cid, name, hidden in trace[created:]:
        if hidden:
            continue
        if kind == "add":
            theirs[cid] = table.send("add_combatant", combatant={"name": name}
                                     ).result["combatant"]
            ids.append(theirs[cid])
        else:
            table.send("remove_combatant", combatant=theirs[cid])
    return ids


@settings(max_examples=150, deadline=None)
@given(blocks, steps, st.booleans())
def test_the_visible_ones_ids_are_those_they_would_have_without_the_hidden_ones(
        first: list[tuple[str, bool]], later: list[Step], anonymous: bool) -> None:
    table, trace = played(first, later, anonymous)
    added = [(cid, hidden) for kind, cid, _, hidden in trace if kind == "add"]
    assert [cid for cid, hidden in added if not hidden] == \
        without_hidden(trace, len(first), anonymous)
    player = table.invite("twilight")
    shown = str(table.view(player)) + str(table.messages(player))
    stems = {slug(n) for n in NAMES}
    for cid, hidden in added:
        if hidden:
            match = re.fullmatch(r"(.+)-[a-z][a-z0-9]{0,3}", cid)  # the harness's ids: id1...
            assert match and match[1] in stems, cid
            assert cid not in shown
    everyone = [cid for cid, _ in added]
    assert len(set(everyone)) == len(everyone)  # never one id twice, a removed one's neither
    assert not anonymous or "screen" not in everyone


def test_a_combatant_hidden_later_and_a_removed_one_leave_the_same_gap() -> None:
    hidden, removed = (Table([{"name": "Diamond Dog"}], dice_seed=1) for _ in range(2))
    hidden.do("set_hidden", combatant="diamond-dog", hidden=True)
    removed.do("remove_combatant", combatant="diamond-dog")
    for table in (hidden, removed):
        assert table.send("add_combatant", combatant={"name": "Diamond Dog"}).result == \
            {"combatant": "diamond-dog-2"}


def test_an_id_the_gm_gives_is_taken_as_it_is() -> None:
    table = Table([{"name": "Lurker", "id": "lurker", "hidden": True}], dice_seed=1)
    assert table.refused("add_combatant", combatant={"name": "Lurker", "id": "lurker"}
                         ).code == "conflict"
    table.do("remove_combatant", combatant="lurker")
    assert table.send("add_combatant", combatant={"name": "Lurker", "id": "lurker"}).result \
        == {"combatant": "lurker"}
