"""Upwords sets whose tiles are not the tuned looks' thickness: learned, given, or told unsure.

Renders of the unseen looks with tiles 0.10 and 0.30 cells thick, filmed where ``companion
mount`` advises (30 degrees), calibrated from the empty board as a user would; and the fits
alone on letter positions placed by a known camera.
"""

from __future__ import annotations

import json
import shutil
from functools import cache
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.capture.sources import FolderSource
from companion.cli import EXIT_ERROR, main
from companion.errors import InputError
from companion.games.upwords import UpwordsGame
from companion.games.upwords.draw import LOOKS
from companion.games.upwords.layout import face_centres
from companion.games.upwords.model import SIZE, TILE_THICKNESS, Board
from companion.games.upwords.reader import GIVEN_THICKNESS_SD, KNOWN_THICKNESS_SD, TileReader
from companion.games.upwords.thickness import fit_known, frame_scale, scaled
from companion.referee.loop import FrameLoop
from companion.referee.session import DOUBT_BELOW, Session
from companion.referee.stillness import StillnessGate
from companion.referee.store import Store
from companion.replay import PROFILE_FILE, folder_settings
from companion.samples import sample_games
from companion.vision import synth
from companion.vision.calibration import Profile
from companion.vision.pipeline import BoardPipeline
from companion.vision.rectify import Rectifier

GAME = UpwordsGame()
FRAME = (1280, 960)
LEARNED_WITHIN = 0.012
"""Cells a thickness learned from one agreed board may be off: measured 0.0014 and 0.0025 on
these renders (0.10 and 0.30 thick)."""
HEIGHT_ERROR_LEARNED = 0.05
"""Wrong heights once the thickness is learned, over both looks: measured 0.019 (2 of 106) on
these renders; before the reader learned thicknesses 0.98 of 0.30-thick heights were wrong at
25-35 degrees (and 0.09 of 0.10-thick ones)."""
POSE = synth.Pose(tilt_deg=30.0, tilt_axis_deg=120.0, yaw_deg=35.0, fill=0.6, focal=0.8)


@cache
def filmed(look: str, seed: int) -> tuple[TileReader, list[tuple[Board, np.ndarray]]]:
    """A reader calibrated on the empty board in ``look`` and two frames of played
    positions under the same camera (other light each)."""
    rng = np.random.default_rng(seed)
    still = int(rng.integers(1 << 30))
    empty = synth.render_scene(GAME, Board.empty(), look, rng, pose=POSE, board_seed=still)
    rectifier = Rectifier(empty.corners, GAME.geometry)
    reader = TileReader.learn(
        rectifier(empty.image), GAME.geometry, homography=rectifier.homography, image_size=FRAME
    )
    frames = []
    for _ in range(2):
        board = GAME.lab.random_state(rng)
        light = synth.random_light(rng)
        scene = synth.render_scene(GAME, board, look, rng, pose=POSE, light=light, board_seed=still)
        frames.append((board, scene.image))
    return reader, frames


def _fresh(look: str, seed: int) -> TileReader:
    reader = filmed(look, seed)[0]
    return TileReader.from_json(reader.to_json(), GAME.geometry)


@pytest.mark.parametrize(("look", "seed"), [("thin_ivory", 3), ("chunky_wood", 4)])
def test_one_agreed_board_teaches_the_thickness_and_heights_follow(look: str, seed: int) -> None:
    truth = LOOKS[look].thickness
    assert truth != TILE_THICKNESS
    reader = _fresh(look, seed)
    assert not reader.thickness_known
    (agreed, first), *others = filmed(look, seed)[1]
    reader.remember(first, np.zeros(1), agreed)
    assert reader.thickness_known
    assert reader.thickness == pytest.approx(truth, abs=LEARNED_WITHIN)
    again = TileReader.from_json(reader.to_json(), GAME.geometry)  # kept in the profile
    assert (again.thickness, again.thickness_sd) == (reader.thickness, reader.thickness_sd)
    wrong = tiles = 0
    for board, frame in others:
        got = again.read_frame(frame).state
        for (height, _), (seen, _) in zip(board.squares, got.squares, strict=True):
            if height and seen:
                tiles += 1
                wrong += height != seen
    assert tiles > 25
    assert wrong / tiles < HEIGHT_ERROR_LEARNED


def test_an_unknown_thickness_the_view_cannot_tell_leaves_every_height_unsure() -> None:
    """Single tiles 0.30 thick lie where stacks of two 0.15 thick would: before any agreed
    board nothing tells them apart, so no height is read sure."""
    reader = _fresh("chunky_wood", 4)
    squares = [(0, "")] * (SIZE * SIZE)
    for i in range(22, 78, 5):
        squares[i] = (1, "E")
    board = Board(tuple(squares))
    rng = np.random.default_rng(9)
    scene = synth.render_scene(GAME, board, "chunky_wood", rng, pose=POSE)
    reading = reader.read_frame(scene.image)
    tiles = [i for i, (height, _) in enumerate(reading.state.squares) if height]
    assert len(tiles) >= 9
    assert (np.asarray(reading.confidence)[tiles] < DOUBT_BELOW).all()


