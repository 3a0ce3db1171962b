"""The assembled labyrinth (layout and joined graph) and the board state with its JSON form.

A ``Layout`` says which catalog piece lies on which grid cell in which rotation; pieces on
neighbouring cells touch, and a path reaching a side joins the neighbour's path on the
touching side if it has one.  The joined ``Graph`` keeps the ports as pass-through vertices
(``p07.N``, by the piece's own unrotated side) so that nothing about paths is lost; spaces are
``<piece id>.<node id>``.

A ``Board`` is what the camera sees on the table: the layout, each character (by stand colour)
snapped to a space, Dr. Bizarre's space, and the spaces holding a disc.  Its JSON form::

    {"game": "labyrinth",
     "layout": [{"piece": "p01", "cell": [0, 0], "rotation": 1}, ...],
     "characters": {"red": "p01.start", ...}, "bizarre": "p06.home", "discs": ["p02.d1", ...]}

A character or Dr. Bizarre that cannot be seen is left out (``"bizarre": null``).  When the
spinner card is in view, ``"spinner"`` names the segment its arrow points to (a lantern colour
or ``"bizarre"``); the key is written only then, so states of boards without the card keep
their earlier form.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from companion.errors import InputError
from companion.games.base import JSON
from companion.games.labyrinth.catalog import (
    DISC_KINDS,
    PORTS,
    Catalog,
    Node,
    Piece,
    Point,
    default_catalog,
)
from companion.games.settings import is_int

GAME_ID = "labyrinth"
CHARACTER_COLOURS = ("red", "yellow", "green", "blue")
"""The characters' stand colours, in the order players take them by default."""
BIZARRE = "bizarre"
"""The spinner segment that moves Dr. Bizarre."""
STEP = {"N": (-1, 0), "E": (0, 1), "S": (1, 0), "W": (0, -1)}
OPPOSITE = {"N": "S", "S": "N", "E": "W", "W": "E"}


@dataclass(frozen=True, order=True)
class Placement:
    """One piece on the table: grid ``cell`` (row, col) and quarter turns clockwise."""

    row: int
    col: int
    piece: str
    rotation: int


Layout = tuple[Placement, ...]
"""Placements sorted by cell; build with ``make_layout``."""


def make_layout(placements: Iterable[Placement], catalog: Catalog | None = None) -> Layout:
    """A layout checked for what cannot lie on a table: unknown or doubled pieces, two pieces
    on one cell, pieces that touch no other piece."""
    catalog = catalog or default_catalog()
    layout = tuple(sorted(placements))
    if not layout:
        raise InputError("the layout has no pieces: list where each piece lies")
    cells: set[tuple[int, int]] = set()
    pieces: set[str] = set()
    for p in layout:
        catalog.piece(p.piece)
        if p.piece in pieces:
            raise InputError(f"piece {p.piece} is placed twice: each piece lies on one cell")
        if (p.row, p.col) in cells:
            raise InputError(f"two pieces lie on cell [{p.row}, {p.col}]: one piece per cell")
        if not 0 <= p.rotation <= 3:
            raise InputError(f"piece {p.piece} has rotation {p.rotation}: use 0 to 3")
        pieces.add(p.piece)
        cells.add((p.row, p.col))
    if len(layout) > 1:
        for p in layout:
            if not any((p.row + dr, p.col + dc) in cells for dr, dc in STEP.values()):
                raise InputError(
                    f"piece {p.piece} at [{p.row}, {p.col}] touches no other piece: attach it"
                )
    return layout


def rotate_side(side: str, rotation: int) -> str:
    """The board side a piece's own ``side`` faces after ``rotation`` quarter turns clockwise."""
    return PORTS[(PORTS.index(side) + rotation) % 4]


def rotate_point(point: Point, rotation: int) -> Point:
    """A piece-coordinate point after ``rotation`` quarter turns clockwise about the centre."""
    x, y = point
    for _ in range(rotation % 4):
        x, y = 1.0 - y, x
    return x, y


