"""The benchmark's letter comparison: same crops for both readers, ours ahead of Tesseract."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from companion.games import find_game
from companion.games.upwords.draw import LOOKS
from companion.games.upwords.letters import LetterClassifier, tesseract_letter
from companion.games.upwords.ocr_bench import face_crops
from companion.vision.synth import random_pose, render_scene

GAME = find_game("upwords")


def _crops(look: str, seed: int, count: int) -> list[tuple[str, np.ndarray]]:
    rng = np.random.default_rng(seed)
    truth = GAME.lab.stress_state(rng)
    scene = render_scene(GAME, truth, look, rng, pose=random_pose(rng))
    thickness = LOOKS[look].thickness
    return face_crops(scene.plane_homography, truth, scene.image, thickness)[:count]


def test_face_crops_hold_the_true_letters() -> None:
    ours = LetterClassifier()
    crops = _crops(GAME.lab.looks.unseen[0], 4, 40)
    assert len(crops) == 40
    right = sum(ours.read(crop).letter == letter for letter, crop in crops)
    assert right >= 39


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="the tesseract program is missing")
def test_our_letter_reader_is_ahead_of_tesseract_on_the_same_crops() -> None:
    ours = LetterClassifier()
    crops = _crops(GAME.lab.looks.unseen[1], 9, 10)
    mine = sum(ours.read(crop).letter == letter for letter, crop in crops)
    theirs = sum(tesseract_letter(crop) == letter for letter, crop in crops)
    assert mine > theirs or mine == len(crops)
