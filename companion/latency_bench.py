"""How long a player waits for the verdict: from the board coming to rest to a phone's page.

The stage timings of ``companion bench`` say how fast each step is on its own; what players
feel is the whole chain: camera frames paced by the camera, the stillness gate waiting for its
agreeing frames, the referee, the snapshot published and written by waitress to an open event
stream.  So this runs that chain for real, on one core: the table service ``companion serve``
runs (same ``TableService``, same Flask app, same waitress server, on a free loopback port),
fed a bundled sample game at ``FPS`` frames a second, and a plain HTTP client reading
``/api/stream`` the way a phone's browser does.

For each verdict:

* ``t0`` is when the first frame of the settled run that produced it was handed to the frame
  loop: the first frame after the move that the stillness gate counted towards the rest (the
  gate settles on ``settle`` consecutive agreeing frames, so the run ends at the settling frame);
* ``t1`` is when the client has read the whole ``snapshot`` event that first carries it.

Each sample photo is shown for ``repeat`` consecutive frames (by default the settle count), so
every resting board of the sample stays in view long enough to settle by itself, and a hand
photo stays over the board for as long.  Frames are due every ``1 / fps`` seconds; a loop
slower than that takes each one late (a replay queues, where a live camera would drop frames),
and ``t0`` is when the frame was actually taken, so the delay is in the figure.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import logging
import os
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from companion.capture.images import load_image
from companion.capture.sources import FolderSource, Frame
from companion.errors import CompanionError
from companion.games.base import Game
from companion.referee.loop import Step
from companion.referee.stillness import DEFAULT_SETTLE, StillnessGate
from companion.referee.store import Store
from companion.samples import default_sample
from companion.service import WEB_THREADS, TableService, _profile_of, _session_for
from companion.vision.pipeline import BoardPipeline
from companion.web.stream import Broadcaster

log = logging.getLogger(__name__)

FPS = 15.0
"""Frames a second fed to the loop: what a Pi camera gives the referee."""
SETTLE = DEFAULT_SETTLE
WAIT_SECONDS = 10.0
"""How long after the last frame the client waits for verdicts still on their way."""


class PacedFrames(FolderSource):
    """A sample folder replayed at ``fps``, each photo ``repeat`` times, noting when each frame
    is handed to the loop (``fed``, monotonic seconds, by frame index)."""

    def __init__(self, path: Path, *, fps: float, repeat: int, limit: int | None = None) -> None:
        super().__init__(path, fps=fps)
        if repeat < 1:
            raise ValueError(f"repeat must be at least 1, not {repeat}")
        self.repeat = repeat
        self.limit = limit
        self.fed: list[float] = []
        self.description = f"sample {self.path.name} at {fps:g} fps for the latency bench"

    def __iter__(self) -> Iterator[Frame]:
        files = self.files if self.limit is None else self.files[: self.limit]
        images = [load_image(path) for path in files]  # decoded up front: no disk in the timing
        period = 1.0 / (self.fps or FPS)
        due = time.monotonic()
        index = 0
        for path, image in zip(files, images, strict=True):
            for _ in range(self.repeat):
                self.sleep(max(0.0, due - time.monotonic()))
                due += period
                self.fed.append(time.monotonic())
                yield Frame(index, image, path.name, time.time())
                index += 1


class _TimedService(TableService):
    """The table service noting, for each new verdict, the frame whose step settled it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.settled_by: list[int] = []
        """Frame index of the settling frame of verdict 1, 2...; written on the camera thread."""

    def _check(self, step: Step[Any]) -> None:
        if step.settled is not None:
            count = len(self.session.snapshot().get("verdicts", []))
            while len(self.settled_by) < count:
                self.settled_by.append(step.frame.index)
        super()._check(step)


@dataclass
class _Client:
    """A reader of ``/api/stream``: when each number of verdicts first arrived (monotonic)."""

    port: int
    arrived: dict[int, float] = field(default_factory=dict)
    connected: threading.Event = field(default_factory=threading.Event)
    stop: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None
    _conn: http.client.HTTPConnection | None = None

    def close(self) -> None:
        """Stop reading: shutting the socket down wakes the blocked read at once."""
        self.stop.set()
        sock = None if self._conn is None else self._conn.sock
        if sock is not None:
            with contextlib.suppress(OSError):  # the server may have closed it already
                sock.shutdown(socket.SHUT_RDWR)

    def run(self) -> None:
        try:
            self._read()
        except (OSError, http.client.HTTPException, ValueError) as err:
            if not self.stop.is_set():
                self.error = err
        finally:
            self.connected.set()

    def _read(self) -> None:
        """Read the stream as a page does: a stream the server ends (after
        ``stream.STREAM_BYTES``) is opened again at once, resuming after the last event id."""
        last_id = ""
        while not self.stop.is_set():
            last_id = self._read_once(last_id)

    def _read_once(self, last_id: str) -> str:
        """One connection to ``/api/stream``, until the server ends it; the last event id."""
        headers = {"Accept": "text/event-stream"}
        if last_id:
            headers["Last-Event-ID"] = last_id
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10.0)
        self._conn = conn
        try:
            conn.request("GET", "/api/stream", headers=headers)
            response = conn.getresponse()
            if conn.sock is not None:
                conn.sock.settimeout(None)  # heartbeats come every 15 s; close() ends the wait
            if response.status != 200:
                raise ValueError(f"/api/stream answered {response.status}")
            self.connected.set()
            kind, data = "", ""
            while not self.stop.is_set():
                line = response.fp.readline()
                if not line:
                    return last_id
                text = line.decode("utf-8").rstrip("\r\n")
                if text.startswith("id:"):
                    last_id = text[3:].strip()
                elif text.startswith("event:"):
                    kind = text[6:].strip()
                elif text.startswith("data:"):
                    data = text[5:].strip()
                elif not text:  # the blank line that ends one event
                    if kind == "snapshot" and data:
                        self._snapshot(data, time.monotonic())
                    kind, data = "", ""
            return last_id
        finally:
            conn.close()

    def _snapshot(self, data: str, now: float) -> None:
        count = len(json.loads(data).get("verdicts", []))
        for number in range(1, count + 1):
            self.arrived.setdefault(number, now)


