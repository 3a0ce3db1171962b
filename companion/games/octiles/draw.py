"""Photo-like pictures of a physical Octiles board: the flat board with its tiles, and the pegs.

The board is a wooden square with 17 octagonal wells, 16 raised stop squares, 20 coloured start
circles, 8 path segments printed between wells, and a round pocket for the spare tile.  Tiles
are thin, so they are painted into the flat picture; the runners are wooden pegs about half a
pitch tall, so they are ``Layer`` slices that the scene synthesiser projects at their heights
(a tilted camera sees them lean over their neighbours, as a real one does).  A face-up tile
shows its four chords as smooth curves between edge midpoints; where two cross, the later one
cuts a gap in the earlier (over and under, never a junction).  Tiles lie a little loosely in
their wells.  The reader is developed on ``LOOKS_TUNED`` only; ``LOOKS_UNSEEN`` measure how it
does on editions it never saw.

The geometry helpers here (where edge midpoints are, how a chord curves) are shared by the SVG
drawing and the reader, so all three agree on what a tile looks like.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import cv2
import numpy as np

from companion.errors import InputError
from companion.games.base import BoardGeometry
from companion.games.lab import Layer
from companion.games.octiles.model import COLOURS, BoardGraph, Position, load_board
from companion.games.octiles.tiles import chords

BGR = tuple[int, int, int]
Paint = Sequence[float]
"""A colour as OpenCV paints it: B, G, R, and alpha on a layer; any numbers, not only BGR's."""

HALF = 3.0
"""The playing area is the square +-HALF pitches around the board centre (design.md)."""
WELL_APOTHEM = 0.5
TILE_APOTHEM = 0.46
"""Centre to edge of a tile, in pitches: a little smaller than its well, so it lies loosely."""
STOP_HALF = 0.26
"""Centre to corner of a stop square (a diamond between four wells), in pitches."""
CIRCLE_RADIUS = 0.17
CIRCLE_INNER = 0.1
"""The circles are painted rings round a pale centre, which a peg on the circle hides."""
POCKET_RADIUS = 0.56
PEG_RADIUS = 0.13
PEG_HEIGHT = 0.5
PEG_SLICES = 10
GAP = 0.025
"""Face showing on either side of a chord where it passes over another, in pitches."""
TILE_SHIFT = 0.015
"""Largest offset of a tile in its well, in pitches."""
TILE_TURN_DEG = 1.5
SIDE_COLOURS: dict[str, BGR] = {
    "blue": (180, 90, 30),
    "red": (40, 40, 190),
    "yellow": (40, 200, 230),
    "green": (60, 150, 40),
}
"""Paint of the circles and the pegs, per runner colour."""


@dataclass(frozen=True)
class Look:
    """One edition of the game (colours BGR, widths in pitches)."""

    board: BGR
    grain: BGR
    well: BGR
    ink: BGR
    """Outlines and the printed segments."""
    stop: BGR
    face: BGR
    path: BGR
    path_width: float
    back: BGR
    back_pattern: str
    """"plain", "dots", "rings" or "star": the print on a tile's back."""
    back_ink: BGR
    peg_gain: float = 1.0
    """How much brighter (or darker) this edition's pegs are than the standard paint."""
    path_style: str = "solid"
    """"solid" (one band), "double" (two thin parallel lines) or "edged" (a band outlined in
    ``ink``)."""
    texture: float = 0.0
    """Printed mottling on the tiles (marble, linen), in 8-bit levels either way."""
    gloss: float = 0.0
    """Peak brightening of a lamp's reflection across glossy tiles (0..1, towards white)."""
    bevel: float = 0.0
    """Width of a tile's bevelled rim (pitches): lit on its north-west side, shaded opposite."""
    thickness: float = 0.0
    """Tile height (pitches); thick tiles stand up as layers and show their ``side``."""
    side: BGR = (0, 0, 0)
    """Colour of a thick tile's sides."""
    circle_style: str = "ring"
    """"ring" (paint round a pale centre) or "outline" (a painted line round bare board)."""
    runner: str = "peg"
    """"peg", "pawn" (neck and ball head), "cone" or "disc" (a flat counter)."""
    runner_size: float = 1.0
    """Runner radius as a share of ``PEG_RADIUS``."""
    runner_height: float = PEG_HEIGHT
    paints: tuple[BGR, BGR, BGR, BGR] | None = None
    """This edition's blue, red, yellow and green (circles and runners); None: ``SIDE_COLOURS``.
    """

    def paint(self, colour: str) -> BGR:
        if self.paints is None:
            return SIDE_COLOURS[colour]
        return self.paints[("blue", "red", "yellow", "green").index(colour)]


