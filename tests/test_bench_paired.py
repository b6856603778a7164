"""``python -m bench.paired`` measures two real servers by turns: each gets its windows, the
clients of the second hold the view (so they receive more bytes per action), and the ratios
are taken window by window as well as over the whole."""

from __future__ import annotations

import json
from pathlib import Path

from bench import paired


def test_pair_ratios_take_neighbouring_windows_and_skip_empty_ones() -> None:
    a = paired.Side("a", [{"x": 1.0}, {"x": 2.0}, {"x": 0.0}])
    b = paired.Side("b", [{"x": 1.1}, {"x": 2.4}, {"x": 3.0}])
    assert paired.pair_ratios(a, b, "x") == [1.1, 1.2]


def test_two_servers_by_turns(tmp_path: Path) -> None:
    out = tmp_path / "paired.json"
    code = paired.main(["--workloads", "end_turn,mix", "--encounters", "2", "--pairs", "2",
                        "--window", "1", "--warmup", "0.3", "--no-pin", "--out", str(out)])
    assert code == 0
    data = json.loads(out.read_text())
    rows = {r["workload"]: r for r in data["results"]}
    assert set(rows) == {"end_turn", "mix"}
    for row in rows.values():
        assert row["connections"] == [14, 14]
        for side in ("without", "with_view"):
            windows = row[side]["windows"]
            assert len(windows) == 2
            assert all(w["actions"] > 0 and w["server_cpu_s"] > 0 for w in windows)
            assert all(not w["errors"] for w in windows), windows
        # The view's patches come on top of the same events.
        assert row["bytes_ratio"] > 1.0
        assert len(row["cpu_pair_ratios"]) == 2
    table = out.with_suffix(".md").read_text()
    assert "ratio of neighbouring windows" in table and "target at most 1.15x" in table


def test_both_servers_at_the_same_fixed_rate(tmp_path: Path) -> None:
    out = tmp_path / "paired.json"
    code = paired.main(["--workloads", "end_turn", "--encounters", "4", "--pairs", "1",
                        "--window", "2", "--warmup", "0.5", "--rate", "20", "--no-pin",
                        "--out", str(out)])
    assert code == 0
    data = json.loads(out.read_text())
    (row,) = data["results"]
    assert row["rate"] == 20
    # open loop: each server plays the rate, not as many actions as it can
    for side in ("without", "with_view"):
        (window,) = row[side]["windows"]
        assert 30 <= window["actions"] <= 50, window
        assert window["late_ticks"] == 0 and not window["errors"], window
    assert row["late_ticks"] == [0, 0]
    assert "20 actions/s each (open loop)" in out.with_suffix(".md").read_text()


def test_two_trees_both_with_the_view(tmp_path: Path) -> None:
    """``--compare``: the second server runs from another checkout (here the same tree), and
    the clients of both hold the view, so that the ratios are the change's alone."""
    out = tmp_path / "paired.json"
    root = Path(__file__).resolve().parent.parent
    code = paired.main(["--workloads", "end_turn", "--encounters", "2", "--pairs", "1",
                        "--window", "1", "--warmup", "0.3", "--no-pin", "--compare", str(root),
                        "--out", str(out)])
    assert code == 0
    data = json.loads(out.read_text())
    (row,) = data["results"]
    assert data["config"]["compare"] == str(root)
    # the same events and patches to both: the same bytes per action, give or take the
    # windows' edges
    assert 0.9 <= row["bytes_ratio"] <= 1.1, row
    for side in ("without", "with_view"):
        (window,) = row[side]["windows"]
        assert window["actions"] > 0 and not window["errors"], window
    table = out.with_suffix(".md").read_text()
    assert "both with the view" in table and "target at most" not in table
