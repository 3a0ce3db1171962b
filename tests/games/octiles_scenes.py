"""Octiles as the scene synthesiser sees it, before the Game class exists: geometry and drawings.

Shared by the Octiles drawing and reader tests: an adapter ``Game`` whose only working parts
are what ``render_scene`` calls, random positions the board can show, and rectification of a
rendered frame with its true corners (what calibration with exact corners would do).
"""

from __future__ import annotations

import cv2
import numpy as np

from companion.games import find_game
from companion.games.octiles.model import COLOURS, Position, load_board
from companion.vision.synth import Scene

GAME = find_game("octiles")
GEOMETRY = GAME.geometry
BOARD = load_board()


def start(rng: np.random.Generator) -> Position:
    """The calibration set-up: all face down, 5 runners on every side, a tile in the pocket."""
    runners = {circle: COLOURS[circle[1]] for circle in BOARD.circles}
    return Position.make(dict.fromkeys(BOARD.spaces), runners, int(rng.integers(1, 19)))


def random_position(rng: np.random.Generator) -> Position:
    """Any mix of face-down and face-up tiles, up to 15 runners anywhere, maybe no pocket tile."""
    faces = {
        space: None if rng.random() < 0.3 else (int(rng.integers(1, 19)), int(rng.integers(8)))
        for space in BOARD.spaces
    }
    places = BOARD.places()
    chosen = rng.choice(len(places), int(rng.integers(0, 16)), replace=False)
    colours = sorted(COLOURS.values())
    runners = {places[i]: colours[int(rng.integers(4))] for i in chosen}
    pocket = None if rng.random() < 0.2 else int(rng.integers(1, 19))
    return Position.make(faces, runners, pocket)


def rectify(scene: Scene) -> tuple[np.ndarray, np.ndarray]:
    """(rectified board, homography rectified -> frame) from the scene's true corners."""
    to_frame = cv2.getPerspectiveTransform(GEOMETRY.area_corners(), scene.corners)
    board = cv2.warpPerspective(scene.image, np.linalg.inv(to_frame), GEOMETRY.size)
    return board, to_frame
