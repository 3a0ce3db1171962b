"""Empty square or tile, from colour alone, on rendered frames with their truth; and what
stands over the board, from the printed grid lines it hides."""

from __future__ import annotations

from functools import cache

import cv2
import numpy as np
from upwords_scenes import GAME, POSE, scene

from companion.drift_bench import DriftTally, drift_game
from companion.games.upwords import draw
from companion.games.upwords.faces import find_letters
from companion.games.upwords.layout import N, View
from companion.games.upwords.model import SIZE, Board
from companion.games.upwords.occupancy import (
    Survey,
    chroma,
    common_chroma,
    grid_contrast,
    worth_a_look,
)
from companion.games.upwords.reader import TileReader
from companion.vision import synth


def survey(frame: np.ndarray) -> Survey:
    seen = scene()
    return Survey.of(frame, seen.view, seen.reader.board_colour, seen.reader.rim_colour)


def heights() -> np.ndarray:
    return np.array([h for h, _ in scene().truth.squares])


def test_every_tile_is_worth_a_look_and_looks_like_one() -> None:
    tiles = heights() > 0
    colours = survey(scene().frame)
    assert set(np.flatnonzero(tiles)) <= set(colours.candidates.tolist())
    tile_coloured = colours.tile_coloured(np.arange(SIZE * SIZE))
    assert tile_coloured[tiles].all()
    # a tall stack's face or side leans over some empty squares, but not over most
    assert tile_coloured[~tiles].mean() < 0.4


def test_the_empty_board_under_other_light_is_bare() -> None:
    bare = survey(scene().empty)
    assert (
        bare.letterless(np.zeros(0, np.intp), scene().reader.textured, np.zeros(N, bool)).size == 0
    )
    assert bare.tile_coloured(np.arange(SIZE * SIZE)).mean() < 0.2
    assert np.median(bare.bare_confidence()) > 0.6


def test_tiles_are_not_taken_for_bare_board() -> None:
    sure = np.array(survey(scene().frame).bare_confidence())
    assert np.median(sure[heights() == 0]) > 0.6
    assert np.percentile(sure[heights() > 0], 95) < 0.2


