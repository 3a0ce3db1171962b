"""Rectified board image -> Octiles position (tiles, runners, pocket), learned from one start image.

Everything is read in the rectified board image (one cell = one pitch) against colours learned
from the start picture, in which all 17 tiles lie face down, the stops are bare and the spare
tile lies face up in the pocket: the backs come from the 17 spaces, the face and path colours
from the pocket tile (of its two colour clusters, the one seen at the tile's corners, where no
chord comes, is the face).  Light changes between frames are taken out by a per-channel gain
field fitted through five patches of bare board near the corners of the playing area.

Tiles are identified by template matching: a space's pixels are turned into "pathness" (0 at
the face colour, 1 at the ink) and correlated with the picture of every distinct look of the
18 tiles in their 8 rotations; correlation ignores contrast and offset, so other path widths,
inks and a light fit that is off still match.  The best look wins; its margin over the
runner-up is the confidence.  A clear match means face up whatever the colours (no back shows
chords); without one, a space is face down when its pixels lie nearer its learned back than
the face or the ink (or about as near, and show no chords at all).

Runners are wooden pegs about half a pitch tall, so a tilted camera sees them lean away from
the nadir over the neighbouring tiles.  The ground under a peg can only be seen through the
peg, so runners are read at the base: a stop holds a peg when its colour is far from the bare
stop's, a circle when its pale centre turned to saturated paint, and the hue says which colour.
The camera, recovered from the calibration homography, says where each peg's column falls in
the rectified image, and those pixels are left out when the tiles are read; a space mostly
hidden that way is read from what shows, with no confidence (the referee asks about it if it
changed), as pegs stay put and must not hold the board "covered".  Pixels that are
neither back, face nor ink, and "pegs" of no paint's hue or saturation, are a hand: the
reading is then marked covered.
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
from companion.games.octiles.draw import (
    HALF,
    PEG_HEIGHT,
    PEG_RADIUS,
    TILE_APOTHEM,
    WELL_APOTHEM,
    chord_curve,
)
from companion.games.octiles.model import BoardGraph, Position, load_board
from companion.games.octiles.tiles import ROTATIONS, TILES, chords
from companion.games.reading import Reader, Reading
from companion.vision.camera import camera_centre as pose_centre

log = logging.getLogger(__name__)

VERSION = 2
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
TEMPLATE_WIDTH = 0.08
TEMPLATE_BLUR = 0.03
"""Template path width and blur, in pitches (between the editions' 0.065 and 0.1)."""
EMPTY_SCORE = 0.3
"""A stop whose colour is further than this (share of its bare colour) from bare, or any place
whose colour is this much more saturated than bare, holds a peg."""
PALE = 0.5
"""Circle centres are less saturated than this (pale paint, even after light gain); peg
paint more."""
HUES = {"red": 0.0, "yellow": 27.0, "green": 60.0, "blue": 112.0}
"""OpenCV hue (0..180) of the four runner paints."""
STRANGE = 0.4
"""A space showing no chords whose pixels lie further than this (share of the face-to-ink
contrast) from both its back and a face is covered by something else."""
HUE_TOLERANCE = 10.0
"""A peg's hue lies within this of its paint's (OpenCV hue units); further off is not a peg."""
PEG_SATURATION = 0.6
"""Peg paint is at least this saturated, even in a peg's shaded base."""
POCKET_SCORE = 0.4
"""Below this best correlation the pocket holds no tile."""
COVERED_SCORE = 0.45
"""A face-up tile correlating less than this with every look is hidden (a hand over it)."""
CHORDS = 0.55
"""A space correlating this well with a look shows chords: face up, whatever its colours.
(On the tuned looks backs reach 0.46 with a printed star, faces under leaning pegs 0.64.)"""
VOTE = 0.1
"""A colour vote (share of the face-to-ink contrast) this clear or more is sure."""
MIN_SEEN_INK = 20
"""Ink samples on clearly face-up tiles needed to take the frame's own face and ink colours."""
SEEN_AT_ALL = 0.05
SEEN_ENOUGH = 0.3
"""Shares of a space's samples left visible by pegs: below the first nothing is read, below
the second the reading is a guess with no confidence (the referee asks if it changed)."""


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
def _templates(step: float) -> np.ndarray:
    """Pathness of every distinct look at the tile sample points (looks x samples).

    Crossings are drawn as plain overlaps: which chord passes over differs between editions,
    and the gap in the lower one is too small to matter to a correlation.
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
            cv2.polylines(canvas, [pts], False, 1.0, round(TEMPLATE_WIDTH * res), cv2.LINE_AA, 4)
        blurred = cv2.GaussianBlur(canvas, (0, 0), TEMPLATE_BLUR * res)
        paths[k] = cv2.remap(blurred, mx, my, cv2.INTER_LINEAR)[:, 0]
    return paths


def _correlations(templates: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Correlation of the pathness ``p`` with every template (rows)."""
    t = templates - templates.mean(axis=1, keepdims=True)
    q = p - p.mean()
    norms = np.linalg.norm(t, axis=1) * max(float(np.linalg.norm(q)), 1e-6)
    return (t @ q) / np.maximum(norms, 1e-9)


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
        board: BoardGraph | None = None,
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
        self._prepare()

    def _prepare(self) -> None:
        geo, board = self.geometry, self.board
        width, height = geo.size
        cell = geo.cell_px
        self._step = 2.0 / cell
        tile_pts = _octagon_offsets(SAMPLE_APOTHEM, self._step)
        centres = [board.coords[s] for s in board.spaces] + [board.pocket]
        self._tile_px = np.stack([_to_px(geo, tile_pts + c) for c in centres])
        self._tile_idx = _flat_index(self._tile_px, width, height)
        self._templates = _templates(self._step)
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
        # the rectified pixels each peg's column covers, per place
        self._peg_outlines = [self._peg_outline(board.coords[p]) for p in places]
        # weights of the light patches at every tile sample and place
        self._tile_w = _bilinear(geo, self._tile_px)
        self._place_w = _bilinear(geo, self._place_px[:, None, :])

    def _peg_outline(self, base: tuple[float, float]) -> np.ndarray:
        """The rectified pixels a peg standing on ``base`` hides: the outline of its column,
        the hull of its base disc and its top disc as the camera sees them on the board plane
        (the top leans away from the nadir and looks larger, being nearer the camera)."""
        radius = PEG_SHADOW * PEG_RADIUS
        top = lean(self.camera, base, PEG_HEIGHT)
        grow = self.camera[2] / max(self.camera[2] - PEG_HEIGHT, 1e-6)
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
        stops bare, runners on any circles."""
        _check_image(board_img, geometry)
        board = load_board()
        camera = camera_centre(homography, image_size, geometry)
        probe = cls(
            geometry, camera, np.ones((len(PATCHES), 3)), np.zeros((17, 3)), np.zeros(3),
            np.zeros(3), np.zeros((len(board.places()), 3)), board,
        )  # fmt: skip
        flat = board_img.reshape(-1, 3).astype(np.float32)
        patches = flat[probe._patch_idx].mean(axis=1)
        tiles = flat[probe._tile_idx]
        backs = np.median(tiles[:17], axis=1)
        corners = _octagon_corners(geometry, board.pocket)
        face, path = _two_colours(tiles[17], np.median(flat[corners], axis=0))
        spread = np.linalg.norm(tiles[:17] - backs[:, None], axis=2).mean()
        if np.linalg.norm(face - path) < 3 * max(float(spread), 4.0):
            raise VisionError(
                "the pocket in the start image shows no face-up tile: lay the spare tile face "
                "up in the pocket and calibrate again"
            )
        bare = np.median(flat[probe._place_idx], axis=1)
        # a circle's centre under a peg is unknown: take a pale grey of the circles' brightness
        circles = bare[len(board.stops) :]
        circles[:] = circles.mean(axis=1, keepdims=True)
        log.info(
            "octiles reader learned: camera at (%.2f, %.2f, %.2f) P",
            *camera,
        )
        return cls(geometry, camera, patches, backs, face, path, bare, board)

    @classmethod
    def from_json(cls, params: JSON, geometry: BoardGeometry) -> TileReader:
        """Rebuild from ``to_json``; ``ProfileError`` when anything is missing or malformed."""
        board = load_board()
        shapes = {
            "camera": (3,), "patches": (len(PATCHES), 3), "backs": (17, 3), "face": (3,),
            "path": (3,), "bare": (len(board.places()), 3),
        }  # fmt: skip
        try:
            if params.get("version") != VERSION:
                raise ValueError(f"version {params.get('version')!r}")
            values: dict[str, Any] = {}
            for key, shape in shapes.items():
                arr = np.array(params[key], dtype=np.float64)
                if arr.shape != shape or not np.isfinite(arr).all():
                    raise ValueError(key)
                values[key] = arr
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
        }

    # --- reading ------------------------------------------------------------------------------
    def read(self, board_img: np.ndarray) -> Reading:
        """Read a rectified board: runners first (their pegs hide parts of tiles), then tiles.

        Confidence order: the 17 spaces, the 36 places (stops, then circles), the pocket.
        """
        _check_image(board_img, self.geometry)
        flat = board_img.reshape(-1, 3).astype(np.float32)
        patches = flat[self._patch_idx].mean(axis=1)
        gain = patches / np.maximum(self.patches, 1.0)
        runners, place_conf, odd = self._runners(flat, gain)
        hidden = self._hidden(runners)
        faces, tile_conf, pocket, unsure = self._tiles(flat, gain, hidden)
        spaces = dict(zip(self.board.spaces, faces[:17], strict=True))
        pocket_tile = None if faces[17] is None else faces[17][0]
        state = Position.make(spaces, runners, pocket_tile)
        confidence = np.concatenate([tile_conf[:17], place_conf, [pocket]]).astype(np.float64)
        unsure = unsure + odd
        covered = len(unsure) > 0
        note = f"cannot read {', '.join(unsure)}" if covered else ""
        return Reading(state=state, confidence=confidence, covered=covered, note=note)

    def _runners(
        self, flat: np.ndarray, gain: np.ndarray
    ) -> tuple[dict[str, str], np.ndarray, list[str]]:
        """A stop holds a peg when its base colour is far from the bare stop's; a circle when
        its centre is saturated (pegs are bright paint, a circle's centre is pale)."""
        local = np.einsum("pk,kc->pc", self._place_w[:, 0], gain)
        colour = np.median(flat[self._place_idx], axis=1) / np.maximum(local, 0.05)
        nstops = len(self.board.stops)
        distance = np.linalg.norm(colour - self.bare, axis=1) / np.maximum(
            np.linalg.norm(self.bare, axis=1), 1.0
        )
        saturation = _saturation(colour)
        lift = saturation - _saturation(self.bare)
        # both scores are on the scale of EMPTY_SCORE: circles by how saturated they are
        circles = (saturation - PALE) / 0.4 + EMPTY_SCORE
        score = np.where(np.arange(len(colour)) < nstops, np.maximum(distance, lift), circles)
        hue = _hue(colour)
        runners: dict[str, str] = {}
        conf = np.clip(np.abs(score - EMPTY_SCORE) / EMPTY_SCORE * 2, 0, 1)
        for i, place in enumerate(self.board.places()):
            if score[i] > EMPTY_SCORE:
                gaps = {name: _hue_gap(hue[i], h) for name, h in HUES.items()}
                best = min(gaps, key=gaps.__getitem__)
                runners[place] = best
                second = sorted(gaps.values())[1]
                conf[i] = min(conf[i], float(np.clip((second - gaps[best]) / 20.0, 0, 1)))
        # a hand is neither as saturated as peg paint nor of its hues
        odd = [
            place for place in runners
            if _hue_gap(hue[self._place_index[place]], HUES[runners[place]]) > HUE_TOLERANCE
            or saturation[self._place_index[place]] < PEG_SATURATION
        ]  # fmt: skip
        return runners, conf, odd

    def _hidden(self, runners: dict[str, str]) -> np.ndarray:
        """Mask of rectified pixels a peg's column hides (True = do not read)."""
        width, height = self.geometry.size
        mask = np.zeros((height, width), np.uint8)
        for i, place in enumerate(self.board.places()):
            if place in runners:
                cv2.fillConvexPoly(mask, self._peg_outlines[i], 1)
        return mask.reshape(-1).astype(bool)

    def _tiles(
        self, flat: np.ndarray, gain: np.ndarray, hidden: np.ndarray
    ) -> tuple[list[tuple[int, int] | None], np.ndarray, float, list[str]]:
        """Faces of the 17 spaces and the pocket, their confidences, the pocket's, and the
        spaces that show neither a back nor any tile (something lies over them)."""
        local = np.einsum("tsk,kc->tsc", self._tile_w, gain)
        pix = flat[self._tile_idx] / np.maximum(local, 0.05)
        seen = ~hidden[self._tile_idx]
        ink = self.path - self.face
        pathness = ((pix - self.face) @ ink) / max(float(ink @ ink), 1e-6)
        scores = [
            _correlations(self._templates[:, keep], pathness[t][keep])
            if keep.mean() >= SEEN_AT_ALL
            else None  # all under pegs: nothing to tell, nothing covered either
            for t, keep in enumerate(seen)
        ]
        colours = self._colours_seen(pix, seen, scores)
        faces: list[tuple[int, int] | None] = []
        conf = np.zeros(18)
        unsure: list[str] = []
        for t, (keep, found) in enumerate(zip(seen, scores, strict=True)):
            if found is None:
                faces.append(None)
                continue
            face, conf[t], covered = self._face(t, pix[t][keep], found, colours)
            faces.append(face)
            if covered:
                unsure.append(self.board.spaces[t])
            elif keep.mean() < SEEN_ENOUGH:
                conf[t] = 0.0  # mostly under pegs: a guess, to be asked about if it changed
        return faces, conf, conf[17], unsure

    def _colours_seen(
        self, pix: np.ndarray, seen: np.ndarray, scores: list[np.ndarray | None]
    ) -> tuple[np.ndarray, np.ndarray]:
        """(face, ink) as this frame shows them on the tiles whose chords show clearly (where
        their best look has face or ink), else as learned: a shadow on the start image or a
        face clipped bright in it makes the learned face off, and a plain back would then
        look more like a face than like itself."""
        face, ink = [], []
        for t, found in enumerate(scores):
            if found is not None and found.max() >= CHORDS:
                template = self._templates[int(np.argmax(found))]
                face.append(pix[t][seen[t] & (template < 0.1)])
                ink.append(pix[t][seen[t] & (template > 0.8)])
        if sum(map(len, ink)) < MIN_SEEN_INK:
            return self.face, self.path
        return np.median(np.concatenate(face), axis=0), np.median(np.concatenate(ink), axis=0)

    def _face(
        self, t: int, pix: np.ndarray, scores: np.ndarray, colours: tuple[np.ndarray, np.ndarray]
    ) -> tuple[tuple[int, int] | None, float, bool]:
        """(face, confidence, covered) of space ``t`` (17: the pocket) from its visible pixels
        ``pix``, their correlation with every look, and the frame's (face, ink) colours.

        Chords say face up whatever the colours: no back or hand shows chords, and the light
        fit through bare board can be off (a shadow on the start image, a face clipped bright
        in it, a dark board's noisy patches).  With no clear chords, colours say back or face:
        face-coloured pixels with no chords are a hand over the tile, unless they are nearly
        as near the back (a plain back under a light fit that is off).
        """
        looks, _ = _looks()
        top = int(np.argmax(scores))
        best = float(scores[top])
        if t == 17 and best < POCKET_SCORE:
            return None, float(np.clip((POCKET_SCORE - best) / 0.2, 0, 1)), False
        # the runner-up among other looks (the pocket: other tiles, its turn is no matter)
        rivals = self._rivals[top] if t == 17 else np.arange(len(looks)) != top
        second = float(scores[rivals].max())
        up = float(np.clip((best - second) / 0.1, 0, 1) * np.clip(best / 0.4, 0, 1))
        if t == 17 or best >= CHORDS:
            return looks[top], up, False
        # each pixel: nearer the back colour, or the face or ink of a face-up tile?
        face, ink = colours
        d_up = np.minimum(np.linalg.norm(pix - face, axis=1), np.linalg.norm(pix - ink, axis=1))
        d_back = np.linalg.norm(pix - self.backs[t], axis=1)
        scale = max(float(np.linalg.norm(self.path - self.face)), 1.0)  # as thresholds were set
        if np.median(np.minimum(d_back, d_up)) > STRANGE * scale:
            return None, 0.0, True
        vote = float(np.median(d_back - d_up)) / scale
        if vote < 0 or (vote < VOTE and best < COVERED_SCORE):
            plain = np.clip((CHORDS - best) / 0.2, 0, 1)
            return None, float(max(np.clip(-vote / VOTE, 0, 1), plain)), False
        if best < COVERED_SCORE:
            return looks[top], 0.0, True
        return looks[top], up, False


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
    # OpenCV takes None for bestLabels (no initial labels); its stub wrongly wants an array
    _, _, centres = cv2.kmeans(  # type: ignore[call-overload]
        data, 2, None, criteria, 3, cv2.KMEANS_PP_CENTERS
    )
    near = int(np.argmin(np.linalg.norm(centres - face, axis=1)))
    return centres[near], centres[1 - near]


def _saturation(colours: np.ndarray) -> np.ndarray:
    c = np.asarray(colours, np.float32)
    hi, lo = c.max(axis=-1), c.min(axis=-1)
    return (hi - lo) / np.maximum(hi, 1.0)


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
