"""Calibration: where the board lies in this camera's view and what it looks like there.

A ``Profile`` is everything the per-frame pipeline needs that depends on the table set-up: the
playing area's corners in the camera image, the lens when it bends lines (``vision/lens.py``:
fitted from photos of the ChArUco sheet, or estimated from the corner markers' sides), what the
game's reader learned from the start position, and a reference for noticing later that the
board or the camera has moved.  It is learned once from one photo of the start position and
saved as JSON; loading validates every field so that a damaged, foreign or stale profile is
refused with a one-line reason instead of producing silent nonsense readings.
"""

from __future__ import annotations

import json
import logging
import os
import re
import tempfile
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import cv2
import numpy as np

from companion.errors import BoardNotFoundError, InputError, ProfileError
from companion.games.base import JSON, Game, S
from companion.games.reading import Reader
from companion.vision import markers
from companion.vision.lens import Lens
from companion.vision.plumb_line import estimate_lens
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


def corner_problem(
    corners: np.ndarray, image_size: tuple[int, int] | None = None, lens: Lens | None = None
) -> str | None:
    """Why these corners cannot be a board's TL, TR, BR, BL in the image, or None if they can.

    The order matters: corners going the other way round would read the board mirrored.  With
    a ``lens`` the corners are its pinhole pixels, and where the lens shows them must be in the
    image (a barrel lens's pinhole pixels may lie past the frame's edge).
    """
    pts = np.asarray(corners, dtype=np.float64)
    if pts.shape != (4, 2):
        return f"expected 4 corners (x,y), got {pts.size // 2 if pts.ndim == 2 else pts.size}"
    if not np.all(np.isfinite(pts)):
        return "a corner is not a finite number"
    if image_size is not None:
        w, h = image_size
        seen = pts if lens is None else lens.distort(pts)
        for i, (x, y) in enumerate(seen):
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
    sines = (edges[:, 0] * nxt[:, 1] - edges[:, 1] * nxt[:, 0]) / (lengths * np.roll(lengths, -1))
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
            f'--corners {text!r} has {len(pairs)} points: give 4 as "x,y x,y x,y x,y" '
            "(top-left, top-right, bottom-right, bottom-left)"
        )
    pts = []
    for pair in pairs:
        match = re.fullmatch(rf"({_NUMBER}),({_NUMBER})", pair)
        if match is None:
            raise InputError(
                f"--corners point {pair!r} is not x,y: write each corner as two numbers with a "
                'comma and no space, e.g. "102,88 1180,95 1175,870 98,860"'
            )
        pts.append((float(match[1]), float(match[2])))
    corners = np.array(pts, dtype=np.float32)
    problem = corner_problem(corners)
    if problem is not None:
        raise InputError(f"--corners {text!r}: {problem}")
    return corners


def _fail(path: str, what: str) -> ProfileError:
    return ProfileError(f"profile {path} {what}: calibrate again")


def _other_game(path: str, made_for: str, wanted: str) -> ProfileError:
    return ProfileError(
        f"profile {path} was made for {made_for}, not {wanted}: calibrate again with "
        f"--game {wanted}"
    )


