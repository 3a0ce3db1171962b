"""Upwords pictures: fonts found, every letter printed, tiles as layers that lean with height."""

from __future__ import annotations

import logging

import cv2
import numpy as np
import pytest

from companion.errors import InputError
from companion.games import find_game
from companion.games.lab import Layer
from companion.games.upwords import draw, fonts
from companion.games.upwords.model import LETTERS, SIZE, TILE_THICKNESS, Board
from companion.vision.synth import Light, Pose, render_scene

GAME = find_game("upwords")
GEOMETRY = GAME.geometry
PPC = 40


def _board(squares: dict[tuple[int, int], str]) -> Board:
    rows = [["" for _ in range(SIZE)] for _ in range(SIZE)]
    for (row, col), text in squares.items():
        rows[row][col] = text
    return Board.from_rows(rows)


def test_system_fonts_are_found_and_every_look_has_its_own() -> None:
    found = fonts.available_fonts()
    assert found and all(path.is_file() for path in found.values())
    for name in draw.LOOKS_TUNED + draw.LOOKS_UNSEEN:
        assert draw.LOOKS[name].font in found, name
    tuned = {draw.LOOKS[name].font for name in draw.LOOKS_TUNED}
    unseen = {draw.LOOKS[name].font for name in draw.LOOKS_UNSEEN}
    assert not tuned & unseen


def test_a_missing_font_falls_back_the_same_way_with_a_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    fonts.font_path.cache_clear()
    with caplog.at_level(logging.WARNING, logger="companion.games.upwords.fonts"):
        first = fonts.font_path("NoSuchFont-Heavy")
    assert "NoSuchFont-Heavy" in caplog.text
    assert first is not None and first.stem == fonts.STAND_INS[0]
    assert fonts.load_font("NoSuchFont-Heavy", 30).getbbox("A")[2] > 5


@pytest.mark.parametrize("look", ["classic", "red_letters", "slate"])
def test_every_letter_prints_as_its_own_glyph_inside_the_tile(look: str) -> None:
    masks = {letter: draw.letter_mask(letter, look, PPC) for letter in LETTERS}
    side = masks["A"].shape[0]
    border = round((side - draw.TILE_SIDE * PPC) / 2)
    for letter, mask in masks.items():
        ink = mask.sum() / (PPC * PPC)
        assert 0.04 < ink < 0.4, (letter, ink)
        assert mask[:border].max() == 0 and mask[-border:].max() == 0, letter
    shapes = np.array([(m > 0.5).ravel() for m in masks.values()], dtype=np.float32)
    overlap = shapes @ shapes.T
    union = shapes.sum(axis=1)[:, None] + shapes.sum(axis=1)[None, :] - overlap
    iou = overlap / union
    np.fill_diagonal(iou, 0.0)
    assert iou.max() < 0.9


