"""Photo-like pictures of an assembled Zombie Labyrinth: the flat pieces, and the figures.

Each grid cell holds one square cardboard piece printed with its paths (from the catalog's
polylines), its spaces (lanterns as small coloured circles, disc spaces as rings, the start,
the finish and Dr. Bizarre's purple home) and its identity mark (the black corner triangle and
code squares that ``catalog.py`` documents).  Brain discs are thin, lie brain side down and
show a plain back, so they are painted into the flat picture.  The characters on their stands
and Dr. Bizarre are about 0.4 of a piece tall, so they are ``Layer`` slices the scene
synthesiser projects at their heights (a tilted camera sees them lean).  Figures sharing a
space stand round it, never more than ``CROWD`` from its centre, so each still stands nearer
its own space than any other (stoppable spaces are at least 0.28 apart in the default set).

The reader is developed on ``LOOKS_TUNED`` only; ``LOOKS_UNSEEN`` measure how it does on
printings it never saw.  Geometry: one cell = one piece, board units with x east and y south
from the playing area's top-left corner (as ``model.graph_of`` gives them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from companion.errors import InputError
from companion.games.base import BoardGeometry
from companion.games.lab import Layer
from companion.games.labyrinth import spinner as card
from companion.games.labyrinth.catalog import Catalog, default_catalog
from companion.games.labyrinth.model import (
    BIZARRE,
    CHARACTER_COLOURS,
    Board,
    Placement,
    graph_of,
    rotate_point,
    spinner_segments,
)

BGR = tuple[int, int, int]
Paint = Sequence[float]
"""A colour as OpenCV paints it: B, G, R, and alpha on a layer; any numbers, not only BGR's."""

PIECE_GAP = 0.01
"""Half the seam between neighbouring pieces, in cells."""
LANTERN_RADIUS = 0.05
LANTERN_WICK = 0.022
"""A lantern is a coloured ring round a dark wick: far less paint than a figure shows."""
DISC_SPACE_RADIUS = 0.1
DISC_RADIUS = 0.095
HOME_RADIUS = 0.12
START_RADIUS = 0.1
MARK_LEG = 0.16
CODE_CENTRES = (0.22, 0.29, 0.36, 0.43)
CODE_Y = 0.05
CODE_HALF = 0.025
STAND_RADIUS = 0.09
BIZARRE_STAND = 0.065
"""Dr. Bizarre's base is small: the rim of the hoard disc he stands on shows round it."""
BODY_RADIUS = 0.065
HEAD_RADIUS = 0.055
FIGURE_HEIGHT = 0.4
FIGURE_SLICES = 9
CROWD = 0.06
"""Distance of each figure from the centre of a space it shares with others, in cells."""
WOBBLE = 0.01
LANTERN_PAINT: dict[str, BGR] = {
    "red": (40, 40, 200),
    "yellow": (40, 205, 235),
    "green": (60, 160, 40),
    "blue": (185, 95, 30),
    "purple": (150, 45, 125),
}
"""Lantern print per default colour; a user catalog's other colours print grey."""
STAND_PAINT: dict[str, BGR] = {
    "red": (35, 35, 210),
    "yellow": (30, 210, 240),
    "green": (50, 165, 35),
    "blue": (190, 90, 25),
}
BIZARRE_BASE: BGR = (60, 60, 60)
SPINNER_UNIT = 0.38
"""The spinner card's marker side in cells (4.6 cm beside 12 cm pieces); the card lies on
the table right of the tray, clear of the corner markers."""
SPINNER_GAP = 0.1
"""Cells of table between the tray's right edge and the card."""
SPINNER_PAINT: dict[str, BGR] = {**LANTERN_PAINT, BIZARRE: (215, 210, 220)}