@dataclass(eq=False)
class Profile:
    """One camera view of one board: corners, learned reader settings, position reference.

    Compared by identity: ``corners`` is an array, whose ``==`` has no single truth value.
    """

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
    path: str = ""
    """The file it was loaded from or saved to (not itself saved): later messages name it."""
    lens: Lens | None = None
    """The camera's lens when it bends straight lines; ``corners`` are then its pinhole pixels.
    Profiles without one (all older ones) are read as a pinhole camera's."""

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
        if self.lens is not None:
            out["lens"] = self.lens.to_json()
        return out

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write atomically: a crash mid-write leaves the old profile, never half a new one."""
        target = Path(path)
        text = json.dumps(self.to_json(), indent=1)
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        except OSError as err:
            raise ProfileError(f"cannot write profile {path}: {err.strerror}") from None
        try:
            os.fchmod(fd, 0o644)  # mkstemp makes it private; a profile is no secret
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text + "\n")
                out.flush()
                os.fsync(out.fileno())
            os.replace(tmp, target)
            self.path = str(path)
        except OSError as err:
            Path(tmp).unlink(missing_ok=True)
            raise ProfileError(f"cannot write profile {path}: {err.strerror}") from None

    @classmethod
    def load(cls, path: str | os.PathLike[str], game: Game | str | None = None) -> Profile:
        """Read and validate a profile; with ``game`` (a game or its id), also check that it
        belongs to that game, and with a game object that the game accepts its reader
        settings."""
        name = str(path)
        gid = game.id if isinstance(game, Game) else game
        try:
            raw = Path(path).read_bytes()
        except FileNotFoundError:
            raise ProfileError(
                f"profile {name} not found: make one with `companion calibrate --game "
                f"{gid or 'GAME'} --image START.jpg --out {name}`"
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
        made_for = obj.get("game")
        if gid is not None and isinstance(made_for, str) and made_for != gid:
            raise _other_game(name, made_for, gid)  # says more than any damage found below
        profile = cls._from_json(name, obj)
        if isinstance(game, Game):
            profile.load_reader(game)
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
        lens = None
        if obj.get("lens") is not None:
            try:
                lens = Lens.from_json(obj["lens"])
            except ProfileError as err:
                raise _fail(name, f"is damaged: {err}") from None
        problem = corner_problem(corners, image_size, lens)
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
            path=name,
            lens=lens,
        )

    def load_reader(self, game: Game[S]) -> Reader[S]:
        """The game's reader from this profile; ``ProfileError`` if the profile was made for
        another game or the game refuses its reader settings."""
        label = self.path or "in use"
        if self.game != game.id:
            raise _other_game(label, self.game, game.id)
        try:
            return game.reader.from_json(self.reader, game.geometry)
        except ProfileError as err:
            raise _fail(label, f"has reader settings the game refuses ({err})") from None
        except (KeyError, TypeError, ValueError, IndexError) as err:
            detail = f"{type(err).__name__}: {err}"
            raise _fail(label, f"has damaged reader settings ({detail})") from None


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


def _edge_line(gray: np.ndarray, a: np.ndarray, b: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """A marker side as a fitted line (point, direction): the dark-to-light step found across
    the side at points along its middle, away from the corners."""
    length = float(np.linalg.norm(b - a))
    direction = (b - a) / length
    normal = np.array([-direction[1], direction[0]])
    if np.dot((a + b) / 2 - centre, normal) < 0:
        normal = -normal  # outwards, from the black border to the white paper
    reach = max(2.5, 0.7 * length / 6.0)  # well short of the bits inside the one-bit border
    offsets = np.arange(-reach, reach + 0.01, 0.25, dtype=np.float32)
    along = np.linspace(0.15, 0.85, 15, dtype=np.float32)
    base = a[None, :] + along[:, None] * (b - a)[None, :]
    pts = base[:, None, :] + offsets[None, :, None] * normal[None, None, :]
    samples = cv2.remap(
        gray, pts[..., 0].astype(np.float32), pts[..., 1].astype(np.float32), cv2.INTER_LINEAR
    )
    rise = np.diff(samples, axis=1)
    best = np.clip(rise.argmax(axis=1), 1, rise.shape[1] - 2)
    rows = np.arange(len(along))
    left, mid, right = rise[rows, best - 1], rise[rows, best], rise[rows, best + 1]
    denom = left - 2 * mid + right
    frac = np.where(denom < 0, 0.5 * (left - right) / np.where(denom < 0, denom, -1.0), 0.0)
    where = offsets[best] + 0.125 + 0.25 * frac  # diff sits between two samples
    edge = base + where[:, None] * normal[None, :]
    vx, vy, x0, y0 = cv2.fitLine(edge.astype(np.float32), cv2.DIST_HUBER, 0, 0.01, 0.01).ravel()
    return np.array([x0, y0, vx, vy])


def _intersect(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    matrix = np.array([[p[2], -q[2]], [p[3], -q[3]]])
    t = np.linalg.solve(matrix, q[:2] - p[:2])
    return p[:2] + t[0] * p[2:]


def _refine_markers(gray: np.ndarray, found: dict[int, np.ndarray]) -> dict[int, np.ndarray]:
    """Sub-pixel marker corners as crossings of fitted side lines: the detector's polygon fit
    is only good to a pixel or so, worse where the dark tray touches the marker's corner, and
    the tray corners are extrapolated from these points."""
    image = gray.astype(np.float32)
    refined: dict[int, np.ndarray] = {}
    for marker_id, quad in found.items():
        quad64 = quad.astype(np.float64)
        centre = quad64.mean(axis=0)
        lines = [_edge_line(image, quad64[i], quad64[(i + 1) % 4], centre) for i in range(4)]
        side = float(np.mean(np.linalg.norm(np.roll(quad64, -1, axis=0) - quad64, axis=1)))
        corners = []
        for i in range(4):
            try:
                point = _intersect(lines[i - 1], lines[i])
            except np.linalg.LinAlgError:
                point = quad64[i]
            # a crossing far from the detector's corner means a side fit went astray
            corners.append(point if np.linalg.norm(point - quad64[i]) < side / 6 else quad64[i])
        refined[marker_id] = np.array(corners, dtype=np.float32)
    return refined


def find_markers(image: np.ndarray) -> dict[int, np.ndarray]:
    """The corner markers in a frame, their corners sub-pixel where all four are found."""
    gray = cv2.cvtColor(as_bgr(image), cv2.COLOR_BGR2GRAY)
    found = markers.detect(gray)
    if len(found) < 4:
        # a dark tray rim touching a marker's corner joins the two into one dark blob that is
        # no square; growing the light areas by a pixel parts them (the fit below undoes it)
        for marker_id, quad in markers.detect(cv2.dilate(gray, np.ones((3, 3), np.uint8))).items():
            found.setdefault(marker_id, quad)
    return _refine_markers(gray, found) if len(found) == 4 else found


def area_from_markers(
    game: Game, found: dict[int, np.ndarray], lens: Lens | None = None
) -> np.ndarray:
    """Playing-area corners (pinhole pixels of ``lens``) from the markers' frame corners
    (``BoardNotFoundError`` if any is missing)."""
    if lens is not None:
        found = {i: lens.undistort(quad).astype(np.float32) for i, quad in found.items()}
    return area_from_tray(markers.tray_corners(found), game)


def locate_by_markers(game: Game, image: np.ndarray, lens: Lens | None = None) -> np.ndarray:
    """Playing-area corners from the four ArUco markers (``BoardNotFoundError`` if any is
    missing), in pinhole pixels of ``lens`` when given."""
    return area_from_markers(game, find_markers(image), lens)


def calibrate(
    game: Game, image: np.ndarray, corners: np.ndarray | None = None, lens: Lens | None = None
) -> Profile:
    """Learn a profile from one photo of the start position (corners given, or from markers).

    ``lens`` is the camera's, fitted from the ChArUco sheet (``charuco.fit_lens``); hand-given
    corners and found markers are frame pixels and are moved to its pinhole pixels.  Without
    one, markers that line up only through a bending lens give that lens (``plumb_line``), and
    hand-given corners are a pinhole's."""
    image = as_bgr(image)
    height, width = image.shape[:2]
    if corners is not None:
        area = np.asarray(corners, dtype=np.float32)
        problem = corner_problem(area, (width, height))
        if problem is not None:
            raise InputError(f"bad board corners: {problem}")
        area = area.reshape(4, 2)
        if lens is not None:
            area = lens.undistort(area).astype(np.float32)
        method: Method = "corners"
    else:
        found = find_markers(image)
        if lens is None and len(found) == len(markers.CORNER_IDS):
            lens = estimate_lens(found, (width, height))
        area = area_from_markers(game, found, lens)
        problem = corner_problem(area, (width, height), lens)
        if problem is not None:
            raise BoardNotFoundError(
                f"the markers give impossible board corners ({problem}): check that each marker "
                "sits at its own corner (see calibration/README.md)"
            )
        method = "aruco"
    rectifier = Rectifier(area, game.geometry, lens)
    board = rectifier(image)
    reader = game.reader.learn(
        board, game.geometry, homography=rectifier.homography, image_size=(width, height)
    )
    reference = make_reference(board, game.geometry)
    log.info(
        "calibrated %s at %dx%d by %s: corners %s%s",
        game.id,
        width,
        height,
        method,
        np.round(area.astype(float), 1).tolist(),
        "" if lens is None else f", lens k1 {lens.coefficients[0]:.3f} ({lens.source})",
    )
    return Profile(
        game=game.id,
        image_size=(width, height),
        corners=area,
        method=method,
        reader=reader.to_json(),
        reference=reference,
        lens=lens,
    )


def relocate(game: Game, frame: np.ndarray, profile: Profile) -> Profile | None:
    """After a knock, find the markers again: the profile with the new corners (same reader and
    reference), or None when the profile was not made with markers, they are not all in view,
    or the board they now frame does not match the calibrated rim."""
    if profile.method != "aruco":
        return None
    frame = as_bgr(frame)
    size = (frame.shape[1], frame.shape[0])
    if size != tuple(profile.image_size):
        return None
    try:
        area = locate_by_markers(game, frame, profile.lens)
    except BoardNotFoundError as err:
        log.info("cannot relocate: %s", err)
        return None
    if corner_problem(area, size, profile.lens) is not None:
        return None
    drift = PositionCheck.from_reference(profile.reference).check(
        Rectifier(area, game.geometry, profile.lens)(frame)
    )
    if drift.moved:
        log.info("markers found but the board does not match them: %s", drift.message)
        return None
    return replace(profile, corners=area)
