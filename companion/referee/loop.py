"""The frame loop: the one place where a camera frame becomes a judged board.

For each frame: the recorded page inputs due before it, then read (locate, rectify, the game's
reader), reconcile with what the match knows, the stillness gate, and for a settled board the
referee's judgement and the reader's memory of the board the referee agreed with.  ``serve``
(the camera thread), ``referee`` on a folder or video and the benchmark's whole games all run
this one sequence.

The loop is owned by one thread.  Page actions that touch the session or the reader (start,
correct, undo, an event...) are queued with ``submit``/``perform`` and run by that thread
between two frames, so no two threads ever use the reader at once; a correction's lesson for
the reader (``Reader.learn_example``) and the memory of a board the host set right are queued
the same way.  An action that fails reaches whoever asked for it; it never ends the loop.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

import numpy as np

from companion.capture.sources import Frame
from companion.errors import CompanionError
from companion.games.base import JSON, S
from companion.games.reading import Reading
from companion.referee.session import Session
from companion.referee.stillness import StillnessGate
from companion.vision.pipeline import BoardPipeline

log = logging.getLogger(__name__)

R = TypeVar("R")

BLACK_LEVEL = 12.0
"""Mean grey level under which a rectified board is no picture of a board at all."""
BLACK_MESSAGE = "the camera gives black pictures: is the lens covered, or the light off?"
PERFORM_SECONDS = 10.0
"""How long a page action waits for the loop before saying it is busy."""


class LoopBusy(CompanionError):
    """The frame loop did not get to a page action in time (a camera driver stuck in a read)."""


@dataclass(frozen=True)
class Step(Generic[S]):
    """What one frame came to."""

    frame: Frame
    board: np.ndarray | None = None
    """The rectified board (None when the frame could not be rectified)."""
    reading: Reading[S] | None = None
    """The reader's reading, reconciled with the match (None when nothing was read)."""
    settled: Reading[S] | None = None
    """What the stillness gate passed on, the first time this resting board was seen."""
    problem: str = ""
    """Why nothing was read, in one line for the page ("" when the frame was read)."""
    timings: dict[str, float] = field(default_factory=dict)
    """Milliseconds per stage of this frame's read (``BoardPipeline.timings``)."""


@dataclass
class _Action:
    run: Callable[[], Any]
    future: Future[Any] | None
    """None for the loop's own follow-ups: nobody waits, so a failure is logged."""


