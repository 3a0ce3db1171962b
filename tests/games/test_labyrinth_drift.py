"""The labyrinth reader under a camera without a lock, and its covered rule, on renders.

The lights are ``synth.drifting_lights``' last frame (the drift fully reached, washed-out
colours, a lifted black level, a bent tone curve, webcam JPEG, and a lamp on beside the board);
the looks are tuned ones, as the reader's constants were set on them.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from labyrinth_scenes import GAME, random_board, rectify, start

from companion.games.labyrinth.model import CHARACTER_COLOURS, Board, default_layout
from companion.games.labyrinth.reader import TileReader
from companion.vision.synth import Light, Pose, drifting_lights, random_pose, render_scene

FRAMES = 9


@cache
def _camera(look: str, seed: int) -> tuple[TileReader, Pose, list[Light]]:
    """A reader calibrated on the start of the default labyrinth, and the game's lights."""
    rng = np.random.default_rng(seed)
    pose = random_pose(rng)
    lights = drifting_lights(rng, FRAMES)
    scene = render_scene(GAME, start(), look, rng, pose=pose, light=lights[0], board_seed=seed)
    board, to_frame = rectify(scene)
    reader = TileReader.learn(board, GAME.geometry, homography=to_frame, image_size=(1280, 960))
    return reader, pose, lights


def _read(look: str, seed: int, truth: Board, hand: str | None = None) -> tuple[Board, bool]:
    reader, pose, lights = _camera(look, seed)
    rng = np.random.default_rng(seed + 1)
    scene = render_scene(GAME, truth, look, rng, pose=pose, light=lights[-1], hand=hand,
                         board_seed=seed)  # fmt: skip
    reading = reader.read(rectify(scene)[0])
    return reading.state, reading.covered


def _wrong(truth: Board, seen: Board) -> int:
    figures = sum(truth.where(c) != seen.where(c) for c in CHARACTER_COLOURS)
    return figures + (truth.bizarre != seen.bizarre) + len(truth.discs ^ seen.discs)


CAMERAS = [("clay", 6), ("ember", 4)]


@pytest.mark.parametrize(("look", "seed"), CAMERAS)
def test_colours_follow_the_camera(look: str, seed: int) -> None:
    """Before the colours were taken back to the start's, these frames were read with 3 (clay)
    and 7 (ember) figures and discs wrong; neither is covered with nothing over the board."""
    truth = random_board(np.random.default_rng(seed + 2), default_layout())
    seen, covered = _read(look, seed, truth)
    assert not covered
    assert _wrong(truth, seen) == 0


@pytest.mark.parametrize(("look", "seed"), CAMERAS)
def test_an_arm_over_the_board_marks_the_reading_covered(look: str, seed: int) -> None:
    truth = random_board(np.random.default_rng(seed + 2), default_layout())
    assert _read(look, seed, truth, hand="over")[1]


def test_a_profile_without_start_colours_reads_each_frame_in_its_own() -> None:
    reader = _camera("clay", 6)[0]
    params = reader.to_json()
    assert params["version"] == 3
    del params["reference"]
    params["version"] = 2
    old = TileReader.from_json(params, GAME.geometry)
    assert old.reference is None and old.to_json()["version"] == 2
    truth = random_board(np.random.default_rng(9), default_layout())
    _, pose, lights = _camera("clay", 6)
    scene = render_scene(GAME, truth, "clay", np.random.default_rng(1), pose=pose,
                         light=lights[0], board_seed=6)  # fmt: skip
    assert _wrong(truth, old.read(rectify(scene)[0]).state) == 0
