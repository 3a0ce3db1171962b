"""The Octiles page drawing: tappable spaces and places with their values, routes, highlights."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

from companion.games.octiles import svg
from companion.games.octiles.draw import chord_curve
from companion.games.octiles.model import Position, load_board
from companion.games.octiles.paths import follow

NS = "{http://www.w3.org/2000/svg}"
BOARD = load_board()


def _position() -> Position:
    faces = dict.fromkeys(BOARD.spaces)
    faces.update({"a2": (7, 3), "a3": (1, 0), "c3": (18, 5)})
    return Position.make(faces, {"@W2": "blue", "SC4": "red"}, 5)


def _cells(root: ET.Element) -> dict[str, str]:
    return {g.get("data-cell"): g.get("data-value") for g in root.iter(f"{NS}g")}  # type: ignore[misc]


def _points(polyline: ET.Element) -> np.ndarray:
    return np.array([[float(v) for v in p.split(",")] for p in polyline.get("points", "").split()])


def test_every_space_place_and_the_pocket_is_tappable_with_its_value() -> None:
    root = ET.fromstring(svg.board_svg(_position()))
    cells = _cells(root)
    assert cells["a2"] == "7/3" and cells["c3"] == "18/5" and cells["b2"] == "down"
    assert {s for s in BOARD.spaces} <= set(cells)
    assert cells["@W2"] == "blue" and cells["SC4"] == "red" and cells["SB2"] == "empty"
    assert set(BOARD.places()) <= set(cells)
    assert cells["pocket"] == "5"
    assert len(root.findall(f".//{NS}circle[@class='runner']")) == 2
    empty = ET.fromstring(svg.board_svg(_position().with_pocket(None)))
    assert _cells(empty)["pocket"] == "empty"


def test_face_up_tiles_draw_their_four_chords_and_face_down_ones_none() -> None:
    root = ET.fromstring(svg.board_svg(_position()))
    groups = {g.get("data-cell"): g for g in root.iter(f"{NS}g")}
    # each chord is a gap stroke and an ink stroke
    assert len(groups["a2"].findall(f"{NS}polyline")) == 8
    assert not groups["b2"].findall(f"{NS}polyline")
    assert len(groups["pocket"].findall(f"{NS}polyline")) == 8


def test_highlights_ring_spaces_and_places() -> None:
    root = ET.fromstring(svg.board_svg(_position(), highlights=("c3", "SC4")))
    marked = root.findall(f".//{NS}*[@class='highlight']")
    assert len(marked) == 1
    stop = next(g for g in root.iter(f"{NS}g") if g.get("data-cell") == "SC4")
    assert stop[0].get("stroke") == svg.HIGHLIGHT_COLOUR


def test_a_route_runs_from_the_runner_through_each_chord_to_its_end() -> None:
    faces = dict.fromkeys(BOARD.spaces)
    faces["a3"] = (1, 0)  # straight across: W in, E out
    faces["b3"] = (1, 0)
    position = Position.make(faces, {"@W4": "blue"}, None)
    path = follow(BOARD, faces, "@W4", ("a3", 6))
    assert path.steps[:2] == (("a3", 6, 2), ("b3", 6, 2))
    root = ET.fromstring(svg.board_svg(position, path=path, moves=[path], px=50))
    routes = root.findall(f".//{NS}polyline[@class='route']")
    assert len(routes) == 2 and routes[-1].get("stroke") == svg.ROUTE_COLOUR
    assert routes[-1].get("data-from") == "@W4" and routes[-1].get("data-to") == (path.end or "")
    drawn = _points(routes[-1])
    x, y = BOARD.coords["@W4"]
    assert np.allclose(drawn[0], [(x + 3) * 50, (3 - y) * 50], atol=0.01)
    mid = chord_curve(6, 2)[8] + BOARD.coords["a3"]
    assert np.hypot(*(drawn - [(mid[0] + 3) * 50, (3 - mid[1]) * 50]).T).min() < 0.01
    assert np.allclose(svg.route_points(BOARD, path)[0], BOARD.coords["@W4"])


def test_a_void_route_ends_on_the_face_down_tile() -> None:
    faces = dict.fromkeys(BOARD.spaces)
    path = follow(BOARD, faces, "@W4", ("a3", 6))
    assert path.end is None and path.void == "a3"
    points = svg.route_points(BOARD, path)
    assert np.allclose(points[-1], BOARD.coords["a3"])