class FrameLoop(Generic[S]):
    """One table's frames, referee and reader, driven by one thread."""

    def __init__(
        self,
        session: Session[S],
        pipeline: BoardPipeline[S],
        gate: StillnessGate,
        *,
        events: dict[int, list[JSON]] | None = None,
        on_bad_event: Callable[[JSON, CompanionError], None] | None = None,
        teach: bool = False,
    ) -> None:
        self.session = session
        self.pipeline = pipeline
        self.gate = gate
        self.events: dict[int, list[JSON]] = dict(events or {})
        """A recorded game's page inputs (pass, challenge...), by the photo they came before."""
        self.on_bad_event = on_bad_event
        """Told of a recorded input the referee refuses; without it the refusal is raised."""
        self.teach = teach
        """Corrections teach the reader, and they and what agreed boards taught it are kept in
        the profile (``serve``).  A recording and the benchmark's games read with the reader as
        calibrated."""
        self._actions: deque[_Action] = deque()
        self._wake = threading.Condition()
        self._owner: threading.Thread | None = None
        self._closed = False
        self._settled: tuple[int, np.ndarray, np.ndarray] | None = None
        """(index, frame, rectified board) of the last settled frame."""
        self._remembered: tuple[int, Any] | None = None
        session.on_correct = self._corrected

    # --- the frame sequence ----------------------------------------------------------------
    def step(self, frame: Frame) -> Step[S]:
        """Run the queued actions, then take one frame through the whole sequence."""
        self._claim()
        self.drain()
        self.enter_events(frame.index)
        pipeline = self.pipeline
        try:
            reading, board = pipeline.read(frame.image)
        except CompanionError as err:
            self.gate.feed(None, None)
            return Step(frame, problem=str(err))
        timings = dict(pipeline.timings)
        if float(board.mean()) < BLACK_LEVEL:
            self.gate.feed(None, None)
            return Step(frame, board, problem=BLACK_MESSAGE, timings=timings)
        reading = replace(reading, state=self.session.reconcile(reading.state))
        settled = self.gate.feed(board, reading)
        if settled is not None:
            # what the reader remembers and learns from is the frame as it reads it
            self._settled = (frame.index, pipeline.camera_frame(frame.image), board)
            if self.session.match_id is not None:
                self.session.observe(
                    settled.state, frame=frame.index, confidence=settled.confidence
                )
                self._remember_agreed()
        return Step(frame, board, reading, settled, timings=timings)

    def enter_events(self, index: int) -> None:
        """Enter the recorded page inputs due before photo ``index`` that the log lacks."""
        session = self.session
        if not self.events or session.match_id is None:
            return
        done = session.last_event_frame
        for at in sorted(self.events):
            if at <= index and (done is None or at > done):
                for event in self.events[at]:
                    try:
                        session.event(event, frame=at)
                    except CompanionError as err:
                        if self.on_bad_event is None:
                            raise
                        self.on_bad_event(event, err)

    def finish(self) -> None:
        """The frames are over: enter what was recorded after the last photo, run what is
        queued."""
        self._claim()
        self.enter_events(max(self.events, default=-1))
        self.drain()

    def lose_view(self) -> None:
        """The board went out of view (a frame with no board): the next still frames start a
        new rest."""
        self.gate.feed(None, None)

    def use_pipeline(self, pipeline: BoardPipeline[S]) -> None:
        """Read with ``pipeline`` from now on (the board found again at a new place); what was
        settled through the old one is no longer comparable."""
        self.pipeline = pipeline
        self._settled = None
        self._remembered = None
        self.lose_view()

    # --- page actions ----------------------------------------------------------------------
    def submit(self, action: Callable[[], R]) -> Future[R]:
        """Queue ``action`` for the loop's thread; its future holds what it returns or raises."""
        future: Future[R] = Future()
        with self._wake:
            if self._closed:
                future.set_exception(CompanionError("the referee is stopping: try again shortly"))
                return future
            self._actions.append(_Action(action, future))
            self._wake.notify_all()
        return future

    def perform(self, action: Callable[[], R], timeout: float = PERFORM_SECONDS) -> R:
        """Run ``action`` on the loop's thread and return its result (raise what it raised).
        Called on that thread, or before any thread owns the loop, it runs at once."""
        if self._owner is None or self._owner is threading.current_thread():
            self._claim()
            future = self.submit(action)
            self.drain()
            return future.result()
        try:
            return self.submit(action).result(timeout)
        except TimeoutError:
            raise LoopBusy(
                f"the camera loop did not answer within {timeout:g} s: try again"
            ) from None

    def drain(self) -> None:
        """Run the actions queued so far, in order, each followed by the reader's memory of
        the board the referee now agrees with.  What they queue in turn (a correction's
        lesson) waits for the next drain, so that busy pages cannot starve the frames."""
        with self._wake:
            batch, self._actions = list(self._actions), deque()
        for action in batch:
            if action.future is not None and not action.future.set_running_or_notify_cancel():
                continue
            try:
                result = action.run()
            except Exception as err:  # the caller's to handle; the loop goes on
                if action.future is None:
                    log.warning("%s", err, exc_info=not isinstance(err, CompanionError))
                else:
                    action.future.set_exception(err)
            else:
                if action.future is not None:
                    action.future.set_result(result)
            self._remember_agreed()

    def idle(self, seconds: float) -> None:
        """Wait ``seconds`` for frames that do not come (a camera being opened again, a replay
        that is over), running page actions as they arrive."""
        self._claim()
        deadline = time.monotonic() + seconds
        while True:
            self.drain()
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return
            with self._wake:
                if self._closed:
                    return
                if not self._actions:
                    self._wake.wait(remaining)

    def close(self) -> None:
        """Refuse new actions, fail the queued ones, and wake an idle loop."""
        with self._wake:
            self._closed = True
            pending, self._actions = list(self._actions), deque()
            self._wake.notify_all()
        for action in pending:
            if action.future is not None and action.future.set_running_or_notify_cancel():
                action.future.set_exception(CompanionError("the referee stopped"))

    # --- what the reader is told -----------------------------------------------------------
    def own(self, thread: threading.Thread) -> None:
        """``thread`` drives the loop (the camera thread of ``serve``, before it starts): only
        it steps frames, and the page's actions wait for it."""
        self._owner = thread

    def _claim(self) -> None:
        """The calling thread drives the loop, if no other does already."""
        current = threading.current_thread()
        if self._owner is None:
            self._owner = current
        elif self._owner is not current:
            raise RuntimeError(
                f"the frame loop is driven by {self._owner.name}, not {current.name}"
            )

    def _remember_agreed(self) -> None:
        """Give the reader the last settled frame as the board the referee now agrees it
        shows (``Reader.remember``), once per frame and board."""
        if self._settled is None:
            return
        agreed = self.session.agreed_board()
        if agreed is None:
            return
        index, image, board = self._settled
        if self._remembered == (index, agreed):
            return
        reader = self.pipeline.reader
        before = reader.to_json() if self.teach else None
        reader.remember(image, board, agreed)
        self._remembered = (index, agreed)
        # what an agreed board taught the reader (an Upwords set's tile thickness) is kept
        # at once, not only with the next correction: a restart would have to learn it again
        if before is not None and reader.to_json() != before:
            self._keep_learned("what the agreed board showed")

    def _corrected(self, cell: str, value: str) -> None:
        """The session was corrected (on whichever thread): the lesson for the reader is
        queued for the loop's own thread."""
        if self.teach:
            with self._wake:
                self._actions.append(_Action(lambda: self._learn(cell, value), None))
                self._wake.notify_all()

    def _learn(self, cell: str, value: str) -> None:
        """Let the reader learn the corrected cell (e.g. this set's font) from the last
        settled picture, and keep what it learned in the profile for the next start."""
        if self._settled is None:
            return
        _, image, board = self._settled
        try:
            learned = self.pipeline.reader.learn_example(image, board, cell, value)
        except CompanionError as err:
            log.warning("could not learn from the correction of %s: %s", cell, err)
            return
        if learned:
            self._keep_learned(f"{cell} = {value}")

    def _keep_learned(self, lesson: str) -> None:
        """Write the reader's settings into the profile it came from (atomically,
        ``Profile.save``), so that what it learned survives a restart; a profile with no file
        (a test's, the benchmark's) keeps it in memory only."""
        profile = self.pipeline.profile
        if not profile.path:
            return
        profile.reader = self.pipeline.reader.to_json()
        try:
            profile.save(profile.path)
        except CompanionError as err:
            log.warning("could not save what the reader learned to %s: %s", profile.path, err)
        else:
            log.info("the reader learned %s; saved in %s", lesson, profile.path)
