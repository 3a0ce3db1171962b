"""Calibration: where the board lies in this camera's view and what it looks like there.

A ``Profile`` is everything the per-frame pipeline needs that depends on the table set-up: the
playing area's corners in the camera image, what the game's reader learned from the start
position, and a reference for noticing later that the board or the camera has moved.  It is
learned once from one photo of the start position and saved as JSON; loading validates every
field so that a damaged, foreign or stale profile is refused with a one-line reason instead of
producing silent nonsense readings.
"""

from __future__ import annotations

import json
import logging
import os
import re
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np

from companion.errors import InputError, ProfileError
from companion.games.base import JSON, Game
from companion.vision import markers
from companion.vision.recheck import PositionCheck, make_reference
from companion.vision.rectify import Rectifier

log = logging.getLogger(__name__)

FORMAT = "companion-profile"
VERSION = 1
Method = Literal["corners", "aruco"]
METHODS: tuple[str, ...] = ("corners", "aruco")

MIN_SIDE_PX = 16.0
"""Shorter board sides cannot be read; such corners are a typo or a mis-detection."""
MIN_SIN_ANGLE = 0.1
"""Corner angles under ~6 degrees mean three corners are (nearly) on one line."""
EDGE_SLACK_PX = 2.0
"""How far a corner may lie outside the image (rounding of hand-picked corners)."""
_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)"


def corner_problem(corners: np.ndarray, image_size: tuple[int, int] | None = None) -> str | None:
    """Why these corners cannot be a board's TL, TR, BR, BL in the image, or None if they can.

    The order matters: corners going the other way round would read the board mirrored.
    """
    pts = np.asarray(corners, dtype=np.float64)
    if pts.shape != (4, 2):
        return f"expected 4 corners (x,y), got {pts.size // 2 if pts.ndim == 2 else pts.size}"
    if not np.all(np.isfinite(pts)):
        return "a corner is not a finite number"
    if image_size is not None:
        w, h = image_size
        for i, (x, y) in enumerate(pts):
            if not (-EDGE_SLACK_PX <= x <= w + EDGE_SLACK_PX) or not (
                -EDGE_SLACK_PX <= y <= h + EDGE_SLACK_PX
            ):
                return (
                    f"the {markers.CORNER_NAMES[i]} corner ({x:.0f},{y:.0f}) lies outside the "
                    f"{w}x{h} image"
                )
    edges = np.roll(pts, -1, axis=0) - pts
    lengths = np.linalg.norm(edges, axis=1)
    if lengths.min() < MIN_SIDE_PX:
        return f"two corners are only {lengths.min():.0f} px apart (the board is degenerate)"
    nxt = np.roll(edges, -1, axis=0)
    sines = (edges[:, 0] * nxt[:, 1] - edges[:, 1] * nxt[:, 0]) / (
        lengths * np.roll(lengths, -1)
    )
    if np.all(sines < -MIN_SIN_ANGLE):
        return (
            "the corners go anticlockwise: give them as top-left, top-right, bottom-right, "
            "bottom-left"
        )
    if not np.all(sines > MIN_SIN_ANGLE):
        if np.any(np.abs(sines) <= MIN_SIN_ANGLE):
            return "three corners lie (almost) on one line (the board is degenerate)"
        return "the corners do not form a convex four-sided board (crossed or out of order)"
    return None


def parse_corners(text: str) -> np.ndarray:
    """The CLI's ``--corners "x,y x,y x,y x,y"`` -> float32 4x2 (TL, TR, BR, BL)."""
    pairs = text.split()
    if len(pairs) != 4:
        raise InputError(
            f"--corners {text!r} has {len(pairs)} points: give 4 as \"x,y x,y x,y x,y\" "
            "(top-left, top-right, bottom-right, bottom-left)"
        )
    pts = []
    for pair in pairs:
        match = re.fullmatch(rf"({_NUMBER}),({_NUMBER})", pair)
        if match is None:
            raise InputError(
                f"--corners point {pair!r} is not x,y: write each corner as two numbers with a "
                "comma and no space, e.g. \"102,88 1180,95 1175,870 98,860\""
            )
        pts.append((float(match[1]), float(match[2])))
    corners = np.array(pts, dtype=np.float32)
    problem = corner_problem(corners)
    if problem is not None:
        raise InputError(f"--corners {text!r}: {problem}")
    return corners


