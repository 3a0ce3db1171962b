"""The four ArUco markers that locate a board without clicking its corners.

Convention (shared by calibration, the scene synthesiser and the printable sheet in
``calibration/``): marker id ``i`` (0 top-left, 1 top-right, 2 bottom-right, 3 bottom-left of the
board in its canonical orientation) lies just outside that corner of the tray, and the marker's
corner nearest the middle of the four markers touches the tray's outer corner.  The tray's outer
edge is ``geometry.margin`` cells outside the playing area, i.e. the tray fills the whole rectified
image.  Markers may be turned any way: only which corner is innermost matters.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.errors import BoardNotFoundError

DICTIONARY_ID = cv2.aruco.DICT_4X4_50
CORNER_IDS: tuple[int, int, int, int] = (0, 1, 2, 3)
"""Any other id is never a corner (``detect`` skips it), so a game may print one on its own card."""
CORNER_NAMES = ("top-left", "top-right", "bottom-right", "bottom-left")

_dictionary = cv2.aruco.getPredefinedDictionary(DICTIONARY_ID)


def marker_image(marker_id: int, side_px: int) -> np.ndarray:
    """The marker's black-and-white image (uint8, ``side_px`` square, with no quiet zone)."""
    return cv2.aruco.generateImageMarker(_dictionary, marker_id, side_px)


def detect(gray: np.ndarray) -> dict[int, np.ndarray]:
    """Every corner marker found: id -> its 4 image corners (float32 4x2, marker order)."""
    detector = cv2.aruco.ArucoDetector(_dictionary, cv2.aruco.DetectorParameters())
    corners, ids, _ = detector.detectMarkers(gray)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    for quad, marker_id in zip(corners, ids.ravel(), strict=True):
        if int(marker_id) in CORNER_IDS:
            found[int(marker_id)] = quad.reshape(4, 2).astype(np.float32)
    return found


def tray_corners(found: dict[int, np.ndarray]) -> np.ndarray:
    """The tray's outer corners (TL, TR, BR, BL; float32 4x2) from the four detected markers."""
    missing = [CORNER_NAMES[i] for i in CORNER_IDS if i not in found]
    if missing:
        raise BoardNotFoundError(
            f"corner marker(s) not found: {', '.join(missing)}; make sure all four printed "
            "markers are in view and lit, or give the board corners with --corners"
        )
    middle = np.mean([found[i].mean(axis=0) for i in CORNER_IDS], axis=0)
    inner = [found[i][np.argmin(np.linalg.norm(found[i] - middle, axis=1))] for i in CORNER_IDS]
    return np.array(inner, dtype=np.float32)
