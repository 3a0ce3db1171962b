"""Upwords stack heights on single renders: the camera they rest on, and the error they reach.

Heights come from where a stack's top face appears, which needs the camera: calibration solves
it from the board's corners alone (a user knows neither the lens nor the principal point), so
these tests calibrate that way too.  The error figure guards against regressions; it is far
from the goal (see the reader's notes): loose stacks move a face as much as one level does.
"""

from __future__ import annotations

import numpy as np
import pytest
from upwords_scenes import scene

from companion.games.upwords import UpwordsGame
from companion.games.upwords.draw import LOOKS, LOOKS_UNSEEN, MAX_SHIFT, STACK_SLACK, raised
from companion.games.upwords.heights import LETTER_SPREAD, choose_levels, refine_lean
from companion.games.upwords.heights_bench import HeightTally
from companion.games.upwords.layout import face_centres
from companion.games.upwords.model import MAX_HEIGHT, SIZE, TILE_THICKNESS, Board
from companion.games.upwords.reader import TileReader
from companion.games.upwords.silhouette import silhouettes
from companion.vision import synth
from companion.vision.rectify import Rectifier

GAME = UpwordsGame()
HEIGHT_ERROR_TILTED = 0.15
"""Measured 0.110 on this set (one render per unseen look at 17 deg, 318 tiles), 0.126 before
the silhouette cue; calling every stack one tile high would be wrong 0.58 of the time."""
HEIGHT_ERROR_BESIDE = 0.04
"""Measured 0.016 (5 of 318) at 30 deg, the tilt ``companion mount`` advises for Upwords
(0.019 before the reader learned tile thicknesses)."""
OUR_THICKNESS = tuple(look for look in LOOKS_UNSEEN if LOOKS[look].thickness == TILE_THICKNESS)
"""The unseen looks whose tiles are as thick as the tuned ones' (the others: ``test_upwords_
thickness``)."""
FRAME = (1280, 960)


def lens(projection: np.ndarray) -> tuple[float, float, float]:
    """(focal, cx, cy) of P = K [R | t], from K K^T = P3 P3^T (up to scale)."""
    m = projection[:, :3] @ projection[:, :3].T
    m = m / m[2, 2]
    cx, cy = float(m[0, 2]), float(m[1, 2])
    return float(np.sqrt(m[0, 0] - cx * cx)), cx, cy


@pytest.mark.parametrize(
    "pose",
    [
        synth.Pose(tilt_deg=4, tilt_axis_deg=10, yaw_deg=50, offset=(1.0, -1.0), focal=0.6),
        synth.Pose(tilt_deg=19, tilt_axis_deg=250, yaw_deg=160, offset=(-0.7, 0.9), focal=1.0),
    ],
)
def test_synth_places_the_board_by_turning_a_centred_camera(pose: synth.Pose) -> None:
    scene = synth.render_scene(
        GAME, Board.empty(), "classic", np.random.default_rng(1), pose=pose, size=FRAME
    )
    focal, cx, cy = lens(scene.projection)
    assert focal == pytest.approx(pose.focal * FRAME[0], rel=1e-6)
    assert (cx, cy) == pytest.approx((FRAME[0] / 2, FRAME[1] / 2), abs=1e-6)
    markers = np.concatenate(list(scene.marker_corners.values()))
    assert markers.min() >= 0 and (markers.max(axis=0) <= FRAME).all()
    tray = scene.tray_corners
    span = (tray.max(axis=0) - tray.min(axis=0)).max()
    # seen off the optical axis the board looks a little larger than ``fill`` says
    assert span == pytest.approx(pose.fill * min(FRAME), rel=0.1)
    # the board sits off the frame's centre, as the offset asks
    middle = scene.corners.mean(axis=0) - np.array(FRAME) / 2
    assert np.sign(middle) == pytest.approx(np.sign(pose.offset))


def test_calibration_solves_the_lens_from_the_corners_alone() -> None:
    pose = synth.Pose(tilt_deg=17, tilt_axis_deg=120, yaw_deg=35, offset=(0.4, 0.6), focal=0.7)
    scene = synth.render_scene(
        GAME, Board.empty(), "classic", np.random.default_rng(2), pose=pose, size=FRAME
    )
    rectifier = Rectifier(scene.corners, GAME.geometry)
    reader = TileReader.learn(
        rectifier(scene.image), GAME.geometry, homography=rectifier.homography, image_size=FRAME
    )
    focal, _, _ = lens(reader.camera.projection)
    assert focal == pytest.approx(0.7 * FRAME[0], rel=0.02)
    truth = np.linalg.solve(scene.projection[:, [0, 1, 3]], scene.projection[:, 2])
    assert np.abs(reader.lean - truth).max() < 0.005


def calibrated(pose: synth.Pose) -> TileReader:
    empty = synth.render_scene(GAME, Board.empty(), "classic", np.random.default_rng(4), pose=pose)
    rectifier = Rectifier(empty.corners, GAME.geometry)
    return TileReader.learn(
        rectifier(empty.image), GAME.geometry, homography=rectifier.homography, image_size=FRAME
    )