@dataclass(frozen=True, eq=False)
class Graph:
    """The joined labyrinth: spaces and ports, what touches what, where everything is drawn.

    ``adj`` maps every vertex (spaces and ports) to its neighbours; ``spaces`` maps space ids
    to their catalog node; ``points`` gives each vertex in board units (one cell = 1, x east,
    y south); ``segments`` are the drawn polylines in board units.
    """

    adj: Mapping[str, frozenset[str]]
    spaces: Mapping[str, Node]
    points: Mapping[str, Point]
    segments: tuple[tuple[Point, ...], ...]
    start: str
    finish: str
    home: str

    def lanterns(self, colour: str) -> frozenset[str]:
        return frozenset(s for s, n in self.spaces.items() if n.colour == colour)

    def disc_spaces(self) -> frozenset[str]:
        return frozenset(s for s, n in self.spaces.items() if n.kind in DISC_KINDS)

    def describe(self, space: str) -> str:
        """A space as people name it: "the yellow lantern on piece 7"."""
        node = self.spaces[space]
        piece = _piece_number(space)
        if node.kind == "lantern":
            return f"the {node.colour} lantern on piece {piece}"
        if node.kind == "disc":
            return f"the disc space on piece {piece}"
        if node.kind == "junction":
            return f"the fork on piece {piece}"
        return {
            "start": "the starting space",
            "finish": "the finish disc space",
            "home": "Dr. Bizarre's home",
        }[node.kind]


def _piece_number(space: str) -> str:
    pid = space.split(".", 1)[0]
    digits = pid.lstrip("pP")
    return str(int(digits)) if digits.isdecimal() else pid


def graph_of(layout: Layout, catalog: Catalog | None = None) -> Graph:
    """The joined graph of a layout (cached per layout and catalog)."""
    return _graph(layout, catalog or default_catalog())


@lru_cache(maxsize=64)
def _graph(layout: Layout, catalog: Catalog) -> Graph:
    adj: dict[str, set[str]] = {}
    spaces: dict[str, Node] = {}
    points: dict[str, Point] = {}
    segments: list[tuple[Point, ...]] = []
    facing: dict[tuple[int, int, str], str] = {}

    def board(p: Placement, point: Point) -> Point:
        x, y = rotate_point(point, p.rotation)
        return p.col + x, p.row + y

    for p in layout:
        piece: Piece = catalog.piece(p.piece)
        for node in piece.nodes:
            vid = f"{piece.id}.{node.id}"
            spaces[vid] = node
            points[vid] = board(p, node.at)
            adj.setdefault(vid, set())
        for side in piece.ports:
            vid = f"{piece.id}.{side}"
            adj.setdefault(vid, set())
            facing[(p.row, p.col, rotate_side(side, p.rotation))] = vid
        for edge in piece.edges:
            a, b = f"{piece.id}.{edge.a}", f"{piece.id}.{edge.b}"
            adj[a].add(b)
            adj[b].add(a)
            segments.append(tuple(board(p, q) for q in edge.path))
    for (row, col, side), vid in facing.items():
        dr, dc = STEP[side]
        other = facing.get((row + dr, col + dc, OPPOSITE[side]))
        if other is not None:
            adj[vid].add(other)
    for (row, col, side), vid in facing.items():
        dr, dc = STEP[side]
        points[vid] = (col + 0.5 + dc * 0.5, row + 0.5 + dr * 0.5)
    kinds = {node.kind: vid for vid, node in spaces.items()}
    return Graph(
        adj={v: frozenset(n) for v, n in adj.items()},
        spaces=spaces,
        points=points,
        segments=tuple(segments),
        start=kinds.get("start", ""),
        finish=kinds.get("finish", ""),
        home=kinds.get("home", ""),
    )


def reachable_from(graph: Graph, start: str, walls: frozenset[str] = frozenset()) -> set[str]:
    """Every vertex a piece can walk to from ``start`` without entering ``walls``."""
    seen = {start}
    todo = [start]
    while todo:
        for nxt in graph.adj[todo.pop()]:
            if nxt not in seen and nxt not in walls:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def reachable(layout: Layout, catalog: Catalog | None = None) -> Graph:
    """The layout's graph, after checking the seed's one condition on assembling: the finish
    can be reached from the start (and the start, finish and home pieces are all there)."""
    graph = graph_of(layout, catalog)
    for kind, space in (("start", graph.start), ("finish", graph.finish), ("home", graph.home)):
        if not space:
            raise InputError(f"the layout has no {kind} piece: add it to the labyrinth")
    if graph.finish not in reachable_from(graph, graph.start):
        raise InputError(
            "the finish cannot be reached from the start: turn or move pieces so a path joins them"
        )
    return graph


