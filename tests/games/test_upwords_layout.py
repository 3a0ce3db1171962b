"""Where a square's faces lie in a view: checked against a known pinhole camera, pixel by pixel.

The layout only knows the board plane's homography and the lean; a camera P = K [R | t] built
here knows where every point above the board really projects, so the two must agree.
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from companion.games.upwords.layout import (
    FACE_INSET,
    LETTER_MARGIN,
    LETTER_PX,
    Layout,
    cell_origins,
    face_centres,
    project,
)
from companion.games.upwords.model import MAX_HEIGHT, SIZE, TILE_THICKNESS

FRAME = (1280, 960)


def camera(rotation: tuple[float, float, float]) -> np.ndarray:
    """A 3x4 camera looking at the board's middle from 18 cells away, turned by ``rotation``
    (Rodrigues), board points (x, y, z) in cells with z into the table."""
    k = np.array([[900.0, 0, FRAME[0] / 2], [0, 900.0, FRAME[1] / 2], [0, 0, 1]])
    rot, _ = cv2.Rodrigues(np.array(rotation))
    t = np.array([0.0, 0.0, 18.0]) - rot[:, :2] @ np.array([5.0, 5.0])
    return k @ np.column_stack([rot, t])


def layout_of(p: np.ndarray) -> Layout:
    """The layout the reader builds for this camera: the board plane and the lean alone."""
    board = p[:, [0, 1, 3]]
    return Layout.build(board / board[2, 2], np.linalg.solve(board, p[:, 2]))


def truly(p: np.ndarray, points: np.ndarray, level: int) -> np.ndarray:
    """Where the camera puts board points (n, 2) lifted to the top face of a ``level`` stack."""
    z = -level * TILE_THICKNESS
    h = np.column_stack([p[:, 0], p[:, 1], p[:, 3] + z * p[:, 2]])
    return cv2.perspectiveTransform(points[:, None].astype(np.float64), h)[:, 0]


TILTED = camera((0.5, -0.1, 0.3))


@pytest.mark.parametrize("level", range(MAX_HEIGHT + 1))
def test_each_levels_plane_is_where_the_camera_sees_that_height(level: int) -> None:
    points = np.random.default_rng(level).uniform(0, SIZE, (50, 2))
    got = project(layout_of(TILTED).planes[level], points)
    assert np.abs(got - truly(TILTED, points, level)).max() < 1e-6


def test_a_letter_in_the_middle_of_its_crop_lies_at_its_face_centre() -> None:
    layout = layout_of(TILTED)
    squares = np.array([0, 37, 99, 37, 50])
    levels = np.array([1, 2, 5, 4, 3])
    centred = np.tile([10.0, 12.0, LETTER_PX - 10.0, LETTER_PX - 12.0], (len(squares), 1))
    on_board = layout.ink_on_board(centred, levels, squares)
    expected = face_centres(layout.lean, squares)[levels - 1, np.arange(len(squares))]
    assert np.abs(on_board - expected).max() < 1e-9
    # and a face centre seen on the board plane is where the camera sees it at that height
    seen = project(layout.planes[0], on_board)
    assert np.abs(seen - truly(TILTED, cell_origins()[squares] + 0.5, 0)).max() > 5
    for k, (square, level) in enumerate(zip(squares, levels, strict=True)):
        want = truly(TILTED, cell_origins()[square : square + 1] + 0.5, level)[0]
        assert np.abs(seen[k] - want).max() < 1e-6


def test_a_crop_is_the_upright_face_inside_its_outline() -> None:
    """Overhead (no lean) at 32 px a cell: pixel (row, col) of square r3c7's crop samples the
    point that far across the face, in reading order."""
    scale = np.array([[32.0, 0, 16], [0, 32.0, 16], [0, 0, 1]])
    layout = Layout.build(scale, np.zeros(3))
    xs, ys = np.meshgrid(np.arange(352, dtype=np.float32), np.arange(352, dtype=np.float32))
    lo, hi = FACE_INSET + LETTER_MARGIN, 1 - FACE_INSET - LETTER_MARGIN
    across = lo + (np.arange(LETTER_PX) + 0.5) / LETTER_PX * (hi - lo)
    for level in (1, 4):
        crop_x, crop_y = (
            layout.faces(ramp, np.array([level]), np.array([3 * SIZE + 7]))[0] for ramp in (xs, ys)
        )
        assert np.abs(crop_x - (16 + 32 * (7 + across))[None, :]).max() < 0.05
        assert np.abs(crop_y - (16 + 32 * (3 + across))[:, None]).max() < 0.05


def test_the_face_outline_steps_most_at_the_height_the_face_is_drawn() -> None:
    layout = layout_of(TILTED)
    corners = np.array(
        [[FACE_INSET, FACE_INSET], [1 - FACE_INSET, FACE_INSET], [1 - FACE_INSET, 1 - FACE_INSET],
         [FACE_INSET, 1 - FACE_INSET]]
    )  # fmt: skip
    for square, level in ((23, 3), (76, 1), (48, 5)):
        image = np.full((FRAME[1], FRAME[0], 3), 60, np.uint8)
        outline = truly(TILTED, cell_origins()[square] + corners, level)
        cv2.fillConvexPoly(image, np.round(outline * 16).astype(np.int32), (200,) * 3, 16, 4)
        scores = layout.edge_scores(image, np.arange(SIZE * SIZE))
        assert int(np.argmax(scores[square])) + 1 == level
        assert scores[square].max() > 1.3 * np.delete(scores[square], level - 1).max()
