"""One Upwords camera and one rendered position with its truth, for the reader's stage tests.

The stages (``occupancy``, ``faces``, ``heights``, ``silhouette``) are tested on what they see
in a read: a frame from a camera beside the board, its view's sample maps, and the calibrated
empty colours.  Rendered once per test session: a render and a calibration take seconds.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from test_upwords_reader import GAME, learn_from, random_board

from companion.games.upwords.layout import View
from companion.games.upwords.model import Board
from companion.games.upwords.reader import TileReader
from companion.vision import synth

POSE = synth.Pose(tilt_deg=30.0, tilt_axis_deg=200.0, yaw_deg=20.0, fill=0.65)
"""A camera where ``companion mount`` advises one: every height shows."""


@dataclass(frozen=True)
class Scene:
    reader: TileReader
    view: View
    """The camera frame's view, as the reader builds it."""
    truth: Board
    frame: np.ndarray
    empty: np.ndarray
    """A frame of the empty board under other light than calibration's."""


@cache
def scene(look: str = "classic", seed: int = 3) -> Scene:
    """Random stacks 1-5 high on about half the squares (towers beside single tiles) filmed in
    ``look``, and the reader calibration learned from the empty board under the same camera."""
    rng = np.random.default_rng(seed)
    start = synth.render_scene(GAME, Board.empty(), look, rng, pose=POSE, board_seed=seed)
    reader, _ = learn_from(start)
    view = View.build(reader.camera.plane(0.0), reader.lean, reader.camera.image_size)
    truth = random_board(rng, 0.45)
    frame = synth.render_scene(
        GAME, truth, look, rng, pose=POSE, light=synth.random_light(rng), board_seed=seed
    ).image
    empty = synth.render_scene(
        GAME, Board.empty(), look, rng, pose=POSE, light=synth.random_light(rng), board_seed=seed
    ).image
    return Scene(reader, view, truth, frame, empty)
