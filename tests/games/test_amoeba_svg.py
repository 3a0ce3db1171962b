"""The page drawings: tappable tiles, arcs where the values say, loops in the accent colour."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from companion.errors import InputError
from companion.games.amoeba.model import SIZE, Tray, arcs_of_key, loops
from companion.games.amoeba.svg import ARC_COLOUR, LOOP_COLOUR, board_svg, shape_svg

NS = "{http://www.w3.org/2000/svg}"


def _tiles(svg: str) -> dict[str, ET.Element]:
    root = ET.fromstring(svg)
    return {g.get("data-cell"): g for g in root.iter(f"{NS}g") if g.get("data-cell")}


def test_every_tile_is_a_tappable_group_with_its_value() -> None:
    tray = Tray.start(1).turned(3, 4)
    tiles = _tiles(board_svg(tray))
    assert len(tiles) == SIZE * SIZE
    for row in range(SIZE):
        for col in range(SIZE):
            group = tiles[f"r{row}c{col}"]
            assert group.get("data-value") == str(tray[row, col])
            assert len(group.findall(f"{NS}path")) == 2


def test_scales_by_viewbox_to_the_phone_width() -> None:
    root = ET.fromstring(board_svg(Tray.start(), px=40))
    assert root.get("viewBox", "").startswith("0 0 ")
    assert root.get("width") is None
    assert "width:100%" in root.get("style", "")


def test_arcs_sweep_around_the_corners_the_value_names() -> None:
    tiles = _tiles(board_svg(Tray.start(0), px=40))
    # value 0 at r0c0: arcs around the tile's top-left corner (pad 12) and bottom-right corner
    paths = [p.get("d") for p in tiles["r0c0"].findall(f"{NS}path")]
    assert paths[0] == "M32 12 A20 20 0 0 1 12 32"
    assert paths[1] == "M32 52 A20 20 0 0 1 52 32"
    one = [p.get("d") for p in tiles["r0c1"].findall(f"{NS}path")]
    assert one[0].startswith("M72 12") and one[0].endswith("92 32")


def test_closed_loops_are_drawn_in_the_accent_colour() -> None:
    tray = Tray.start(0)
    svg = board_svg(tray)
    loop_arcs = sum(len(loop.points) for loop in loops(tray))
    assert loop_arcs == 18 * 4
    root = ET.fromstring(svg)
    strokes = [p.get("stroke") for p in root.iter(f"{NS}path")]
    assert strokes.count(LOOP_COLOUR) == loop_arcs
    assert strokes.count(ARC_COLOUR) == 2 * SIZE * SIZE - loop_arcs


def test_highlighted_cells_are_outlined_and_bad_names_refused() -> None:
    root = ET.fromstring(board_svg(Tray.start(), highlights=("r3c4", "r0c6")))
    marked = [r.get("data-highlight") for r in root.iter(f"{NS}rect") if r.get("data-highlight")]
    assert marked == ["r3c4", "r0c6"]
    with pytest.raises(InputError):
        board_svg(Tray.start(), highlights=("r9c9",))


def test_shape_card_draws_every_arc_of_the_loop() -> None:
    key = loops(Tray.start(0))[0].key
    arcs = arcs_of_key(key)
    root = ET.fromstring(shape_svg(arcs, px=120))
    assert root.get("width") == "120"
    (path,) = [p for p in root.iter(f"{NS}path")]
    assert path.get("d", "").count("A") == len(arcs) == 4
    assert path.get("stroke") == LOOP_COLOUR


def test_shape_card_marks_the_tiles_the_loop_runs_through_and_keeps_its_aspect() -> None:
    # turning r2c2 from the start joins circles into an 8-arc loop over 7 tiles of a 3x3 block
    tray = Tray.start(0).turned(2, 2)
    (loop,) = [loop for loop in loops(tray) if len(loop.points) == 8]
    arcs = arcs_of_key(loop.key)
    root = ET.fromstring(shape_svg(arcs, px=120))
    grid = [r for r in root.iter(f"{NS}rect") if r.get("stroke") == "#e6dcc8"]
    assert len(grid) == len(loop.tiles) == 7
    assert root.get("height") == "120"
    wide = ET.fromstring(shape_svg([(0, 0, "br"), (0, 1, "bl"), (0, 2, "br")], px=120))
    assert float(wide.get("height", "0")) < 60
    with pytest.raises(ValueError):
        shape_svg([])
