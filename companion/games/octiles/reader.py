"""Rectified board image -> Octiles position (tiles, runners, pocket), learned from one start image.

Everything is read in the rectified board image (one cell = one pitch).  The start picture, in
which all 17 tiles lie face down, the stops are bare and the spare tile lies face up in the
pocket, teaches what no frame can show again: the back print (the median of the 17 backs, at
every sample point), each runner paint's hue (from the runners on their circles), the bare
stops, and first face and ink colours (of the pocket tile's two colour clusters, the one seen at
the tile's corners, where no chord comes, is the face).  Light changes between frames are
taken out by a per-channel gain field fitted through five patches of bare board near the
corners of the playing area, corrected at each space by the bare stops beside it (a soft
shadow, a lamp's pool); the face and ink colours and the path width each frame is read with
are the ones its clearly face-up tiles show, so editions, inks and lamps the reader never saw
are read in their own colours.

Tiles are identified by template matching: a space's pixels are turned into "pathness" (0 at
the face colour, 1 at the ink) and correlated with the picture of every distinct look of the
18 tiles in their 8 rotations, the best plane through the tile taken out first (a glint or a
shadow's edge); correlation ignores contrast and offset.  The few best looks are then told
apart on the samples where they differ.  Face up or down is decided by two colour models of
the pixels: a face-up tile (every pixel on the line from face to ink) and the learned back
print; clear chords say face up unless the back print fits better (a printed back can look
like chords).  Pixels neither model explains and no chords, or face colours with no chords
and no ink, are something over the board: the reading is marked covered.

Runners (pegs, pawns, cones, counters) stand up, so a tilted camera sees them lean away from
the nadir over the neighbouring tiles.  The ground under a runner can only be seen through it,
so runners are read at the base: a stop holds one when its colour is far from the bare stop's
(as the frame's bare stops, most of them, show it), a circle when its centre turned to
saturated paint, and the nearest learned hue says which colour.  On a board of no colour the
colour map cannot restore a washed-out frame's saturation; the tiles' face and ink then say
how washed out it is, and the pegs are looked for again on that scale.  The camera,
recovered from the calibration homography, says where each runner's column falls in the
rectified image: the column of a standard peg is left out of the tiles, and further up the
column of a taller one, the pixels of its paint.  A space mostly hidden
that way is read from what shows, with no confidence (the referee asks about it if it
changed), as runners stay put and must not hold the board "covered".  "Runners" of no paint's
hue or saturation are a hand.

There is no teaching photo (``calibrate --teach``) for Octiles: templates learned from one photo
of the 18 tiles face up (each tile's print aligned to its drawing, turned into all its looks)
were tried and read worse than the drawn ones at the width each frame shows: over 4 frames
in each of 9 looks, 1 space of 612 read wrong with the drawn templates and 28 with the taught
ones; over 4 looks (kadon, travel, ivory, felt), 4 of 272 against 10 to 19 in every variant
tried (alignment, blur, a clipped or a half-drawn print).  One photo's glare, grain and noise
are in every template made from it.  The start image and each frame's own colours and width
already carry what such a photo adds on the editions we can render.
"""

from __future__ import annotations

import logging
from functools import cache
from typing import Any

import cv2
import numpy as np
from numpy.typing import ArrayLike

from companion.errors import ProfileError, VisionError
from companion.games.base import JSON, BoardGeometry
from companion.games.octiles import colour_map
from companion.games.octiles.draw import (
    HALF,
    PEG_HEIGHT,
    PEG_RADIUS,
    POCKET_RADIUS,
    TILE_APOTHEM,
    WELL_APOTHEM,
    chord_curve,
)
from companion.games.octiles.model import COLOURS, BoardGraph, Position, load_board
from companion.games.octiles.tiles import ROTATIONS, TILES, chords
from companion.games.reading import Reader, Reading
from companion.vision.camera import camera_centre as pose_centre

log = logging.getLogger(__name__)