LOOKS: dict[str, Look] = {
    # tuned: the reader was developed on these
    "kadon": Look(
        (95, 150, 195), (75, 125, 170), (60, 100, 140), (40, 55, 70), (120, 175, 215),
        (225, 235, 240), (40, 40, 45), 0.075, (55, 85, 120), "star", (80, 115, 150),
    ),
    "walnut": Look(
        (45, 70, 100), (35, 55, 80), (30, 45, 65), (20, 25, 30), (70, 100, 135),
        (200, 225, 235), (120, 60, 30), 0.09, (150, 165, 175), "plain", (150, 165, 175),
    ),
    "print": Look(
        (210, 215, 215), (195, 200, 200), (170, 175, 175), (60, 60, 60), (235, 240, 240),
        (245, 245, 245), (30, 30, 160), 0.07, (110, 80, 60), "dots", (150, 120, 95),
    ),
    # unseen: never used while developing the reader
    "maple": Look(
        (140, 190, 225), (120, 170, 205), (100, 150, 185), (50, 70, 90), (160, 205, 235),
        (250, 250, 250), (20, 90, 20), 0.065, (40, 40, 40), "rings", (70, 70, 70), 1.1,
    ),
    "ebony": Look(
        (35, 35, 38), (28, 28, 30), (20, 20, 22), (120, 120, 120), (60, 60, 65),
        (185, 210, 230), (20, 20, 20), 0.08, (90, 110, 130), "dots", (110, 135, 160), 0.9,
    ),
    "travel": Look(
        (120, 140, 110), (105, 125, 95), (90, 110, 80), (40, 50, 35), (150, 170, 140),
        (215, 245, 250), (150, 50, 50), 0.1, (60, 60, 150), "star", (90, 90, 190),
    ),
}  # fmt: skip

LOOKS.update({
    # unseen and unlike the tuned editions in everything a set can differ in (colours in BGR)
    "slate": Look(  # light-on-dark: navy tiles, thin double white lines, cones, ring-less circles
        (70, 72, 75), (62, 64, 66), (45, 46, 48), (150, 150, 150), (95, 98, 100),
        (90, 45, 25), (235, 235, 230), 0.05, (30, 30, 30), "plain", (30, 30, 30), 1.0,
        path_style="double", texture=10.0, bevel=0.03, thickness=0.05, side=(60, 35, 20),
        circle_style="outline", runner="cone", runner_size=1.25, runner_height=0.65,
        paints=((160, 60, 0), (60, 20, 150), (0, 170, 210), (90, 160, 0)),
    ),
    "ivory": Look(  # dark-on-light, low-contrast beige ink on cream, glossy marble, tall pawns
        (225, 232, 236), (210, 220, 226), (200, 210, 215), (150, 160, 165), (205, 215, 222),
        (215, 235, 245), (150, 185, 205), 0.11, (120, 130, 120), "rings", (150, 160, 150), 1.0,
        texture=8.0, gloss=0.55, bevel=0.04, thickness=0.07, side=(160, 190, 205),
        runner="pawn", runner_size=1.15, runner_height=0.8,
        paints=((120, 40, 40), (30, 30, 140), (20, 140, 200), (50, 110, 30)),
    ),
    "felt": Look(  # saturated green felt, black tiles, wide edged orange bands, flat discs
        (50, 120, 30), (45, 110, 28), (30, 70, 20), (20, 30, 15), (70, 140, 50),
        (25, 25, 25), (0, 120, 240), 0.14, (40, 40, 120), "star", (60, 60, 170), 1.2,
        path_style="edged", texture=6.0, gloss=0.35, thickness=0.03, side=(15, 15, 15),
        runner="disc", runner_size=1.35, runner_height=0.12,
        paints=((200, 120, 40), (50, 50, 220), (60, 230, 250), (40, 200, 120)),
    ),
})  # fmt: skip

