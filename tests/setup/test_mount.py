"""Mounting advice: the board fits the frame, with the pixels per cell the reader needs."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from companion.cli import EXIT_ERROR, main
from companion.errors import InputError
from companion.games import GAME_IDS, find_game
from companion.setup.mount import CAMERAS, ROOM, Camera, advise


@given(
    st.sampled_from(GAME_IDS),
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
    assert main(["mount", "--game", "upwords", "--camera", "cm3"]) == 0
    assert "cm (lens to table)" in capsys.readouterr().out
    # the board fills the frame whatever its size: a small sensor mode is what runs short
    low = Camera("old webcam", 60.0, 45.0, 320, 240)
    advice = advise(find_game("upwords").geometry, low)
    assert not advice.enough and "too few" in advice.text
    with pytest.raises(InputError):
        advise(find_game("amoeba").geometry, CAMERAS["cm2"], cell_cm=0.1)
    assert main(["mount", "--game", "amoeba", "--camera", "nokia"]) == EXIT_ERROR
