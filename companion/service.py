"""``companion serve``: the frame loop in the camera thread, the page in waitress's threads.

The camera thread drives the one frame loop (``referee/loop.py``: source -> pipeline -> gate ->
session -> reader memory) and, between frames, the page's actions that change the game; the
session's changes reach every open page through the broadcaster.  With no camera the bundled
sample game is replayed at ``fps`` frames a second; a replay resumed after a crash continues
after the last frame the game log accepted, and a live camera game resumes out of sync until
the table matches the log.
"""

from __future__ import annotations

import io
import logging
import os
import secrets
import socket
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import cv2
import numpy as np

from companion.capture.sources import (
    FolderSource,
    FrameSource,
    Picamera2Source,
    VideoSource,
    open_source,
)
from companion.errors import CompanionError, InputError
from companion.games.base import JSON, Game
from companion.referee.loop import FrameLoop, Step
from companion.referee.session import Session
from companion.referee.stillness import StillnessGate
from companion.referee.store import Store, default_path
from companion.replay import PROFILE_FILE, folder_events, folder_settings
from companion.samples import default_sample, sample_games
from companion.vision.calibration import Profile, relocate
from companion.vision.pipeline import BoardPipeline
from companion.web.stream import Broadcaster

log = logging.getLogger(__name__)

R = TypeVar("R")

CAMERA_VIEW_PERIOD = 0.25
"""Seconds between camera pictures pushed to the page: enough to see hands, cheap on a Pi."""
POSITION_CHECK_EVERY = 15
"""Frames between checks that the board and camera have not moved since calibration."""
WEB_THREADS = 48
"""Each open page holds one thread for its event stream: 30 phones and the page requests of a
busy evening (scripts/load_test.py) with room to spare."""
RETRY_SECONDS = 2.0
STALL_SECONDS = 5.0
"""A live camera silent this long is reported on the page."""
HANG_SECONDS = 60.0
"""...and this long means its driver hangs: the process exits for systemd to restart it."""
EXIT_CAMERA_HUNG = 75
MAX_RETRY_SECONDS = 30.0
IDLE_SECONDS = 1.0
"""After a replay: how often the camera thread looks up from page actions to check for stop."""