@dataclass(frozen=True)
class Look:
    """One printing of the pieces (colours BGR, widths in cells)."""

    card: BGR
    speckle: float
    edge: BGR
    path: BGR
    """Dull (little saturation): nothing printed may look like a figure's paint."""
    path_width: float
    ink: BGR
    """The identity marks, space rings, the start and finish prints."""
    disc: BGR
    disc_ring: BGR
    mat: BGR
    """What shows round the labyrinth inside the rectified extent (a play mat, the table)."""
    figure_gain: float = 1.0
    stands: tuple[BGR, BGR, BGR, BGR] | None = None
    """The character stands' paints in ``CHARACTER_COLOURS`` order (None: ``STAND_PAINT``)."""
    coat: BGR = (238, 240, 242)
    """Dr. Bizarre's coat and hair (white in the first sets drawn; no source says)."""
    space: BGR | None = None
    """The empty disc spaces' print (None: the card a shade darker)."""


LOOKS: dict[str, Look] = {
    # tuned: the reader was developed on these
    "crypt": Look((120, 135, 130), 4.0, (80, 90, 85), (80, 92, 100), 0.085, (20, 20, 20),
                  (92, 98, 104), (55, 60, 66), (45, 45, 50)),
    "moss": Look((95, 140, 110), 5.0, (60, 95, 70), (60, 66, 72), 0.075, (15, 20, 15),
                 (88, 94, 96), (50, 55, 58), (90, 80, 70)),
    "parchment": Look((150, 175, 185), 3.0, (110, 130, 140), (85, 95, 105), 0.08, (25, 25, 30),
                      (100, 104, 110), (55, 58, 62), (60, 60, 60)),
    # sets unlike the first ones: paints off the first sets' hues, grey, pale green, tan or
    # brown coats, empty spaces darker (or discs darker) than the other, a table near the red
    # stand's paint or the purple print
    "bone": Look((170, 180, 190), 4.0, (120, 130, 140), (95, 105, 120), 0.08, (40, 30, 25),
                 (120, 125, 130), (70, 75, 80), (60, 70, 90), 1.0,
                 ((120, 20, 200), (20, 200, 170), (110, 175, 30), (200, 50, 90)),
                 (150, 130, 110), (75, 82, 88)),
    "ember": Look((110, 150, 190), 4.0, (80, 110, 140), (70, 90, 110), 0.085, (30, 40, 60),
                  (95, 100, 105), (55, 58, 62), (40, 55, 150), 0.95,
                  ((130, 40, 190), (10, 215, 165), (120, 160, 20), (190, 40, 100)),
                  (150, 190, 150), (50, 60, 75)),
    "soot": Look((110, 100, 95), 5.0, (80, 72, 68), (66, 62, 60), 0.08, (15, 12, 18),
                 (170, 170, 165), (110, 110, 105), (70, 50, 40), 0.95,
                 ((50, 50, 200), (40, 220, 240), (60, 170, 90), (200, 120, 50)),
                 (150, 200, 220), (35, 30, 30)),
    "clay": Look((165, 170, 175), 3.0, (120, 125, 130), (105, 110, 112), 0.08, (30, 40, 55),
                 (55, 55, 60), (30, 32, 35), (140, 80, 110), 1.1,
                 ((70, 50, 190), (40, 170, 210), (80, 160, 50), (170, 100, 30)),
                 (50, 90, 140), (150, 150, 150)),
    # unseen: never used while developing the reader
    "slate": Look((135, 125, 115), 4.0, (95, 85, 75), (60, 60, 65), 0.09, (15, 15, 15),
                  (95, 98, 92), (55, 58, 52), (120, 120, 120), 1.05),
    "dusk": Look((120, 105, 125), 5.0, (85, 70, 90), (75, 80, 88), 0.07, (20, 15, 20),
                 (90, 92, 98), (50, 52, 56), (35, 35, 35), 0.92),
    "sand": Look((140, 165, 175), 4.0, (100, 125, 135), (70, 78, 85), 0.095, (30, 30, 35),
                  (105, 108, 112), (60, 62, 66), (80, 100, 70)),
    # unseen and unlike the first sets: off-hue or pale paints, coats of any colour (black
    # too), empty spaces darker (or lighter) than the discs, a table near one stand's paint or
    # near the purple print, tinted inks
    "felt": Look((150, 150, 145), 5.0, (110, 110, 105), (90, 95, 95), 0.075, (50, 30, 20),
                 (175, 180, 185), (120, 125, 130), (60, 140, 40), 1.05,
                 ((90, 110, 200), (110, 195, 210), (120, 180, 90), (200, 150, 110)),
                 (50, 40, 110), (110, 110, 105)),
    "night": Look((80, 88, 98), 5.0, (55, 60, 70), (55, 60, 65), 0.09, (15, 15, 20),
                  (150, 155, 160), (95, 100, 105), (110, 60, 30), 0.9,
                  ((40, 70, 230), (20, 205, 150), (70, 200, 40), (170, 70, 20)),
                  (170, 225, 235), (30, 32, 35)),
    "ash": Look((175, 172, 168), 3.0, (130, 128, 125), (110, 108, 100), 0.08, (35, 35, 70),
                (60, 62, 68), (35, 37, 40), (150, 90, 120), 1.1,
                ((80, 60, 170), (60, 180, 200), (90, 150, 60), (160, 110, 40)),
                (60, 110, 150), (140, 140, 138)),
    "plum": Look((130, 110, 140), 4.0, (95, 80, 105), (85, 80, 90), 0.085, (25, 20, 35),
                 (120, 120, 125), (70, 70, 75), (40, 40, 45), 0.85,
                 ((20, 60, 180), (50, 230, 250), (90, 190, 120), (230, 140, 60)),
                 (40, 40, 40), (60, 50, 65)),
}  # fmt: skip

