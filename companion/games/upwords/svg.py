"""SVG drawing of the Upwords board for the phone page (xml.etree only, no image libraries).

From above a stack looks like any tile, so the drawing says the height twice: a number badge in
the tile's corner and a face that darkens one step per level.  Every square is a group carrying
``data-cell`` and ``data-value`` (the design.md cell string, ``"2E"``) so the page can let a
player tap a square to correct it; the drawing scales with its ``viewBox`` to the phone's width.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable

from companion.games.svg_text import num
from companion.games.upwords.model import (
    CENTRE,
    SIZE,
    Board,
    cell_name,
    format_square,
    parse_cell,
)

BOARD_FILL = "#3b2a1e"
WELL_FILL = "#5b4535"
CENTRE_FILL = "#8a6644"
CENTRE_MARK = "#c9a26f"
LEVEL_FILLS: tuple[str, ...] = ("#f7eedb", "#ead9b5", "#dcc391", "#cdac6e", "#bd954f")
"""Tile face per stack height 1..5: one step darker per level."""
TILE_EDGE = "#8c7350"
LETTER_COLOUR = "#2a1d12"
BADGE_FILL = "#1f5fa8"
BADGE_TEXT = "#ffffff"
HIGHLIGHT_COLOUR = "#ffb000"


def _rect(
    parent: ET.Element, box: tuple[float, float, float, float], attrs: dict[str, str]
) -> None:
    x, y, w, h = box
    base = {"x": num(x), "y": num(y), "width": num(w), "height": num(h)}
    ET.SubElement(parent, "rect", {**base, **attrs})


def _text(
    parent: ET.Element, x: float, y: float, size: float, text: str, attrs: dict[str, str]
) -> None:
    node = ET.SubElement(
        parent,
        "text",
        {
            "x": num(x),
            "y": num(y),
            "font-size": num(size),
            "font-family": "sans-serif",
            "font-weight": "bold",
            "text-anchor": "middle",
            "dominant-baseline": "central",
            **attrs,
        },
    )
    node.text = text


def _square(root: ET.Element, board: Board, row: int, col: int, px: float, pad: float) -> None:
    height, letter = board[row, col]
    x, y = pad + col * px, pad + row * px
    centre = (row, col) in CENTRE
    group = ET.SubElement(
        root,
        "g",
        {
            "data-cell": cell_name(row, col),
            "data-value": format_square((height, letter)),
            "data-height": str(height),
            "class": "square centre" if centre else "square",
        },
    )
    well = {"rx": num(px * 0.06), "fill": CENTRE_FILL if centre else WELL_FILL}
    _rect(group, (x + 1, y + 1, px - 2, px - 2), well)
    if centre and not height:
        mid, r = px / 2, px * 0.16
        corners = [(0, -r), (r, 0), (0, r), (-r, 0)]
        points = " ".join(f"{num(x + mid + dx)},{num(y + mid + dy)}" for dx, dy in corners)
        ET.SubElement(group, "polygon", {"points": points, "fill": CENTRE_MARK})
    if not height:
        return
    tile = {
        "rx": num(px * 0.12),
        "fill": LEVEL_FILLS[height - 1],
        "stroke": TILE_EDGE,
        "stroke-width": num(1 + 0.4 * height),
        "class": f"tile level{height}",
    }
    _rect(group, (x + 2.5, y + 2.5, px - 5, px - 5), tile)
    face = "Qu" if letter == "QU" else letter
    size = px * (0.42 if letter == "QU" else 0.55)
    _text(
        group, x + px * 0.46, y + px * 0.54, size, face, {"fill": LETTER_COLOUR, "class": "letter"}
    )
    bx, by, br = x + px * 0.8, y + px * 0.2, px * 0.16
    badge = {"cx": num(bx), "cy": num(by), "r": num(br), "fill": BADGE_FILL, "class": "badge"}
    ET.SubElement(group, "circle", badge)
    _text(group, bx, by, br * 1.4, str(height), {"fill": BADGE_TEXT, "class": "height"})


def board_svg(board: Board, *, highlights: Iterable[str] = (), px: int = 36) -> str:
    """The 10x10 board: tappable squares, top letters, height badges, centre squares marked,
    ``highlights`` (cell names such as ``"r4c5"``) outlined."""
    pad = px * 0.3
    side = SIZE * px + 2 * pad
    root = ET.Element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "viewBox": f"0 0 {num(side)} {num(side)}",
            "role": "img",
            "aria-label": "Upwords board",
            "class": "upwords-board",
            "style": "width:100%;height:auto",
        },
    )
    _rect(root, (0, 0, side, side), {"rx": num(pad), "fill": BOARD_FILL})
    for row in range(SIZE):
        for col in range(SIZE):
            _square(root, board, row, col, px, pad)
    for name in highlights:
        row, col = parse_cell(name)
        ring = {
            "rx": num(px * 0.12),
            "fill": "none",
            "stroke": HIGHLIGHT_COLOUR,
            "stroke-width": num(px * 0.09),
            "class": "highlight",
            "data-highlight": name,
        }
        _rect(root, (pad + col * px + 1.5, pad + row * px + 1.5, px - 3, px - 3), ring)
    return ET.tostring(root, encoding="unicode")
