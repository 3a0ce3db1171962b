"""The latency bench times each verdict of a served sample game at a real event-stream client."""

from __future__ import annotations

import pytest

from companion.games import registry
from companion.latency_bench import FPS, SETTLE, measure_latency
from companion.web.stream import Broadcaster

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


def test_a_stream_the_server_ends_is_read_on_as_a_page_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # every stream ends after one event: the client must reopen it, resuming by event id
    monkeypatch.setitem(Broadcaster.stream.__kwdefaults__, "max_bytes", 1)
    result = measure_latency(registry()["amoeba"], limit=PHOTOS)
    assert len(result.seconds) == 5
