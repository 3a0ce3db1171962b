"""Octiles pictures: the printed board, tiles whose chords follow the tile maps, leaning pegs."""

from __future__ import annotations

import numpy as np
import pytest
from octiles_scenes import BOARD, GAME, GEOMETRY, random_position

from companion.errors import InputError
from companion.games.octiles import draw
from companion.games.octiles.model import Position
from companion.games.octiles.tiles import EDGES, chords
from companion.vision.synth import Light, Pose, render_scene

PPC = 40


def _px(point: tuple[float, float], ppc: int = PPC) -> tuple[int, int]:
    """(row, col) of a board point in a picture at ``ppc``."""
    x, y = point
    m = GEOMETRY.margin
    return round((draw.HALF - y + m) * ppc - 0.5), round((x + draw.HALF + m) * ppc - 0.5)


def _bare(pocket: int | None = None) -> Position:
    return Position.make(dict.fromkeys(BOARD.spaces), {}, pocket)


def test_looks_are_split_and_unknown_looks_are_refused() -> None:
    assert set(draw.LOOKS_TUNED).isdisjoint(draw.LOOKS_UNSEEN)
    assert set(draw.LOOKS_TUNED) | set(draw.LOOKS_UNSEEN) == set(draw.LOOKS)
    with pytest.raises(InputError, match="unknown octiles look"):
        draw.draw_board(_bare(), "nope", np.random.default_rng(0), geometry=GEOMETRY)


def test_chords_leave_edge_midpoints_at_right_angles_and_stay_on_the_tile() -> None:
    for a in range(8):
        for b in range(8):
            if a == b:
                continue
            curve = draw.chord_curve(a, b)
            assert np.allclose(curve[0], draw.edge_direction(a) * 0.5)
            assert np.allclose(curve[-1], draw.edge_direction(b) * 0.5)
            first = (curve[1] - curve[0]) / np.linalg.norm(curve[1] - curve[0])
            assert first @ -draw.edge_direction(a) > 0.99, (EDGES[a], EDGES[b])
            # inside the octagon: no point beyond any edge line
            for e in range(8):
                assert (curve @ draw.edge_direction(e)).max() <= 0.5 + 1e-9


def test_printed_segments_join_the_edges_the_board_names() -> None:
    curves = draw.printed_curves(BOARD)
    assert len(curves) == 8
    ends = {tuple(np.round(c[0], 6)) for c in curves} | {tuple(np.round(c[-1], 6)) for c in curves}
    for segment in BOARD.printed:
        for space, edge in segment:
            mid = np.asarray(BOARD.coords[space]) + 0.5 * draw.edge_direction(edge)
            assert tuple(np.round(mid, 6)) in ends


