"""A short run of scripts/load_test.py: 30 phones on the stream while the game moves."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "load_test.py"


def test_thirty_viewers_miss_no_event_and_hang_up_cleanly() -> None:
    spec = importlib.util.spec_from_file_location("load_test", SCRIPT)
    assert spec is not None and spec.loader is not None
    load_test = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(load_test)
    result = load_test.run(seconds=6, viewers=30, rate=20)
    assert result["request_errors"] == []
    assert result["versions"] >= 5
    assert result["missed_per_viewer_max"] == 0
    assert result["threads_freed"]
    assert result["memory_growth_kb"] < 30_000
