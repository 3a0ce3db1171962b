"""The last board the referee agreed with, as the camera saw it: squares nobody touched since
keep what the referee knows of them.

A fresh read of a square can only lose what the referee already holds: between two settled
boards a play changes one to seven squares, yet every read guesses all hundred again, and a
letter read right on nine boards can be misread on the tenth.  So after the referee accepts a
board the reader keeps each tile's top-face crop, and a later frame whose crop at the same place
still shows the same face keeps that square's stack as known.  Anything that changes a square
changes its crop: a tile put on it (another letter, one level higher), taken off, or a hand or
a taller neighbour's new tile in front of it; such squares, and every square that was empty, are
read afresh.  A letter the referee accepted wrong (read sure, never corrected) stays as it was
accepted, as it does in the match: the page's board shows it, and one correction there puts the
match and the memory right together.

"The same face" is judged stroke by stroke, not as a whole: each crop is put to zero mean and
unit contrast (room light changing between turns does not move that), and the largest change
between them averaged over 3x3 pixels must stay small.  A whole-crop correlation was not enough:
letters that differ by one stroke (an I put on a J in the same orientation, K on X, E on F)
correlate up to 0.88 one level apart, while unchanged faces go down to 0.83.  Measured on
rendered frames (unseen looks, 25-35 deg, new light each time): 4 410 unchanged tiles from three
self-played games changed by at most 1.08 (99.9 %; 3 outliers, partly hidden, above 1.6), and
1 155 tiles covered by a letter one stroke away by at least 2.17.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.games.upwords.model import Board

MAX_CHANGE = 1.6
"""Largest local change (in units of the crop's contrast) of a face still taken as the same."""
STROKE_PX = 3
"""Side of the square the change is averaged over, in crop pixels: about a stroke's width."""


def _standard(crops: np.ndarray) -> np.ndarray:
    flat = crops.reshape(len(crops), -1).astype(np.float32)
    flat -= flat.mean(axis=1, keepdims=True)
    flat /= np.maximum(flat.std(axis=1, keepdims=True), 1e-6)
    return flat.reshape(crops.shape)


def face_change(before: np.ndarray, now: np.ndarray) -> np.ndarray:
    """Per pair of crops ``(n, h, w)``: the largest change between them once each has zero mean
    and unit contrast, averaged over ``STROKE_PX`` squares.  0 for the same picture under any
    brightness and contrast; a stroke that came or went shows as about its contrast, 2 or more."""
    if len(before) == 0:
        return np.zeros(0)
    diff = _standard(now) - _standard(before)
    return np.array([np.abs(cv2.blur(d, (STROKE_PX, STROKE_PX))).max() for d in diff], np.float64)


def stacks_of(board: Board) -> tuple[np.ndarray, np.ndarray]:
    """The squares that hold a stack and their heights, in square order: where faces are cut."""
    tiles = np.array([i for i, (h, _) in enumerate(board.squares) if h], np.intp)
    return tiles, np.array([board.squares[i][0] for i in tiles], np.intp)


class FaceMemory:
    """One agreed board and its tiles' top-face crops, taken where the board's heights put them
    (in the order of ``stacks_of``)."""

    def __init__(self, board: Board, faces: np.ndarray) -> None:
        self.board = board
        self.tiles, self.heights = stacks_of(board)
        if len(faces) != len(self.tiles):
            raise ValueError(f"{len(faces)} face crops for {len(self.tiles)} tiles")
        self.faces = np.asarray(faces)

    def unchanged(self, faces_now: np.ndarray) -> list[tuple[int, float]]:
        """The remembered tiles whose faces, cropped the same way now, show no change: (square
        index, confidence) pairs, the confidence 1 for no change and 0.5 at ``MAX_CHANGE``."""
        change = face_change(self.faces, faces_now)
        return [
            (int(i), 1.0 - 0.5 * float(c) / MAX_CHANGE)
            for i, c in zip(self.tiles, change, strict=True)
            if c <= MAX_CHANGE
        ]
