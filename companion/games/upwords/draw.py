"""Photo-like pictures of a physical Upwords board: the flat grid, and the tiles as raised layers.

The board is a plastic grid of wells (ridges, grooves or printed lines between them, four
textured centre squares); the tiles stand on it, so they are not painted into the flat picture
but returned as ``Layer``s: for every tile a few thin slices of its sides, then its top face
with the letter, each at its height above the board. The scene synthesiser projects each layer
at its height, so a tilted camera sees stacks lean and grow and the sides of lower tiles show,
as a real camera does. Letters come from system fonts; the reader is developed on
``LOOKS_TUNED`` only, and ``LOOKS_UNSEEN`` (other colours, grids and fonts) measure how it does
on editions it never saw: their fonts (URW's C059, P052, Bookman and Gothic, Open Sans,
Cantarell) are of families the letter network never saw (``scripts/train_upwords_letters.py``).
Real tiles lie loosely and any way round, so each tile is turned by a quarter turn chosen per
square and the stack jittered a little as one.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np
from PIL import Image, ImageDraw

from companion.errors import InputError
from companion.games.base import BoardGeometry
from companion.games.lab import Layer
from companion.games.upwords.fonts import load_font
from companion.games.upwords.model import CENTRE, MAX_HEIGHT, SIZE, TILE_THICKNESS, Board

BGR = tuple[int, int, int]

TILE_SIDE = 0.88
"""A tile's footprint side in cells (the rest of the square is the grid between wells)."""
TILE_RADIUS = 0.09
BEVEL = 0.07
"""Width of the rounded rim of a tile's top face, in cells."""
SLICES = 3
"""Layers per tile thickness that draw its sides (enough for about a pixel per step)."""
MAX_SHIFT = 0.02
"""Largest offset of a stack from its well's centre, in cells: the well's ridges hold the
bottom tile, and the tiles above sit in each other's moulded recesses, so a stack moves as one."""
MAX_TURN_DEG = 2.5
STACK_SLACK = 0.004
"""Largest offset of a tile from the one below it, in cells."""
STACK_SLACK_DEG = 0.5
SEAM = 0.5
"""Brightness of the lowest slice of each tile: the dark line where stacked tiles meet."""


@dataclass(frozen=True)
class Look:
    """One edition of the game (colours BGR)."""

    well: BGR
    """The floor of an empty square."""
    grid: BGR
    grid_style: str
    """"ridge" (raised, lit from the top-left), "groove" (sunk) or "line" (printed, flat)."""
    grid_width: float
    """In cells."""
    rim: BGR
    centre: BGR
    centre_pattern: str
    """"dots", "hatch" or "rings": the texture of the four centre squares."""
    tile: BGR
    letter: BGR
    font: str
    """Font file stem (see ``fonts.py``)."""
    letter_size: float = 0.56
    """Height of a capital letter's ink, in cells."""
    side: float = 0.72
    """Brightness of a tile's sides relative to its face."""
    tile_var: float = 0.03
    mottle: float = 0.04
    thickness: float = TILE_THICKNESS
    """A tile's thickness in cells: editions differ (0.10 for thin plastic, 0.35 for chunky
    wooden tiles), and a stack of h tiles has its top face h times this above the board."""
    bevel: float = BEVEL
    """Width (cells) of the lit rounded rim of a tile's top face."""


