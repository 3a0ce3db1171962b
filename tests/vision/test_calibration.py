"""Calibration profiles: corners, ArUco location accuracy, and every way a profile can be bad."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from companion.errors import BoardNotFoundError, InputError, ProfileError, VisionError
from companion.games import find_game
from companion.games.amoeba.model import Tray
from companion.vision import synth
from companion.vision.calibration import Profile, calibrate, corner_problem, parse_corners

GAME = find_game("amoeba")


@pytest.fixture(scope="module")
def scene() -> synth.Scene:
    rng = np.random.default_rng(11)
    pose = synth.Pose(tilt_deg=12.0, tilt_axis_deg=40.0, yaw_deg=20.0)
    return synth.render_scene(GAME, GAME.start_state(), "classic", rng, pose=pose)


@pytest.fixture(scope="module")
def profile(scene: synth.Scene) -> Profile:
    return calibrate(GAME, scene.image, scene.corners)


def test_calibrate_with_given_corners(scene: synth.Scene, profile: Profile) -> None:
    assert profile.method == "corners"
    assert profile.game == "amoeba"
    assert profile.image_size == (1280, 960)
    np.testing.assert_allclose(profile.corners, scene.corners, atol=1e-3)
    # the learned reader reads the start image it learned from
    from companion.vision.pipeline import BoardPipeline

    reading, _ = BoardPipeline(GAME, profile).read(scene.image)
    assert reading.state == Tray.start() or reading.state == Tray.start(1)


@pytest.mark.parametrize("yaw", [0.0, 75.0, 150.0, 225.0, 300.0])
def test_calibrate_with_markers_finds_area_corners(yaw: float) -> None:
    rng = np.random.default_rng(int(yaw))
    pose = synth.Pose(
        tilt_deg=float(rng.uniform(10.0, 20.0)),
        tilt_axis_deg=float(rng.uniform(0.0, 360.0)),
        yaw_deg=yaw,
        fill=float(rng.uniform(0.5, 0.7)),
        offset=(float(rng.uniform(-1, 1)), float(rng.uniform(-1, 1))),
    )
    look = GAME.lab.looks.tuned[int(yaw) % 3]
    scene = synth.render_scene(
        GAME, GAME.start_state(), look, rng, pose=pose, light=synth.random_light(rng)
    )
    profile = calibrate(GAME, scene.image)
    assert profile.method == "aruco"
    error = np.linalg.norm(profile.corners - scene.corners, axis=1).max()
    assert error < 1.5, f"corners off by {error:.2f} px"


def test_calibrate_without_markers_says_which_are_missing() -> None:
    rng = np.random.default_rng(3)
    scene = synth.render_scene(GAME, GAME.start_state(), "classic", rng, markers=False)
    with pytest.raises(BoardNotFoundError, match="top-left, top-right, bottom-right, bottom-left"):
        calibrate(GAME, scene.image)


def test_calibrate_refuses_an_image_that_is_not_the_start_position(scene: synth.Scene) -> None:
    grey = np.full_like(scene.image, 128)
    with pytest.raises(VisionError, match="calibrate again"):
        calibrate(GAME, grey, scene.corners)


def test_calibrate_refuses_bad_given_corners(scene: synth.Scene) -> None:
    with pytest.raises(InputError, match="outside the 1280x960 image"):
        calibrate(GAME, scene.image, scene.corners + np.float32([2000, 0]))


def test_profile_round_trip(tmp_path: Path, profile: Profile) -> None:
    controls = {"ExposureTime": 12000, "AnalogueGain": 2.0, "ColourGains": [1.8, 1.5]}
    original = replace(profile, camera_controls=controls)
    path = tmp_path / "table.json"
    original.save(path)
    loaded = Profile.load(path, GAME)
    assert loaded.game == original.game
    assert loaded.image_size == original.image_size
    np.testing.assert_allclose(loaded.corners, original.corners, atol=1e-3)
    assert loaded.method == original.method
    assert loaded.reader == original.reader
    assert loaded.reference == original.reference
    assert loaded.created == original.created
    assert loaded.camera_controls == controls
    assert json.loads(path.read_text())["format"] == "companion-profile"


def test_save_replaces_atomically(tmp_path: Path, profile: Profile) -> None:
    path = tmp_path / "table.json"
    path.write_text("old")
    profile.save(path)
    assert Profile.load(path).corners.shape == (4, 2)
    assert [p.name for p in tmp_path.iterdir()] == ["table.json"]  # no temp file left behind


def test_save_into_missing_folder_is_a_profile_error(tmp_path: Path, profile: Profile) -> None:
    with pytest.raises(ProfileError, match="cannot write profile"):
        profile.save(tmp_path / "nowhere" / "table.json")


def _write(tmp_path: Path, profile: Profile, **changes: object) -> Path:
    obj = profile.to_json()
    for key, value in changes.items():
        if value is None:
            del obj[key]
        else:
            obj[key] = value
    path = tmp_path / "table.json"
    path.write_text(json.dumps(obj))
    return path


BAD_FIELDS = [
    ({"version": 2}, "has version 2 but this program reads version 1: calibrate again"),
    ({"image_size": [1280]}, "'image_size' must be [width, height]"),
    ({"image_size": [1280, 0]}, "'image_size' must be [width, height]"),
    ({"corners": [[0, 0], [10, 0], [10, 10]]}, "expected 4 corners"),
    ({"corners": "none"}, "'corners' must be 4 [x, y] pairs"),
    ({"corners": [[100, 100], [900, 800], [900, 100], [100, 800]]}, "not form a convex"),
    ({"corners": [[100, 100], [500, 100], [900, 100], [100, 800]]}, "on one line"),
    ({"corners": [[100, 100], [100, 800], [900, 800], [900, 100]]}, "anticlockwise"),
    ({"corners": [[100, 100], [105, 100], [105, 105], [100, 105]]}, "degenerate"),
    ({"corners": [[100, 100], [1500, 100], [1500, 800], [100, 800]]}, "outside the 1280x960"),
    ({"method": "magic"}, "unknown method 'magic'"),
    ({"reader": None}, "'reader' must be an object"),
    ({"reference": {"kind": "other"}}, "bad position reference"),
    ({"reference": {"kind": "rim-profiles", "size": "x"}}, "bad position reference"),
    ({"created": None}, "'created' must be a date string"),
    ({"game": None}, "names no game"),
    ({"camera_controls": [1, 2]}, "'camera_controls' must be an object"),
]


@pytest.mark.parametrize(("changes", "message"), BAD_FIELDS)
def test_damaged_profiles_are_refused_in_one_line(
    tmp_path: Path, profile: Profile, changes: dict[str, object], message: str
) -> None:
    path = _write(tmp_path, profile, **changes)
    with pytest.raises(ProfileError) as err:
        Profile.load(path, GAME)
    assert message in str(err.value)
    assert "\n" not in str(err.value)
    assert str(err.value).endswith("calibrate again")


def test_profile_of_another_game(tmp_path: Path, profile: Profile) -> None:
    path = _write(tmp_path, profile, game="upwords")
    Profile.load(path)  # without a game to check against it is a valid profile
    for game in (GAME, "amoeba"):
        with pytest.raises(ProfileError) as err:
            Profile.load(path, game)
        assert str(err.value) == (
            f"profile {path} was made for upwords, not amoeba: calibrate again with --game amoeba"
        )


def test_reader_settings_the_game_refuses(tmp_path: Path, profile: Profile) -> None:
    path = _write(tmp_path, profile, reader={"version": 99})
    loaded = Profile.load(path, "amoeba")  # the id alone does not check the reader settings
    with pytest.raises(ProfileError, match="reader settings the game refuses"):
        Profile.load(path, GAME)
    # the file's name stays with the profile for later messages
    with pytest.raises(ProfileError, match=f"^profile {re.escape(str(path))} has reader"):
        loaded.load_reader(GAME)


def test_missing_profile(tmp_path: Path) -> None:
    with pytest.raises(ProfileError, match=r"not found: make one with `companion calibrate"):
        Profile.load(tmp_path / "nope.json", GAME)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"{not json", "is not valid JSON (line 1): calibrate again"),
        (b"\xff\xfe\x00garbage", "is not a text file"),
        (b"[1, 2]", "is not a companion profile"),
        (b'{"format": "something-else"}', "is not a companion profile"),
    ],
)
def test_files_that_are_no_profile(tmp_path: Path, content: bytes, message: str) -> None:
    path = tmp_path / "table.json"
    path.write_bytes(content)
    with pytest.raises(ProfileError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Profile.load(path, GAME)


def test_parse_corners() -> None:
    corners = parse_corners(" 102,88 1180,95.5   1175,870 98,860 ")
    np.testing.assert_allclose(corners, [[102, 88], [1180, 95.5], [1175, 870], [98, 860]])
    assert corners.dtype == np.float32


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "has 0 points"),
        ("1,2 3,4 5,6", "has 3 points"),
        ("1,2 3,4 5,6 7,8 9,10", "has 5 points"),
        ("1,2 3;4 5,6 7,8", "point '3;4' is not x,y"),
        ("1,2 3,4 5,x 7,8", "point '5,x' is not x,y"),
        ("0,0 100,100 100,0 0,100", "convex"),
        ("0,0 0,100 100,100 100,0", "anticlockwise"),
    ],
)
def test_parse_corners_rejects(text: str, message: str) -> None:
    with pytest.raises(InputError) as err:
        parse_corners(text)
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_corner_problem_accepts_a_tilted_board() -> None:
    assert corner_problem(np.array([[300, 100], [900, 180], [850, 800], [200, 700]])) is None


def test_another_games_profile_is_named_before_its_damage(tmp_path: Path) -> None:
    path = tmp_path / "up.json"
    path.write_text('{"format": "companion-profile", "version": 1, "game": "upwords"}')
    with pytest.raises(ProfileError, match="was made for upwords, not amoeba"):
        Profile.load(path, "amoeba")
    with pytest.raises(ProfileError, match="'image_size' must be"):
        Profile.load(path)
