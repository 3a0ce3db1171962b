"""One camera frame -> the game's reading of the board, with per-stage timings.

Everything that depends only on the calibration (the reader's learned settings, the perspective
maps with the lens folded in, the position reference) is built once here, so a frame costs one
remap, one shrink and the reader's own work.  A reader that finds raised pieces in the camera
frame through the camera's pose (``Reader.follows_board`` False) takes the frame as a pinhole
camera shows it, so through a bending lens its frame is undistorted first (one more remap of
the frame, the only per-frame cost a lens adds, and only for such readers); the others read
the rectified board, or look at a small card in the frame where the bending hardly shows.
The pipeline knows no game beyond the ``Game`` interface.
"""

from __future__ import annotations

import logging
import time
from typing import Generic

import cv2
import numpy as np

from companion.errors import CompanionError, ProfileError
from companion.games.base import Game, S
from companion.games.reading import Reading
from companion.vision.calibration import Profile, as_bgr, locate_by_markers
from companion.vision.recheck import MOVED_CELLS, Drift, PositionCheck
from companion.vision.rectify import Rectifier

log = logging.getLogger(__name__)


class BoardPipeline(Generic[S]):
    """Reads boards from frames of the calibrated camera view."""

    def __init__(self, game: Game[S], profile: Profile) -> None:
        self.game = game
        self.profile = profile
        self.reader = profile.load_reader(game)
        self.rectifier = Rectifier(profile.corners, game.geometry, profile.lens)
        lens, size = profile.lens, profile.image_size
        posed = not self.reader.follows_board
        self._undistort = lens.undistort_maps(size) if lens is not None and posed else None
        self.position = PositionCheck.from_reference(profile.reference)
        self.timings: dict[str, float] = {}
        """Milliseconds per stage ("rectify", "read") of the last ``read``."""

    def rectify(self, frame: np.ndarray) -> np.ndarray:
        """The top-down board image of one frame (``ProfileError`` if the frame size differs)."""
        height, width = frame.shape[:2]
        cal_w, cal_h = self.profile.image_size
        if (width, height) != (cal_w, cal_h):
            raise ProfileError(
                f"frame is {width}x{height} but the profile was calibrated at {cal_w}x{cal_h}: "
                "use the same camera resolution or calibrate again"
            )
        return self.rectifier(as_bgr(frame))

    def camera_frame(self, frame: np.ndarray) -> np.ndarray:
        """The frame as the reader takes it (``read_frame``, ``remember``, ``learn_example``):
        undistorted when the profile's lens bends lines and the reader reads frames through
        the camera's pose."""
        if self._undistort is None:
            return frame
        return cv2.remap(as_bgr(frame), *self._undistort, cv2.INTER_LINEAR)

    def read(self, frame: np.ndarray) -> tuple[Reading[S], np.ndarray]:
        """The reading of one frame and the rectified board it was read from."""
        start = time.perf_counter()
        board = self.rectify(frame)
        mid = time.perf_counter()
        seen = self.camera_frame(frame)
        lensed = time.perf_counter()
        reading = self.reader.read_frame(seen, board)
        end = time.perf_counter()
        self.timings = {"rectify": (mid - start) * 1e3, "read": (end - lensed) * 1e3}
        if self._undistort is not None:
            self.timings["undistort"] = (lensed - mid) * 1e3
        return reading, board

    def check_position(self, board: np.ndarray, frame: np.ndarray | None = None) -> Drift:
        """Has the board or the camera moved since calibration? (``board`` from ``read``).

        The rim check can be fooled by pieces that stand up: a tall stack or a figure at the
        edge leans over the rim in an oblique view.  So when it says "moved" and the profile
        was made with markers, the markers in ``frame`` (outside the tray, where no piece
        leans) have the last word.
        """
        drift = self.position.check(board)
        if drift.moved and frame is not None and self.profile.method == "aruco":
            drift = self._marker_drift(frame) or drift
        if drift.moved:
            log.warning("%s", drift.message)
        return drift

    def _marker_drift(self, frame: np.ndarray) -> Drift | None:
        """How far the markers put the playing area from where calibration found it, or None
        when they are not all in view (a hand over one: nothing can be said)."""
        try:
            area = locate_by_markers(self.game, as_bgr(frame), self.profile.lens)
        except CompanionError:
            return None
        calibrated = np.asarray(self.profile.corners, np.float64).reshape(4, 2)
        side = float(np.linalg.norm(np.roll(calibrated, -1, axis=0) - calibrated, axis=1).mean())
        cell = side / max(self.game.geometry.cols, self.game.geometry.rows)
        cells = float(np.linalg.norm(area - calibrated, axis=1).max()) / cell
        shift = cells * self.game.geometry.cell_px
        if cells > MOVED_CELLS:
            return Drift(
                True,
                shift,
                f"board or camera moved by about {cells:.2f} cells since calibration (its "
                "markers say so): put the board back or calibrate again",
            )
        return Drift(False, shift, f"board in place by its markers (within {cells:.2f} cells)")
