"""The stillness gate: only a board that has come to rest is worth judging.

Between two settled positions a player's hand sweeps over the board, tiles are half turned and
the reader sees nonsense.  The gate passes a reading on only after ``settle_frames`` consecutive
frames that show no motion, no cover, and the same state, and then passes that state on once:
the referee judges each resting position a single time, however long the players look at it.
A frame that moved relative to the one before can still be the first of a rest: only the steps
between the agreeing frames must be still.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.games.base import Reading

# Mean absolute difference, in grey levels, between consecutive blurred thumbnails of the
# rectified board.  Sensor noise after the blur stays well under 1; a hand over a fifth of the
# board moves the mean by tens of levels.
DEFAULT_MOTION_THRESHOLD = 2.0
THUMB_WIDTH = 96


def _thumbnail(board: np.ndarray) -> np.ndarray:
    """Small, blurred greyscale copy: cheap to compare and blind to sensor noise."""
    gray = cv2.cvtColor(board, cv2.COLOR_BGR2GRAY) if board.ndim == 3 else board
    h, w = gray.shape[:2]
    height = max(1, round(h * THUMB_WIDTH / w))
    small = cv2.resize(gray, (THUMB_WIDTH, height), interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(small, (5, 5), 0).astype(np.float32)


class StillnessGate:
    """Feed it every frame's rectified board and reading; it returns each settled reading once."""

    def __init__(
        self, settle_frames: int = 3, motion_threshold: float = DEFAULT_MOTION_THRESHOLD
    ) -> None:
        if settle_frames < 1:
            raise ValueError(f"settle_frames must be at least 1, not {settle_frames}")
        self.settle_frames = settle_frames
        self.motion_threshold = motion_threshold
        self.status = "no board"
        self.motion = 0.0
        self._previous: np.ndarray | None = None
        self._agreeing: list[Reading] = []
        self._emitted = False
        self._emitted_state: object = None

    def _new_episode(self, status: str) -> None:
        self.status = status
        self._agreeing = []
        self._emitted = False

    def feed(self, board: np.ndarray | None, reading: Reading | None) -> Reading | None:
        """The settled reading the first time this resting position is confirmed, else None."""
        if board is None or reading is None:
            self._previous = None
            self._new_episode("no board")
            return None
        thumb = _thumbnail(board)
        previous, self._previous = self._previous, thumb
        if previous is not None and previous.shape == thumb.shape:
            self.motion = float(np.mean(np.abs(thumb - previous)))
        else:
            self.motion = 0.0
        if reading.covered:
            self._new_episode("covered")
            return None
        if self.motion > self.motion_threshold:
            # this frame differs from the last; it may be the first of a new rest, so it
            # opens the next episode: N agreeing frames need N - 1 still steps between them
            self._new_episode("moving")
            self._agreeing = [reading]
            return None
        if self._agreeing and reading.state != self._agreeing[0].state:
            self._new_episode("settling")
        if self._emitted:
            if reading.state == self._emitted_state:
                self.status = "settled"
                return None
            self._new_episode("settling")
        self._agreeing.append(reading)
        if len(self._agreeing) < self.settle_frames:
            self.status = f"settling {len(self._agreeing)}/{self.settle_frames}"
            return None
        confidence = np.minimum.reduce([np.asarray(r.confidence) for r in self._agreeing])
        settled = Reading(reading.state, confidence, covered=False, note=reading.note)
        self._agreeing = []
        self._emitted = True
        self._emitted_state = reading.state
        self.status = "settled"
        return settled
