"""The fault table: what the referee does when the camera or the table misbehaves, and how long
it takes to be back to normal.

    $ python scripts/fault_table.py            # about two minutes; prints a Markdown table

The bundled Amoeba sample is played as a live camera would give it (every photo three times, at
FPS frames a second) through ``TableService``, once cleanly and once per fault from
``capture/faults.py``.  For each fault the table says what the service told the page, whether
the verdicts matched the clean run, and the time from the last good frame to the moment the
service was back: its health line clear again, or the board found again (so a stall's time
includes the stall).  The test suite checks the same behaviours without the clock
(tests/integration/test_faults.py).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from companion.capture.faults import Fault, FaultySource  # noqa: E402
from companion.capture.sources import FolderSource, Frame  # noqa: E402
from companion.games import find_game  # noqa: E402
from companion.referee.session import Session  # noqa: E402
from companion.referee.stillness import StillnessGate  # noqa: E402
from companion.referee.store import Store  # noqa: E402
from companion.replay import PROFILE_FILE, folder_settings  # noqa: E402
from companion.samples import sample_games  # noqa: E402
from companion.service import TableService  # noqa: E402
from companion.vision.calibration import Profile  # noqa: E402
from companion.vision.pipeline import BoardPipeline  # noqa: E402
from companion.web.stream import Broadcaster  # noqa: E402

GAME = find_game("amoeba")
FPS = 15.0
PHOTOS = 40
"""Sample photos played (each three times): about eight moves."""
SCENARIOS: list[tuple[str, list[Fault]]] = [
    ("black frames (0.2 s)", [Fault("black", 45, 48)]),
    ("exposure x0.6 from then on", [Fault("exposure", 45, amount=0.6)]),
    ("board knocked 30 px", [Fault("knock", 45, amount=30)]),
    ("camera stalls 7 s", [Fault("stall", 45, amount=7.0)]),
    ("camera vanishes", [Fault("vanish", 45, 46)]),
]


class _Live(FolderSource):
    live = True


class _Clocked(FaultySource):
    """Notes when each frame index was handed over."""

    def __init__(self, inner: FolderSource, faults: list[Fault], seen: dict[int, float]) -> None:
        super().__init__(inner, faults)
        self.seen = seen

    def __iter__(self) -> Iterator[Frame]:
        for frame in super().__iter__():
            self.seen.setdefault(frame.index, time.monotonic())
            yield frame


class _Log(Broadcaster):
    def __init__(self) -> None:
        super().__init__()
        self.health: list[tuple[float, str]] = []

    def publish(self, kind: str, data: object) -> None:
        if kind == "health":
            self.health.append((time.monotonic(), data["message"]))  # type: ignore[index]
        super().publish(kind, data)


def _slow_sample(folder: Path) -> None:
    sample = sample_games("amoeba")[0]
    shutil.copy(sample / PROFILE_FILE, folder / PROFILE_FILE)
    shutil.copy(sample / "game.json", folder / "game.json")
    for photo in sorted(sample.glob("*.jpg"))[:PHOTOS]:
        for copy in "abc":
            shutil.copy(photo, folder / f"{photo.stem}{copy}.jpg")


def _play(folder: Path, faults: list[Fault]) -> tuple[list, list, dict[int, float]]:
    # a knock makes the service save the board's new place in the profile: start afresh
    shutil.copy(sample_games("amoeba")[0] / PROFILE_FILE, folder / PROFILE_FILE)
    seen: dict[int, float] = {}
    hub = _Log()
    with tempfile.TemporaryDirectory() as tmp:
        session = Session(GAME, Store(Path(tmp) / "games.sqlite3"))
        session.start(folder_settings(folder))
        service = TableService(
            GAME,
            session,
            hub,
            _Clocked(_Live(folder, fps=FPS), faults, seen),
            BoardPipeline(GAME, Profile.load(folder / PROFILE_FILE, game=GAME.id)),
            StillnessGate(settle_frames=3),
        )
        service.retry_seconds = 1.0

        def reopen() -> FaultySource:
            # the camera comes back where it left off
            return _Clocked(_Live(folder, fps=FPS, start=max(seen) + 1), [], seen)

        service.reopen = reopen
        service.start()
        frames = len(list(folder.glob("*.jpg")))
        deadline = time.monotonic() + frames / FPS + 30
        while time.monotonic() < deadline and max(seen, default=0) < frames - 1:
            time.sleep(0.2)
        time.sleep(1.0)
        service.stop()
        moves = [(v["turn"], v["legal"], v["text"]) for v in session.verdicts if v["move"]]
        session.store.close()
    return moves, hub.health, seen


def _row(name: str, faults: list[Fault], folder: Path, clean: list) -> str:
    moves, health, seen = _play(folder, faults)
    fault = faults[0]
    began = seen[fault.at - 1]  # the last good frame
    said = [m for t, m in health if t >= began and m]
    back = [t for t, m in health if t >= began and (not m or "found again" in m)]
    recovered = back[0] - began if back and said else 0.0
    did = "; ".join(dict.fromkeys(said)) or "nothing to report: read through it"
    same = "same verdicts" if moves == clean else f"{len(moves)} verdicts vs {len(clean)} clean"
    return f"| {name} | {did} | {same} | {recovered:.1f} s |"


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _slow_sample(folder)
        clean, _, _ = _play(folder, [])
        print(f"clean run: {len(clean)} verdicts", file=sys.stderr)
        print("| fault | what the service did | verdicts | time to recover |")
        print("|---|---|---|---|")
        for name, faults in SCENARIOS:
            print(f"  {name}...", file=sys.stderr, flush=True)
            print(_row(name, faults, folder, clean), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
