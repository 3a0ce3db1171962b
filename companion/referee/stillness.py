"""The stillness gate: only a board that has come to rest is worth judging.

Between two settled positions a player's hand sweeps over the board, tiles are half turned and
the reader sees nonsense.  The gate passes a reading on only after ``settle_frames`` consecutive
frames that show no motion, no cover, and the same state, and then passes that state on once:
the referee judges each resting position a single time, however long the players look at it.
A frame that moved relative to the one before can still be the first of a rest: only the steps
between the agreeing frames must be still.

A cover that does not move is not a hand: hands come and go within seconds, while a reader can
take something that stays for good for a cover (an Upwords tower leaning over an empty square
in a way the reader cannot explain: 10 of 597 boards in the benchmark's games).  Waiting for it
to leave would stop the referee for the rest of the game.  So a covered reading that stays the
same and still for ``cover_patience`` frames is passed on once, with every cell unsure: the
referee then asks the host about whatever changed instead of judging it.
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.games.reading import Reading

# Mean absolute difference, in grey levels, between consecutive blurred thumbnails of the
# rectified board.  Sensor noise after the blur stays well under 1; a hand over a fifth of the
# board moves the mean by tens of levels.
DEFAULT_MOTION_THRESHOLD = 2.0
DEFAULT_SETTLE = 3
"""Agreeing still frames a state needs by default (``serve``, ``referee`` and the benches)."""
THUMB_WIDTH = 96
COVER_PATIENCE = 10
"""A still cover is passed on after this many times ``settle_frames`` frames (see above)."""


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
        self,
        settle_frames: int = DEFAULT_SETTLE,
        motion_threshold: float = DEFAULT_MOTION_THRESHOLD,
        cover_patience: int | None = None,
    ) -> None:
        if settle_frames < 1:
            raise ValueError(f"settle_frames must be at least 1, not {settle_frames}")
        self.settle_frames = settle_frames
        self.motion_threshold = motion_threshold
        self.cover_patience = (
            COVER_PATIENCE * settle_frames if cover_patience is None else cover_patience
        )
        if self.cover_patience <= settle_frames:
            raise ValueError(
                f"cover_patience must exceed settle_frames ({settle_frames}), "
                f"not {self.cover_patience}"
            )
        self._cover_state: object = None
        self._cover_frames = 0
        self._cover_passed = False
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
            still = previous is not None and self.motion <= self.motion_threshold
            return self._covered(reading, still=still)
        self._cover_frames = 0
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

    def _covered(self, reading: Reading, *, still: bool) -> Reading | None:
        """A covered frame: nothing to pass on, unless the same cover has stayed still for
        ``cover_patience`` frames; then once, with every cell unsure."""
        self._new_episode("covered")
        if not (still and self._cover_frames and reading.state == self._cover_state):
            self._cover_state, self._cover_frames, self._cover_passed = reading.state, 0, False
        self._cover_frames += 1
        if self._cover_frames < self.cover_patience or self._cover_passed:
            return None
        self._cover_passed = True
        self.status = "settled under a still cover"
        unsure = np.zeros(len(np.asarray(reading.confidence)))
        note = f"{reading.note}; still for {self._cover_frames} frames".lstrip("; ")
        return Reading(reading.state, unsure, covered=False, note=note)