def test_a_camera_straight_above_is_told_where_heights_show() -> None:
    above = calibrated(synth.Pose(tilt_deg=3, tilt_axis_deg=40, yaw_deg=20))
    # under the camera one level moves a face a fraction of a pixel
    assert above.camera.level_shift_px().min() < 0.5
    (problem,) = above.view_problems()
    assert "100 of 100 squares" in problem and "companion mount --game upwords" in problem
    beside = calibrated(synth.Pose(tilt_deg=35, tilt_axis_deg=40, yaw_deg=20, fill=0.7))
    assert beside.view_problems() == []
    assert beside.camera.level_shift_px().min() > 3.0


def test_a_stack_sits_loose_as_one() -> None:
    """The tiles of a stack lie within ``STACK_SLACK`` of each other, the stack within
    ``MAX_SHIFT`` of its well's centre."""
    ppc = 64
    index = 4 * SIZE + 6
    squares = [(0, "")] * (SIZE * SIZE)
    squares[index] = (5, "E")
    layers = raised(
        Board(tuple(squares)),
        "classic",
        np.random.default_rng(3),
        geometry=GAME.geometry,
        px_per_cell=ppc,
    )
    margin = GAME.geometry.margin
    centres = []
    for layer in layers[:: max(1, len(layers) // 5)]:
        alpha = layer.image[..., 3].astype(np.float64)
        ys, xs = np.nonzero(alpha)
        weight = alpha[ys, xs]
        centre = np.array([xs @ weight, ys @ weight]) / weight.sum()
        centres.append((centre + 0.5) / ppc - margin)
    centres_arr = np.array(centres)
    well = np.array([6.5, 4.5])
    assert np.abs(centres_arr - well).max() <= MAX_SHIFT + 2 * STACK_SLACK
    assert np.ptp(centres_arr, axis=0).max() <= 2 * STACK_SLACK + 0.003


def height_error(tilt: float, seed: int) -> tuple[int, int]:
    """(wrong heights, tiles) over one render per unseen look of our thickness at ``tilt``."""
    rng = np.random.default_rng(seed)
    wrong = tiles = 0
    for look in OUR_THICKNESS:
        pose = synth.Pose(
            tilt_deg=tilt,
            tilt_axis_deg=float(rng.uniform(0, 360)),
            yaw_deg=float(rng.uniform(0, 360)),
            fill=float(rng.uniform(0.5, 0.7)),
            offset=(float(rng.uniform(-1, 1)), float(rng.uniform(-1, 1))),
            focal=float(rng.uniform(0.6, 1.0)),
        )
        still = int(rng.integers(1 << 30))
        empty = synth.render_scene(GAME, Board.empty(), look, rng, pose=pose, board_seed=still)
        rectifier = Rectifier(empty.corners, GAME.geometry)
        reader = TileReader.learn(
            rectifier(empty.image),
            GAME.geometry,
            homography=rectifier.homography,
            image_size=FRAME,
        )
        board = GAME.lab.stress_state(rng)
        scene = synth.render_scene(GAME, board, look, rng, pose=pose, board_seed=still)
        got = reader.read_frame(scene.image).state
        for (height, _), (seen, _) in zip(board.squares, got.squares, strict=True):
            if height:
                tiles += 1
                wrong += seen != height
    return wrong, tiles


def test_height_error_on_tilted_renders_does_not_regress() -> None:
    wrong, tiles = height_error(17.0, 5)
    assert tiles > 200
    assert wrong / tiles < HEIGHT_ERROR_TILTED


def test_heights_from_the_advised_tilt_are_mostly_right() -> None:
    low, high = GAME.geometry.tilt_deg
    wrong, tiles = height_error((low + high) / 2, 5)
    assert tiles > 200
    assert wrong / tiles < HEIGHT_ERROR_BESIDE


def test_tall_stacks_seen_obliquely_hide_no_tiles_and_cover_nothing() -> None:
    """From beside the board a 5-high stack leans its side and face over the squares behind
    it and over the tray rim: those are neither tiles nor a hand over the board."""
    squares = [(0, "")] * (SIZE * SIZE)
    towers = [(0, 0), (0, 5), (2, 9), (4, 4), (5, 7), (7, 2), (9, 4), (9, 9), (3, 0), (6, 9)]
    for row, col in towers:
        squares[row * SIZE + col] = (5, "M")
    for row, col in [(1, 1), (4, 5), (8, 8), (5, 2)]:
        squares[row * SIZE + col] = (1, "E")
    board = Board(tuple(squares))
    for look, axis in [("green_felt", 30.0), ("navy", 200.0), ("slate", 120.0)]:
        pose = synth.Pose(tilt_deg=30, tilt_axis_deg=axis, yaw_deg=15, fill=0.6, focal=0.8)
        rng = np.random.default_rng(6)
        empty = synth.render_scene(GAME, Board.empty(), look, rng, pose=pose, board_seed=3)
        rectifier = Rectifier(empty.corners, GAME.geometry)
        reader = TileReader.learn(
            rectifier(empty.image), GAME.geometry, homography=rectifier.homography, image_size=FRAME
        )
        scene = synth.render_scene(GAME, board, look, rng, pose=pose, board_seed=3)
        reading = reader.read_frame(scene.image)
        assert not reading.covered, look
        wrong = [
            i
            for i, (h, _) in enumerate(board.squares)
            if (reading.state.squares[i][0] > 0) != (h > 0)
        ]
        assert wrong == [], look


def test_the_lean_refit_finds_the_lean_the_letters_show() -> None:
    """Letters at unknown heights, placed by a lean off the calibrated one: the refit moves
    most of the way to it."""
    rng = np.random.default_rng(7)
    true = np.array([0.9, -0.6, 0.05])
    prior = true + np.array([0.08, -0.06, 0.02])
    squares = rng.choice(SIZE * SIZE, 30, replace=False)
    levels = rng.integers(1, MAX_HEIGHT + 1, 30)
    seen = face_centres(true, squares)[levels - 1, np.arange(30)]
    seen += rng.normal(0, LETTER_SPREAD / 3, seen.shape)  # loose stacks
    got = refine_lean(prior, seen, squares)
    assert np.abs(got - true).max() < 0.25 * np.abs(prior - true).max()


def cues(truth: np.ndarray, lean: np.ndarray, letters: np.ndarray) -> tuple:
    """Flat face outlines and silhouettes as wide as ``truth`` heights make them (plus a common
    bias); ``letters`` (n, 2) where the letters are seen."""
    squares = np.arange(len(truth)) * 7
    widths = 0.88 + 0.1 * np.arange(1, MAX_HEIGHT + 1)[:, None, None] * np.ones((1, len(truth), 2))
    measured = widths[truth - 1, np.arange(len(truth))] + 0.02
    edge = np.ones((len(truth), MAX_HEIGHT))
    predicted = face_centres(lean, squares)
    return edge, letters, predicted, (measured, widths, np.zeros((len(truth), 2), bool))


def test_a_height_is_where_its_letter_lies_and_its_silhouette_agrees() -> None:
    lean = np.array([0.8, 0.5, 0.02])
    truth = np.array([1, 2, 3, 4, 5, 3, 2, 1, 4, 2])
    centres = face_centres(lean, np.arange(len(truth)) * 7)[truth - 1, np.arange(len(truth))]
    levels, miss, _ = choose_levels(*cues(truth, lean, centres + 0.004))
    assert levels.tolist() == truth.tolist()
    assert np.all(miss < 0.01)


def test_the_silhouette_decides_a_letter_between_two_faces() -> None:
    """Two letters lie halfway between their stack's faces at heights 2 and 3 (a stack loose in
    its well); the other stacks' letters are clear.  Their silhouettes say 3."""
    lean = np.array([0.8, 0.5, 0.02])
    truth = np.array([1, 2, 3, 4, 5, 3, 2, 1, 3, 3])
    centres = face_centres(lean, np.arange(len(truth)) * 7)
    letters = centres[truth - 1, np.arange(len(truth))]
    letters[8:] = (centres[1, 8:] + centres[2, 8:]) / 2
    levels, *_ = choose_levels(*cues(truth, lean, letters))
    assert levels.tolist() == truth.tolist()


def test_silhouettes_tell_heights_on_a_rendered_frame() -> None:
    """Alone a weak cue (shading, neighbours), but far better than a guess: once their common
    bias is taken out, the width nearest each stack's is mostly its own height's."""
    seen = scene()
    truth = np.array([h for h, _ in seen.truth.squares])
    stacks = np.flatnonzero(truth)
    measured, predicted, _ = silhouettes(
        seen.frame, seen.view.cells, seen.reader.lean, stacks, seen.reader.board_colour[0, stacks]
    )
    bias = np.median(measured - predicted[truth[stacks] - 1, np.arange(len(stacks))], axis=0)
    nearest = np.argmin(np.abs(measured[None] - predicted - bias).sum(axis=2), axis=0) + 1
    assert (nearest == truth[stacks]).mean() >= 0.65
    assert (np.abs(nearest - truth[stacks]) <= 1).mean() >= 0.8


def test_the_bench_counts_heights_sure_and_wrong_apart_from_unsure_ones() -> None:
    """A wrong height read unsure is asked on the page, not an error that reaches a verdict;
    squares either side reads empty are the occupancy's to count, not the heights'."""
    empty = [(0, "")] * (SIZE * SIZE)
    truth, seen = list(empty), list(empty)
    truth[:4] = [(2, "A"), (1, "B"), (3, "C"), (1, "D")]
    seen[:5] = [(3, "A"), (2, "B"), (3, "C"), (0, ""), (1, "E")]
    confidence = np.full(SIZE * SIZE, 0.9)
    confidence[1] = 0.3
    tally = HeightTally()
    tally.add(Board(tuple(truth)), Board(tuple(seen)), confidence)
    assert (tally.sure_wrong, tally.unsure, tally.unsure_wrong, tally.right) == (1, 1, 1, 1)
    assert tally.stacks == 3
    assert "sure and wrong    1/3" in tally.line("thickness given")
