"""Lens distortion: the model both ways, renders through a bending lens, the ChArUco sheet's
fit, and boards read through a barrel lens once calibration knows it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import main
from companion.errors import ProfileError
from companion.games import find_game
from companion.vision import charuco, synth
from companion.vision.calibration import Profile, calibrate, find_markers
from companion.vision.lens import Lens
from companion.vision.pipeline import BoardPipeline
from companion.vision.plumb_line import estimate_lens
from tests.vision.calibration_scripts import ROOT, load

GAME = find_game("amoeba")
SIZE = (1280, 960)
BARREL = -0.25
POSE = synth.Pose(
    tilt_deg=14.0, tilt_axis_deg=30.0, yaw_deg=25.0, fill=0.68, focal=0.7, distortion=(BARREL, 0)
)
"""A webcam-like wide lens with strong barrel: the tray's edges bow by about 10 px."""


def _frame_lens(k1: float, k2: float = 0.0) -> Lens:
    return Lens.radial(0.7 * SIZE[0], (SIZE[0] / 2, SIZE[1] / 2), k1, k2, "test")


def test_distort_and_undistort_undo_each_other() -> None:
    lens = Lens(
        np.array([[900.0, 0, 650], [0, 905.0, 470], [0, 0, 1]]),
        np.array([-0.28, 0.09, 0.001, -0.0005, 0.0]),
    )
    rng = np.random.default_rng(0)
    points = rng.uniform([100, 80], [1180, 880], (200, 2))
    np.testing.assert_allclose(lens.distort(lens.undistort(points)), points, atol=1e-6)
    np.testing.assert_allclose(lens.undistort(lens.distort(points)), points, atol=1e-6)
    # OpenCV's own undistortion map agrees with the model: map at an ideal pixel = where it shows
    map1, map2 = lens.undistort_maps(SIZE)
    floats, _ = cv2.convertMaps(map1, map2, cv2.CV_32FC2)
    ideal = np.round(points).astype(int)
    np.testing.assert_allclose(floats[ideal[:, 1], ideal[:, 0]], lens.distort(ideal), atol=0.05)


def test_a_barrel_render_bows_the_trays_edges_as_the_lens_says() -> None:
    rng = np.random.default_rng(3)
    scene = synth.render_scene(GAME, GAME.start_state(), "classic", rng, pose=POSE)
    assert scene.lens is not None
    # the pinhole corners the projection gives, bent by the lens, are the reported corners
    geo = GAME.geometry
    area = np.array([[0, 0, 0], [geo.cols, 0, 0], [geo.cols, geo.rows, 0], [0, geo.rows, 0]])
    ideal = (scene.projection @ np.column_stack([area, np.ones(4)]).T).T
    ideal = ideal[:, :2] / ideal[:, 2:]
    np.testing.assert_allclose(scene.lens.distort(ideal), scene.corners, atol=1e-3)
    # barrel pulls the tray towards the frame's middle: its corners sit nearer it than a pinhole's
    middle = np.array(SIZE) / 2
    assert (
        np.linalg.norm(scene.corners - middle, axis=1) < np.linalg.norm(ideal - middle, axis=1)
    ).all()
    # and the markers the detector finds are where the scene says (turned any way)
    found = find_markers(scene.image)
    for marker_id, quad in scene.marker_corners.items():
        gaps = np.linalg.norm(found[marker_id][:, None, :] - quad[None, :, :], axis=2)
        assert gaps.min(axis=1).max() < 1.5


def test_old_profiles_load_as_a_pinhole_and_a_lens_round_trips(tmp_path: Path) -> None:
    rng = np.random.default_rng(4)
    scene = synth.render_scene(GAME, GAME.start_state(), "classic", rng, pose=synth.Pose())
    profile = calibrate(GAME, scene.image, scene.corners)
    assert calibrate(GAME, scene.image).lens is None  # the markers line up: a pinhole
    old = tmp_path / "old.json"
    profile.save(old)
    assert "lens" not in json.loads(old.read_text())
    assert Profile.load(old, GAME).lens is None
    profile.lens = _frame_lens(-0.2)
    profile.save(tmp_path / "new.json")
    again = Profile.load(tmp_path / "new.json", GAME)
    assert again.lens is not None
    np.testing.assert_allclose(again.lens.matrix, profile.lens.matrix)
    np.testing.assert_allclose(again.lens.coefficients, profile.lens.coefficients)
    damaged = json.loads((tmp_path / "new.json").read_text())
    damaged["lens"]["coefficients"] = ["bent"]
    (tmp_path / "bad.json").write_text(json.dumps(damaged))
    with pytest.raises(ProfileError, match="lens"):
        Profile.load(tmp_path / "bad.json", GAME)


