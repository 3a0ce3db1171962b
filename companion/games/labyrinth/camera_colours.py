"""This frame's colours taken back to the start image's, from the print that never changes.

Calibration learns every look (paints, discs, empty spaces, the board) from the start image, as
ratios to the card round them.  A ratio cancels a gain, but a camera without a lock does more
between frames: it washes colours towards grey, lifts its black level (a near-black channel
showing 30-80) and bends its tone curve, and a lamp switched on beside the board brightens one
side.  Those move a dark ink's or a stand's ratio as much as a figure's change of paint would.

The board's print outside the disc spaces and the figures' places is the same in every frame,
and the start image shows it (``reference``: a block image, ``BLOCK`` pixels a block).  Each
frame fits the map from its colours back to the start's at those blocks (``fit``): per channel,
an affine map of its colour, its grey (undoing washed-out colours) and its square (the tone
curve), over a smooth brightness field (the lamp: a quadratic in board position, shared by the
channels).  Figures, a disc's shadow or a hand that stray onto the blocks are outliers of that
fit, so it is iteratively reweighted (Tukey's weight on the log-colour residual).  ``undo``
applies the map to the whole board image, and the reader reads it as if the start's light were
still on.  What is left over (``residual``) is what the frame shows that the print does not:
where it covers much of the board, something is over it.
"""

from __future__ import annotations

import cv2
import numpy as np

BLOCK = 8
"""Pixels (of 64 a piece) a reference block spans: an eighth of a piece keeps the paths' print
apart from the card while a block's mean shrugs off a pixel of misregistration and JPEG noise."""
REACHES = (0.6, 0.4, 0.25, 0.15)
"""Tukey weight's reach (largest log-colour residual that still counts) at each refit: wide at
first, since the plain least-squares start is pulled by whatever covers the board, then about
the residual of the print itself under a full drift (0.05-0.1 on the tuned looks' renders)."""
LEVEL = 16.0
"""A channel's residual counts as its share of the colour plus this many levels, so the fit
minimises about the log-colour residual without letting noise near zero count without end."""
RIDGE = 0.01
"""Pull of each colour term towards leaving the frame as it is, about a twenty-fifth of one
mid-grey block's weight: only enough to keep the solve defined on a board of few colours.  A
pull of a whole block left a washed-out grey board's colours washed out (the colour and grey
terms are nearly one on grey print, and the pull settled them)."""
MIN_WEIGHT = 10.0
"""Least total weight a refit needs: fewer blocks like the print leave nothing to fit."""
ALTERNATIONS = 3
"""Colour terms and brightness field fitted in turn this many times before the first
reweighting (once after each reweighting, from the last field)."""
FIELD_TERMS = 6
"""1, u, v, u*u, u*v, v*v: the lamp's brightening over the board (it falls off smoothly)."""