DEFAULT_LAYOUT_ROWS = (
    (("p01", 0), ("p04", 0), ("p08", 2), ("p03", 2)),
    (("p05", 2), ("p11", 3), ("p02", 3), ("p09", 1)),
    (("p10", 2), ("p07", 1), ("p06", 2), ("p12", 1)),
)
"""The default labyrinth, 3 rows of 4 pieces: (piece, rotation) per cell."""


def default_layout() -> Layout:
    """The assembly the bundled samples and the calibration image use."""
    return make_layout(
        Placement(r, c, piece, rot)
        for r, row in enumerate(DEFAULT_LAYOUT_ROWS)
        for c, (piece, rot) in enumerate(row)
    )


@dataclass(frozen=True)
class Board:
    """What lies on the table; hashable and compared by value.  Build with ``make_board``."""

    layout: Layout
    characters: tuple[tuple[str, str], ...]
    bizarre: str | None
    discs: frozenset[str]
    spinner: str | None = None
    """The segment the spinner's arrow points to while its card is in view, else None."""

    @property
    def character_map(self) -> dict[str, str]:
        return dict(self.characters)

    def where(self, colour: str) -> str | None:
        return self.character_map.get(colour)


def make_board(
    layout: Layout,
    characters: Mapping[str, str],
    bizarre: str | None,
    discs: Iterable[str],
    spinner: str | None = None,
) -> Board:
    return Board(
        layout=layout,
        characters=tuple(sorted(characters.items())),
        bizarre=bizarre,
        discs=frozenset(discs),
        spinner=spinner,
    )


def spinner_segments(catalog: Catalog | None = None) -> tuple[str, ...]:
    """The physical spinner's segments in order round it: one per lantern colour of the
    catalog, then Dr. Bizarre's (a match may leave purple out of play, the card keeps it)."""
    return (*(catalog or default_catalog()).colours, BIZARRE)


PIECE_CELL = re.compile(r"r(\d+)c(\d+)")
BIZARRE_CELL = "bizarre"
"""The cell that says where Dr. Bizarre stands."""
PIECE_VALUE = re.compile(r"([^/]+)/(\d)")


def piece_cell(placement: Placement) -> str:
    """A layout position's cell name: ``r<row>c<col>``."""
    return f"r{placement.row}c{placement.col}"


def piece_value(placement: Placement) -> str:
    """What lies on a layout position: ``<piece>/<quarter turns clockwise>``."""
    return f"{placement.piece}/{placement.rotation}"


def corrected_layout(layout: Layout, cell: str, value: str) -> Layout:
    """``layout`` with ``value`` on position ``cell``.  A piece that already lay elsewhere
    swaps places with the one that lay here, each position keeping the rotation the camera
    read there: a misread identity mark usually confuses two pieces, not their turns."""
    here = next((p for p in layout if piece_cell(p) == cell), None)
    found = PIECE_VALUE.fullmatch(value)
    if here is None:
        raise InputError(f"no labyrinth piece lies on {cell}: correct a position that has one")
    if found is None:
        raise InputError(f"position {cell} holds piece/turns (e.g. p04/2), not {value!r}")
    piece, rotation = found[1], int(found[2])
    moved = [replace(p, piece=here.piece) if p.piece == piece else p for p in layout if p != here]
    return make_layout([*moved, replace(here, piece=piece, rotation=rotation)])


def random_board(rng: Any, layout: Layout) -> Board:
    """A board play can reach on ``layout`` (for rendered tests and the benchmark): characters
    on stopping spaces (sometimes two sharing one, sometimes one off the board), Dr. Bizarre
    at home, on a purple lantern or on a character's space, discs on disc spaces but those a
    character stands on (he took that disc).  ``rng`` is a numpy Generator."""
    graph = graph_of(layout)
    stops = sorted(s for s, n in graph.spaces.items() if n.kind != "junction")
    characters = {}
    for colour in CHARACTER_COLOURS:
        if rng.random() < 0.85:
            characters[colour] = stops[int(rng.integers(len(stops)))]
    if len(characters) > 1 and rng.random() < 0.4:
        first, second = sorted(characters)[:2]
        characters[second] = characters[first]
    haunts = [graph.home, *sorted(graph.lanterns("purple")), *sorted(set(characters.values()))]
    bizarre = None if rng.random() < 0.1 else haunts[int(rng.integers(len(haunts)))]
    taken = set(characters.values())
    discs = [s for s in sorted(graph.disc_spaces()) if s not in taken and rng.random() < 0.6]
    return make_board(layout, characters, bizarre, discs)


