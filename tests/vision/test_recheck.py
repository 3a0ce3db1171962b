"""Position re-check: silent when tiles turn or the light changes, loud when the board moves."""

from __future__ import annotations

import json
from dataclasses import replace

import cv2
import numpy as np
import pytest

from companion.errors import ProfileError
from companion.games import find_game
from companion.games.amoeba.model import Tray
from companion.vision import synth
from companion.vision.calibration import Profile, calibrate, relocate
from companion.vision.recheck import PositionCheck, make_reference
from companion.vision.rectify import Rectifier

GAME = find_game("amoeba")
GEO = GAME.geometry
CELL = GEO.cell_px
LOOKS = GAME.lab.looks.tuned + GAME.lab.looks.unseen


def _board(state: Tray, look: str, seed: int) -> np.ndarray:
    """A rectified board straight from the game's drawing (exact rectified geometry)."""
    return GAME.lab.draw_board(state, look, np.random.default_rng(seed), px_per_cell=CELL)


def _random_tray(seed: int) -> Tray:
    return Tray(tuple(int(v) for v in np.random.default_rng(seed).integers(0, 2, 49)))


def _moved(board: np.ndarray, dx: float, dy: float, angle: float) -> np.ndarray:
    """The board as seen after a knock: turned about its centre and shifted over the table."""
    width, height = GEO.size
    matrix = cv2.getRotationMatrix2D((width / 2, height / 2), angle, 1.0)
    matrix[:, 2] += (dx, dy)
    return cv2.warpAffine(board, matrix, (width, height), borderValue=(60, 90, 120))


def _relit(board: np.ndarray, gain: float, offset: float, gamma: float) -> np.ndarray:
    scaled = 255.0 * (board.astype(np.float32) / 255.0) ** gamma * gain + offset
    return np.clip(scaled, 0, 255).astype(np.uint8)


@pytest.mark.parametrize("look", LOOKS)
def test_no_alarm_when_tiles_turn_and_light_changes(look: str) -> None:
    check = PositionCheck.from_reference(make_reference(_board(Tray.start(), look, 1), GEO))
    for seed, (gain, offset, gamma) in enumerate([(1.0, 0, 1.0), (1.2, 10, 0.9), (0.8, -5, 1.1)]):
        board = _relit(_board(_random_tray(seed), look, seed + 10), gain, offset, gamma)
        drift = check.check(board)
        assert not drift.moved, drift.message
        assert drift.shift_px < 2.0


@pytest.mark.parametrize("look", ["classic", "gold_on_black", "white_on_orange", "wood"])
@pytest.mark.parametrize(
    ("dx", "dy", "angle"),
    [
        (CELL / 4, 0, 0),
        (-CELL / 4, 0, 0),
        (0, CELL / 4, 0),
        (0, -CELL / 4, 0),
        (0, 0, 3),
        (0, 0, -3),
    ],
)
def test_alarm_on_quarter_cell_shift_or_small_turn(
    look: str, dx: float, dy: float, angle: float
) -> None:
    check = PositionCheck.from_reference(make_reference(_board(Tray.start(), look, 1), GEO))
    drift = check.check(_moved(_board(_random_tray(5), look, 2), dx, dy, angle))
    assert drift.moved
    # the largest corner movement: a quarter cell, or radius x angle for the turn
    expected = np.hypot(dx, dy) + np.radians(abs(angle)) * np.hypot(*GEO.size) / 2
    assert abs(drift.shift_px - expected) < 2.5
    assert "moved by about" in drift.message and "\n" not in drift.message


@pytest.mark.parametrize(("dx", "dy", "angle"), [(1, 0, 0), (0, -1, 0), (0, 0, 0.5), (1, 1, -0.5)])
def test_no_alarm_for_a_nudge_below_the_threshold(dx: float, dy: float, angle: float) -> None:
    check = PositionCheck.from_reference(make_reference(_board(Tray.start(), "classic", 1), GEO))
    assert not check.check(_moved(_board(Tray.start(), "classic", 2), dx, dy, angle)).moved


def test_a_board_that_no_longer_matches_is_reported_moved() -> None:
    check = PositionCheck.from_reference(make_reference(_board(Tray.start(), "classic", 1), GEO))
    noise = np.random.default_rng(0).integers(0, 256, (*GEO.size[::-1], 3), dtype=np.uint8)
    drift = check.check(noise)
    assert drift.moved
    assert "no longer matches" in drift.message


def test_a_rim_without_edges_cannot_be_checked() -> None:
    flat = np.full((*GEO.size[::-1], 3), 128, np.uint8)
    check = PositionCheck.from_reference(make_reference(flat, GEO))
    drift = check.check(_board(Tray.start(), "classic", 1))
    assert not drift.moved
    assert "unavailable" in drift.message


