"""Mounting advice: the board fits the frame, with the pixels per cell the reader needs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.cli import EXIT_ERROR, main
from companion.errors import InputError
from companion.games import find_game, game_ids
from companion.setup.mount import CAMERAS, ROOM, Advice, Camera, advise

OVERHEAD = [g for g in game_ids() if find_game(g).geometry.tilt_deg[0] == 0]
BESIDE = [g for g in game_ids() if find_game(g).geometry.tilt_deg[0] > 0]


def project(advice: Advice, points: np.ndarray) -> np.ndarray:
    """Table points (x across, y away from the camera, z up; board centre at 0) -> (tan
    across, tan up) off the optical axis of a camera placed as advised, aimed at the centre."""
    eye = np.array([0.0, -advice.offset_cm, advice.height_cm])
    forward = -eye / np.linalg.norm(eye)
    right = np.array([1.0, 0.0, 0.0])
    up = np.cross(right, forward)
    rel = points - eye
    depth = rel @ forward
    return np.stack([rel @ right / depth, rel @ up / depth], axis=1)


@given(st.sampled_from(BESIDE), st.sampled_from(sorted(CAMERAS)), st.floats(1.0, 10.0))
def test_a_tilted_camera_sees_the_whole_board_with_the_pixels_it_says(
    game: str, camera: str, cell: float
) -> None:
    geometry, cam = find_game(game).geometry, CAMERAS[camera]
    advice = advise(geometry, cam, cell_cm=cell)
    low, high = geometry.tilt_deg
    assert low <= advice.tilt_deg <= high and advice.offset_cm > 0
    half_x = (geometry.cols + 2 * geometry.margin) * cell * ROOM / 2
    half_y = (geometry.rows + 2 * geometry.margin) * cell * ROOM / 2
    corners = np.array([[sx * half_x, sy * half_y, 0.0] for sx in (-1, 1) for sy in (-1, 1)])
    seen = np.abs(project(advice, corners))
    tan_h = math.tan(math.radians(cam.hfov_deg) / 2)
    tan_v = math.tan(math.radians(cam.vfov_deg) / 2)
    assert (seen[:, 0] <= tan_h + 1e-9).all() and (seen[:, 1] <= tan_v + 1e-9).all()
    # one side or the other touches the frame: no closer placement would fit
    assert max(seen[:, 0].max() / tan_h, seen[:, 1].max() / tan_v) == pytest.approx(1.0)
    # at the far edge a cell spans the advised pixels along the tilt (the smaller way)
    edge = half_y / ROOM
    far = project(advice, np.array([[0.0, edge - cell, 0.0], [0.0, edge, 0.0]]))
    px = cam.width_px / 2 / tan_h * float(np.linalg.norm(far[1] - far[0]))
    assert advice.px_per_cell == pytest.approx(px, rel=0.05)
    assert "degrees from straight down" in advice.text


@given(
    st.sampled_from(OVERHEAD),
    st.sampled_from(sorted(CAMERAS)),
    st.floats(1.0, 10.0),
)
def test_the_board_fits_the_frame_at_the_advised_height(game: str, camera: str, cell: float):
    geometry, cam = find_game(game).geometry, CAMERAS[camera]
    advice = advise(geometry, cam, cell_cm=cell)
    seen_w = 2 * advice.height_cm * math.tan(math.radians(cam.hfov_deg) / 2)
    seen_h = 2 * advice.height_cm * math.tan(math.radians(cam.vfov_deg) / 2)
    across = (geometry.cols + 2 * geometry.margin) * cell * ROOM
    down = (geometry.rows + 2 * geometry.margin) * cell * ROOM
    # the board's longer side lies along the frame's longer side
    assert seen_w >= max(across, down) - 1e-6 and seen_h >= min(across, down) - 1e-6
    assert advice.px_per_cell == pytest.approx(cam.width_px * cell / seen_w)


def test_a_wider_lens_goes_lower() -> None:
    geometry = find_game("upwords").geometry
    assert (
        advise(geometry, CAMERAS["cm3-wide"]).height_cm < advise(geometry, CAMERAS["cm3"]).height_cm
    )


def test_too_few_pixels_are_said(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mount", "--game", "amoeba", "--camera", "cm3"]) == 0
    assert "cm (lens to table)" in capsys.readouterr().out
    # the board fills the frame whatever its size: a small sensor mode is what runs short
    low = Camera("old webcam", 60.0, 45.0, 320, 240)
    advice = advise(find_game("upwords").geometry, low)
    assert not advice.enough and "too few" in advice.text
    with pytest.raises(InputError):
        advise(find_game("amoeba").geometry, CAMERAS["cm2"], cell_cm=0.1)
    assert main(["mount", "--game", "amoeba", "--camera", "nokia"]) == EXIT_ERROR
