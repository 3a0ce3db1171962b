"""Where to mount the camera so the board fills the frame with enough pixels per cell.

A pinhole camera at height h looking straight down sees a width of 2 h tan(FOV/2) on the
table; a tilted one is placed by the same pinhole model (see ``advise``).  The board (cells
plus its rim) must fit both ways with a little room; the pixels per cell then follow from the
resolution.  Fields of view are the makers' published figures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from companion.errors import InputError
from companion.games.base import BoardGeometry


@dataclass(frozen=True)
class Camera:
    name: str
    hfov_deg: float
    vfov_deg: float
    width_px: int
    height_px: int


CAMERAS: dict[str, Camera] = {
    # Raspberry Pi Camera Module 3: 66 x 41 degrees over its 16:9 sensor (wide: 102 x 67); the
    # 4:3 frame Companion uses (1280x960) crops the sides: 2 atan(tan(33) * 3/4) = 51.9 degrees
    "cm3": Camera("Camera Module 3", 51.9, 41.0, 1280, 960),
    "cm3-wide": Camera("Camera Module 3 Wide", 85.6, 67.0, 1280, 960),
    # Camera Module 2: 62.2 x 48.8 degrees
    "cm2": Camera("Camera Module 2", 62.2, 48.8, 1280, 960),
    # a typical USB webcam (e.g. a 720p/1080p desk webcam): about 70 x 43 degrees at 16:9
    "webcam": Camera("USB webcam", 70.0, 43.0, 1280, 720),
}
ROOM = 1.15
"""The board's share of the frame: 15 % room for the markers and an imprecise mount."""


@dataclass(frozen=True)
class Advice:
    height_cm: float
    """Lens above the table."""
    px_per_cell: float
    """Camera pixels per cell where the board is smallest in the frame (its far edge)."""
    enough: bool
    text: str
    offset_cm: float = 0.0
    """How far the lens sits out from the board's centre, along the table (0: overhead)."""
    tilt_deg: float = 0.0


def advise(geometry: BoardGeometry, camera: Camera, *, cell_cm: float | None = None) -> Advice:
    """Where to put the camera so the board fills the frame, and the pixels per cell it gives.

    The camera looks at the board's centre from the tilt the game's reader wants (the middle
    of ``geometry.tilt_deg`` when that range excludes straight down, else straight down).  A
    tilt of t at distance L from the centre puts the board's near edge (half-length a along
    the tilt) at tan(angle) = a cos t / (L - a sin t) off the axis and its far edge at depth
    L + a sin t, where a cell is smallest: both follow from the pinhole model.
    """
    cell = geometry.cell_cm if cell_cm is None else cell_cm
    if not 0.5 <= cell <= 30:
        raise InputError(f"a cell of {cell} cm is not plausible: measure one square in cm")
    low, high = geometry.tilt_deg
    tilt = math.radians((low + high) / 2 if low > 0 else 0.0)
    board_w = (geometry.cols + 2 * geometry.margin) * cell * ROOM
    board_h = (geometry.rows + 2 * geometry.margin) * cell * ROOM
    # the board's longer side goes along the frame's longer side; the tilt runs along the
    # frame's shorter side (the camera leans over the table edge in front of it)
    across, along = max(board_w, board_h) / 2, min(board_w, board_h) / 2
    tan_h = math.tan(math.radians(camera.hfov_deg) / 2)
    tan_v = math.tan(math.radians(camera.vfov_deg) / 2)
    lift = along * math.sin(tilt)
    distance = max(across / tan_h + lift, along * math.cos(tilt) / tan_v + lift)
    focal_px = camera.width_px / 2 / tan_h
    far = distance + lift / ROOM  # depth of the board's far edge (the room lies beyond it)
    px = focal_px * cell * min(1.0, distance * math.cos(tilt) / far) / far
    height, offset = distance * math.cos(tilt), distance * math.sin(tilt)
    enough = px >= geometry.min_camera_px
    verdict = (
        "enough for the reader"
        if enough
        else f"too few: the reader needs {geometry.min_camera_px}; use a higher resolution "
        "or a narrower lens"
    )
    if tilt == 0:
        where = f"{camera.name} straight above the board at {height:.0f} cm (lens to table)"
        turn = f"Tilt it at most {high:.0f} degrees."
    else:
        where = (
            f"{camera.name} {height:.0f} cm above the table (lens to table) and {offset:.0f} cm "
            f"out from the board's centre, beside the board, aimed at its centre "
            f"{math.degrees(tilt):.0f} degrees from straight down"
        )
        overhead = max(across / tan_h, along / tan_v)
        turn = (
            f"Keep the tilt between {low:.0f} and {high:.0f} degrees: the reader tells stack "
            "heights apart by how far raised faces lean, which a camera straight above hardly "
            f"sees. Straight above at {overhead:.0f} cm instead, letters beside tall stacks are "
            "read better and the referee keeps heights from the game's history."
        )
    text = (
        f"{where}: the board fills the frame with room to spare, {px:.0f} camera pixels per "
        f"cell{' at its far edge' if tilt else ''} at {camera.width_px}x{camera.height_px} "
        f"({verdict}). {turn}"
    )
    return Advice(height, px, enough, text, offset, math.degrees(tilt))


def camera_named(name: str) -> Camera:
    try:
        return CAMERAS[name]
    except KeyError:
        raise InputError(f"unknown camera {name!r}: choose one of {', '.join(CAMERAS)}") from None
