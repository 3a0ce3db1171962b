"""The letter reader side by side with Tesseract, on the same tile-face crops.

Both get exactly the same crops: each tile's top face cut from a rendered photo where the
renderer's camera says it is (at its stack's height), so the comparison is about reading
letters, not about finding tiles.  Tesseract (``pytesseract`` and the ``tesseract`` program)
is optional: without it only our reader's figures are given.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable

import cv2
import numpy as np

from companion.games.base import Game
from companion.games.upwords.draw import LOOKS
from companion.games.upwords.letters import LetterClassifier, tesseract_letter
from companion.games.upwords.model import SIZE, TILE_THICKNESS, Board
from companion.vision.synth import random_light, random_pose, render_scene

CROP = 64
"""Face crop side in pixels, about what a 1280x960 camera gives a tile from 60 cm."""


def face_crops(
    plane_homography: Callable[[float], np.ndarray],
    board: Board,
    image: np.ndarray,
    thickness: float = TILE_THICKNESS,
) -> list[tuple[str, np.ndarray]]:
    """(true letter, face crop) for every tile, cut where the renderer's camera put its top
    face (``plane_homography(height)``: board cells at that height -> image pixels) for tiles
    ``thickness`` cells thick (the look's)."""
    out = []
    target = np.array([[0, 0], [CROP, 0], [CROP, CROP], [0, CROP]], dtype=np.float32)
    for index, (height, letter) in enumerate(board.squares):
        if not height:
            continue
        row, col = divmod(index, SIZE)
        plane = plane_homography(height * thickness)
        inset = 0.08
        cell = np.array(
            [
                [col + inset, row + inset],
                [col + 1 - inset, row + inset],
                [col + 1 - inset, row + 1 - inset],
                [col + inset, row + 1 - inset],
            ],
            dtype=np.float32,
        ).reshape(-1, 1, 2)
        quad = cv2.perspectiveTransform(cell, plane).reshape(4, 2)
        warp = cv2.getPerspectiveTransform(quad.astype(np.float32), target)
        out.append((letter, cv2.warpPerspective(image, warp, (CROP, CROP))))
    return out


def compare(game: Game, *, boards: int, seed: int) -> list[str]:
    """Report lines: accuracy and ms per crop for our letter reader and for Tesseract."""
    rng = np.random.default_rng(seed)
    ours = LetterClassifier()
    tallies = {"ours": [0, 0, 0.0], "tesseract": [0, 0, 0.0]}
    have_tesseract = shutil.which("tesseract") is not None
    unseen = game.lab.looks.unseen
    low, high = game.geometry.tilt_deg
    for i in range(boards):
        truth = game.lab.random_state(rng)
        look = unseen[i % len(unseen)]
        pose = random_pose(rng, max_tilt=high, min_tilt=low)
        scene = render_scene(game, truth, look, rng, pose=pose, light=random_light(rng))
        thickness = LOOKS[look].thickness
        for letter, crop in face_crops(scene.plane_homography, truth, scene.image, thickness):
            start = time.perf_counter()
            guess = ours.read(crop)
            tallies["ours"][2] += time.perf_counter() - start
            tallies["ours"][0] += guess is not None and guess.letter == letter
            tallies["ours"][1] += 1
            if have_tesseract:
                start = time.perf_counter()
                read = tesseract_letter(crop)
                tallies["tesseract"][2] += time.perf_counter() - start
                tallies["tesseract"][0] += read == letter
                tallies["tesseract"][1] += 1
    lines = []
    for name, (right, total, seconds) in tallies.items():
        if not total:
            lines.append(f"  {name:<10} not run (the tesseract program is not installed)")
            continue
        lines.append(
            f"  {name:<10} {right}/{total} letters right ({right / total:.2%}), "
            f"{1000 * seconds / total:.2f} ms per crop"
        )
    return lines
