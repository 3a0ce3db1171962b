"""The Octiles reader on unseen editions unlike the tuned ones (light-on-dark and low-contrast
inks, double and outlined paths, cones, pawns and flat counters, thick glossy printed tiles,
ring-less circles) mid-game under cameras tilted up to 35 degrees and home light.

The reader was never tuned on these looks.  The bounds are what it does on these views today
(2 to 4 spaces in 68 read wrong per look, most of them with no confidence, so the referee
asks) with one space of room, so that a change that reads them worse fails; before the reader
took its appearance from each frame, slate and felt were refused ("not clearly in view") on
nearly every frame.  Ivory's lamp glare washes out its low-contrast ink on two tiles, which
then cannot be told from a hand: two of its frames are refused.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest
from octiles_scenes import BOARD, GAME, GEOMETRY, rectify

from companion.games.octiles.model import Position
from companion.games.octiles.reader import HUES, TileReader
from companion.vision.synth import Pose, random_light, random_pose, render_scene

SIZE = (1280, 960)
FRAMES = 4
ALLOWED = {"slate": 8, "ivory": 5, "felt": 5}
"""Spaces read wrong allowed in ``FRAMES`` mid-game frames (68 spaces) per look."""
REFUSED = {"slate": 0, "ivory": 2, "felt": 0}
"""Frames held covered allowed per look, with nothing over the board."""


@cache
def _view(look: str, seed: int) -> tuple[TileReader, Pose, int]:
    """A reader calibrated (exact corners) on a start render under a camera tilted up to 35 deg."""
    rng = np.random.default_rng(seed)
    pose, board_seed = random_pose(rng, max_tilt=35), int(rng.integers(1 << 30))
    scene = render_scene(
        GAME, GAME.start_state(), look, rng, pose=pose, board_seed=board_seed, size=SIZE
    )
    board, to_frame = rectify(scene)
    return TileReader.learn(board, GEOMETRY, homography=to_frame, image_size=SIZE), pose, board_seed


@pytest.mark.parametrize(("look", "seed"), [("slate", 41), ("ivory", 42), ("felt", 43)])
def test_mid_game_boards_are_read_and_not_refused(look: str, seed: int) -> None:
    reader, pose, board_seed = _view(look, seed)
    rng = np.random.default_rng(seed + 100)
    wrong = runners = refused = 0
    for _ in range(FRAMES):
        truth = GAME.lab.random_state(rng)
        scene = render_scene(GAME, truth, look, rng, pose=pose, light=random_light(rng),
                             board_seed=board_seed, size=SIZE)  # fmt: skip
        reading = reader.read(rectify(scene)[0])
        refused += reading.covered  # nothing lies over the board
        errors = GAME.lab.reading_errors(truth, reading.state)
        wrong += errors["spaces"][0]
        runners += errors["runner places"][0]
    assert refused <= REFUSED[look]
    assert wrong <= ALLOWED[look]
    assert runners <= 1  # of 144 places


def test_a_hand_over_an_unseen_edition_still_marks_the_reading_covered() -> None:
    reader, pose, board_seed = _view("ivory", 42)
    rng = np.random.default_rng(5)
    truth = GAME.lab.random_state(rng)
    scene = render_scene(GAME, truth, "ivory", rng, pose=pose, board_seed=board_seed,
                         hand="over", size=SIZE)  # fmt: skip
    reading = reader.read(rectify(scene)[0])
    assert reading.covered and reading.note.startswith("cannot read")


def test_runner_paints_are_learned_from_the_start_image() -> None:
    """Slate's green is far from the standard green's hue; the reader takes it from the
    runners on the green circles at calibration, and reads green runners as green."""
    reader = _view("slate", 41)[0]
    green = list(HUES).index("green")
    assert abs(float(reader.hues[green]) - HUES["green"]) > 10
    faces = dict.fromkeys(BOARD.spaces)
    truth = Position.make(faces, {"SC4": "green", "@W2": "green", "SD3": "yellow"}, 3)
    _, pose, board_seed = _view("slate", 41)
    scene = render_scene(GAME, truth, "slate", np.random.default_rng(6), pose=pose,
                         board_seed=board_seed, size=SIZE)  # fmt: skip
    reading = reader.read(rectify(scene)[0])
    assert reading.state.runner_map == truth.runner_map and not reading.covered
    standard = TileReader.from_json({**reader.to_json(), "version": 2}, GEOMETRY)
    assert standard.read(rectify(scene)[0]).covered  # with the standard hues: not a runner
