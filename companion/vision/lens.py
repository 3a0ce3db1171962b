"""A camera lens that bends straight lines (Brown's model, OpenCV's convention), both ways.

Webcams and the Pi camera's wide lenses bow the board's straight edges (barrel distortion);
everything past calibration assumes a pinhole.  A ``Lens`` says where the lens puts a point
that a pinhole camera of the same matrix would see at ``(u, v)``: calibration moves what it
finds in a photo to those pinhole ("ideal") pixels, and the rectifier folds the bending into
its precomputed map, so frames cost no more.  Ideal pixels share the frame's pixel grid (the
same camera matrix), so a profile's corners stay pixels of a frame of that size.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.errors import ProfileError
from companion.games.base import JSON

INVERSE_STEPS = 40
"""Fixed-point steps that undo the lens on points: each step shrinks the error by about the
distortion's share at that radius (under 0.4 for any lens a board is readable through), so 40
leave well under 1e-6 px."""


@dataclass(frozen=True, eq=False)
class Lens:
    """Camera matrix and distortion coefficients (k1, k2, p1, p2, k3) as ``cv2.calibrateCamera``
    gives them; ``source`` says where they came from ("sheet" or "estimate")."""

    matrix: np.ndarray
    coefficients: np.ndarray
    source: str = "sheet"

    @classmethod
    def radial(
        cls,
        focal: float,
        centre: tuple[float, float],
        k1: float,
        k2: float = 0.0,
        source: str = "estimate",
    ) -> Lens:
        """A lens bending only along the radius from ``centre``, radius in units of ``focal``."""
        matrix = np.array([[focal, 0.0, centre[0]], [0.0, focal, centre[1]], [0.0, 0.0, 1.0]])
        return cls(matrix, np.array([k1, k2, 0.0, 0.0, 0.0]), source)

    def _normalised(self, points: np.ndarray) -> np.ndarray:
        pts = np.asarray(points, np.float64).reshape(-1, 2)
        k = self.matrix
        return np.column_stack([(pts[:, 0] - k[0, 2]) / k[0, 0], (pts[:, 1] - k[1, 2]) / k[1, 1]])

    def _pixels(self, xy: np.ndarray) -> np.ndarray:
        k = self.matrix
        return np.column_stack([xy[:, 0] * k[0, 0] + k[0, 2], xy[:, 1] * k[1, 1] + k[1, 2]])

    def _bend(self, xy: np.ndarray) -> np.ndarray:
        k1, k2, p1, p2, k3 = (float(c) for c in self.coefficients[:5])
        x, y = xy[:, 0], xy[:, 1]
        r2 = x * x + y * y
        radial = 1.0 + r2 * (k1 + r2 * (k2 + r2 * k3))
        return np.column_stack(
            [
                x * radial + 2 * p1 * x * y + p2 * (r2 + 2 * x * x),
                y * radial + p1 * (r2 + 2 * y * y) + 2 * p2 * x * y,
            ]
        )

    def distort(self, points: np.ndarray) -> np.ndarray:
        """Ideal (pinhole) pixels -> where this lens shows them in the frame (N x 2)."""
        return self._pixels(self._bend(self._normalised(points)))

    def undistort(self, points: np.ndarray) -> np.ndarray:
        """Frame pixels -> the ideal pixels a pinhole camera would show them at (N x 2)."""
        seen = self._normalised(points)
        ideal = seen.copy()
        for _ in range(INVERSE_STEPS):
            ideal += seen - self._bend(ideal)
        return self._pixels(ideal)

    def undistort_maps(self, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
        """``cv2.remap`` maps that turn a frame of ``size`` into its pinhole picture."""
        return cv2.initUndistortRectifyMap(
            self.matrix, self.coefficients, None, self.matrix, size, cv2.CV_16SC2
        )

    def reach_px(self, points: np.ndarray) -> float:
        """How far, at most, the lens moves any of these ideal pixels."""
        pts = np.asarray(points, np.float64).reshape(-1, 2)
        return float(np.linalg.norm(self.distort(pts) - pts, axis=1).max())

    def to_json(self) -> JSON:
        return {
            "matrix": np.round(self.matrix, 6).tolist(),
            "coefficients": [round(float(c), 8) for c in self.coefficients],
            "source": self.source,
        }

    @classmethod
    def from_json(cls, obj: object) -> Lens:
        """``to_json``'s object back (``ProfileError`` when it is not one)."""
        if not isinstance(obj, dict):
            raise ProfileError("'lens' must be an object")
        try:
            matrix = np.array(obj["matrix"], np.float64)
            coefficients = np.array(obj["coefficients"], np.float64).ravel()
        except (KeyError, TypeError, ValueError):
            raise ProfileError("'lens' needs a 3x3 'matrix' and a list of 'coefficients'") from None
        if matrix.shape != (3, 3) or coefficients.size not in (4, 5):
            raise ProfileError("'lens' needs a 3x3 'matrix' and 4 or 5 'coefficients'")
        if not (np.isfinite(matrix).all() and np.isfinite(coefficients).all()):
            raise ProfileError("'lens' holds a number that is not finite")
        if matrix[0, 0] <= 0 or matrix[1, 1] <= 0:
            raise ProfileError("'lens' has a focal length that is not positive")
        source = obj.get("source", "sheet")
        if not isinstance(source, str):
            raise ProfileError("'lens' source must be a string")
        return cls(matrix, np.pad(coefficients, (0, 5 - coefficients.size)), source)
