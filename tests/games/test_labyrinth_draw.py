"""The photo-like labyrinth: pieces as printed (paths, spaces, identity marks), discs, figures."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from labyrinth_scenes import GAME, GEOMETRY, random_board, random_layout, start

from companion.errors import InputError
from companion.games.labyrinth import draw
from companion.games.labyrinth.catalog import default_catalog
from companion.games.labyrinth.model import CHARACTER_COLOURS, Board, graph_of, make_board
from companion.vision.synth import Pose, render_scene

PPC = 96


def _px(point: np.ndarray) -> tuple[int, int]:
    x, y = (np.asarray(point) + GEOMETRY.margin) * PPC - 0.5
    return round(x), round(y)


def _draw(board: Board, look: str = "crypt", seed: int = 0) -> np.ndarray:
    return draw.draw_board(
        board, look, np.random.default_rng(seed), geometry=GEOMETRY, px_per_cell=PPC
    )


def test_the_picture_covers_the_rectified_extent() -> None:
    img = _draw(start())
    width, height = GEOMETRY.size
    scale = PPC / GEOMETRY.cell_px
    assert img.shape == (round(height * scale), round(width * scale), 3)
    assert img.dtype == np.uint8


@pytest.mark.parametrize("look", draw.LOOKS_TUNED + draw.LOOKS_UNSEEN)
def test_every_piece_shows_its_corner_triangle_and_code(look: str) -> None:
    layout = random_layout(np.random.default_rng(4))
    img = cv2.cvtColor(_draw(start(layout), look), cv2.COLOR_BGR2GRAY).astype(float)
    for p in layout:
        centre = draw.to_board(p, (0.62, 0.06))  # plain card between the code and the side
        card = img[_px(centre)[::-1]]
        core = img[_px(draw.to_board(p, (0.04, 0.04)))[::-1]]
        assert card - core > 40, (look, p)
        code = default_catalog().piece(p.piece).code
        for bit, square in zip(draw.code_bits(code), draw.code_squares(p), strict=True):
            value = img[_px(square.mean(axis=0))[::-1]]
            assert (card - value > 40) == bit, (look, p, code)


def test_lanterns_are_printed_in_their_colours_and_discs_lie_on_their_spaces() -> None:
    board = start()
    graph = graph_of(board.layout)
    img = _draw(board)
    empty = _draw(make_board(board.layout, {}, None, ()))
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    hues = {"red": 0, "yellow": 25, "green": 56, "blue": 104, "purple": 145}
    for space, node in graph.spaces.items():
        # the ring half-way out from the dark wick
        x, y = _px(np.asarray(graph.points[space]) + np.array((0.036, 0.0)))
        if node.kind == "lantern":
            hue = int(hsv[y, x, 0])
            gap = min(abs(hue - hues[node.colour]), 180 - abs(hue - hues[node.colour]))
            assert gap < 10 and hsv[y, x, 1] > 150, space
        if node.kind in ("disc", "finish"):
            differs = np.abs(img[y, x].astype(int) - empty[y, x]).sum() > 30
            assert differs == (space in board.discs), space


def test_a_fixed_seed_keeps_the_print_whatever_lies_on_it() -> None:
    board = start()
    bare = make_board(board.layout, board.character_map, board.bizarre, ())
    a, b = _draw(board, seed=3), _draw(bare, seed=3)
    graph = graph_of(board.layout)
    differ = np.abs(a.astype(int) - b).sum(axis=2) > 0
    ys, xs = np.nonzero(differ)
    points = (np.column_stack([xs, ys]) + 0.5) / PPC - GEOMETRY.margin
    discs = np.array([graph.points[s] for s in board.discs])
    nearest = np.min(np.linalg.norm(points[:, None] - discs[None], axis=2), axis=1)
    assert nearest.max() < draw.DISC_RADIUS + 0.04


def test_figures_sharing_a_space_stand_nearer_it_than_any_other_stop() -> None:
    rng = np.random.default_rng(8)
    for _ in range(20):
        board = random_board(rng)
        graph = graph_of(board.layout)
        stops = {s: np.asarray(p) for s, p in graph.points.items()
                 if s in graph.spaces and graph.spaces[s].kind != "junction"}  # fmt: skip
        spots = draw.figure_spots(board, np.full((5, 2), draw.WOBBLE))
        truth = {**board.character_map, "bizarre": board.bizarre}
        for name, spot in spots.items():
            nearest = min(stops, key=lambda s: np.linalg.norm(stops[s] - spot))
            assert nearest == truth[name]
            assert np.linalg.norm(stops[nearest] - spot) <= draw.CROWD + 0.02


def test_raised_layers_are_figure_slices_in_their_paint() -> None:
    board = start()
    layers = draw.raised(board, "crypt", np.random.default_rng(0), geometry=GEOMETRY,
                         px_per_cell=PPC)  # fmt: skip
    assert len(layers) == draw.FIGURE_SLICES
    heights = [layer.height for layer in layers]
    assert heights == sorted(heights) and heights[-1] == pytest.approx(draw.FIGURE_HEIGHT)
    spots = draw.figure_spots(board)
    top = layers[-1].image
    for colour in CHARACTER_COLOURS:
        x, y = _px(spots[colour])
        assert top[y, x, 3] == 255
        paint = np.array(draw.STAND_PAINT[colour], float)
        seen = top[y, x, :3].astype(float)
        assert np.corrcoef(paint, seen)[0, 1] > 0.9
    x, y = _px(spots["bizarre"])
    assert top[y, x, :3].min() > 180  # the white coat and hair
    bare = make_board(board.layout, {}, None, board.discs)
    assert draw.raised(bare, "crypt", np.random.default_rng(0), geometry=GEOMETRY) == []


def test_a_tilted_camera_sees_the_figures_lean_away_from_it() -> None:
    layout = start().layout
    graph = graph_of(layout)
    board = make_board(layout, {"red": "p12.finish"}, None, ())
    pose = Pose(tilt_deg=20.0, tilt_axis_deg=0.0, yaw_deg=0.0, focal=0.7)
    scene = render_scene(GAME, board, "crypt", np.random.default_rng(1), pose=pose)
    hsv = cv2.cvtColor(scene.image, cv2.COLOR_BGR2HSV)
    red = ((hsv[..., 0] < 8) | (hsv[..., 0] > 172)) & (hsv[..., 1] > 130)
    base = cv2.perspectiveTransform(
        np.array([[graph.points["p12.finish"]]], np.float64), scene.plane_homography(0.0)
    )[0, 0]
    top = cv2.perspectiveTransform(
        np.array([[graph.points["p12.finish"]]], np.float64),
        scene.plane_homography(draw.FIGURE_HEIGHT),
    )[0, 0]
    assert np.linalg.norm(top - base) > 3  # the tilt is visible at all
    for end in (base, top):
        x, y = np.round(end).astype(int)
        assert red[y - 2 : y + 3, x - 2 : x + 3].any()


def test_an_unknown_look_is_refused() -> None:
    with pytest.raises(InputError, match="look"):
        _draw(start(), look="glow-in-the-dark")