LOOKS_TUNED: tuple[str, ...] = ("kadon", "walnut", "print")
LOOKS_UNSEEN: tuple[str, ...] = ("maple", "ebony", "travel", "slate", "ivory", "felt")


def look_of(name: str) -> Look:
    if name not in LOOKS:
        raise InputError(f"unknown octiles look {name!r}: choose one of {', '.join(LOOKS)}")
    return LOOKS[name]


# --- shared geometry (pitches, board frame: origin centre, y up) ------------------------------
def edge_direction(edge: int) -> np.ndarray:
    """Unit vector from an octagon's centre towards the middle of ``edge`` (0 = N, clockwise)."""
    a = np.deg2rad(45.0 * edge)
    return np.array([np.sin(a), np.cos(a)])


def octagon(centre: tuple[float, float], apothem: float, turn_deg: float = 0.0) -> np.ndarray:
    """The 8 corners of an octagon whose edges face N, NE, ... (8 x 2, board frame)."""
    radius = apothem / np.cos(np.pi / 8)
    angles = np.deg2rad(22.5 + 45.0 * np.arange(8) + turn_deg)
    return np.column_stack([np.sin(angles), np.cos(angles)]) * radius + np.asarray(centre)


@cache
def chord_curve(a: int, b: int, samples: int = 17) -> np.ndarray:
    """Points along the chord from edge ``a`` to edge ``b`` of a unit-pitch tile at the origin.

    A chord leaves each edge at right angles, so paths run on smoothly from tile to tile: it is
    the circular arc tangent to both edge normals (centred where the two edge lines meet), or
    a straight line between opposite edges.
    """
    start, end = edge_direction(a) * 0.5, edge_direction(b) * 0.5
    t = np.linspace(0.0, 1.0, samples)[:, None]
    if (a - b) % 8 == 4:
        points = start + (end - start) * t
        points.flags.writeable = False  # cached: shared by every caller
        return points
    # the edge lines n . p = 1/2 of both edges meet at the arc's centre
    centre = np.linalg.solve(np.array([edge_direction(a), edge_direction(b)]), [0.5, 0.5])
    ta = np.arctan2(*(start - centre)[::-1])
    tb = np.arctan2(*(end - centre)[::-1])
    turn = (tb - ta + np.pi) % (2 * np.pi) - np.pi
    angles = ta + turn * t[:, 0]
    radius = np.linalg.norm(start - centre)
    points = centre + radius * np.column_stack([np.cos(angles), np.sin(angles)])
    points.flags.writeable = False
    return points


def link_curve(
    a: tuple[float, float], na: np.ndarray, b: tuple[float, float], nb: np.ndarray, n: int = 17
) -> np.ndarray:
    """A printed segment from edge midpoint ``a`` (outward normal ``na``) to ``b``: a quadratic
    curve through where the two edges' normals meet (the vacant spot it runs round)."""
    pa, pb = np.asarray(a, float), np.asarray(b, float)
    matrix = np.column_stack([na, -nb])
    s = np.linalg.lstsq(matrix, pb - pa, rcond=None)[0]
    control = pa + s[0] * na
    t = np.linspace(0.0, 1.0, n)[:, None]
    return (1 - t) ** 2 * pa + 2 * (1 - t) * t * control + t**2 * pb