VERSION = 4
"""Version 4 adds the reference points of the bare board (``colour_map``), version 3 the back
print and the runner hues learned from the start image.  A version 3 profile reads each frame
in its own colours (no map back to calibration's); a version 2 profile also with plain backs
of its learned colours and the standard hues."""
SAMPLE_APOTHEM = 0.42
"""Tile pixels are sampled inside this apothem (pitches), clear of the well's rim."""
BASE_RADIUS = 0.07
"""Radius of the disc read at a peg's base (pitches): inside the peg and inside a circle's
pale centre."""
PATCHES = ((-2.75, 2.75), (2.75, 2.75), (2.85, -1.5), (-1.5, -2.8), (-2.75, -2.75))
"""Bare board used for the light gain field (pitches): near the corners, a pitch clear of
circles, pocket and any leaning peg."""
CORNER_REACH = 0.43
"""Distance from a tile's centre to the face-coloured points by its corners (pitches)."""
PATCH_RADIUS = 0.15
PEG_SHADOW = 1.25
"""Left-out disc around a peg's column, as a share of the peg's radius (blur, wobble)."""
TEMPLATE_WIDTHS = (0.05, 0.08, 0.12, 0.16)
TEMPLATE_BLUR = 0.03
"""Template path widths and blur, in pitches: the middle one is the tuned editions' (0.07 to
0.09); the others span thinner and wider prints (4 to 12 mm on a 7.6 cm pitch).  Each frame
is read with the width whose share of ink its clearly face-up tiles show (the width that
correlates best is no guide: wide templates correlate better with everything)."""
MIDDLE = 1
"""Index of the tuned editions' width in ``TEMPLATE_WIDTHS``: the first reading's."""
TWO_ENDS = 0.7
INK_SHARE = (0.1, 0.6)
"""A tile with weak chords is still a tile, not a hand, when this share of its pixels lie near
the face or the ink (the outer quarters of the way between them) and its ink covers a share
in this range (a chord set inks 15 to 45 % of a tile at the widths read)."""
CANDIDATES = 3
CENTRE = 0.12
MIN_DIFFER = 8
"""The best ``CANDIDATES`` looks by correlation are told apart on the samples where their
templates differ, at least ``CENTRE`` (pitches, about one path's width) from the tile's centre,
when there are at least ``MIN_DIFFER`` of them.  Where diameters cross at the centre, an
edition's over-and-under gaps (and the outlines of the path passing over) leave ink out that
the templates, drawn with plain overlaps, put in: tile 1, four diameters, was read as tile 2,
two diameters and two chords passing by the centre (15 of the 22 spaces wrong in 200 frames
of the unseen looks; with the centre left out 12 of 18.  0.15 gave 15 wrong spaces there but
29 against 24 on 12 drifting games, 0.2 gave 50: further out the looks' own differences are
left out too)."""
TALL = 1.2
"""Tallest runner looked for (pitches): paint of a runner's colour this far up its leaning
column is left out of the tiles, whatever the edition's runners are."""
EMPTY_SCORE = 0.3
"""A stop whose colour is further than this (share of its bare colour) from bare, or any place
whose colour is this much more saturated than bare, holds a peg."""
DARK = 48.0
"""Places darker than this (8-bit, brightest channel) are read as this bright: peg paint is
brighter even washed out, and a dark place's few levels of noise have no hue."""
PALE = 0.5
PALE_OWN = 0.18
PEG_OWN = 0.26
OWN_SHARE = 0.5
"""A circle's centre holds a peg when it is more saturated than ``PALE`` through the colour
map (pale paint, even after light gain) and than ``PALE_OWN`` in the frame's own colours (a
dark centre the map, fitted on the board's lighter colours, throws green is grey there), or
whatever the map says, when in the frame's own colours it is more saturated than ``PEG_OWN``
and than ``OWN_SHARE`` times the camera's washout as the board's colours show it (never on a
grey board, which shows none: ebony's bare circles show 0.28 to 0.31, a whole board of ghost
pegs at a fixed 0.26).  (The map can wash a peg's paint out further than the camera did; peg
paint, 0.55 to 0.79 at calibration, keeps 0.26 at the strongest washout seen, 0.45.  A bare
centre's print is paler, but a tan one like walnut's shows 0.27 in a frame that has not
washed out at all.)"""
HUES = {"red": 0.0, "yellow": 27.0, "green": 60.0, "blue": 112.0}
"""OpenCV hue (0..180) of the four standard runner paints: where the start image shows no
runner of a colour (and in version 2 profiles) the reader takes these."""
STRANGE = 0.4
"""A space showing no clear chords whose pixels miss both a face-up tile and the back print by
more than this (mean distance, a share of the face-to-ink contrast) is covered by something
else.  (Clear chords are a tile in view, however low its ink's contrast to its face.)"""
MIN_CONTRAST = 20.0
"""Face-to-ink contrast taken at least, in 8-bit levels (JPEG noise is a few levels)."""
LIGHT_REACH = 0.8
"""Stops within this of a space's centre (pitches) are its light probes: the four touching it
lie 0.71 away, the next ones 1.58."""
HUE_TOLERANCE = 10.0
"""A peg's hue lies within this of its paint's (OpenCV hue units); further off is not a peg."""
PEG_SATURATION = 0.4
"""Peg paint is at least this saturated in the frame's own colours, even in a peg's shaded
base (``DARK`` and brighter), times the frame's washout (``_odd``)."""
PEG_PAINT = 0.65
MIN_PEGS = 4
PEGS_AGREE = 0.7
AGREE_PEGS = 2
MIN_PAINT = 0.15
"""Peg paint's median saturation in a frame that has not washed out (the looks' pegs at
calibration show 0.55 to 0.79); a frame's pegs, when it shows at least ``MIN_PEGS`` on
stops, tell its washout by their own (``_pegs_washout``).  With ``AGREE_PEGS`` runners or
more, a peg is at least ``PEGS_AGREE`` times their median saturation (a washout nothing else
shows: the three washed-out pegs of an ivory game, 0.26 to 0.35, were each called a hand),
but never less than ``MIN_PAINT`` (a pale sleeve over five stops, 0.06 to 0.08, set the
median itself; paint washed out to 0.45 keeps 0.25).  On 12 drifting games in the unseen
looks, frames called covered with nothing over the board: 46 of 96 before pegs told the
washout, 37 with it; 7 since the paint is read in the frame's own colours and the backs fade
with the ink (``_tiles``), 5 with two runners agreeing; every arm caught (48 of 48)."""
POCKET_SCORE = 0.4
"""Below this best correlation the pocket holds no tile."""
COVERED_SCORE = 0.45
"""A tile the colours say is face up but correlating less than this with every look is hidden
(a hand over it, whose skin can lie between a face and its ink)."""
CHORDS = 0.55
"""A space correlating this well with a look shows chords: face up, whatever its colours.
(On the tuned looks backs reach 0.46 with a printed star, faces under leaning pegs 0.64.)"""
VOTE = 0.1
"""A colour vote (difference of the two models' misfits) this clear or more is sure."""
MIN_SEEN_INK = 20
"""Ink samples on clearly face-up tiles needed to take the frame's own face and ink colours."""
SEEN_AT_ALL = 0.05
SEEN_ENOUGH = 0.3
"""Shares of a space's samples left visible by pegs: below the first nothing is read, below
the second the reading is a guess with no confidence (the referee asks if it changed)."""
WASHOUT_CHROMA = 0.15
MIN_WASHOUT = 0.35
"""A frame's colours are washed out by the smaller of two ratios of saturation, frame to
calibration: its bare board's (the reference points of the colour map, in the frame's own
colours) and its tiles' ink (as the colour map takes it; against the pocket tile's at
calibration), each where calibration's has colour at all (saturation above the first; a grey
board or black ink tells nothing and counts as 1); at least the second (drifting webcams
washed colours out to 0.45 of their saturation, a lifted black level takes a bit more)."""
LIGHT_LO = 0.8
LIGHT_HI = 1.6
"""A back is matched to the back print in the light that fits it best, within these times the
light its space should have: a shade the stops beside it did not catch, or a glossy back's
sheen (ivory backs under a lamp showed 1.4 to 1.5 times their print, the bare stops beside
them 1.03; with at most 1.25, 7 of 200 frames of the unseen looks were called covered, 3
since).  A hand keeps its own hue in any light."""
MIN_BACKS = 2
BACKS_AGREE = 0.15
"""Spaces showing no chords whose colours agree (log ratio to the back print within the
second, per channel: a back's own shade varies by about 0.1 across the board) needed to take
the frame's own back colour (one alone could be a hand)."""
STOPS_AGREE = 0.1
MIN_BARE_STOPS = 6
"""Bare stops agree within the first (log ratio of their colour to calibration's, per
channel: a soft shadow or a lamp's pool varies it by less); a group of at least the second
(more than one player's five runners) is taken for the bare ones."""
CLEAR_OF_WELL = 0.1
"""Reference points of the colour map lie this far (pitches) outside the wells and the
pocket: a tile lying off its well's centre (up to 0.04) or a thick tile's side (the thickest
edition's 0.07 seen at 35 degrees) reaches no nearer."""


# --- geometry -----------------------------------------------------------------------------------
def _to_px(geometry: BoardGeometry, points: ArrayLike) -> np.ndarray:
    """Board pitches (y up) -> rectified pixel coordinates (centres at integers)."""
    p = np.atleast_2d(np.asarray(points, np.float64))
    cell = geometry.cell_px
    x = (p[:, 0] + HALF + geometry.margin) * cell - 0.5
    y = (HALF - p[:, 1] + geometry.margin) * cell - 0.5
    return np.column_stack([x, y])


def _disc_offsets(radius_px: float, step: float = 1.0) -> np.ndarray:
    r = int(np.ceil(radius_px))
    g = np.arange(-r, r + 1, step)
    xs, ys = np.meshgrid(g, g)
    keep = np.hypot(xs, ys) <= radius_px
    return np.column_stack([xs[keep], ys[keep]])


def _octagon_offsets(apothem: float, step: float) -> np.ndarray:
    """Sample points (pitches, y up) inside an octagon centred on the origin."""
    g = np.arange(-apothem, apothem + 1e-9, step)
    xs, ys = np.meshgrid(g, g)
    pts = np.column_stack([xs.ravel(), ys.ravel()])
    inside = np.ones(len(pts), bool)
    for e in range(8):
        a = np.deg2rad(45.0 * e)
        inside &= pts @ np.array([np.sin(a), np.cos(a)]) <= apothem
    return pts[inside]