LOOKS_TUNED: tuple[str, ...] = ("crypt", "moss", "parchment", "bone", "ember", "soot", "clay")
LOOKS_UNSEEN: tuple[str, ...] = ("slate", "dusk", "sand", "felt", "night", "ash", "plum")


def look_of(name: str) -> Look:
    if name not in LOOKS:
        raise InputError(f"unknown labyrinth look {name!r}: choose one of {', '.join(LOOKS)}")
    return LOOKS[name]


# --- shared geometry (board units: one cell = 1, x east, y south) ----------------------------
def to_board(placement: Placement, point: tuple[float, float]) -> tuple[float, float]:
    """A piece-coordinate point of ``placement``'s piece, in board units."""
    x, y = rotate_point(point, placement.rotation)
    return placement.col + x, placement.row + y


def mark_triangle(placement: Placement) -> np.ndarray:
    """The identity triangle's corners in board units (3 x 2)."""
    pts = ((0.0, 0.0), (MARK_LEG, 0.0), (0.0, MARK_LEG))
    return np.array([to_board(placement, p) for p in pts])


def code_squares(placement: Placement) -> np.ndarray:
    """The four code squares' corners in board units (4 squares x 4 corners x 2)."""
    out = []
    for cx in CODE_CENTRES:
        corners = (
            (cx - CODE_HALF, CODE_Y - CODE_HALF),
            (cx + CODE_HALF, CODE_Y - CODE_HALF),
            (cx + CODE_HALF, CODE_Y + CODE_HALF),
            (cx - CODE_HALF, CODE_Y + CODE_HALF),
        )
        out.append([to_board(placement, c) for c in corners])
    return np.array(out)


def code_bits(code: int) -> tuple[bool, bool, bool, bool]:
    """The four squares of ``code``, most significant first (as the catalog prints them)."""
    return tuple(bool(code >> (3 - k) & 1) for k in range(4))  # type: ignore[return-value]


