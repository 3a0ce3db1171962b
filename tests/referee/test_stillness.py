"""The stillness gate on real (synthetic) board images read by a tiny real reader."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.games.reading import Reading
from companion.referee.stillness import StillnessGate

N, CELL = 4, 40
HAND = (60, 110, 200)  # a skin-like BGR colour that the test reader recognises as a hand


def board_image(bits: tuple[int, ...], rng: np.random.Generator, hand_at=None) -> np.ndarray:
    img = np.full((N * CELL, N * CELL, 3), 90, np.uint8)
    for i, bit in enumerate(bits):
        r, c = divmod(i, N)
        cv2.rectangle(
            img,
            (c * CELL + 4, r * CELL + 4),
            (c * CELL + CELL - 5, r * CELL + CELL - 5),
            (230, 230, 230) if bit else (20, 20, 20),
            -1,
        )
    if hand_at is not None:
        cv2.circle(img, hand_at, 45, HAND, -1)
    noise = rng.normal(0, 4, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


def read(img: np.ndarray) -> Reading:
    """Cell bright/dark from the centre patch; a hand-coloured area marks the board covered."""
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32)
    bits, conf = [], []
    for i in range(N * N):
        r, c = divmod(i, N)
        m = float(gray[r * CELL + 12 : r * CELL + 28, c * CELL + 12 : c * CELL + 28].mean())
        bits.append(int(m > 128))
        conf.append(min(1.0, abs(m - 128) / 100))
    hand = np.all(np.abs(img.astype(int) - HAND) < 30, axis=2).mean() > 0.01
    return Reading(tuple(bits), np.array(conf), covered=bool(hand))


@pytest.fixture
def rng():
    return np.random.default_rng(7)


START = tuple([0, 1] * 8)
MOVED = tuple([1, 1] + [0, 1] * 7)


def feed(gate: StillnessGate, img: np.ndarray):
    return gate.feed(img, read(img))


def test_still_board_settles_once(rng):
    gate = StillnessGate(settle_frames=3)
    out = [feed(gate, board_image(START, rng)) for _ in range(3)]
    assert out[:2] == [None, None] and out[2] is not None
    assert out[2].state == START and not out[2].covered
    assert gate.status == "settled"
    assert gate.motion < gate.motion_threshold
    # it keeps quiet while the board stays as it is
    assert all(feed(gate, board_image(START, rng)) is None for _ in range(5))
    assert gate.status == "settled"


def test_status_counts_settling(rng):
    gate = StillnessGate(settle_frames=3)
    assert gate.status == "no board"
    feed(gate, board_image(START, rng))
    assert gate.status == "settling 1/3"
    feed(gate, board_image(START, rng))
    assert gate.status == "settling 2/3"


def test_moving_blob_blocks_until_rest(rng):
    gate = StillnessGate(settle_frames=3)
    for _ in range(3):
        feed(gate, board_image(START, rng))
    # a dark blob (an arm's shadow, not hand coloured) sweeps across: motion, not cover
    for x in range(0, 160, 25):
        img = board_image(START, rng)
        cv2.circle(img, (x, 80), 50, (10, 10, 10), -1)
        assert gate.feed(img, read(img)) is None
        if x:
            assert gate.status == "moving"
    # the move was made; the board rests again in the new state
    outs = [feed(gate, board_image(MOVED, rng)) for _ in range(4)]
    settled = [o for o in outs if o is not None]
    assert len(settled) == 1 and settled[0].state == MOVED


def test_covered_reading_resets_and_reemits(rng):
    gate = StillnessGate(settle_frames=2)
    assert feed(gate, board_image(START, rng)) is None
    assert feed(gate, board_image(START, rng)).state == START
    # a hand held still over the board: no motion, but covered
    hand = [board_image(START, rng, hand_at=(80, 80)) for _ in range(4)]
    for img in hand:
        assert read(img).covered
        assert gate.feed(img, read(img)) is None
        assert gate.status == "covered"
    # after a cover the same state is a new episode (the session ignores an unchanged board)
    assert feed(gate, board_image(START, rng)) is None
    assert gate.status == "moving"  # the hand leaving is motion, and opens the next rest
    assert feed(gate, board_image(START, rng)).state == START


def test_disagreeing_states_restart_count_and_no_board(rng):
    gate = StillnessGate(settle_frames=3)
    a, b = board_image(START, rng), board_image(START, rng)
    fake = Reading(MOVED, np.ones(16))  # a misread frame in a still scene
    assert gate.feed(a, read(a)) is None
    assert gate.feed(b, fake) is None
    assert gate.status == "settling 1/3"
    assert gate.feed(None, None) is None and gate.status == "no board"


def test_confidence_is_per_cell_minimum(rng):
    gate = StillnessGate(settle_frames=3)
    img = board_image(START, rng)
    confs = [np.full(16, 0.9), np.full(16, 0.8), np.full(16, 0.95)]
    confs[1][5] = 0.3
    confs[2][7] = 0.1
    out = [gate.feed(img, Reading(START, c)) for c in confs]
    expected = np.full(16, 0.8)
    expected[5], expected[7] = 0.3, 0.1
    np.testing.assert_allclose(out[2].confidence, expected)


def test_a_new_state_after_a_settled_one_is_emitted_without_motion(rng):
    """A small change (one tile) may stay under the motion threshold: the state still counts."""
    gate = StillnessGate(settle_frames=2)
    assert feed(gate, board_image(START, rng)) is None
    assert feed(gate, board_image(START, rng)).state == START
    assert feed(gate, board_image(START, rng)) is None
    fake = Reading(MOVED, np.ones(16))
    still = board_image(START, rng)
    assert gate.feed(still, fake) is None
    assert gate.status == "settling 1/2"
    settled = gate.feed(still, fake)
    assert settled is not None and settled.state == MOVED


def test_a_cover_that_stays_still_is_passed_on_once_with_every_cell_unsure(rng):
    gate = StillnessGate(settle_frames=2, cover_patience=6)
    feed(gate, board_image(START, rng))
    feed(gate, board_image(START, rng))
    # something the reader takes for a hand, but it never moves
    out = [feed(gate, board_image(MOVED, rng, hand_at=(80, 80))) for _ in range(10)]
    passed = [o for o in out if o is not None]
    assert out[:5] == [None] * 5 and out[5] is not None and len(passed) == 1
    assert not passed[0].covered and not passed[0].confidence.any()
    assert gate.status == "covered"


def test_a_cover_that_moves_or_changes_is_never_passed_on(rng):
    gate = StillnessGate(settle_frames=2, cover_patience=4)
    for i in range(12):
        # a hand sweeping across the board
        img = board_image(START, rng, hand_at=(20 + 10 * i, 80))
        assert gate.feed(img, read(img)) is None
    for i in range(12):
        # a still hand over a board read differently every other frame
        img = board_image(START, rng, hand_at=(80, 80))
        state = START if i % 2 else MOVED
        assert gate.feed(img, Reading(state, np.ones(16), covered=True)) is None


def test_cover_patience_must_outlast_settling():
    with pytest.raises(ValueError):
        StillnessGate(settle_frames=3, cover_patience=3)
