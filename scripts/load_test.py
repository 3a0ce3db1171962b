"""Load on the table service: many phones watching over SSE while the game moves and pages poll.

    $ python scripts/load_test.py --seconds 60 --viewers 30 --rate 20

A real waitress server on a loopback port serves the real app over a real session (Amoeba, a
temporary game log).  ``viewers`` phones hold the event stream open; a player turns a tile every
second (through the session, as the camera would); other phones make ``rate`` requests a second
(snapshot, health, the camera picture, the page).  Reported: events each viewer missed, request
errors, request latency, the server's memory growth, and whether a phone that hangs up frees its
thread.  The test suite runs a short version (tests/web/test_load.py).
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import tempfile
import threading
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from companion.games import find_game  # noqa: E402
from companion.games.amoeba.model import Tray  # noqa: E402
from companion.referee.session import Session  # noqa: E402
from companion.referee.store import Store  # noqa: E402
from companion.web import create_app  # noqa: E402
from companion.web.stream import Broadcaster  # noqa: E402

R = TypeVar("R")


class _Runtime:
    """What `serve` gives the app, without a camera: the test plays the camera."""

    def __init__(self, path: Path) -> None:
        self.game = find_game("amoeba")
        self.broadcaster = Broadcaster(heartbeat=1.0)
        self.session = Session(self.game, Store(path))
        self.session.on_change = lambda: self.broadcaster.publish(
            "snapshot", self.session.snapshot()
        )

    def camera_jpeg(self) -> bytes | None:
        return b"\xff\xd8\xff\xd9"

    def perform(self, action: Callable[[], R]) -> R:
        """No camera thread here: the page's actions run on the request's own thread."""
        return action()

    def health(self) -> dict[str, Any]:
        return {"source": "load test", "ok": True, "message": "", "gate": "still", "fps": 0.0}


def _viewer(
    port: int, seen: list[int], stop: threading.Event, errors: list[str], opened: list[int]
) -> None:
    """One phone holding the stream open, noting every snapshot version it receives; when the
    server ends the stream (it does after a while) it reconnects with Last-Event-ID, as a
    browser's EventSource does."""
    last_id: str | None = None
    while not stop.is_set():
        try:
            opened.append(1)
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            conn.request("GET", "/api/stream", headers={"Last-Event-ID": last_id or ""})
            response = conn.getresponse()
            kind = None
            while not stop.is_set():
                line = response.fp.readline()
                if not line:
                    break
                text = line.decode("utf-8").rstrip("\n")
                if text.startswith("id: "):
                    last_id = text[4:]
                elif text.startswith("event: "):
                    kind = text[7:]
                elif text.startswith("data: ") and kind == "snapshot":
                    seen.append(json.loads(text[6:])["version"])
            conn.close()
        except OSError as err:
            if not stop.is_set():
                errors.append(f"viewer: {err}")
                return


def run(*, seconds: float, viewers: int, rate: float) -> dict[str, Any]:
    """Run the load; the figures as a dict (see the module docstring)."""
    from waitress.server import create_server

    tracemalloc.start()
    with tempfile.TemporaryDirectory() as folder:
        runtime = _Runtime(Path(folder) / "games.sqlite3")
        app = create_app(runtime, {"PIN": "000000", "SECRET_KEY": "load test"})
        server = create_server(app, host="127.0.0.1", port=0, threads=viewers + 16)
        port = server.effective_port
        serving = threading.Thread(target=server.run, daemon=True)
        serving.start()
        runtime.session.start({"players": 2, "seed": 1})
        runtime.session.observe(Tray.start())

        stop = threading.Event()
        errors: list[str] = []
        seen: list[list[int]] = [[] for _ in range(viewers)]
        opened: list[int] = []
        phones = [
            threading.Thread(
                target=_viewer, args=(port, seen[i], stop, errors, opened), daemon=True
            )
            for i in range(viewers)
        ]
        for phone in phones:
            phone.start()
        time.sleep(1.0)
        baseline = tracemalloc.get_traced_memory()[0]

        latencies: list[float] = []
        paths = ["/api/snapshot", "/api/health", "/camera.jpg", "/"]
        tray = Tray.start()
        end = time.monotonic() + seconds
        next_turn = time.monotonic()
        sent = 0
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        while time.monotonic() < end:
            if time.monotonic() >= next_turn:  # a player turns a tile every second
                row, col = divmod(sent % 49, 7)
                tray = tray.turned(row, col)
                runtime.session.observe(tray)
                next_turn += 1.0
            start = time.monotonic()
            try:
                conn.request("GET", paths[sent % len(paths)])
                response = conn.getresponse()
                response.read()
                if response.status not in (200, 204):
                    errors.append(f"{paths[sent % len(paths)]}: {response.status}")
            except OSError as err:
                errors.append(f"request: {err}")
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            latencies.append(time.monotonic() - start)
            sent += 1
            time.sleep(max(0.0, start + 1.0 / rate - time.monotonic()))
        conn.close()
        time.sleep(1.5)  # let the last events arrive
        final = runtime.session.snapshot()["version"]
        grown = tracemalloc.get_traced_memory()[0] - baseline
        stop.set()
        # every phone hangs up at once: their threads must be freed within a heartbeat or two
        deadline = time.monotonic() + 5
        while runtime.broadcaster.subscribers and time.monotonic() < deadline:
            time.sleep(0.1)
        freed = runtime.broadcaster.subscribers == 0
        server.task_dispatcher.shutdown()
        server.close()
        runtime.session.store.close()
    tracemalloc.stop()
    first = min(min(s) for s in seen if s) if any(seen) else final
    expected = set(range(first, final + 1))
    missed = [len(expected - set(s)) for s in seen]
    return {
        "seconds": seconds,
        "viewers": viewers,
        "requests": sent,
        "request_errors": errors,
        "latency_ms_median": 1000 * statistics.median(latencies) if latencies else None,
        "latency_ms_p95": 1000 * sorted(latencies)[int(0.95 * (len(latencies) - 1))]
        if latencies
        else None,
        "versions": final - first + 1,
        "missed_per_viewer_max": max(missed) if missed else None,
        "memory_growth_kb": grown / 1024,
        "threads_freed": freed,
        "reconnects": len(opened) - viewers,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--viewers", type=int, default=30)
    parser.add_argument("--rate", type=float, default=20, help="requests a second")
    args = parser.parse_args()
    result = run(seconds=args.seconds, viewers=args.viewers, rate=args.rate)
    print(json.dumps(result, indent=1))
    ok = not result["request_errors"] and result["missed_per_viewer_max"] == 0
    return 0 if ok and result["threads_freed"] else 1


if __name__ == "__main__":
    sys.exit(main())