def test_reference_is_compact_and_json_safe() -> None:
    ref = make_reference(_board(Tray.start(), "classic", 1), GEO)
    text = json.dumps(ref)
    assert len(text) < 8000
    assert json.loads(text) == ref


@pytest.mark.parametrize(
    "damage",
    [
        {"kind": "edges"},
        {"size": [256]},
        {"depth": 0},
        {"depth": 200},
        {"segments": [{"side": "middle", "span": [0, 10], "grad": [0.0] * 19, "usable": True}]},
        {"segments": [{"side": "top", "span": [0, 999], "grad": [0.0] * 19, "usable": True}]},
        {"segments": [{"side": "top", "span": [16, 72], "grad": [1.0, 2.0], "usable": True}]},
        {"segments": None},
    ],
)
def test_damaged_reference_is_a_profile_error(damage: dict[str, object]) -> None:
    ref = make_reference(_board(Tray.start(), "classic", 1), GEO)
    ref.update(damage)
    with pytest.raises(ProfileError, match="position reference"):
        PositionCheck.from_reference(ref)


# --- whole camera frames ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def calibrated() -> tuple[synth.Scene, Profile, synth.Pose]:
    rng = np.random.default_rng(21)
    pose = synth.Pose(tilt_deg=15.0, tilt_axis_deg=120.0, yaw_deg=70.0)
    scene = synth.render_scene(
        GAME, GAME.start_state(), "blue_on_white", rng, pose=pose, light=synth.random_light(rng)
    )
    return scene, calibrate(GAME, scene.image), pose


def _shift_frame(frame: np.ndarray, dx: float, dy: float, angle: float, about: np.ndarray):
    matrix = cv2.getRotationMatrix2D((float(about[0]), float(about[1])), angle, 1.0)
    matrix[:, 2] += (dx, dy)
    return cv2.warpAffine(frame, matrix, frame.shape[1::-1], borderMode=cv2.BORDER_REFLECT)


def test_frames_from_an_unmoved_camera_pass(calibrated) -> None:
    _, profile, pose = calibrated
    rectify = Rectifier(profile.corners, GEO)
    check = PositionCheck.from_reference(profile.reference)
    for seed in range(3):
        rng = np.random.default_rng(100 + seed)
        scene = synth.render_scene(
            GAME,
            _random_tray(seed),
            "blue_on_white",
            rng,
            pose=pose,
            light=synth.random_light(rng),
        )
        drift = check.check(rectify(scene.image))
        assert not drift.moved, drift.message


@pytest.mark.parametrize(("quarter_dx", "quarter_dy", "angle"), [(1, 0, 0), (0, -1, 0), (0, 0, 3)])
def test_a_knocked_camera_is_noticed(calibrated, quarter_dx: int, quarter_dy: int, angle: float):
    scene, profile, _ = calibrated
    cell_in_image = np.linalg.norm(scene.corners[1] - scene.corners[0]) / GEO.cols
    step = cell_in_image / 4
    frame = _shift_frame(
        scene.image, quarter_dx * step, quarter_dy * step, angle, scene.corners.mean(axis=0)
    )
    drift = PositionCheck.from_reference(profile.reference).check(
        Rectifier(profile.corners, GEO)(frame)
    )
    assert drift.moved


def test_relocate_follows_the_markers(calibrated) -> None:
    _, profile, pose = calibrated
    moved_pose = replace(pose, yaw_deg=pose.yaw_deg + 4.0, offset=(0.3, -0.2))
    rng = np.random.default_rng(7)
    scene = synth.render_scene(GAME, _random_tray(3), "blue_on_white", rng, pose=moved_pose)
    assert (
        PositionCheck.from_reference(profile.reference)
        .check(Rectifier(profile.corners, GEO)(scene.image))
        .moved
    )
    found = relocate(GAME, scene.image, profile)
    assert found is not None
    assert np.linalg.norm(found.corners - scene.corners, axis=1).max() < 1.5
    assert found.reader == profile.reader and found.reference == profile.reference


def test_relocate_needs_markers(calibrated) -> None:
    scene, profile, pose = calibrated
    by_hand = replace(profile, method="corners")
    assert relocate(GAME, scene.image, by_hand) is None
    rng = np.random.default_rng(8)
    bare = synth.render_scene(
        GAME, GAME.start_state(), "blue_on_white", rng, pose=pose, markers=False
    )
    assert relocate(GAME, bare.image, profile) is None
    assert relocate(GAME, scene.image[:480, :640], profile) is None
