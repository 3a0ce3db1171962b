"""Rectified tray image -> 49 tile values, learned from one picture of the start pattern.

Each tile is read by comparing two sets of pixels: the bands where its arcs lie when it shows 0
(around the top-left and bottom-right corners) and where they lie when it shows 1.  Whichever
band set looks like arc rather than like the tile's centre wins.  Nothing about colours is fixed
in the code: calibration learns, per tile, the arc and tile colours this camera sees, so arcs may
be lighter or darker than the tiles and any hue.  The comparison is local to one tile, so uneven
light across the tray does not matter, and the bands are wider than an arc so that a tile sitting
a few percent off its place still reads right.

Corners clicked a few pixels off leave the tile grid misaligned by an amount that varies smoothly
across the tray.  Calibration finds each tile's best-fitting offset in the start image and fits
a smooth (quadratic) field through them, so single loose tiles do not pull it; reading then takes
each tile's pixels through a precomputed index at its offset.

A tile whose two band sets look alike (a hand, an arm, a card over it) gives no contrast; such
tiles get confidence near 0 and mark the reading as covered.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from companion.errors import ProfileError, VisionError
from companion.games.amoeba.model import SIZE, Tray
from companion.games.base import JSON, BoardGeometry
from companion.games.reading import Reader, Reading

log = logging.getLogger(__name__)

BAND_SIGMA = 0.085
"""Radial spread of the sampling bands around the arc radius (1/2), in tiles."""
BAND_HALF_ANGLE = 25.0
"""The bands keep to arc angles 45 +- this many degrees, away from the tile sides where the
0-arcs and 1-arcs meet."""
CENTRE_SIGMA = 0.09
MAX_SHIFT_FRACTION = 0.16
"""Calibration searches this far (share of a tile) for each tile's best alignment."""
COVERED_CONTRAST = 0.15
"""Below this share of the learned arc contrast a tile does not show a tile state.  A hand over
the board leaves its tiles at most 0.034 (renders of 14 looks, 12 frames each), while a lamp's
glare on glossy faces leaves readable tiles as low as 0.28."""
START_AGREEMENT = 0.9
VERSION = 2

N = SIZE * SIZE


def _kernels(cell_px: int) -> np.ndarray:
    """Weights over one tile's pixels: 0-bands, 1-bands, centre (3 x cell_px**2, rows sum 1)."""
    t = (np.arange(cell_px, dtype=np.float64) + 0.5) / cell_px
    x, y = np.meshgrid(t, t)

    def band(cx: float, cy: float) -> np.ndarray:
        dx, dy = np.abs(x - cx), np.abs(y - cy)
        radial = np.exp(-0.5 * ((np.hypot(dx, dy) - 0.5) / BAND_SIGMA) ** 2)
        angle = np.degrees(np.arctan2(dy, dx))
        angular = np.clip(1.0 - np.abs(angle - 45.0) / BAND_HALF_ANGLE, 0.0, 1.0)
        return radial * angular

    zero = band(0, 0) + band(1, 1)
    one = band(1, 0) + band(0, 1)
    centre = np.exp(-0.5 * ((x - 0.5) ** 2 + (y - 0.5) ** 2) / CENTRE_SIGMA**2)
    stack = np.stack([zero, one, centre]).reshape(3, -1)
    return (stack / stack.sum(axis=1, keepdims=True)).astype(np.float32)


def _check_geometry(geometry: BoardGeometry) -> None:
    if geometry.cols != SIZE or geometry.rows != SIZE:
        raise ProfileError(
            f"the amoeba reader needs a {SIZE}x{SIZE} board geometry, got "
            f"{geometry.cols}x{geometry.rows}; calibrate again with --game amoeba"
        )


