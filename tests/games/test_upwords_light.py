"""Light across an Upwords board: a bare square is judged by the light where it lies."""

from __future__ import annotations

import numpy as np

from companion.games.upwords.model import SIZE
from companion.games.upwords.occupancy import local_light, worth_a_look

RIM = np.array([0.3, 0.3, 0.3])
"""The rim's one figure for the light change (log)."""


def gradient() -> np.ndarray:
    """Light rising by 0.03 (log) a column, as a lamp to one side makes it."""
    cols = np.tile(np.arange(SIZE), SIZE).astype(float)
    return np.repeat((0.03 * cols)[:, None], 3, axis=1)


def test_each_square_takes_the_light_of_the_bare_board_around_it() -> None:
    change = gradient()
    quiet = np.ones(SIZE * SIZE, bool)
    got = local_light(change, quiet, RIM, np.array([4 * SIZE + 4, 4 * SIZE + 9]))
    assert np.allclose(got[0], 0.12)  # columns 2-6 around column 4
    assert np.allclose(got[1], 0.24)  # columns 7-9 at the board's edge


def test_a_hand_never_lends_the_light_its_own_colour() -> None:
    change = gradient()
    quiet = np.ones(SIZE * SIZE, bool)
    hand = [r * SIZE + c for r in range(3, 6) for c in range(3, 6)]
    change[hand] = 0.9
    quiet[hand] = False
    got = local_light(change, quiet, RIM, np.array([4 * SIZE + 4]))
    assert np.allclose(got[0], 0.12)


def test_without_bare_board_around_the_rim_decides() -> None:
    quiet = np.zeros(SIZE * SIZE, bool)
    quiet[0] = True
    got = local_light(gradient(), quiet, RIM, np.array([5 * SIZE + 5, 1]))
    assert np.allclose(got, RIM)  # one bare square is too few to tell the light


def test_a_tile_whose_colours_average_out_to_the_board_is_still_looked_at() -> None:
    """A dark tile with a wide light letter: its median colour is the board's, its points are
    not."""
    distance = np.zeros(SIZE * SIZE)
    points = np.random.default_rng(2).normal(0.0, 0.03, (SIZE * SIZE, 36, 3))  # bare, noisy
    points[7, :18] = -0.7  # the tile's dark face
    points[7, 18:] = 0.7  # its light letter
    distance[9] = 0.2  # a square whose whole middle moved a little: a pale tile
    assert worth_a_look(distance, points).tolist() == [7, 9]
