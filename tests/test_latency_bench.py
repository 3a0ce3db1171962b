"""The latency bench times each verdict of a served sample game at a real event-stream client."""

from __future__ import annotations

from companion.games import registry
from companion.latency_bench import FPS, SETTLE, measure_latency

PHOTOS = 21
"""The sample's first photos: the start position and four moves, each resting three photos."""


def test_every_verdict_is_timed_from_its_settled_rest() -> None:
    result = measure_latency(registry()["amoeba"], limit=PHOTOS)
    # the start position's verdict and one per move, each photo shown SETTLE frames
    assert len(result.seconds) == 5
    assert result.frames == PHOTOS * SETTLE
    # no verdict can arrive before the gate has seen its agreeing frames after t0
    assert all(s >= (SETTLE - 1) / FPS for s in result.seconds)
    assert result.median_ms > 0 and result.p95_ms >= result.median_ms