@dataclass(frozen=True)
class Latency:
    """Seconds from ``t0`` to ``t1`` (see the module's docstring), one per verdict."""

    seconds: list[float]
    frames: int

    @property
    def median_ms(self) -> float:
        return float(np.median(self.seconds)) * 1000 if self.seconds else float("nan")

    @property
    def p95_ms(self) -> float:
        """As the bench's stage table: numpy's interpolated 95th percentile."""
        return float(np.percentile(self.seconds, 95)) * 1000 if self.seconds else float("nan")


def measure_latency(
    game: Game[Any],
    *,
    sample: Path | None = None,
    fps: float = FPS,
    settle: int = SETTLE,
    repeat: int | None = None,
    limit: int | None = None,
) -> Latency:
    """Serve a table from ``sample`` (default: the bundled sample game), feed it at ``fps``
    and time every verdict to a real event-stream client; ``limit`` keeps the first photos."""
    import waitress

    from companion.web import create_app

    folder = sample if sample is not None else default_sample(game.id)
    frames = PacedFrames(folder, fps=fps, repeat=repeat or settle, limit=limit)
    pipeline = BoardPipeline(game, _profile_of(game, frames, None))
    broadcaster = Broadcaster()
    with tempfile.TemporaryDirectory(prefix="companion-latency-") as tmp:
        store = Store(Path(tmp) / "games.sqlite3")
        session = _session_for(game, store, frames, broadcaster, {}, new=True)
        service = _TimedService(
            game, session, broadcaster, frames, pipeline, StillnessGate(settle_frames=settle)
        )
        frames.sleep = service.loop.idle  # as `serve`: page actions run while frames wait
        app = create_app(service, {"SECRET_KEY": os.urandom(16).hex()})
        server = waitress.create_server(
            app, host="127.0.0.1", port=0, threads=WEB_THREADS, channel_timeout=30
        )
        web = threading.Thread(target=server.run, name="latency-web", daemon=True)
        web.start()
        client = _Client(int(server.effective_port))
        reader = threading.Thread(target=client.run, name="latency-client", daemon=True)
        try:
            reader.start()
            if not client.connected.wait(10.0) or client.error is not None:
                raise RuntimeError(f"the event stream did not open: {client.error}")
            service.start()
            service.join()
            deadline = time.monotonic() + WAIT_SECONDS
            while len(client.arrived) < len(service.settled_by) and time.monotonic() < deadline:
                time.sleep(0.01)
        finally:
            client.close()
            service.stop()
            server.close()
            reader.join(timeout=5.0)
            web.join(timeout=5.0)
            store.close()
    if client.error is not None:
        raise RuntimeError(f"the event stream failed: {client.error}")
    seconds = []
    for number, settled in enumerate(service.settled_by, start=1):
        if number not in client.arrived:
            raise RuntimeError(f"verdict {number} never reached the event stream")
        first = settled - (settle - 1)
        seconds.append(client.arrived[number] - frames.fed[first])
    return Latency(seconds, len(frames.fed))


def latency_report(game: Game[Any], *, fps: float = FPS, settle: int = SETTLE) -> list[str]:
    """The bench report's lines: verdict latency at a real event-stream client, on one core.

    The process is pinned to one CPU while it runs (Linux: this thread, and so every thread it
    starts: camera loop, waitress workers, client), then given its CPUs back."""
    affinity = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    if affinity:
        os.sched_setaffinity(0, {min(affinity)})
    try:
        result = measure_latency(game, fps=fps, settle=settle)
    except CompanionError as err:
        return [f"verdict latency at an open page: not measured ({err})"]
    finally:
        if affinity:
            os.sched_setaffinity(0, affinity)
    return [
        f"verdict latency at an open page (served sample, {fps:g} fps, settle {settle}, one "
        f"core): median {result.median_ms:.0f} ms, p95 {result.p95_ms:.0f} ms, "
        f"{len(result.seconds)} verdicts over {result.frames} frames "
        "(first frame of the settled rest -> snapshot read from /api/stream)"
    ]