def test_flat_board_is_the_rectified_extent_and_its_draws_ignore_the_tiles() -> None:
    empty, full = Board.empty(), _board({(r, c): "5E" for r in range(SIZE) for c in range(SIZE)})
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
    a = draw.draw_board(empty, "classic", rng_a, geometry=GEOMETRY, px_per_cell=PPC)
    draw.draw_board(full, "classic", rng_b, geometry=GEOMETRY, px_per_cell=PPC)
    assert a.shape == (11 * PPC, 11 * PPC, 3) and a.dtype == np.uint8
    assert rng_a.random() == rng_b.random()
    # the texture of the centre squares sets them apart from the other wells
    grey = a.mean(axis=2)
    inner = slice(PPC // 2 + 8, PPC * 3 // 2 - 8)

    def square(row: int, col: int) -> np.ndarray:
        return grey[row * PPC : (row + 1) * PPC, col * PPC : (col + 1) * PPC][inner, inner]

    assert square(4, 4).std() > 3 * square(2, 2).std() + 2
    with pytest.raises(InputError):
        draw.draw_board(empty, "plaid", rng_a, geometry=GEOMETRY, px_per_cell=PPC)


def _patch(layer: Layer, row: int, col: int) -> np.ndarray:
    o = PPC // 2
    return layer.image[o + row * PPC : o + (row + 1) * PPC, o + col * PPC : o + (col + 1) * PPC]


def test_layers_climb_to_each_stack_top_with_only_the_top_letter() -> None:
    board = _board({(2, 3): "5E", (6, 6): "1QU", (7, 1): "2M"})
    layers = draw.raised(
        board, "classic", np.random.default_rng(2), geometry=GEOMETRY, px_per_cell=PPC
    )
    heights = [layer.height for layer in layers]
    assert heights == sorted(heights)
    assert heights[-1] == pytest.approx(5 * TILE_THICKNESS)
    assert draw.raised(Board.empty(), "classic", np.random.default_rng(2), geometry=GEOMETRY) == []
    spec = draw.LOOKS["classic"]
    letter = np.array(spec.letter)
    tile = np.array(spec.tile)
    for layer in layers:
        assert layer.image.shape == (11 * PPC, 11 * PPC, 4) and layer.image.dtype == np.uint8
        for (row, col), top in (((2, 3), 5), ((6, 6), 1), ((7, 1), 2)):
            patch = _patch(layer, row, col)
            solid = patch[..., 3] == 255
            inked = np.abs(patch[..., :3].astype(int) - letter).sum(axis=2) < 60
            at_top = layer.height == pytest.approx(top * TILE_THICKNESS)
            # letters only on each stack's top face; below it only the (darker) sides
            assert (inked & solid).sum() > (40 if at_top else -1) and (at_top or not inked.any())
            if solid.any() and not at_top:
                assert patch[solid][:, :3].mean() < 0.85 * tile.mean()
            if layer.height > top * TILE_THICKNESS + 1e-9:
                assert not patch[..., 3].any()


def test_each_tile_lies_a_quarter_turn_chosen_per_square() -> None:
    upright = draw.letter_mask("F", "deluxe", PPC) > 0.5
    turns = set()
    for seed in range(8):
        layers = draw.raised(
            _board({(4, 4): "1F"}), "deluxe", np.random.default_rng(seed), geometry=GEOMETRY,
            px_per_cell=PPC,
        )  # fmt: skip
        face = layers[-1].image
        o = PPC // 2 + 4 * PPC + PPC // 2 - upright.shape[0] // 2
        crop = face[o : o + upright.shape[0], o : o + upright.shape[1]]
        ink = (crop[..., 3] == 255) & (crop[..., :3].astype(int).sum(axis=2) < 200)
        scores = []
        for k in range(4):
            turned = np.rot90(upright, k)
            scores.append((ink & turned).sum() / (ink | turned).sum())
        # jitter (a pixel, a few degrees) blurs the match; the right turn still stands out
        best, second = sorted(scores)[-1], sorted(scores)[-2]
        assert best > 0.4 and best > 2 * second
        turns.add(int(np.argmax(scores)))
    assert len(turns) >= 3


def _face_centre(
    scene_image: np.ndarray, bare: np.ndarray, face_bgr: tuple[int, int, int]
) -> np.ndarray:
    changed = np.abs(scene_image.astype(int) - bare.astype(int)).max(axis=2) > 30
    face = np.abs(scene_image.astype(int) - np.array(face_bgr)).max(axis=2) < 30
    ys, xs = np.nonzero(changed & face)
    return np.array([(xs.min() + xs.max()) / 2, (ys.min() + ys.max()) / 2])


@pytest.mark.parametrize(
    "pose",
    [
        Pose(tilt_deg=0, yaw_deg=20, fill=0.7),
        Pose(tilt_deg=20, tilt_axis_deg=0, fill=0.7),
        Pose(tilt_deg=20, tilt_axis_deg=220, yaw_deg=100, fill=0.7),
    ],
)
def test_stacks_lean_away_from_the_point_under_the_camera_as_they_grow(pose: Pose) -> None:
    game, cell, size = GAME, (1, 8), (640, 480)
    look = "travel"
    face_bgr = draw.LOOKS[look].tile

    def render(text: str):  # type: ignore[no-untyped-def]
        board = _board({cell: text} if text else {})
        return render_scene(
            game, board, look, np.random.default_rng(0), pose=pose, light=Light(),
            size=size, board_seed=5,
        )  # fmt: skip

    bare = render("").image
    centre = np.array([[[cell[1] + 0.5, cell[0] + 0.5]]])
    shifts = []
    for height in (1, 3, 5):
        scene = render(f"{height}O")
        foot = cv2.perspectiveTransform(centre, scene.plane_homography(0.0)).reshape(2)
        top = cv2.perspectiveTransform(centre, scene.plane_homography(height * TILE_THICKNESS))
        seen = _face_centre(scene.image, bare, face_bgr)
        assert np.linalg.norm(seen - top.reshape(2)) < 2.0
        shifts.append(seen - foot)
    down = scene.projection @ np.array([0.0, 0.0, 1.0, 0.0])
    outward = foot - down[:2] / down[2]
    lean = shifts[-1]
    assert np.dot(outward, lean) / (np.linalg.norm(outward) * np.linalg.norm(lean)) > 0.95
    lengths = [float(np.linalg.norm(s)) for s in shifts]
    assert lengths[0] < lengths[1] < lengths[2] and lengths[2] > 4.0
