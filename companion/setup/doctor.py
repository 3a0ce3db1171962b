"""``companion doctor``: is this table ready?  Camera, profile, light, focus, board in view.

Each check says what it found and, when something is wrong, what to do.  The light and focus
figures are measured on the straightened board, so the table around it does not count.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from companion.capture.sources import open_source
from companion.errors import CompanionError
from companion.games.base import Game
from companion.vision.calibration import Profile
from companion.vision.pipeline import BoardPipeline

DARK, BRIGHT = 60.0, 200.0
"""The board's brightest parts (95th percentile of grey) must reach DARK; its darkest (5th)
must stay under BRIGHT: a board printed dark is fine, a board in the dark is not."""
CLIPPED = 0.02
"""Share of board pixels at 255 above which glare hides detail."""
SHARP = 60.0
"""Variance of the Laplacian of the straightened board below which it is out of focus."""


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    text: str


def _frame(source: str) -> np.ndarray:
    with open_source(source) as frames:
        for frame in frames:
            return frame.image
    raise CompanionError(f"{source} gave no picture")


def examine(game: Game, *, source: str, profile_path: Path | None) -> list[Check]:
    """Run every check that the earlier ones allow."""
    checks: list[Check] = []
    try:
        frame = _frame(source)
    except CompanionError as err:
        return [Check("camera", False, str(err))]
    height, width = frame.shape[:2]
    checks.append(Check("camera", True, f"{source} gives {width}x{height} pictures"))
    if profile_path is None:
        checks.append(
            Check("profile", False, "no profile: run `companion calibrate` and pass --profile")
        )
        return checks
    try:
        pipeline = BoardPipeline(game, Profile.load(profile_path, game=game.id))
        reading, board = pipeline.read(frame)
    except CompanionError as err:
        checks.append(Check("profile", False, str(err)))
        return checks
    checks.append(Check("profile", True, f"{profile_path} fits this camera and game"))
    # what the view cannot show is said, but the game still runs (the rules fill it in)
    problems = pipeline.reader.view_problems()
    checks.append(Check("view", True, "; ".join(problems) or "serves the reader fully"))
    gray = cv2.cvtColor(board, cv2.COLOR_BGR2GRAY)
    low, high = (float(v) for v in np.percentile(gray, [5, 95]))
    clipped = float(np.mean(gray >= 254))
    if high < DARK:
        checks.append(Check("light", False, f"the board is dark (up to {high:.0f}): add light"))
    elif low > BRIGHT or clipped > CLIPPED:
        checks.append(
            Check("light", False, f"glare on the board ({clipped:.0%} white): soften the light")
        )
    else:
        checks.append(Check("light", True, f"grey levels {low:.0f} to {high:.0f}"))
    sharp = float(cv2.Laplacian(gray, cv2.CV_64F).var())
    checks.append(
        Check("focus", True, f"sharp ({sharp:.0f})")
        if sharp >= SHARP
        else Check("focus", False, f"blurred ({sharp:.0f}): focus the lens or clean it")
    )
    drift = pipeline.check_position(board)
    if drift.moved:
        checks.append(Check("board", False, drift.message))
    elif reading.covered:
        checks.append(
            Check("board", False, "something covers the board, or it is not where calibrated")
        )
    else:
        low = float(np.min(reading.confidence)) if len(reading.confidence) else 1.0
        checks.append(Check("board", True, f"in view and read (lowest confidence {low:.2f})"))
    return checks