@pytest.mark.parametrize("look", draw.LOOKS_TUNED + draw.LOOKS_UNSEEN)
def test_board_covers_the_rectified_extent_and_the_set_up_is_fixed_by_the_seed(look: str) -> None:
    rng = np.random.default_rng(5)
    position = random_position(rng)
    a = draw.draw_board(
        position, look, np.random.default_rng(1), geometry=GEOMETRY, px_per_cell=PPC
    )
    b = draw.draw_board(_bare(), look, np.random.default_rng(1), geometry=GEOMETRY, px_per_cell=PPC)
    side = round((6 + 2 * GEOMETRY.margin) * PPC)
    assert a.shape == (side, side, 3) and a.dtype == np.uint8
    # the same seed lays the same board: only the spaces and the pocket differ
    corner = (slice(0, PPC // 2), slice(0, PPC // 2))
    assert np.array_equal(a[corner], b[corner])


def test_a_face_up_tile_shows_ink_along_its_chords_and_face_elsewhere() -> None:
    face = (9, 3)
    position = _bare().with_spaces({"c3": face})
    img = draw.draw_board(position, "kadon", np.random.default_rng(2), geometry=GEOMETRY,
                          px_per_cell=96).astype(float)  # fmt: skip
    ink = np.array(draw.LOOKS["kadon"].path, float)
    paper = np.array(draw.LOOKS["kadon"].face, float)
    centre = np.asarray(BOARD.coords["c3"])
    scale = draw.TILE_APOTHEM / draw.WELL_APOTHEM
    curves = [draw.chord_curve(*sorted(c), samples=200) * scale for c in chords(*face)]

    def clearance(point: np.ndarray, skip: int | None = None) -> float:
        return min(
            np.linalg.norm(c - point, axis=1).min() for i, c in enumerate(curves) if i != skip
        )

    on = [
        (i, point)
        for i, curve in enumerate(curves)
        for point in curve[20:-20:10]
        if clearance(point, i) > 0.12
    ]
    grid = np.mgrid[-0.35:0.36:0.025, -0.35:0.36:0.025].reshape(2, -1).T
    off = [point for point in grid if clearance(point) > 0.1]
    assert len(on) > 10 and len(off) > 10
    for _, point in on:
        colour = img[_px(tuple(point + centre), 96)]
        assert np.linalg.norm(colour - ink) < np.linalg.norm(colour - paper)
    for point in off:
        colour = img[_px(tuple(point + centre), 96)]
        assert np.linalg.norm(colour - paper) < np.linalg.norm(colour - ink)


def test_face_down_tiles_show_their_back_and_the_pocket_its_tile() -> None:
    spec = draw.LOOKS["walnut"]
    empty = draw.draw_board(_bare(), "walnut", np.random.default_rng(3), geometry=GEOMETRY,
                            px_per_cell=PPC).astype(float)  # fmt: skip
    full = draw.draw_board(_bare(7), "walnut", np.random.default_rng(3), geometry=GEOMETRY,
                           px_per_cell=PPC).astype(float)  # fmt: skip
    back = empty[_px((0.2, 0.1))]
    assert np.linalg.norm(back - spec.back) < 25
    pocket = _px(BOARD.pocket)
    box = (slice(pocket[0] - 15, pocket[0] + 15), slice(pocket[1] - 15, pocket[1] + 15))
    assert np.abs(full[box] - empty[box]).mean() > 20
    assert np.array_equal(full[: PPC * 4], empty[: PPC * 4])  # the pocket is in the bottom right


def test_pegs_are_layers_up_to_half_a_pitch_only_where_runners_stand() -> None:
    assert draw.raised(_bare(), "kadon", np.random.default_rng(0), geometry=GEOMETRY) == []
    position = _bare().with_runners({"SC4": "red", "@E2": "yellow"})
    layers = draw.raised(position, "kadon", np.random.default_rng(0), geometry=GEOMETRY,
                         px_per_cell=PPC)  # fmt: skip
    heights = [layer.height for layer in layers]
    assert len(layers) == draw.PEG_SLICES and heights == sorted(heights)
    assert heights[0] == 0 and heights[-1] == pytest.approx(draw.PEG_HEIGHT)
    for layer in layers:
        rows, cols = np.nonzero(layer.image[..., 3])
        drawn = {(r, c) for r, c in zip(rows.tolist(), cols.tolist(), strict=True)}
        for place, colour in (("SC4", "red"), ("@E2", "yellow")):
            r, c = _px(BOARD.coords[place])
            assert (r, c) in drawn
            paint = layer.image[r, c, :3].astype(float)
            hue = np.array(draw.SIDE_COLOURS[colour], float)
            assert paint @ hue / (np.linalg.norm(paint) * np.linalg.norm(hue)) > 0.97
        assert len(drawn) < 2 * np.pi * (draw.PEG_RADIUS * PPC + 2) ** 2


def test_a_tilted_camera_sees_a_peg_lean_away_from_the_nadir() -> None:
    position = _bare().with_runners({"@E3": "blue"})
    pose = Pose(tilt_deg=20.0, tilt_axis_deg=90.0, yaw_deg=0.0, focal=0.7)
    flat = Light(exposure=1.0, cast=(1, 1, 1), gradient=0, vignette=0, noise=0, blur=0)
    scene = render_scene(GAME, position, "print", np.random.default_rng(4), pose=pose,
                         light=flat, table=None, markers=False)  # fmt: skip
    bare = render_scene(GAME, _bare(), "print", np.random.default_rng(4), pose=pose,
                        light=flat, markers=False)  # fmt: skip
    assert bare.image.shape == scene.image.shape
    diff = np.abs(scene.image.astype(int) - bare.image.astype(int)).sum(axis=2) > 60
    ys, xs = np.nonzero(diff)
    assert len(xs) > 20
    # the peg's pixels spread further than its footprint would, away from where it stands
    x, y = BOARD.coords["@E3"]
    base = scene.plane_homography(0.0) @ [x + draw.HALF, draw.HALF - y, 1.0]
    top = scene.plane_homography(draw.PEG_HEIGHT) @ [x + draw.HALF, draw.HALF - y, 1.0]
    base, top = base[:2] / base[2], top[:2] / top[2]
    assert np.linalg.norm(top - base) > 3
    reach = np.hypot(xs - base[0], ys - base[1]).max()
    assert reach > np.linalg.norm(top - base)


def test_thick_tiles_stand_up_as_layers_with_their_print_on_top() -> None:
    spec = draw.LOOKS["ivory"]
    position = _bare(5).with_runners({"SC4": "red"})
    flat = draw.draw_board(position, "ivory", np.random.default_rng(0), geometry=GEOMETRY,
                           px_per_cell=PPC)  # fmt: skip
    layers = draw.raised(position, "ivory", np.random.default_rng(0), geometry=GEOMETRY,
                         px_per_cell=PPC)  # fmt: skip
    tops = [layer for layer in layers if layer.height == spec.thickness]
    assert len(layers) == draw.PEG_SLICES + 3 and len(tops) == 1
    r, c = _px(BOARD.coords["c3"])
    assert tops[0].image[r, c, 3] == 255  # the tile's top covers its well
    assert np.linalg.norm(flat[r, c].astype(float) - spec.well) < 20  # the flat board has none
    back = tops[0].image[r - PPC // 3, c, :3].astype(float)
    assert np.linalg.norm(back - spec.back) < np.linalg.norm(back - spec.face)
    peg_top = max(layer.height for layer in layers)
    assert peg_top == pytest.approx(spec.runner_height)  # pawns stand taller than pegs
