"""The in-process view benchmark (``python -m bench.view``) times real work: its commands are
accepted (a refusal would stop it), its attacks hit, and what each kind of viewer holds at the
end is that viewer's view of the state, as a snapshot would give it."""

from __future__ import annotations

from typing import Any

from bench import view
from encounter.views import view_state


def test_the_view_benchmark_keeps_every_viewer_where_a_snapshot_would() -> None:
    kept: list[Any] = []
    rows = view.one_run(36, 40, kept)
    assert [kind for kind, _t, _e in rows[:3]] == ["move", "attack", "end_turn"]
    state, viewers, shown = kept
    assert len(viewers) == len(shown) == 6
    assert any(v.fatigue < v.fatigue_max for v in state.vitals.values() if v.fatigue is not None)
    for viewer, s in zip(viewers, shown, strict=True):
        assert s.view == view_state(state, viewer)
