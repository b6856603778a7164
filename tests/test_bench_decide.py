"""The in-process decide benchmark (``python -m bench.decide``) plays what it says: on every
map size its attacks resolve against the enemy across the column and its ends of turn pass
the turn, so its figures time real decisions, not refusals."""

from __future__ import annotations

import pytest

from bench import decide
from encounter import engine
from protocol import messages as msg


@pytest.mark.parametrize("side", [12, 100])
def test_the_benchmark_attacks_hit_home_and_turns_pass(side: int) -> None:
    table = decide.Table(side, 11)
    for i in range(4):
        actor = table.state.current
        assert actor is not None
        cmd = msg.Act(id=f"a{i}", combatant=actor, action="attack",
                      args={"target": table.enemy_of(actor), "weapon": "sling"})
        out = engine.decide(table.state, decide.GM, cmd, table.ctx)
        kinds = [e.event.__struct_config__.tag for e in out.envelopes]
        assert "attack_resolved" in kinds
        table.do(cmd)
        table.do(msg.Act(id=f"e{i}", combatant=actor, action="end_turn"))
        assert table.state.current != actor
    assert decide.one_run(side, 2, 11).keys() == {"attack", "end_turn", "legal"}
