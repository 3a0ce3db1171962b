"""Synthetic camera scenes: the truth they report must match what they draw."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from companion.games.amoeba import AmoebaGame
from companion.games.amoeba.lab import AmoebaLab
from companion.games.amoeba.model import Tray
from companion.games.lab import Layer
from companion.vision import markers
from companion.vision.synth import (
    CAMERA_DISTANCE,
    TABLES,
    Light,
    Pose,
    drifting_lights,
    encode_jpeg,
    random_light,
    random_pose,
    relight,
    render_scene,
)

GAME = AmoebaGame()
Colour = tuple[int, int, int, int]
SIZE = (640, 480)
CLEAN = Light()


def _scene(seed: int, **kw):  # type: ignore[no-untyped-def]
    kw.setdefault("size", SIZE)
    return render_scene(GAME, Tray.start(), "classic", np.random.default_rng(seed), **kw)


def _inside(corners: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    mask = np.zeros((size[1], size[0]), np.uint8)
    cv2.fillConvexPoly(mask, np.round(corners).astype(np.int32), 1)
    return mask.astype(bool)


def test_image_size_type_and_the_board_inside_the_frame() -> None:
    scene = _scene(1)
    assert scene.image.shape == (480, 640, 3) and scene.image.dtype == np.uint8
    assert scene.corners.shape == (4, 2) and scene.corners.dtype == np.float32
    for quad in (scene.corners, scene.tray_corners):
        assert (quad >= 0).all() and (quad[:, 0] < 640).all() and (quad[:, 1] < 480).all()
    # the tray encloses the playing area
    tray = scene.tray_corners
    assert (
        cv2.pointPolygonTest(tray.reshape(-1, 1, 2), tuple(map(float, scene.corners[0])), False) > 0
    )


def test_same_seed_same_scene() -> None:
    assert np.array_equal(_scene(7).image, _scene(7).image)


@pytest.mark.parametrize("seed", [2, 3, 4])
def test_markers_are_found_where_the_tray_corners_are(seed: int) -> None:
    rng = np.random.default_rng(seed)
    scene = render_scene(
        GAME, Tray.start(), "wood", rng, pose=random_pose(rng), light=random_light(rng)
    )
    found = markers.detect(cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY))
    assert sorted(found) == [0, 1, 2, 3]
    corners = markers.tray_corners(found)
    assert np.abs(corners - scene.tray_corners).max() < 3.0


def test_no_markers_when_asked() -> None:
    scene = _scene(5, markers=False, light=CLEAN)
    assert markers.detect(cv2.cvtColor(scene.image, cv2.COLOR_BGR2GRAY)) == {}


def test_yaw_turns_the_board_top_in_the_image() -> None:
    up = _scene(1, pose=Pose(yaw_deg=0), light=CLEAN).corners
    down = _scene(1, pose=Pose(yaw_deg=180), light=CLEAN).corners
    assert np.argmin(up.sum(axis=1)) == 0  # top-left corner of the board is top-left
    assert np.argmin(down.sum(axis=1)) == 2  # board turned over: its bottom-right is top-left


def test_tilt_foreshortens_and_fill_sets_the_board_size() -> None:
    flat = _scene(1, pose=Pose(tilt_deg=0, fill=0.5), light=CLEAN).tray_corners
    sides = np.linalg.norm(flat - np.roll(flat, -1, axis=0), axis=1)
    assert sides.max() - sides.min() < 0.5
    assert sides.mean() == pytest.approx(0.5 * 480, rel=0.02)
    tilted = _scene(1, pose=Pose(tilt_deg=20, tilt_axis_deg=0), light=CLEAN).tray_corners
    sides = np.linalg.norm(tilted - np.roll(tilted, -1, axis=0), axis=1)
    assert sides.max() / sides.min() > 1.1


def test_uneven_light_brightens_one_side() -> None:
    pose = Pose(fill=0.9)
    even = _scene(1, pose=pose, light=CLEAN).image.astype(float)
    ramp = _scene(1, pose=pose, light=Light(gradient=0.4, gradient_dir_deg=0)).image.astype(float)
    ratio = ramp / np.maximum(even, 1)
    assert ratio[:, -100:].mean() > ratio[:, :100].mean() + 0.2


def test_hand_covers_part_of_the_board() -> None:
    bare = _scene(3, light=CLEAN)
    board = _inside(bare.corners, SIZE)
    changed = {}
    for hand in ("over", "edge"):
        scene = _scene(3, light=CLEAN, hand=hand)
        diff = np.abs(scene.image.astype(int) - bare.image.astype(int)).max(axis=2)
        changed[hand] = float((diff[board] > 40).mean())
    assert changed["over"] > 0.05
    assert 0.0 < changed["edge"] < changed["over"]
    with pytest.raises(ValueError):
        _scene(3, hand="foot")


def test_encode_jpeg_round_trips() -> None:
    scene = _scene(1)
    data = encode_jpeg(scene.image, quality=85)
    assert data[:2] == b"\xff\xd8"
    back = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert back.shape == scene.image.shape
    assert np.abs(back.astype(int) - scene.image.astype(int)).mean() < 4


def test_board_seed_keeps_the_set_up_still_between_frames() -> None:
    def frame(rng_seed: int, board_seed: int | None) -> np.ndarray:
        return render_scene(
            GAME,
            Tray.start(),
            "wood",
            np.random.default_rng(rng_seed),
            pose=Pose(fill=0.6),
            light=CLEAN,
            size=SIZE,
            board_seed=board_seed,
            table=TABLES[0],
        ).image

    a, b, c = frame(1, 9), frame(2, 9), frame(2, None)
    assert np.array_equal(a, b)
    assert not np.array_equal(b, c)


class _BlocksLab(AmoebaLab):
    """An Amoeba tray with coloured squares floating above it: raised layers to test with."""

    def __init__(self, game: AmoebaGame, blocks: list[tuple[float, tuple[int, int], Colour]]):
        super().__init__(game)
        self.blocks = blocks
        """(height in cells, (row, col) of the square it lies over, BGRA colour)."""

    def raised(self, state, look, rng, *, px_per_cell=96):  # type: ignore[no-untyped-def]
        geometry = self.game.geometry
        side = round((7 + 2 * geometry.margin) * px_per_cell)
        layers = []
        for height, (row, col), colour in self.blocks:
            image = np.zeros((side, side, 4), np.uint8)
            o = round(geometry.margin * px_per_cell)
            y, x = o + row * px_per_cell, o + col * px_per_cell
            image[y : y + px_per_cell, x : x + px_per_cell] = colour
            layers.append(Layer(height, image))
        return layers


class _Blocks(AmoebaGame):
    """Amoeba whose lab draws the blocks above the tray."""

    def __init__(self, blocks: list[tuple[float, tuple[int, int], Colour]]):
        self._lab = _BlocksLab(self, blocks)

    @property
    def lab(self) -> _BlocksLab:
        return self._lab


def _render(game: AmoebaGame, pose: Pose, seed: int = 4):  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(seed)
    return render_scene(
        game, Tray.start(), "classic", rng, pose=pose, light=CLEAN, size=SIZE, board_seed=3
    )


def _centroid(mask: np.ndarray) -> np.ndarray:
    ys, xs = np.nonzero(mask)
    return np.array([xs.mean(), ys.mean()])


def test_a_transparent_layer_leaves_the_flat_render_pixel_identical() -> None:
    pose = Pose(tilt_deg=15, tilt_axis_deg=40, yaw_deg=10)
    flat = _render(GAME, pose)
    empty = _render(_Blocks([(0.5, (2, 2), (0, 0, 0, 0))]), pose)
    assert np.array_equal(flat.image, empty.image)
    assert np.array_equal(flat.corners, empty.corners)


@pytest.mark.parametrize(
    "pose",
    [
        Pose(tilt_deg=0, yaw_deg=30),
        Pose(tilt_deg=20, tilt_axis_deg=0),
        Pose(tilt_deg=18, tilt_axis_deg=130, yaw_deg=200, offset=(0.5, -0.5)),
    ],
)
def test_a_raised_square_appears_where_its_plane_homography_says(pose: Pose) -> None:
    height, cell = 1.0, (1, 5)
    flat = _render(GAME, pose)
    scene = _render(_Blocks([(height, cell, (255, 0, 255, 255))]), pose)
    magenta = (scene.image[..., 0] > 200) & (scene.image[..., 1] < 60) & (scene.image[..., 2] > 200)
    centre = np.array([[[cell[1] + 0.5, cell[0] + 0.5]]])
    top = cv2.perspectiveTransform(centre, scene.plane_homography(height)).reshape(2)
    foot = cv2.perspectiveTransform(centre, scene.plane_homography(0.0)).reshape(2)
    assert np.linalg.norm(_centroid(magenta) - top) < 1.5 < np.linalg.norm(top - foot) / 4
    # the board plane's homography is the one the reported corners come from
    quad = np.array([[[0, 0], [7, 0], [7, 7], [0, 7]]], np.float64)
    board = cv2.perspectiveTransform(quad, scene.plane_homography(0.0)).reshape(4, 2)
    assert np.abs(board - flat.corners).max() < 1e-3
    # a raised thing lies further from the nadir (the image of the point under the camera)
    down = scene.projection @ np.array([0.0, 0.0, 1.0, 0.0])
    nadir = down[:2] / down[2]
    out, lean = foot - nadir, top - foot
    assert np.dot(out, lean) / (np.linalg.norm(out) * np.linalg.norm(lean)) > 0.999
    if pose.tilt_deg == 0:
        # straight down from height H a point h up is enlarged H / (H - h) about the nadir
        camera_height = CAMERA_DISTANCE * (7 + 2 * GAME.geometry.margin)
        expected = nadir + out * camera_height / (camera_height - height)
        assert np.linalg.norm(top - expected) < 0.05


def test_layers_are_drawn_lowest_first_whatever_order_they_come_in() -> None:
    pose = Pose(tilt_deg=10, tilt_axis_deg=90)
    high, low = (0.6, (3, 3), (0, 0, 255, 255)), (0.2, (3, 3), (255, 0, 0, 255))
    scene = _render(_Blocks([high, low]), pose)
    centre = np.array([[[3.5, 3.5]]])
    x, y = np.round(cv2.perspectiveTransform(centre, scene.plane_homography(0.6))).astype(int)[0, 0]
    assert tuple(scene.image[y, x]) == pytest.approx((0, 0, 255), abs=10)


def test_drifting_lights_wash_colours_out_and_lift_the_black_level() -> None:
    """By mid-game the camera shows saturated colours greyer and its darkest channel at
    30-80 levels, as the outside tester's real frames did."""
    lights = drifting_lights(np.random.default_rng(4), 9)
    assert lights[0].black == 0.0 and lights[0].saturation == 1.0
    swatch = np.zeros((40, 40, 3), np.float32)
    swatch[..., 2] = 200.0  # a saturated red with two channels at zero
    late = lights[-1]
    assert 30.0 <= late.black <= 80.0 and late.saturation < 0.85
    seen = relight(swatch, late, np.random.default_rng(1)).astype(float)
    assert 25.0 <= np.median(seen[..., 0]) <= 120.0  # the blue channel lifted off zero
    spread = np.median(seen[..., 2]) - np.median(seen[..., 0])
    assert spread < 200.0 * late.saturation * late.exposure  # washed out
    plain = relight(swatch, lights[0], np.random.default_rng(1)).astype(float)
    assert np.median(plain[..., 0]) < 12.0


def test_drift_options_off_leave_the_render_as_it_was() -> None:
    """Other tests and bench figures rely on renders made without drift."""
    light = random_light(np.random.default_rng(8))
    drifted = replace(light, saturation=0.6, black=50.0, gamma=1.2)
    plain = _scene(3, light=light).image
    again = _scene(3, light=replace(drifted, saturation=1.0, black=0.0, gamma=1.0)).image
    assert np.array_equal(plain, again)
    assert not np.array_equal(plain, _scene(3, light=drifted).image)
