"""Corrections hammered from several page threads during a replay never reach the reader on any
thread but the camera's, never overlap a read, and never stop the loop."""

from __future__ import annotations

import functools
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from companion.capture.sources import FolderSource
from companion.errors import CompanionError
from companion.games import find_game
from companion.referee.session import Session
from companion.referee.stillness import StillnessGate
from companion.referee.store import Store
from companion.replay import PROFILE_FILE, folder_events, folder_settings
from companion.samples import sample_games
from companion.service import TableService
from companion.vision.calibration import Profile
from companion.vision.pipeline import BoardPipeline
from companion.web.stream import Broadcaster

GAME = find_game("upwords")
FRAMES = 16
PAGES = 4
"""Page threads correcting at once..."""
EACH = 12
"""...each this many times."""


class _Witness:
    """Wraps a reader's methods: which threads entered them, and whether two were inside at
    once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.inside = 0
        self.overlaps = 0
        self.threads: set[str] = set()
        self.calls: dict[str, int] = {}

    def watch(self, reader: Any, name: str) -> None:
        method: Callable[..., Any] = getattr(reader, name)

        @functools.wraps(method)
        def watched(*args: Any, **kwargs: Any) -> Any:
            with self.lock:
                self.inside += 1
                self.overlaps += self.inside > 1
                self.threads.add(threading.current_thread().name)
                self.calls[name] = self.calls.get(name, 0) + 1
            try:
                return method(*args, **kwargs)
            finally:
                with self.lock:
                    self.inside -= 1

        setattr(reader, name, watched)


def test_corrections_from_many_threads_reach_the_reader_only_between_frames(
    tmp_path: Path,
) -> None:
    sample = sample_games("upwords")[0]
    folder = tmp_path / "frames"
    folder.mkdir()
    for name in (PROFILE_FILE, "game.json", "events.jsonl"):
        shutil.copy(sample / name, folder / name)
    for frame in sorted(sample.glob("*.jpg"))[:FRAMES]:
        shutil.copy(frame, folder / frame.name)
    profile = Profile.load(folder / PROFILE_FILE, game=GAME.id)
    profile.path = None  # what the reader learns stays in memory
    pipeline = BoardPipeline(GAME, profile)
    witness = _Witness()
    for name in ("read_frame", "learn_example", "remember"):
        witness.watch(pipeline.reader, name)
    session = Session(GAME, Store(tmp_path / "games.sqlite3"))
    session.start(folder_settings(folder))
    service = TableService(
        GAME, session, Broadcaster(), FolderSource(folder, fps=25), pipeline, StillnessGate(2)
    )
    service.events = folder_events(folder)
    service.loop.teach = True
    stop = threading.Event()
    done: list[int] = []
    failures: list[str] = []

    def page(seed: int) -> None:
        rng = np.random.default_rng(seed)
        cells = list(GAME.cells(GAME.start_state()))
        while not session.verdicts and not stop.wait(0.01):
            pass  # the host corrects once something was judged
        for _ in range(EACH):
            if stop.is_set():
                return
            cell = cells[int(rng.integers(len(cells)))]
            value = f"1{'AEIOST'[int(rng.integers(6))]}"
            try:
                service.perform(lambda cell=cell, value=value: session.correct(cell, value))
            except CompanionError:
                pass  # nothing judged yet, a closed game: the page shows the message
            except Exception as err:  # a bug: what the test is looking for
                failures.append(f"{type(err).__name__}: {err}")
            else:
                done.append(1)

    pages = [threading.Thread(target=page, args=(i,), name=f"page-{i}") for i in range(PAGES)]
    service.start()
    for thread in pages:
        thread.start()
    for thread in pages:
        thread.join(timeout=120)
    stop.set()
    service.join(timeout=120)
    finished = service.health()["message"]
    service.stop()

    assert not failures, failures[:3]
    assert finished == "replay finished"
    assert len(done) >= PAGES * EACH // 2, f"only {len(done)} corrections got through"
    assert witness.calls.get("read_frame", 0) >= FRAMES // 2
    assert witness.calls.get("learn_example", 0) >= PAGES * EACH // 2
    assert witness.overlaps == 0
    assert witness.threads == {"camera-loop"}
