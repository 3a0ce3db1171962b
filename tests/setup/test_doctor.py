"""`companion doctor` on the bundled sample, and on a dark and a blurred copy of it."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.games import find_game
from companion.samples import sample_games
from companion.setup.doctor import examine

GAME = find_game("amoeba")
SAMPLE = sample_games("amoeba")[0]


def _folder(tmp_path: Path, change) -> Path:
    folder = tmp_path / "frames"
    folder.mkdir()
    image = cv2.imread(str(sorted(SAMPLE.glob("*.jpg"))[0]))
    cv2.imwrite(str(folder / "0000.png"), change(image))
    return folder


def _result(tmp_path: Path, change) -> dict[str, tuple[bool, str]]:
    folder = _folder(tmp_path, change)
    checks = examine(GAME, source=f"folder:{folder}", profile_path=SAMPLE / "profile.json")
    return {c.name: (c.ok, c.text) for c in checks}


def test_the_sample_table_is_healthy(tmp_path: Path) -> None:
    result = _result(tmp_path, lambda image: image)
    assert all(ok for ok, _ in result.values()), result


@pytest.mark.parametrize(
    ("change", "name", "words"),
    [
        (lambda image: (image * 0.12).astype(np.uint8), "light", "dark"),
        (lambda image: cv2.GaussianBlur(image, (0, 0), 6), "focus", "blurred"),
        (lambda image: np.roll(image, 60, axis=1), "board", "moved"),
    ],
)
def test_what_is_wrong_is_named(tmp_path: Path, change, name: str, words: str) -> None:
    ok, text = _result(tmp_path, change)[name]
    assert not ok and words in text


def test_no_profile_and_no_camera_are_named(tmp_path: Path) -> None:
    folder = _folder(tmp_path, lambda image: image)
    checks = examine(GAME, source=f"folder:{folder}", profile_path=None)
    assert [(c.name, c.ok) for c in checks] == [("camera", True), ("profile", False)]
    shutil.rmtree(folder)
    checks = examine(GAME, source=f"folder:{folder}", profile_path=None)
    assert [(c.name, c.ok) for c in checks] == [("camera", False)]
