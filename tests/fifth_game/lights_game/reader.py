"""Reading the lamps: a lamp that is on is much brighter than it was, off, at calibration."""

from __future__ import annotations

from typing import Self

import cv2
import numpy as np

from companion.errors import ProfileError
from companion.games.base import JSON, BoardGeometry
from companion.games.reading import Reader, Reading
from lights_game import CELLS, SIDE, Lamps

BRIGHTER = 40.0
"""Grey levels a lit lamp's middle rises above the same lamp switched off."""


def _middles(board: np.ndarray, geometry: BoardGeometry) -> np.ndarray:
    """Each lamp's mean grey level in the middle half of its cell."""
    grey = cv2.cvtColor(board, cv2.COLOR_BGR2GRAY).astype(np.float32)
    o, px, q = geometry.origin, geometry.cell_px, geometry.cell_px // 4
    return np.array(
        [
            grey[
                o + r * px + q : o + (r + 1) * px - q, o + c * px + q : o + (c + 1) * px - q
            ].mean()
            for r in range(SIDE)
            for c in range(SIDE)
        ]
    )


class LampReader(Reader[Lamps]):
    def __init__(self, off: np.ndarray, geometry: BoardGeometry) -> None:
        self.off = off
        self.geometry = geometry

    @classmethod
    def learn(
        cls,
        board: np.ndarray,
        geometry: BoardGeometry,
        *,
        homography: np.ndarray | None = None,
        image_size: tuple[int, int] | None = None,
    ) -> Self:
        return cls(_middles(board, geometry), geometry)

    @classmethod
    def from_json(cls, params: JSON, geometry: BoardGeometry) -> Self:
        off = params.get("off")
        if not isinstance(off, list) or len(off) != len(CELLS):
            raise ProfileError("a lights reader keeps 9 lamp brightnesses")
        return cls(np.array(off, np.float64), geometry)

    def to_json(self) -> JSON:
        return {"off": [round(float(v), 2) for v in self.off]}

    def read(self, board: np.ndarray) -> Reading[Lamps]:
        rise = _middles(board, self.geometry) - self.off
        lit = tuple(bool(v > BRIGHTER) for v in rise)
        confidence = np.clip(np.abs(rise - BRIGHTER) / BRIGHTER, 0.0, 1.0)
        return Reading(lit, confidence)
