"""Teaching a set from one photo of its pieces laid out: the sheet is the script's output, the
reader learns every laid-out letter with its right label, the photo's letters read right after,
and the command line says what it did (or, for a game with nothing to teach, one line why)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest
from calibration_scripts import ROOT, load

from companion.cli import EXIT_ERROR, main
from companion.games.upwords import GAME as UPWORDS
from companion.games.upwords.model import LETTERS, TILE_COUNTS
from companion.games.upwords.pattern import EXAMPLES_PER_LETTER, teaching_board
from companion.samples import sample_games
from companion.vision.calibration import Profile, calibrate
from companion.vision.synth import random_light, random_pose, render_scene

LOOK = "green_felt"
"""An unseen look: its font is not one the reader's glyphs were drawn from."""


def test_the_committed_sheets_are_the_scripts_output() -> None:
    sheets = load("make_teach_sheets").sheets()
    assert set(sheets) == {"upwords"}
    for game_id, svg in sheets.items():
        assert (ROOT / "calibration" / f"{game_id}-teach.svg").read_text() == svg


def test_the_pattern_holds_three_of_each_letter_or_all_there_are() -> None:
    tops = [letter for height, letter in teaching_board().squares if height]
    assert all(height in (0, 1) for height, _ in teaching_board().squares)
    assert {k: tops.count(k) for k in LETTERS} == {
        k: min(EXAMPLES_PER_LETTER, TILE_COUNTS[k]) for k in LETTERS
    }


@pytest.fixture(scope="module")
def taught(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, dict]:
    """A profile calibrated on an empty board in an unseen look, and a photo of the pattern."""
    rng = np.random.default_rng(5)
    pose, light = random_pose(rng), random_light(rng)
    start = render_scene(
        UPWORDS, UPWORDS.start_state(), LOOK, rng, pose=pose, light=light, board_seed=9
    )
    folder = tmp_path_factory.mktemp("teach")
    profile = folder / "profile.json"
    calibrate(UPWORDS, start.image, start.corners).save(profile)
    photo = folder / "pattern.png"
    scene = render_scene(UPWORDS, teaching_board(), LOOK, rng, pose=pose, light=light, board_seed=9)
    cv2.imwrite(str(photo), scene.image)
    return profile, photo, {}


def test_teaching_learns_every_letter_and_reads_the_photo_right(
    taught: tuple[Path, Path, dict], capsys: pytest.CaptureFixture[str]
) -> None:
    profile, photo, _ = taught
    status = main(["calibrate", "--game", "upwords", "--teach", str(photo), "--out", str(profile)])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert "learned 65 of the 65 pieces laid out" in out
    reader = Profile.load(profile, game="upwords").load_reader(UPWORDS)
    assert {k: len(v) for k, v in reader.letters.examples.items()} == {
        k: min(EXAMPLES_PER_LETTER, TILE_COUNTS[k]) for k in LETTERS
    }
    seen = reader.read_frame(cv2.imread(str(photo))).state
    for (height, truth), (_, letter) in zip(teaching_board().squares, seen.squares, strict=True):
        if height:
            assert letter == truth


def test_a_game_with_nothing_to_teach_says_so_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = sample_games("amoeba")[0]
    profile = tmp_path / "profile.json"
    profile.write_bytes((sample / "profile.json").read_bytes())
    photo = sorted(sample.glob("*.jpg"))[0]
    status = main(["calibrate", "--game", "amoeba", "--teach", str(photo), "--out", str(profile)])
    _, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.strip()]
    assert status == EXIT_ERROR and len(lines) == 1 and "Traceback" not in err
    assert "no teaching pattern" in lines[0]
    assert profile.read_bytes() == (sample / "profile.json").read_bytes()
