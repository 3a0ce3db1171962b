"""Finding each tile's top face: the letter's box to a fraction of a pixel, and on a rendered
frame the letter of every stack at the height it stands."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from upwords_scenes import scene

from companion.games.upwords.faces import (
    MAX_MISS,
    find_letters,
    find_strays,
    fine_box,
    settle_heights,
)
from companion.games.upwords.layout import face_centres
from companion.games.upwords.letters import find_ink
from companion.games.upwords.occupancy import Survey
from companion.games.upwords.silhouette import silhouettes

PAPER, INK = 220.0, 40.0


def bar(box: tuple[float, float, float, float], side: int = 40) -> np.ndarray:
    """A face crop with an ink rectangle whose sides fall between pixels: each pixel is as dark
    as the share of it the ink covers."""
    x0, y0, x1, y1 = box
    edges = np.arange(side, dtype=np.float64)
    cover_x = np.clip(np.minimum(edges + 1, x1) - np.maximum(edges, x0), 0, 1)
    cover_y = np.clip(np.minimum(edges + 1, y1) - np.maximum(edges, y0), 0, 1)
    cover = cover_y[:, None] * cover_x[None, :]
    return np.round(PAPER + (INK - PAPER) * cover).astype(np.uint8)


@pytest.mark.parametrize(
    "box", [(10.3, 8.2, 25.6, 30.7), (14.5, 6.5, 20.5, 33.5), (9.9, 12.1, 30.2, 27.8)]
)
def test_the_ink_box_is_placed_between_pixels(box: tuple[float, float, float, float]) -> None:
    face = bar(box)
    ink = find_ink(face)
    assert ink is not None
    whole = np.array(ink.box, np.float64)
    fine = fine_box(face, ink)
    assert np.abs(fine - box).max() < 0.1
    assert np.abs(fine - box).max() < np.abs(whole - box).max()


@pytest.fixture(scope="module")
def found() -> dict:
    """The letters found on the rendered frame's candidate squares, and their heights settled."""
    seen = scene()
    reader, frame = seen.reader, seen.frame
    colours = Survey.of(frame, seen.view, reader.board_colour, reader.rim_colour)
    candidates = colours.candidates
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    letters, layout, scores = find_letters(
        frame, gray, seen.view, candidates, colours.tile_coloured(candidates), reader.lean
    )
    entries = letters.found()
    tiles = letters.subset(entries)
    predicted = face_centres(layout.lean, tiles.squares)
    outline = silhouettes(
        frame, seen.view.cells, layout.lean, tiles.squares, reader.board_colour[0, tiles.squares]
    )
    find_strays(tiles, layout, gray, predicted)
    levels, miss, _ = settle_heights(tiles, layout, gray, scores[entries], predicted, outline)
    truth = np.array([h for h, _ in seen.truth.squares])
    return {"squares": tiles.squares, "levels": levels, "miss": miss, "truth": truth}


def test_every_tiles_letter_is_found(found: dict) -> None:
    stacks = np.flatnonzero(found["truth"])
    assert stacks.size > 30
    assert set(stacks) <= set(found["squares"].tolist())


def test_heights_settle_where_the_stacks_stand(found: dict) -> None:
    own = found["truth"][found["squares"]] > 0
    right = found["levels"][own] == found["truth"][found["squares"][own]]
    assert right.mean() >= 0.95
    # a tile's own letter lies on one of its stack's faces
    assert (found["miss"][own] <= MAX_MISS).mean() >= 0.95
