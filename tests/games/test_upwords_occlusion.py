"""What a tilted camera cannot see on an Upwords board, and what the reader does about it.

Two pieces of geometry: which part of a face's letter a taller neighbour hides (its read is
then unsure, so the referee asks instead of judging a P whose bowl is hidden as an I), and
whether a square still shows its bare board (then no stack stands there, whatever letter a
neighbour's face put where a tall stack's face would lie).
"""

from __future__ import annotations

import cv2
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.upwords import UpwordsGame
from companion.games.upwords.layout import TILE_HALF
from companion.games.upwords.model import SIZE, TILE_THICKNESS, Board
from companion.games.upwords.occlusion import HIDDEN_CONFIDENCE, HIDDEN_SPAN, hidden_share, overhung
from companion.games.upwords.occupancy import bare_floor
from companion.games.upwords.reader import TileReader
from companion.vision import synth
from companion.vision.rectify import Rectifier

MIDDLE = 4 * SIZE + 4
"""Square e5's index: every neighbour on the board."""
AWAY_FROM_MINUS_X = np.array([-1.0, 0.0, 0.0])
"""A lean under which raised faces appear moved towards +x (the camera stands towards -x)."""


def neighbour(dr: int, dc: int) -> int:
    return MIDDLE + dr * SIZE + dc


def shares(lean: np.ndarray, tops: dict[int, int]) -> dict[int, float]:
    squares = np.array(sorted(tops), np.intp)
    levels = np.array([tops[s] for s in squares], np.intp)
    return dict(zip(squares.tolist(), hidden_share(lean, squares, levels).tolist(), strict=True))


def test_a_taller_stack_on_the_cameras_side_hides_the_letter() -> None:
    near = shares(AWAY_FROM_MINUS_X, {MIDDLE: 1, neighbour(0, -1): 5})
    assert near[MIDDLE] > 0.3
    assert near[neighbour(0, -1)] == 0.0  # the tall one is hidden by nothing


def test_a_taller_stack_beyond_the_square_hides_nothing() -> None:
    assert shares(AWAY_FROM_MINUS_X, {MIDDLE: 1, neighbour(0, 1): 5})[MIDDLE] == 0.0


def test_a_neighbour_no_taller_hides_nothing() -> None:
    assert shares(AWAY_FROM_MINUS_X, {MIDDLE: 3, neighbour(0, -1): 3})[MIDDLE] == 0.0


def test_straight_down_nothing_is_hidden() -> None:
    tops = {MIDDLE: 1, **{neighbour(dr, dc): 5 for dr in (-1, 0, 1) for dc in (-1, 0, 1)}}
    tops[MIDDLE] = 1
    assert shares(np.zeros(3), tops)[MIDDLE] == 0.0


def _appears(lean: np.ndarray, points: np.ndarray, z: float) -> np.ndarray:
    """Where points z cells up appear on the board plane (the reader's own convention)."""
    return (points - z * lean[:2]) / (1.0 - z * lean[2])


def _hull_shares(lean: np.ndarray, tops: dict[int, int], square: int) -> tuple[float, float]:
    """The same share, found the other way: each taller neighbour's stack (above the face's
    height) is drawn as the convex hull of its corners' images, and the letter's points are
    tested against it; (strictly inside, inside or on the edge)."""
    grid = np.linspace(*HIDDEN_SPAN, 6)
    row, col = divmod(square, SIZE)
    offsets = np.stack(np.meshgrid(grid, grid), axis=-1).reshape(-1, 2)
    z = tops[square] * TILE_THICKNESS
    letter = _appears(lean, np.array([col, row]) + offsets, z)
    inside = np.zeros(len(letter), bool)
    touching = np.zeros(len(letter), bool)
    for other, top in tops.items():
        r, c = divmod(other, SIZE)
        if other == square or top <= tops[square] or max(abs(r - row), abs(c - col)) > 1:
            continue
        corners = np.array([c + 0.5, r + 0.5]) + TILE_HALF * np.array(
            [[-1, -1], [1, -1], [1, 1], [-1, 1]]
        )
        ends = [_appears(lean, corners, h) for h in (z, top * TILE_THICKNESS)]
        hull = cv2.convexHull(np.concatenate(ends).astype(np.float32))
        depth = np.array(
            [cv2.pointPolygonTest(hull, (float(x), float(y)), True) for x, y in letter]
        )
        inside |= depth > 1e-5
        touching |= depth >= -1e-5
    return float(inside.mean()), float(touching.mean())


@settings(max_examples=60, deadline=None)
@given(
    st.floats(-1.5, 1.5),
    st.floats(-1.5, 1.5),
    st.floats(-0.3, 0.3),
    st.lists(st.integers(0, 5), min_size=8, max_size=8),
    st.integers(1, 4),
)
def test_hidden_share_matches_the_stacks_drawn_as_hulls(
    v1: float, v2: float, v3: float, around: list[int], own: int
) -> None:
    lean = np.array([v1, v2, v3])
    spots = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]
    tops = {MIDDLE: own}
    tops.update({neighbour(*spot): h for spot, h in zip(spots, around, strict=True) if h})
    strict, loose = _hull_shares(lean, tops, MIDDLE)
    # points on a hull's very edge may fall either way
    assert strict - 1e-9 <= shares(lean, tops)[MIDDLE] <= loose + 1e-9