LOOKS: dict[str, Look] = {
    # tuned: the reader was developed on these
    "classic": Look(
        (35, 50, 70), (60, 88, 115), "ridge", 0.12, (28, 42, 60),
        (50, 78, 110), "dots", (190, 222, 236), (30, 35, 45), "DejaVuSans-Bold",
    ),
    "deluxe": Look(
        (45, 45, 48), (95, 95, 100), "ridge", 0.10, (30, 30, 32),
        (40, 40, 120), "hatch", (225, 235, 240), (20, 20, 20), "LiberationSans-Bold", 0.58,
    ),
    "travel": Look(
        (110, 80, 60), (60, 40, 30), "groove", 0.06, (90, 65, 50),
        (150, 115, 85), "rings", (238, 238, 238), (110, 40, 20), "DejaVuSansCondensed-Bold",
        0.54,
    ),
    # unseen: never used while developing the reader
    "brown_tiles": Look(
        (150, 185, 205), (70, 95, 120), "line", 0.04, (110, 140, 165),
        (115, 150, 185), "dots", (45, 80, 125), (200, 230, 240), "C059-Bold",
        0.6, 0.65,
    ),
    "red_letters": Look(
        (190, 190, 185), (120, 120, 118), "groove", 0.07, (160, 160, 155),
        (160, 170, 205), "hatch", (245, 245, 245), (40, 40, 190), "P052-Bold", 0.52,
    ),
    "green_felt": Look(
        (40, 80, 30), (70, 120, 60), "ridge", 0.14, (25, 55, 20),
        (60, 115, 55), "rings", (120, 220, 240), (30, 60, 20), "URWBookman-Demi", 0.55,
    ),
    "navy": Look(
        (70, 30, 20), (150, 110, 90), "line", 0.05, (55, 25, 15),
        (115, 65, 45), "dots", (215, 205, 195), (15, 15, 15), "OpenSans-Bold", 0.62,
    ),
    "slate": Look(
        (95, 100, 105), (60, 62, 66), "groove", 0.08, (70, 72, 76),
        (125, 130, 135), "hatch", (40, 40, 44), (235, 240, 240), "Cantarell-Bold", 0.55,
        0.8, 0.02, 0.06,
    ),
    # unseen, and their tiles are not the tuned looks' 0.16 cells thick
    "thin_ivory": Look(
        (60, 75, 95), (40, 52, 70), "groove", 0.07, (45, 58, 75),
        (90, 110, 140), "rings", (205, 225, 235), (60, 30, 20), "URWGothic-Demi", 0.56,
        0.75, 0.03, 0.04, 0.10, 0.05,
    ),
    "chunky_wood": Look(
        (130, 150, 160), (85, 100, 110), "ridge", 0.11, (100, 118, 128),
        (110, 135, 160), "dots", (120, 165, 200), (25, 30, 40), "OpenSans-Bold", 0.54,
        0.62, 0.04, 0.05, 0.30, 0.12,
    ),
    "tall_blue": Look(
        (50, 40, 35), (90, 80, 75), "line", 0.05, (40, 32, 28),
        (80, 60, 50), "hatch", (200, 150, 90), (250, 250, 250), "C059-Bold", 0.58,
        0.7, 0.03, 0.04, 0.35, 0.1,
    ),
    "mid_cream": Look(
        (85, 120, 150), (55, 85, 110), "ridge", 0.09, (60, 90, 115),
        (100, 140, 175), "rings", (215, 235, 245), (50, 50, 140), "P052-Bold", 0.55,
        0.7, 0.03, 0.04, 0.22, 0.09,
    ),
}  # fmt: skip

LOOKS_TUNED: tuple[str, ...] = ("classic", "deluxe", "travel")
LOOKS_UNSEEN: tuple[str, ...] = (
    "brown_tiles", "chunky_wood", "red_letters", "thin_ivory", "green_felt", "tall_blue", "navy",
    "mid_cream", "slate",
)  # fmt: skip
"""Every other one has tiles of another thickness, so a bench of a few camera poses (one look
each, in this order) meets both kinds."""


def _look(name: str) -> Look:
    if name not in LOOKS:
        raise InputError(f"unknown upwords look {name!r}: choose one of {', '.join(LOOKS)}")
    return LOOKS[name]


def _smooth(x: np.ndarray) -> np.ndarray:
    """0..1 ramp over one pixel (x already in pixels): cheap anti-aliasing."""
    return np.clip(x + 0.5, 0.0, 1.0)


def _side_px(geometry: BoardGeometry, px_per_cell: int) -> int:
    return round((SIZE + 2 * geometry.margin) * px_per_cell)


