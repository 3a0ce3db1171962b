"""The bare board's colour in each frame, fitted to the frame: on made-up colours with a known
camera change, on two real photos with their colours shifted, and on a drifting game."""

from __future__ import annotations

import numpy as np
import pytest
from scrabble_photos import NAMES, calibrated, colours, photo

from companion.drift_bench import DriftTally, drift_game
from companion.games.upwords import GAME, bare_board
from companion.games.upwords.occupancy import CANDIDATE_COLOUR, SURE_TILE_COLOUR, TILE_COLOUR
from companion.vision import synth


def camera_change(known: np.ndarray, where: np.ndarray) -> np.ndarray:
    """Washed-out colours, a lifted black level, a bent tone curve and a lamp to the right."""
    grey = known.mean(axis=1, keepdims=True)
    washed = grey + 0.6 * (known - grey)
    lamp = 1.0 + 0.15 * where[:, :1]
    return 55.0 + 0.8 * 255.0 * (np.clip(washed * lamp, 0, 255) / 255.0) ** 1.2


def fitted(seen: np.ndarray, known: np.ndarray, where: np.ndarray, squares: int) -> np.ndarray:
    """Each point's log-colour distance from the bare colour fitted to ``seen``; the points
    after the first ``squares`` are the rim."""
    trust = np.concatenate([np.ones(squares), np.full(len(seen) - squares, bare_board.RIM_WEIGHT)])
    rim = np.arange(len(seen)) >= squares
    model = bare_board.fit(seen, known, where, trust, rim)
    return np.abs(np.log1p(seen) - np.log1p(bare_board.apply(model, known, where))).max(axis=1)


def test_the_camera_change_comes_out_with_most_squares_under_tiles() -> None:
    rng = np.random.default_rng(3)
    squares, rim = 100, 40
    known = np.concatenate(
        [
            np.tile([40.0, 30.0, 20.0], (squares, 1)) * rng.uniform(0.9, 1.1, (squares, 1)),
            np.tile([150.0, 110.0, 90.0], (rim, 1)) * rng.uniform(0.9, 1.1, (rim, 1)),
        ]
    )
    known[[44, 45, 54, 55]] = [115.0, 65.0, 45.0]  # the centre squares
    where = rng.uniform(-1, 1, (squares + rim, 2))
    seen = camera_change(known, where) + rng.normal(0, 2, known.shape)
    tiles = rng.random(squares) < 0.6
    face = np.array([205.0, 200.0, 190.0])
    seen[:squares][tiles] = face + rng.normal(0, 4, (int(tiles.sum()), 3))
    off = fitted(seen, known, where, squares)
    bare = np.concatenate([~tiles, np.ones(rim, bool)])
    assert np.percentile(off[bare], 95) < 0.12  # TILE_COLOUR is 0.18
    assert (off[:squares][tiles] > SURE_TILE_COLOUR).all()
    # the rim's light change alone, the model the fit starts from, is far off
    light = np.median(np.log1p(seen[squares:]) - np.log1p(known[squares:]), axis=0)
    old = np.abs(np.log1p(seen) - np.log1p(known) - light).max(axis=1)
    assert np.median(old[:squares][~tiles]) > 0.3


@pytest.mark.parametrize("name", NAMES)
def test_real_photos_with_drifted_colours_show_no_covered_cell(name: str) -> None:
    """The occupancy colour test cell by cell through each photo's hand-fitted grid, after
    shifting the photo's colours as ``synth.drifting_lights`` drifts a camera (calibration is
    the photo as taken).  On 10 shifts of each photo the rim's light change alone calls 9 and
    9 covered (226 and 166 empty cells far from their colour); the fitted colour 0 and 2 (0
    and 4 cells: washed-out blue premium squares of the oblique photo)."""
    seen = photo(name)
    known, known_rim = calibrated(seen)
    rng = np.random.default_rng(7)
    empty_far = empty_tile = tiles_missed = 0
    lights = synth.drifting_lights(rng, 6)
    for light in lights:
        cells, rim = colours(seen, synth.relight(seen.image, light, rng))
        off = fitted(
            np.concatenate([cells, rim]), np.concatenate([known, known_rim]), seen.where, len(cells)
        )[: len(cells)]
        empty_far += int((off[~seen.tiles] > SURE_TILE_COLOUR).sum())
        empty_tile += int((off[~seen.tiles] > TILE_COLOUR).sum())
        tiles_missed += int((off[seen.tiles] <= CANDIDATE_COLOUR).sum())
    assert empty_far <= 0.01 * len(lights) * (~seen.tiles).sum()
    assert empty_tile <= 0.05 * len(lights) * (~seen.tiles).sum()
    # a washed-out wooden tile on a light grey square is hardly a colour apart
    assert tiles_missed <= 0.15 * len(lights) * seen.tiles.sum()


def test_a_game_filmed_under_drifting_light_is_seldom_called_covered_but_arms_are() -> None:
    """Navy: the darkest board, whose channels near zero a lifted black level moves most.  One
    of these four frames is called covered: a textured centre square (whose texture no colour
    model follows) beside a changed square; the rim's light change alone called all four."""
    tally = DriftTally()
    drift_game(tally, GAME, "navy", seed=21, frames=4, tilt=(10.0, 30.0))
    assert tally.frames == 4 and tally.covered <= 1
    assert tally.errors["empty or tile"][0] <= 4
    assert tally.hands == 2 and tally.hands_caught == tally.hands