class TileReader(Reader[Tray]):
    """Reads the 49 tiles; one instance per calibrated camera view."""

    def __init__(
        self,
        geometry: BoardGeometry,
        shifts: np.ndarray,
        arc: np.ndarray,
        tile: np.ndarray,
    ) -> None:
        _check_geometry(geometry)
        self.geometry = geometry
        self.shifts = np.asarray(shifts, np.int32).reshape(N, 2)
        self.arc = np.asarray(arc, np.float32).reshape(N, 3)
        self.tile = np.asarray(tile, np.float32).reshape(N, 3)
        self._kernels = _kernels(geometry.cell_px)
        self._index = _sample_index(geometry, self.shifts)
        direction = self.arc - self.tile
        # scores come out as +1 for a 0-tile and -1 for a 1-tile under the calibration light
        self._unit = direction / np.maximum((direction**2).sum(axis=1, keepdims=True), 1e-6)
        self._tile_norm = np.maximum((self.tile**2).sum(axis=1), 1e-6)

    # --- calibration ----------------------------------------------------------------------
    @classmethod
    def learn(
        cls,
        board: np.ndarray,
        geometry: BoardGeometry,
        *,
        homography: np.ndarray | None = None,
        image_size: tuple[int, int] | None = None,
    ) -> TileReader:
        """Learn colours and grid alignment from a rectified image of either start phase (flat
        tiles: the rectified image is all it needs, not where the camera is)."""
        _check_geometry(geometry)
        _check_image(board, geometry)
        kernels = _kernels(geometry.cell_px)
        shifts = _alignment(board, geometry, kernels)
        feats = _gather(board, _sample_index(geometry, shifts), kernels)
        zero, one, centre = feats[:, 0], feats[:, 1], feats[:, 2]
        # the arc bands are the ones that differ from the tile's own (centre) colour
        zero_is_arc = np.linalg.norm(zero - centre, axis=1) > np.linalg.norm(one - centre, axis=1)
        values = np.where(zero_is_arc, 0, 1)
        parity = np.array([(r + c) % 2 for r in range(SIZE) for c in range(SIZE)])
        phase = int(np.mean(values ^ parity) > 0.5)
        agree = float(np.mean(values == (parity ^ phase)))
        if agree < START_AGREEMENT:
            raise VisionError(
                f"the start image does not show the pattern of circles ({agree:.0%} of tiles "
                "fit): set every tile as in the start position and calibrate again"
            )
        expected = (parity ^ phase).astype(bool)[:, None]
        arc = np.where(expected, one, zero)
        tile = (np.where(expected, zero, one) + centre) / 2
        # contrast against the tile's own brightness, so shade and uneven light do not count;
        # a tile brighter than most may be under a lamp's reflection, which adds light, not
        # contrast (as in ``_decide``)
        brightness = np.linalg.norm(tile, axis=1)
        contrast = np.linalg.norm(arc - tile, axis=1) / np.maximum(
            np.minimum(brightness, np.median(brightness)), 1
        )
        faint = int((contrast < COVERED_CONTRAST * np.median(contrast)).sum())
        if faint:
            raise VisionError(
                f"{faint} tile(s) in the start image show no arcs (a hand or object over the "
                "board?): clear the board and calibrate again"
            )
        log.info(
            "amoeba reader learned: phase %d, tile offsets %d..%d px, %.0f%% fit",
            phase,
            shifts.min(),
            shifts.max(),
            100 * agree,
        )
        return cls(geometry, shifts, arc, tile)

    @classmethod
    def from_json(cls, params: JSON, geometry: BoardGeometry) -> TileReader:
        """Rebuild from ``to_json``; ``ProfileError`` when anything is missing or malformed."""
        try:
            if params.get("version") != VERSION:
                raise ValueError(f"version {params.get('version')!r}")
            shifts = np.array(params["shifts"], dtype=np.float64)
            limit = _max_shift(geometry)
            if shifts.shape != (N, 2) or not (np.abs(shifts) <= limit).all():
                raise ValueError("tile offsets")
            arc = np.array(params["arc"], dtype=np.float32)
            tile = np.array(params["tile"], dtype=np.float32)
            if arc.shape != (N, 3) or tile.shape != (N, 3):
                raise ValueError("colour tables")
            if not (np.isfinite(arc).all() and np.isfinite(tile).all()):
                raise ValueError("colours")
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise ProfileError(
                f"the amoeba reader settings in the profile are damaged ({err}): calibrate again"
            ) from None
        return cls(geometry, shifts.astype(np.int32), arc, tile)

    def to_json(self) -> JSON:
        return {
            "version": VERSION,
            "shifts": self.shifts.tolist(),
            "arc": np.round(self.arc, 2).tolist(),
            "tile": np.round(self.tile, 2).tolist(),
        }

    # --- reading --------------------------------------------------------------------------
    def read(self, board: np.ndarray) -> Reading:
        _check_image(board, self.geometry)
        return self._decide(_gather(board, self._index, self._kernels))

    def _decide(self, feats: np.ndarray) -> Reading:
        zero, one, centre = feats[:, 0], feats[:, 1], feats[:, 2]
        score = ((zero - one) * self._unit).sum(axis=1)
        # brightness of this tile now against calibration: a dimmer light or shade scales the
        # arcs' contrast down with it, so the score is divided by it; a brighter tile may be a
        # lamp's reflection, which adds light without contrast, so brighter is never divided
        # out (a glossy look's glare otherwise reads as a hand: 14 of 40 frames)
        gain = np.clip((centre * self.tile).sum(axis=1) / self._tile_norm, 0.05, 1.0)
        strength = np.abs(score) / gain
        confidence = np.clip((strength - 0.1) / 0.4, 0.0, 1.0)
        unreadable = strength < COVERED_CONTRAST
        covered = bool(unreadable.any())
        confidence[unreadable] = 0.0
        bits = tuple(int(v) for v in (score < 0))
        note = f"{int(unreadable.sum())} tile(s) hidden" if covered else ""
        return Reading(state=Tray(bits), confidence=confidence, covered=covered, note=note)


