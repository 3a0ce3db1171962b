"""The Octiles board as an SVG for the phone page (ElementTree only, no image libraries).

Every space is a group with ``data-cell`` (its name, e.g. ``a2``) and ``data-value`` (``7/3``
for tile 7 at rotation 3, or ``down``), so the page can let players tap a space to correct it;
stops and circles carry ``data-cell`` too, with the runner's colour (or ``empty``) as value.
A runner's route is given as a ``paths.Path`` (what the rules produce) and drawn as one polyline
through the chords it follows, so players see exactly which way it went.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterable

import numpy as np

from companion.games.octiles.draw import (
    CIRCLE_RADIUS,
    STOP_HALF,
    TILE_APOTHEM,
    WELL_APOTHEM,
    chord_curve,
    chord_order,
    octagon,
    printed_curves,
)
from companion.games.octiles.model import COLOURS, BoardGraph, Position, load_board
from companion.games.octiles.paths import Path
from companion.games.svg_text import num

BOARD_FILL = "#c8965f"
WELL_FILL = "#8a6239"
INK = "#3b2a1a"
FACE_FILL = "#f4ecdc"
BACK_FILL = "#6e4b2c"
PATH_INK = "#222"
STOP_FILL = "#e0b885"
ROUTE_COLOUR = "#1f7ae0"
OPTION_COLOUR = "#7fb3ee"
HIGHLIGHT_COLOUR = "#ffb000"
PAINT = {"blue": "#1e5ab4", "red": "#be2828", "yellow": "#e6c828", "green": "#289632"}
HALF = 3.0


def _points(points: np.ndarray, px: float) -> str:
    """Board points (pitches, y up) -> SVG points (pixels from the top-left, y down)."""
    return " ".join(f"{num((x + HALF) * px)},{num((HALF - y) * px)}" for x, y in points)


def face_value(face: tuple[int, int] | None) -> str:
    """A space's ``data-value``: ``tile/rotation`` or ``down``."""
    return "down" if face is None else f"{face[0]}/{face[1]}"


def route_points(board: BoardGraph, path: Path) -> np.ndarray:
    """The points a runner passes on ``path``, in pitches: its place, each chord it follows,
    and the place it ends on (or the middle of the face-down tile that stopped it)."""
    points = [np.asarray(board.coords[path.start])]
    for space, enter, leave in path.steps:
        points.extend(chord_curve(enter, leave) + np.asarray(board.coords[space]))
    last = path.end if path.end is not None else path.void
    if last is not None:
        points.append(np.asarray(board.coords[last]))
    return np.array(points)


def _tile(group: ET.Element, face: tuple[int, int] | None, centre: np.ndarray, px: float) -> None:
    outline = octagon(tuple(centre), TILE_APOTHEM)
    fill = BACK_FILL if face is None else FACE_FILL
    ET.SubElement(
        group,
        "polygon",
        {
            "points": _points(outline, px),
            "fill": fill,
            "stroke": INK,
            "stroke-width": num(px * 0.02),
        },
    )
    if face is None:
        return
    scale = TILE_APOTHEM / WELL_APOTHEM
    for a, b in chord_order(*face):
        curve = _points(chord_curve(a, b) * scale + centre, px)
        ET.SubElement(
            group,
            "polyline",
            {"points": curve, "fill": "none", "stroke": FACE_FILL, "stroke-width": num(px * 0.12)},
        )
        ET.SubElement(
            group,
            "polyline",
            {"points": curve, "fill": "none", "stroke": PATH_INK, "stroke-width": num(px * 0.07)},
        )


def _route(
    root: ET.Element, board: BoardGraph, path: Path, colour: str, width: float, px: float
) -> None:
    ET.SubElement(
        root,
        "polyline",
        {
            "points": _points(route_points(board, path), px),
            "fill": "none",
            "stroke": colour,
            "stroke-width": num(px * width),
            "stroke-linecap": "round",
            "stroke-linejoin": "round",
            "opacity": "0.85",
            "class": "route",
            "data-from": path.start,
            "data-to": path.end or "",
        },
    )


