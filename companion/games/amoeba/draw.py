"""Photo-like top-down pictures of the physical Amoeba tray, in named looks.

The reader is developed on ``LOOKS_TUNED`` only; ``LOOKS_UNSEEN`` exist so that accuracy can be
measured on boards it was never shaped around (other tile and arc colours, arcs lighter or darker
than the tile, thinner or wider arcs, wood grain, speckle, other tray rims; and harder ones: arcs
barely apart from the tile in colour, outlined arcs, hairline arcs, glossy faces with the lamp's
highlight, printed texture).  Real tiles sit
loosely in the tray, so each one is drawn slightly shifted and turned, with a gap and a bevel.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.errors import InputError
from companion.games.amoeba.model import SIZE, Tray
from companion.games.base import BoardGeometry

MAX_SHIFT = 0.03
"""Largest offset of a loose tile from its place, in tiles."""
MAX_TURN_DEG = 2.0
GAP = 0.03
"""Width of the gap between neighbouring tiles, in tiles."""


@dataclass(frozen=True)
class Look:
    """What one edition of the game looks like (colours BGR)."""

    tile: tuple[int, int, int]
    arc: tuple[int, int, int]
    arc_width: float
    """Arc band width as a share of the tile side."""
    rim: tuple[int, int, int]
    floor: tuple[int, int, int]
    """The tray bottom seen through the gaps between tiles."""
    grain: float = 0.0
    speckle: float = 0.0
    tile_var: float = 0.03
    """Brightness spread between tiles (print and plastic batches differ)."""
    outline: float = 0.0
    """Width of a dark line printed along each edge of the arc band, share of the tile side."""
    outline_colour: tuple[int, int, int] = (20, 20, 20)
    gloss: float = 0.0
    """Strength of the lamp's reflection on glossy tile faces (0 = matt)."""


LOOKS: dict[str, Look] = {
    # tuned: the reader was developed on these
    "classic": Look((205, 228, 238), (40, 45, 190), 0.14, (40, 60, 110), (25, 35, 60)),
    "blue_on_white": Look((240, 240, 236), (150, 70, 20), 0.18, (70, 70, 70), (30, 30, 30)),
    "yellow_on_green": Look((60, 120, 40), (60, 215, 235), 0.12, (35, 35, 35), (20, 25, 20)),
    # unseen: never used while developing the reader
    "gold_on_black": Look((30, 28, 28), (70, 175, 215), 0.08, (120, 120, 125), (10, 10, 10)),
    "wood": Look((110, 160, 200), (30, 55, 95), 0.16, (25, 45, 80), (15, 25, 40), grain=0.12),
    "white_on_orange": Look((40, 120, 235), (245, 245, 245), 0.10, (240, 240, 240), (30, 50, 90)),
    "black_on_speckle": Look(
        (175, 180, 182), (25, 25, 30), 0.07, (60, 40, 30), (35, 30, 25), speckle=0.25
    ),
    "mauve_on_pink": Look((200, 190, 245), (120, 70, 110), 0.22, (180, 200, 210), (60, 60, 80)),
    "cyan_on_navy": Look((90, 40, 20), (215, 200, 80), 0.13, (200, 200, 200), (20, 10, 5)),
    # unseen and harder: what real editions may be that none of the above is
    "low_contrast": Look(
        (170, 185, 196), (138, 150, 178), 0.12, (90, 100, 110), (40, 45, 50), grain=0.05
    ),
    "outlined_green": Look(
        (232, 234, 236), (70, 150, 60), 0.16, (50, 50, 50), (25, 25, 25), outline=0.025
    ),
    "glossy_red": Look((35, 35, 170), (230, 232, 235), 0.12, (30, 30, 30), (15, 15, 15), gloss=0.6),
    "hairline": Look((215, 222, 226), (45, 45, 50), 0.04, (120, 90, 60), (50, 40, 30)),
    "printed_moss": Look(
        (120, 165, 140), (60, 70, 90), 0.10, (40, 60, 50), (20, 30, 25), grain=0.15, speckle=0.4
    ),
}

LOOKS_TUNED: tuple[str, ...] = ("classic", "blue_on_white", "yellow_on_green")
LOOKS_UNSEEN: tuple[str, ...] = (
    "gold_on_black",
    "wood",
    "white_on_orange",
    "black_on_speckle",
    "mauve_on_pink",
    "cyan_on_navy",
    "low_contrast",
    "outlined_green",
    "glossy_red",
    "hairline",
    "printed_moss",
)


def _smooth(x: np.ndarray) -> np.ndarray:
    """0..1 ramp over one unit (x already scaled to pixels): cheap anti-aliasing."""
    return np.clip(x + 0.5, 0.0, 1.0)