def test_a_profile_from_before_sets_differed_reads_tiles_of_the_model() -> None:
    params = filmed("thin_ivory", 3)[0].to_json()
    del params["tile_thickness"], params["tile_thickness_sd"]
    old = TileReader.from_json(params, GAME.geometry)
    assert old.thickness == TILE_THICKNESS and old.thickness_known


def test_a_thickness_given_at_calibration_is_known_and_checked() -> None:
    reader = _fresh("thin_ivory", 3)
    reader.give_thickness(0.1)
    assert reader.thickness_known and reader.thickness == 0.1
    for wrong in (0.0, 1.5):
        with pytest.raises(InputError):
            reader.give_thickness(wrong)


# --- the fits alone, on letters placed exactly by a camera's lean -------------------------
LEAN = np.array([0.9, 0.45, 0.055])
"""A layout lean (tiles ``TILE_THICKNESS`` thick) of a camera 30 degrees off the vertical."""


def _letters(thickness: float, heights: np.ndarray, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Squares and where their letters lie for stacks of ``heights`` of tiles ``thickness``
    thick, each moved by a loose stack's offset."""
    rng = np.random.default_rng(seed)
    squares = rng.choice(SIZE * SIZE, len(heights), replace=False)
    centres = face_centres(scaled(LEAN, thickness), squares)
    seen = centres[heights - 1, np.arange(len(squares))]
    return squares, seen + rng.uniform(-0.015, 0.015, seen.shape)


@pytest.mark.parametrize("thickness", [0.10, 0.22, 0.30])
def test_a_frame_of_mixed_stacks_shows_its_thickness(thickness: float) -> None:
    heights = np.tile([1, 1, 1, 2, 2, 3, 1, 2, 4, 1, 3, 1, 5, 2], 3)  # a board in mid-game
    squares, seen = _letters(thickness, heights, 1)
    scale, told = frame_scale(LEAN, TILE_THICKNESS, seen, squares)
    assert told
    assert scale * TILE_THICKNESS == pytest.approx(thickness, rel=0.05)


def test_single_tiles_alone_leave_the_thickness_open() -> None:
    squares, seen = _letters(0.30, np.ones(12, np.intp), 2)
    assert not frame_scale(LEAN, TILE_THICKNESS, seen, squares)[1]


def test_known_heights_fit_the_thickness_past_a_stray_letter() -> None:
    heights = np.array([1, 1, 2, 1, 3, 1, 2, 1])
    squares, seen = _letters(0.30, heights, 3)
    seen[0] += 0.3  # a neighbour's letter
    fit = fit_known(LEAN, TILE_THICKNESS, seen, squares, heights)
    assert fit.scale * TILE_THICKNESS == pytest.approx(0.30, abs=0.01)
    assert TILE_THICKNESS / np.sqrt(fit.information) < KNOWN_THICKNESS_SD


def test_calibrate_takes_the_sets_thickness(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = np.random.default_rng(5)
    photo = tmp_path / "start.png"
    cv2.imwrite(str(photo), synth.render_scene(GAME, Board.empty(), "navy", rng, pose=POSE).image)
    base = ["calibrate", "--game", "upwords", "--image", str(photo)]
    assert main([*base, "--tile-thickness", "0.3", "--out", str(tmp_path / "p.json")]) == 0
    profile = Profile.load(tmp_path / "p.json")
    reader = profile.load_reader(GAME)
    assert isinstance(reader, TileReader)
    assert reader.thickness == 0.3 and reader.thickness_known
    capsys.readouterr()
    assert main([*base, "--tile-thickness", "3", "--out", str(tmp_path / "q.json")]) == EXIT_ERROR
    assert "thickness" in capsys.readouterr().err
    assert not (tmp_path / "q.json").exists()


def test_a_thickness_learned_from_an_agreed_board_is_saved_at_once(tmp_path: Path) -> None:
    """``serve`` keeps what an agreed board taught the reader in the profile file when it is
    learned, so a restart reads with it; before, it waited for the next page correction.  The
    sample game's profile predates thicknesses (0.16 cells, given to ``GIVEN_THICKNESS_SD``),
    so the first agreed board with letters in view refines it."""
    sample = sample_games(GAME.id)[0]
    path = tmp_path / "profile.json"
    shutil.copy(sample / PROFILE_FILE, path)
    session = Session(GAME, Store(tmp_path / "games.sqlite3"))
    session.start(folder_settings(sample))
    pipeline = BoardPipeline(GAME, Profile.load(path, game=GAME.id))
    loop = FrameLoop(session, pipeline, StillnessGate(3), teach=True)
    assert "tile_thickness_sd" not in json.loads(path.read_text())["reader"]
    learned = pipeline.reader
    assert isinstance(learned, TileReader)
    for frame in FolderSource(sample):
        loop.step(frame)
        if learned.thickness_sd is not None and learned.thickness_sd < GIVEN_THICKNESS_SD:
            break
    assert session.agreed_board() is not None and learned.thickness_sd is not None
    assert learned.thickness_sd < GIVEN_THICKNESS_SD
    saved = Profile.load(path, game=GAME.id).load_reader(GAME)
    assert isinstance(saved, TileReader)
    assert saved.thickness_sd == pytest.approx(learned.thickness_sd)
    assert saved.thickness == pytest.approx(learned.thickness)
