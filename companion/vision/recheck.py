"""Has the board or the camera moved since calibration?

A knocked tray or a bumped camera makes every later reading wrong in ways a reader cannot see
(cells shifted by a fraction still look like cells).  What must stay put is the tray's rim: the
margin band between the rectified image's border and the playing area, which no move changes.
At calibration we keep, for a few short segments along each side, the brightness-gradient
profile across that band (border -> a little way into the playing area).  Later the same
profiles are matched against the reference by normalised cross-correlation (blind to light
level and contrast), each giving how far the rim's edges moved across that side; a least-squares
translation + rotation + scale through those shifts says how far the board's corners moved.

Only a few hundred numbers are stored and a check costs well under a millisecond.
"""

from __future__ import annotations

import itertools
import logging
from dataclasses import dataclass

import cv2
import numpy as np

from companion.errors import ProfileError
from companion.games.base import JSON, BoardGeometry

log = logging.getLogger(__name__)

KIND = "rim-profiles"
SEGMENTS_PER_SIDE = 4
SEARCH_CELLS = 0.4
"""Largest rim shift measured, in cells; anything beyond reads as 'no longer matches'."""
INWARD_CELLS = 0.1
"""How far into the playing area the stored profile reaches (the area's edge is its key edge)."""
MOVED_CELLS = 1 / 8
"""Corner movement, in cells, above which the board counts as moved (loose tiles and camera
noise stay well under it; a quarter-cell knock or a 3 degree turn is well over it)."""
MIN_STRUCTURE = 0.6
"""Smallest gradient spread (grey levels per pixel) for a segment to be worth matching."""
MIN_MATCH = 0.6
"""Normalised correlation under which a segment counts as not found (covered, or moved far)."""
MAX_RESIDUAL_PX = 1.5
_SIDES = ("top", "right", "bottom", "left")
_INWARD = {"top": (0.0, 1.0), "right": (-1.0, 0.0), "bottom": (0.0, -1.0), "left": (1.0, 0.0)}


@dataclass(frozen=True)
class Drift:
    """The outcome of one check; ``shift_px`` is the largest corner movement in rectified
    (board) pixels, a lower bound when ``moved`` is set because the rim is no longer found."""

    moved: bool
    shift_px: float
    message: str


def _gray(board: np.ndarray) -> np.ndarray:
    if board.ndim == 3:
        board = cv2.cvtColor(board, cv2.COLOR_BGR2GRAY)
    return board.astype(np.float32)


def _segments(size: tuple[int, int], origin: int) -> list[tuple[str, int, int]]:
    """(side, start, stop) spans along each side, inside the playing area's extent so that the
    neighbouring sides' rims do not fall into a segment."""
    width, height = size
    out = []
    for side in _SIDES:
        length = width if side in ("top", "bottom") else height
        edges = np.linspace(origin, length - origin, SEGMENTS_PER_SIDE + 1).round().astype(int)
        out += [(side, int(a), int(b)) for a, b in itertools.pairwise(edges)]
    return out


def _profile(gray: np.ndarray, side: str, start: int, stop: int, depth: int) -> np.ndarray:
    """Mean brightness across the band, indexed by distance from the image border inwards."""
    if side == "top":
        return gray[:depth, start:stop].mean(axis=1)
    if side == "bottom":
        return gray[::-1][:depth, start:stop].mean(axis=1)
    if side == "left":
        return gray[start:stop, :depth].mean(axis=0)
    return gray[start:stop, ::-1][:, :depth].mean(axis=0)


def _centre(side: str, start: int, stop: int, size: tuple[int, int]) -> tuple[float, float]:
    """Where a segment's rim sits, relative to the board centre (the fit's origin)."""
    width, height = size
    mid = (start + stop) / 2
    x, y = {
        "top": (mid, 0.0),
        "bottom": (mid, float(height)),
        "left": (0.0, mid),
        "right": (float(width), mid),
    }[side]
    return x - width / 2, y - height / 2


def make_reference(board: np.ndarray, geometry: BoardGeometry) -> JSON:
    """The rim profiles of a rectified board (JSON-safe, a few hundred numbers)."""
    gray = _gray(board)
    height, width = gray.shape
    if (width, height) != geometry.size:
        raise ValueError(f"board is {width}x{height}, geometry says {geometry.size}")
    origin = geometry.origin
    depth = origin + max(2, round(INWARD_CELLS * geometry.cell_px))
    segments: list[JSON] = []
    for side, start, stop in _segments((width, height), origin):
        grad = np.diff(_profile(gray, side, start, stop, depth))
        segments.append(
            {
                "side": side,
                "span": [start, stop],
                "grad": [round(float(v), 2) for v in grad],
                "usable": bool(grad.std() >= MIN_STRUCTURE),
            }
        )
    usable = sum(s["usable"] for s in segments)
    if usable < 4:
        log.warning(
            "board rim shows little structure (%d usable segments): moves may go unnoticed", usable
        )
    return {
        "kind": KIND,
        "size": [width, height],
        "cell_px": geometry.cell_px,
        "depth": depth,
        "search": max(2, round(SEARCH_CELLS * geometry.cell_px)),
        "segments": segments,
    }


def _bad(what: str) -> ProfileError:
    return ProfileError(f"position reference {what}")