def explained(frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The candidate squares of ``frame`` far from the board's colour where no letter shows,
    and which of them the stacks whose letters show, at their true heights, explain by leaning
    over them."""
    seen = scene()
    colours = survey(frame)
    candidates = colours.candidates
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    letters, layout, _ = find_letters(
        frame, gray, seen.view, candidates, colours.tile_coloured(candidates), seen.reader.lean
    )
    found = letters.found()
    changed = colours.letterless(found, seen.reader.textured, np.zeros(N, bool))
    # a neighbour's face leaning over an empty square shows its letter there too
    tiles = candidates[found][heights()[candidates[found]] > 0]
    levels = heights()[tiles]
    common, foreign = common_chroma(chroma(layout.face_colour(frame, levels, tiles)))
    assert common is not None
    return changed, colours.leaned_over(changed, tiles, levels, foreign, common, layout.lean)


def test_squares_tall_neighbours_lean_over_are_explained() -> None:
    changed, leaning = explained(scene().frame)
    assert changed.size > 0  # the camera beside the board sees towers lean over squares
    assert leaning.all()


def test_a_hand_over_the_board_is_not_explained_by_the_stacks() -> None:
    rng = np.random.default_rng(5)
    hand = synth.render_scene(
        GAME, scene().truth, "classic", rng, pose=POSE, board_seed=3, hand="over"
    ).image
    _, leaning = explained(hand)
    assert (~leaning).sum() >= 5


def test_a_few_points_of_ink_make_a_square_worth_a_look() -> None:
    """A face that has come to look like the board (exposure clipping white tiles and a light
    grey board alike) still shows its letter's strokes on a few of the middle's points."""
    points = np.zeros((3, 36, 3))
    points[1, :3] = [0.0, 0.6, 0.6]  # three points on a red stroke
    points[2, :1] = [0.0, 0.6, 0.6]  # one point: noise or a seam, not a letter
    assert worth_a_look(np.zeros(3), points).tolist() == [1]


def test_white_tiles_on_grey_are_still_found_when_the_camera_clips_both() -> None:
    """red_letters (white faces, light grey board) at the last frame of a drifting game: the
    board's fitted colour and the faces' meet, so their median colour tells nothing.  Over
    these four frames 28 tiles were read empty, sure, when only the median (or half the
    middle's points) made a square worth a look; none now."""
    tally = DriftTally()
    drift_game(tally, GAME, "red_letters", seed=103, frames=4)
    assert tally.frames == 4 and tally.covered == 0
    assert tally.errors["empty or tile"][0] <= 3
    assert tally.sure_wrong <= 3


def printed_board(look: str) -> tuple[np.ndarray, View]:
    """The empty board of ``look`` seen from straight above, and its view."""
    geometry = GAME.geometry
    board = draw.draw_board(Board.empty(), look, np.random.default_rng(1), geometry=geometry)
    cell, origin = 96.0, 96.0 * geometry.margin
    cells = np.array([[cell, 0.0, origin], [0.0, cell, origin], [0.0, 0.0, 1.0]])
    return board, View.build(cells, np.zeros(3), board.shape[1::-1])


def test_grid_lines_keep_their_contrast_under_a_drift_and_vanish_under_a_hand() -> None:
    board, view = printed_board("deluxe")
    bare = grid_contrast(view.grid(board))
    assert bare.shape == (N, 4)
    assert np.median(bare) > 0.3  # light ridges between dark wells
    drifted = np.clip(board * np.array([0.55, 0.7, 0.8]), 0, 255).astype(np.uint8)
    assert np.allclose(grid_contrast(view.grid(drifted)), bare, atol=0.05)
    # a sleeve of the wells' own colour over the first two rows: no colour change, no lines
    covered = board.copy()
    covered[: int(96 * (GAME.geometry.margin + 2.3))] = np.median(board, axis=(0, 1))
    lines = grid_contrast(view.grid(covered))
    assert lines[: 2 * SIZE].max() < 0.05
    assert np.allclose(lines[3 * SIZE :], bare[3 * SIZE :])


@cache
def drifted_game(look: str) -> tuple[TileReader, synth.Pose, list[synth.Light], Board]:
    """A reader calibrated under one light, a board from the middle of a game, and the lights
    of a game filmed without a camera lock (the bench's colour drift, in a tuned ``look``)."""
    rng = np.random.default_rng(0)
    low, high = GAME.geometry.tilt_deg
    pose = synth.random_pose(rng, high, min_tilt=low)
    lights = synth.drifting_lights(rng, 9)
    reader, _ = synth.calibrated_reader(GAME, look, pose, lights[0], 0)
    boards = GAME.lab.random_game(rng)
    return reader, pose, lights, boards[len(boards) // 2]


def drifted_frame(frame: int, hand: str | None, seed: int, look: str = "classic") -> bool:
    """Whether the reader calls the board ``frame`` frames into the drift covered."""
    reader, pose, lights, truth = drifted_game(look)
    image = synth.render_scene(
        GAME,
        truth,
        look,
        np.random.default_rng(seed),
        pose=pose,
        light=lights[frame],
        board_seed=0,
        hand=hand,
    ).image
    return reader.read_frame(image).covered


def test_an_arm_is_caught_after_the_colours_drifted() -> None:
    """Arms the board's colours alone missed: drifted, the sleeve looks like bare board."""
    assert drifted_frame(8, "over", 5)
    assert drifted_frame(2, "over", 4)


def test_a_drift_with_nothing_over_the_board_is_not_covered() -> None:
    assert not drifted_frame(8, None, 9)
    assert not drifted_frame(2, None, 9)


def test_centre_squares_whose_colour_drifted_are_not_a_cover() -> None:
    """Washed out, the deluxe set's red centre squares and the wells beside them move far from
    their calibrated colours; their printed lines all show, so nothing is over them."""
    assert not drifted_frame(8, None, 9, "deluxe")
    assert drifted_frame(8, "over", 5, "deluxe")