@pytest.fixture(scope="module")
def barrel_scenes() -> tuple[synth.Scene, synth.Scene, object]:
    """A start photo and a later board through the barrel lens, and the later board's truth."""
    rng = np.random.default_rng(21)
    look = GAME.lab.looks.tuned[0]
    start = synth.render_scene(
        GAME, GAME.start_state(), look, rng, pose=POSE, light=synth.random_light(rng)
    )
    truth = GAME.lab.random_state(rng)
    later = synth.render_scene(GAME, truth, look, rng, pose=POSE, light=synth.random_light(rng))
    return start, later, truth


def test_a_barrel_frame_reads_right_once_calibration_knows_the_lens(
    barrel_scenes: tuple[synth.Scene, synth.Scene, object],
) -> None:
    start, later, truth = barrel_scenes
    assert start.lens is not None
    known = calibrate(GAME, start.image, lens=start.lens)
    # the corners are the lens's pinhole pixels: the ideal corners of the truth
    np.testing.assert_allclose(known.corners, start.lens.undistort(start.corners), atol=0.5)
    reading, _ = BoardPipeline(GAME, known).read(later.image)
    assert GAME.lab.reading_errors(truth, reading.state)["cells"][0] == 0
    # a flat game's reader reads the rectified board: its frame is not undistorted at all
    assert BoardPipeline(GAME, known).camera_frame(later.image) is later.image
    # with no lens given, the markers' sides tell it: k1 within 0.04 (in the true focal's
    # units; renders of all four games came within 0.035), and the board reads as well
    estimated = calibrate(GAME, start.image)
    assert estimated.lens is not None and estimated.lens.source == "estimate"
    focal = start.lens.matrix[0, 0] / estimated.lens.matrix[0, 0]
    assert abs(estimated.lens.coefficients[0] * focal**2 - BARREL) < 0.04
    reading, _ = BoardPipeline(GAME, estimated).read(later.image)
    assert GAME.lab.reading_errors(truth, reading.state)["cells"][0] == 0
    # the rectifier's map bends as the lens does: points along the playing area's edges and
    # across it land where the lens shows those board points (cells -> rectified pixels)
    geo = GAME.geometry
    rectifier = BoardPipeline(GAME, known).rectifier
    cells = np.array(
        [[x, y] for x in np.linspace(0, geo.cols, 7) for y in (0, geo.rows / 2, geo.rows)]
    )
    rect_px = cells * geo.cell_px + geo.origin
    world = np.column_stack([cells, np.zeros(len(cells)), np.ones(len(cells))])
    ideal = (start.projection @ world.T).T
    seen = start.lens.distort(ideal[:, :2] / ideal[:, 2:])
    assert np.abs(rectifier.board_to_image(rect_px) - seen).max() < 1.0