def _coords(geometry: BoardGeometry, px_per_cell: int) -> tuple[np.ndarray, np.ndarray]:
    """Each pixel centre in board cells (origin at the playing area's top-left)."""
    n = _side_px(geometry, px_per_cell)
    line = (np.arange(n, dtype=np.float32) + 0.5) / px_per_cell - geometry.margin
    xs, ys = np.meshgrid(line, line)
    return xs, ys


def _noise_field(rng: np.random.Generator, shape: tuple[int, int], blobs: int) -> np.ndarray:
    """Smooth random field in about -1..1 with ``blobs`` blobs across."""
    small = rng.uniform(-1.0, 1.0, (blobs + 3, blobs + 3)).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def _centre_marks(pattern: str, fx: np.ndarray, fy: np.ndarray, px: float) -> np.ndarray:
    """0..1 strength of the centre squares' texture at in-square positions (fx, fy)."""
    if pattern == "dots":
        gx, gy = (fx * 4) % 1.0 - 0.5, (fy * 4) % 1.0 - 0.5
        return _smooth((0.2 - np.hypot(gx, gy)) / (4 * px))
    if pattern == "hatch":
        stripe = np.abs(((fx + fy) * 5) % 1.0 - 0.5)
        return _smooth((0.18 - stripe) / (5 * px))
    ring = np.abs((np.maximum(np.abs(fx - 0.5), np.abs(fy - 0.5)) * 8) % 1.0 - 0.5)
    return _smooth((0.2 - ring) / (8 * px))


def _grid_shading(
    spec: Look, xs: np.ndarray, ys: np.ndarray, dline: np.ndarray, px: float
) -> tuple[np.ndarray, np.ndarray]:
    """(how much of the grid colour shows, brightness) for the look's grid style."""
    half = spec.grid_width / 2
    part = _smooth((half - dline) / px)
    if spec.grid_style == "line":
        return part, np.ones_like(xs)
    vertical = np.abs(xs - np.round(xs)) <= np.abs(ys - np.round(ys))
    across = np.where(vertical, xs - np.round(xs), ys - np.round(ys)) / max(half, px)
    # light from the top-left: a ridge's left/top flank is lit, a groove's right/bottom wall
    slope = np.clip(across, -1.0, 1.0) * (1.0 if spec.grid_style == "ridge" else -1.0)
    bright = 1.0 - 0.25 * slope * part
    # wells darken next to a ridge (it shades them); a groove's rim catches light
    near = np.clip(1.0 - (dline - half) / 0.06, 0.0, 1.0) * (1.0 - part)
    bright *= 1.0 - 0.15 * near if spec.grid_style == "ridge" else 1.0 + 0.08 * near
    return part, bright


def draw_board(
    board: Board,
    look: str,
    rng: np.random.Generator,
    *,
    geometry: BoardGeometry,
    px_per_cell: int = 96,
) -> np.ndarray:
    """The board seen from straight above without its tiles (they are ``raised`` layers).

    It covers the playing area plus ``geometry.margin`` cells of rim.  The random draws do not
    depend on the board, so one seed keeps one physical board still while the tiles change.
    """
    spec = _look(look)
    xs, ys = _coords(geometry, px_per_cell)
    px = 1.0 / px_per_cell
    shape = xs.shape
    mottle = 1.0 + spec.mottle * _noise_field(rng, shape, 8)
    speckle = cv2.GaussianBlur((rng.random(shape) < 0.02).astype(np.float32), (0, 0), 0.7)
    mottle -= 0.08 * np.clip(speckle * 3.0, 0.0, 1.0)

    row = np.clip(np.floor(ys), 0, SIZE - 1).astype(np.int32)
    col = np.clip(np.floor(xs), 0, SIZE - 1).astype(np.int32)
    fx, fy = xs - col, ys - row
    dline = np.minimum.reduce([fx, 1.0 - fx, fy, 1.0 - fy])

    centre_cell = np.zeros(SIZE * SIZE, bool)
    centre_cell[[r * SIZE + c for r, c in CENTRE]] = True
    in_centre = centre_cell[row * SIZE + col][..., None]
    well = np.array(spec.well, np.float32)
    centre = np.array(spec.centre, np.float32)
    grid = np.array(spec.grid, np.float32)
    marks = _centre_marks(spec.centre_pattern, fx, fy, px)[..., None]
    # the texture is moulded into the plastic: it catches light on dark boards, shades light ones
    relief = 0.45 if centre.mean() < 110 else -0.3
    floor = np.where(in_centre, centre * (1.0 + relief * marks), well)
    part, bright = _grid_shading(spec, xs, ys, dline, px)
    area = (floor + (grid - floor) * part[..., None]) * bright[..., None]

    # the rim: outside the playing area, with a shaded lip along it
    edge = np.minimum.reduce([xs, ys, SIZE - xs, SIZE - ys])
    rim_part = _smooth(-edge / px)[..., None]
    lip = 1.0 - 0.3 * np.clip(1.0 + edge / 0.1, 0.0, 1.0)
    rim = np.array(spec.rim, np.float32) * lip[..., None]
    image = (area + (rim - area) * rim_part) * mottle[..., None]

    return np.clip(image, 0, 255).astype(np.uint8)