class TableService:
    """The runtime the web app serves: the frame loop and its thread, the camera view and the
    loop's health."""

    def __init__(
        self,
        game: Game[Any],
        session: Session[Any],
        broadcaster: Broadcaster,
        source: FrameSource,
        pipeline: BoardPipeline[Any],
        gate: StillnessGate,
    ) -> None:
        self.game = game
        self.broadcaster = broadcaster
        self.source = source
        self.loop = FrameLoop(session, pipeline, gate, on_bad_event=_skip_event)
        self._lock = threading.Lock()
        self._jpeg: bytes | None = None
        self._camera_version = 0
        self._last_view = 0.0
        self._message = ""
        self._ok = True
        self._frames = 0
        self._started = time.monotonic()
        self._stop = threading.Event()
        self._frames_over = threading.Event()
        self.reopen: Callable[[], FrameSource] | None = None
        """How to open the camera again after it stopped (None: do not)."""
        self.retry_seconds = RETRY_SECONDS
        self.hang_seconds = HANG_SECONDS
        self.exit_on_hang = False
        """`serve` sets it: only a whole process can be restarted out of a hung driver."""
        self._last_frame_at = time.monotonic()
        self._watchdog = threading.Thread(target=self._watch, name="camera-watch", daemon=True)
        self._thread = threading.Thread(target=self._run, name="camera-loop", daemon=True)
        self.loop.own(self._thread)

    # --- runtime interface used by the web app ------------------------------------------------
    @property
    def session(self) -> Session[Any]:
        return self.loop.session

    @property
    def pipeline(self) -> BoardPipeline[Any]:
        return self.loop.pipeline

    @property
    def gate(self) -> StillnessGate:
        return self.loop.gate

    @property
    def events(self) -> dict[int, list[JSON]]:
        """A recorded game's page inputs (pass, challenge...), by the photo they came before."""
        return self.loop.events

    @events.setter
    def events(self, events: dict[int, list[JSON]]) -> None:
        self.loop.events = dict(events)

    def perform(self, action: Callable[[], R]) -> R:
        """Run a page action on the camera thread, between two frames (see ``FrameLoop``)."""
        return self.loop.perform(action)

    def camera_jpeg(self) -> bytes | None:
        with self._lock:
            return self._jpeg

    def health(self) -> dict[str, Any]:
        elapsed = max(time.monotonic() - self._started, 1e-6)
        with self._lock:
            return {
                "source": self.source.description,
                "ok": self._ok,
                "message": self._message,
                "gate": self.gate.status,
                "fps": round(self._frames / elapsed, 1),
            }

    # --- the camera thread ----------------------------------------------------------------------
    def start(self) -> None:
        self._thread.start()
        self._watchdog.start()

    def join(self, timeout: float | None = None) -> None:
        """Wait until a replay has run out of frames (the thread stays for page actions)."""
        self._frames_over.wait(timeout)

    def stop(self) -> None:
        self._stop.set()
        self.loop.close()
        self._thread.join(timeout=5)

    def _set_health(self, ok: bool, message: str) -> None:
        with self._lock:
            changed = (ok, message) != (self._ok, self._message)
            self._ok, self._message = ok, message
        if changed:
            if message:
                log.warning("%s", message)
            self.broadcaster.publish("health", self.health())

    def _run(self) -> None:
        delay = self.retry_seconds
        while not self._stop.is_set():
            try:
                self._consume()
            except CompanionError as err:
                self._set_health(False, str(err))
            if not self.source.live:
                self.loop.finish()
                self._set_health(True, "replay finished")
                self._frames_over.set()
                while not self._stop.is_set():
                    self.loop.idle(IDLE_SECONDS)
                return
            # a live camera that stopped: open it again, waiting longer after each failure
            self.loop.idle(delay)
            if self.reopen is None or self._stop.is_set():
                continue
            try:
                self.source = self.reopen()
            except CompanionError as err:
                delay = min(delay * 2, MAX_RETRY_SECONDS)
                self._set_health(False, f"{err} (trying again in {delay:.0f} s)")
            else:
                delay = self.retry_seconds
                self._set_health(True, "")
                log.info("camera back: %s", self.source.description)

    def _consume(self) -> None:
        with self.source:
            for frame in self.source:
                if self._stop.is_set():
                    return
                self._frames += 1
                self._last_frame_at = time.monotonic()
                step = self.loop.step(frame)
                if step.board is not None:
                    self._show(step.board)
                self._check(step)

    def _check(self, step: Step[Any]) -> None:
        """Say on the page what went wrong with this frame, or that all is well again."""
        if step.problem:
            self._set_health(False, step.problem)
        elif self._frames % POSITION_CHECK_EVERY == 0:
            assert step.board is not None
            self._check_position(step.frame.image, step.board)
        elif self._message and not self._message.startswith("board or camera"):
            self._set_health(True, "")

    def _check_position(self, image: np.ndarray, board: np.ndarray) -> None:
        """Warn when the board or camera moved; with markers, find the board again."""
        drift = self.pipeline.check_position(board, image)
        if not drift.moved:
            if self._message.startswith("board or camera"):
                self._set_health(True, "")
            return
        profile = self.pipeline.profile
        found = relocate(self.game, image, profile) if self.pipeline.reader.follows_board else None
        if found is None:
            self._set_health(False, drift.message)
            return
        self.loop.use_pipeline(BoardPipeline(self.game, found))
        if profile.path:
            try:
                found.save(profile.path)
            except CompanionError as err:
                log.warning("the board's new place is not saved: %s", err)
        self._set_health(True, "the board moved: found again by its markers")

    def _watch(self) -> None:
        """Notice a camera that stops giving pictures; if its driver hangs the loop for good,
        end the process so that systemd starts a fresh one (a blocked driver call cannot be
        interrupted from Python)."""
        while not self._stop.wait(1.0):
            if not self.source.live:
                continue
            quiet = time.monotonic() - self._last_frame_at
            if quiet > self.hang_seconds and self.exit_on_hang:
                log.critical("no picture for %.0f s: the camera driver hangs; exiting", quiet)
                os._exit(EXIT_CAMERA_HUNG)
            if quiet > STALL_SECONDS:
                self._set_health(False, f"no picture from the camera for {quiet:.0f} s")

    def _show(self, board: np.ndarray) -> None:
        now = time.monotonic()
        if now - self._last_view < CAMERA_VIEW_PERIOD:
            return
        self._last_view = now
        ok, data = cv2.imencode(".jpg", board, [cv2.IMWRITE_JPEG_QUALITY, 80])
        if not ok:
            return
        with self._lock:
            self._jpeg = data.tobytes()
            self._camera_version += 1
            version = self._camera_version
        self.broadcaster.publish("camera", {"n": version})


def _skip_event(event: JSON, err: CompanionError) -> None:
    """A recorded page input the referee refuses: the replay goes on without it."""
    log.warning("recorded event %s not entered: %s", event, err)


def _secret_key(folder: Path) -> str:
    """The key that signs the page's session cookies, kept beside the game log so that a
    restart does not log the host out; made on first use, readable by this user only."""
    path = folder / "secret.key"
    try:
        key = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        key = ""
    if len(key) >= 32:
        return key
    key = secrets.token_hex(32)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write(key)
    except OSError as err:
        log.warning(
            "cannot keep the session key in %s (%s): hosts log in again after a restart",
            path,
            err.strerror,
        )
    return key


def _profile_for(source: FrameSource, folder: Path | None, profile_path: Path | None) -> Path:
    if profile_path is not None:
        return profile_path
    if folder is not None and (folder / PROFILE_FILE).is_file():
        return folder / PROFILE_FILE
    raise InputError(
        f"no calibration profile for {source.description}: run `companion calibrate` on a photo "
        "of the start position and pass --profile"
    )


