"""Refereeing a recorded game (``companion referee``): an image folder, a video or a .jsonl file.

Recorded input goes through exactly the live path (pipeline, stillness gate, session and log),
so a recording is also the end-to-end test of a live game.  With ``--log`` the game log is kept
and a rerun resumes after the last frame the log accepted, which is how a replay survives a kill.
"""

from __future__ import annotations

import json
import logging
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from companion.errors import InputError
from companion.games.base import Game, S
from companion.referee.session import Session
from companion.referee.store import Store

log = logging.getLogger(__name__)

SETTINGS_FILE = "game.json"
PROFILE_FILE = "profile.json"
EVENTS_FILE = "events.jsonl"
"""What was entered on the page during a recorded game (a pass, a challenge), by photo."""


def read_jsonl(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line; a one-line ``InputError`` for bad lines."""
    try:
        handle = path.open(encoding="utf-8")
    except OSError as err:
        raise InputError(f"cannot open {path}: {err.strerror}") from None
    with handle:
        number = 0
        while True:
            number += 1
            try:
                line = handle.readline()
            except UnicodeDecodeError:
                raise InputError(
                    f"line {number} of {path} is not text (UTF-8): is it really a .jsonl file?"
                ) from None
            if not line:
                return
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError as err:
                raise InputError(
                    f"line {number} of {path} is not valid JSON ({err.msg}): fix or remove it"
                ) from None
            if not isinstance(obj, dict):
                raise InputError(f"line {number} of {path} must be a JSON object")
            yield number, obj


def folder_settings(folder: Path) -> dict[str, Any]:
    """The recorded game's settings (players, names, seed) from ``game.json``, if present."""
    path = folder / SETTINGS_FILE
    if not path.is_file():
        return {}
    try:
        obj = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise InputError(f"{path} is not valid JSON ({err}): fix or remove it") from None
    if not isinstance(obj, dict):
        raise InputError(f"{path} must hold a JSON object of game settings")
    return {k: v for k, v in obj.items() if k not in ("about", "expected")}


def folder_events(folder: Path | None) -> dict[int, list[dict[str, Any]]]:
    """The recorded page inputs of a photo folder: frame index -> events entered before it."""
    path = None if folder is None else folder / EVENTS_FILE
    if path is None or not path.is_file():
        return {}
    events: dict[int, list[dict[str, Any]]] = {}
    for number, obj in read_jsonl(path):
        frame, event = obj.get("frame"), obj.get("event")
        if not isinstance(frame, int) or not isinstance(event, dict):
            raise InputError(f"line {number} of {path} needs a 'frame' number and an 'event'")
        events.setdefault(frame, []).append(event)
    return events


def _public(verdict: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in verdict.items() if k != "svgs"}


def _is_move(verdict: dict[str, Any]) -> bool:
    """Setup verdicts (the start position accepted) are not moves and are not printed."""
    return verdict.get("move") is not None or not verdict.get("legal", False)


class _Printer:
    """Yields each verdict once, in order, however many the session has produced so far."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.done = 0

    def new(self) -> Iterator[dict[str, Any]]:
        verdicts = self.session.verdicts
        for verdict in verdicts[self.done :]:
            if _is_move(verdict):
                yield _public(verdict)
        self.done = len(verdicts)


def referee_input(
    game: Game,
    path: Path,
    *,
    profile_path: Path | None = None,
    players: int | None = None,
    seed: int | None = None,
    settle: int = 3,
    log_path: Path | None = None,
    settings: dict[str, Any] | None = None,
) -> Iterator[dict[str, Any]]:
    """Every verdict of the recorded game, as the ``referee`` JSON lines of design.md.

    ``settings`` (from ``--setting``) and ``players``/``seed`` override the recording's own."""
    if not path.exists():
        raise InputError(f"{path} does not exist: give an image folder, a video or a .jsonl file")
    overrides: dict[str, Any] = dict(settings or {})
    if players is not None:
        overrides["players"] = players
    if seed is not None:
        overrides["seed"] = seed
    with tempfile.TemporaryDirectory(prefix="companion-") as scratch:
        store = Store(log_path or Path(scratch) / "games.sqlite3")
        session = Session(game, store)
        session.doubt_below = 0.0  # a recording has nobody to ask: judge what was read
        resumed = session.resume(trust_board=True) if log_path else False
        printer = _Printer(session)
        if path.suffix == ".jsonl":
            yield from _referee_jsonl(session, path, overrides, resumed, printer)
        else:
            yield from _referee_frames(
                game, session, path, profile_path, overrides, resumed, printer, settle
            )


def _referee_jsonl(
    session: Session,
    path: Path,
    overrides: dict[str, Any],
    resumed: bool,
    printer: _Printer,
) -> Iterator[dict[str, Any]]:
    game = session.game
    skip_to = session.last_frame if resumed else None
    yield from printer.new()
    for number, obj in read_jsonl(path):
        if skip_to is not None and number <= skip_to:
            continue
        if obj.get("event") == "players":
            if not resumed:
                options = {k: v for k, v in obj.items() if k != "event"}
                if "count" in options:
                    options["players"] = options.pop("count")
                session.start({**options, **overrides})
                resumed = True
            continue
        if not resumed:
            session.start(dict(overrides))
            resumed = True
        try:
            if "event" in obj:
                session.event(obj)
            else:
                session.observe(game.parse_state(obj), frame=number)
        except InputError as err:
            raise InputError(f"line {number} of {path}: {err}") from None
        yield from printer.new()


def _referee_frames(
    game: Game[S],
    session: Session[S],
    path: Path,
    profile_path: Path | None,
    overrides: dict[str, Any],
    resumed: bool,
    printer: _Printer,
    settle: int,
) -> Iterator[dict[str, Any]]:
    from companion.capture.sources import FolderSource, VideoSource
    from companion.referee.loop import FrameLoop
    from companion.referee.stillness import StillnessGate
    from companion.vision.calibration import Profile
    from companion.vision.pipeline import BoardPipeline

    folder = path if path.is_dir() else None
    if profile_path is None:
        if folder is None or not (folder / PROFILE_FILE).is_file():
            raise InputError(
                f"no calibration profile for {path}: give --profile (made by companion calibrate)"
            )
        profile_path = folder / PROFILE_FILE
    pipeline = BoardPipeline(game, Profile.load(profile_path, game=game.id))
    if not resumed:
        session.start({**(folder_settings(folder) if folder else {}), **overrides})
    start = session.last_frame + 1 if resumed and session.last_frame is not None else 0
    source = FolderSource(path, start=start) if folder else VideoSource(path, start=start)
    loop = FrameLoop(session, pipeline, StillnessGate(settle_frames=settle))
    loop.events = folder_events(folder)
    yield from printer.new()
    with source:
        for frame in source:
            step = loop.step(frame)
            if step.problem:
                log.warning("frame %s: %s", frame.name, step.problem)
            yield from printer.new()
    loop.finish()  # what was entered after the last photo
    yield from printer.new()