@cache
def _looks() -> tuple[tuple[tuple[int, int], ...], tuple[frozenset[frozenset[int]], ...]]:
    """One (tile, rotation) per distinct look of the 18 tiles, and its chord set."""
    faces: list[tuple[int, int]] = []
    seen: list[frozenset[frozenset[int]]] = []
    for tile in TILES:
        for rotation in ROTATIONS:
            look = chords(tile, rotation)
            if look not in seen:
                seen.append(look)
                faces.append((tile, rotation))
    return tuple(faces), tuple(seen)


@cache
def _templates(step: float, width: float) -> np.ndarray:
    """Pathness of every distinct look at the tile sample points (looks x samples), for paths
    ``width`` pitches wide.

    Crossings are drawn as plain overlaps: which chord passes over differs between editions,
    and the gap in the lower one is too small to matter to a correlation.  (Leaving crossings
    out instead favours the looks with most crossings: fewer samples left to disagree.)
    """
    res = 96
    scale = TILE_APOTHEM / WELL_APOTHEM
    offsets = _octagon_offsets(SAMPLE_APOTHEM, step)
    _, looks = _looks()
    px = (offsets * [1, -1] + 0.5) * res
    mx, my = px[:, 0:1].astype(np.float32), px[:, 1:2].astype(np.float32)
    paths = np.zeros((len(looks), len(offsets)), np.float32)
    for k, look in enumerate(looks):
        canvas = np.zeros((res, res), np.float32)
        for a, b in look:
            curve = chord_curve(min(a, b), max(a, b)) * scale * [1, -1] + 0.5
            pts = np.round(curve * res * 16).astype(np.int32)
            cv2.polylines(canvas, [pts], False, 1.0, round(width * res), cv2.LINE_AA, 4)
        blurred = cv2.GaussianBlur(canvas, (0, 0), TEMPLATE_BLUR * res)
        paths[k] = cv2.remap(blurred, mx, my, cv2.INTER_LINEAR)[:, 0]
    return paths


