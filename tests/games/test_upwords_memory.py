"""The reader keeps the stacks nobody touched since the referee last agreed with the camera.

The likeness that decides it must not care about the room's light (tested as a property), and
on rendered frames a remembered square keeps the agreed value (even one the photo would read
otherwise: the host's correction wins) while every square a play changed is read afresh.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from test_upwords_reader import GAME, learn_from

from companion.games.upwords.memory import MAX_CHANGE, FaceMemory, face_change
from companion.games.upwords.model import EMPTY, SIZE, Board
from companion.games.upwords.reader import TileReader
from companion.vision import synth

POSE = synth.Pose(tilt_deg=30.0, tilt_axis_deg=60.0, yaw_deg=10.0, fill=0.65)
SEED = 5

crops = arrays(np.float32, (3, 12, 12), elements=st.floats(0, 255, width=32))


@given(crops, st.floats(0.2, 3.0), st.floats(-40, 40))
@settings(max_examples=60, deadline=None)
def test_a_change_of_light_is_no_change(faces: np.ndarray, gain: float, offset: float):
    textured = faces.reshape(3, -1).std(axis=1) > 1.0
    change = face_change(faces, faces * gain + offset)
    assert np.all(change[textured] < 1e-3)


@given(crops, crops)
@settings(max_examples=60, deadline=None)
def test_change_is_symmetric(a: np.ndarray, b: np.ndarray):
    assert np.allclose(face_change(a, b), face_change(b, a), atol=1e-4)


@given(st.integers(0, 1000))
@settings(max_examples=30, deadline=None)
def test_a_stroke_more_is_a_change(seed: int):
    """An F that became an E: one bar added to a letter, under other light."""
    rng = np.random.default_rng(seed)
    f = np.full((40, 40), 200.0, np.float32)
    f[8:32, 10:15] = 40.0
    f[8:12, 10:30] = 40.0
    f[18:22, 10:26] = 40.0
    e = f.copy()
    e[28:32, 10:30] = 40.0
    noisy = e * rng.uniform(0.7, 1.3) + rng.normal(0, 3, e.shape)
    assert face_change(f[None], noisy[None].astype(np.float32))[0] > MAX_CHANGE
    same = f * rng.uniform(0.7, 1.3) + rng.normal(0, 3, f.shape)
    assert face_change(f[None], same[None].astype(np.float32))[0] < MAX_CHANGE


def test_memory_needs_a_crop_per_tile():
    board = Board(((1, "A"),) + (EMPTY,) * (SIZE * SIZE - 1))
    with pytest.raises(ValueError):
        FaceMemory(board, np.zeros((2, 8, 8)))


def _square(board: Board, row: int, col: int, value: tuple[int, str]) -> Board:
    squares = list(board.squares)
    squares[row * SIZE + col] = value
    return Board(tuple(squares))


@pytest.fixture(scope="module")
def turn() -> dict:
    """A calibrated tilted camera and one play filmed: the board before and after it, under
    different light, with the tiles lying where they were put."""
    rng = np.random.default_rng(SEED)
    empty = synth.render_scene(GAME, Board.empty(), "deluxe", rng, pose=POSE, board_seed=SEED)
    reader, rectifier = learn_from(empty)
    before = Board.from_rows(
        [
            ["", "", "", "", "", "", "", "", "", ""],
            ["", "", "", "", "", "", "", "", "", ""],
            ["", "", "1C", "1A", "2T", "", "", "", "", ""],
            ["", "", "", "", "1O", "", "", "", "", ""],
            ["", "", "", "", "3N", "1E", "2S", "1T", "", ""],
            ["", "", "", "", "1E", "", "", "", "", ""],
            ["", "", "", "", "", "", "", "", "", ""],
            ["", "", "", "", "", "", "", "", "", ""],
            ["", "", "", "", "", "", "", "", "", ""],
            ["", "", "", "", "", "", "", "", "", ""],
        ]
    )
    # a play on row 4: an R on the E (2 high), an A on the S (3 high), and a new D beyond
    after = _square(_square(_square(before, 4, 5, (2, "R")), 4, 6, (3, "A")), 4, 8, (1, "D"))
    frames = []
    for board in (before, after):
        scene = synth.render_scene(
            GAME, board, "deluxe", rng, pose=POSE, light=synth.random_light(rng), board_seed=SEED
        )
        frames.append(scene.image)
    return {"reader": reader, "rectifier": rectifier, "boards": (before, after), "frames": frames}


def _fresh(turn: dict) -> TileReader:
    return TileReader.from_json(turn["reader"].to_json(), GAME.geometry)


def test_untouched_squares_keep_the_agreed_board_and_changed_ones_are_read(turn: dict):
    before, after = turn["boards"]
    frame_before, frame_after = turn["frames"]
    cold = _fresh(turn).read_frame(frame_after, turn["rectifier"](frame_after))
    # the host corrected c3 to an O on the page, whatever the photo shows: the referee's word
    agreed = _square(before, 2, 2, (1, "O"))
    reader = _fresh(turn)
    reader.remember(frame_before, turn["rectifier"](frame_before), agreed)
    warm = reader.read_frame(frame_after, turn["rectifier"](frame_after))
    played = {4 * SIZE + 5, 4 * SIZE + 6, 4 * SIZE + 8}
    for i in range(SIZE * SIZE):
        if i in played:
            assert warm.state.squares[i] == cold.state.squares[i]
            assert warm.state.squares[i] != agreed.squares[i]
        elif agreed.squares[i][0]:
            assert warm.state.squares[i] == agreed.squares[i], i
            assert warm.confidence[i] >= 0.5
    assert warm.state.squares[2 * SIZE + 2] == (1, "O")
    assert [warm.state.squares[i] for i in sorted(played)] == [
        after.squares[i] for i in sorted(played)
    ]


def test_a_tile_taken_off_is_read_afresh(turn: dict):
    before, after = turn["boards"]
    frame_before, frame_after = turn["frames"]
    reader = _fresh(turn)
    # the challenged play is taken back: the camera remembers the board with it
    reader.remember(frame_after, turn["rectifier"](frame_after), after)
    back = reader.read_frame(frame_before, turn["rectifier"](frame_before))
    for i in (4 * SIZE + 5, 4 * SIZE + 6, 4 * SIZE + 8):
        assert back.state.squares[i] == before.squares[i]


def test_the_rectified_board_is_read_afresh(turn: dict):
    before, _ = turn["boards"]
    frame_before, _ = turn["frames"]
    reader = _fresh(turn)
    board = turn["rectifier"](frame_before)
    reader.remember(frame_before, board, _square(before, 2, 2, (1, "O")))
    # the agreed board taught the set's tile thickness, which a profile keeps; not its faces
    cold = TileReader.from_json(reader.to_json(), GAME.geometry).read(board)
    again = reader.read(board)
    assert again.state == cold.state
    assert np.array_equal(again.confidence, cold.confidence)


def test_the_reader_remembers_only_its_own_game(turn: dict):
    frame, _ = turn["frames"]
    with pytest.raises(TypeError):
        _fresh(turn).remember(frame, turn["rectifier"](frame), (0, 0, 0, 0))