def _fail(path: str, what: str) -> ProfileError:
    return ProfileError(f"profile {path} {what}: calibrate again")


@dataclass
class Profile:
    """One camera view of one board: corners, learned reader settings, position reference."""

    game: str
    image_size: tuple[int, int]
    """(width, height) of the frames the corners refer to."""
    corners: np.ndarray
    """Playing-area corners TL, TR, BR, BL in image pixels (float32 4x2)."""
    method: Method
    reader: JSON
    """``Reader.to_json()`` of the reader learned from the start image."""
    reference: JSON
    """``recheck.make_reference`` of the rectified start image."""
    created: str = field(default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds"))
    camera_controls: JSON | None = None
    """Fixed camera settings (``ExposureTime``, ``AnalogueGain``, ``ColourGains``) for picamera2,
    so that the light the reader learned stays the light it sees."""

    def to_json(self) -> JSON:
        out: JSON = {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game,
            "image_size": [int(v) for v in self.image_size],
            "corners": [[round(float(x), 3), round(float(y), 3)] for x, y in self.corners],
            "method": self.method,
            "reader": self.reader,
            "reference": self.reference,
            "created": self.created,
        }
        if self.camera_controls is not None:
            out["camera_controls"] = self.camera_controls
        return out

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write atomically: a crash mid-write leaves the old profile, never half a new one."""
        target = Path(path)
        text = json.dumps(self.to_json(), indent=1)
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent or ".")
        except OSError as err:
            raise ProfileError(f"cannot write profile {path}: {err.strerror}") from None
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text + "\n")
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, target)
        except OSError as err:
            Path(tmp).unlink(missing_ok=True)
            raise ProfileError(f"cannot write profile {path}: {err.strerror}") from None

    @classmethod
    def load(cls, path: str | os.PathLike[str], game: Game | None = None) -> Profile:
        """Read and validate a profile; with ``game``, also check it belongs to that game and
        that the game accepts its reader settings."""
        name = str(path)
        try:
            raw = Path(path).read_bytes()
        except FileNotFoundError:
            gid = game.id if game is not None else "GAME"
            raise ProfileError(
                f"profile {name} not found: make one with `companion calibrate --game {gid} "
                f"--image START.jpg --out {name}`"
            ) from None
        except OSError as err:
            raise ProfileError(f"cannot read profile {name}: {err.strerror}") from None
        try:
            obj = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            raise _fail(name, "is not a text file") from None
        except json.JSONDecodeError as err:
            raise _fail(name, f"is not valid JSON (line {err.lineno})") from None
        if not isinstance(obj, dict) or obj.get("format") != FORMAT:
            raise ProfileError(
                f"{name} is not a companion profile: give the --out file of `companion calibrate`"
            )
        if obj.get("version") != VERSION:
            raise _fail(
                name, f"has version {obj.get('version')!r} but this program reads version {VERSION}"
            )
        profile = cls._from_json(name, obj)
        if game is not None:
            profile.check_game(game, name)
        return profile

    @classmethod
    def _from_json(cls, name: str, obj: dict[str, Any]) -> Profile:
        gid = obj.get("game")
        if not isinstance(gid, str) or not gid:
            raise _fail(name, "names no game")
        size = obj.get("image_size")
        if (
            not isinstance(size, list)
            or len(size) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size)
        ):
            raise _fail(name, "is damaged: 'image_size' must be [width, height] in pixels")
        image_size = (size[0], size[1])
        try:
            corners = np.array(obj.get("corners"), dtype=np.float32)
        except (TypeError, ValueError):
            raise _fail(name, "is damaged: 'corners' must be 4 [x, y] pairs") from None
        problem = corner_problem(corners, image_size)
        if problem is not None:
            raise _fail(name, f"has bad corners ({problem})")
        method = obj.get("method")
        if method not in METHODS:
            raise _fail(name, f"has unknown method {method!r} (expected corners or aruco)")
        reader, reference = obj.get("reader"), obj.get("reference")
        if not isinstance(reader, dict):
            raise _fail(name, "is damaged: 'reader' must be an object")
        if not isinstance(reference, dict):
            raise _fail(name, "is damaged: 'reference' must be an object")
        try:
            PositionCheck.from_reference(reference)
        except ProfileError as err:
            raise _fail(name, f"has a bad position reference ({err})") from None
        created = obj.get("created")
        if not isinstance(created, str):
            raise _fail(name, "is damaged: 'created' must be a date string")
        controls = obj.get("camera_controls")
        if controls is not None and not (
            isinstance(controls, dict) and all(isinstance(k, str) for k in controls)
        ):
            raise _fail(name, "is damaged: 'camera_controls' must be an object")
        return cls(
            game=gid,
            image_size=image_size,
            corners=corners.reshape(4, 2),
            method=method,
            reader=reader,
            reference=reference,
            created=created,
            camera_controls=controls,
        )

    def check_game(self, game: Game, name: str = "") -> None:
        """``ProfileError`` unless this profile was made for ``game`` and its reader loads."""
        label = name or "in use"
        if self.game != game.id:
            raise ProfileError(
                f"profile {label} was made for {self.game}, not {game.id}: calibrate again "
                f"with --game {game.id}"
            )
        try:
            game.load_reader(self.reader)
        except ProfileError as err:
            raise _fail(label, f"has reader settings the game refuses ({err})") from None
        except (KeyError, TypeError, ValueError, IndexError) as err:
            raise _fail(label, f"has damaged reader settings ({type(err).__name__}: {err})") from None


def as_bgr(image: np.ndarray) -> np.ndarray:
    """Frames may come grey (some USB cameras, test images); readers expect BGR uint8."""
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    return image


def area_from_tray(tray: np.ndarray, game: Game) -> np.ndarray:
    """Playing-area corners from the tray's outer corners: the tray fills the rectified image."""
    width, height = game.geometry.size
    full = np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float32)
    to_image = cv2.getPerspectiveTransform(full, np.asarray(tray, dtype=np.float32))
    area = game.geometry.area_corners().reshape(-1, 1, 2)
    return cv2.perspectiveTransform(area, to_image).reshape(4, 2).astype(np.float32)