def printed_curves(board: BoardGraph) -> list[np.ndarray]:
    """The 8 printed segments as point lists in board coordinates."""
    curves = []
    for segment in sorted(board.printed, key=sorted):
        (sa, ea), (sb, eb) = sorted(segment)
        na, nb = edge_direction(ea), edge_direction(eb)
        a = np.asarray(board.coords[sa]) + 0.5 * na
        b = np.asarray(board.coords[sb]) + 0.5 * nb
        curves.append(link_curve(tuple(a), na, tuple(b), nb))
    return curves


def chord_order(tile: int, rotation: int) -> list[tuple[int, int]]:
    """The order a tile's chords are laid down in (later ones pass over earlier ones), as
    edge pairs at ``rotation``: the order is the tile's own print, fixed at rotation 0 and
    turned with it, as a real tile's crossings turn with the tile."""
    order = sorted(tuple(sorted(c)) for c in chords(tile, 0))
    return [((a + rotation) % 8, (b + rotation) % 8) for a, b in order]


# --- raster helpers ----------------------------------------------------------------------------
class _Canvas:
    """Board coordinates -> pixels of a rectified-extent picture at ``ppc`` pixels per pitch."""

    SHIFT = 4

    def __init__(self, geometry: BoardGeometry, ppc: int) -> None:
        self.ppc = ppc
        self.margin = geometry.margin
        self.side = round((2 * HALF + 2 * geometry.margin) * ppc)

    def px(self, points: np.ndarray) -> np.ndarray:
        p = np.atleast_2d(np.asarray(points, np.float64))
        x = (p[:, 0] + HALF + self.margin) * self.ppc - 0.5
        y = (HALF - p[:, 1] + self.margin) * self.ppc - 0.5
        return np.column_stack([x, y])

    def fixed(self, points: np.ndarray) -> np.ndarray:
        return np.round(self.px(points) * (1 << self.SHIFT)).astype(np.int32)

    def poly(self, img: np.ndarray, points: np.ndarray, colour: Paint) -> None:
        cv2.fillPoly(img, [self.fixed(points)], colour, cv2.LINE_AA, self.SHIFT)

    def disc(self, img: np.ndarray, centre: tuple[float, float], r: float, colour: Paint) -> None:
        c = tuple(int(v) for v in self.fixed(np.array(centre))[0])
        cv2.circle(img, c, round(r * self.ppc * (1 << self.SHIFT)), colour, -1, cv2.LINE_AA, 4)

    def line(self, img: np.ndarray, points: np.ndarray, colour: Paint, width: float) -> None:
        thickness = max(1, round(width * self.ppc))
        cv2.polylines(img, [self.fixed(points)], False, colour, thickness, cv2.LINE_AA, self.SHIFT)

    def ring(self, img: np.ndarray, points: np.ndarray, colour: Paint, width: float) -> None:
        thickness = max(1, round(width * self.ppc))
        cv2.polylines(img, [self.fixed(points)], True, colour, thickness, cv2.LINE_AA, self.SHIFT)


def _wood(look: Look, rng: np.random.Generator, side: int, ppc: int) -> np.ndarray:
    ys = np.arange(side, dtype=np.float32)[:, None] / ppc
    warp = cv2.resize(
        rng.uniform(-1, 1, (8, 8)).astype(np.float32), (side, side), interpolation=cv2.INTER_CUBIC
    )
    mix = (0.5 + 0.5 * np.sin((ys + 0.4 * warp) * rng.uniform(6.0, 9.0))) ** 3
    base, grain = np.array(look.board, np.float32), np.array(look.grain, np.float32)
    return base + (grain - base) * mix[..., None]


def _tile_face(
    canvas: _Canvas,
    img: np.ndarray,
    look: Look,
    face: tuple[int, int] | None,
    centre: np.ndarray,
    turn: float,
) -> None:
    """One tile in place: its octagon, then its back print or its four chords over and under."""
    outline = octagon(tuple(centre), TILE_APOTHEM, turn)
    colour = look.back if face is None else look.face
    canvas.poly(img, outline, colour)
    if look.bevel:
        _bevel(canvas, img, look.bevel, colour, centre, turn)
    canvas.ring(img, outline, tuple(0.75 * c for c in colour), 0.02)
    rot = np.deg2rad(turn)
    spin = np.array([[np.cos(rot), np.sin(rot)], [-np.sin(rot), np.cos(rot)]])
    scale = TILE_APOTHEM / WELL_APOTHEM
    if face is None:
        _back_print(canvas, img, look, centre, spin, scale)
        return
    for a, b in chord_order(*face):
        curve = chord_curve(a, b) * scale @ spin.T + centre
        # the gap cut into earlier chords stops short of the rim, which it would notch
        canvas.line(img, curve[3:-3], look.face, _band(look) + 2 * GAP)
        _path(canvas, img, look, curve)