def _sheet_photo(
    lens: Lens, rvec: tuple[float, float, float], shift: tuple[float, float]
) -> np.ndarray:
    """The printed sheet lying flat, seen by a camera of ``lens`` turned by ``rvec``."""
    px_per_mm = 2
    sheet = charuco.sheet_image(px_per_mm).astype(np.float32)
    sheet = cv2.copyMakeBorder(sheet, 20, 20, 20, 20, cv2.BORDER_CONSTANT, value=255)
    rot, _ = cv2.Rodrigues(np.array(rvec, np.float64))
    middle = np.array([charuco.SQUARES[0], charuco.SQUARES[1]]) * charuco.SQUARE_MM / 2
    t = np.array([shift[0], shift[1], 330.0]) - rot[:, :2] @ middle
    to_mm = np.array(
        [[1 / px_per_mm, 0, -20 / px_per_mm], [0, 1 / px_per_mm, -20 / px_per_mm], [0, 0, 1]]
    )
    h = lens.matrix @ np.column_stack([rot[:, 0], rot[:, 1], t]) @ to_mm
    pinhole = cv2.warpPerspective(sheet, h, SIZE, borderValue=90.0, flags=cv2.INTER_AREA)
    bent = synth.through_lens(pinhole[..., None].repeat(3, axis=2), lens, SIZE)
    noisy = bent + np.random.default_rng(int(abs(rvec[0]) * 100)).normal(0, 2, bent.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


SHEET_VIEWS = (
    ((0.35, -0.1, 0.05), (-40.0, 10.0)),
    ((-0.1, 0.4, -0.1), (30.0, -20.0)),
    ((0.2, 0.25, 0.3), (0.0, 30.0)),
)


@pytest.fixture(scope="module")
def sheet_photos() -> list[np.ndarray]:
    lens = _frame_lens(BARREL)
    return [_sheet_photo(lens, rvec, shift) for rvec, shift in SHEET_VIEWS]


def test_the_sheet_photos_fit_the_lens_they_were_taken_through(
    sheet_photos: list[np.ndarray],
) -> None:
    truth = _frame_lens(BARREL)
    fit = charuco.fit_lens([(Path(f"p{i}.png"), photo) for i, photo in enumerate(sheet_photos)])
    assert fit.rms_px < 0.5
    assert fit.corners > 3 * 30
    # k1 in the fitted focal's units: the same bend in pixels as the truth's k1 at its focal
    scale = (fit.lens.matrix[0, 0] / truth.matrix[0, 0]) ** 2
    assert abs(fit.lens.coefficients[0] - BARREL * scale) < 0.03
    # where the sheet was seen (the middle 60 % of the frame, where a board lies) the two
    # lenses agree within a pixel; towards the frame's corners the fit extrapolates
    xs, ys = np.meshgrid(np.linspace(256, 1024, 9), np.linspace(192, 768, 7))
    seen = np.column_stack([xs.ravel(), ys.ravel()])
    assert np.abs(fit.lens.undistort(seen) - truth.undistort(seen)).max() < 1.0


def test_calibrate_lens_on_the_command_line(
    tmp_path: Path,
    sheet_photos: list[np.ndarray],
    barrel_scenes: tuple[synth.Scene, synth.Scene, object],
    capsys: pytest.CaptureFixture[str],
) -> None:
    start, later, truth = barrel_scenes
    paths = []
    for i, photo in enumerate(sheet_photos):
        paths.append(tmp_path / f"sheet{i}.png")
        cv2.imwrite(str(paths[-1]), photo)
    cv2.imwrite(str(tmp_path / "start.png"), start.image)
    out = tmp_path / "profile.json"
    argv = ["calibrate", "--game", "amoeba", "--image", str(tmp_path / "start.png")]
    assert main([*argv, "--lens", *map(str, paths), "--out", str(out)]) == 0
    assert re.search(r"lens fitted from 3 photo\(s\), \d+ sheet corners", capsys.readouterr().out)
    profile = Profile.load(out, GAME)
    assert profile.lens is not None and profile.lens.source == "sheet"
    reading, _ = BoardPipeline(GAME, profile).read(later.image)
    assert GAME.lab.reading_errors(truth, reading.state)["cells"][0] == 0
    # a lens photo of another size is refused with one line
    cv2.imwrite(str(tmp_path / "small.png"), cv2.resize(start.image, (640, 480)))
    assert (
        main(
            [*argv[:-1], str(tmp_path / "small.png"), "--lens", *map(str, paths), "--out", str(out)]
        )
        == 2
    )
    assert "resolution" in capsys.readouterr().err


def test_the_lens_sheet_is_the_scripts_output_and_the_board_opencv_detects() -> None:
    script = load("make_lens_sheet")
    text = script.sheet()
    assert (ROOT / "calibration" / "lens-sheet.svg").read_text(encoding="utf-8") == text
    # its rectangles paint exactly the board's black pixels
    black = charuco.sheet_image(2) < 128
    painted = np.zeros_like(black)
    body = text.split('fill="black">', 1)[1]
    for x, y, w, h in re.findall(
        r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"/>', body
    ):
        x0, y0 = round(float(x) * 2), round(float(y) * 2)
        painted[y0 : y0 + round(float(h) * 2), x0 : x0 + round(float(w) * 2)] = True
    assert (painted == black).all()
    # and a flat photo of it shows every chessboard corner
    objects, _ = charuco.sheet_corners(charuco.sheet_image(2))
    assert len(objects) == (charuco.SQUARES[0] - 1) * (charuco.SQUARES[1] - 1)


@pytest.mark.parametrize("k1", [-0.3, -0.15, 0.0, 0.1])
def test_the_markers_sides_tell_the_lens(k1: float) -> None:
    """Marker corners projected exactly (a 12x12 board, 20 degrees' tilt, each card turned
    its own way) and bent by a one-term lens: the estimate finds that k1."""
    lens = _frame_lens(k1)
    rot, _ = cv2.Rodrigues(np.array([0.3, -0.15, 0.4]))
    t = np.array([0.0, 0.0, 19.0]) - rot[:, :2] @ np.array([6.0, 6.0])
    to_frame = lens.matrix @ np.column_stack([rot[:, 0], rot[:, 1], t])
    m = 0.5
    tray = np.array([[-m, -m], [12 + m, -m], [12 + m, 12 + m], [-m, 12 + m]])
    outward = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]])
    found = {}
    for i in range(4):
        far = tray[i] + outward[i]
        low, high = np.minimum(tray[i], far), np.maximum(tray[i], far)
        square = np.array([low, [high[0], low[1]], high, [low[0], high[1]]])
        ideal = cv2.perspectiveTransform(square.reshape(-1, 1, 2), to_frame).reshape(-1, 2)
        found[i] = np.roll(lens.distort(ideal), i, axis=0).astype(np.float32)
    estimate = estimate_lens(found, SIZE)
    if k1 == 0.0:
        assert estimate is None
    else:
        assert estimate is not None
        units = (lens.matrix[0, 0] / estimate.matrix[0, 0]) ** 2  # its k1 at the true focal
        assert abs(estimate.coefficients[0] * units - k1) < 0.003
