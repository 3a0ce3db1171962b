"""What the referee does when the camera or the table misbehaves (a fault-injecting source).

The sample game is filmed three times as slowly (every photo three times: a real camera gives
many frames per position) so that two spoiled frames cannot hide a whole position; then each
fault is injected and the verdicts compared with a clean run.
"""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest

from companion.capture.faults import Fault, FaultySource
from companion.capture.sources import FolderSource
from companion.games import find_game
from companion.referee.loop import BLACK_MESSAGE
from companion.referee.session import Session
from companion.referee.stillness import StillnessGate
from companion.referee.store import Store
from companion.replay import PROFILE_FILE, folder_settings
from companion.samples import sample_games
from companion.service import TableService
from companion.vision.calibration import Profile
from companion.vision.pipeline import BoardPipeline
from companion.web.stream import Broadcaster

GAME = find_game("amoeba")
SAMPLE = sample_games("amoeba")[0]
FRAMES = 60  # sample photos used: about ten moves


class _Recording(Broadcaster):
    def __init__(self) -> None:
        super().__init__()
        self.sent: list[tuple[str, dict]] = []

    def publish(self, kind: str, data: object) -> None:
        self.sent.append((kind, data))  # type: ignore[arg-type]
        super().publish(kind, data)


class _LiveFolder(FolderSource):
    live = True


@pytest.fixture(scope="module")
def slow_sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("slow")
    shutil.copy(SAMPLE / PROFILE_FILE, folder / PROFILE_FILE)
    shutil.copy(SAMPLE / "game.json", folder / "game.json")
    for photo in sorted(SAMPLE.glob("*.jpg"))[:FRAMES]:
        for copy in "abc":
            shutil.copy(photo, folder / f"{photo.stem}{copy}.jpg")
    return folder


def _run(folder: Path, tmp: Path, faults: list[Fault], *, live: bool = False, wait: float = 0):
    source = (_LiveFolder if live else FolderSource)(folder, fps=40 if live else None)
    session = Session(GAME, Store(tmp / "games.sqlite3"))
    session.start(folder_settings(folder))
    hub = _Recording()
    profile = Profile.load(folder / PROFILE_FILE, game=GAME.id)
    service = TableService(
        GAME,
        session,
        hub,
        FaultySource(source, faults),
        BoardPipeline(GAME, profile),
        StillnessGate(settle_frames=3),
    )
    service.start()
    if live:
        time.sleep(wait)
        service.stop()
    else:
        service.join(timeout=120)
    moves = [(v["turn"], v["legal"], v["text"]) for v in session.verdicts if v["move"]]
    messages = [d["message"] for k, d in hub.sent if k == "health"]
    return moves, messages, service


@pytest.fixture(scope="module")
def clean(slow_sample: Path, tmp_path_factory: pytest.TempPathFactory):
    moves, _, _ = _run(slow_sample, tmp_path_factory.mktemp("clean"), [])
    assert len(moves) >= 8
    return moves


def test_black_pictures_are_reported_and_cost_nothing(slow_sample, tmp_path, clean) -> None:
    moves, messages, _ = _run(
        slow_sample, tmp_path, [Fault("black", 45, 47), Fault("black", 106, 108)]
    )
    assert BLACK_MESSAGE in messages and "" in messages[messages.index(BLACK_MESSAGE) :]
    assert moves == clean


def test_a_sudden_exposure_change_is_read_through(slow_sample, tmp_path, clean) -> None:
    moves, _, _ = _run(slow_sample, tmp_path, [Fault("exposure", 75, amount=0.6)])
    assert moves == clean


def test_a_knocked_board_is_found_again_by_its_markers(slow_sample, tmp_path, clean) -> None:
    moves, messages, _ = _run(slow_sample, tmp_path, [Fault("knock", 60, amount=30)])
    assert "the board moved: found again by its markers" in messages
    assert moves == clean


def test_a_stalled_camera_is_reported(slow_sample, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr("companion.service.STALL_SECONDS", 0.5)
    _, messages, service = _run(
        slow_sample, tmp_path, [Fault("stall", 10, amount=3.0)], live=True, wait=2.5
    )
    assert any(m.startswith("no picture from the camera for") for m in messages)
    assert service.exit_on_hang is False  # only `serve` exits on a hung driver


HUNG_CAMERA = """
import sys, tempfile, time
from pathlib import Path
from companion.capture.faults import Fault, FaultySource
from companion.capture.sources import FolderSource
from companion.games import find_game
from companion.referee.session import Session
from companion.referee.stillness import StillnessGate
from companion.referee.store import Store
from companion.replay import PROFILE_FILE
from companion.service import TableService
from companion.vision.calibration import Profile
from companion.vision.pipeline import BoardPipeline
from companion.web.stream import Broadcaster

class Live(FolderSource):
    live = True

folder = Path(sys.argv[1])
game = find_game("amoeba")
service = TableService(
    game,
    Session(game, Store(Path(tempfile.mkdtemp()) / "games.sqlite3")),
    Broadcaster(),
    FaultySource(Live(folder, fps=20), [Fault("stall", 5, amount=3600)]),
    BoardPipeline(game, Profile.load(folder / PROFILE_FILE, game=game.id)),
    StillnessGate(settle_frames=3),
)
service.hang_seconds = 2.0
service.exit_on_hang = True
service.start()
time.sleep(30)
print("still running")
"""


def test_a_hung_camera_driver_ends_the_process_for_systemd(slow_sample, tmp_path) -> None:
    """A driver call that never returns cannot be interrupted from Python: the watchdog ends
    the process with the exit status systemd's unit restarts on."""
    import subprocess
    import sys

    from companion.service import EXIT_CAMERA_HUNG

    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", HUNG_CAMERA, str(slow_sample)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == EXIT_CAMERA_HUNG, done.stderr[-500:]
    assert "still running" not in done.stdout
    assert time.monotonic() - started < 25
