"""BoardPipeline: frame -> (reading, board), timed per stage, refusing frames of another size."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from companion.errors import ProfileError
from companion.games import find_game
from companion.games.amoeba.model import Tray
from companion.vision import synth
from companion.vision.calibration import Profile, calibrate
from companion.vision.pipeline import BoardPipeline

GAME = find_game("amoeba")


@pytest.fixture(scope="module")
def setup() -> tuple[Profile, synth.Pose, synth.Light]:
    rng = np.random.default_rng(4)
    pose = synth.Pose(tilt_deg=18.0, tilt_axis_deg=200.0, yaw_deg=190.0, fill=0.6)
    light = synth.random_light(rng)
    scene = synth.render_scene(GAME, GAME.start_state(), "classic", rng, pose=pose, light=light)
    return calibrate(GAME, scene.image), pose, light


def test_reads_boards_in_the_calibrated_view(setup) -> None:
    profile, pose, light = setup
    pipeline = BoardPipeline(GAME, profile)
    rng = np.random.default_rng(9)
    for _ in range(3):
        tray = Tray(tuple(int(v) for v in rng.integers(0, 2, 49)))
        scene = synth.render_scene(GAME, tray, "classic", rng, pose=pose, light=light)
        reading, board = pipeline.read(scene.image)
        assert board.shape == (*GAME.geometry.size[::-1], 3)
        assert reading.state == tray
        assert set(pipeline.timings) == {"rectify", "read"}
        assert all(ms >= 0 for ms in pipeline.timings.values())
        assert not pipeline.check_position(board).moved


def test_a_moved_board_is_noticed(setup) -> None:
    profile, pose, light = setup
    pipeline = BoardPipeline(GAME, profile)
    moved = replace(pose, offset=(pose.offset[0] + 0.08, pose.offset[1]))
    scene = synth.render_scene(
        GAME, GAME.start_state(), "classic", np.random.default_rng(2), pose=moved, light=light
    )
    _, board = pipeline.read(scene.image)
    assert pipeline.check_position(board).moved
    # the markers agree: the board did move
    assert pipeline.check_position(board, scene.image).moved


def test_tall_stacks_over_the_rim_are_not_taken_for_a_moved_board() -> None:
    """From beside the board, 5-high stacks on the edge squares lean over the tray rim the
    position check watches; the markers outside the tray show the board stayed put."""
    from companion.games.upwords.model import SIZE, Board

    upwords = find_game("upwords")
    pose = synth.Pose(tilt_deg=32.0, tilt_axis_deg=75.0, yaw_deg=10.0, fill=0.55, focal=0.8)
    rng = np.random.default_rng(3)
    start = synth.render_scene(upwords, Board.empty(), "navy", rng, pose=pose, board_seed=5)
    pipeline = BoardPipeline(upwords, calibrate(upwords, start.image))
    edge = [(0, c) for c in range(SIZE)] + [(SIZE - 1, c) for c in range(SIZE)]
    edge += [(r, 0) for r in range(1, SIZE - 1)] + [(r, SIZE - 1) for r in range(1, SIZE - 1)]
    squares = [(0, "")] * (SIZE * SIZE)
    for row, col in edge:
        squares[row * SIZE + col] = (5, "E")
    scene = synth.render_scene(upwords, Board(tuple(squares)), "navy", rng, pose=pose, board_seed=5)
    _, board = pipeline.read(scene.image)
    assert pipeline.position.check(board).moved  # the rim alone is fooled
    assert not pipeline.check_position(board, scene.image).moved


def test_frame_of_another_size_is_refused(setup) -> None:
    profile, _, _ = setup
    pipeline = BoardPipeline(GAME, profile)
    with pytest.raises(ProfileError) as err:
        pipeline.read(np.zeros((480, 640, 3), np.uint8))
    assert str(err.value) == (
        "frame is 640x480 but the profile was calibrated at 1280x960: use the same camera "
        "resolution or calibrate again"
    )


@pytest.mark.parametrize("level", [0, 128])
def test_blank_frames_give_low_confidence_not_an_error(setup, level: int) -> None:
    profile, _, _ = setup
    reading, _ = BoardPipeline(GAME, profile).read(np.full((960, 1280, 3), level, np.uint8))
    assert reading.covered
    assert float(np.max(reading.confidence)) < 0.5


def test_grey_frames_are_read_as_colour(setup) -> None:
    profile, pose, light = setup
    scene = synth.render_scene(
        GAME, GAME.start_state(), "classic", np.random.default_rng(3), pose=pose, light=light
    )
    gray = scene.image.mean(axis=2).astype(np.uint8)
    reading, board = BoardPipeline(GAME, profile).read(gray)
    assert board.ndim == 3
    assert reading.confidence.shape == (49,)


def test_profile_of_another_game_is_refused(setup) -> None:
    profile, _, _ = setup
    with pytest.raises(ProfileError, match="was made for upwords, not amoeba"):
        BoardPipeline(GAME, replace(profile, game="upwords"))