def _band(look: Look) -> float:
    """Full width a chord's print takes on the face (pitches)."""
    return look.path_width + (0.04 if look.path_style == "edged" else 0.0)


def _path(canvas: _Canvas, img: np.ndarray, look: Look, curve: np.ndarray) -> None:
    """A path printed along ``curve`` in the edition's style."""
    width = look.path_width
    if look.path_style == "double":
        tangent = np.gradient(curve, axis=0)
        normal = np.column_stack([-tangent[:, 1], tangent[:, 0]])
        normal /= np.maximum(np.linalg.norm(normal, axis=1, keepdims=True), 1e-9)
        for side in (-1.0, 1.0):
            canvas.line(img, curve + side * width / 3 * normal, look.path, width / 3)
        return
    if look.path_style == "edged":
        canvas.line(img, curve, look.ink, width + 0.04)
    canvas.line(img, curve, look.path, width)


def _bevel(
    canvas: _Canvas, img: np.ndarray, width: float, colour: BGR, centre: np.ndarray, turn: float
) -> None:
    """A bevelled rim: each of the 8 facets lit by how much it faces a lamp to the north-west."""
    outer = octagon(tuple(centre), TILE_APOTHEM, turn)
    inner = octagon(tuple(centre), TILE_APOTHEM - width, turn)
    lamp = np.array([-1.0, 1.0]) / np.sqrt(2.0)
    for k in range(8):
        facet = np.array([outer[k], outer[(k + 1) % 8], inner[(k + 1) % 8], inner[k]])
        facing = float((facet.mean(axis=0) - centre) @ lamp) / TILE_APOTHEM
        canvas.poly(
            img, facet, tuple(float(np.clip(c * (1 + 0.35 * facing), 0, 255)) for c in colour)
        )


