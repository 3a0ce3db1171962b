"""The camera loop of `serve` keeps refereeing through bad frames and says what it saw."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import cv2
import numpy as np

from companion.capture.images import load_image
from companion.capture.sources import FolderSource
from companion.errors import SourceError
from companion.games import find_game
from companion.referee.session import Session
from companion.referee.stillness import StillnessGate
from companion.referee.store import Store
from companion.replay import PROFILE_FILE, folder_settings, referee_input
from companion.samples import sample_games
from companion.service import TableService
from companion.vision.calibration import Profile
from companion.vision.pipeline import BoardPipeline
from companion.web.stream import Broadcaster

GAME = find_game("amoeba")
SAMPLE = sample_games("amoeba")[0]
FRAMES = 45


def _copy_frames(folder: Path) -> list[Path]:
    folder.mkdir()
    shutil.copy(SAMPLE / PROFILE_FILE, folder / PROFILE_FILE)
    shutil.copy(SAMPLE / "game.json", folder / "game.json")
    frames = sorted(SAMPLE.glob("*.jpg"))[:FRAMES]
    for frame in frames:
        shutil.copy(frame, folder / frame.name)
    return frames


def _run_service(folder: Path, data: Path) -> tuple[Session, TableService]:
    frames = FolderSource(folder)
    session = Session(GAME, Store(data / "games.sqlite3"))
    session.start(folder_settings(folder))
    broadcaster = Broadcaster()
    service = TableService(
        GAME,
        session,
        broadcaster,
        frames,
        BoardPipeline(GAME, Profile.load(folder / PROFILE_FILE, game=GAME.id)),
        StillnessGate(settle_frames=3),
    )
    service.start()
    service.join(timeout=120)
    return session, service


def test_bad_frames_do_not_stop_the_referee(tmp_path: Path) -> None:
    clean = tmp_path / "clean"
    frames = _copy_frames(clean)
    expected = list(referee_input(GAME, clean))
    assert len(expected) >= 5

    noisy = tmp_path / "noisy"
    _copy_frames(noisy)
    # where the position changes (a hand would be there): a cut-off JPEG, a bare table
    pipeline = BoardPipeline(GAME, Profile.load(clean / PROFILE_FILE, game=GAME.id))
    states = [pipeline.read(load_image(f))[0].state for f in frames]
    gap = next(i for i in range(10, FRAMES - 1) if states[i] != states[i + 1])
    photo = frames[gap].read_bytes()
    (noisy / f"{frames[gap].stem}a.jpg").write_bytes(photo[: len(photo) // 4])
    table = np.full((768, 1024, 3), (70, 110, 150), np.uint8)
    cv2.imwrite(str(noisy / f"{frames[gap].stem}b.jpg"), table)

    session, service = _run_service(noisy, tmp_path)
    got = [v for v in session.verdicts if v["move"] is not None or not v["legal"]]
    assert [{k: v for k, v in g.items() if k != "svgs"} for g in got] == expected
    assert service.health()["message"] == "replay finished"


class _Recording(Broadcaster):
    """A broadcaster that also keeps everything it sent, in order (phones see the newest)."""

    def __init__(self) -> None:
        super().__init__()
        self.sent: list[tuple[str, dict]] = []

    def publish(self, kind: str, data: object) -> None:
        self.sent.append((kind, data))  # type: ignore[arg-type]
        super().publish(kind, data)


class _FlakyCamera(FolderSource):
    """A live camera made of sample photos that stops delivering after ``last`` frames."""

    live = True

    def __init__(self, folder: Path, *, start: int, last: int) -> None:
        super().__init__(folder, start=start)
        self.last = last
        self.description = "camera test:0"

    def __iter__(self):
        for frame in super().__iter__():
            if frame.index >= self.last:
                raise SourceError("camera test:0 stopped delivering frames: check the cable")
            yield frame


def test_a_camera_that_vanishes_is_reported_and_reopened(tmp_path: Path) -> None:
    folder = tmp_path / "frames"
    _copy_frames(folder)
    session = Session(GAME, Store(tmp_path / "games.sqlite3"))
    session.start(folder_settings(folder))
    broadcaster = _Recording()
    opened: list[str] = []

    def reopen() -> FolderSource:
        opened.append("try")
        if len(opened) == 1:
            raise SourceError("no camera at test:0: plug it in")
        return _FlakyCamera(folder, start=20, last=FRAMES)

    service = TableService(
        GAME,
        session,
        broadcaster,
        _FlakyCamera(folder, start=0, last=20),
        BoardPipeline(GAME, Profile.load(folder / PROFILE_FILE, game=GAME.id)),
        StillnessGate(settle_frames=3),
    )
    service.reopen = reopen
    service.retry_seconds = 0.05
    service.start()
    deadline = time.monotonic() + 60
    while len(opened) < 3 and time.monotonic() < deadline:
        time.sleep(0.05)
    service.stop()
    messages = [data["message"] for kind, data in broadcaster.sent if kind == "health"]
    assert any("stopped delivering frames" in m for m in messages)
    assert any("no camera at test:0" in m and "trying again" in m for m in messages)
    assert "" in messages  # back: the banner clears
    moves = [v for v in session.verdicts if v["move"] is not None]
    assert len(moves) >= 5, "refereeing did not go on after the camera came back"


def test_the_camera_remembers_the_board_the_referee_agreed_with(tmp_path: Path) -> None:
    """Each board the referee accepts is what the reader keeps untouched stacks of next."""
    game = find_game("upwords")
    sample = sample_games("upwords")[0]
    folder = tmp_path / "frames"
    folder.mkdir()
    for name in (PROFILE_FILE, "game.json"):
        shutil.copy(sample / name, folder / name)
    for frame in sorted(sample.glob("*.jpg"))[:12]:
        shutil.copy(frame, folder / frame.name)
    session = Session(game, Store(tmp_path / "games.sqlite3"))
    session.start(folder_settings(folder))
    pipeline = BoardPipeline(game, Profile.load(folder / PROFILE_FILE, game=game.id))
    service = TableService(
        game, session, Broadcaster(), FolderSource(folder), pipeline, StillnessGate(2)
    )
    service.start()
    service.join(timeout=120)
    plays = [v for v in session.verdicts if v["legal"] and v["reason"] == "play"]
    assert len(plays) >= 2
    assert service.pipeline.reader.remembered == session.agreed_board()
    assert any(height for height, _ in service.pipeline.reader.remembered.squares)