@settings(max_examples=60, deadline=None)
@given(
    st.floats(-1.5, 1.5),
    st.floats(-1.5, 1.5),
    st.lists(st.integers(0, 4), min_size=8, max_size=8),
    st.integers(0, 7),
)
def test_a_taller_neighbour_never_hides_less(
    v1: float, v2: float, around: list[int], grow: int
) -> None:
    lean = np.array([v1, v2, 0.0])
    spots = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]
    tops = {MIDDLE: 1}
    tops.update({neighbour(*spot): h for spot, h in zip(spots, around, strict=True) if h})
    before = shares(lean, tops)[MIDDLE]
    tops[neighbour(*spots[grow])] = tops.get(neighbour(*spots[grow]), 0) + 1
    assert shares(lean, tops)[MIDDLE] >= before


BOARD = np.array([150.0, 120.0, 90.0])
"""An empty square's colour (BGR)."""
DARK_TILES = np.array([[40.0, 60.0, 110.0]] * 7)
LIGHT_TILES = np.array([[160.0, 128.0, 96.0]] * 7)


def floor(seen: np.ndarray, faces: np.ndarray) -> bool:
    return bool(bare_floor(seen[None], BOARD[None], faces)[0])


def test_a_square_showing_its_empty_colour_holds_no_stack() -> None:
    seen = np.repeat(BOARD[None], 32, axis=0) * np.random.default_rng(1).uniform(0.9, 1.1, (32, 1))
    assert floor(seen, DARK_TILES)


def test_a_stack_whose_footprint_shows_some_board_coloured_points_still_stands() -> None:
    seen = np.repeat(DARK_TILES[:1], 32, axis=0)
    seen[:8] = BOARD  # seams and glints: at most a quarter of the points in the renders
    assert not floor(seen, DARK_TILES)


def test_tiles_of_the_boards_colour_cannot_tell() -> None:
    seen = np.repeat(BOARD[None], 32, axis=0)
    assert not floor(seen, LIGHT_TILES)
    assert not floor(seen, LIGHT_TILES * 0.7)  # nor can the same tiles' shaded sides


def test_a_letter_a_taller_neighbour_hides_is_read_as_unsure() -> None:
    game = UpwordsGame()
    pose = synth.Pose(tilt_deg=30.0, tilt_axis_deg=0.0, yaw_deg=0.0, fill=0.65)
    rng = np.random.default_rng(5)
    start = synth.render_scene(game, Board.empty(), "classic", rng, pose=pose, board_seed=5)
    rectifier = Rectifier(start.corners, game.geometry)
    reader = TileReader.learn(
        rectifier(start.image),
        game.geometry,
        homography=rectifier.homography,
        image_size=start.image.shape[1::-1],
    )
    # the side whose tall stack hides a low face is the one its faces lean away from
    cover = {
        spot: shares(reader.lean, {MIDDLE: 1, neighbour(*spot): 5})[MIDDLE]
        for spot in ((0, -1), (0, 1), (-1, 0), (1, 0))
    }
    front, back = max(cover, key=cover.get), min(cover, key=cover.get)
    assert cover[front] > 0.1 and cover[back] == 0.0
    seen, taught = {}, {}
    for spot in (front, back):
        squares = [(0, "")] * (SIZE * SIZE)
        squares[MIDDLE] = (1, "H")
        squares[neighbour(*spot)] = (5, "O")
        board = Board(tuple(squares))
        scene = synth.render_scene(game, board, "classic", rng, pose=pose, board_seed=5)
        reading = reader.read_frame(scene.image)
        seen[spot] = float(reading.confidence[MIDDLE]), reading.state.squares[MIDDLE]
        # a correction on the page teaches the font only from a letter seen whole
        taught[spot] = reader.learn_letter(scene.image, "r4c4", "H")
    assert seen[front][0] <= HIDDEN_CONFIDENCE
    assert seen[back][0] > HIDDEN_CONFIDENCE and seen[back][1] == (1, "H"), seen
    assert taught == {front: False, back: True}


def test_a_tall_stack_leans_over_the_squares_its_face_moves_towards() -> None:
    """Faces move towards +x under this lean: a 2-high stack beside a square on that side (or
    diagonal to it) leans over it; one on the other side, a single tile, or one two squares
    away does not."""
    lean = AWAY_FROM_MINUS_X
    targets = np.array([neighbour(0, 1), neighbour(1, 1), neighbour(0, -1), neighbour(0, 2)])
    over = overhung(targets, np.array([MIDDLE]), np.array([2]), lean)
    assert over.tolist() == [True, True, False, False]
    assert not overhung(targets, np.array([MIDDLE]), np.array([1]), lean).any()
    assert not overhung(targets, np.array([MIDDLE]), np.array([5]), np.zeros(3)).any()