class PositionCheck:
    """Compares rectified boards with the calibration reference."""

    def __init__(
        self,
        size: tuple[int, int],
        cell_px: int,
        depth: int,
        search: int,
        segments: list[tuple[str, int, int]],
        grads: np.ndarray,
    ) -> None:
        self.size = size
        self.cell_px = cell_px
        self.depth = depth
        self.search = search
        self.segments = segments
        # zero-mean, unit-norm templates: the correlation then needs no per-call normalising
        centred = grads - grads.mean(axis=1, keepdims=True)
        self._templates = centred / np.linalg.norm(centred, axis=1, keepdims=True)
        normals, centres = [], []
        for side, start, stop in segments:
            normals.append(_INWARD[side])
            centres.append(_centre(side, start, stop, size))
        self._normals = np.array(normals)
        self._centres = np.array(centres)
        w, h = size
        self._corners = np.array([[-w, -h], [w, -h], [w, h], [-w, h]], dtype=np.float64) / 2

    @classmethod
    def from_reference(cls, ref: JSON) -> PositionCheck:
        """Rebuild from ``make_reference`` output; ``ProfileError`` if it is malformed."""
        if not isinstance(ref, dict) or ref.get("kind") != KIND:
            raise _bad(f"is not of kind {KIND!r}")
        try:
            width, height = (int(v) for v in ref["size"])
            cell_px, depth, search = int(ref["cell_px"]), int(ref["depth"]), int(ref["search"])
            rows = [
                (str(s["side"]), int(s["span"][0]), int(s["span"][1]), s["grad"])
                for s in ref["segments"]
                if s["usable"]
            ]
            grads = np.array([r[3] for r in rows], dtype=np.float64).reshape(len(rows), depth - 1)
        except (KeyError, TypeError, ValueError, IndexError):
            raise _bad("is damaged") from None
        if min(width, height, cell_px, depth, search) <= 0 or 2 * depth >= min(width, height):
            raise _bad("has impossible sizes")
        for side, start, stop, _ in rows:
            length = width if side in ("top", "bottom") else height
            if side not in _SIDES or not 0 <= start < stop <= length:
                raise _bad(f"has a bad segment ({side} {start}..{stop})")
        keep = [i for i in range(len(rows)) if np.ptp(grads[i]) > 0]
        return cls(
            (width, height),
            cell_px,
            depth,
            search,
            [rows[i][:3] for i in keep],
            grads[keep],
        )

    def _shifts(self, gray: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per segment: how far its rim edges moved inwards (px) and how well it matched."""
        n, length = self._templates.shape
        s = self.search
        current = np.stack(
            [np.diff(_profile(gray, side, a, b, self.depth + s)) for side, a, b in self.segments]
        )
        # pad outwards so that a rim moved towards the border still overlaps
        current = np.pad(current, ((0, 0), (s, 0)), mode="edge")
        scores = np.empty((n, 2 * s + 1))
        for k in range(2 * s + 1):
            window = current[:, k : k + length]
            centred = window - window.mean(axis=1, keepdims=True)
            norm = np.linalg.norm(centred, axis=1)
            scores[:, k] = (centred * self._templates).sum(axis=1) / np.maximum(norm, 1e-6)
        best = scores.argmax(axis=1)
        rows = np.arange(n)
        shift = (best - s).astype(np.float64)
        inner = (best > 0) & (best < 2 * s)
        left = scores[rows, np.clip(best - 1, 0, 2 * s)]
        mid = scores[rows, best]
        right = scores[rows, np.clip(best + 1, 0, 2 * s)]
        denom = left - 2 * mid + right
        peaked = inner & (denom < 0)
        frac = np.where(peaked, 0.5 * (left - right) / np.where(peaked, denom, -1.0), 0.0)
        return shift + frac, np.where(inner, mid, 0.0)

    def _fit(self, shifts: np.ndarray, ok: np.ndarray) -> np.ndarray | None:
        """Translation, rotation and scale through the segment shifts; corner movements."""
        # inward shift = n . (t + theta * (-y, x) + k * (x, y)) for centre (x, y), normal n
        nx, ny = self._normals[:, 0], self._normals[:, 1]
        x, y = self._centres[:, 0], self._centres[:, 1]
        design = np.stack([nx, ny, -nx * y + ny * x, nx * x + ny * y], axis=1)
        for _ in range(2):
            if ok.sum() < 4 or len(set(np.abs(self._normals[ok, 0]))) < 2:
                return None
            params = np.linalg.lstsq(design[ok], shifts[ok], rcond=None)[0]
            residual = np.abs(design @ params - shifts)
            ok = ok & (residual <= MAX_RESIDUAL_PX)
        tx, ty, theta, k = params
        cx, cy = self._corners[:, 0], self._corners[:, 1]
        return np.stack([tx - theta * cy + k * cx, ty + theta * cx + k * cy], axis=1)

    def check(self, board: np.ndarray) -> Drift:
        """Compare one rectified board (BGR or grey, the calibrated size) with the reference."""
        if not self.segments:
            return Drift(False, 0.0, "position check unavailable: the board rim shows no edges")
        gray = _gray(board)
        if gray.shape[::-1] != self.size:
            raise ValueError(f"board is {gray.shape[1]}x{gray.shape[0]}, expected {self.size}")
        shifts, scores = self._shifts(gray)
        limit = MOVED_CELLS * self.cell_px
        ok = scores >= MIN_MATCH
        moves = self._fit(shifts, ok) if ok.sum() * 2 >= len(ok) else None
        if moves is None:
            return Drift(
                True,
                float(self.search),
                "board or camera moved (the board's rim no longer matches the calibration, or "
                "it is covered): put the board back where it was or calibrate again",
            )
        shift = float(np.linalg.norm(moves, axis=1).max())
        cells = shift / self.cell_px
        if shift > limit:
            return Drift(
                True,
                shift,
                f"board or camera moved by about {cells:.2f} cells since calibration: put the "
                "board back or calibrate again",
            )
        return Drift(False, shift, f"board in place (within {cells:.2f} cells)")
