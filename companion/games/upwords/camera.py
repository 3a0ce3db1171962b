"""The calibrated camera: a pinhole pose solved from the board's corners alone.

Heights are read from parallax, so the reader needs the camera, not only the board plane's
homography; a user knows neither the lens nor the principal point.  ``Camera.from_homography``
takes the principal point at the frame's centre and solves the focal length from Zhang's two
constraints (``solve_focal``), falling back to a typical lens when the view is too flat to
tell.  How far one tile level then moves each face (``level_shift_px``) is what says where the
view can show heights at all.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.games.base import JSON
from companion.games.upwords.layout import cell_origins, project
from companion.games.upwords.model import TILE_THICKNESS

MIN_LEVEL_PX = 2.5
"""Frame pixels one tile level must move a face for heights to be read from the view: at 3 px
and more the renders' heights are almost all right, under 2 px they are mostly guesses."""
TYPICAL_FOCAL = 0.8
"""Focal length as a share of the frame width when the view is too flat to solve for it."""
MIN_TILT_DEG = 8.0
"""Below this tilt the Zhang constraints are too weak to trust the solved focal length."""
FOCAL_RANGE = (0.3, 5.0)
"""Plausible focal lengths, as shares of the frame width."""


@dataclass(frozen=True)
class Camera:
    """A pinhole camera P = K [R | t] for board points (x, y, z) in cells, z into the table.

    x runs along the columns and y down the rows from the playing area's top-left corner (the
    convention of ``vision.synth.Scene.projection``); a point ``h`` cells above has z = -h.
    """

    projection: np.ndarray
    image_size: tuple[int, int]

    @classmethod
    def from_homography(
        cls,
        homography: np.ndarray,
        image_size: tuple[int, int],
        *,
        focal: float | None = None,
        principal: tuple[float, float] | None = None,
    ) -> Camera:
        """Board cells -> frame pixels homography -> camera (focal solved unless given)."""
        width, height = image_size
        cx, cy = principal if principal is not None else (width / 2.0, height / 2.0)
        h = np.asarray(homography, np.float64).reshape(3, 3)
        if focal is None:
            focal = solve_focal(h, (cx, cy), width)
        k = np.array([[focal, 0.0, cx], [0.0, focal, cy], [0.0, 0.0, 1.0]])
        m = np.linalg.solve(k, h)
        scale = 2.0 / (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
        if m[2, 2] < 0:  # the board lies in front of the camera
            scale = -scale
        r1, r2 = m[:, 0] * scale, m[:, 1] * scale
        vertical = np.cross(r1, r2)
        # the board plane stays exactly the measured homography; only the vertical is modelled
        board = h * scale
        projection = np.column_stack([board[:, 0], board[:, 1], k @ vertical, board[:, 2]])
        return cls(projection / projection[2, 3], (int(width), int(height)))

    def plane(self, height_cells: float) -> np.ndarray:
        """Board cells (x, y) on the plane ``height_cells`` above the board -> frame pixels."""
        p = self.projection
        h = np.column_stack([p[:, 0], p[:, 1], p[:, 3] - height_cells * p[:, 2]])
        return h / h[2, 2]

    def level_shift_px(self, thickness: float = TILE_THICKNESS) -> np.ndarray:
        """(N,) how far one tile level (tiles ``thickness`` cells thick) moves each square's
        face centre in the frame (between heights 1 and 2): the parallax heights are read
        from, zero under the camera."""
        centres = cell_origins() + 0.5
        low, high = (project(self.plane(lv * thickness), centres) for lv in (1, 2))
        return np.linalg.norm(high - low, axis=1)

    def tilt_deg(self) -> float:
        """Angle between the optical axis and the board's normal."""
        # K's last row is (0, 0, 1), so P's last row is R's last row up to scale
        row = self.projection[2, :3] / np.linalg.norm(self.projection[2, :3])
        return float(np.degrees(np.arccos(min(1.0, abs(row[2])))))

    def to_json(self) -> JSON:
        return {"projection": np.round(self.projection, 9).tolist(), "size": list(self.image_size)}

    @classmethod
    def from_json(cls, obj: JSON) -> Camera:
        """ValueError/KeyError/TypeError when malformed (the reader turns it into ProfileError)."""
        projection = np.array(obj["projection"], np.float64)
        size = tuple(int(v) for v in obj["size"])
        if projection.shape != (3, 4) or not np.isfinite(projection).all() or len(size) != 2:
            raise ValueError("camera")
        return cls(projection, (size[0], size[1]))


def solve_focal(h: np.ndarray, principal: tuple[float, float], width: int) -> float:
    """The focal length (px) from the two Zhang constraints, or the typical one if unsolvable."""
    fallback = TYPICAL_FOCAL * width
    shift = np.array([[1.0, 0.0, -principal[0]], [0.0, 1.0, -principal[1]], [0.0, 0.0, 1.0]])
    g = shift @ h
    g1, g2 = g[:, 0], g[:, 1]
    # (a/f^2) + b = 0 for each constraint, with a, b from the homography's first two columns
    a = np.array([g1[0] * g2[0] + g1[1] * g2[1], g1[0] ** 2 + g1[1] ** 2 - g2[0] ** 2 - g2[1] ** 2])
    b = np.array([g1[2] * g2[2], g1[2] ** 2 - g2[2] ** 2])
    denom = float(a @ a)
    inv_f2 = -float(a @ b) / denom if denom > 0 else 0.0
    if inv_f2 <= 0:
        return fallback
    focal = float(1.0 / np.sqrt(inv_f2))
    if not FOCAL_RANGE[0] * width <= focal <= FOCAL_RANGE[1] * width:
        return fallback
    # the board's normal in camera coordinates, with this focal length
    m = np.linalg.solve(np.array([[focal, 0, 0], [0, focal, 0], [0, 0, 1.0]]), g)
    normal = np.cross(m[:, 0], m[:, 1])
    tilt = np.degrees(np.arccos(min(1.0, abs(normal[2]) / np.linalg.norm(normal))))
    return focal if tilt >= MIN_TILT_DEG else fallback