def _noise_field(rng: np.random.Generator, shape: tuple[int, int], cells: int) -> np.ndarray:
    """Smooth random field in -1..1 with about ``cells`` blobs across."""
    small = rng.uniform(-1.0, 1.0, (cells + 3, cells + 3)).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def _surface(look: Look, rng: np.random.Generator, shape: tuple[int, int]) -> np.ndarray:
    """Brightness texture of the tile material (wood grain, speckle), around 1."""
    tex = np.ones(shape, np.float32)
    if look.grain:
        ys = np.arange(shape[0], dtype=np.float32)[:, None] / shape[0]
        warp = _noise_field(rng, shape, 6) * 0.08
        freq = rng.uniform(50.0, 80.0)
        tex += look.grain * np.sin((ys + warp) * freq * np.pi) * (0.6 + 0.4 * warp / 0.08)
    if look.speckle:
        dots = (rng.random(shape) < 0.04).astype(np.float32)
        blurred = cv2.GaussianBlur(dots, (0, 0), 0.8)
        tex -= look.speckle * np.clip(blurred * 3.0, 0.0, 1.0)
    return tex


def draw_board(
    tray: Tray,
    look: str,
    rng: np.random.Generator,
    *,
    geometry: BoardGeometry,
    px_per_cell: int = 96,
) -> np.ndarray:
    """The tray seen from straight above: playing area plus ``geometry.margin`` cells of rim."""
    if look not in LOOKS:
        raise InputError(f"unknown amoeba look {look!r}: choose one of {', '.join(LOOKS)}")
    spec = LOOKS[look]
    m = geometry.margin
    side = round((SIZE + 2 * m) * px_per_cell)
    px = 1.0 / px_per_cell
    coords = (np.arange(side, dtype=np.float32) + 0.5) * px - m
    xs, ys = np.meshgrid(coords, coords)
    row = np.clip(np.floor(ys), 0, SIZE - 1).astype(np.int32)
    col = np.clip(np.floor(xs), 0, SIZE - 1).astype(np.int32)
    index = row * SIZE + col

    n = SIZE * SIZE
    shift = rng.uniform(-MAX_SHIFT, MAX_SHIFT, (n, 2)).astype(np.float32)
    turn = np.deg2rad(rng.uniform(-MAX_TURN_DEG, MAX_TURN_DEG, n)).astype(np.float32)
    shade = 1.0 + rng.normal(0.0, spec.tile_var, n).astype(np.float32)
    bits = np.array(tray.bits, dtype=np.int32)

    # each pixel in the local frame of the tile whose place it lies in
    dx = xs - (col + 0.5) - shift[index, 0]
    dy = ys - (row + 0.5) - shift[index, 1]
    cos, sin = np.cos(turn[index]), np.sin(turn[index])
    u = cos * dx + sin * dy
    v = -sin * dx + cos * dy

    # rounded square tile: signed distance to its outline (negative inside)
    half, radius = 0.5 - GAP / 2, 0.04
    qx, qy = np.abs(u) - (half - radius), np.abs(v) - (half - radius)
    outside = np.hypot(np.maximum(qx, 0), np.maximum(qy, 0)) + np.minimum(np.maximum(qx, qy), 0)
    dist = outside - radius
    inside = _smooth(-dist / px)
    inside *= (xs > -px) & (xs < SIZE + px) & (ys > -px) & (ys < SIZE + px)

    # arcs: bands of radius 1/2 around the two corners the tile's value names
    flip = np.where(bits[index] == 1, -1.0, 1.0).astype(np.float32)
    d1 = np.hypot(u * flip + 0.5, v + 0.5)
    d2 = np.hypot(u * flip - 0.5, v - 0.5)
    ring = np.abs(np.minimum(d1, d2) - 0.5)
    arc = _smooth((spec.arc_width / 2 - ring) / px)

    # bevel: edges facing the light (top-left) brighter, the others darker
    bevel = np.clip(1.0 + dist / 0.06, 0.0, 1.0)
    facing = np.where(np.abs(u) >= np.abs(v), -np.sign(u), -np.sign(v))
    light = 1.0 + 0.22 * bevel * facing

    texture = _surface(spec, rng, (side, side))
    tile_rgb = np.array(spec.tile, np.float32) * (shade[index] * texture)[..., None]
    face = tile_rgb + (np.array(spec.arc, np.float32) - tile_rgb) * arc[..., None]
    if spec.outline:
        edges = _smooth((spec.outline / 2 - np.abs(ring - spec.arc_width / 2)) / px)
        face += (np.array(spec.outline_colour, np.float32) - face) * edges[..., None]
    if spec.gloss:
        # the lamp's reflection on glossy faces: one soft bright patch somewhere on the tray
        spot = rng.uniform(1.0, SIZE - 1.0, 2)
        glare = np.exp(-((xs - spot[0]) ** 2 + (ys - spot[1]) ** 2) / (2 * 0.9**2))
        face += (255.0 - face) * (spec.gloss * glare)[..., None]
    face *= (light * (1.0 - 0.15 * bevel * bevel))[..., None]

    # tray: a floor between the tiles inside, a raised rim outside with a shadowed inner edge
    edge = np.minimum.reduce([xs, ys, SIZE - xs, SIZE - ys])
    rim_part = _smooth(-edge / px)
    floor = np.array(spec.floor, np.float32)
    rim_shade = 1.0 - 0.35 * np.clip(1.0 + edge / 0.08, 0.0, 1.0) * rim_part
    rim = np.array(spec.rim, np.float32) * (rim_shade * (1 + 0.05 * texture - 0.05))[..., None]
    back = floor + (rim - floor) * rim_part[..., None]
    image = back + (face - back) * inside[..., None]
    return np.clip(image, 0, 255).astype(np.uint8)
