"""How high to mount the camera so the board fills the frame with enough pixels per cell.

A pinhole camera at height h sees a width of 2 h tan(FOV/2) on the table.  The board (cells
plus its rim) must fit both ways with a little room, so the height is the larger of the two
fits; the pixels per cell then follow from the resolution.  Fields of view are the makers'
published figures.
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
    px_per_cell: float
    enough: bool
    text: str


def advise(geometry: BoardGeometry, camera: Camera, *, cell_cm: float | None = None) -> Advice:
    """Mounting height and the pixels per cell it gives, for a camera looking straight down."""
    cell = geometry.cell_cm if cell_cm is None else cell_cm
    if not 0.5 <= cell <= 30:
        raise InputError(f"a cell of {cell} cm is not plausible: measure one square in cm")
    board_w = (geometry.cols + 2 * geometry.margin) * cell * ROOM
    board_h = (geometry.rows + 2 * geometry.margin) * cell * ROOM
    # the board's longer side goes along the frame's longer side
    long_side, short_side = max(board_w, board_h), min(board_w, board_h)
    fit_h = long_side / (2 * math.tan(math.radians(camera.hfov_deg) / 2))
    fit_v = short_side / (2 * math.tan(math.radians(camera.vfov_deg) / 2))
    height = max(fit_h, fit_v)
    seen_width = 2 * height * math.tan(math.radians(camera.hfov_deg) / 2)
    px = camera.width_px * cell / seen_width
    enough = px >= geometry.min_camera_px
    verdict = (
        "enough for the reader"
        if enough
        else f"too few: the reader needs {geometry.min_camera_px}; use a higher resolution "
        "or a narrower lens"
    )
    text = (
        f"{camera.name} straight above the board at {height:.0f} cm (lens to table): the board "
        f"fills the frame with room to spare, {px:.0f} camera pixels per cell at "
        f"{camera.width_px}x{camera.height_px} ({verdict}). Tilt it at most 20 degrees."
    )
    return Advice(height, px, enough, text)


def camera_named(name: str) -> Camera:
    try:
        return CAMERAS[name]
    except KeyError:
        raise InputError(f"unknown camera {name!r}: choose one of {', '.join(CAMERAS)}") from None