def set_up_board(layout: Layout, colours: Iterable[str], catalog: Catalog | None = None) -> Board:
    """A board as the seed sets it up: characters on the start, Dr. Bizarre home, the finish
    and hoard discs placed, and a disc on every other disc space the start can reach except
    every fourth one (the seed leaves "a few disc spaces" empty)."""
    graph = reachable(layout, catalog)
    near = reachable_from(graph, graph.start)
    plain = sorted(s for s in graph.disc_spaces() - {graph.finish, graph.home} if s in near)
    discs = {s for i, s in enumerate(plain) if i % 4 != 3} | {graph.finish, graph.home}
    return make_board(layout, {c: graph.start for c in colours}, graph.home, discs)


def format_board(board: Board) -> JSON:
    """Board -> the JSON form (pieces and discs in a fixed order; the spinner only when seen)."""
    out: JSON = {
        "game": GAME_ID,
        "layout": [
            {"piece": p.piece, "cell": [p.row, p.col], "rotation": p.rotation} for p in board.layout
        ],
        "characters": dict(board.characters),
        "bizarre": board.bizarre,
        "discs": sorted(board.discs),
    }
    if board.spinner is not None:
        out["spinner"] = board.spinner
    return out


def parse_board(obj: Any, catalog: Catalog | None = None) -> Board:
    """The JSON form -> Board; ``InputError`` with the first thing wrong."""
    catalog = catalog or default_catalog()
    if not isinstance(obj, dict) or obj.get("game") != GAME_ID:
        raise InputError('a labyrinth state must be an object with "game": "labyrinth"')
    raw_layout = obj.get("layout")
    if not isinstance(raw_layout, list):
        raise InputError('"layout" must list {"piece", "cell": [row, col], "rotation"} objects')
    layout = make_layout((_placement(e) for e in raw_layout), catalog)
    graph = graph_of(layout, catalog)

    def space(value: Any, what: str) -> str:
        if not isinstance(value, str) or value not in graph.spaces:
            raise InputError(f"{what} is on {value!r}, which is no space of this labyrinth")
        return value

    chars = obj.get("characters", {})
    if not isinstance(chars, dict):
        raise InputError('"characters" must map stand colours to spaces')
    characters = {}
    for colour, where in chars.items():
        if colour not in CHARACTER_COLOURS:
            raise InputError(
                f"there is no {colour!r} character: use {', '.join(CHARACTER_COLOURS)}"
            )
        characters[colour] = space(where, f"the {colour} character")
    bizarre = obj.get("bizarre")
    if bizarre is not None:
        bizarre = space(bizarre, "Dr. Bizarre")
    raw_discs = obj.get("discs", [])
    if not isinstance(raw_discs, list):
        raise InputError('"discs" must list the spaces that hold a disc')
    discs = set()
    for where in raw_discs:
        if space(where, "a disc") in discs:
            raise InputError(f"disc space {where} is listed twice: list each once")
        if graph.spaces[where].kind not in DISC_KINDS:
            raise InputError(f"a disc is on {where}, which is not a disc space")
        discs.add(where)
    spinner = obj.get("spinner")
    segments = spinner_segments(catalog)
    if spinner is not None and (not isinstance(spinner, str) or spinner not in segments):
        raise InputError(f"the spinner has no segment {spinner!r}: use {', '.join(segments)}")
    return make_board(layout, characters, bizarre, discs, spinner)


def _placement(entry: Any) -> Placement:
    if not isinstance(entry, dict):
        raise InputError('each layout entry must be {"piece", "cell": [row, col], "rotation"}')
    piece, cell, rotation = entry.get("piece"), entry.get("cell"), entry.get("rotation", 0)
    if not isinstance(piece, str):
        raise InputError(f'a layout entry has "piece" {piece!r}: give the piece id')
    if not (isinstance(cell, list) and len(cell) == 2 and all(is_int(v) and v >= 0 for v in cell)):
        raise InputError(f'piece {piece} has "cell" {cell!r}: use [row, col], both 0 or more')
    if not is_int(rotation) or not 0 <= rotation <= 3:
        raise InputError(f"piece {piece} has rotation {rotation!r}: use 0 to 3 quarter turns")
    return Placement(cell[0], cell[1], piece, rotation)