def figure_spots(board: Board, rng_offsets: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Where each figure stands (board units): characters by colour, ``"bizarre"``.

    Figures alone on a space stand on its centre; figures sharing one stand round it at
    ``CROWD``, in a fixed order.  ``rng_offsets`` (5 x 2, characters then Dr. Bizarre) adds
    each figure's own small wobble.
    """
    graph = graph_of(board.layout)
    who = [(c, s) for c, s in board.characters]
    if board.bizarre is not None:
        who.append(("bizarre", board.bizarre))
    order = [*CHARACTER_COLOURS, "bizarre"]
    who.sort(key=lambda item: order.index(item[0]))
    spots: dict[str, np.ndarray] = {}
    for space in {s for _, s in who}:
        here = [name for name, s in who if s == space]
        centre = np.asarray(graph.points[space], np.float64)
        for k, name in enumerate(here):
            spot = centre.copy()
            if len(here) > 1:
                a = 2 * np.pi * k / len(here) + np.pi / 4
                spot += CROWD * np.array([np.cos(a), np.sin(a)])
            if rng_offsets is not None:
                spot += rng_offsets[order.index(name)]
            spots[name] = spot
    return spots


# --- raster helpers ---------------------------------------------------------------------------
class _Canvas:
    """Board units -> pixels of a rectified-extent picture at ``ppc`` pixels per cell."""

    SHIFT = 4

    def __init__(self, geometry: BoardGeometry, ppc: int) -> None:
        self.ppc = ppc
        self.margin = geometry.margin
        self.size = (
            round((geometry.cols + 2 * geometry.margin) * ppc),
            round((geometry.rows + 2 * geometry.margin) * ppc),
        )

    def fixed(self, points: np.ndarray) -> np.ndarray:
        p = np.atleast_2d(np.asarray(points, np.float64))
        px = (p + self.margin) * self.ppc - 0.5
        return np.round(px * (1 << self.SHIFT)).astype(np.int32)

    def poly(self, img: np.ndarray, points: np.ndarray, colour: Paint) -> None:
        cv2.fillPoly(img, [self.fixed(points)], colour, cv2.LINE_AA, self.SHIFT)

    def disc(self, img: np.ndarray, centre: np.ndarray, r: float, colour: Paint) -> None:
        c = tuple(int(v) for v in self.fixed(np.asarray(centre))[0])
        radius = max(1, round(r * self.ppc * (1 << self.SHIFT)))
        cv2.circle(img, c, radius, colour, -1, cv2.LINE_AA, self.SHIFT)

    def ring(
        self, img: np.ndarray, centre: np.ndarray, r: float, colour: Paint, width: float
    ) -> None:
        c = tuple(int(v) for v in self.fixed(np.asarray(centre))[0])
        radius = max(1, round(r * self.ppc * (1 << self.SHIFT)))
        thickness = max(1, round(width * self.ppc))
        cv2.circle(img, c, radius, colour, thickness, cv2.LINE_AA, self.SHIFT)

    def line(self, img: np.ndarray, points: np.ndarray, colour: Paint, width: float) -> None:
        thickness = max(1, round(width * self.ppc))
        cv2.polylines(img, [self.fixed(points)], False, colour, thickness, cv2.LINE_AA, self.SHIFT)


def _shade(colour: BGR, gain: float) -> tuple[float, ...]:
    return tuple(float(np.clip(c * gain, 0, 255)) for c in colour)


def _space_print(spec: Look) -> Paint:
    return spec.space if spec.space is not None else _shade(spec.card, 0.9)


def stand_paint(spec: Look, colour: str) -> BGR:
    """The paint of ``colour``'s stand in this printing."""
    if spec.stands is None:
        return STAND_PAINT[colour]
    return spec.stands[CHARACTER_COLOURS.index(colour)]


def draw_board(
    board: Board,
    look: str,
    rng: np.random.Generator,
    *,
    geometry: BoardGeometry,
    px_per_cell: int = 96,
    catalog: Catalog | None = None,
) -> np.ndarray:
    """The labyrinth from straight above with its discs, covering the rectified extent (BGR).

    The random draws (print speckle, how each disc lies) come first and do not depend on the
    board, so a fixed ``rng`` seed gives the same physical set-up for every board.
    """
    spec = look_of(look)
    catalog = catalog or default_catalog()
    canvas = _Canvas(geometry, px_per_cell)
    width, height = canvas.size
    speckle = rng.normal(0.0, spec.speckle, (height, width)).astype(np.float32)
    fade = cv2.resize(
        rng.uniform(0.94, 1.06, (6, 8)).astype(np.float32),
        (width, height),
        interpolation=cv2.INTER_CUBIC,
    )
    disc_shift = rng.uniform(-0.012, 0.012, (64, 2))
    img = np.empty((height, width, 3), np.uint8)
    img[:] = spec.mat
    graph = graph_of(board.layout, catalog)
    for p in board.layout:
        square = np.array(
            [
                [p.col + PIECE_GAP, p.row + PIECE_GAP],
                [p.col + 1 - PIECE_GAP, p.row + PIECE_GAP],
                [p.col + 1 - PIECE_GAP, p.row + 1 - PIECE_GAP],
                [p.col + PIECE_GAP, p.row + 1 - PIECE_GAP],
            ]
        )
        canvas.poly(img, square, spec.edge)
        canvas.poly(img, (square - square.mean(0)) * 0.985 + square.mean(0), spec.card)
    for segment in graph.segments:
        canvas.line(img, np.array(segment), spec.path, spec.path_width)
    for p in board.layout:
        piece = catalog.piece(p.piece)
        if piece.code is None:
            continue
        canvas.poly(img, mark_triangle(p), spec.ink)
        for bit, square in zip(code_bits(piece.code), code_squares(p), strict=True):
            if bit:
                canvas.poly(img, square, spec.ink)
    for space, node in sorted(graph.spaces.items()):
        at = np.asarray(graph.points[space])
        if node.kind == "lantern":
            paint = LANTERN_PAINT.get(node.colour or "", (128, 128, 128))
            canvas.disc(img, at, LANTERN_RADIUS + 0.012, spec.ink)
            canvas.disc(img, at, LANTERN_RADIUS, paint)
            canvas.disc(img, at, LANTERN_WICK, spec.ink)
        elif node.kind == "disc":
            canvas.disc(img, at, DISC_SPACE_RADIUS, _space_print(spec))
            canvas.ring(img, at, DISC_SPACE_RADIUS, spec.ink, 0.012)
        elif node.kind == "start":
            canvas.disc(img, at, START_RADIUS, spec.ink)
            canvas.disc(img, at, START_RADIUS * 0.7, spec.card)
            canvas.disc(img, at, START_RADIUS * 0.35, spec.ink)
        elif node.kind == "finish":
            # a chequered band round a plain middle, which reads like any disc space's
            canvas.disc(img, at, DISC_SPACE_RADIUS + 0.035, spec.ink)
            for k in range(12):
                arc = np.linspace(k * np.pi / 6, (k + 1) * np.pi / 6, 5)
                rim = np.column_stack([np.cos(arc), np.sin(arc)]) * (DISC_SPACE_RADIUS + 0.03)
                canvas.poly(img, np.vstack([at, at + rim]), spec.card if k % 2 else spec.ink)
            canvas.disc(img, at, DISC_SPACE_RADIUS, _space_print(spec))
            canvas.ring(img, at, DISC_SPACE_RADIUS, spec.ink, 0.012)
        elif node.kind == "home":
            canvas.disc(img, at, HOME_RADIUS + 0.012, spec.ink)
            canvas.disc(img, at, HOME_RADIUS, LANTERN_PAINT["purple"])
    for k, space in enumerate(sorted(graph.disc_spaces())):
        if space not in board.discs:
            continue
        at = np.asarray(graph.points[space]) + disc_shift[k % len(disc_shift)]
        canvas.disc(img, at + 0.008, DISC_RADIUS, _shade(spec.disc, 0.5))
        canvas.disc(img, at, DISC_RADIUS, spec.disc_ring)
        canvas.disc(img, at, DISC_RADIUS * 0.8, spec.disc)
        canvas.ring(img, at, DISC_RADIUS * 0.45, spec.disc_ring, 0.012)
    out = img.astype(np.float32) * fade[..., None] + speckle[..., None]
    return np.clip(out, 0, 255).astype(np.uint8)


def table_items(
    board: Board,
    look: str,
    rng: np.random.Generator,
    *,
    geometry: BoardGeometry,
    px_per_cell: int = 96,
    catalog: Catalog | None = None,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """The spinner card on the table right of the tray, its arrow on ``board.spinner`` (well
    inside the segment: a spinner that stops on a boundary is spun again), as (image, corners
    in board cells); nothing when the board shows no spinner."""
    if board.spinner is None:
        return []
    spec = look_of(look)
    segments = spinner_segments(catalog)
    count = len(segments)
    arrow = card.segment_centre(segments.index(board.spinner), count)
    arrow += float(rng.uniform(-0.3, 0.3)) * 360.0 / count
    ppu = 4 * max(2, int(np.ceil(SPINNER_UNIT * px_per_cell / 4)))
    blue, green, red = (int(0.85 * 240 + 0.15 * c) for c in spec.card)
    paper = (blue, green, red)
    image = card.card_image(
        segments, SPINNER_PAINT, arrow, px_per_unit=ppu, paper=paper, ink=spec.ink
    )
    x0, y0, x1, y1 = card.CARD
    left = geometry.cols + geometry.margin + SPINNER_GAP
    top = geometry.rows / 2 - (y1 - y0) * SPINNER_UNIT / 2
    right, bottom = left + (x1 - x0) * SPINNER_UNIT, top + (y1 - y0) * SPINNER_UNIT
    corners = np.array([[left, top], [right, top], [right, bottom], [left, bottom]])
    return [(image, corners)]


def figure_profile(k: int) -> tuple[float, float, str]:
    """(height, radius, part) of slice ``k`` of a figure: a flat round stand, a body, a head."""
    height = FIGURE_HEIGHT * k / (FIGURE_SLICES - 1)
    if k <= 1:
        return height, STAND_RADIUS, "stand"
    if k >= FIGURE_SLICES - 2:
        return height, HEAD_RADIUS * (0.8 if k == FIGURE_SLICES - 1 else 1.0), "head"
    return height, BODY_RADIUS, "body"


def raised(
    board: Board,
    look: str,
    rng: np.random.Generator,
    *,
    geometry: BoardGeometry,
    px_per_cell: int = 96,
) -> list[Layer]:
    """The characters on their coloured stands and Dr. Bizarre (white coat and hair, a small
    dark stand), as ``FIGURE_SLICES`` layers from the stand to the top of the head; lower
    slices are darker (a figure's sides lie in its own shadow), so the lean shows as it does
    on a real one."""
    spec = look_of(look)
    canvas = _Canvas(geometry, px_per_cell)
    width, height = canvas.size
    wobble = rng.uniform(-WOBBLE, WOBBLE, (len(CHARACTER_COLOURS) + 1, 2))
    spots = figure_spots(board, wobble)
    if not spots:
        return []
    layers: list[Layer] = []
    for k in range(FIGURE_SLICES):
        level, radius, part = figure_profile(k)
        shade = (0.7 + 0.3 * k / (FIGURE_SLICES - 1)) * spec.figure_gain
        image = np.zeros((height, width, 4), np.uint8)
        for name, spot in spots.items():
            if name == "bizarre":
                paint = BIZARRE_BASE if part == "stand" else spec.coat
            else:
                paint = stand_paint(spec, name)
            colour = _shade(paint, shade)
            size = radius
            if name == "bizarre" and part != "head":
                size = BIZARRE_STAND * (1.0 if part == "stand" else 0.9)
            canvas.disc(image, spot, size, (*colour, 255))
        layers.append(Layer(height=level, image=image))
    return layers
