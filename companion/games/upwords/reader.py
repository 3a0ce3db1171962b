"""Upwords board reader: every square's stack height and top letter, from one camera view.

Heights are read from geometry, not from looks.  A stack of ``h`` tiles has its top face
``h * TILE_THICKNESS`` cells above the board, so under a tilted camera the face of a tall stack
appears shifted and larger, off its own square in the board-plane rectification.  Calibration
recovers the camera from the corners (``Camera.from_homography``: Zhang's constraints with the
principal point at the frame's centre) and so the *lean*: where the vertical's vanishing point
lies in board coordinates, which says where every height's face of every square appears.  A
read weighs the five heights of a stack by two cues: where its letter's centre lies (the
printer centres the letter on the face; its ink box is placed to a fraction of a pixel), how
sharply the image steps across each height's predicted face outline, and how wide the stack's
silhouette is along each axis (footprint edge to the top face's far edge: it grows with the
height wherever the stack sits, while the letter's position moves with the whole loose stack).
A loose stack sits up to 0.02 cells off centre, so a height is only as sure as the step
between heights is large against that: the confidence says so.  Near the point under the
camera one level moves a face less than a pixel and heights are guesses; the referee's
history is what knows them there.

The calibrated lean rests on an assumed lens and principal point, so with enough tiles in view
each read refits it to where the letters actually lie (soft EM over the unknown heights; the
lean is linear given them).  All sampling goes straight from the camera frame through
``cv2.remap`` (``read_frame``: letters at the camera's own resolution), or from the rectified
board (``read``), with the same code.

Empty or tile: calibration keeps each square's colour on the empty board and the tray rim's
colour; a read compares each square with its empty colour after taking out the light change
seen on the rim (which tiles never cover), and asks for a letter on anything that changed.  A
square far from the board's colour that shows no letter (a hand, a die) marks the reading
covered.

Letters come from ``letters.LetterClassifier`` on the top face's crop, upright in face
coordinates; corrections from the page teach it a tile set's font (``learn_example``) and the
examples are kept in ``to_json`` so the profile remembers them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from companion.errors import ProfileError, VisionError
from companion.games.base import JSON, BoardGeometry
from companion.games.reading import Reader, Reading
from companion.games.upwords.letters import LetterClassifier, find_ink, fit_glyph
from companion.games.upwords.memory import FaceMemory, stacks_of
from companion.games.upwords.model import (
    CENTRE,
    EMPTY,
    LETTERS,
    MAX_HEIGHT,
    SIZE,
    TILE_THICKNESS,
    Board,
    parse_cell,
    parse_square,
)

log = logging.getLogger(__name__)

VERSION = 1
N = SIZE * SIZE
LEVELS = MAX_HEIGHT + 1
"""Planes sampled per square: the board (0) and the top face of stacks 1..MAX_HEIGHT."""
FACE_INSET = 0.05
"""Where a tile's face ends inside its square (cells from the square's side)."""
EDGE_ALONG = np.linspace(0.2, 0.8, 7)
"""Sample positions along each side of a face outline (the corners are left out: neighbours)."""
EDGE_ACROSS = (0.03, 0.07)
"""Distances (cells) either side of a predicted face outline where its step is measured."""
LETTER_PX = 40
LETTER_MARGIN = 0.03
"""The letter crop keeps this far (cells) inside the face outline."""
COLOUR_GRID = np.linspace(0.2, 0.8, 6)
COLOUR_LEVELS = (0, MAX_HEIGHT)
RIM_OFFSET = 0.25
"""The tray rim is sampled this far (cells) outside the playing area."""
LIGHT_REACH = 2
"""Squares either way whose bare board tells a square's light."""
MIN_LIGHT_SQUARES = 3
"""Bare squares needed around a square to tell its light; fewer, and the rim's light stands."""
TILE_COLOUR = 0.18
"""Log-colour change (after the rim's light change) above which a square is not bare board."""
CANDIDATE_COLOUR = 0.05
"""Log-colour change below which a square is taken as bare board without looking further."""
FAR_SHARE = 0.5
"""Share of a square's middle points far from its empty colour that makes it worth a look."""
SURE_TILE_COLOUR = 0.5
"""... and above which it is not board even without a readable letter."""
EDGE_WEIGHT = 16.0
"""Weight of the face-outline evidence against the letter-position evidence."""
MAX_MISS = 0.15
"""A letter farther than this (cells) from every height's face centre is not this square's: a
tall neighbour's face leaning over it lies 0.2 cells or more off, while a loose stack and the
refitted lean keep a square's own letter within a few hundredths."""
RECROPS = 2
STRAY_MISS = 0.08
"""A letter farther than this (cells) from every height's face centre is looked for again at
each height: loose stacks and camera error stay well inside it."""
"""Times a letter is cropped again at the height its position points to."""
MIN_REFINE_TILES = 6
"""Letters needed before the lean is refitted to them."""
REFINE_ROUNDS = 10
LETTER_SPREAD = 0.012
"""Spread (cells) of a letter's centre about its face's centre: a loose stack sits up to 0.02
cells off its well's centre on each axis (``draw.MAX_SHIFT``), which spreads about this much."""
LEAN_SPREAD = np.array([0.15, 0.15, 0.03])
"""How far the true lean may lie from the calibrated one (a principal point off-centre)."""
SURE_COST = 2.0
"""Cost gap between the best and second-best height that counts as a sure height."""
RING_INSET = 0.12
"""Where a face's colour is sampled: this far (cells) inside its square, outside any letter
and inside the face even when a loose stack sits off centre."""
RING_ALONG = np.linspace(0.1, 0.9, 8)
FOREIGN_CHROMA = 0.045
"""Chromaticity distance from the set's face colour beyond which a 'face' is not a tile (faces of
one set stay within 0.025 across shadows and looks in the renders): the
tray rim or the table seen where a tall face would lie, or a neighbour's shaded side."""
MIN_FACES_FOR_COLOUR = 5
"""Faces needed before their common colour is trusted."""
MAX_ALIEN_SHARE = 0.5
"""Share of a letterless square's points that may show neither board nor tile colour (a
neighbour's letter, seams and edges) before something else is taken to lie there."""
HIDDEN_SPAN = (0.25, 0.75)
"""Where a face's letter lies, in cells across its square."""
HIDDEN_CONFIDENCE = 0.2
"""Most confidence a letter gets when a taller neighbour hides part of it."""
FLOOR_SHARE = 0.4
"""Share of a square's footprint ring showing its bare board at which no stack stands there:
on real stacks at most 25 % of the points match the board (seams, light; renders in 8 looks,
5,400 tiles), while an empty square a neighbour's face was seen over mostly shows 40-100 %."""
TILE_TONES = (0.4, 1.1)
"""Brightness of a tile's sides and shaded faces relative to the faces' median colour."""
DISTINCT_TONE = 0.3
"""Log-colour distance between a square's empty colour and every tile tone for the bare board
to tell that no stack is there."""
FLOOR_CONFIDENCE = 0.8
"""Confidence that a square showing its bare board is empty."""
OVERHUNG_CONFIDENCE = 0.5
"""Confidence that a square is empty when it shows no letter but the tiles' colour: seen
obliquely, a tall neighbour's side or face hides it (a tile there would show its letter
unless wholly hidden, which the game's history then tells)."""


# --- the camera -------------------------------------------------------------------------------
MIN_LEVEL_PX = 2.5
"""Frame pixels one tile level must move a face for heights to be read from the view: at 3 px
and more the renders' heights are almost all right, under 2 px they are mostly guesses."""
TYPICAL_FOCAL = 0.8
"""Focal length as a share of the frame width when the view is too flat to solve for it."""
MIN_TILT_DEG = 8.0
"""Below this tilt the Zhang constraints are too weak to trust the solved focal length."""
FOCAL_RANGE = (0.3, 5.0)
"""Plausible focal lengths, as shares of the frame width."""


