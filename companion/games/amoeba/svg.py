"""SVG drawings of the tray and of shape cards for the phone page (no image libraries needed).

The tray drawing scales with its ``viewBox`` to the phone's width; every tile is a group carrying
``data-cell`` and ``data-value`` so the page can let players tap a tile to correct it.  Closed
loops (the amoebas on the tray) are drawn in an accent colour so players see what scored.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable

from companion.games.amoeba.model import SIZE, Tray, arc_of_point, cell_name, loops, parse_cell
from companion.games.svg_text import num

TILE_FILL = "#f3ead8"
TILE_EDGE = "#c9b99a"
TRAY_FILL = "#6b4a2b"
ARC_COLOUR = "#b8322a"
LOOP_COLOUR = "#1f7ae0"
HIGHLIGHT_COLOUR = "#ffb000"
CORNERS_OF_VALUE = {0: ("tl", "br"), 1: ("tr", "bl")}


def _arc_path(x: float, y: float, size: float, corner: str) -> str:
    """Quarter circle of radius size/2 around ``corner`` of the tile at (x, y)."""
    r = size / 2
    cx = x if corner[1] == "l" else x + size
    cy = y if corner[0] == "t" else y + size
    # from the midpoint of the top/bottom side to the midpoint of the left/right side
    sx, sy = x + r, cy
    ex, ey = cx, y + r
    sweep = 1 if corner in ("tl", "br") else 0
    return f"M{num(sx)} {num(sy)} A{num(r)} {num(r)} 0 0 {sweep} {num(ex)} {num(ey)}"


def _svg_root(width: float, height: float, label: str) -> ET.Element:
    return ET.Element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "viewBox": f"0 0 {num(width)} {num(height)}",
            "role": "img",
            "aria-label": label,
        },
    )


def board_svg(tray: Tray, *, highlights: Iterable[str] = (), px: int = 40) -> str:
    """The 7x7 tray: tappable tiles, arcs, closed loops in the accent colour, highlights ringed."""
    pad = px * 0.3
    side = SIZE * px + 2 * pad
    root = _svg_root(side, side, "Amoeba tray")
    root.set("class", "amoeba-board")
    root.set("style", "width:100%;height:auto")
    ET.SubElement(
        root,
        "rect",
        {
            "x": "0",
            "y": "0",
            "width": num(side),
            "height": num(side),
            "rx": num(pad),
            "fill": TRAY_FILL,
        },
    )
    in_loops = {arc_of_point(p) for loop in loops(tray) for p in loop.points}
    width = num(px * 0.14)
    for row in range(SIZE):
        for col in range(SIZE):
            value = tray[row, col]
            x, y = pad + col * px, pad + row * px
            group = ET.SubElement(
                root,
                "g",
                {"data-cell": cell_name(row, col), "data-value": str(value), "class": "tile"},
            )
            ET.SubElement(
                group,
                "rect",
                {
                    "x": num(x + 1),
                    "y": num(y + 1),
                    "width": num(px - 2),
                    "height": num(px - 2),
                    "rx": num(px * 0.08),
                    "fill": TILE_FILL,
                    "stroke": TILE_EDGE,
                },
            )
            for corner in CORNERS_OF_VALUE[value]:
                looped = (row, col, corner) in in_loops
                ET.SubElement(
                    group,
                    "path",
                    {
                        "d": _arc_path(x, y, px, corner),
                        "fill": "none",
                        "stroke": LOOP_COLOUR if looped else ARC_COLOUR,
                        "stroke-width": width,
                        "class": "arc loop" if looped else "arc",
                    },
                )
    for name in highlights:
        row, col = parse_cell(name)
        ET.SubElement(
            root,
            "rect",
            {
                "x": num(pad + col * px + 2),
                "y": num(pad + row * px + 2),
                "width": num(px - 4),
                "height": num(px - 4),
                "fill": "none",
                "stroke": HIGHLIGHT_COLOUR,
                "stroke-width": num(px * 0.1),
                "class": "highlight",
                "data-highlight": name,
            },
        )
    return ET.tostring(root, encoding="unicode")


def shape_svg(arcs: list[tuple[int, int, str]], *, px: int = 120) -> str:
    """A card picture of one loop from its arcs (tile row, tile col, corner), ``px`` wide."""
    if not arcs:
        raise ValueError("a shape needs at least one arc")
    rows = [a[0] for a in arcs]
    cols = [a[1] for a in arcs]
    top, left = min(rows), min(cols)
    n_rows, n_cols = max(rows) - top + 1, max(cols) - left + 1
    unit = 40.0
    pad = unit * 0.25
    width, height = n_cols * unit + 2 * pad, n_rows * unit + 2 * pad
    root = _svg_root(width, height, f"shape of {len(arcs)} arcs")
    root.set("class", "amoeba-shape")
    root.set("width", str(px))
    root.set("height", num(px * height / width))
    ET.SubElement(
        root,
        "rect",
        {
            "x": "0",
            "y": "0",
            "width": num(width),
            "height": num(height),
            "rx": num(pad),
            "fill": "#ffffff",
            "stroke": TILE_EDGE,
        },
    )
    for row, col in sorted({(a[0], a[1]) for a in arcs}):
        ET.SubElement(
            root,
            "rect",
            {
                "x": num(pad + (col - left) * unit),
                "y": num(pad + (row - top) * unit),
                "width": num(unit),
                "height": num(unit),
                "fill": "none",
                "stroke": "#e6dcc8",
                "stroke-width": "1",
            },
        )
    d = " ".join(
        _arc_path(pad + (col - left) * unit, pad + (row - top) * unit, unit, corner)
        for row, col, corner in arcs
    )
    ET.SubElement(
        root,
        "path",
        {
            "d": d,
            "fill": "none",
            "stroke": LOOP_COLOUR,
            "stroke-width": num(unit * 0.14),
            "stroke-linecap": "round",
            "class": "loop",
        },
    )
    return ET.tostring(root, encoding="unicode")
