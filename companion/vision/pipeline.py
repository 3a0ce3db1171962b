"""One camera frame -> the game's reading of the board, with per-stage timings.

Everything that depends only on the calibration (the reader's learned settings, the perspective
maps, the position reference) is built once here, so a frame costs one remap, one shrink and the
reader's own work.  The pipeline knows no game beyond the ``Game`` interface.
"""

from __future__ import annotations

import logging
import time

import numpy as np

from companion.errors import ProfileError
from companion.games.base import Game, Reading
from companion.vision.calibration import Profile, as_bgr
from companion.vision.recheck import Drift, PositionCheck
from companion.vision.rectify import Rectifier

log = logging.getLogger(__name__)


class BoardPipeline:
    """Reads boards from frames of the calibrated camera view."""

    def __init__(self, game: Game, profile: Profile) -> None:
        self.game = game
        self.profile = profile
        self.reader = profile.load_reader(game)
        self.rectifier = Rectifier(profile.corners, game.geometry)
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

    def read(self, frame: np.ndarray) -> tuple[Reading, np.ndarray]:
        """The reading of one frame and the rectified board it was read from."""
        start = time.perf_counter()
        board = self.rectify(frame)
        mid = time.perf_counter()
        reading = self.reader.read_frame(frame, board)
        end = time.perf_counter()
        self.timings = {"rectify": (mid - start) * 1e3, "read": (end - mid) * 1e3}
        return reading, board

    def check_position(self, board: np.ndarray) -> Drift:
        """Has the board or the camera moved since calibration? (``board`` from ``read``)."""
        drift = self.position.check(board)
        if drift.moved:
            log.warning("%s", drift.message)
        return drift
