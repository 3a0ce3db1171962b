"""A frame's colours mapped back to calibration's, fitted to the bare board the frame shows.

A camera without a lock (a USB webcam, a phone, a folder of photos) changes its exposure, white
balance, saturation, black level and tone curve as a game goes on.  Everything the Octiles
reader learned at calibration (the bare stops, the back print, the runner paints, the light
patches) is in calibration's colours, and a per-channel gain cannot follow washed-out colours
or a lifted black level: a dark channel moves by a factor of two while a bright one hardly
moves.  So each frame is first mapped into calibration's colours.

The map is fitted on the board around the spaces, which no tile ever covers and which the
start image shows: wood, printed links, stops and outlines, many colours in fixed places.  At
calibration the reader keeps points there where the picture is locally even (a pixel's shift
or blur leaves their colour) and their colours (``reference_points``); each frame gives the
same points' colours, and per channel calibration's value is fitted as an affine function of
the frame's channel, the frame's brightness (colours washing out towards grey are undone by
a share of it) and the channel's square (the tone curve).  Runners, an arm or a lamp's pool
over some of the points drop out: the fit is iteratively reweighted with Tukey's weight,
starting from the per-channel gain alone, the most robust start.  (How many points fit says
nothing sure about an arm: a lamp's pool or a light board's vignette leaves as many out.)
"""

from __future__ import annotations

import cv2
import numpy as np

STEP = 4
"""Spacing of the candidate reference points (rectified pixels, 12 per pitch)."""
BLUR = 3
"""Box filter (pixels) both calibration's and a frame's colours are taken through: JPEG and
sensor noise average out, and a point's colour is the same at a pixel's misregistration;
small enough for a circle's painted ring (3 pixels wide) to count."""
EVEN = 24.0
"""A point is kept where its blurred colour varies by less than this (8-bit levels, largest
channel) within the blur's reach: away from edges of prints and wood grain lines."""
MAX_POINTS = 500
"""Reference points kept (evenly through the candidates): enough to outvote runners and
arms, few enough for the profile (about 10 kB) and the fit (under a millisecond)."""
REACHES = (60.0, 40.0, 25.0, 25.0)
"""Tukey weight's reach (8-bit levels, residual colour distance) at each refit: wide first,
as the start (per-channel gain) leaves washed-out colours tens of levels off, then about the
noise of a blurred JPEG point under a lamp's soft pool."""
RIDGE = 4.0
"""Pull of each map term towards the per-channel gain, in units of one fully weighted point
(each term's change counted by the levels it moves a typical colour): it settles the terms
the board's colours leave open (an edition in one hue of wood)."""
CLIPPED = 250.0
"""A point whose brightest channel reaches this in the frame is clipped (over-exposed): it
says nothing about the map and is left out of the fit and of the share that fits."""
MIN_POINTS = 40
"""Fewer unclipped points than this settle no map: the frame keeps the per-channel gain of
all the points (a white board over-exposed shows nothing else)."""
_TYPICAL = np.array([128.0, 128.0, 1.0, 255.0])
"""Size of each term (own channel, brightness, offset, square/255): the ridge counts a change
of each term's factor by the levels it moves a colour, a mid-grey for the linear terms and
white for the square (a board of light colours alone leaves the tone curve's bend unsettled,
and a bend fitted there would throw dark colours far off)."""


def reference_points(image: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Flat indices of the reference points of a calibration ``image`` (rectified, BGR): on the
    ``keep`` mask (True where nothing will lie), locally even, at most ``MAX_POINTS``."""
    height, width = image.shape[:2]
    smooth = cv2.blur(image, (BLUR, BLUR)).astype(np.float32)
    kernel = np.ones((BLUR, BLUR), np.uint8)
    spread = (cv2.dilate(smooth, kernel) - cv2.erode(smooth, kernel)).max(axis=2)
    ys, xs = np.mgrid[BLUR : height - BLUR : STEP, BLUR : width - BLUR : STEP]
    ys, xs = ys.ravel(), xs.ravel()
    good = keep[ys, xs] & (spread[ys, xs] < EVEN)
    index = ys[good] * width + xs[good]
    if len(index) > MAX_POINTS:
        index = index[np.linspace(0, len(index) - 1, MAX_POINTS).round().astype(np.int64)]
    return index.astype(np.int64)


def colours_at(image: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Blurred colours (points x 3, float) of ``image`` at the flat ``index``."""
    return cv2.blur(image, (BLUR, BLUR)).reshape(-1, 3)[index].astype(np.float32)


def _features(colours: np.ndarray) -> np.ndarray:
    """Per channel the map's terms of frame colours (points x 3 channels x 4 terms)."""
    grey = np.broadcast_to(colours.mean(axis=1, keepdims=True), colours.shape)
    ones = np.ones_like(colours)
    return np.stack([colours, grey, ones, colours * colours / 255.0], axis=-1)


def fit(frame: np.ndarray, known: np.ndarray) -> np.ndarray:
    """The map (3 channels x 4 terms) taking ``frame`` colours of the reference points to
    their ``known`` calibration colours (both points x 3)."""
    prior = np.zeros((3, 4))
    prior[:, 0] = np.median(known / np.maximum(frame, 1.0), axis=0)
    unclipped = frame.max(axis=1) < CLIPPED
    if unclipped.sum() < MIN_POINTS:
        return prior
    x = _features(frame[unclipped].astype(np.float64))
    y = known[unclipped].astype(np.float64)
    prior[:, 0] = np.median(y / np.maximum(frame[unclipped], 1.0), axis=0)
    params = prior.copy()
    for reach in REACHES:
        off = np.linalg.norm(np.einsum("pct,ct->pc", x, params) - y, axis=1)
        weight = np.clip(1.0 - (off / reach) ** 2, 0.0, None) ** 2
        pull = RIDGE * np.diag(_TYPICAL**2)
        for c in range(3):
            design = x[:, c, :]
            gram = design.T @ (design * weight[:, None]) + pull
            target = design.T @ (weight * y[:, c]) + pull @ prior[c]
            params[c] = np.linalg.solve(gram, target)
    return params


def apply(params: np.ndarray, colours: np.ndarray) -> np.ndarray:
    """Frame ``colours`` (... x 3) in calibration's colours, by the map ``params``."""
    flat = colours.reshape(-1, 3).astype(np.float32)
    mapped = np.einsum("pct,ct->pc", _features(flat), params.astype(np.float32))
    return np.asarray(np.clip(mapped, 0.0, 255.0), np.float32).reshape(colours.shape)
