"""Where the camera is, from the one homography calibration gives (board plane -> frame).

Readers of raised pieces (pegs, figures) need the camera's position to undo the lean of what
stands up.  With square pixels and the principal point at the frame centre, the homography of
a plane fixes the focal length (Zhang's constraints) unless the camera looks straight down;
then a typical lens is assumed.
"""

from __future__ import annotations

import numpy as np

DEFAULT_FOCAL = 0.8
"""Focal length as a share of the frame width when the view is too square-on to tell."""


def camera_centre(
    board_to_frame: np.ndarray, image_size: tuple[int, int], *, default_focal: float = DEFAULT_FOCAL
) -> np.ndarray:
    """The camera centre in board units (the homography's source plane, its z the height above
    the board, always positive)."""
    width, height = image_size
    shift = np.array([[1.0, 0, -width / 2], [0, 1.0, -height / 2], [0, 0, 1.0]])
    a = shift @ np.asarray(board_to_frame, np.float64)
    a /= np.linalg.norm(a[:, 0])
    options = []
    den = a[2, 0] * a[2, 1]
    if abs(den) > 1e-12:
        options.append(-(a[0, 0] * a[0, 1] + a[1, 0] * a[1, 1]) / den)
    den = a[2, 1] ** 2 - a[2, 0] ** 2
    if abs(den) > 1e-12:
        options.append((a[0, 0] ** 2 + a[1, 0] ** 2 - a[0, 1] ** 2 - a[1, 1] ** 2) / den)
    plausible = [f2 for f2 in options if (0.2 * width) ** 2 < f2 < (5 * width) ** 2]
    focal = float(np.sqrt(np.median(plausible))) if plausible else default_focal * width
    m = np.diag([1 / focal, 1 / focal, 1.0]) @ a
    scale = 1.0 / np.sqrt(np.linalg.norm(m[:, 0]) * np.linalg.norm(m[:, 1]))
    r1, r2, t = m[:, 0] * scale, m[:, 1] * scale, m[:, 2] * scale
    if t[2] < 0:
        r1, r2, t = -r1, -r2, -t
    rot = np.column_stack([r1, r2, np.cross(r1, r2)])
    centre = -rot.T @ t
    return np.array([centre[0], centre[1], abs(centre[2])])
