"""Zombie Labyrinth as the scene synthesiser sees it, before the Game class exists.

Shared by the labyrinth drawing and reader tests: an adapter ``Game`` whose only working parts
are what ``render_scene`` calls, random boards the table can show (any layout of the 12 pieces
on the 3 x 4 grid, figures and discs anywhere they can stand or lie), and rectification of a
rendered frame with its true corners (what calibration with exact corners would do).
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.games import find_game
from companion.games.labyrinth.catalog import default_catalog
from companion.games.labyrinth.model import (
    CHARACTER_COLOURS,
    Board,
    Placement,
    default_layout,
    graph_of,
    make_board,
    make_layout,
    set_up_board,
)
from companion.games.labyrinth.model import random_board as reachable_board
from companion.vision.synth import Scene

GAME = find_game("labyrinth")
GEOMETRY = GAME.geometry


def start(layout: tuple[Placement, ...] | None = None) -> Board:
    """The calibration set-up on ``layout`` (default: the default labyrinth): the four
    characters on the start, Dr. Bizarre home on his hoard, a disc on every disc space but
    every fourth plain one (as ``set_up_board`` does, without asking that the finish be
    reachable: a shuffled layout need not be playable to be read)."""
    if layout is None:
        return set_up_board(default_layout(), CHARACTER_COLOURS)
    graph = graph_of(layout)
    plain = sorted(s for s, n in graph.spaces.items() if n.kind == "disc")
    discs = {s for i, s in enumerate(plain) if i % 4 != 3} | {graph.finish, graph.home}
    return make_board(layout, dict.fromkeys(CHARACTER_COLOURS, graph.start), graph.home, discs)


def random_layout(rng: np.random.Generator) -> tuple[Placement, ...]:
    """The 12 pieces shuffled over the 3 x 4 grid, each turned any way."""
    ids = list(default_catalog().ids)
    order = rng.permutation(len(ids))
    return make_layout(
        Placement(k // 4, k % 4, ids[i], int(rng.integers(4))) for k, i in enumerate(order)
    )


def random_board(rng: np.random.Generator, layout: tuple[Placement, ...] | None = None) -> Board:
    """A board play can reach (``model.random_board``) on ``layout`` or a shuffled one."""
    return reachable_board(rng, layout if layout is not None else random_layout(rng))


def rectify(scene: Scene) -> tuple[np.ndarray, np.ndarray]:
    """(rectified board, homography rectified -> frame) from the scene's true corners."""
    to_frame = cv2.getPerspectiveTransform(GEOMETRY.area_corners(), scene.corners)
    board = cv2.warpPerspective(scene.image, np.linalg.inv(to_frame), GEOMETRY.size)
    return board, to_frame