@dataclass(frozen=True)
class Camera:
    """A pinhole camera P = K [R | t] for board points (x, y, z) in cells, z into the table.

    x runs along the columns and y down the rows from the playing area's top-left corner (the
    convention of ``vision.synth.Scene.projection``); a point ``h`` cells above has z = -h.
    """

    projection: np.ndarray
    image_size: tuple[int, int]

    @classmethod
    def from_homography(
        cls,
        homography: np.ndarray,
        image_size: tuple[int, int],
        *,
        focal: float | None = None,
        principal: tuple[float, float] | None = None,
    ) -> Camera:
        """Board cells -> frame pixels homography -> camera (focal solved unless given)."""
        width, height = image_size
        cx, cy = principal if principal is not None else (width / 2.0, height / 2.0)
        h = np.asarray(homography, np.float64).reshape(3, 3)
        if focal is None:
            focal = solve_focal(h, (cx, cy), width)
        k = np.array([[focal, 0.0, cx], [0.0, focal, cy], [0.0, 0.0, 1.0]])
        m = np.linalg.solve(k, h)
        scale = 2.0 / (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
        if m[2, 2] < 0:  # the board lies in front of the camera
            scale = -scale
        r1, r2 = m[:, 0] * scale, m[:, 1] * scale
        vertical = np.cross(r1, r2)
        # the board plane stays exactly the measured homography; only the vertical is modelled
        board = h * scale
        projection = np.column_stack([board[:, 0], board[:, 1], k @ vertical, board[:, 2]])
        return cls(projection / projection[2, 3], (int(width), int(height)))

    def plane(self, height_cells: float) -> np.ndarray:
        """Board cells (x, y) on the plane ``height_cells`` above the board -> frame pixels."""
        p = self.projection
        h = np.column_stack([p[:, 0], p[:, 1], p[:, 3] - height_cells * p[:, 2]])
        return h / h[2, 2]

    def level_shift_px(self) -> np.ndarray:
        """(N,) how far one tile level moves each square's face centre in the frame (between
        heights 1 and 2): the parallax heights are read from, zero under the camera."""
        centres = _cell_origins() + 0.5
        low, high = (_project(self.plane(lv * TILE_THICKNESS), centres) for lv in (1, 2))
        return np.linalg.norm(high - low, axis=1)

    def tilt_deg(self) -> float:
        """Angle between the optical axis and the board's normal."""
        # K's last row is (0, 0, 1), so P's last row is R's last row up to scale
        row = self.projection[2, :3] / np.linalg.norm(self.projection[2, :3])
        return float(np.degrees(np.arccos(min(1.0, abs(row[2])))))

    def to_json(self) -> JSON:
        return {"projection": np.round(self.projection, 9).tolist(), "size": list(self.image_size)}

    @classmethod
    def from_json(cls, obj: JSON) -> Camera:
        """ValueError/KeyError/TypeError when malformed (the reader turns it into ProfileError)."""
        projection = np.array(obj["projection"], np.float64)
        size = tuple(int(v) for v in obj["size"])
        if projection.shape != (3, 4) or not np.isfinite(projection).all() or len(size) != 2:
            raise ValueError("camera")
        return cls(projection, (size[0], size[1]))


def solve_focal(h: np.ndarray, principal: tuple[float, float], width: int) -> float:
    """The focal length (px) from the two Zhang constraints, or the typical one if unsolvable."""
    fallback = TYPICAL_FOCAL * width
    shift = np.array([[1.0, 0.0, -principal[0]], [0.0, 1.0, -principal[1]], [0.0, 0.0, 1.0]])
    g = shift @ h
    g1, g2 = g[:, 0], g[:, 1]
    # (a/f^2) + b = 0 for each constraint, with a, b from the homography's first two columns
    a = np.array([g1[0] * g2[0] + g1[1] * g2[1], g1[0] ** 2 + g1[1] ** 2 - g2[0] ** 2 - g2[1] ** 2])
    b = np.array([g1[2] * g2[2], g1[2] ** 2 - g2[2] ** 2])
    denom = float(a @ a)
    inv_f2 = -float(a @ b) / denom if denom > 0 else 0.0
    if inv_f2 <= 0:
        return fallback
    focal = float(1.0 / np.sqrt(inv_f2))
    if not FOCAL_RANGE[0] * width <= focal <= FOCAL_RANGE[1] * width:
        return fallback
    # the board's normal in camera coordinates, with this focal length
    m = np.linalg.solve(np.array([[focal, 0, 0], [0, focal, 0], [0, 0, 1.0]]), g)
    normal = np.cross(m[:, 0], m[:, 1])
    tilt = np.degrees(np.arccos(min(1.0, abs(normal[2]) / np.linalg.norm(normal))))
    return focal if tilt >= MIN_TILT_DEG else fallback


# --- sample points ------------------------------------------------------------------------------
def _cell_origins() -> np.ndarray:
    """(N, 2) top-left corner (x, y) of every square in cells, row-major."""
    rows, cols = np.divmod(np.arange(N), SIZE)
    return np.stack([cols, rows], axis=1).astype(np.float64)


def _edge_offsets() -> np.ndarray:
    """(4 sides, 2 [inside, outside], len(EDGE_ACROSS) * len(EDGE_ALONG), 2) offsets in a cell."""
    lo, hi = FACE_INSET, 1.0 - FACE_INSET
    out = np.empty((4, 2, len(EDGE_ACROSS), len(EDGE_ALONG), 2))
    along = lo + EDGE_ALONG * (hi - lo)
    for k, d in enumerate(EDGE_ACROSS):
        for side_in, sign in enumerate((1.0, -1.0)):
            dd = sign * d
            out[0, side_in, k] = np.stack([along, np.full_like(along, lo + dd)], axis=1)  # top
            out[1, side_in, k] = np.stack([np.full_like(along, hi - dd), along], axis=1)  # right
            out[2, side_in, k] = np.stack([along, np.full_like(along, hi - dd)], axis=1)  # bottom
            out[3, side_in, k] = np.stack([np.full_like(along, lo + dd), along], axis=1)  # left
    return out.reshape(4, 2, -1, 2)


def _letter_offsets() -> np.ndarray:
    """(LETTER_PX**2, 2) pixel centres of the upright face crop, in cell offsets."""
    lo, hi = FACE_INSET + LETTER_MARGIN, 1.0 - FACE_INSET - LETTER_MARGIN
    t = lo + (np.arange(LETTER_PX) + 0.5) / LETTER_PX * (hi - lo)
    xs, ys = np.meshgrid(t, t)
    return np.stack([xs, ys], axis=-1).reshape(-1, 2)


def _colour_offsets() -> np.ndarray:
    xs, ys = np.meshgrid(COLOUR_GRID, COLOUR_GRID)
    return np.stack([xs, ys], axis=-1).reshape(-1, 2)


def _ring_offsets() -> np.ndarray:
    """(4 * len(RING_ALONG), 2) points on a ring just inside a face's sides, clear of the
    letter, in cell offsets."""
    lo, hi = RING_INSET, 1.0 - RING_INSET
    along = lo + RING_ALONG * (hi - lo)
    return np.concatenate(
        [
            np.stack([along, np.full_like(along, lo)], 1),
            np.stack([along, np.full_like(along, hi)], 1),
            np.stack([np.full_like(along, lo), along], 1),
            np.stack([np.full_like(along, hi), along], 1),
        ]
    )


def _rim_points() -> np.ndarray:
    """Board-plane points on the tray rim all round the playing area, in cells."""
    t = np.arange(SIZE) + 0.5
    a, b = -RIM_OFFSET, SIZE + RIM_OFFSET
    return np.concatenate(
        [
            np.stack([t, np.full_like(t, a)], 1),
            np.stack([t, np.full_like(t, b)], 1),
            np.stack([np.full_like(t, a), t], 1),
            np.stack([np.full_like(t, b), t], 1),
        ]
    )


def _project(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Apply a homography to (..., 2) points."""
    flat = points.reshape(-1, 2)
    q = flat @ h[:, :2].T + h[:, 2]
    return (q[:, :2] / q[:, 2:3]).reshape(points.shape)


def _as_map(points: np.ndarray) -> np.ndarray:
    """(..., 2) float coordinates -> a (rows, 64, 2) float32 map for ``cv2.remap``."""
    flat = points.reshape(-1, 2).astype(np.float32)
    pad = (-len(flat)) % 64
    if pad:
        flat = np.concatenate([flat, np.full((pad, 2), -10.0, np.float32)])
    return flat.reshape(-1, 64, 2)


def _sample(image: np.ndarray, coords: np.ndarray, count: int) -> np.ndarray:
    """Bilinear samples of ``image`` at a ``_as_map`` map: (count, channels) float32."""
    out = cv2.remap(image, coords, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out.reshape(-1, image.shape[2] if image.ndim == 3 else 1)[:count].astype(np.float32)


def _homology(lean: np.ndarray, level: int) -> np.ndarray:
    """Board cells on the top-face plane of a ``level``-high stack -> where they appear on the
    board plane.  ``lean`` is the vertical direction's vanishing point in board coordinates
    (v = H^-1 p3 for P = [p1 p2 p3 p4], H = [p1 p2 p4]): a point z cells up at (x, y) appears at
    (x - z v1, y - z v2) / (1 - z v3)."""
    z = level * TILE_THICKNESS
    return np.array(
        [[1.0, 0.0, -z * lean[0]], [0.0, 1.0, -z * lean[1]], [0.0, 0.0, 1 - z * lean[2]]]
    )


@dataclass
class _Layout:
    """Where every height's faces lie in one view, for one lean."""

    lean: np.ndarray
    planes: list[np.ndarray]
    """Per level 0..MAX_HEIGHT: board cells on that level's face plane -> view pixels."""
    edge_map: np.ndarray

    @classmethod
    def build(cls, view: np.ndarray, lean: np.ndarray) -> _Layout:
        planes = [view @ _homology(lean, lv) for lv in range(LEVELS)]
        origins = _cell_origins()[:, None, None, None] + _edge_offsets()[None]
        edge_pts = np.stack([_project(planes[lv], origins) for lv in range(1, LEVELS)])
        return cls(np.asarray(lean, np.float64), planes, _as_map(edge_pts))

    def edge_scores(self, image: np.ndarray) -> np.ndarray:
        """(N, MAX_HEIGHT) how sharply the image steps across each height's face outline."""
        per_side = 2 * len(EDGE_ACROSS) * len(EDGE_ALONG)
        count = MAX_HEIGHT * N * 4 * per_side
        s = _sample(image, self.edge_map, count)
        s = s.reshape(MAX_HEIGHT, N, 4, 2, len(EDGE_ACROSS), len(EDGE_ALONG), -1)
        step = s[:, :, :, 0] - s[:, :, :, 1]  # inside minus outside, per point and channel
        # one number per side: the mean step, so texture that flips sign averages away
        side = np.abs(step.mean(axis=(3, 4))).sum(axis=-1)
        return side.sum(axis=2).T

    def faces(self, gray: np.ndarray, levels: np.ndarray, squares: np.ndarray) -> np.ndarray:
        """(len(squares), LETTER_PX, LETTER_PX) uint8 upright top-face crops at ``levels``."""
        if len(squares) == 0:
            return np.zeros((0, LETTER_PX, LETTER_PX), np.uint8)
        cells = _cell_origins()[squares][:, None] + _letter_offsets()[None]
        pts = np.empty(cells.shape, np.float32)
        for level in np.unique(levels):
            pick = levels == level
            pts[pick] = _project(self.planes[level], cells[pick])
        out = cv2.remap(
            gray,
            pts.reshape(-1, LETTER_PX, 2),
            None,
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        )
        return out.reshape(len(squares), LETTER_PX, LETTER_PX)

    def face_colour(self, image: np.ndarray, levels: np.ndarray, squares: np.ndarray) -> np.ndarray:
        """(len(squares), 3) median colour of each face's ring at ``levels``: a tile set prints
        every face on one colour, outside the letter."""
        cells = _cell_origins()[squares][:, None] + _ring_offsets()[None]
        pts = np.empty(cells.shape)
        for level in np.unique(levels):
            pick = levels == level
            pts[pick] = _project(self.planes[level], cells[pick])
        ring = len(_ring_offsets())
        samples = _sample(image, _as_map(pts), len(squares) * ring).reshape(len(squares), ring, -1)
        return np.median(samples, axis=1)

    def ink_on_board(
        self, boxes: np.ndarray, levels: np.ndarray, squares: np.ndarray
    ) -> np.ndarray:
        """Letter box centres (x0, y0, x1, y1 in crop pixels) -> where they appear on the board
        plane, in cells: a measurement that does not depend on the lean it was cropped with."""
        lo, hi = FACE_INSET + LETTER_MARGIN, 1.0 - FACE_INSET - LETTER_MARGIN
        mid = np.stack([boxes[:, 0] + boxes[:, 2], boxes[:, 1] + boxes[:, 3]], axis=1) / 2
        cells = _cell_origins()[squares] + lo + mid / LETTER_PX * (hi - lo)
        out = np.empty_like(cells)
        for level in np.unique(levels):
            pick = levels == level
            out[pick] = _project(_homology(self.lean, level), cells[pick])
        return out


PROFILE_STEP = 0.01
"""Spacing (cells) of the samples along a stack's silhouette profile."""
PROFILE_SPAN = (-0.4, 1.4)
"""Where a square's profile runs, in cells from its top-left corner along the axis."""
PROFILE_LINES = np.linspace(-0.15, 0.15, 5)
"""Offsets (cells) across the axis of the lines averaged into one profile."""
PROFILE_REACH = 2
"""Half the span (samples) over which a profile's slope is taken: smooths pixel steps."""
PROFILE_SLACK = 0.035
"""How far (cells) a silhouette edge may lie from where any height puts it: a loose stack."""
OUTER_SHARE = 0.5
"""A rise at least this share of the strongest in its window can be a silhouette's edge."""
TILE_HALF = 0.44
"""Half a tile's side, in cells."""
SILHOUETTE_SPREAD = 0.015
"""Spread (cells) of a measured silhouette width about the true one (shadows, low contrast)."""
SILHOUETTE_CAP = 2.0
"""Most a silhouette width can cost a height: a neighbour's edge can mislead it."""


def _profile_points(lean: np.ndarray, squares: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sample points on the board plane for every square's two profiles, and each height's
    predicted face extent along them.

    Returns (points (n, 2 axes, lines, samples, 2) in cells, face (LEVELS, n, 2 axes, 2) low and
    high end of the face along each axis, in cells from the square's corner; level 0 is the
    bottom tile's footprint).
    """
    origins = _cell_origins()[squares]
    u = np.arange(PROFILE_SPAN[0], PROFILE_SPAN[1] + 1e-9, PROFILE_STEP)
    face = np.empty((LEVELS, len(squares), 2, 2))
    mid = origins + 0.5
    for level in range(LEVELS):
        h = _homology(lean, level)
        for axis in range(2):
            ends = np.repeat(mid[:, None], 2, axis=1)
            ends[:, 0, axis] -= TILE_HALF
            ends[:, 1, axis] += TILE_HALF
            face[level, :, axis] = _project(h, ends)[:, :, axis] - origins[:, None, axis]
    # the lines follow the stack's middle height across the axis, so they cross base and face
    lift = _project(_homology(lean, (LEVELS + 1) // 2), mid) - mid
    pts = np.empty((len(squares), 2, len(PROFILE_LINES), len(u), 2))
    for axis in range(2):
        other = 1 - axis
        across = mid[:, other, None] + lift[:, other, None] / 2 + PROFILE_LINES[None]
        pts[:, axis, :, :, axis] = origins[:, axis, None, None] + u[None, None]
        pts[:, axis, :, :, other] = across[:, :, None]
    return pts, face


def _silhouettes(
    image: np.ndarray, cells: np.ndarray, lean: np.ndarray, squares: np.ndarray, board: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each stack's silhouette width along both axes, measured and as each height predicts.

    Along an axis a stack shows, in order: board, the visible side of the stack (between the
    footprint and the top face, on the nadir's side), the top face, board.  The silhouette
    runs from the footprint's edge to the far edge of the top face, so its width grows with
    the height and does not depend on where the loose stack sits in its well.  ``board`` is
    each square's empty colour (which way the face steps from it).

    Returns (measured (n, 2), predicted (MAX_HEIGHT, n, 2)) in cells, and (n, 2) whether the
    top face lies towards the axis' high end (the stack's side shows at the low end).
    """
    pts, face = _profile_points(lean, squares)
    shape = pts.shape[:-1]
    samples = _sample(image, _as_map(_project(cells, pts)), int(np.prod(shape)))
    profile = samples.reshape(*shape, -1).mean(axis=2)  # (n, 2, samples, channels)
    reach = PROFILE_REACH
    diff = profile[:, :, 2 * reach :] - profile[:, :, : -2 * reach]
    u = np.arange(profile.shape[2]) * PROFILE_STEP + PROFILE_SPAN[0]
    middle = (u > 0.3) & (u < 0.7)
    tile = np.median(profile[:, :, middle], axis=2)  # (n, 2, c)
    towards = tile - board[:, None]
    towards /= np.maximum(np.linalg.norm(towards, axis=2, keepdims=True), 1e-6)
    signed = (diff * towards[:, :, None]).sum(axis=3)
    base, top = face[0], face[1:]  # (n, 2, 2), (MAX_HEIGHT, n, 2, 2)
    lo = np.minimum(base[None, ..., 0], top[..., 0])
    hi = np.maximum(base[None, ..., 1], top[..., 1])
    slack = PROFILE_SLACK
    found = []
    # the face's edge steps from face to board; the footprint's from board to the stack's
    # side, whose shade may lie either side of the board's: only its strength counts
    plain = np.linalg.norm(diff, axis=3)
    rises = (top[..., 0] - base[None, ..., 0]).mean(axis=0)[..., None] > 0  # face moved up
    for outer, ends, grad in (
        (False, lo, np.where(rises, plain, signed)),
        (True, hi, np.where(rises, -signed, plain)),
    ):
        first = (ends.min(axis=0) - slack - PROFILE_SPAN[0]) / PROFILE_STEP - reach
        last = (ends.max(axis=0) + slack - PROFILE_SPAN[0]) / PROFILE_STEP - reach
        index = np.arange(grad.shape[2])
        inside = (index >= first[..., None]) & (index <= last[..., None])
        # the silhouette's edge is the outermost strong rise: inside it the seams between
        # stacked tiles and the letter step too
        g = np.where(inside, grad, -np.inf)
        rise = (g >= np.roll(g, 1, axis=2)) & (g >= np.roll(g, -1, axis=2))
        rise &= g >= OUTER_SHARE * g.max(axis=2, keepdims=True)
        rise &= np.isfinite(g)
        last_rise = grad.shape[2] - 1 - rise[:, :, ::-1].argmax(axis=2)
        peak = last_rise if outer else rise.argmax(axis=2)
        # the edge is the centroid of the gradient's peak, above the window's floor
        near = np.clip(peak[..., None] + np.arange(-reach, reach + 1), 0, grad.shape[2] - 1)
        g = np.take_along_axis(grad, near, axis=2)
        floor = np.where(inside, grad, np.inf).min(axis=2)
        w = np.maximum(g - np.maximum(floor, g.min(axis=2))[..., None], 0.0)
        at = (w * near).sum(axis=2) / np.maximum(w.sum(axis=2), 1e-9)
        found.append(PROFILE_SPAN[0] + (at + reach) * PROFILE_STEP)
    return found[1] - found[0], hi - lo, rises[..., 0]


def _fine_box(face: np.ndarray, ink: tuple[np.ndarray, tuple[int, int, int, int]]) -> np.ndarray:
    """The ink box (x0, y0, x1, y1) to a fraction of a crop pixel.

    ``find_ink`` thresholds, so its box moves in whole crop pixels (two hundredths of a cell),
    as much as one tile level shifts a face at small tilt.  How far the ink covers the pixels
    just inside and outside each side of the box places that side between pixels.
    """
    glyph, (x0, y0, x1, y1) = ink
    gray = face.astype(np.float32)
    h, w = gray.shape
    ring = np.ones((h, w), bool)
    ring[max(y0 - 2, 0) : y1 + 2, max(x0 - 2, 0) : x1 + 2] = False
    box = gray[y0:y1, x0:x1]
    if not ring.any() or not (glyph > 0).any():
        return np.array([x0, y0, x1, y1], np.float64)
    paper = float(gray[ring].mean())
    inked = float(box[glyph > 0].mean())
    if abs(inked - paper) < 1.0:
        return np.array([x0, y0, x1, y1], np.float64)
    strength = np.clip((gray - paper) / (inked - paper), 0.0, 1.0)
    cols = strength[y0:y1].max(axis=0)
    rows = strength[:, x0:x1].max(axis=1)

    def sides(cover: np.ndarray, lo: int, hi: int) -> tuple[float, float]:
        before = cover[lo - 1] if lo > 0 else 0.0
        after = cover[hi] if hi < len(cover) else 0.0
        return lo + (1.0 - cover[lo]) - before, hi - (1.0 - cover[hi - 1]) + after

    left, right = sides(cols, x0, x1)
    top, bottom = sides(rows, y0, y1)
    return np.array([left, top, right, bottom], np.float64)


def _face_centres(lean: np.ndarray, squares: np.ndarray) -> np.ndarray:
    """(MAX_HEIGHT, n, 2) where each height puts each square's face centre on the board plane."""
    centres = _cell_origins()[squares] + 0.5
    return np.stack([_project(_homology(lean, lv), centres) for lv in range(1, LEVELS)])


def _refine_lean(prior: np.ndarray, seen: np.ndarray, squares: np.ndarray) -> np.ndarray:
    """The lean that best explains where the letters lie, their heights unknown (soft EM).

    Each round weighs every height for every letter by how near its face centre lies, then
    solves the weighted least squares for the lean (linear in it), pulled towards the
    calibrated lean so that a few tiles cannot drag it far.  Hard assignments would bias the
    lean towards whatever the first guess favoured.
    """
    centres = _cell_origins()[squares] + 0.5
    bx, by = seen[:, 0], seen[:, 1]
    zero = np.zeros(len(squares))
    lean = prior.copy()
    for _ in range(REFINE_ROUNDS):
        miss = np.linalg.norm(_face_centres(lean, squares) - seen[None], axis=2)
        weight = np.exp(-0.5 * (miss / LETTER_SPREAD) ** 2)
        weight /= np.maximum(weight.sum(axis=0, keepdims=True), 1e-12)
        rows, rhs = [], []
        for level in range(1, LEVELS):
            z = np.full(len(squares), level * TILE_THICKNESS)
            w = np.sqrt(weight[level - 1])
            rows += [np.stack([-z, zero, z * bx], 1) * w[:, None]]
            rows += [np.stack([zero, -z, z * by], 1) * w[:, None]]
            rhs += [(bx - centres[:, 0]) * w, (by - centres[:, 1]) * w]
        a = np.concatenate([*rows, np.diag(LETTER_SPREAD / LEAN_SPREAD)])
        b = np.concatenate([*rhs, prior * LETTER_SPREAD / LEAN_SPREAD])
        lean = np.linalg.lstsq(a, b, rcond=None)[0]
    return lean


@dataclass
class _View:
    """One view of the board (camera frame or rectified image) and its fixed sample maps."""

    size: tuple[int, int]
    cells: np.ndarray
    """Board cells on the board plane -> this view's pixels."""
    colour_map: np.ndarray
    rim_map: np.ndarray
    footprint_map: np.ndarray
    """Every square's ring of ``_ring_offsets`` on the board plane: inside a stack's footprint."""
    base: _Layout

    @classmethod
    def build(cls, cells: np.ndarray, lean: np.ndarray, size: tuple[int, int]) -> _View:
        origins = _cell_origins()
        colour_pts = np.stack(
            [
                _project(cells @ _homology(lean, lv), origins[:, None] + _colour_offsets()[None])
                for lv in COLOUR_LEVELS
            ]
        )
        return cls(
            size=size,
            cells=cells,
            colour_map=_as_map(colour_pts),
            rim_map=_as_map(_project(cells, _rim_points())),
            footprint_map=_as_map(_project(cells, origins[:, None] + _ring_offsets()[None])),
            base=_Layout.build(cells, lean),
        )

    def colour_samples(self, image: np.ndarray) -> np.ndarray:
        """(len(COLOUR_LEVELS), N, points, 3) colours across each square's middle on those
        planes."""
        n = len(COLOUR_GRID) ** 2
        samples = _sample(image, self.colour_map, len(COLOUR_LEVELS) * N * n)
        return samples.reshape(len(COLOUR_LEVELS), N, n, -1)

    def colours(self, image: np.ndarray) -> np.ndarray:
        """(len(COLOUR_LEVELS), N, 3) median colour of each square's middle on those planes:
        seen obliquely, a tall stack's side can match the board, but not its face too."""
        return np.median(self.colour_samples(image), axis=2)

    def footprints(self, image: np.ndarray) -> np.ndarray:
        """(N, ring points, 3) colours on each square's footprint ring on the board plane,
        where no letter is printed: a stack there always hides it."""
        ring = len(_ring_offsets())
        return _sample(image, self.footprint_map, N * ring).reshape(N, ring, -1)

    def rim(self, image: np.ndarray) -> np.ndarray:
        return _sample(image, self.rim_map, len(_rim_points()))


def _choose_levels(
    edge: np.ndarray,
    centres: np.ndarray,
    predicted: np.ndarray,
    silhouette: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each stack's height from its letter's position and its face outline, how sure, and how
    far (cells) the letter lies from the nearest height's face centre.

    ``edge``: (n, MAX_HEIGHT) outline scores; ``centres``: (n, 2) letter centres seen and
    ``predicted``: (MAX_HEIGHT, n, 2) where each height puts the face centre, on the board plane.
    """
    miss = np.linalg.norm(predicted - centres[None], axis=2).T
    edge_share = edge / np.maximum(edge.max(axis=1, keepdims=True), 1e-6)
    cost = (miss / LETTER_SPREAD) ** 2 / 2 + EDGE_WEIGHT * (1.0 - edge_share)
    # silhouette widths: their common bias (edge shading, blur) from the stacks as first read
    measured, widths, rises = silhouette
    first = np.argmin(cost, axis=1)
    left = measured - widths[first, np.arange(len(first))]
    # which sides of the stack bound it (lit or shaded, side or face) sets the bias
    bias = np.zeros_like(measured)
    for group in (False, True):
        for axis in range(2):
            pick = rises[:, axis] == group
            if pick.any():
                bias[pick, axis] = np.median(left[pick, axis])
    # a view whose silhouettes scatter (dark tiles in dark grooves) weighs them less
    scatter = 1.4826 * np.median(np.abs(left - bias), axis=0) if len(left) > 2 else 0.0
    off = (measured[None] - widths - bias[None]) / np.maximum(SILHOUETTE_SPREAD, scatter)
    cost = cost + np.minimum(off**2 / 2, SILHOUETTE_CAP).sum(axis=2).T
    order = np.sort(cost, axis=1)
    sure = np.clip((order[:, 1] - order[:, 0]) / SURE_COST, 0.0, 1.0)
    return np.argmin(cost, axis=1) + 1, sure, miss.min(axis=1)


def _hidden_share(lean: np.ndarray, squares: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """Share of each face's letter area that a taller neighbouring stack hides from the camera.

    A point seen at q on the board plane is the point z up at x(z) = q + z (v - q v3) (v the
    lean), linear in z, so it is hidden by a neighbour's stack exactly when some z between the
    face's height and the neighbour's top puts x(z) inside that stack's footprint.  Heights are
    the ones just read: a letter a neighbour hides may have lost the strokes that tell it apart
    (a P whose bowl is hidden shows an I) and pulls its centre, so its read is unsure.
    """
    tops = np.zeros(N, np.intp)
    tops[squares] = levels
    grid = np.linspace(*HIDDEN_SPAN, 6)
    offsets = np.stack(np.meshgrid(grid, grid), axis=-1).reshape(-1, 2)
    origins = _cell_origins()[squares]
    seen = np.empty((len(squares), len(offsets), 2))
    for level in np.unique(levels):
        pick = levels == level
        seen[pick] = _project(_homology(lean, level), origins[pick][:, None] + offsets[None])
    slope = lean[None, None, :2] - seen * lean[2]  # dx/dz, (n, points, 2)
    hidden = np.zeros(seen.shape[:2], bool)
    rows, cols = np.divmod(squares, SIZE)
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            r, c = rows + dr, cols + dc
            inside = (r >= 0) & (r < SIZE) & (c >= 0) & (c < SIZE) & ((dr, dc) != (0, 0))
            other = np.where(inside, r * SIZE + c, 0)
            taller = inside & (tops[other] > levels)
            if not taller.any():
                continue
            count = seen.shape[1]
            low = np.repeat(levels[:, None] * TILE_THICKNESS, count, axis=1).astype(np.float64)
            high = np.repeat(tops[other][:, None] * TILE_THICKNESS, count, axis=1).astype(float)
            centre = _cell_origins()[other] + 0.5
            for axis in range(2):
                near = centre[:, None, axis] - TILE_HALF - seen[..., axis]
                far = centre[:, None, axis] + TILE_HALF - seen[..., axis]
                m = slope[..., axis]
                flat = np.abs(m) < 1e-12  # this coordinate does not move with height
                with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
                    a, b = near / m, far / m
                covers = (near <= 0) & (far >= 0)
                lo = np.where(flat, np.where(covers, -np.inf, np.inf), np.minimum(a, b))
                hi = np.where(flat, np.inf, np.maximum(a, b))
                low, high = np.maximum(low, lo), np.minimum(high, hi)
            hidden |= taller[:, None] & (low <= high)
    return hidden.mean(axis=1)


def _overhung(
    targets: np.ndarray, stacks: np.ndarray, levels: np.ndarray, lean: np.ndarray
) -> np.ndarray:
    """Which ``targets`` squares a neighbouring stack (of ``stacks`` at ``levels``) leans
    over: one beside or diagonal to it, two or more high, whose face moves towards it."""
    centres = _cell_origins() + 0.5
    tall = levels >= 2
    stacks, levels = stacks[tall], levels[tall]
    if stacks.size == 0:
        return np.zeros(len(targets), bool)
    faces = np.stack(
        [
            _project(_homology(lean, lv), centres[sq][None])[0]
            for sq, lv in zip(stacks, levels, strict=True)
        ]
    )
    lean_dir = faces - centres[stacks]
    towards = centres[targets][:, None] - centres[stacks][None]
    near = np.abs(towards).max(axis=2) <= 1.0 + 1e-9
    return (near & ((towards * lean_dir[None]).sum(axis=2) > 0)).any(axis=1)


def _bare_floor(
    seen: np.ndarray, empty: np.ndarray, light: np.ndarray, faces: np.ndarray
) -> np.ndarray:
    """Which squares show their own bare board around most of their footprint, so hold no stack.

    A stack hides its whole footprint from any camera (the sight line to a point under it
    passes through it), so a square that still shows its empty colour there holds no tile,
    whatever letter a taller neighbour's face put where a tall stack's face would be.  The
    points lie on a ring inside the footprint, where no letter is printed (a light letter can
    match the board).  Only squares whose empty colour no tile tone matches can tell (white
    tiles on a light grey board cannot): ``faces`` are the faces' colours in this view, and
    their sides are darker.

    ``seen``: (n, points, 3) colours on that ring on the board plane; ``empty``:
    (n, 3) those squares' calibrated colours; ``light``: (3,) log light change on the rim.
    """
    board = np.log1p(empty) + light
    bare = np.abs(np.log1p(seen) - board[:, None]).max(axis=2) <= TILE_COLOUR
    tones = np.log1p(np.linspace(*TILE_TONES, 8)[:, None] * np.median(faces, axis=0)[None])
    apart = np.abs(board[:, None] - tones[None]).max(axis=2).min(axis=1) > DISTINCT_TONE
    return apart & (bare.mean(axis=1) >= FLOOR_SHARE)


def _worth_a_look(distance: np.ndarray, points: np.ndarray) -> np.ndarray:
    """The squares to look for a letter on, from how far each one's middle moved from its empty
    colour: ``distance`` (N,) for the median colour, ``points`` (N, points, 3) per point (log
    change, light taken out).

    A tile may be close to the board's colour (white on light grey), so any change of the
    median makes a square a candidate; and a dark tile's light letter can average out to the
    board's colour while hardly a point of it is the board's, so a square most of whose points
    moved far is one too.
    """
    far = (np.abs(points).max(axis=2) > TILE_COLOUR).mean(axis=1)
    return np.flatnonzero((distance > CANDIDATE_COLOUR) | (far > FAR_SHARE))


def _local_light(
    change: np.ndarray, quiet: np.ndarray, light: np.ndarray, targets: np.ndarray
) -> np.ndarray:
    """(len(targets), 3) log light change at those squares, from the bare squares around them.

    Room light falls off across a board, so the rim's one figure leaves a bare square on the
    bright side looking a little changed.  Squares that look bare (``quiet``) show the light
    where they lie: each square takes the median over those within LIGHT_REACH squares (its own
    ``change`` counts only when quiet), else the rim's ``light``.  A hand is never quiet, so it
    cannot make the light under it look like itself.  ``change``: (N, 3) each square's log
    colour change on the board plane, light included.
    """
    grid = np.where(quiet[:, None], change, np.nan).reshape(SIZE, SIZE, -1)
    out = np.empty((len(targets), change.shape[1]))
    for k, square in enumerate(targets):
        r, c = divmod(int(square), SIZE)
        rows = slice(max(r - LIGHT_REACH, 0), r + LIGHT_REACH + 1)
        cols = slice(max(c - LIGHT_REACH, 0), c + LIGHT_REACH + 1)
        block = grid[rows, cols].reshape(-1, change.shape[1])
        block = block[~np.isnan(block[:, 0])]
        out[k] = np.median(block, axis=0) if len(block) >= MIN_LIGHT_SQUARES else light
    return out


def _chroma(colour: np.ndarray) -> np.ndarray:
    """Colour over brightness (BGR shares summing to 1): unchanged by shadows and light falling
    off across the board."""
    shifted = colour + 1.0
    return shifted / shifted.sum(axis=-1, keepdims=True)


def _face_colour(chroma: np.ndarray) -> tuple[np.ndarray | None, np.ndarray]:
    """The chromaticity most faces found in this view share (None when too few faces), and
    which faces do not have it."""
    if len(chroma) < MIN_FACES_FOR_COLOUR:
        return None, np.zeros(len(chroma), bool)
    common = np.median(chroma, axis=0)
    return common, np.abs(chroma - common).max(axis=1) > FOREIGN_CHROMA


def _rect_scale(geometry: BoardGeometry) -> np.ndarray:
    """Board cells -> rectified pixels."""
    c, o = float(geometry.cell_px), float(geometry.origin)
    return np.array([[c, 0.0, o], [0.0, c, o], [0.0, 0.0, 1.0]])


def _check_geometry(geometry: BoardGeometry) -> None:
    if geometry.cols != SIZE or geometry.rows != SIZE:
        raise ProfileError(
            f"the upwords reader needs a {SIZE}x{SIZE} board geometry, got "
            f"{geometry.cols}x{geometry.rows}; calibrate again with --game upwords"
        )


def _check_image(image: Any, size: tuple[int, int], what: str) -> None:
    width, height = size
    if not isinstance(image, np.ndarray) or image.shape != (height, width, 3):
        raise VisionError(
            f"expected a {width}x{height} colour {what}, got shape {getattr(image, 'shape', None)};"
            " give the image the calibration profile was made for"
        )


@dataclass(frozen=True)
class SquareRead:
    """What one square shows, before it becomes part of a ``Board``."""

    height: int
    letter: str
    confidence: float


class TileReader(Reader[Board]):
    """Reads the 100 squares; one instance per calibrated camera view."""

    follows_board = False  # raised faces are found through the camera's pose: recalibrate

    def __init__(
        self,
        geometry: BoardGeometry,
        camera: Camera,
        board_colour: np.ndarray,
        rim_colour: np.ndarray,
        textured: np.ndarray,
        letters: LetterClassifier | None = None,
    ) -> None:
        _check_geometry(geometry)
        self.geometry = geometry
        self.camera = camera
        self.board_colour = np.asarray(board_colour, np.float32).reshape(len(COLOUR_LEVELS), N, 3)
        self.rim_colour = np.asarray(rim_colour, np.float32).reshape(-1, 3)
        self.textured = np.asarray(textured, bool).reshape(N)
        self.letters = letters if letters is not None else LetterClassifier()
        p = camera.projection
        board = p[:, [0, 1, 3]]
        self.lean = np.linalg.solve(board, p[:, 2])
        self._frame = _View.build(board / board[2, 2], self.lean, camera.image_size)
        self._rect = _View.build(_rect_scale(geometry), self.lean, geometry.size)
        self._memory: FaceMemory | None = None

    # --- calibration ----------------------------------------------------------------------
    @classmethod
    def learn(
        cls,
        board: np.ndarray,
        geometry: BoardGeometry,
        *,
        homography: np.ndarray | None = None,
        image_size: tuple[int, int] | None = None,
        focal: float | None = None,
        principal: tuple[float, float] | None = None,
    ) -> TileReader:
        """Learn from a rectified image of the empty board.

        ``homography`` (rectified pixels -> frame pixels, ``Rectifier.homography``) and the
        frame's ``image_size`` give the camera that heights need; without them the reader
        assumes an overhead camera with a typical lens, and heights rest on faint scale cues.
        """
        _check_geometry(geometry)
        _check_image(board, geometry.size, "rectified board image")
        scale = _rect_scale(geometry)
        if homography is None or image_size is None:
            camera = Camera.from_homography(scale, geometry.size, focal=focal)
        else:
            cells_to_frame = np.asarray(homography, np.float64) @ scale
            camera = Camera.from_homography(
                cells_to_frame, image_size, focal=focal, principal=principal
            )
        blank = np.zeros((len(COLOUR_LEVELS), N, 3))
        probe = cls(geometry, camera, blank, np.zeros((4 * SIZE, 3)), np.zeros(N))
        colours = probe._rect.colours(board)
        rim = probe._rect.rim(board)
        gray = cv2.cvtColor(board, cv2.COLOR_BGR2GRAY)
        faces = probe._rect.base.faces(gray, np.ones(N, np.intp), np.arange(N))
        textured = np.array([find_ink(face) is not None for face in faces])
        marked = int(textured.sum())
        # the centre squares' texture shows as ink under some light even when it did not here
        textured[[r * SIZE + c for r, c in CENTRE]] = True
        reader = cls(geometry, camera, colours, rim, textured, probe.letters)
        if marked > len(CENTRE) + N // 20:
            raise VisionError(
                f"the start image shows letters or marks on {marked} squares: clear the board of "
                "tiles and calibrate again"
            )
        log.info("upwords reader learned: camera tilt %.1f deg", camera.tilt_deg())
        return reader

    @classmethod
    def from_json(cls, params: JSON, geometry: BoardGeometry) -> TileReader:
        """Rebuild from ``to_json``; ``ProfileError`` when anything is missing or malformed."""
        try:
            if params.get("version") != VERSION:
                raise ValueError(f"version {params.get('version')!r}")
            camera = Camera.from_json(params["camera"])
            board = np.array(params["board"], np.float32)
            rim = np.array(params["rim"], np.float32)
            if board.shape != (len(COLOUR_LEVELS), N, 3) or rim.shape != (4 * SIZE, 3):
                raise ValueError("colour tables")
            if not (np.isfinite(board).all() and np.isfinite(rim).all()):
                raise ValueError("colours")
            textured = np.array(params["textured"], bool)
            if textured.shape != (N,):
                raise ValueError("textured squares")
            examples = LetterClassifier.examples_from_json(params.get("examples", {}))
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise ProfileError(
                f"the upwords reader settings in the profile are damaged ({err}): calibrate again"
            ) from None
        return cls(geometry, camera, board, rim, textured, LetterClassifier(examples))

    def to_json(self) -> JSON:
        return {
            "version": VERSION,
            "camera": self.camera.to_json(),
            "board": np.round(self.board_colour, 1).tolist(),
            "rim": np.round(self.rim_colour, 1).tolist(),
            "textured": self.textured.tolist(),
            "examples": self.letters.examples_json(),
        }

    def view_problems(self) -> list[str]:
        flat = int((self.camera.level_shift_px() < MIN_LEVEL_PX).sum())
        if not flat:
            return []
        return [
            f"stack heights: one tile level moves a face less than {MIN_LEVEL_PX:g} px on "
            f"{flat} of {N} squares (camera tilt {self.camera.tilt_deg():.0f} degrees), so "
            "heights there come from the game's history only; `companion mount --game upwords` "
            "says where the camera sees every height"
        ]

    # --- reading --------------------------------------------------------------------------
    def read(self, board: np.ndarray) -> Reading:
        """Read a rectified board image (``Rectifier`` output of this profile's corners)."""
        _check_image(board, self.geometry.size, "rectified board image")
        return self._reading(*self._read(board, self._rect)[:2])

    def read_frame(self, frame: np.ndarray, board: np.ndarray | None = None) -> Reading:
        """Read the camera frame itself: sharper letters, and raised faces where they really are
        (the rectified ``board`` is not needed)."""
        _check_image(frame, self.camera.image_size, "camera frame")
        reads, odd, _ = self._read(frame, self._frame)
        if self._memory is not None:
            memory = self._memory
            faces = self._remembered_faces(frame, memory.heights, memory.tiles)
            for i, score in memory.unchanged(faces):
                height, letter = memory.board.squares[i]
                reads[i] = SquareRead(height, letter, score)
        return self._reading(reads, odd)

    @property
    def remembered(self) -> Board | None:
        """The board the reader keeps untouched squares of (``remember``), if any."""
        return None if self._memory is None else self._memory.board

    def remember(self, frame: np.ndarray, board: np.ndarray, state: Board) -> None:
        """Keep every tile's top face as this frame shows it: later frames keep the stacks
        whose faces did not change (``memory``).  Only ``read_frame`` uses it."""
        _check_image(frame, self.camera.image_size, "camera frame")
        if not isinstance(state, Board):
            raise TypeError(f"an upwords reader remembers a Board, not {type(state).__name__}")
        tiles, heights = stacks_of(state)
        self._memory = FaceMemory(state, self._remembered_faces(frame, heights, tiles))

    def _remembered_faces(
        self, frame: np.ndarray, heights: np.ndarray, tiles: np.ndarray
    ) -> np.ndarray:
        """Top-face crops where the calibrated lean puts ``heights``: the same place in every
        frame, whatever a read's refitted lean says."""
        gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        return self._frame.base.faces(gray, heights, tiles)

    def learn_example(self, frame: np.ndarray, board: np.ndarray, cell: str, value: str) -> bool:
        """Teach the font from a square corrected on the page (``value`` like ``"2E"``): the
        letter's face is cut from the camera frame.  False when nothing was learned."""
        height, letter = parse_square(value)
        if not height:
            return False  # an emptied square teaches no letter
        return self.learn_letter(frame, cell, letter)

    def learn_letter(self, image: np.ndarray, cell: str | None, letter: str) -> bool:
        """Teach the font from one square: ``image`` is the rectified board or the frame
        (``cell`` names the square, e.g. ``"r3c4"``) or one face crop (``cell`` None).
        False when no letter could be found there."""
        if letter not in LETTERS:
            raise VisionError(f"{letter!r} is not an upwords tile: use A-Z, with QU for Q")
        if cell is None:
            return self.letters.learn(image, letter)
        row, col = parse_cell(cell)
        index = row * SIZE + col
        view = self._frame if image.shape[:2] == self.camera.image_size[::-1] else self._rect
        _check_image(image, view.size, "board image")
        reads, _, layout = self._read(image, view)
        level = reads[index].height
        if level == 0:
            return False
        # a letter a taller neighbour partly hides shows strokes the font does not have
        tiles = np.array([i for i, sq in enumerate(reads) if sq.height], np.intp)
        levels = np.array([reads[i].height for i in tiles], np.intp)
        if _hidden_share(layout.lean, tiles, levels)[np.searchsorted(tiles, index)] > 0:
            return False
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        face = layout.faces(gray, np.array([level]), np.array([index]))[0]
        return self.letters.learn(face, letter)

    def _read(self, image: np.ndarray, view: _View) -> tuple[list[SquareRead], int, _Layout]:
        """Every square's read, how many squares show something that is not a tile, and where
        the faces were found to lie."""
        light = np.median(np.log1p(view.rim(image)) - np.log1p(self.rim_colour), axis=0)
        samples = view.colour_samples(image)
        change = np.log1p(np.median(samples, axis=2)) - np.log1p(self.board_colour) - light
        distance = np.abs(change).max(axis=(0, 2))
        points = np.log1p(samples[0]) - np.log1p(self.board_colour[0, :, None]) - light
        candidates = _worth_a_look(distance, points)
        reads = [
            SquareRead(0, "", float(np.clip(1 - distance[i] / SURE_TILE_COLOUR, 0, 1)))
            for i in range(N)
        ]
        if candidates.size == 0:
            return reads, 0, view.base
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        layout = view.base
        inks: list[Any] = [None] * len(candidates)
        fine = np.zeros((len(candidates), 4))
        seen = np.zeros((len(candidates), 2))
        crops = np.zeros(len(candidates), np.intp)
        for attempt in range(2):
            scores = layout.edge_scores(image)[candidates]
            ranked = np.argsort(-scores, axis=1) + 1
            # crop each face where its outline fits best; a letter cut by the crop's border means
            # that guess was off, so try the next best heights for squares that look like tiles
            todo = np.array([k for k in range(len(candidates)) if inks[k] is None], np.intp)
            for rank in range(MAX_HEIGHT):
                if todo.size == 0:
                    break
                levels = ranked[todo, rank]
                faces = layout.faces(gray, levels, candidates[todo])
                hits: list[int] = []
                for k, level, face in zip(todo, levels, faces, strict=True):
                    ink = find_ink(face)
                    if ink is not None:
                        inks[k], crops[k], fine[k] = ink, level, _fine_box(face, ink)
                        hits.append(k)
                if hits:
                    seen[hits] = layout.ink_on_board(fine[hits], crops[hits], candidates[hits])
                todo = np.array(
                    [k for k in todo if inks[k] is None and distance[candidates[k]] > TILE_COLOUR],
                    np.intp,
                )
            got = np.array([k for k in range(len(candidates)) if inks[k] is not None], np.intp)
            if attempt or got.size < MIN_REFINE_TILES:
                break
            # the calibrated lean rests on an assumed lens; the letters show the real one
            lean = _refine_lean(self.lean, seen[got], candidates[got])
            layout = _Layout.build(view.cells, lean)
        # the centre squares' moulded texture can look like ink: there only colour counts, on
        # the footprint's rim too (a tile's light letter and dark face can average out to the
        # board's colour in the middle)
        footprints = view.footprints(image)
        faint = np.flatnonzero(self.textured[candidates] & (distance[candidates] <= TILE_COLOUR))
        if faint.size:
            rims = footprints[candidates[faint]]
            empty = np.log1p(self.board_colour[0, candidates[faint], None]) + light
            moved = (np.abs(np.log1p(rims) - empty).max(axis=2) > TILE_COLOUR).mean(axis=1)
            for k in faint[moved <= MAX_ALIEN_SHARE]:
                inks[k] = None
        found = np.array([k for k, ink in enumerate(inks) if ink is not None], np.intp)
        # far from the board's colour but no letter: a hand, or a neighbour's stack leaning over
        changed = candidates[np.setdiff1d(np.arange(len(candidates)), found)]
        changed = changed[distance[changed] > SURE_TILE_COLOUR]
        for i in changed:
            reads[i] = SquareRead(0, "", 0.0)
        if found.size == 0:
            return reads, len(changed), layout
        squares = candidates[found]
        crops = crops[found]
        found_inks = [inks[k] for k in found]
        centres = seen[found]
        predicted = _face_centres(layout.lean, squares)
        profile = _silhouettes(
            image, view.cells, layout.lean, squares, self.board_colour[0, squares]
        )
        stray = np.linalg.norm(predicted - centres[None], axis=2).min(axis=0) > STRAY_MISS
        for k in np.flatnonzero(stray):
            # the letter found lies on no face of this stack: a taller neighbour's face leaning
            # over the crop; look at every height for a letter where that height puts it
            options = np.arange(1, LEVELS)
            faces = layout.faces(gray, options, np.full(MAX_HEIGHT, squares[k]))
            for level, face in zip(options, faces, strict=True):
                ink = find_ink(face)
                if ink is None:
                    continue
                at = layout.ink_on_board(
                    _fine_box(face, ink)[None], np.array([level]), squares[k : k + 1]
                )[0]
                if np.linalg.norm(at - predicted[level - 1, k]) < STRAY_MISS:
                    found_inks[k], crops[k], centres[k] = ink, level, at
                    break
        for _ in range(RECROPS + 1):
            levels, height_conf, miss = _choose_levels(scores[found], centres, predicted, profile)
            # a crop at the wrong height can cut the letter (a T's bar): look again where the
            # letter's position says the face is
            moved = np.flatnonzero(levels != crops)
            if moved.size == 0:
                break
            faces = layout.faces(gray, levels[moved], squares[moved])
            for k, face in zip(moved, faces, strict=True):
                ink = find_ink(face)
                if ink is not None:
                    found_inks[k], crops[k] = ink, levels[k]
                    centres[k] = layout.ink_on_board(
                        _fine_box(face, ink)[None], crops[k : k + 1], squares[k : k + 1]
                    )[0]
        guesses = self.letters.classify(np.stack([fit_glyph(ink[0]) for ink in found_inks]))
        colours = layout.face_colour(image, levels, squares)
        hidden = _hidden_share(layout.lean, squares, levels) > 0
        floor = _bare_floor(footprints[squares], self.board_colour[0, squares], light, colours)
        common, foreign = _face_colour(_chroma(colours))
        odd = len(changed)
        if common is not None and changed.size:
            # the square itself may show bare board (only its raised planes changed), or, where
            # a neighbour's stack leans over it, the board (maybe in the stack's shadow) and
            # the set's colour; a hand or a die shows something else
            seen_there = samples[0, changed]
            empty = self.board_colour[0, changed, None]
            chroma = _chroma(seen_there)
            quiet = np.abs(change[0]).max(axis=1) <= TILE_COLOUR
            quiet[squares] = False  # a tile of the board's colour is not its light
            near = _local_light(change[0] + light, quiet, light, changed)[:, None]
            change = np.log1p(seen_there) - np.log1p(empty) - near
            bright = np.abs(change).max(axis=2)
            shaded = np.abs(chroma - _chroma(empty)).max(axis=2) <= FOREIGN_CHROMA
            # the square itself shows the bare board, maybe in a shadow: its raised planes
            # changed, not it (a hand may share the board's hue, but seldom darkens it)
            dark = shaded & (change.mean(axis=2) < -TILE_COLOUR)
            bare = (~((bright <= TILE_COLOUR) | dark)).mean(axis=1) <= MAX_ALIEN_SHARE
            tile = np.abs(chroma - common).max(axis=2) <= FOREIGN_CHROMA
            explained = (bright <= TILE_COLOUR) | shaded | tile
            leaning = bare | (
                ((~explained).mean(axis=1) <= MAX_ALIEN_SHARE)
                & _overhung(changed, squares[~foreign], levels[~foreign], layout.lean)
            )
            odd -= int(leaning.sum())
            for i in changed[leaning]:
                reads[i] = SquareRead(0, "", OVERHUNG_CONFIDENCE)
        for i, level, sure, off, guess, alien, bare, behind in zip(
            squares, levels, height_conf, miss, guesses, foreign, floor, hidden, strict=True
        ):
            if off > MAX_MISS or alien:  # a neighbour's letter or side, or the rim, seen there
                continue
            if bare:  # a neighbour's face seen where a tall stack's would be
                reads[i] = SquareRead(0, "", FLOOR_CONFIDENCE)
                continue
            # the square's confidence is its letter's: heights are checked against the game's
            # history (UpwordsMatch.reconcile), so an unsure height must not stop the referee
            del sure
            sure_letter = min(guess.confidence, HIDDEN_CONFIDENCE) if behind else guess.confidence
            reads[i] = SquareRead(int(level), guess.letter, float(sure_letter))
        return reads, odd, layout

    def _reading(self, reads: list[SquareRead], odd: int) -> Reading:
        squares = tuple((sq.height, sq.letter) if sq.height else EMPTY for sq in reads)
        confidence = np.array([sq.confidence for sq in reads], np.float64)
        note = f"{odd} square(s) hidden" if odd else ""
        return Reading(state=Board(squares), confidence=confidence, covered=odd > 0, note=note)