@lru_cache(maxsize=8)
def _tile_frame(px_per_cell: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An upright tile's pixel grid: (signed distance to its outline in cells, lit facing, alpha).

    ``facing`` is +1 on the edges facing the light (top, left) and -1 on the others.
    """
    size = int(np.ceil((TILE_SIDE + 0.12) * px_per_cell))
    local = (np.arange(size, dtype=np.float32) - (size - 1) / 2) / px_per_cell
    u, v = np.meshgrid(local, local)
    inner = TILE_SIDE / 2 - TILE_RADIUS
    qx, qy = np.abs(u) - inner, np.abs(v) - inner
    dist = np.hypot(np.maximum(qx, 0), np.maximum(qy, 0)) + np.minimum(np.maximum(qx, qy), 0)
    dist -= TILE_RADIUS
    facing = np.where(np.abs(u) >= np.abs(v), -np.sign(u), -np.sign(v)).astype(np.float32)
    alpha = _smooth(-dist * px_per_cell)
    for array in (dist, facing, alpha):
        array.setflags(write=False)
    return dist, facing, alpha


def _text(letter: str) -> str:
    """What a tile shows: "QU" is printed "Qu"."""
    return "Qu" if letter == "QU" else letter


@lru_cache(maxsize=512)
def _glyph(text: str, font: str, px_per_cell: int, letter_size: float) -> np.ndarray:
    """The letter's ink (0..1) centred on an upright tile's pixel grid."""
    size = _tile_frame(px_per_cell)[0].shape[0]
    target_h = letter_size * px_per_cell
    face = load_font(font, max(12, round(target_h * 2.5)))
    left, top, right, bottom = face.getbbox(text)
    canvas = Image.new("L", (int(right - left) + 8, int(bottom - top) + 8), 0)
    ImageDraw.Draw(canvas).text((4 - left, 4 - top), text, font=face, fill=255)
    ink = np.asarray(canvas, np.float32) / 255.0
    rows, cols = np.nonzero(ink.any(axis=1))[0], np.nonzero(ink.any(axis=0))[0]
    ink = ink[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]
    scale = min(target_h / ink.shape[0], 0.78 * TILE_SIDE * px_per_cell / ink.shape[1])
    width = max(1, round(ink.shape[1] * scale))
    height = max(1, round(ink.shape[0] * scale))
    small = cv2.resize(ink, (width, height), interpolation=cv2.INTER_AREA)
    out = np.zeros((size, size), np.float32)
    y0, x0 = (size - height) // 2, (size - width) // 2
    out[y0 : y0 + height, x0 : x0 + width] = small
    out.setflags(write=False)
    return out


def letter_mask(letter: str, look: str, px_per_cell: int) -> np.ndarray:
    """The ink (0..1) of ``letter`` as ``look`` prints it on an upright tile's pixel grid."""
    spec = _look(look)
    return _glyph(_text(letter), spec.font, px_per_cell, spec.letter_size)


def _face(spec: Look, letter: str, quarter: int, shade: float, px_per_cell: int) -> np.ndarray:
    """BGRA (float) of a tile's top face: lit rounded rim and the letter turned ``quarter``x90."""
    dist, facing, alpha = _tile_frame(px_per_cell)
    rim = np.clip(1.0 + dist / spec.bevel, 0.0, 1.0)
    light = 1.0 + rim * (0.18 * facing - 0.1)
    ink = np.rot90(_glyph(_text(letter), spec.font, px_per_cell, spec.letter_size), quarter)
    tile = np.array(spec.tile, np.float32) * shade
    colour = tile + (np.array(spec.letter, np.float32) - tile) * ink[..., None]
    colour = colour * light[..., None]
    return np.dstack([colour, alpha * 255.0])


def _sides(spec: Look, shade: float, px_per_cell: int) -> np.ndarray:
    """BGRA (float) of one slice through a tile's sides: the sides facing the light lighter."""
    _, facing, alpha = _tile_frame(px_per_cell)
    tone = spec.side * shade * (1.0 + 0.12 * facing)
    colour = np.array(spec.tile, np.float32) * tone[..., None]
    return np.dstack([colour, alpha * 255.0])


@dataclass(frozen=True)
class _Placed:
    """A tile picture warped to its place: the layer region it covers and its BGRA pixels."""

    y0: int
    x0: int
    pixels: np.ndarray


def _place(tile: np.ndarray, centre: tuple[float, float], turn_deg: float, side_px: int) -> _Placed:
    """Warp an upright tile picture to ``centre`` (layer pixels), turned by ``turn_deg``."""
    size = tile.shape[0]
    reach = int(np.ceil(size * 0.75)) + 1
    cx, cy = centre
    x0, y0 = max(int(cx) - reach, 0), max(int(cy) - reach, 0)
    x1, y1 = min(int(cx) + reach + 1, side_px), min(int(cy) + reach + 1, side_px)
    a = np.deg2rad(turn_deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    mid = np.array([(size - 1) / 2, (size - 1) / 2])
    move = np.array([cx - x0, cy - y0]) - rot @ mid
    matrix = np.hstack([rot, move[:, None]]).astype(np.float32)
    # the picture's border is transparent, so replicating it keeps edge colours clean
    pixels = cv2.warpAffine(
        tile, matrix, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return _Placed(y0, x0, pixels)


def _stamp(layer: np.ndarray, placed: _Placed, gain: float = 1.0) -> None:
    """Draw a placed tile into a BGRA uint8 layer (tiles of one layer never overlap)."""
    h, w = placed.pixels.shape[:2]
    region = layer[placed.y0 : placed.y0 + h, placed.x0 : placed.x0 + w]
    pixels = placed.pixels
    show = pixels[..., 3] > region[..., 3]
    colour = np.clip(pixels[..., :3] * gain, 0, 255)
    region[..., :3][show] = colour[show].astype(np.uint8)
    region[..., 3][show] = np.clip(pixels[..., 3][show], 0, 255).astype(np.uint8)


SHADOW_OUTSET = 0.02
"""How far (cells) a stack's contact shadow reaches past its footprint before blurring."""
SHADOW_BLUR = 0.05
SHADOW_DARK = 0.4


@lru_cache(maxsize=8)
def _outset(px_per_cell: int) -> np.ndarray:
    """An upright tile's footprint grown by ``SHADOW_OUTSET`` (0..1, one channel)."""
    dist = _tile_frame(px_per_cell)[0]
    out = _smooth((SHADOW_OUTSET - dist) * px_per_cell)
    out.setflags(write=False)
    return out


def _contact_shadow(places: list[_Placed], geometry: BoardGeometry, px_per_cell: int) -> np.ndarray:
    """A black BGRA layer on the board whose alpha is the soft shadow round each stack's foot.

    It is drawn under the stacks (not into the flat board), so it follows a loose stack.
    """
    side_px = _side_px(geometry, px_per_cell)
    under = np.zeros((side_px, side_px), np.float32)
    for placed in places:
        h, w = placed.pixels.shape[:2]
        region = under[placed.y0 : placed.y0 + h, placed.x0 : placed.x0 + w]
        np.maximum(region, placed.pixels, out=region)
    shadow = cv2.GaussianBlur(under, (0, 0), SHADOW_BLUR * px_per_cell)
    xs, ys = _coords(geometry, px_per_cell)
    inside = np.minimum.reduce([xs, ys, SIZE - xs, SIZE - ys]) > 0
    image = np.zeros((side_px, side_px, 4), np.uint8)
    image[..., 3] = np.clip(SHADOW_DARK * 255.0 * shadow * inside, 0, 255).astype(np.uint8)
    return image


def raised(
    board: Board,
    look: str,
    rng: np.random.Generator,
    *,
    geometry: BoardGeometry,
    px_per_cell: int = 96,
) -> list[Layer]:
    """The tiles as layers, lowest first: ``SLICES`` side slices per tile level, faces on top.

    Layer ``j`` lies ``j / SLICES`` tile thicknesses above the board; a stack of height h has
    its top face (the top tile's letter, turned by a quarter turn chosen per square) at
    ``h`` times the look's ``thickness``.  Letters under the top tile are hidden, so they are
    not drawn.  The random draws do not depend on the board (see ``draw_board``).
    """
    spec = _look(look)
    n = SIZE * SIZE
    quarter = rng.integers(0, 4, n)
    shift = rng.uniform(-MAX_SHIFT, MAX_SHIFT, (n, 1, 2))
    shift = shift + rng.uniform(-STACK_SLACK, STACK_SLACK, (n, MAX_HEIGHT, 2))
    turn = rng.uniform(-MAX_TURN_DEG, MAX_TURN_DEG, (n, 1))
    turn = turn + rng.uniform(-STACK_SLACK_DEG, STACK_SLACK_DEG, (n, MAX_HEIGHT))
    shade = 1.0 + rng.normal(0.0, spec.tile_var, (n, MAX_HEIGHT))
    top = max(h for h, _ in board.squares)
    side_px = _side_px(geometry, px_per_cell)

    def centre(index: int, level: int) -> tuple[float, float]:
        row, col = divmod(index, SIZE)
        x = col + 0.5 + shift[index, level, 0] + geometry.margin
        y = row + 0.5 + shift[index, level, 1] + geometry.margin
        return x * px_per_cell - 0.5, y * px_per_cell - 0.5

    layers: list[Layer] = []
    if top:
        stacks = [i for i, (height, _) in enumerate(board.squares) if height]
        places = [
            _place(_outset(px_per_cell), centre(i, 0), float(turn[i, 0]), side_px) for i in stacks
        ]
        layers.append(Layer(height=0.0, image=_contact_shadow(places, geometry, px_per_cell)))
    for level in range(top + 1):
        faces = np.zeros((side_px, side_px, 4), np.uint8)
        sides: list[_Placed] = []
        for index, (height, letter) in enumerate(board.squares):
            if height == level > 0:
                k = level - 1
                face = _face(spec, letter, int(quarter[index]), shade[index, k], px_per_cell)
                _stamp(faces, _place(face, centre(index, k), float(turn[index, k]), side_px))
            elif height > level:
                tile = _sides(spec, shade[index, level], px_per_cell)
                sides.append(_place(tile, centre(index, level), float(turn[index, level]), side_px))
        for part in range(SLICES if sides else 1):
            image = faces if part == 0 else np.zeros_like(faces)
            for placed in sides:
                _stamp(image, placed, SEAM if part == 0 else 1.0)
            if image[..., 3].any():
                height_cells = (level + part / SLICES) * spec.thickness
                layers.append(Layer(height=height_cells, image=image))
    return layers