def board_svg(
    position: Position,
    *,
    highlights: Iterable[str] = (),
    path: Path | None = None,
    moves: Iterable[Path] = (),
    switch: int | None = None,
    px: int = 60,
    board: BoardGraph | None = None,
) -> str:
    """The board: tappable spaces and places, printed segments, runners, the pocket tile.

    ``highlights`` ring the named spaces, stops or circles; ``path`` is the route a runner just
    took (drawn bold), ``moves`` other routes worth showing (drawn faint, e.g. legal moves).
    ``switch`` is the tile the player to move must place: the pocket gets a dashed ring, and
    shows the tile faded when the players left the pocket empty (the referee knows it from
    history).
    """
    board = board or load_board()
    side = 2 * HALF * px
    root = ET.Element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "viewBox": f"0 0 {num(side)} {num(side)}",
            "role": "img",
            "aria-label": "Octiles board",
            "class": "octiles-board",
            "style": "width:100%;height:auto",
        },
    )
    ET.SubElement(
        root,
        "rect",
        {"width": num(side), "height": num(side), "rx": num(px * 0.2), "fill": BOARD_FILL},
    )
    for curve in printed_curves(board):
        ET.SubElement(
            root,
            "polyline",
            {
                "points": _points(curve, px),
                "fill": "none",
                "stroke": PATH_INK,
                "stroke-width": num(px * 0.07),
            },
        )
    marked = set(highlights)
    for space, face in position.spaces:
        centre = np.asarray(board.coords[space])
        group = ET.SubElement(root, "g", {"data-cell": space, "data-value": face_value(face)})
        ET.SubElement(
            group,
            "polygon",
            {"points": _points(octagon(tuple(centre), WELL_APOTHEM), px), "fill": WELL_FILL},
        )
        _tile(group, face, centre, px)
        if space in marked:
            ET.SubElement(
                group,
                "polygon",
                {
                    "points": _points(octagon(tuple(centre), WELL_APOTHEM * 0.97), px),
                    "fill": "none",
                    "stroke": HIGHLIGHT_COLOUR,
                    "stroke-width": num(px * 0.06),
                    "class": "highlight",
                },
            )
    runners = position.runner_map
    for place in board.places():
        x, y = board.coords[place]
        group = ET.SubElement(
            root, "g", {"data-cell": place, "data-value": runners.get(place, "empty")}
        )
        ring = HIGHLIGHT_COLOUR if place in marked else INK
        width = num(px * (0.06 if place in marked else 0.015))
        if place.startswith("S"):
            diamond = np.array([[0, 1], [1, 0], [0, -1], [-1, 0]]) * STOP_HALF + (x, y)
            ET.SubElement(
                group,
                "polygon",
                {
                    "points": _points(diamond, px),
                    "fill": STOP_FILL,
                    "stroke": ring,
                    "stroke-width": width,
                },
            )
        else:
            ET.SubElement(
                group,
                "circle",
                {
                    "cx": num((x + HALF) * px),
                    "cy": num((HALF - y) * px),
                    "r": num(CIRCLE_RADIUS * px),
                    "fill": PAINT[COLOURS[place[1]]],
                    "stroke": ring,
                    "stroke-width": width,
                },
            )
        if place in runners:
            ET.SubElement(
                group,
                "circle",
                {
                    "cx": num((x + HALF) * px),
                    "cy": num((HALF - y) * px),
                    "r": num(0.12 * px),
                    "fill": PAINT[runners[place]],
                    "stroke": "#fff",
                    "stroke-width": num(px * 0.03),
                    "class": "runner",
                },
            )
    pocket = ET.SubElement(
        root,
        "g",
        {
            "data-cell": "pocket",
            "data-value": ("empty" if position.pocket is None else str(position.pocket)),
        },
    )
    px_pocket = np.asarray(board.pocket)
    at = {"cx": num((px_pocket[0] + HALF) * px), "cy": num((HALF - px_pocket[1]) * px)}
    ET.SubElement(pocket, "circle", {**at, "r": num(0.56 * px), "fill": WELL_FILL})
    if position.pocket is not None:
        _tile(pocket, (position.pocket, 0), px_pocket, px)
    if switch is not None:
        if position.pocket is None:
            known = ET.SubElement(pocket, "g", {"opacity": "0.5", "class": "switch-tile"})
            _tile(known, (switch, 0), px_pocket, px)
        ET.SubElement(
            pocket,
            "circle",
            {
                **at,
                "r": num(0.54 * px),
                "fill": "none",
                "stroke": ROUTE_COLOUR,
                "stroke-width": num(px * 0.05),
                "stroke-dasharray": f"{num(px * 0.12)} {num(px * 0.08)}",
                "class": "switch",
            },
        )
    for option in moves:
        _route(root, board, option, OPTION_COLOUR, 0.05, px)
    if path is not None:
        _route(root, board, path, ROUTE_COLOUR, 0.1, px)
    return ET.tostring(root, encoding="unicode")
