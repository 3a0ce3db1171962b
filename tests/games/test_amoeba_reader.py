"""The tile reader against synthetic photos: calibrate on one start image, then read trays.

Every look is calibrated from ONE start-pattern scene per camera pose (corners as a user would
click them, a pixel or two off) and must then read random trays under changing light without a
single tile wrong.  ``LOOKS_UNSEEN`` were never used while developing the reader.
"""

from __future__ import annotations

import logging
import os
import time

import cv2
import numpy as np
import pytest

from companion.errors import ProfileError, VisionError
from companion.games.amoeba import AmoebaGame
from companion.games.amoeba.draw import LOOKS_TUNED, LOOKS_UNSEEN
from companion.games.amoeba.model import Tray
from companion.games.amoeba.reader import TileReader
from companion.vision.rectify import Rectifier
from companion.vision.synth import (
    TABLES,
    Light,
    encode_jpeg,
    random_light,
    random_pose,
    render_scene,
)

GAME = AmoebaGame()
GEO = GAME.geometry
FRAME = (960, 720)
CLICK_ERROR_PX = 2.0

log = logging.getLogger(__name__)


def _photo(image: np.ndarray) -> np.ndarray:
    """What the camera delivers: the frame through JPEG."""
    return cv2.imdecode(np.frombuffer(encode_jpeg(image), np.uint8), cv2.IMREAD_COLOR)


def _random_tray(rng: np.random.Generator) -> Tray:
    return Tray(tuple(int(b) for b in rng.integers(0, 2, 49)))


class Camera:
    """One calibrated view: fixed pose, table and (slightly wrong) clicked corners."""

    def __init__(self, look: str, rng: np.random.Generator, max_tilt: float = 20.0) -> None:
        self.look, self.rng = look, rng
        self.pose = random_pose(rng, max_tilt=max_tilt)
        self.table = TABLES[int(rng.integers(len(TABLES)))]
        start = self.scene(Tray.start(int(rng.integers(2))))
        clicked = start.corners + rng.uniform(-CLICK_ERROR_PX, CLICK_ERROR_PX, (4, 2))
        self.rectify = Rectifier(clicked.astype(np.float32), GEO)
        self.reader = TileReader.learn(self.rectify(_photo(start.image)), GEO)

    def scene(self, tray: Tray, light: Light | None = None, hand: str | None = None):  # type: ignore[no-untyped-def]
        return render_scene(
            GAME,
            tray,
            self.look,
            self.rng,
            pose=self.pose,
            light=light,
            size=FRAME,
            table=self.table,
            hand=hand,
        )

    def board(self, tray: Tray, hand: str | None = None) -> np.ndarray:
        scene = self.scene(tray, light=random_light(self.rng), hand=hand)
        return self.rectify(_photo(scene.image))


@pytest.mark.parametrize("look", LOOKS_UNSEEN + LOOKS_TUNED)
def test_reads_every_tile_after_one_calibration_image(look: str) -> None:
    rng = np.random.default_rng([11, len(look), ord(look[0])])
    camera = Camera(look, rng)
    wrong = []
    for _ in range(10):
        tray = _random_tray(rng)
        reading = camera.reader.read(camera.board(tray))
        wrong += reading.state.changed(tray)
        assert not reading.covered, reading.note
        assert reading.confidence.shape == (49,)
    assert wrong == []
    hand = camera.reader.read(camera.board(_random_tray(rng), hand="over"))
    assert hand.covered
    assert hand.confidence.min() < 0.05


def test_a_hand_at_the_tray_edge_marks_the_board_covered() -> None:
    rng = np.random.default_rng(5)
    camera = Camera("wood", rng)
    assert camera.reader.read(camera.board(Tray.start(), hand="edge")).covered


def test_learns_either_start_phase_and_reads_it_back() -> None:
    for phase in (0, 1):
        tray = Tray.start(phase)
        board = GAME.lab.draw_board(tray, "classic", np.random.default_rng(phase), px_per_cell=32)
        reader = TileReader.learn(board, GEO)
        assert reader.read(board).state == tray


def test_profile_round_trip_reads_the_same() -> None:
    rng = np.random.default_rng(2)
    camera = Camera("gold_on_black", rng)
    board = camera.board(_random_tray(rng))
    again = TileReader.from_json(camera.reader.to_json(), GEO)
    first, second = camera.reader.read(board), again.read(board)
    assert first.state == second.state
    assert np.allclose(first.confidence, second.confidence, atol=0.02)


GOOD = {"version": 2, "shifts": [[0, 0]] * 49, "arc": [[0, 0, 0]] * 49, "tile": [[9, 9, 9]] * 49}


@pytest.mark.parametrize(
    "params",
    [
        [],
        {},
        {**GOOD, "version": 1},
        {**GOOD, "shifts": [[0, 0]] * 48},
        {**GOOD, "shifts": [[99, 0]] * 49},
        {**GOOD, "arc": [[1, 2, 3]]},
        {**GOOD, "arc": [["x", 0, 0]] * 49},
        {**GOOD, "tile": [[float("nan"), 0, 0]] * 49},
        {k: v for k, v in GOOD.items() if k != "tile"},
    ],
)
def test_bad_profile_params_are_refused(params: dict) -> None:
    assert TileReader.from_json(GOOD, GEO).to_json()["shifts"] == GOOD["shifts"]
    with pytest.raises(ProfileError):
        TileReader.from_json(params, GEO)


def test_calibration_refuses_an_image_without_the_start_pattern() -> None:
    rng = np.random.default_rng(4)
    board = GAME.lab.draw_board(_random_tray(rng), "classic", rng, px_per_cell=32)
    with pytest.raises(VisionError):
        TileReader.learn(board, GEO)
    with pytest.raises(VisionError):
        TileReader.learn(np.zeros((10, 10, 3), np.uint8), GEO)


def test_calibration_refuses_a_start_image_with_a_hand_over_it() -> None:
    rng = np.random.default_rng(8)
    scene = render_scene(
        GAME, Tray.start(), "classic", rng, pose=random_pose(rng), size=FRAME, hand="over"
    )
    with pytest.raises(VisionError):
        TileReader.learn(Rectifier(scene.corners, GEO)(scene.image), GEO)


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("COMPANION_SLOW"), reason="set COMPANION_SLOW=1 to run")
@pytest.mark.parametrize("look", LOOKS_UNSEEN)
def test_error_rate_over_many_poses(look: str) -> None:
    """The figure for the report: 5 poses (tilt up to 25 deg) x 20 trays per unseen look."""
    rng = np.random.default_rng([99, len(look), ord(look[-1])])
    tiles = errors = 0
    times = []
    for _ in range(5):
        camera = Camera(look, rng, max_tilt=25.0)
        for _ in range(20):
            tray = _random_tray(rng)
            board = camera.board(tray)
            start = time.perf_counter()
            reading = camera.reader.read(board)
            times.append(time.perf_counter() - start)
            tiles += 49
            errors += len(reading.state.changed(tray))
    ms = 1000 * float(np.median(times))
    log.warning("%s: %d tiles, %d wrong, read() median %.2f ms", look, tiles, errors, ms)
    assert errors / tiles < 0.001
