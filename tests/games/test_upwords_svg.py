"""The page drawing of the Upwords board: tappable squares that show letter and height."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from companion.errors import InputError
from companion.games.upwords.model import CENTRE, SIZE, Board
from companion.games.upwords.svg import HIGHLIGHT_COLOUR, LEVEL_FILLS, board_svg

NS = "{http://www.w3.org/2000/svg}"
ROWS = [["" for _ in range(SIZE)] for _ in range(SIZE)]
ROWS[4][2:6] = ["2W", "1O", "1O", "3L"]
ROWS[7][5] = "5QU"
BOARD = Board.from_rows(ROWS)


def _squares(svg: str) -> dict[str, ET.Element]:
    root = ET.fromstring(svg)
    return {g.get("data-cell", ""): g for g in root.iter(f"{NS}g") if g.get("data-cell")}


def _texts(group: ET.Element, cls: str) -> list[str]:
    return [t.text or "" for t in group.iter(f"{NS}text") if t.get("class") == cls]


def test_every_square_is_a_group_with_its_value_and_height() -> None:
    squares = _squares(board_svg(BOARD))
    assert len(squares) == SIZE * SIZE
    for row in range(SIZE):
        for col in range(SIZE):
            group = squares[f"r{row}c{col}"]
            height, letter = BOARD[row, col]
            assert group.get("data-value") == ROWS[row][col]
            assert group.get("data-height") == str(height)
            assert _texts(group, "letter") == ([letter.title()] if height else [])
            assert _texts(group, "height") == ([str(height)] if height else [])


def test_stacks_darken_one_step_per_level() -> None:
    squares = _squares(board_svg(BOARD))

    def fill(cell: str) -> str:
        tiles = [r for r in squares[cell].iter(f"{NS}rect") if "tile" in r.get("class", "")]
        return tiles[0].get("fill", "")

    assert fill("r4c3") == LEVEL_FILLS[0]
    assert fill("r4c2") == LEVEL_FILLS[1]
    assert fill("r7c5") == LEVEL_FILLS[4]
    assert len(set(LEVEL_FILLS)) == len(LEVEL_FILLS)


def test_centre_squares_are_marked_while_empty() -> None:
    squares = _squares(board_svg(Board.empty()))
    for row in range(SIZE):
        for col in range(SIZE):
            group = squares[f"r{row}c{col}"]
            marked = "centre" in group.get("class", "").split()
            assert marked == ((row, col) in CENTRE)
            assert bool(group.findall(f"{NS}polygon")) == marked


def test_highlights_are_outlined_and_checked() -> None:
    root = ET.fromstring(board_svg(BOARD, highlights=("r4c5", "r7c5")))
    rings = [r for r in root.iter(f"{NS}rect") if r.get("class") == "highlight"]
    assert sorted(r.get("data-highlight") for r in rings) == ["r4c5", "r7c5"]
    assert all(r.get("stroke") == HIGHLIGHT_COLOUR and r.get("fill") == "none" for r in rings)
    with pytest.raises(InputError):
        board_svg(BOARD, highlights=("r10c1",))


def test_scales_by_viewbox_to_the_phone_width() -> None:
    root = ET.fromstring(board_svg(BOARD, px=36))
    assert root.get("viewBox") == "0 0 381.6 381.6"
    assert root.get("width") is None and "width:100%" in root.get("style", "")
