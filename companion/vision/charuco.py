"""The camera's lens from photos of the printed ChArUco sheet (``calibration/lens-sheet.svg``).

A ChArUco sheet is a chessboard whose white squares carry ArUco markers: the markers say which
chessboard corner is which even when the sheet is partly out of view, and the chessboard
corners are found to a tenth of a pixel.  ``cv2.calibrateCamera`` fits the camera matrix and
Brown's distortion to where those corners appear.  The sheet's markers come from another
dictionary than the board's corner markers (``markers.py``), so neither is taken for the other.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.errors import InputError
from companion.vision.lens import Lens

SQUARES = (9, 6)
"""Chessboard squares across and down: 252 x 168 mm, an A4 page in landscape less margins."""
SQUARE_MM, MARKER_MM = 28.0, 21.0
"""A marker's 7 cells (5 bits and the black border) are 3 mm each, and it sits 3.5 mm inside
its square: at 2 px per mm every edge of the sheet falls on a pixel's edge (``sheet_image``)."""
DICTIONARY_ID = cv2.aruco.DICT_5X5_100
MIN_CORNERS = 12
"""Chessboard corners a photo must show to count: fewer hardly bound the lens (of 40)."""
FEW_PHOTOS = 3
"""Below this many photos the principal point is held at the frame's middle and the pixels
square: one or two views of a plane cannot tell them apart from the focal length."""

_board = cv2.aruco.CharucoBoard(
    SQUARES, SQUARE_MM, MARKER_MM, cv2.aruco.getPredefinedDictionary(DICTIONARY_ID)
)


def board() -> cv2.aruco.CharucoBoard:
    """The sheet's board (squares, sizes in mm, dictionary): what the sheet script draws."""
    return _board


@dataclass(frozen=True)
class LensFit:
    """A fitted lens and how well it fits: the corners' mean distance from where the fitted
    camera puts them, and how many photos and corners it used."""

    lens: Lens
    rms_px: float
    photos: int
    corners: int
    size: tuple[int, int]
    """(width, height) of the photos: the lens's matrix is in their pixels."""


def sheet_image(px_per_mm: int = 2) -> np.ndarray:
    """The sheet as a grey image (white 255, black 0), no margin: what is printed."""
    width = round(SQUARES[0] * SQUARE_MM * px_per_mm)
    height = round(SQUARES[1] * SQUARE_MM * px_per_mm)
    return _board.generateImage((width, height), marginSize=0, borderBits=1)


def sheet_corners(image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sheet's chessboard corners in a photo: (N x 3 sheet points in mm, N x 2 pixels)."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    corners, ids, _, _ = cv2.aruco.CharucoDetector(_board).detectBoard(gray)
    if ids is None or len(ids) < MIN_CORNERS:
        return np.zeros((0, 3), np.float32), np.zeros((0, 2), np.float32)
    objects = np.asarray(_board.getChessboardCorners(), np.float32).reshape(-1, 3)[ids.ravel()]
    return objects, np.asarray(corners, np.float32).reshape(-1, 2)


def fit_lens(photos: list[tuple[Path, np.ndarray]]) -> LensFit:
    """Camera matrix and distortion from photos of the sheet (name, image) of one camera at one
    resolution; ``InputError`` for a photo of another size or one that shows too little of
    the sheet."""
    if not photos:
        raise InputError("--lens needs at least one photo of calibration/lens-sheet.svg")
    size = (photos[0][1].shape[1], photos[0][1].shape[0])
    objects, pixels = [], []
    for path, image in photos:
        if (image.shape[1], image.shape[0]) != size:
            raise InputError(
                f"lens photo {path} is {image.shape[1]}x{image.shape[0]}, the first was "
                f"{size[0]}x{size[1]}: take every photo at the camera's one resolution"
            )
        obj, pix = sheet_corners(image)
        if len(obj) < MIN_CORNERS:
            raise InputError(
                f"lens photo {path} shows {len(obj)} of the sheet's corners, at least "
                f"{MIN_CORNERS} are needed: keep the whole sheet in view, flat and lit"
            )
        objects.append(obj)
        pixels.append(pix)
    width, height = size
    guess = np.array([[width, 0, width / 2], [0, width, height / 2], [0, 0, 1]], np.float64)
    flags = cv2.CALIB_FIX_K3 | cv2.CALIB_ZERO_TANGENT_DIST | cv2.CALIB_USE_INTRINSIC_GUESS
    if len(photos) < FEW_PHOTOS:
        flags |= cv2.CALIB_FIX_PRINCIPAL_POINT | cv2.CALIB_FIX_ASPECT_RATIO
    rms, matrix, coefficients, _, _ = cv2.calibrateCamera(
        objects, pixels, (width, height), guess, np.zeros(5), flags=flags
    )
    lens = Lens(np.asarray(matrix, np.float64), np.asarray(coefficients, np.float64).ravel()[:5])
    return LensFit(lens, float(rms), len(photos), sum(len(o) for o in objects), size)