def _finish(look: Look, rng: np.random.Generator, img: np.ndarray, mask: np.ndarray) -> None:
    """Print texture and a lamp's glossy reflection on the tiles (``mask`` > 0), in place."""
    side = img.shape[0]
    cover = mask.astype(np.float32)[..., None] / 255.0
    if look.texture:
        coarse = rng.normal(0.0, 1.0, (side // 12 + 2, side // 12 + 2)).astype(np.float32)
        fine = rng.normal(0.0, 0.5, (side, side)).astype(np.float32)
        mottle = cv2.resize(coarse, (side, side), interpolation=cv2.INTER_CUBIC) + fine
        np.add(img, look.texture * mottle[..., None] * cover, out=img)
    if look.gloss:
        ys, xs = np.mgrid[0:side, 0:side].astype(np.float32) / side
        cx, cy = rng.uniform(0.2, 0.8, 2)
        sx, sy = rng.uniform(0.1, 0.25, 2)
        glare = look.gloss * np.exp(-(((xs - cx) / sx) ** 2 + ((ys - cy) / sy) ** 2))
        img += (255.0 - img) * glare[..., None] * cover


def _unit_circle(n: int = 40) -> np.ndarray:
    a = np.linspace(0, 2 * np.pi, n)
    return np.column_stack([np.cos(a), np.sin(a)])


def _back_print(
    canvas: _Canvas,
    img: np.ndarray,
    look: Look,
    centre: np.ndarray,
    spin: np.ndarray,
    scale: float,
) -> None:
    ink = look.back_ink
    if look.back_pattern == "dots":
        for e in range(8):
            canvas.disc(img, tuple(centre + edge_direction(e) @ spin.T * 0.28 * scale), 0.035, ink)
    elif look.back_pattern == "rings":
        for r in (0.12, 0.25):
            canvas.ring(img, _unit_circle() * r * scale + centre, ink, 0.02)
    elif look.back_pattern == "star":
        star = octagon((0.0, 0.0), 0.22 * scale, 22.5) @ spin.T + centre
        canvas.poly(img, star, ink)


def draw_board(
    position: Position,
    look: str,
    rng: np.random.Generator,
    *,
    geometry: BoardGeometry,
    px_per_cell: int = 96,
    board: BoardGraph | None = None,
) -> np.ndarray:
    """The board from straight above with its tiles, covering the rectified extent (BGR uint8).

    One cell of ``geometry`` is one pitch.  The random draws (wood grain, how each tile lies)
    come first and do not depend on the position, so a fixed ``rng`` seed gives the same
    physical set-up for every position.
    """
    spec = look_of(look)
    board = board or load_board()
    canvas = _Canvas(geometry, px_per_cell)
    wood = _wood(spec, rng, canvas.side, px_per_cell)
    shifts, turns, pocket_turn = _lie(rng, board)
    speckle = rng.normal(0.0, 3.0, wood.shape[:2]).astype(np.float32)
    img = np.clip(wood + speckle[..., None], 0, 255).astype(np.uint8)

    ink = spec.ink
    for curve in printed_curves(board):
        _path(canvas, img, spec, curve)
    for space in board.spaces:
        well = octagon(board.coords[space], WELL_APOTHEM * 0.995)
        canvas.poly(img, well, spec.well)
        canvas.ring(img, well, ink, 0.02)
    for stop in board.stops:
        centre = np.asarray(board.coords[stop])
        diamond = centre + np.array([[0, 1], [1, 0], [0, -1], [-1, 0]]) * STOP_HALF
        canvas.poly(img, diamond + np.array([0.02, -0.02]), tuple(0.55 * c for c in spec.stop))
        canvas.poly(img, diamond * 0.96 + centre * 0.04, spec.stop)
        canvas.ring(img, diamond, ink, 0.012)
    ring = _unit_circle()
    for circle in board.circles:
        paint = spec.paint(COLOURS[circle[1]])
        if spec.circle_style == "outline":
            canvas.ring(img, ring * CIRCLE_RADIUS + board.coords[circle], paint, 0.035)
            continue
        canvas.disc(img, board.coords[circle], CIRCLE_RADIUS + 0.02, ink)
        canvas.disc(img, board.coords[circle], CIRCLE_RADIUS, paint)
        canvas.disc(img, board.coords[circle], CIRCLE_INNER, spec.face)
    canvas.disc(img, board.pocket, POCKET_RADIUS + 0.02, ink)
    canvas.disc(img, board.pocket, POCKET_RADIUS, spec.well)
    if spec.thickness:
        return img  # thick tiles stand up: ``raised`` draws them
    _tiles(canvas, img, spec, position, board, (shifts, turns, pocket_turn), rng)
    return img


Lie = tuple[np.ndarray, np.ndarray, float]
"""How the tiles lie in their wells: offsets, turns (degrees) and the pocket tile's turn."""


def _lie(rng: np.random.Generator, board: BoardGraph) -> Lie:
    shifts = rng.uniform(-TILE_SHIFT, TILE_SHIFT, (len(board.spaces) + 1, 2))
    turns = rng.uniform(-TILE_TURN_DEG, TILE_TURN_DEG, len(board.spaces) + 1)
    return shifts, turns, float(rng.uniform(0, 360))


def _tiles(
    canvas: _Canvas,
    img: np.ndarray,
    spec: Look,
    position: Position,
    board: BoardGraph,
    lie: Lie,
    rng: np.random.Generator,
) -> np.ndarray:
    """Draw the tiles on ``img`` (BGR uint8, in place) with their texture and gloss; returns
    the mask of where they lie."""
    shifts, turns, pocket_turn = lie
    mask = np.zeros((canvas.side, canvas.side), np.uint8)
    placed: list[tuple[tuple[int, int] | None, np.ndarray, float]] = [
        (face, np.asarray(board.coords[space]) + shifts[i], float(turns[i]))
        for i, (space, face) in enumerate(position.spaces)
    ]
    if position.pocket is not None:
        turn = pocket_turn - pocket_turn % 45.0 + float(turns[-1])
        placed.append(((position.pocket, 0), np.asarray(board.pocket) + shifts[-1], turn))
    for face, centre, turn in placed:
        _tile_face(canvas, img, spec, face, centre, turn)
        canvas.poly(mask, octagon(tuple(centre), TILE_APOTHEM, turn), (255,))
    if spec.texture or spec.gloss:
        out = img.astype(np.float32)
        _finish(spec, rng, out, mask)
        img[:] = np.clip(np.round(out), 0, 255).astype(np.uint8)
    return mask


def runner_profile(look: Look, k: int) -> tuple[float, float]:
    """(height, radius) of slice ``k`` of one of the edition's runners."""
    f = k / (PEG_SLICES - 1)
    r = PEG_RADIUS * look.runner_size
    if look.runner == "pawn":  # a tapering body, a neck, a ball head
        radius = r * (1 - 0.6 * f) if f < 0.55 else r * (0.45 if f < 0.7 else 0.7 - 0.35 * f)
    elif look.runner == "cone":
        radius = r * (1 - 0.7 * f)
    elif look.runner == "disc":
        radius = r
    else:  # a peg: a cylinder with a rounded top
        radius = r * (0.75 + 0.25 * min(1.0, 4 * (1 - f))) if k else r
    return look.runner_height * f, radius


def raised(
    position: Position,
    look: str,
    rng: np.random.Generator,
    *,
    geometry: BoardGeometry,
    px_per_cell: int = 96,
    board: BoardGraph | None = None,
) -> list[Layer]:
    """The runners, ``PEG_SLICES`` layers from the base to the top, and thick tiles.

    Each runner slice is a disc at its height, darker low down (the sides in the runner's own
    shadow) and lightest on top, so a tilted camera sees it lean away from the nadir.  A thick
    tile is its sides (two slices in the side colour) under its printed top.
    """
    spec = look_of(look)
    board = board or load_board()
    canvas = _Canvas(geometry, px_per_cell)
    places = list(position.runners)
    wobble = rng.uniform(-0.02, 0.02, (len(board.places()), 2))
    index = {place: i for i, place in enumerate(board.places())}
    layers: list[Layer] = []
    for k in range(PEG_SLICES):
        height, radius = runner_profile(spec, k)
        shade = 0.65 + 0.3 * k / (PEG_SLICES - 1) + (0.15 if k == PEG_SLICES - 1 else 0.0)
        image = np.zeros((canvas.side, canvas.side, 4), np.uint8)
        for place, colour in places:
            paint = np.clip(np.array(spec.paint(colour)) * spec.peg_gain * shade, 0, 255)
            centre = np.asarray(board.coords[place]) + wobble[index[place]]
            canvas.disc(image, tuple(centre), radius, (*paint.tolist(), 255))
        if places:
            layers.append(Layer(height=height, image=image))
    if spec.thickness:
        layers.extend(_thick_tiles(canvas, spec, position, board, rng))
    return layers


def _thick_tiles(
    canvas: _Canvas, spec: Look, position: Position, board: BoardGraph, rng: np.random.Generator
) -> list[Layer]:
    top = np.zeros((canvas.side, canvas.side, 3), np.uint8)
    mask = _tiles(canvas, top, spec, position, board, _lie(rng, board), rng)
    sides = np.zeros((canvas.side, canvas.side, 4), np.uint8)
    sides[mask > 0] = (*spec.side, 255)
    sides[..., 3] = mask
    return [
        Layer(height=0.0, image=sides),
        Layer(height=spec.thickness / 2, image=sides),
        Layer(height=spec.thickness, image=np.dstack([top, mask])),
    ]