def console_qr(url: str, encoding: str | None = None) -> str | None:
    """``url`` as a QR code drawn with block characters for the console the host reads the PIN
    on (light modules drawn, for dark terminals), or None when that console's encoding
    (``encoding``, else stderr's) cannot show them."""
    import segno

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True)
    text = out.getvalue()
    try:
        text.encode(encoding or getattr(sys.stderr, "encoding", None) or "ascii")
    except (UnicodeEncodeError, LookupError):
        return None
    return text


def serve(
    game: Game[Any],
    *,
    source: str,
    profile_path: Path | None,
    host: str,
    port: int,
    data_dir: Path | None,
    settle: int,
    fps: float,
    new: bool,
    settings: dict[str, Any] | None = None,
) -> None:
    """Run the referee service until interrupted."""
    import waitress

    from companion.web import create_app
    from companion.web.auth import new_pin

    sample = default_sample(game.id) if source in ("auto", "sample") else None
    frames = open_source(source, sample_dir=sample, fps=fps)
    pipeline = BoardPipeline(game, _profile_of(game, frames, profile_path))
    store_path = (data_dir / "games.sqlite3") if data_dir else default_path()
    broadcaster = Broadcaster()
    session = _session_for(game, Store(store_path), frames, broadcaster, settings or {}, new=new)
    service = TableService(
        game, session, broadcaster, frames, pipeline, StillnessGate(settle_frames=settle)
    )
    service.loop.teach = True  # a correction on the page teaches the reader this set's look
    if isinstance(frames, FolderSource):
        service.events = folder_events(frames.path)
        frames.sleep = service.loop.idle  # page actions run while the replay waits
    service.exit_on_hang = True
    if frames.live:
        service.reopen = lambda: open_source(source, sample_dir=sample, fps=fps)
    log.info("watching %s", frames.description)
    service.start()
    pin = new_pin()
    address = socket.gethostbyname(socket.gethostname()) if host in ("0.0.0.0", "::") else host
    join_url = f"http://{address}:{port}/"
    app = create_app(
        service, {"PIN": pin, "SECRET_KEY": _secret_key(store_path.parent), "JOIN_URL": join_url}
    )
    _announce(pin, join_url, public=host in ("0.0.0.0", "::"))
    try:
        waitress.serve(
            app, host=host, port=port, threads=WEB_THREADS, channel_timeout=30, _quiet=True
        )
    finally:
        service.stop()


def _profile_of(game: Game[Any], frames: FrameSource, profile_path: Path | None) -> Profile:
    """The camera's calibration (a replayed folder may hold its own), with a Pi camera set to
    the exposure and colour the reader was calibrated under."""
    folder = frames.path if isinstance(frames, FolderSource) else None
    profile = Profile.load(_profile_for(frames, folder, profile_path), game=game.id)
    if profile_path is None and folder is not None and folder.resolve() in _bundled(game.id):
        # what the reader learns on a bundled sample stays in memory: the shipped profile is
        # data of the install, shared by every replay, not this table's calibration
        profile.path = ""
    if isinstance(frames, Picamera2Source) and profile.camera_controls:
        frames.apply_controls(profile.camera_controls)
    return profile


def _bundled(game_id: str) -> set[Path]:
    """The bundled sample games' folders."""
    return {path.resolve() for path in sample_games(game_id)}


def _session_for(
    game: Game[Any],
    store: Store,
    frames: FrameSource,
    broadcaster: Broadcaster,
    settings: JSON,
    *,
    new: bool,
) -> Session[Any]:
    """The referee of this table: the unfinished game resumed (a replay after the last frame
    the log accepted), else for a replay a new game with the recording's settings."""
    session: Session[Any] = Session(game, store)
    session.defaults = dict(settings)
    session.on_change = lambda: broadcaster.publish("snapshot", session.snapshot())
    replay = not frames.live
    if replay:
        session.doubt_below = 0.0  # a recording has nobody to ask: judge what was read
    resumed = not new and session.resume(trust_board=replay)
    if resumed and session.last_frame is not None:
        if isinstance(frames, FolderSource) and session.last_frame + 1 >= len(frames.files):
            resumed = False  # that replay was over: show it again from the start
        elif isinstance(frames, FolderSource | VideoSource):
            frames.start = session.last_frame + 1
    if resumed:
        log.info("resumed game %s", session.match_id)
    elif replay:
        folder = frames.path if isinstance(frames, FolderSource) else None
        recorded = folder_settings(folder) if folder else {}
        session.start({**recorded, "source": frames.description})
    return session


def _announce(pin: str, join_url: str, *, public: bool) -> None:
    """Tell the host on the console how to log in and how phones join."""
    log.info("host PIN: %s  (enter it on the page to start games, undo and correct)", pin)
    if public:
        log.info("phones on this network join at %s  (Ctrl+C to stop)", join_url)
        code = console_qr(join_url)
        if code is not None:
            log.info("or scan this with a phone's camera:\n%s", code)
    else:
        log.info(
            "referee page: %s  (only this machine: --host 0.0.0.0 lets phones join; "
            "Ctrl+C to stop)",
            join_url,
        )
