"""The Upwords reader on one game filmed while the camera's colours drift (no camera lock).

Calibration sees the empty board under the first frame's light; the game's later boards are
filmed under ``synth.drifting_lights`` (exposure, white balance, washed-out colours, a lifted
black level, a lamp switched on, webcam JPEG).  With nothing over the board no frame may be
called covered, and the squares must stay right; the same boards with an arm over them must
be.  The looks are the ones the reader was never developed on.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from companion.games.base import Game
from companion.games.upwords.draw import LOOKS_UNSEEN
from companion.games.upwords.model import Board
from companion.games.upwords.reader import TileReader
from companion.games.upwords.selfplay import played_game
from companion.vision import synth
from companion.vision.rectify import Rectifier


@dataclass
class DriftTally:
    """What the reader made of the frames of drifting games."""

    frames: int = 0
    covered: int = 0
    """Frames with nothing over the board read as covered."""
    squares_wrong: int = 0
    """Squares of the uncovered frames whose height or letter is wrong."""
    occupancy_wrong: int = 0
    """... of them, squares taken for empty when they hold a stack or the other way."""
    hands: int = 0
    hands_caught: int = 0
    read_ms: list[float] = field(default_factory=list)


def calibrated_reader(
    game: Game[Board], look: str, pose: synth.Pose, light: synth.Light, seed: int
) -> TileReader:
    """The reader ``companion calibrate`` would make from an empty-board frame."""
    rng = np.random.default_rng(seed)
    empty = synth.render_scene(
        game, Board.empty(), look, rng, pose=pose, light=light, board_seed=seed
    )
    rectifier = Rectifier(empty.corners, game.geometry)
    return TileReader.learn(
        rectifier(empty.image),
        game.geometry,
        homography=rectifier.homography,
        image_size=empty.image.shape[1::-1],
    )


def drift_game(
    tally: DriftTally, game: Game[Board], look: str, seed: int, frames: int, *, hand_every: int = 2
) -> None:
    """Film one self-played game in ``look`` under drifting light and add what was read."""
    rng = np.random.default_rng(seed)
    pose = synth.random_pose(rng, 30.0, min_tilt=10.0)
    lights = synth.drifting_lights(rng, frames + 1)
    reader = calibrated_reader(game, look, pose, lights[0], seed)
    boards = played_game(rng)
    picks = np.linspace(0, len(boards) - 1, frames).round().astype(int)
    for k, pick in enumerate(picks, start=1):
        truth = boards[pick]
        frame = synth.render_scene(
            game, truth, look, rng, pose=pose, light=lights[k], board_seed=seed
        ).image
        start = time.perf_counter()
        reading = reader.read_frame(frame)
        tally.read_ms.append(1000 * (time.perf_counter() - start))
        tally.frames += 1
        tally.covered += reading.covered
        if not reading.covered:
            for (h, a), (g, b) in zip(truth.squares, reading.state.squares, strict=True):
                tally.squares_wrong += (h, a) != (g, b)
                tally.occupancy_wrong += (h > 0) != (g > 0)
        if k % hand_every == 0:
            over = synth.render_scene(
                game, truth, look, rng, pose=pose, light=lights[k], board_seed=seed, hand="over"
            ).image
            tally.hands += 1
            tally.hands_caught += reader.read_frame(over).covered


def drift_report(game: Game[Board], *, games: int = 2, frames: int = 8, seed: int = 0) -> list[str]:
    """Lines for ``companion bench``: covered frames with nothing over the board, squares wrong
    and arms caught over ``games`` drifting games of ``frames`` frames each."""
    tally = DriftTally()
    for g in range(games):
        drift_game(tally, game, LOOKS_UNSEEN[(seed + g) % len(LOOKS_UNSEEN)], seed + g, frames)
    uncovered = tally.frames - tally.covered
    return [
        f"colour drift, {games} games x {frames} frames (unseen looks, no camera lock):",
        f"  frames called covered with nothing over the board: {tally.covered}/{tally.frames}",
        f"  squares wrong in the other frames: {tally.squares_wrong}/{100 * uncovered}"
        f" (empty or tile: {tally.occupancy_wrong})",
        f"  arms over the board caught: {tally.hands_caught}/{tally.hands}",
        f"  read time per frame: median {np.median(tally.read_ms):.0f} ms",
    ]
