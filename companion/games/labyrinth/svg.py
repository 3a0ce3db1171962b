"""The assembled labyrinth as an SVG for the phone page (ElementTree only).

Pieces are drawn as the camera sees them (paths, lanterns by colour, disc spaces, start,
finish, Dr. Bizarre's purple home, the identity mark), with the piece number in a corner so
players can check the layout the camera read.  Every space is a group with ``data-cell`` (its
space id, ``p07.l1``) and ``data-value`` (what lies there: ``disc``, character colours,
``bizarre``, joined by ``+``; ``empty``), so the page can let players tap a space; every
piece is a cell too (``r0c1`` = ``p04/2``: which piece lies there, in which rotation), so a
misread layout can be fixed by tapping the piece's card.  Legal destinations get a dashed ring
(class ``destination``), ``highlights`` a solid one.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable

import numpy as np

from companion.games.labyrinth.catalog import Catalog, Node, Point, default_catalog
from companion.games.labyrinth.draw import (
    DISC_RADIUS,
    DISC_SPACE_RADIUS,
    HOME_RADIUS,
    LANTERN_RADIUS,
    START_RADIUS,
    code_bits,
    code_squares,
    figure_spots,
    mark_triangle,
)
from companion.games.labyrinth.model import Board, Placement, graph_of, piece_cell, piece_value
from companion.games.svg_text import num

CARD = "#82877a"
CARD_EDGE = "#555a50"
PATH = "#73604a"
INK = "#1e1e1e"
DISC = "#a07868"
DISC_RING = "#5f4638"
HIGHLIGHT = "#ffb000"
DESTINATION = "#1f7ae0"
PAINT = {
    "red": "#c82828",
    "yellow": "#ebcd28",
    "green": "#28a03c",
    "blue": "#1e5fb9",
    "purple": "#7d2d96",
}
COAT = "#f2f0ee"
FIGURE_RADIUS = 0.075


def _points(points: np.ndarray, px: float) -> str:
    return " ".join(f"{num(x * px)},{num(y * px)}" for x, y in np.asarray(points))


def _circle(parent: ET.Element, at: np.ndarray, r: float, px: float, **attrs: str) -> ET.Element:
    base = {"cx": num(at[0] * px), "cy": num(at[1] * px), "r": num(r * px)}
    return ET.SubElement(
        parent, "circle", base | {k.replace("_", "-"): v for k, v in attrs.items()}
    )


def space_value(board: Board, space: str) -> str:
    """What lies on ``space``, as its ``data-value``: ``disc``, colours, ``bizarre``, or
    ``empty``."""
    parts = ["disc"] if space in board.discs else []
    parts += [colour for colour, where in board.characters if where == space]
    if board.bizarre == space:
        parts.append("bizarre")
    return "+".join(parts) or "empty"


def board_svg(
    board: Board,
    *,
    highlights: Iterable[str] = (),
    destinations: Iterable[str] = (),
    px: float = 64.0,
    catalog: Catalog | None = None,
) -> str:
    """The labyrinth, its discs and figures; ``px`` pixels per piece."""
    catalog = catalog or default_catalog()
    graph = graph_of(board.layout, catalog)
    root = _svg_root(board, px)
    for p in board.layout:
        _piece_card(root, p, catalog, px)
    for segment in graph.segments:
        _path(root, segment, px)
    marked, targets = set(highlights), set(destinations)
    for space, node in sorted(graph.spaces.items()):
        if node.kind == "junction":
            continue
        at = np.asarray(graph.points[space])
        group = ET.SubElement(
            root, "g", {"data-cell": space, "data-value": space_value(board, space)}
        )
        title = ET.SubElement(group, "title")
        title.text = graph.describe(space)
        _space_look(group, node, at, px)
        _space_rings(
            group,
            at,
            px,
            disc=space in board.discs,
            target=space in targets,
            marked=space in marked,
        )
    _figures(root, board, px)
    return ET.tostring(root, encoding="unicode")


def _svg_root(board: Board, px: float) -> ET.Element:
    """The drawing sized to the layout's grid (a user's layout need not be 3 x 4)."""
    cols = max(p.col for p in board.layout) + 1
    rows = max(p.row for p in board.layout) + 1
    return ET.Element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "viewBox": f"0 0 {num(cols * px)} {num(rows * px)}",
            "class": "labyrinth",
        },
    )


def _piece_card(root: ET.Element, p: Placement, catalog: Catalog, px: float) -> None:
    """One piece's card as a cell of its own (which piece, which turn), with the identity mark
    and number the players check the camera's reading of the layout by."""
    group = ET.SubElement(
        root,
        "g",
        {
            "class": "piece",
            "data-piece": p.piece,
            "data-rotation": str(p.rotation),
            "data-cell": piece_cell(p),
            "data-value": piece_value(p),
        },
    )
    ET.SubElement(
        group,
        "rect",
        {
            "x": num((p.col + 0.01) * px),
            "y": num((p.row + 0.01) * px),
            "width": num(0.98 * px),
            "height": num(0.98 * px),
            "fill": CARD,
            "stroke": CARD_EDGE,
            "stroke-width": num(0.015 * px),
        },
    )
    piece = catalog.piece(p.piece)
    if piece.code is not None:
        ET.SubElement(group, "polygon", {"points": _points(mark_triangle(p), px), "fill": INK})
        for bit, square in zip(code_bits(piece.code), code_squares(p), strict=True):
            if bit:
                ET.SubElement(group, "polygon", {"points": _points(square, px), "fill": INK})
    label = ET.SubElement(
        group,
        "text",
        {
            "x": num((p.col + 0.95) * px),
            "y": num((p.row + 0.95) * px),
            "font-size": num(0.14 * px),
            "text-anchor": "end",
            "fill": INK,
            "opacity": "0.6",
        },
    )
    label.text = piece.number


