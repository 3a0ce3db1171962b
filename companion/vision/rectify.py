"""Frame -> top-down board image, with the mapping computed once per calibration.

The perspective maps are built once (they depend only on the corners and the lens), so each
frame costs one ``cv2.remap`` at twice the output size and one area-averaging shrink; the
shrink averages the camera's pixels over each output pixel, which keeps thin arcs and letter
strokes from aliasing.  A profile's lens bends the map itself (each board point goes through
the pinhole homography, then where the lens shows that pinhole pixel), so undoing a lens
costs a frame nothing: the remap is the same size either way.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.games.base import BoardGeometry
from companion.vision.lens import Lens

SUPERSAMPLE = 2


class Rectifier:
    """Maps camera frames of one calibrated view to ``geometry.size`` top-down images."""

    def __init__(
        self, area_corners: np.ndarray, geometry: BoardGeometry, lens: Lens | None = None
    ) -> None:
        """``area_corners`` are pinhole pixels of ``lens`` (frame pixels when it is None)."""
        self.geometry = geometry
        self.lens = lens
        self.area_corners = np.asarray(area_corners, dtype=np.float32).reshape(4, 2)
        width, height = geometry.size
        # board (rectified px) -> pinhole image px
        self.homography = cv2.getPerspectiveTransform(geometry.area_corners(), self.area_corners)
        # output pixel centres of the supersampled image, in rectified pixel coordinates
        ss = SUPERSAMPLE
        xs, ys = np.meshgrid(
            (np.arange(width * ss, dtype=np.float32) + 0.5) / ss - 0.5,
            (np.arange(height * ss, dtype=np.float32) + 0.5) / ss - 0.5,
        )
        pts = np.stack([xs, ys], axis=-1).reshape(-1, 1, 2)
        ideal = cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)
        seen = ideal if lens is None else lens.distort(ideal).astype(np.float32)
        mapped = seen.reshape(height * ss, width * ss, 2)
        # x and y as two maps: the stubs do not allow None for map2 (both in one map1)
        self._map1, self._map2 = cv2.convertMaps(mapped[..., 0], mapped[..., 1], cv2.CV_16SC2)

    def __call__(self, frame: np.ndarray) -> np.ndarray:
        """The rectified board (same channels as ``frame``); outside the frame is black."""
        big = cv2.remap(
            frame, self._map1, self._map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
        )
        return cv2.resize(big, self.geometry.size, interpolation=cv2.INTER_AREA)

    def board_to_image(self, points: np.ndarray) -> np.ndarray:
        """Rectified-image points -> camera-image points (e.g. to draw overlays on the frame)."""
        pts = np.asarray(points, dtype=np.float32).reshape(-1, 1, 2)
        ideal = cv2.perspectiveTransform(pts, self.homography).reshape(-1, 2)
        return ideal if self.lens is None else self.lens.distort(ideal).astype(np.float32)

    def tray_corners(self) -> np.ndarray:
        """The rectified image's own corners in the camera image (the tray's outer corners)."""
        width, height = self.geometry.size
        return self.board_to_image(np.array([[0, 0], [width, 0], [width, height], [0, height]]))