def _refine_inner_corners(gray: np.ndarray, found: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """Sub-pixel marker corners: the detector's polygon fit is only good to about a pixel, and
    the tray corners are extrapolated from these points."""
    refined: dict[int, np.ndarray] = {}
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.01)
    for marker_id, quad in found.items():
        side = float(np.mean(np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)))
        module = side / 6.0  # 4x4 bits plus a one-bit black border
        win = int(np.clip(round(module / 2), 2, 6))
        pts = quad.reshape(-1, 1, 2).copy()
        cv2.cornerSubPix(gray, pts, (win, win), (-1, -1), criteria)
        pts = pts.reshape(4, 2)
        moved = np.linalg.norm(pts - quad, axis=1)
        refined[marker_id] = np.where((moved < module / 2)[:, None], pts, quad).astype(np.float32)
    return refined


def locate_by_markers(game: Game, image: np.ndarray) -> np.ndarray:
    """Playing-area corners from the four ArUco markers (``BoardNotFoundError`` if any is
    missing)."""
    gray = cv2.cvtColor(as_bgr(image), cv2.COLOR_BGR2GRAY)
    found = markers.detect(gray)
    tray = markers.tray_corners(_refine_inner_corners(gray, found) if len(found) == 4 else found)
    return area_from_tray(tray, game)


def calibrate(game: Game, image: np.ndarray, corners: np.ndarray | None = None) -> Profile:
    """Learn a profile from one photo of the start position (corners given, or from markers)."""
    image = as_bgr(image)
    height, width = image.shape[:2]
    if corners is not None:
        area = np.asarray(corners, dtype=np.float32).reshape(4, 2)
        problem = corner_problem(area, (width, height))
        if problem is not None:
            raise InputError(f"bad board corners: {problem}")
        method: Method = "corners"
    else:
        area = locate_by_markers(game, image)
        problem = corner_problem(area, (width, height))
        if problem is not None:
            raise InputError(
                f"the markers give impossible board corners ({problem}): check that each marker "
                "sits at its own corner (see calibration/README.md)"
            )
        method = "aruco"
    board = Rectifier(area, game.geometry)(image)
    reader = game.learn_reader(board)
    reference = make_reference(board, game.geometry)
    log.info("calibrated %s at %dx%d by %s: corners %s", game.id, width, height, method,
             np.round(area, 1).tolist())
    return Profile(
        game=game.id,
        image_size=(width, height),
        corners=area,
        method=method,
        reader=reader.to_json(),
        reference=reference,
    )