def _correlations(templates: np.ndarray, p: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """Correlation of the pathness ``p`` at sample points ``xy`` with every template (rows),
    both with their best plane in x and y taken out: a glint or a shadow's edge across a tile
    tilts its pathness, which the chords' pattern does not explain."""
    return _Plane(templates, xy).correlations(p)


class _Plane:
    """Templates at some sample points with the plane (1, x, y) projected out, ready to
    correlate; built once per width for whole tiles, per tile where pegs hide some samples."""

    def __init__(self, templates: np.ndarray, xy: np.ndarray) -> None:
        self.templates = templates
        self.q = np.linalg.qr(np.column_stack([np.ones(len(xy)), xy]))[0]
        along = templates @ self.q
        square = np.einsum("ij,ij->i", templates, templates) - np.einsum("ij,ij->i", along, along)
        self.norms = np.sqrt(np.maximum(square, 0.0))

    def correlations(self, p: np.ndarray) -> np.ndarray:
        """Correlations with pathness ``p`` (samples, or samples x tiles: then looks x tiles)."""
        rest = p - self.q @ (self.q.T @ p)
        size = np.maximum(np.linalg.norm(rest, axis=0), 1e-6)
        scale = np.multiply.outer(self.norms, size) if p.ndim == 2 else self.norms * size
        return np.asarray((self.templates @ rest) / np.maximum(scale, 1e-9))


# --- camera from the calibration homography -------------------------------------------------
def camera_centre(
    homography: np.ndarray, image_size: tuple[int, int], geometry: BoardGeometry
) -> np.ndarray:
    """The camera's position (pitches, y up; z = height above the board) from the homography
    rectified pixels -> frame pixels, taking square pixels and the principal point at the frame
    centre; the focal length comes from the homography unless the view is square-on."""
    cell = geometry.cell_px
    # board pitches (y up) -> rectified pixels
    to_rect = np.array(
        [
            [cell, 0.0, (HALF + geometry.margin) * cell - 0.5],
            [0.0, -cell, (HALF + geometry.margin) * cell - 0.5],
            [0.0, 0.0, 1.0],
        ]
    )
    return pose_centre(np.asarray(homography, np.float64) @ to_rect, image_size)


def lean(centre: np.ndarray, base: ArrayLike, height: float) -> np.ndarray:
    """Where the point ``height`` pitches above ``base`` appears on the board plane."""
    s = centre[2] / max(centre[2] - height, 1e-6)
    return centre[:2] + (np.asarray(base) - centre[:2]) * s


# --- the reader -------------------------------------------------------------------------------
class TileReader(Reader[Position]):
    """Reads the 17 spaces, the runners and the pocket; one instance per calibrated view."""

    def __init__(
        self,
        geometry: BoardGeometry,
        camera: np.ndarray,
        patches: np.ndarray,
        backs: np.ndarray,
        face: np.ndarray,
        path: np.ndarray,
        bare: np.ndarray,
        back_print: np.ndarray | None = None,
        hues: np.ndarray | None = None,
        board: BoardGraph | None = None,
        references: np.ndarray | None = None,
    ) -> None:
        _check_geometry(geometry)
        self.geometry = geometry
        self.board = board or load_board()
        self.camera = np.asarray(camera, np.float64).reshape(3)
        self.patches = np.asarray(patches, np.float32).reshape(len(PATCHES), 3)
        self.backs = np.asarray(backs, np.float32).reshape(len(self.board.spaces), 3)
        self.face = np.asarray(face, np.float32).reshape(3)
        self.path = np.asarray(path, np.float32).reshape(3)
        self.bare = np.asarray(bare, np.float32).reshape(len(self.board.places()), 3)
        samples = len(_octagon_offsets(SAMPLE_APOTHEM, 2.0 / geometry.cell_px))
        if back_print is None:  # a version 2 profile: plain backs of the learned colour
            back_print = np.tile(np.median(self.backs, axis=0), (samples, 1))
        self.back_print = np.asarray(back_print, np.float32).reshape(samples, 3)
        self.hues = np.asarray(list(HUES.values()) if hues is None else hues, np.float32)
        self.hues = self.hues.reshape(len(HUES))
        self.references = np.zeros((0, 4)) if references is None else np.asarray(references)
        """Per reference point of the bare board: its flat index and calibration's colour
        (none in a version 3 profile)."""
        self.references = self.references.astype(np.float64).reshape(-1, 4)
        self._ref_idx = self.references[:, 0].astype(np.int64)
        self._ref_colours = self.references[:, 1:].astype(np.float32)
        self._grey_board = (
            len(self._ref_colours) > 0
            and float(np.median(_saturation(self._ref_colours))) < WASHOUT_CHROMA
        )
        self._prepare()

    def _prepare(self) -> None:
        geo, board = self.geometry, self.board
        width, height = geo.size
        cell = geo.cell_px
        self._step = 2.0 / cell
        tile_pts = _octagon_offsets(SAMPLE_APOTHEM, self._step)
        centres = [board.coords[s] for s in board.spaces] + [board.pocket]
        self._tile_pts = tile_pts
        self._tile_px = np.stack([_to_px(geo, tile_pts + c) for c in centres])
        self._tile_idx = _flat_index(self._tile_px, width, height)
        self._templates = np.stack([_templates(self._step, w) for w in TEMPLATE_WIDTHS])
        self._whole = [_Plane(t, tile_pts) for t in self._templates]
        tiles = np.array([tile for tile, _ in _looks()[0]])
        self._rivals = tiles[:, None] != tiles[None, :]
        base = _disc_offsets(BASE_RADIUS * cell)
        places = board.places()
        self._place_index = {place: i for i, place in enumerate(places)}
        self._place_px = _to_px(geo, [board.coords[p] for p in places])
        self._place_idx = _flat_index(self._place_px[:, None, :] + base[None], width, height)
        patch = _disc_offsets(PATCH_RADIUS * cell, 2.0)
        self._patch_idx = _flat_index(
            _to_px(geo, np.array(PATCHES))[:, None, :] + patch[None], width, height
        )
        # the rectified pixels each peg's column covers, per place, and where a tall one's may
        self._peg_outlines = [self._peg_outline(board.coords[p], PEG_HEIGHT) for p in places]
        self._tall_outlines = [self._peg_outline(board.coords[p], TALL) for p in places]
        # weights of the light patches at every tile sample and place
        self._tile_w = _bilinear(geo, self._tile_px)
        # the pixels a reading looks at: only these are mapped to calibration's colours
        self._used = np.unique(
            np.concatenate(
                [self._tile_idx.ravel(), self._place_idx.ravel(), self._patch_idx.ravel()]
            )
        )
        self._place_w = _bilinear(geo, self._place_px[:, None, :])
        # the stops that touch each space: light probes beside it when bare
        stops = np.array([board.coords[s] for s in board.stops])
        self._probes = [
            np.nonzero(np.linalg.norm(stops - board.coords[s], axis=1) < LIGHT_REACH)[0]
            for s in board.spaces
        ]
        # the back print at each space, in the light that space had in the start image
        light = self.backs.mean(axis=1) / max(float(np.median(self.backs.mean(axis=1))), 1.0)
        self._back_models = self.back_print[None] * np.clip(light, 0.8, 1.25)[:, None, None]

    def _peg_outline(self, base: tuple[float, float], height: float) -> np.ndarray:
        """The rectified pixels a peg ``height`` tall standing on ``base`` hides: the outline of
        its column, the hull of its base disc and its top disc as the camera sees them on the
        board plane (the top leans away from the nadir and looks larger, being nearer)."""
        radius = PEG_SHADOW * PEG_RADIUS
        top = lean(self.camera, base, height)
        grow = self.camera[2] / max(self.camera[2] - height, 1e-6)
        a = np.linspace(0.0, 2 * np.pi, 24, endpoint=False)
        ring = np.column_stack([np.cos(a), np.sin(a)]) * radius
        points = np.concatenate([ring + base, ring * grow + top])
        hull = cv2.convexHull(np.round(_to_px(self.geometry, points)).astype(np.int32))
        return hull.reshape(-1, 2)

    # --- calibration --------------------------------------------------------------------------
    @classmethod
    def learn(
        cls,
        board_img: np.ndarray,
        geometry: BoardGeometry,
        *,
        homography: np.ndarray,
        image_size: tuple[int, int],
    ) -> TileReader:
        """Learn from the start image: 17 tiles face down, spare tile face up in the pocket,
        stops bare, runners on any circles (their paint's hue is learned from them)."""
        _check_image(board_img, geometry)
        board = load_board()
        camera = camera_centre(homography, image_size, geometry)
        probe = cls(
            geometry, camera, np.ones((len(PATCHES), 3)), np.zeros((17, 3)), np.zeros(3),
            np.zeros(3), np.zeros((len(board.places()), 3)), board=board,
        )  # fmt: skip
        flat = board_img.reshape(-1, 3).astype(np.float32)
        patches = flat[probe._patch_idx].mean(axis=1)
        tiles = flat[probe._tile_idx]
        backs = np.median(tiles[:17], axis=1)
        # the print every back shares (the median hides the odd tile a set-up turns face up)
        back_print = np.median(tiles[:17], axis=0)
        corners = _octagon_corners(geometry, board.pocket)
        face, path = _two_colours(tiles[17], np.median(flat[corners], axis=0))
        # a tile in the pocket shows two colours and chords between them at some width
        span = path - face
        pathness = ((tiles[17] - face) @ span) / max(float(span @ span), 1e-6)
        chords_seen = max(float(whole.correlations(pathness).max()) for whole in probe._whole)
        if np.linalg.norm(span) < MIN_CONTRAST or chords_seen < POCKET_SCORE:
            raise VisionError(
                "the pocket in the start image shows no face-up tile: lay the spare tile face "
                "up in the pocket and calibrate again"
            )
        bare = np.median(flat[probe._place_idx], axis=1)
        circles = bare[len(board.stops) :]
        hues = _learned_hues(circles, [COLOURS[c[1]] for c in board.circles])
        # a circle's centre under a peg is unknown: take a pale grey of the circles' brightness
        circles[:] = circles.mean(axis=1, keepdims=True)
        index = colour_map.reference_points(board_img, probe._bare_board())
        references = np.column_stack([index, colour_map.colours_at(board_img, index)])
        log.info(
            "octiles reader learned: camera at (%.2f, %.2f, %.2f) P, %d colour references",
            *camera,
            len(index),
        )
        return cls(
            geometry, camera, patches, backs, face, path, bare, back_print, hues, board,
            references,
        )  # fmt: skip

    def _bare_board(self) -> np.ndarray:
        """Mask of the rectified image where no tile lies: the board around the wells and
        the pocket.  The runners on their circles in the start image count too: a runner
        stays on its circle for much of a game, and their paints are the only colours of
        other hues than the board's (the map's fit drops the circles a runner has left)."""
        width, height = self.geometry.size
        mask = np.ones((height, width), np.uint8)
        cell = self.geometry.cell_px
        for space in self.board.spaces:
            well = _octagon_offsets(WELL_APOTHEM + CLEAR_OF_WELL, 0.05) + self.board.coords[space]
            hull = cv2.convexHull(np.round(_to_px(self.geometry, well)).astype(np.int32))
            cv2.fillConvexPoly(mask, hull, 0)
        pocket = np.round(_to_px(self.geometry, self.board.pocket)[0]).astype(int)
        cv2.circle(
            mask, tuple(pocket.tolist()), round((POCKET_RADIUS + CLEAR_OF_WELL) * cell), 0, -1
        )
        return mask.astype(bool)

    @classmethod
    def from_json(cls, params: JSON, geometry: BoardGeometry) -> TileReader:
        """Rebuild from ``to_json``; ``ProfileError`` when anything is missing or malformed."""
        board = load_board()
        shapes = {
            "camera": (3,), "patches": (len(PATCHES), 3), "backs": (17, 3), "face": (3,),
            "path": (3,), "bare": (len(board.places()), 3),
        }  # fmt: skip
        samples = len(_octagon_offsets(SAMPLE_APOTHEM, 2.0 / geometry.cell_px))
        try:
            version = params.get("version")
            if version not in (2, 3, VERSION):
                raise ValueError(f"version {version!r}")
            if version >= 3:
                shapes.update({"back_print": (samples, 3), "hues": (len(HUES),)})
            values: dict[str, Any] = {}
            for key, shape in shapes.items():
                arr = np.array(params[key], dtype=np.float64)
                if arr.shape != shape or not np.isfinite(arr).all():
                    raise ValueError(key)
                values[key] = arr
            if version == VERSION:
                values["references"] = _references(params["references"], geometry)
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise ProfileError(
                f"the octiles reader settings in the profile are damaged ({err}): calibrate again"
            ) from None
        return cls(geometry, board=board, **values)

    def to_json(self) -> JSON:
        return {
            "version": VERSION,
            "camera": np.round(self.camera, 4).tolist(),
            "patches": np.round(self.patches, 2).tolist(),
            "backs": np.round(self.backs, 2).tolist(),
            "face": np.round(self.face, 2).tolist(),
            "path": np.round(self.path, 2).tolist(),
            "bare": np.round(self.bare, 2).tolist(),
            "back_print": np.round(self.back_print, 1).tolist(),
            "hues": np.round(self.hues, 2).tolist(),
            "references": [
                [int(i), *np.round(c, 1).tolist()]
                for i, c in zip(self._ref_idx, self._ref_colours, strict=True)
            ],
        }

    # --- reading ------------------------------------------------------------------------------
    def read(self, board_img: np.ndarray) -> Reading:
        """Read a rectified board: runners first (their pegs hide parts of tiles), then tiles.

        Confidence order: the 17 spaces, the 36 places (stops, then circles), the pocket.
        """
        _check_image(board_img, self.geometry)
        flat = board_img.reshape(-1, 3).astype(np.float32)
        # peg paint in the frame's own colours (``_odd``): the colour map, fitted on the
        # board's few hues, can throw a paint of another hue off, and so can the light
        # patches' per-channel gain, which takes a lifted black level for a tint
        paint = np.median(flat[self._place_idx], axis=1)
        washed = 1.0
        told = 0.0  # the camera's washout where the board's colours tell it (not a grey board)
        if len(self._ref_idx):
            seen = colour_map.colours_at(board_img, self._ref_idx)
            mapping = colour_map.fit(seen, self._ref_colours)
            flat[self._used] = colour_map.apply(mapping, flat[self._used])
            washed = _washout(seen, self._ref_colours)
            told = 0.0 if self._grey_board else washed
        patches = flat[self._patch_idx].mean(axis=1)
        gain = patches / np.maximum(self.patches, 1.0)
        bases = self._bases(flat, gain)
        runners, place_conf = self._runners(bases, paint, told=told)
        shade = self._shade(bases, runners)
        faces, tile_conf, pocket, unsure, (face, ink) = self._tiles(
            flat, gain, shade, runners, bases
        )
        # a board of no colour tells the colour map nothing of saturation: what the frame
        # washed out then shows on the tiles' face and ink, and on the pegs the stops show
        # (a pale board's map can leave paint washed out); pegs' paint is as washed out, so
        # the runners are looked for again on that scale
        residual = 1.0
        if self._grey_board:
            residual = min(
                _washout(face[None], self.face[None]), _washout(ink[None], self.path[None])
            )
        residual = min(residual, self._pegs_washout(bases, runners))
        if residual < 1.0:
            again, conf_again = self._runners(bases, paint, residual, told)
            if again != runners:
                runners, place_conf = again, conf_again
                shade = self._shade(bases, runners)
                faces, tile_conf, pocket, unsure, _ = self._tiles(flat, gain, shade, runners, bases)
        washed = min(washed, residual, _washout(ink[None], self.path[None]))
        odd = self._odd(paint, runners, washed)
        spaces = dict(zip(self.board.spaces, faces[:17], strict=True))
        pocket_tile = None if faces[17] is None else faces[17][0]
        state = Position.make(spaces, runners, pocket_tile)
        confidence = np.concatenate([tile_conf[:17], place_conf, [pocket]]).astype(np.float64)
        unsure = unsure + odd
        covered = len(unsure) > 0
        note = f"cannot read {', '.join(unsure)}" if covered else ""
        return Reading(state=state, confidence=confidence, covered=covered, note=note)

    def _bases(self, flat: np.ndarray, gain: np.ndarray) -> np.ndarray:
        """Colour at the base of every place, light taken out by the patches' field."""
        local = np.einsum("pk,kc->pc", self._place_w[:, 0], gain)
        return np.median(flat[self._place_idx], axis=1) / np.maximum(local, 0.05)

    def _runners(
        self,
        colour: np.ndarray,
        paint: np.ndarray,
        washed: float = 1.0,
        told: float = 0.0,
    ) -> tuple[dict[str, str], np.ndarray]:
        """A stop holds a peg when its base colour (``colour``, in calibration's colours) is
        far from the bare stop's, as the frame's bare stops show it (``_bare_stops_gain``);
        a circle when its centre is saturated (pegs are bright paint, a circle's centre is
        pale), through the map and in the frame's own colours (``PALE``).  The paint is the
        one whose hue, as learned from the start image, is nearest to the base's in the
        frame's own colours (``paint``).
        Colours ``washed`` out (a share of their saturation left after the colour map) bring
        a peg that much nearer its bare place, and the scores are scaled back up by it."""
        nstops = len(self.board.stops)
        bare = self.bare.copy()
        bare[:nstops] *= _bare_stops_gain(colour[:nstops] / np.maximum(bare[:nstops], 1.0))
        distance = np.linalg.norm(colour - bare, axis=1) / np.maximum(
            np.linalg.norm(bare, axis=1), 1.0
        )
        saturation = _saturation(colour, DARK)
        lift = saturation - _saturation(bare, DARK)
        # both scores are on the scale of EMPTY_SCORE: circles by how saturated they are
        circles = (saturation - PALE * washed) / (0.4 * washed) + EMPTY_SCORE
        own = _saturation(paint, DARK)
        if told:  # a grey board's bare circles can be as saturated as washed-out paint
            sure = max(PEG_OWN, OWN_SHARE * min(washed, told))
            circles = np.maximum(circles, (own - sure) / 0.2 + EMPTY_SCORE)
        circles = np.minimum(circles, (own - PALE_OWN) / 0.2 + EMPTY_SCORE)
        stops = np.maximum(distance, lift) / washed
        score = np.where(np.arange(len(colour)) < nstops, stops, circles)
        hue = _hue(paint)
        paints = dict(zip(HUES, self.hues.tolist(), strict=True))
        runners: dict[str, str] = {}
        conf = np.clip(np.abs(score - EMPTY_SCORE) / EMPTY_SCORE * 2, 0, 1)
        for i, place in enumerate(self.board.places()):
            if score[i] > EMPTY_SCORE:
                gaps = {name: _hue_gap(hue[i], h) for name, h in paints.items()}
                best = min(gaps, key=gaps.__getitem__)
                runners[place] = best
                second = sorted(gaps.values())[1]
                conf[i] = min(conf[i], float(np.clip((second - gaps[best]) / 20.0, 0, 1)))
        return runners, conf

    def _pegs_washout(self, bases: np.ndarray, runners: dict[str, str]) -> float:
        """How far the pegs found on stops show colours washed out (1: not at all): their
        median saturation over ``PEG_PAINT``, when there are ``MIN_PEGS`` of them.  Stops are
        found by their distance from the bare print, which a washed-out frame keeps; circles
        by their paint's saturation, which it does not."""
        nstops = len(self.board.stops)
        on_stops = [i for i in map(self._place_index.__getitem__, runners) if i < nstops]
        if len(on_stops) < MIN_PEGS:
            return 1.0
        share = float(np.median(_saturation(bases[on_stops]))) / PEG_PAINT
        return float(np.clip(share, MIN_WASHOUT, 1.0))

    def _odd(self, colour: np.ndarray, runners: dict[str, str], washed: float) -> list[str]:
        """The runners that are no peg but a hand: not as saturated as peg paint or not of
        its hues.  Paint counts as saturated down to ``PEG_SATURATION`` times ``washed``, the
        frame's washing out of colours, or with ``AGREE_PEGS`` runners or more down to
        ``PEGS_AGREE`` times their median, whichever is less (a washout the board's colours
        do not show, on a pale board), and never below ``MIN_PAINT``; ``colour`` is each
        base in the frame's own colours."""
        if not runners:
            return []
        paints = dict(zip(HUES, self.hues.tolist(), strict=True))
        index = [self._place_index[place] for place in runners]
        hue, saturation = _hue(colour[index]), _saturation(colour[index], DARK)
        least = PEG_SATURATION * washed
        if len(index) >= AGREE_PEGS:
            least = min(least, PEGS_AGREE * float(np.median(saturation)))
        least = max(least, MIN_PAINT)
        return [
            place
            for place, h, s in zip(runners, hue, saturation, strict=True)
            if _hue_gap(h, paints[runners[place]]) > HUE_TOLERANCE or s < least
        ]

    def _shade(self, bases: np.ndarray, runners: dict[str, str]) -> np.ndarray:
        """Per space, the light the patches' field misses (a soft shadow, a lamp's pool), as
        the bare stops beside it show it: their colour over their colour in the start image
        (median of the space's bare neighbours; 1 where none is bare, and for the pocket)."""
        nstops = len(self.board.stops)
        ratio = bases[:nstops] / np.maximum(self.bare[:nstops], 1.0)
        bare = np.array([stop not in runners for stop in self.board.stops])
        shade = np.ones((18, 3), np.float32)
        for t, near in enumerate(self._probes):
            use = near[bare[near]]
            if len(use):
                shade[t] = np.clip(np.median(ratio[use], axis=0), 0.5, 2.0)
        return shade

    def _hidden(self, runners: dict[str, str], bases: np.ndarray, pix: np.ndarray) -> np.ndarray:
        """Per tile sample, True where a runner hides it: inside its column as a standard peg
        stands, or further up the column of a taller one where the pixel shows its paint."""
        width, height = self.geometry.size
        mask = np.zeros((height, width), np.uint8)
        label = np.zeros((height, width), np.uint8)
        for i, place in enumerate(self.board.places()):
            if place in runners:
                cv2.fillConvexPoly(mask, self._peg_outlines[i], 1)
                cv2.fillConvexPoly(label, self._tall_outlines[i], i + 1)
        hidden = mask.reshape(-1)[self._tile_idx].astype(bool)
        owner = label.reshape(-1)[self._tile_idx].astype(np.int64) - 1
        near = owner >= 0
        if near.any():
            paint = bases[owner[near]]
            hue_gap = np.abs(_hue(pix[near]) - _hue(paint)) % 180.0
            hue_gap = np.minimum(hue_gap, 180.0 - hue_gap)
            alike = (hue_gap < HUE_TOLERANCE) & (_saturation(pix[near]) > 0.5 * _saturation(paint))
            hidden[near] |= alike
        return hidden

    def _tiles(
        self,
        flat: np.ndarray,
        gain: np.ndarray,
        shade: np.ndarray,
        runners: dict[str, str],
        bases: np.ndarray,
    ) -> tuple[
        list[tuple[int, int] | None], np.ndarray, float, list[str], tuple[np.ndarray, np.ndarray]
    ]:
        """Faces of the 17 spaces and the pocket, their confidences, the pocket's, the
        spaces that show neither a back nor any tile (something lies over them), and the
        (face, ink) colours the frame's tiles show.  The back print fades as the ink does:
        the colour map, fitted on the board's colours, leaves both as washed out (without
        that, face-down tiles of a washed-out felt frame were read face up)."""
        local = np.einsum("tsk,kc->tsc", self._tile_w, gain) * shade[:, None, :]
        pix = flat[self._tile_idx] / np.maximum(local, 0.05)
        seen = ~self._hidden(runners, bases, pix)
        readable = [bool(keep.mean() >= SEEN_AT_ALL) for keep in seen]
        # all under pegs: nothing to tell, nothing covered either
        scores = self._scores(pix, seen, readable, MIDDLE, (self.face, self.path))
        colours = self._colours_seen(pix, seen, scores, self._templates[MIDDLE])
        width = self._width_seen(pix, seen, scores, colours)
        # again at the width the prints show, with pathness between the colours this frame shows
        scores = self._scores(pix, seen, readable, width, colours)
        templates = self._templates[width]
        colours = self._colours_seen(pix, seen, scores, templates)
        models = _faded(self._back_models, _washout(colours[1][None], self.path[None]))
        backs = self._backs_seen(pix, seen, scores, models)
        faces: list[tuple[int, int] | None] = []
        conf = np.zeros(18)
        unsure: list[str] = []
        for t, (keep, found) in enumerate(zip(seen, scores, strict=True)):
            if found is None:
                faces.append(None)
                continue
            visible = templates[:, keep]
            face, conf[t], covered = self._face(
                t,
                pix[t][keep],
                keep,
                found,
                visible,
                colours,
                models[t][keep] * backs if t < 17 else None,
            )
            faces.append(face)
            if covered:
                unsure.append(self.board.spaces[t])
            elif keep.mean() < SEEN_ENOUGH:
                conf[t] = 0.0  # mostly under pegs: a guess, to be asked about if it changed
        return faces, conf, conf[17], unsure, colours

    def _scores(
        self,
        pix: np.ndarray,
        seen: np.ndarray,
        readable: list[bool],
        width: int,
        colours: tuple[np.ndarray, np.ndarray],
    ) -> list[np.ndarray | None]:
        """Per tile, the correlation of its visible pixels' pathness (0 at the face colour,
        1 at the ink) with every look at path width ``width`` (an index of
        ``TEMPLATE_WIDTHS``); None for a tile hidden under pegs."""
        face, ink = colours
        span = ink - face
        pathness = ((pix - face) @ span) / max(float(span @ span), 1e-6)
        templates = self._templates[width]
        whole = np.nonzero(seen.all(axis=1))[0]
        together = self._whole[width].correlations(pathness[whole].T)
        scores: list[np.ndarray | None] = [None] * len(seen)
        for k, tile in enumerate(whole.tolist()):
            scores[tile] = together[:, k]
        for t, keep in enumerate(seen):
            if readable[t] and scores[t] is None:
                points = self._tile_pts[keep]
                scores[t] = _correlations(templates[:, keep], pathness[t][keep], points)
        return scores

    def _width_seen(
        self,
        pix: np.ndarray,
        seen: np.ndarray,
        scores: list[np.ndarray | None],
        colours: tuple[np.ndarray, np.ndarray],
    ) -> int:
        """Index of the template width whose share of ink matches what the clearly face-up
        tiles show (pixels nearer the ink than the face), their looks as found at the middle
        width; the middle width when no tile shows its chords clearly."""
        face, ink = colours
        span = ink - face
        inked = ((pix - face) @ span) / max(float(span @ span), 1e-6) > 0.5
        miss = np.zeros(len(TEMPLATE_WIDTHS))
        clear = False
        for t, found in enumerate(scores):
            if found is None or found.max() < CHORDS:
                continue
            clear = True
            look = int(np.argmax(found))
            share = float(inked[t][seen[t]].mean())
            for w, templates in enumerate(self._templates):
                drawn = templates[look][seen[t]] > 0.5 * float(templates[look].max())
                miss[w] += abs(share - float(drawn.mean()))
        return int(np.argmin(miss)) if clear else MIDDLE

    def _colours_seen(
        self,
        pix: np.ndarray,
        seen: np.ndarray,
        scores: list[np.ndarray | None],
        templates: np.ndarray,
    ) -> tuple[np.ndarray, np.ndarray]:
        """(face, ink) as this frame shows them on the tiles whose chords show clearly (where
        their best look has face or ink), else as learned: a shadow on the start image or a
        face clipped bright in it makes the learned face off, and a plain back would then
        look more like a face than like itself."""
        face, ink = [], []
        peak = float(templates.max())
        for t, found in enumerate(scores):
            if found is not None and found.max() >= CHORDS:
                template = templates[int(np.argmax(found))]
                face.append(pix[t][seen[t] & (template < 0.1 * peak)])
                ink.append(pix[t][seen[t] & (template > 0.8 * peak)])
        if sum(map(len, ink)) < MIN_SEEN_INK:
            return self.face, self.path
        return np.median(np.concatenate(face), axis=0), np.median(np.concatenate(ink), axis=0)

    def _backs_seen(
        self,
        pix: np.ndarray,
        seen: np.ndarray,
        scores: list[np.ndarray | None],
        models: np.ndarray,
    ) -> np.ndarray:
        """Per channel, this frame's backs over the back print's colours ``models`` (the
        start image's, faded as this frame's ink).  The colour map fitted on the bare board
        is right near the board's colours; a back of another hue comes out off where the
        camera washes colours out or clips them.  Each space that shows no clear chords
        (correlating less than ``CHORDS`` with every look: felt backs reach 0.52 to 0.56,
        over ``COVERED_SCORE``) gives a ratio; the backs are the ratios within
        ``BACKS_AGREE`` of the one nearest 1 (the map's own guess), so that a hand over a few
        spaces stays apart; their median, when there are ``MIN_BACKS`` of them, else 1."""
        ratios = np.array(
            [
                np.median(pix[t][seen[t]], axis=0)
                / np.maximum(np.median(models[t][seen[t]], axis=0), 1.0)
                for t, found in enumerate(scores[:17])
                if found is not None and found.max() < CHORDS
            ]
        ).reshape(-1, 3)
        logs = np.log(np.maximum(ratios, 1e-3))
        if len(logs) == 0:
            return np.ones(3, np.float32)
        nearest = logs[np.argmin(np.abs(logs).max(axis=1))]
        agree = ratios[np.abs(logs - nearest).max(axis=1) < BACKS_AGREE]
        if len(agree) < MIN_BACKS:
            return np.ones(3, np.float32)
        return np.asarray(np.median(agree, axis=0), np.float32)

    def _face(
        self,
        t: int,
        pix: np.ndarray,
        keep: np.ndarray,
        scores: np.ndarray,
        templates: np.ndarray,
        colours: tuple[np.ndarray, np.ndarray],
        back: np.ndarray | None,
    ) -> tuple[tuple[int, int] | None, float, bool]:
        """(face, confidence, covered) of space ``t`` (17: the pocket) from its visible pixels
        ``pix`` (``keep`` says which samples they are), their correlation with every look, the
        looks' templates at those samples, the frame's (face, ink) colours and the back print
        at those samples as this frame would show it (washed out as its ink, times the
        backs' gain, ``_backs_seen``; None for the pocket).

        Two models of the pixels compete: a face-up tile (every pixel on the line from the
        frame's face colour to its ink) and the back print learned from the start image (in
        the space's own light).  Chords clear enough say face up unless the back print fits
        better (a printed back can look like a tile's chords); weak chords go with the better
        model; pixels neither model explains are something over the tile.
        """
        looks, _ = _looks()
        face, ink = colours
        span = ink - face
        pathness = ((pix - face) @ span) / max(float(span @ span), 1e-6)
        top = _closest(pathness, templates, scores, self._tile_pts[keep])
        best = float(scores[top])
        if t == 17 and best < POCKET_SCORE:
            return None, float(np.clip((POCKET_SCORE - best) / 0.2, 0, 1)), False
        # the runner-up among other looks (the pocket: other tiles, its turn is no matter)
        rivals = self._rivals[top] if t == 17 else np.arange(len(looks)) != top
        second = float(scores[rivals].max())
        up = float(np.clip((best - second) / 0.1, 0, 1) * np.clip(best / 0.4, 0, 1))
        if back is None:  # the pocket: no back to tell
            return looks[top], up, False
        scale = max(float(np.linalg.norm(ink - face)), MIN_CONTRAST)
        miss_up = _misfit(_off_line(pix, face, ink), scale)
        miss_back = _misfit(_off_print(pix, back), scale)
        if best < CHORDS and min(miss_up, miss_back) > STRANGE:
            return None, 0.0, True  # no chords show, and neither colour model fits
        vote = miss_back - miss_up  # > 0: a face-up tile explains the pixels better
        if best >= CHORDS and vote > 0:
            return looks[top], up, False
        if vote < VOTE:
            plain = np.clip((CHORDS - best) / 0.2, 0, 1) if vote > 0 else 1.0
            return None, float(min(np.clip(abs(vote) / VOTE, 0, 1), plain)), False
        if best >= COVERED_SCORE:
            return looks[top], up, False
        # weak chords: a tile whose print barely shows still has face and ink pixels; a hand
        # (skin can lie between a face and its ink) has mostly neither
        ends = float(((pathness < 0.25) | (pathness > 0.75)).mean())
        ink_share = float((pathness > 0.5).mean())
        if ends >= TWO_ENDS and INK_SHARE[0] <= ink_share <= INK_SHARE[1]:
            return looks[top], 0.0, False  # a guess: the referee asks about it if it changed
        return looks[top], 0.0, True


def _closest(
    pathness: np.ndarray, templates: np.ndarray, scores: np.ndarray, pts: np.ndarray
) -> int:
    """The look among the best few by correlation whose template fits ``pathness`` best
    where those looks differ: correlation over the whole tile ranks looks that share most of
    their chords close together (wide paths blur what tells them apart), and least squares
    on the samples that differ (``pts``: their offsets from the tile's centre) decides
    between them."""
    best = np.argsort(scores)[-CANDIDATES:]
    shapes = templates[best]
    differ = (shapes.max(axis=0) - shapes.min(axis=0)) > 0.25 * float(shapes.max())
    differ &= np.linalg.norm(pts, axis=1) >= CENTRE
    if differ.sum() < MIN_DIFFER:
        return int(best[-1])
    misses = []
    for shape in shapes[:, differ]:
        design = np.column_stack([np.ones(len(shape)), shape])
        fit, *_ = np.linalg.lstsq(design, pathness[differ], rcond=None)
        misses.append(
            float(np.sum((design @ fit - pathness[differ]) ** 2)) if fit[1] > 0 else np.inf
        )
    return int(best[int(np.argmin(misses))])


def _off_line(pix: np.ndarray, face: np.ndarray, ink: np.ndarray) -> np.ndarray:
    """Distance of each pixel from the colours a face-up tile shows: face, ink, and the blends
    between them at the paths' edges."""
    span = ink - face
    along = np.clip(((pix - face) @ span) / max(float(span @ span), 1e-6), 0.0, 1.0)
    return np.asarray(np.linalg.norm(pix - face - along[:, None] * span, axis=1))


def _off_print(pix: np.ndarray, back: np.ndarray) -> np.ndarray:
    """Distance of each pixel from the back print at its sample, in the best-fitting light
    (``LIGHT_LO`` to ``LIGHT_HI``)."""
    fit = float((pix * back).sum()) / max(float((back * back).sum()), 1e-6)
    return np.asarray(np.linalg.norm(pix - np.clip(fit, LIGHT_LO, LIGHT_HI) * back, axis=1))


def _misfit(distance: np.ndarray, scale: float) -> float:
    """Mean distance as a share of ``scale``, each pixel's capped at ``scale`` (a peg's edge or
    a glint counts no more than any pixel that does not fit)."""
    return float(np.minimum(distance, scale).mean()) / scale


def _learned_hues(colours: np.ndarray, names: list[str]) -> np.ndarray:
    """Each runner paint's hue as the start image shows it on the circles of its side (those
    saturated enough to hold a peg); the standard hue for a side with no runners out."""
    hue, saturated = _hue(colours), _saturation(colours) > PALE
    learned = []
    for name, standard in HUES.items():
        mine = np.array([n == name for n in names]) & saturated
        if not mine.any():
            learned.append(standard)
            continue
        # hues wrap round: take the median of their offsets from the standard hue
        offsets = (hue[mine] - standard + 90.0) % 180.0 - 90.0
        learned.append((standard + float(np.median(offsets))) % 180.0)
    return np.array(learned, np.float32)


def _bare_stops_gain(ratios: np.ndarray) -> np.ndarray:
    """Per channel, the frame's bare stops over calibration's, from every stop's ``ratios``
    (frame over calibration, per channel).  The colour map fitted on the bare board can leave
    the stops' print off by a third when the camera lifts its black level and washes colours
    out, and every bare stop would then look as if a peg stood on it; but most stops are bare,
    and bare stops agree.  The largest group of stops whose ratios agree within
    ``STOPS_AGREE`` (log ratio, per channel) gives the gain when it has ``MIN_BARE_STOPS``;
    else 1 (the map's own guess)."""
    logs = np.log(np.maximum(ratios, 1e-3))
    agree = np.abs(logs[:, None, :] - logs[None, :, :]).max(axis=2) < STOPS_AGREE
    group = agree[int(np.argmax(agree.sum(axis=1)))]
    if group.sum() < MIN_BARE_STOPS:
        return np.ones(3, np.float32)
    return np.asarray(np.exp(np.median(logs[group], axis=0)), np.float32)


def _faded(colours: np.ndarray, share: float) -> np.ndarray:
    """``colours`` (... x 3) with ``share`` of their saturation left, towards each one's grey."""
    grey = colours.mean(axis=-1, keepdims=True)
    return np.asarray(grey + share * (colours - grey), np.float32)


def _washout(seen: np.ndarray, known: np.ndarray) -> float:
    """How far a frame's colours are washed out against calibration's (1: not at all): the
    median saturation of colours ``seen`` in the frame over that of the same places
    ``known`` at calibration, when those have colour at all."""
    before = float(np.median(_saturation(known)))
    if before < WASHOUT_CHROMA:
        return 1.0
    return float(np.clip(np.median(_saturation(seen)) / before, MIN_WASHOUT, 1.0))


def _references(value: Any, geometry: BoardGeometry) -> np.ndarray:
    """A profile's reference points checked: rows of (flat index inside the rectified image,
    blue, green, red)."""
    arr = np.array(value, dtype=np.float64)
    width, height = geometry.size
    if arr.ndim != 2 or arr.shape[1] != 4 or not np.isfinite(arr).all():
        raise ValueError("references")
    index = arr[:, 0]
    if ((index < 0) | (index >= width * height) | (index != np.round(index))).any():
        raise ValueError("references")
    return arr


def _flat_index(points: np.ndarray, width: int, height: int) -> np.ndarray:
    xs = np.clip(np.round(points[..., 0]).astype(np.int64), 0, width - 1)
    ys = np.clip(np.round(points[..., 1]).astype(np.int64), 0, height - 1)
    return ys * width + xs


def _bilinear(geometry: BoardGeometry, points: np.ndarray) -> np.ndarray:
    """Weights of the light patches at rectified ``points`` (... x 2): the least-squares fit
    of a bilinear gain field through the patches, evaluated there."""
    patches = _to_px(geometry, np.array(PATCHES)) / geometry.size[0]

    def basis(xy: np.ndarray) -> np.ndarray:
        x, y = xy[..., 0], xy[..., 1]
        return np.stack([np.ones_like(x), x, y, x * y], axis=-1)

    fit = np.linalg.pinv(basis(patches))  # 4 x patches
    return basis(points / geometry.size[0]) @ fit


def _octagon_corners(geometry: BoardGeometry, centre: tuple[float, float]) -> np.ndarray:
    """Flat indices of points just inside a tile's corners: face colour on every tile (no
    chord comes that close to a corner)."""
    a = np.deg2rad(22.5 + 45.0 * np.arange(8))
    points = np.column_stack([np.sin(a), np.cos(a)]) * CORNER_REACH + np.asarray(centre)
    width, height = geometry.size
    return _flat_index(_to_px(geometry, points), width, height)


def _two_colours(pixels: np.ndarray, face: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(face, ink) of a face-up tile's pixels: of their two colour clusters, the one nearer
    the colour seen at the tile's corners is the face."""
    data = pixels.astype(np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.5)
    # a labels array rather than None: OpenCV's type stubs disagree across versions on
    # whether it may be None; without KMEANS_USE_INITIAL_LABELS it is only written to
    start = np.zeros((len(data), 1), np.int32)
    _, _, centres = cv2.kmeans(data, 2, start, criteria, 3, cv2.KMEANS_PP_CENTERS)
    near = int(np.argmin(np.linalg.norm(centres - face, axis=1)))
    return centres[near], centres[1 - near]


def _saturation(colours: np.ndarray, dark: float = 1.0) -> np.ndarray:
    """HSV saturation; colours darker than ``dark`` (their brightest channel) count as that
    bright, so a few levels of noise in a shadow are not a colour."""
    c = np.asarray(colours, np.float32)
    hi, lo = c.max(axis=-1), c.min(axis=-1)
    return (hi - lo) / np.maximum(hi, dark)


def _hue(colours: np.ndarray) -> np.ndarray:
    c = np.clip(colours, 0, 255).astype(np.uint8).reshape(-1, 1, 3)
    return cv2.cvtColor(c, cv2.COLOR_BGR2HSV_FULL)[:, 0, 0].astype(np.float32) * 180.0 / 256.0


def _hue_gap(a: float, b: float) -> float:
    d = abs(a - b) % 180.0
    return min(d, 180.0 - d)


def _check_geometry(geometry: BoardGeometry) -> None:
    if (geometry.cols, geometry.rows) != (6, 6):
        raise ProfileError(
            f"the octiles reader needs the 6x6 pitch board geometry, got "
            f"{geometry.cols}x{geometry.rows}; calibrate again with --game octiles"
        )


def _check_image(board: Any, geometry: BoardGeometry) -> None:
    width, height = geometry.size
    if not isinstance(board, np.ndarray) or board.shape != (height, width, 3):
        shape = getattr(board, "shape", None)
        raise VisionError(
            f"expected a rectified {width}x{height} colour board image, got shape {shape}; "
            "rectify the frame with the calibration profile first"
        )