def _check_image(board: Any, geometry: BoardGeometry) -> None:
    width, height = geometry.size
    if not isinstance(board, np.ndarray) or board.shape != (height, width, 3):
        shape = getattr(board, "shape", None)
        raise VisionError(
            f"expected a rectified {width}x{height} colour board image, got shape {shape}; "
            "rectify the frame with the calibration profile first"
        )


def _max_shift(geometry: BoardGeometry) -> int:
    return min(round(MAX_SHIFT_FRACTION * geometry.cell_px), geometry.origin)


def _features(
    image: np.ndarray, geometry: BoardGeometry, shift: tuple[int, int], kernels: np.ndarray
) -> np.ndarray:
    """Mean colour of each tile's 0-bands, 1-bands and centre, whole grid shifted: (49, 3, 3)."""
    cell, o = geometry.cell_px, geometry.origin
    x0, y0 = o + shift[0], o + shift[1]
    patch = image[y0 : y0 + SIZE * cell, x0 : x0 + SIZE * cell].astype(np.float32)
    tiles = patch.reshape(SIZE, cell, SIZE, cell, 3).transpose(0, 2, 1, 3, 4)
    return np.matmul(kernels, tiles.reshape(N, cell * cell, 3))


def _sample_index(geometry: BoardGeometry, shifts: np.ndarray) -> np.ndarray:
    """Flat pixel index of every tile's window at its own offset: (49, cell_px**2)."""
    cell, o = geometry.cell_px, geometry.origin
    width = geometry.size[0]
    local = np.arange(cell)
    rows, cols = np.divmod(np.arange(N), SIZE)
    y0 = o + rows * cell + shifts[:, 1]
    x0 = o + cols * cell + shifts[:, 0]
    ys = y0[:, None, None] + local[None, :, None]
    xs = x0[:, None, None] + local[None, None, :]
    return (ys * width + xs).reshape(N, cell * cell).astype(np.intp)


def _gather(image: np.ndarray, index: np.ndarray, kernels: np.ndarray) -> np.ndarray:
    """Like ``_features`` but each tile at its own offset (precomputed ``index``)."""
    tiles = image.reshape(-1, 3)[index].astype(np.float32)
    return np.matmul(kernels, tiles)


def _alignment(image: np.ndarray, geometry: BoardGeometry, kernels: np.ndarray) -> np.ndarray:
    """Each tile's offset (px, int) from a smooth field fitted to where its arcs fit best."""
    limit = _max_shift(geometry)
    offsets = [(dx, dy) for dy in range(-limit, limit + 1) for dx in range(-limit, limit + 1)]
    contrast = np.empty((len(offsets), N))
    for k, shift in enumerate(offsets):
        feats = _features(image, geometry, shift, kernels)
        contrast[k] = np.linalg.norm(feats[:, 0] - feats[:, 1], axis=1)
    best = np.array(offsets, dtype=np.float64)[contrast.argmax(axis=0)]
    weight = contrast.max(axis=0)
    rows, cols = np.divmod(np.arange(N), SIZE)
    r, c = (rows - 3) / 3, (cols - 3) / 3
    design = np.stack([np.ones(N), r, c, r * r, r * c, c * c], axis=1)
    keep = np.ones(N, bool)
    for _ in range(3):
        w = np.sqrt(weight * keep)[:, None]
        coef, *_ = np.linalg.lstsq(design * w, best * w, rcond=None)
        fitted = design @ coef
        # loose tiles and noise disagree with the field: leave them out and fit again
        keep = np.linalg.norm(best - fitted, axis=1) <= 1.5
        if keep.sum() < N // 2:
            break
    return np.clip(np.rint(fitted), -limit, limit).astype(np.int32)
