"""The frame loop's queue: page actions run on the loop's thread, between frames, and a failing
one reaches its caller without stopping the loop."""

from __future__ import annotations

import logging
import threading
from pathlib import Path

import pytest

from companion.capture.sources import FolderSource
from companion.errors import CompanionError, InputError
from companion.games import find_game
from companion.referee.loop import FrameLoop, LoopBusy
from companion.referee.session import Session
from companion.referee.stillness import StillnessGate
from companion.referee.store import Store
from companion.replay import PROFILE_FILE, folder_settings
from companion.samples import sample_games
from companion.vision.calibration import Profile
from companion.vision.pipeline import BoardPipeline

GAME = find_game("amoeba")
SAMPLE = sample_games("amoeba")[0]


@pytest.fixture
def loop(tmp_path: Path) -> FrameLoop:
    session = Session(GAME, Store(tmp_path / "games.sqlite3"))
    session.start(folder_settings(SAMPLE))
    pipeline = BoardPipeline(GAME, Profile.load(SAMPLE / PROFILE_FILE, game=GAME.id))
    return FrameLoop(session, pipeline, StillnessGate(3))


def _drive(loop: FrameLoop, stop: threading.Event) -> threading.Thread:
    """A thread that owns ``loop`` and idles on it (as the camera thread after a replay)."""

    def run() -> None:
        while not stop.is_set():
            loop.idle(0.05)

    thread = threading.Thread(target=run, name="owner")
    loop.own(thread)
    thread.start()
    return thread


def test_an_action_from_another_thread_runs_on_the_owner(loop: FrameLoop) -> None:
    stop = threading.Event()
    owner = _drive(loop, stop)
    try:
        assert loop.perform(lambda: threading.current_thread().name) == "owner"
        with pytest.raises(InputError, match="nothing to correct"):
            loop.perform(lambda: loop.session.correct("r0c0", "1"))
        with pytest.raises(ZeroDivisionError):
            loop.perform(lambda: 1 // 0)  # a bug reaches the page, not the camera thread
        assert owner.is_alive()
        assert loop.perform(lambda: 7) == 7
    finally:
        stop.set()
        owner.join()


def test_only_the_owner_steps_frames(loop: FrameLoop) -> None:
    stop = threading.Event()
    owner = _drive(loop, stop)
    try:
        frame = next(iter(FolderSource(SAMPLE)))
        with pytest.raises(RuntimeError, match="driven by owner"):
            loop.step(frame)
    finally:
        stop.set()
        owner.join()


def test_a_loop_that_does_not_answer_is_said_to_be_busy(loop: FrameLoop) -> None:
    loop.own(threading.Thread(name="stuck"))  # owned, never driven: a hung camera driver
    with pytest.raises(LoopBusy, match=r"did not answer within 0\.2 s"):
        loop.perform(lambda: 1, timeout=0.2)


def test_closing_fails_what_waits_and_refuses_more(loop: FrameLoop) -> None:
    loop.own(threading.Thread(name="stuck"))
    waiting = loop.submit(lambda: 1)
    loop.close()
    with pytest.raises(CompanionError, match="stopped"):
        waiting.result(timeout=1)
    with pytest.raises(CompanionError, match="stopping"):
        loop.submit(lambda: 2).result(timeout=1)


def test_actions_queued_by_actions_wait_for_the_next_drain(loop: FrameLoop) -> None:
    """Pages that keep the queue full cannot keep the loop from the next frame."""
    ran: list[str] = []
    loop.submit(lambda: ran.append("first") or loop.submit(lambda: ran.append("second")))
    loop.drain()
    assert ran == ["first"]
    loop.drain()
    assert ran == ["first", "second"]


def test_a_lesson_that_fails_is_logged_and_the_loop_goes_on(
    loop: FrameLoop, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A correction's lesson runs after the correction, on the loop's thread; a bug in the
    reader's learning is logged, never raised into the frame sequence."""
    loop.teach = True
    frames = iter(FolderSource(SAMPLE))
    while loop.session.verdicts == []:
        loop.step(next(frames))

    def broken(*_: object) -> bool:
        raise ValueError("a damaged glyph table")

    monkeypatch.setattr(loop.pipeline.reader, "learn_example", broken)
    loop.perform(lambda: loop.session.correct("r0c0", "1"))
    with caplog.at_level(logging.WARNING):
        loop.step(next(frames))  # the lesson runs here
    assert "a damaged glyph table" in caplog.text
    loop.step(next(frames))