def shrink(image: np.ndarray) -> np.ndarray:
    """(rows, cols, 3) float32 block means of a board image."""
    height, width = image.shape[:2]
    size = (width // BLOCK, height // BLOCK)
    return cv2.resize(image.astype(np.float32), size, interpolation=cv2.INTER_AREA)


def positions(shape: tuple[int, int]) -> np.ndarray:
    """(rows * cols, 2) the centre of every pixel of an image of ``shape`` (a board image or
    its blocks), scaled to -1..1 across it (x, y)."""
    rows, cols = shape
    ys, xs = np.mgrid[0:rows, 0:cols].astype(np.float64)
    return np.column_stack([(2 * xs.ravel() + 1) / cols - 1, (2 * ys.ravel() + 1) / rows - 1])


def _terms(colours: np.ndarray) -> np.ndarray:
    """(3 channels, points, 4) per channel: its colour, the grey, 1, its square (0..1)."""
    y = np.asarray(colours, np.float64).T / 255.0
    grey = np.broadcast_to(y.mean(axis=0), y.shape)
    return np.stack([y, grey, np.ones_like(y), y * y], axis=2)


_IDENTITY = np.array([[1.0, 0.0, 0.0, 0.0]] * 3)
"""The colour terms of a map that leaves the frame as it is."""


def _field_terms(where: np.ndarray) -> np.ndarray:
    u, v = where[:, 0], where[:, 1]
    return np.column_stack([np.ones_like(u), u, v, u * u, u * v, v * v])


class ColourMap:
    """The fitted map: ``colour`` (3, 4) per-channel terms, ``field`` (6,) the log brightness
    field over the board the colours are divided by."""

    def __init__(self, colour: np.ndarray, field: np.ndarray) -> None:
        self.colour = colour
        self.field = field

    def mapped(self, x: np.ndarray) -> np.ndarray:
        """(points, 3) the colour terms ``x`` (``_terms``) mapped, before the field."""
        return np.maximum((x @ self.colour[..., None])[..., 0].T * 255.0, 0.0)

    def at(self, x: np.ndarray, field_x: np.ndarray) -> np.ndarray:
        """(points, 3) the start's colours this map gives for terms ``x`` at ``field_x``."""
        return self.mapped(x) * np.exp(-field_x @ self.field)[:, None]

    def blocks(self, seen: np.ndarray, where: np.ndarray) -> np.ndarray:
        """(points, 3) the start image's colours as this map says the frame's ``seen`` were."""
        return self.at(_terms(seen), _field_terms(where))


def _residual(mapped: np.ndarray, known: np.ndarray) -> np.ndarray:
    return np.abs(np.log1p(mapped) - np.log1p(known)).max(axis=1)


def _solve(
    x: np.ndarray, known: np.ndarray, field_x: np.ndarray, weight: np.ndarray, field: np.ndarray
) -> ColourMap:
    """One weighted fit: the colour terms against the start's colours under the brightness
    ``field`` of the last fit, then the field against what the colour terms leave."""
    target = known.T / 255.0 * np.exp(field_x @ field)
    w = weight * ((128.0 + LEVEL) / (known.T + LEVEL)) ** 2  # (channels, points)
    xw = (x * w[..., None]).transpose(0, 2, 1)
    a = xw @ x + RIDGE * np.eye(4)
    b = (xw @ target[..., None])[..., 0] + RIDGE * _IDENTITY
    colour = np.linalg.solve(a, b[..., None])[..., 0]
    seen_gain = np.log1p(ColourMap(colour, field).mapped(x)).mean(axis=1)
    gain = seen_gain - np.log1p(known).mean(axis=1)
    fw = field_x.T * weight
    field = np.linalg.solve(fw @ field_x + 1e-3 * np.eye(FIELD_TERMS), fw @ gain)
    return ColourMap(colour, field)


def fit(seen: np.ndarray, known: np.ndarray, where: np.ndarray) -> ColourMap:
    """The map taking the frame's block colours ``seen`` (points, 3) to the start image's
    ``known`` ones at the same blocks, centred at ``where`` (points, 2, -1..1)."""
    x = _terms(seen)
    known = np.asarray(known, np.float64)
    field_x = _field_terms(where)
    colour_map = ColourMap(_IDENTITY, np.zeros(FIELD_TERMS))
    weight = np.ones(len(seen))
    for _ in range(ALTERNATIONS):
        colour_map = _solve(x, known, field_x, weight, colour_map.field)
    for reach in REACHES:
        off = _residual(colour_map.at(x, field_x), known)
        weight = np.clip(1.0 - (off / reach) ** 2, 0.0, None) ** 2
        if weight.sum() < MIN_WEIGHT:
            break  # nothing is like the print: keep the last map, the residual says why
        colour_map = _solve(x, known, field_x, weight, colour_map.field)
    return colour_map


def undo(colour_map: ColourMap, image: np.ndarray) -> np.ndarray:
    """The board ``image`` in the start image's colours (uint8): the colour terms as one
    colour matrix and a square, the field evaluated per block and spread smoothly."""
    colour = colour_map.colour
    matrix = np.diag(colour[:, 0]) + colour[:, 1:2] / 3.0
    affine = np.hstack([matrix, colour[:, 2:3] * 255.0]).astype(np.float32)
    y = image.astype(np.float32)
    mapped = cv2.transform(y, affine) + y * y * (colour[:, 3] / 255.0).astype(np.float32)
    height, width = image.shape[:2]
    rows, cols = height // BLOCK, width // BLOCK
    field = np.exp(-_field_terms(positions((rows, cols))) @ colour_map.field).astype(np.float32)
    spread = cv2.resize(field.reshape(rows, cols), (width, height), interpolation=cv2.INTER_LINEAR)
    return np.clip(np.maximum(mapped, 0.0) * spread[..., None] + 0.5, 0, 255).astype(np.uint8)


def residual(
    colour_map: ColourMap, seen: np.ndarray, known: np.ndarray, where: np.ndarray
) -> np.ndarray:
    """(points,) each block's largest log-colour difference from the start once mapped."""
    return _residual(colour_map.blocks(seen, where), np.asarray(known, np.float64))