def _path(root: ET.Element, segment: tuple[Point, ...], px: float) -> None:
    """One path segment, drawn over the cards and under the spaces that sit on it."""
    ET.SubElement(
        root,
        "polyline",
        {
            "points": _points(np.array(segment), px),
            "fill": "none",
            "stroke": PATH,
            "stroke-width": num(0.08 * px),
            "stroke-linecap": "round",
            "stroke-linejoin": "round",
        },
    )


def _space_look(group: ET.Element, node: Node, at: np.ndarray, px: float) -> None:
    """The space as printed on the piece: its kind (and a lantern's colour) is what players
    and the camera tell spaces apart by."""
    if node.kind == "lantern":
        _circle(
            group,
            at,
            LANTERN_RADIUS,
            px,
            fill=PAINT.get(node.colour or "", "#888"),
            stroke=INK,
            stroke_width=num(0.012 * px),
            data_colour=node.colour or "",
        )
    elif node.kind == "home":
        _circle(
            group,
            at,
            HOME_RADIUS,
            px,
            fill=PAINT["purple"],
            stroke=INK,
            stroke_width=num(0.012 * px),
        )
    elif node.kind == "start":
        _circle(group, at, START_RADIUS, px, fill=CARD, stroke=INK, stroke_width=num(0.03 * px))
    else:
        dash = "4 2" if node.kind == "finish" else "none"
        _circle(
            group,
            at,
            DISC_SPACE_RADIUS,
            px,
            fill=CARD,
            stroke=INK,
            stroke_width=num(0.015 * px),
            stroke_dasharray=dash,
        )


def _space_rings(
    group: ET.Element, at: np.ndarray, px: float, *, disc: bool, target: bool, marked: bool
) -> None:
    """What lies on or marks a space, drawn over its look: the disc, then the dashed ring of a
    legal destination, then the solid ring of a highlight."""
    if disc:
        _circle(
            group,
            at,
            DISC_RADIUS * 0.9,
            px,
            fill=DISC,
            stroke=DISC_RING,
            stroke_width=num(0.015 * px),
            **{"class": "disc"},
        )
    if target:
        _circle(
            group,
            at,
            DISC_SPACE_RADIUS + 0.04,
            px,
            fill="none",
            stroke=DESTINATION,
            stroke_width=num(0.03 * px),
            stroke_dasharray="3 2",
            **{"class": "destination"},
        )
    if marked:
        _circle(
            group,
            at,
            DISC_SPACE_RADIUS + 0.03,
            px,
            fill="none",
            stroke=HIGHLIGHT,
            stroke_width=num(0.04 * px),
            **{"class": "highlight"},
        )


def _figures(root: ET.Element, board: Board, px: float) -> None:
    """The characters and Dr. Bizarre, each a cell of its own: a tapped figure is corrected
    as which space it really stands on."""
    where = {**board.character_map, "bizarre": board.bizarre or ""}
    for name, spot in sorted(figure_spots(board).items()):
        tap = {"data-figure": name, "data-cell": name, "data-value": where.get(name, "")}
        if name == "bizarre":
            group = ET.SubElement(root, "g", {"class": "figure bizarre", **tap})
            _circle(
                group, spot, FIGURE_RADIUS, px, fill=COAT, stroke=INK, stroke_width=num(0.012 * px)
            )
            _circle(group, spot, FIGURE_RADIUS * 0.5, px, fill=PAINT["purple"])
        else:
            group = ET.SubElement(root, "g", {"class": "figure", **tap})
            _circle(
                group,
                spot,
                FIGURE_RADIUS,
                px,
                fill=PAINT[name],
                stroke="#fff",
                stroke_width=num(0.02 * px),
            )
