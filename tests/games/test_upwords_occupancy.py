"""Empty square or tile, from colour alone, on rendered frames with their truth."""

from __future__ import annotations

import cv2
import numpy as np
from upwords_scenes import GAME, POSE, scene

from companion.games.upwords.faces import find_letters
from companion.games.upwords.model import SIZE
from companion.games.upwords.occupancy import Survey, chroma, common_chroma
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
    assert bare.letterless(np.zeros(0, np.intp), scene().reader.textured).size == 0
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
    changed = colours.letterless(found, seen.reader.textured)
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
