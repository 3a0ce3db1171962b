"""Two real Scrabble photos (``realdata/photos``) as material for the bare-board colour model.

They are not Upwords boards (15x15, coloured premium squares, one-high wooden tiles), so no
reader runs on them: only the occupancy colour test, cell by cell through each photo's
hand-fitted grid.  What calibration would have kept is taken from the photo itself: an empty
cell's own colour, and under a tile the median colour of the empty cells of its premium type
(the standard Scrabble layout), the best stand-in for what the tile hides.  The rim is the
board's border just outside the grid, as on an Upwords tray.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import cv2
import numpy as np

PHOTOS = Path(__file__).resolve().parents[2] / "realdata" / "photos"
NAMES = ("IMG_20151016_170219", "IMG_20151016_170721")
CELLS = 15
MIDDLE = np.linspace(0.25, 0.75, 5)
"""Where in a cell its colour is sampled (cell shares): the middle, as ``layout.COLOUR_GRID``."""
SCALE = 0.5
"""The photos are read at half their stored size (816x612): cells stay 30-50 pixels wide, and
relighting a photo takes a quarter of the time."""
RIM_OUT = 0.25
"""How far outside the grid (cells) the rim is sampled, as ``layout.RIM_OFFSET``."""

# one eighth of the standard premium layout (row <= col <= 7), mirrored to the whole board
_OCTANT = {
    "3W": [(0, 0), (0, 7)],
    "2W": [(1, 1), (2, 2), (3, 3), (4, 4), (7, 7)],
    "3L": [(1, 5), (5, 5)],
    "2L": [(0, 3), (2, 6), (3, 7), (6, 6)],
}


def premium_types() -> np.ndarray:
    """(15, 15) each cell's premium type as a small integer (0 plain)."""
    types = np.zeros((CELLS, CELLS), np.intp)
    for k, cells in enumerate(_OCTANT.values(), start=1):
        for r, c in cells:
            for a, b in ((r, c), (c, r)):
                for rr, cc in ((a, b), (a, 14 - b), (14 - a, b), (14 - a, 14 - b)):
                    types[rr, cc] = k
    return types


@dataclass(frozen=True)
class Photo:
    image: np.ndarray
    tiles: np.ndarray
    """(225,) which cells hold a tile (hand-labelled)."""
    cell_map: np.ndarray
    """float32 remap coordinates of each cell's middle points, (225 * len(MIDDLE)**2, 1, 2)."""
    rim_map: np.ndarray
    """... of the rim points, (4 * 15, 1, 2)."""
    where: np.ndarray
    """(225 + 60, 2) every cell's centre and rim point on the board, -1..1."""


def _bilinear(grid: np.ndarray, r: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Photo points at board positions (row, col in cells, may lie outside the grid)."""
    r0 = np.clip(np.floor(r).astype(int), 0, CELLS - 1)
    c0 = np.clip(np.floor(c).astype(int), 0, CELLS - 1)
    v, u = (r - r0)[:, None], (c - c0)[:, None]
    top = grid[r0, c0] * (1 - u) + grid[r0, c0 + 1] * u
    bottom = grid[r0 + 1, c0] * (1 - u) + grid[r0 + 1, c0 + 1] * u
    return top * (1 - v) + bottom * v


@cache
def photo(name: str) -> Photo:
    image = cv2.imread(str(PHOTOS / f"{name}.jpg"))
    image = cv2.resize(image, None, fx=SCALE, fy=SCALE, interpolation=cv2.INTER_AREA)
    grid = SCALE * np.array(json.loads((PHOTOS / f"{name}.grid.json").read_text()), np.float64)
    rows = (PHOTOS / f"{name}.board.txt").read_text().split()
    tiles = np.array([ch != "." for row in rows for ch in row])
    cells = np.arange(CELLS * CELLS)
    vs, us = np.meshgrid(MIDDLE, MIDDLE, indexing="ij")
    r = (cells // CELLS)[:, None] + vs.ravel()[None]
    c = (cells % CELLS)[:, None] + us.ravel()[None]
    cell_pts = _bilinear(grid, r.ravel(), c.ravel())
    t = np.arange(CELLS) + 0.5
    out = np.full(CELLS, -RIM_OUT)
    far = np.full(CELLS, CELLS + RIM_OUT)
    rim_r = np.concatenate([out, far, t, t])
    rim_c = np.concatenate([t, t, out, far])
    rim_pts = _bilinear(grid, rim_r, rim_c)
    centres = np.stack([cells % CELLS + 0.5, cells // CELLS + 0.5], axis=1)
    where = np.concatenate([centres, np.stack([rim_c, rim_r], axis=1)])
    return Photo(
        image,
        tiles,
        cell_pts.astype(np.float32).reshape(-1, 1, 2),
        rim_pts.astype(np.float32).reshape(-1, 1, 2),
        (where - CELLS / 2) / (CELLS / 2),
    )


def _sample(image: np.ndarray, points: np.ndarray) -> np.ndarray:
    out = cv2.remap(image, points[..., 0], points[..., 1], cv2.INTER_LINEAR)
    return out.reshape(-1, 3).astype(np.float64)


def colours(seen: Photo, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(225, 3) every cell's median middle colour in ``image`` and (60, 3) the rim's colours."""
    cells = _sample(image, seen.cell_map).reshape(CELLS * CELLS, -1, 3)
    return np.median(cells, axis=1), _sample(image, seen.rim_map)


def calibrated(seen: Photo) -> tuple[np.ndarray, np.ndarray]:
    """What calibration would have kept of the board (see the module's docstring)."""
    cells, rim = colours(seen, seen.image)
    types = premium_types().ravel()
    known = cells.copy()
    for k in np.unique(types):
        empty = (types == k) & ~seen.tiles
        known[(types == k) & seen.tiles] = np.median(cells[empty], axis=0)
    return known, rim
