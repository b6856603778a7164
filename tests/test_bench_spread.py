"""``python -m bench.spread`` runs two real servers on one Redis (or a Redis Cluster), the load
on one, and reports what the other spends above its idle rate."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import spread


@pytest.mark.parametrize("cluster", [False, True], ids=["one Redis", "a Redis Cluster"])
def test_the_peer_is_measured_at_rest_then_beside_the_load(tmp_path: Path,
                                                            cluster: bool) -> None:
    out = tmp_path / "spread.json"
    code = spread.main(["--encounters", "2", "--windows", "1", "--window", "1", "--warmup",
                        "0.3", "--no-pin", "--out", str(out), *(["--cluster"] if cluster else [])])
    assert code == 0
    result = json.loads(out.read_text())["result"]
    assert result["cluster"] is cluster
    assert result["peer_idle_cpu_per_s"] >= 0
    (window,) = result["windows"]
    assert window["actions"] > 0 and not window["errors"], window
    assert window["serving_cpu_per_s"] > 0 and window["peer_share_pct"] is not None
    assert window["redis_cpu_ms_per_action"] is not None
    if not cluster:  # one append script per action, nothing for the activity stream
        assert 0.9 <= window["redis_commands_per_action"]["evalsha"] <= 1.1, window
    assert "peer above idle" in out.with_suffix(".md").read_text()
