"""Rectified board image -> Zombie Labyrinth board (layout, figures, discs), from one start image.

The layout is read once, from the start image (and again with ``relearn_layout`` when the
players assemble another labyrinth): in every cell, the corner whose triangle core is darkest
against the cell's card colour gives the rotation, and the four code squares read in that
corner's frame give the piece (``catalog.py`` documents the marks).  Both margins make the
cell's confidence.

Every frame is first taken back to the start image's colours (``camera_colours``: a camera
without a lock washes colours out, lifts its black level and bends its tone curve between
frames, and a lamp may come on), fitted on the print that never changes.  Where more of that
print than a figure hides looks unlike the start image, something is over the board (a hand,
an arm, a sleeve) and the reading is marked covered.  Every frame then reads, against the
layout:

- each character by the paint of its stand, as the start image showed it (``paints.py``: the
  start shows every character in play, so one whose paint it did not show is not looked for),
  or for a profile without learned paints: pixels of that hue and strongly saturated, less
  the known lantern rings of the same colour, filtered with a head-sized disc so that a
  lantern's thin ring never looks like a figure.  Figures stand up to 0.4 of a piece tall,
  so their silhouette leans away from the camera's nadir; the camera, recovered from the
  calibration homography, turns the silhouette's centre back into the point it stands on,
  which is snapped to the nearest stopping space;
- Dr. Bizarre, the same way, by his white coat (brighter than the card and unsaturated);
- each disc space, by the colour of its middle as a ratio to the cell's card colour (which
  takes out light changes), against the disc and empty-space colours learned from the start
  image; pixels under a found figure's silhouette are left out.  A disc space a figure
  hides is said (with no confidence) to hold a disc only when it is Dr. Bizarre's home and he
  stands there: a character on a disc space has taken its disc.

A camera frame (``read_frame``) also shows the spinner card beside the board, when it is in
view: ``spinner.SpinnerReader`` finds its marker (id 4) and reads where the arrow points; the
board's ``spinner`` is None when the card is out of view or the arrow cannot be told.

Confidence order of a ``Reading`` (the game's cell order): the characters in
``CHARACTER_COLOURS`` order, Dr. Bizarre, the layout's disc spaces (disc, finish and home
kinds) sorted by id, then the layout positions row by row.  ``layout_confidence`` holds one
value per grid cell, row by row, from the start image the layout was read on.

Geometry: one cell of ``BoardGeometry`` is one piece; the reader reads whatever grid the
geometry has (the lead's default: 3 rows x 4 columns, the default layout's size).
"""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from companion.errors import InputError, ProfileError, VisionError
from companion.games.base import JSON, BoardGeometry
from companion.games.labyrinth import camera_colours
from companion.games.labyrinth.catalog import DISC_KINDS, PURPLE, Catalog, default_catalog
from companion.games.labyrinth.draw import (
    BIZARRE_STAND,
    BODY_RADIUS,
    CODE_CENTRES,
    CODE_Y,
    DISC_RADIUS,
    FIGURE_HEIGHT,
    HEAD_RADIUS,
    HOME_RADIUS,
    STAND_RADIUS,
)
from companion.games.labyrinth.model import (
    CHARACTER_COLOURS,
    PIECE_CELL,
    Board,
    Layout,
    Placement,
    corrected_layout,
    graph_of,
    make_board,
    make_layout,
    rotate_point,
    spinner_segments,
)
from companion.games.labyrinth.paints import (
    MATCH,
    Learned,
    Paint,
    group_labels,
    learn_background,
    learn_characters,
    learn_figure,
    learn_one,
    log_ratio,
)
from companion.games.labyrinth.spinner import SpinnerReader
from companion.games.reading import Reader, Reading
from companion.vision.camera import camera_centre as pose_centre

log = logging.getLogger(__name__)

VERSION = 3
"""2 adds the looks learned from the start image; a version 1 profile reads by the built-in
assumptions (``HUES``, the white coat) as it did.  3 adds the start image's block colours
(``camera_colours``); a version 2 profile reads every frame in its own colours, as it did."""
TRIANGLE_CORE = ((0.035, 0.035), (0.07, 0.035), (0.035, 0.07), (0.05, 0.05), (0.025, 0.06))
"""Points deep inside the identity triangle (piece coordinates), clear of the seam."""
MIN_INK = 25.0
"""A cell whose darkest triangle core is not this much darker than its card holds no piece."""
HUES = {"red": 0.0, "yellow": 25.0, "green": 56.0, "blue": 104.0}
"""OpenCV hue (0..180) of the four stand paints."""
HUE_TOLERANCE = 14.0
MIN_SATURATION = 130
LANTERN_MASK = 0.068
"""Radius (cells) of the lantern rings left out of a colour's figure mask."""
FIGURE_SCORE = 0.6
"""Share of a head-sized disc that must show a figure's paint."""
GATHER = 0.22
"""Radius (cells) round the strongest response whose figure pixels make the silhouette."""
LEAN_HEIGHT = 0.2
"""Height (cells) whose projection the silhouette's centre is taken for."""
COAT_BRIGHTNESS = 1.12
CARD_PERCENTILE = 75
COAT_SATURATION = 70
DISC_SAMPLE = 0.085
DISC_QUANTILES = (20, 80)
"""Percentiles of a disc space's middle compared with the learned looks: a disc is a small
face with a rim and a print, blurred into each other at 64 pixels a piece, so its median
moves with the blur; its light and dark ends tell it from a flat print whichever is darker."""
MIN_SEEN = 0.12
"""Share of a disc space's middle that must be in view to read it empty..."""
DISC_SEEN = 0.35
"""...and to read a disc on it."""
HOME_RING = 0.5 * (HOME_RADIUS + DISC_RADIUS) + 0.007
"""Radius (cells) where Dr. Bizarre's home shows its purple round the hoard disc."""
SILHOUETTE = 1.1
"""Left-out radius round a figure's column, as a share of its stand radius."""
REACH = 0.2
"""Farthest a figure's strongest response lies from its space's leaned column (cells): the
crowd offset and wobble (0.07) and the stand (0.09), with room."""
TOP = (0.3, 0.35, 0.4)
"""Heights (cells) of Dr. Bizarre's head, where the start image shows his own colour."""
TOP_RADIUS = 0.045
"""Radius (cells) sampled round his head's leaned centre: inside the 0.055 head.  With the
camera almost over his home the three heights' circles fall on one another, and 0.035 gave 13
pixels, too few to learn him from (a tuned look's camera: his coat then went unlearned and the
built-in white coat found him on every white disc, 19 of 168 cells wrong)."""
UNLIKE = 0.25
"""Log-colour residual (largest channel) past which a print block shows something else: the
print itself stays under about 0.07 once its colours are taken back (``camera_colours``)."""
COVER_BLOCKS = 16
"""Print blocks unlike the start (outside the figures found) that make the board covered: a
quarter of a piece.  On the tuned looks' drifting renders (7 looks, 8 frames each, no camera
lock) frames with nothing over the board showed at most 2 such blocks, frames with an arm over
it at least 47."""
DISC_SHADOW = 0.04
"""Reach (cells) of a disc's shadow and blur beyond its rim."""
START_STACK = 0.17
"""Radius (cells) round the start space's leaned column holding the crowded characters."""


# --- geometry ---------------------------------------------------------------------------------
def to_px(geometry: BoardGeometry, points: Any) -> np.ndarray:
    """Board units (x east, y south, one cell = 1) -> rectified pixel coordinates."""
    p = np.atleast_2d(np.asarray(points, np.float64))
    return (p + geometry.margin) * geometry.cell_px - 0.5


def to_units(geometry: BoardGeometry, pixels: Any) -> np.ndarray:
    p = np.atleast_2d(np.asarray(pixels, np.float64))
    return (p + 0.5) / geometry.cell_px - geometry.margin


def camera_centre(
    homography: np.ndarray, image_size: tuple[int, int], geometry: BoardGeometry
) -> np.ndarray:
    """The camera's position (board units; z = height above the board, in cells) from the
    homography rectified pixels -> frame pixels, taking square pixels and the principal point
    at the frame centre; the focal length comes from the homography unless the view is
    square-on."""
    cell, m = geometry.cell_px, geometry.margin
    to_rect = np.array([[cell, 0.0, m * cell - 0.5], [0.0, cell, m * cell - 0.5], [0, 0, 1.0]])
    return pose_centre(np.asarray(homography, np.float64) @ to_rect, image_size)


def lean(camera: np.ndarray, base: np.ndarray, height: float) -> np.ndarray:
    """Where the point ``height`` cells above ``base`` appears on the board plane."""
    s = camera[2] / max(camera[2] - height, 1e-6)
    return camera[:2] + (np.asarray(base, np.float64) - camera[:2]) * s


def unlean(camera: np.ndarray, seen: np.ndarray, height: float) -> np.ndarray:
    s = camera[2] / max(camera[2] - height, 1e-6)
    return camera[:2] + (np.asarray(seen, np.float64) - camera[:2]) / s


def _disc_kernel(radius_px: float) -> np.ndarray:
    r = int(np.ceil(radius_px))
    ys, xs = np.mgrid[-r : r + 1, -r : r + 1]
    kernel = (np.hypot(xs, ys) <= radius_px).astype(np.float32)
    return kernel / kernel.sum()


def _flat(geometry: BoardGeometry, pixels: np.ndarray) -> np.ndarray:
    width, height = geometry.size
    xs = np.clip(np.round(pixels[..., 0]).astype(np.int64), 0, width - 1)
    ys = np.clip(np.round(pixels[..., 1]).astype(np.int64), 0, height - 1)
    return ys * width + xs


# --- layout -----------------------------------------------------------------------------------
class _Cells:
    """Sample points of every grid cell: the card, the four triangle cores, the code squares."""

    def __init__(self, geometry: BoardGeometry) -> None:
        self.geometry = geometry
        cells = [(r, c) for r in range(geometry.rows) for c in range(geometry.cols)]
        self.cells = cells
        grid = np.arange(0.06, 0.95, 0.05)
        gx, gy = np.meshgrid(grid, grid)
        card = np.column_stack([gx.ravel(), gy.ravel()])
        self.card = np.stack(
            [_flat(geometry, to_px(geometry, card + np.array((c, r)))) for r, c in cells]
        )
        core = np.array(TRIANGLE_CORE)
        squares = np.array([(x, CODE_Y) for x in CODE_CENTRES])
        jitter = np.array([(0, 0), (0.008, 0), (-0.008, 0), (0, 0.008), (0, -0.008)])
        self.cores = np.zeros((len(cells), 4, len(core)), np.int64)
        self.codes = np.zeros((len(cells), 4, 4, len(jitter)), np.int64)
        for i, (r, c) in enumerate(cells):
            for rot in range(4):
                pts = np.array([rotate_point(tuple(p), rot) for p in core]) + np.array((c, r))
                self.cores[i, rot] = _flat(geometry, to_px(geometry, pts))
                for k, sq in enumerate(squares):
                    pts = np.array([rotate_point(tuple(sq + j), rot) for j in jitter])
                    pts += np.array((c, r))
                    self.codes[i, rot, k] = _flat(geometry, to_px(geometry, pts))


def read_layout(
    board_img: np.ndarray, geometry: BoardGeometry, catalog: Catalog | None = None
) -> tuple[Layout, np.ndarray]:
    """The pieces on the grid from their identity marks, and one confidence per cell."""
    catalog = catalog or default_catalog()
    _check_image(board_img, geometry)
    by_code = {p.code: p.id for p in catalog.pieces if p.code is not None}
    cells = _Cells(geometry)
    grey = cv2.cvtColor(board_img, cv2.COLOR_BGR2GRAY).reshape(-1).astype(np.float32)
    placements: list[Placement] = []
    confidence = np.zeros(len(cells.cells))
    for i, (r, c) in enumerate(cells.cells):
        card = float(np.median(grey[cells.card[i]]))
        ink = card - np.median(grey[cells.cores[i]], axis=1)
        rot = int(np.argmax(ink))
        best = float(ink[rot])
        if best < MIN_INK:
            confidence[i] = float(np.clip((MIN_INK - best) / MIN_INK, 0, 1))
            continue
        second = float(np.sort(ink)[-2])
        dark = (card - np.median(grey[cells.codes[i, rot]], axis=1)) / best
        bits = dark > 0.5
        code = int(sum(int(b) << (3 - k) for k, b in enumerate(bits)))
        piece = by_code.get(code)
        if piece is None or any(p.piece == piece for p in placements):
            log.info("cell [%d, %d]: code %d names no unplaced piece", r, c, code)
            continue
        placements.append(Placement(r, c, piece, rot))
        margin = float(np.min(np.abs(dark - 0.5))) * 2
        confidence[i] = float(np.clip(min((best - second) / best, margin), 0, 1))
    if not placements:
        raise VisionError(
            "no labyrinth piece marks were found: check the corners and calibrate again"
        )
    return make_layout(placements, catalog), confidence


# --- the reader -------------------------------------------------------------------------------
class TileReader(Reader[Board]):
    """Reads figures and discs on the labyrinth whose layout it learned."""

    def __init__(
        self,
        geometry: BoardGeometry,
        camera: np.ndarray,
        layout: Layout,
        layout_confidence: np.ndarray,
        disc: np.ndarray,
        empty: np.ndarray,
        home: np.ndarray,
        catalog: Catalog | None = None,
        learned: Learned | None = None,
        reference: np.ndarray | None = None,
    ) -> None:
        self.geometry = geometry
        self.learned = learned or Learned()
        # kept as the profile keeps it (whole levels), so a reloaded reader reads the same
        self.reference = None if reference is None else np.round(reference).astype(np.float32)
        self.catalog = catalog or default_catalog()
        self.camera = np.asarray(camera, np.float64).reshape(3)
        self.layout = layout
        self.layout_confidence = np.asarray(layout_confidence, np.float64)
        self.disc = _profile(disc)
        self.empty = _profile(empty)
        self.home = _profile(home)
        self.spinner = SpinnerReader(spinner_segments(self.catalog))
        self._prepare()

    def _prepare(self) -> None:
        geo = self.geometry
        width, height = geo.size
        self._cells = _Cells(geo)
        graph = graph_of(self.layout, self.catalog)
        self.graph = graph
        self._stops = sorted(s for s, n in graph.spaces.items() if n.kind != "junction")
        self._stop_pts = np.array([graph.points[s] for s in self._stops])
        self.disc_spaces = sorted(s for s, n in graph.spaces.items() if n.kind in DISC_KINDS)
        grid = np.arange(0.03, 0.5, 0.04)
        qx, qy = np.meshgrid(grid, grid)
        quarter = np.column_stack([qx.ravel(), qy.ravel()])
        corners = [(c + 0.5 * i, r + 0.5 * j) for r in range(geo.rows) for j in (0, 1)
                   for c in range(geo.cols) for i in (0, 1)]  # fmt: skip
        self._quarters = np.stack([_flat(geo, to_px(geo, quarter + q)) for q in corners])
        self._lanterns: dict[str, np.ndarray] = {}
        for colour in sorted({n.colour for n in graph.spaces.values() if n.colour}):
            mask = np.ones((height, width), np.float32)
            for space in graph.lanterns(colour):
                x, y = to_px(geo, graph.points[space])[0]
                cv2.circle(mask, (round(x), round(y)), round(LANTERN_MASK * geo.cell_px), 0.0, -1)
            if colour == PURPLE and graph.home:  # his home is printed in the lanterns' purple
                x, y = to_px(geo, graph.points[graph.home])[0]
                cv2.circle(mask, (round(x), round(y)), round(HOME_RADIUS * geo.cell_px), 0.0, -1)
            self._lanterns[colour] = mask
        self._kernel = _disc_kernel(HEAD_RADIUS * 0.8 * geo.cell_px)
        offsets = np.mgrid[-1:1.01:0.25, -1:1.01:0.25].reshape(2, -1).T * DISC_SAMPLE
        offsets = offsets[np.hypot(offsets[:, 0], offsets[:, 1]) <= DISC_SAMPLE]
        centres = np.array([graph.points[s] for s in self.disc_spaces]).reshape(-1, 2)
        self._disc_idx = _flat(geo, to_px(geo, (centres[:, None] + offsets[None]).reshape(-1, 2)))
        self._disc_idx = self._disc_idx.reshape(len(centres), len(offsets))
        self._disc_cell = np.array(
            [int(y) * geo.cols + int(x) for x, y in np.floor(centres).astype(int)], np.int64
        ).reshape(-1)
        # the empty look of every disc space: printed alike, but home is Dr. Bizarre's purple
        empties = [self.home if s == graph.home else self.empty for s in self.disc_spaces]
        self._empties = np.array(empties).reshape(len(self.disc_spaces), -1)
        home = np.asarray(graph.points[graph.home]) if graph.home else np.zeros(2)
        angles = np.linspace(0, 2 * np.pi, 24, endpoint=False)
        ring = home + HOME_RING * np.column_stack([np.cos(angles), np.sin(angles)])
        self._home_ring = _flat(geo, to_px(geo, ring))
        self._home_cell = int(home[1]) * geo.cols + int(home[0])
        self._allowed = self._columns(self._stop_pts, REACH).astype(np.float32)
        self._reach = np.flatnonzero(self._columns(self._stop_pts, REACH + HEAD_RADIUS))
        self._prints = {c: (mask == 0).reshape(-1) for c, mask in self._lanterns.items()
                        if c in self.learned.prints}  # fmt: skip
        self._unprinted = {name: self._lantern_mask(self._printed_like(paint)).astype(bool)
                       for name, paint in self.learned.figures.items()}  # fmt: skip
        self._prepare_print(centres)

    def _prepare_print(self, disc_centres: np.ndarray) -> None:
        """The blocks whose print every frame shows as the start image did: all but the disc
        spaces (a disc taken changes them) and the places of the figures in the start image
        (the crowd on the start space, Dr. Bizarre at home)."""
        graph = self.graph
        changing = self._columns(disc_centres, DISC_RADIUS + DISC_SHADOW, (0.0,))
        changing |= self._columns(np.asarray(graph.points[graph.start]), START_STACK + 0.05)
        if graph.home:
            changing |= self._columns(np.asarray(graph.points[graph.home]), BODY_RADIUS + 0.02)
        block = camera_colours.BLOCK
        height, width = changing.shape
        rows, cols = height // block, width // block
        by_block = changing[: rows * block, : cols * block].reshape(rows, block, cols, block)
        self._print = np.flatnonzero(~by_block.any(axis=(1, 3)))
        self._block_where = camera_colours.positions((rows, cols))

    def _printed_like(self, paint: Paint) -> tuple[str, ...]:
        """The lantern colours printed in ``paint`` itself (each colour's mean within the
        other's match): a figure's mask leaves those lanterns out, as a ring of its own paint
        under it cannot be told from its stand."""
        return tuple(
            colour
            for colour, print_paint in self.learned.prints.items()
            if colour in self._prints
            and paint.distance(print_paint.mean[None].astype(np.float32))[0] <= MATCH
            and print_paint.distance(paint.mean[None].astype(np.float32))[0] <= MATCH
        )

    def _columns(self, points: np.ndarray, radius: float, heights: Any = None) -> np.ndarray:
        """Rectified pixels within ``radius`` cells of the leaned columns over ``points`` at
        ``heights`` (default: stand to head), as a boolean image."""
        width, height = self.geometry.size
        mask = np.zeros((height, width), np.uint8)
        r = max(1, round(radius * self.geometry.cell_px))
        for h in np.linspace(0.0, FIGURE_HEIGHT, 5) if heights is None else heights:
            for point in np.atleast_2d(points):
                x, y = to_px(self.geometry, lean(self.camera, point, h))[0]
                cv2.circle(mask, (round(x), round(y)), r, 1, -1)
        return mask.astype(bool)

    def _lantern_mask(self, colours: tuple[str, ...]) -> np.ndarray:
        mask = np.ones(self._allowed.shape, np.float32)
        for colour in colours:
            mask *= self._lanterns.get(colour, 1.0)
        return mask

    # --- calibration --------------------------------------------------------------------------
    @classmethod
    def learn(
        cls,
        board_img: np.ndarray,
        geometry: BoardGeometry,
        *,
        homography: np.ndarray,
        image_size: tuple[int, int],
        catalog: Catalog | None = None,
    ) -> TileReader:
        """Learn from the start image: the labyrinth assembled, discs on most disc spaces (the
        finish's among them), some disc spaces empty, the characters on the start space and
        Dr. Bizarre at home.  Every look is learned from it: the figures' paints, the discs and
        empty spaces, the board and table round them (``paints.py``)."""
        catalog = catalog or default_catalog()
        layout, confidence = read_layout(board_img, geometry, catalog)
        camera = camera_centre(homography, image_size, geometry)
        probe = cls(
            geometry, camera, layout, confidence, np.ones(3), np.ones(3), np.ones(3), catalog
        )
        card = probe._card(board_img)
        learned = probe._learn_looks(board_img)
        probe = cls(geometry, camera, layout, confidence, np.ones(3), np.ones(3), np.ones(3),
                    catalog, learned)  # fmt: skip
        spots, _ = probe._figures(board_img, card)
        hidden = probe._hidden(spots)
        ratios, seen = probe._disc_ratios(board_img, card, hidden)
        # home's own print is purple: its empty look is learned from its rim below
        plain = np.array([s != probe.graph.home for s in probe.disc_spaces])
        usable = (seen >= MIN_SEEN) & plain
        if usable.sum() < 2:
            raise VisionError(
                "the start image shows too few disc spaces: set the discs out and calibrate again"
            )
        disc, empty, share = probe._disc_looks(ratios, usable)
        if np.linalg.norm(disc - empty) < 0.08 or share <= 0.5:
            raise VisionError(
                "the start image shows no brain disc: lay the discs out and calibrate again"
            )
        log.info("labyrinth reader learned: camera at (%.2f, %.2f, %.2f) cells", *camera)
        flat = board_img.reshape(-1, 3).astype(np.float32)
        ring = probe._home_ring[~hidden[probe._home_ring]]
        if len(ring) == 0:
            raise VisionError(
                "Dr. Bizarre's home is hidden in the start image: clear it and calibrate again"
            )
        home = np.median(flat[ring], axis=0) / np.maximum(card[probe._home_cell], 1.0)
        if PURPLE in learned.prints:  # the lanterns' purple, as an empty home shows it whole
            home = np.exp(learned.prints[PURPLE].mean)
        reference = camera_colours.shrink(board_img)
        return cls(
            geometry, camera, layout, confidence, disc, empty, home, catalog, learned, reference
        )

    def _learn_looks(self, board_img: np.ndarray) -> Learned:
        """The figures' paints and the bare board's colours, from the start image."""
        graph = self.graph
        features = log_ratio(board_img, self._card_colour(board_img))
        no_lantern = self._lantern_mask(tuple(self._lanterns)) > 0
        start = np.asarray(graph.points[graph.start], np.float64)
        crowd = self._columns(start, START_STACK) & no_lantern
        figures = learn_characters(board_img, features, crowd, HUES)
        bizarre = None
        if graph.home:
            home = np.asarray(graph.points[graph.home], np.float64)
            top = self._columns(home, TOP_RADIUS, TOP)
            column = self._columns(home, BIZARRE_STAND, np.linspace(0.1, FIGURE_HEIGHT, 4))
            bizarre = learn_figure(features, top, column)
        if bizarre is not None:
            figures["bizarre"] = bizarre
        log.info("labyrinth reader learned the paints of %s", ", ".join(figures) or "no figure")
        stacks = crowd | self._columns(start, START_STACK + 0.05)
        if graph.home:  # his home's purple print round him is bare board
            stacks |= self._columns(home, BODY_RADIUS + 0.02)
        background = learn_background(features, ~stacks & no_lantern)
        prints = {}
        for colour, mask in self._lanterns.items():
            paint = learn_one(features, (mask == 0) & ~stacks)
            if paint is not None:
                prints[colour] = paint
        return Learned(figures, prints, tuple(background))

    def _disc_looks(
        self, ratios: np.ndarray, usable: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, float]:
        """The discs' and the empty spaces' colours (ratios to the card) from the start image:
        its disc spaces split in two by colour, the discs being the group the finish's disc
        is in (it is always set out), or the larger one; and the share of spaces taken for
        discs (most spaces hold one at the start: the seed leaves "a few" empty)."""
        samples = ratios[usable].astype(np.float32)
        labels = group_labels(samples, 2)
        finish = [i for i, s in enumerate(np.array(self.disc_spaces)[usable])
                  if s == self.graph.finish]  # fmt: skip
        disc_group = labels[finish[0]] if finish else int(np.bincount(labels, minlength=2).argmax())
        disc = np.median(samples[labels == disc_group], axis=0)
        rest = samples[labels != disc_group]
        empty = np.median(rest, axis=0) if len(rest) else np.full(len(DISC_QUANTILES) * 3, 0.9)
        return disc, empty, float(np.mean(labels == disc_group))

    def relearn_layout(self, board_img: np.ndarray) -> TileReader:
        """The same camera and colours with the layout read afresh (a newly built labyrinth);
        its print is what later frames' colours are taken back to (the learned looks are
        ratios to the card, which a light change between the two images leaves alone)."""
        layout, confidence = read_layout(board_img, self.geometry, self.catalog)
        reference = None if self.reference is None else camera_colours.shrink(board_img)
        return TileReader(self.geometry, self.camera, layout, confidence, self.disc, self.empty,
                          self.home, self.catalog, self.learned, reference)  # fmt: skip

    @classmethod
    def from_json(
        cls, params: JSON, geometry: BoardGeometry, catalog: Catalog | None = None
    ) -> TileReader:
        """Rebuild from ``to_json``; ``ProfileError`` when anything is missing or malformed."""
        catalog = catalog or default_catalog()
        try:
            if params.get("version") not in (1, 2, VERSION):
                raise ValueError(f"version {params.get('version')!r}")
            learned = Learned()
            if params["version"] >= 2:
                learned = Learned.from_json(params["looks"], (*CHARACTER_COLOURS, "bizarre"))
            reference = None
            if params["version"] >= 3:
                reference = np.array(params["reference"], np.float32)
                shape = (*(n // camera_colours.BLOCK for n in geometry.size[::-1]), 3)
                if reference.shape != shape or not ((reference >= 0) & (reference <= 255)).all():
                    raise ValueError("reference")
            values = {}
            for key in ("camera", "disc", "empty", "home"):
                arr = np.array(params[key], dtype=np.float64)
                sizes = ((3,), (len(DISC_QUANTILES) * 3,)) if key != "camera" else ((3,),)
                if arr.shape not in sizes or not np.isfinite(arr).all():
                    raise ValueError(key)
                values[key] = arr
            layout = make_layout(
                (Placement(int(r), int(c), str(p), int(k)) for p, r, c, k in params["layout"]),
                catalog,
            )
            confidence = np.array(params["layout_confidence"], dtype=np.float64)
            if confidence.shape != (geometry.rows * geometry.cols,):
                raise ValueError("layout_confidence")
        except (KeyError, TypeError, ValueError, AttributeError) as err:
            raise ProfileError(
                f"the labyrinth reader settings in the profile are damaged ({err}): calibrate again"
            ) from None
        except InputError as err:
            raise ProfileError(
                f"the labyrinth layout in the profile is impossible ({err}): calibrate again"
            ) from None
        return cls(geometry, values["camera"], layout, confidence, values["disc"],
                   values["empty"], values["home"], catalog, learned, reference)  # fmt: skip

    def to_json(self) -> JSON:
        # a reader loaded from a version 2 profile has no start colours to write
        return {
            "version": VERSION if self.reference is not None else 2,
            "camera": np.round(self.camera, 4).tolist(),
            "layout": [[p.piece, p.row, p.col, p.rotation] for p in self.layout],
            "layout_confidence": np.round(self.layout_confidence, 3).tolist(),
            "disc": np.round(self.disc, 4).tolist(),
            "empty": np.round(self.empty, 4).tolist(),
            "home": np.round(self.home, 4).tolist(),
            "looks": self.learned.to_json(),
            **(
                {} if self.reference is None else {"reference": self.reference.astype(int).tolist()}
            ),
        }

    def learn_example(self, frame: np.ndarray, board: np.ndarray, cell: str, value: str) -> bool:
        """A layout position corrected on the page (``r0c1`` = ``p04/2``) becomes the layout
        every later frame is read against, so figures and discs are found on the right
        spaces; corrected positions count as sure.  Figures and discs teach nothing."""
        if not PIECE_CELL.fullmatch(cell):
            return False
        layout = corrected_layout(self.layout, cell, value)
        if layout == self.layout:
            return False
        cols = self.geometry.cols
        changed = {(p.row, p.col) for p in set(layout) - set(self.layout)}
        for row, col in changed:
            self.layout_confidence[row * cols + col] = 1.0
        self.layout = layout
        self._prepare()
        return True

    # --- reading ------------------------------------------------------------------------------
    def read_frame(self, frame: np.ndarray, board: np.ndarray) -> Reading:
        """The rectified board's reading (``read``) with the segment the spinner card beside
        the board shows in the frame; an arrow the reader cannot tell is said in the note."""
        reading = self.read(board)
        sight = self.spinner.read(frame)
        if sight.segment is not None:
            return replace(reading, state=replace(reading.state, spinner=sight.segment))
        if sight.angle_deg is None:
            return reading
        log.debug("spinner arrow at %.0f degrees, %.2f sure", sight.angle_deg, sight.confidence)
        note = "; ".join(filter(None, (reading.note, "cannot tell where the spinner points")))
        return replace(reading, note=note)

    def read(self, board_img: np.ndarray) -> Reading:
        _check_image(board_img, self.geometry)
        unlike = None
        if self.reference is not None:
            board_img, unlike = self._in_start_colours(board_img)
        card = self._card(board_img)
        spots, figure_conf = self._figures(board_img, card)
        hidden = self._hidden(spots)
        covered = unlike is not None and self._covered(unlike, hidden)
        ratios, seen = self._disc_ratios(board_img, card, hidden)
        to_disc = np.linalg.norm(ratios - self.disc, axis=1)
        to_empty = np.linalg.norm(ratios - self._empties, axis=1)
        has = to_disc < to_empty
        places = {name: self._snap(spot) for name, spot in spots.items()}
        # a disc space a figure hides: a character there has taken its disc (the rules), while
        # Dr. Bizarre at home usually stands on his hoard; said with no confidence
        at_home = "bizarre" in places and places["bizarre"][0] == self.graph.home
        # a figure's dark stand and shadow look like a disc, so a half-hidden space is read
        # only when it shows the empty print
        unsure = (seen < MIN_SEEN) | (has & (seen < DISC_SEEN))
        # his base stands on the hoard's middle, and what shows round it (his stand's shade on
        # the purple print, the hoard's rim) is neither look: the hoard is not read under him
        unsure |= at_home & (np.asarray(self.disc_spaces) == self.graph.home)
        for i in np.nonzero(unsure)[0]:
            has[i] = at_home and self.disc_spaces[i] == self.graph.home
        gap = np.linalg.norm(self.disc - self._empties, axis=1)
        disc_conf = np.clip(np.abs(to_empty - to_disc) / gap * 2, 0, 1) * ~unsure
        characters = {c: places[c][0] for c in CHARACTER_COLOURS if c in places}
        bizarre = places["bizarre"][0] if "bizarre" in places else None
        for k, name in enumerate((*CHARACTER_COLOURS, "bizarre")):
            if name in places:
                figure_conf[k] = min(figure_conf[k], places[name][1])
        discs = [s for s, h in zip(self.disc_spaces, has, strict=True) if h]
        state = make_board(self.layout, characters, bizarre, discs)
        parts = [figure_conf, disc_conf, self.layout_confidence]
        confidence = np.concatenate(parts).astype(np.float64)
        note = "something is over the board" if covered else ""
        return Reading(state=state, confidence=confidence, covered=covered, note=note)

    def _in_start_colours(self, board_img: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The board as the start image's light and camera would have shown it, and the
        print blocks (``_print``) it shows unlike the start image."""
        assert self.reference is not None
        blocks = camera_colours.shrink(board_img).reshape(-1, 3)[self._print]
        known = self.reference.reshape(-1, 3)[self._print]
        where = self._block_where[self._print]
        colour_map = camera_colours.fit(blocks, known, where)
        off = camera_colours.residual(colour_map, blocks, known, where) > UNLIKE
        return camera_colours.undo(colour_map, board_img), off

    def _covered(self, unlike: np.ndarray, hidden: np.ndarray) -> bool:
        """Whether more of the print than a figure hides looks unlike the start image, where
        no figure found stands: a hand, an arm, a sleeve."""
        block = camera_colours.BLOCK
        height, width = self.geometry.size[1], self.geometry.size[0]
        rows, cols = height // block, width // block
        figures = hidden.reshape(height, width)[: rows * block, : cols * block]
        figures = figures.reshape(rows, block, cols, block).any(axis=(1, 3)).reshape(-1)
        return int((unlike & ~figures[self._print]).sum()) >= COVER_BLOCKS

    def _card_brightness(self, board_img: np.ndarray) -> np.ndarray:
        """The card's brightness (HSV value) at every pixel, from quarter cells interpolated,
        so uneven light inside a piece does not pass for a white coat.  The print (paths,
        spaces, discs) is darker than the card, so a high percentile is the card even where
        print fills much of a quarter."""
        return self._spread_card(board_img.max(axis=2).reshape(-1))

    def _card_colour(self, board_img: np.ndarray) -> np.ndarray:
        """The card's colour at every pixel, the same way channel by channel: what the
        learned looks are measured against (``paints.log_ratio``)."""
        return self._spread_card(board_img.reshape(-1, 3))

    def _spread_card(self, values: np.ndarray) -> np.ndarray:
        quarters = np.percentile(values[self._quarters], CARD_PERCENTILE, axis=1).astype(np.float32)
        geo = self.geometry
        grid = quarters.reshape(2 * geo.rows, 2 * geo.cols, -1)
        inner = cv2.resize(grid, (geo.cols * geo.cell_px, geo.rows * geo.cell_px),
                           interpolation=cv2.INTER_LINEAR)  # fmt: skip
        o = geo.origin
        width, height = geo.size
        return cv2.copyMakeBorder(inner, o, height - o - inner.shape[0], o,
                                  width - o - inner.shape[1], cv2.BORDER_REPLICATE)  # fmt: skip

    def _card(self, board_img: np.ndarray) -> np.ndarray:
        flat = board_img.reshape(-1, 3).astype(np.float32)
        return np.median(flat[self._cells.card], axis=1)

    def _figures(
        self, board_img: np.ndarray, card: np.ndarray
    ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Where each figure stands (board units, unsnapped) and how sure each find is."""
        masks = self._learned_masks(board_img)
        if any(c in masks for c in CHARACTER_COLOURS):
            # the start image shows every character in play: one whose paint it did not show
            # is not playing, and a built-in hue band would find it in another's paint or a print
            empty = np.zeros(self._allowed.shape, np.float32)
            masks |= {c: empty for c in CHARACTER_COLOURS if c not in masks}
        if len(masks) <= len(CHARACTER_COLOURS):
            masks |= self._assumed_masks(board_img, set(masks))
        found: dict[str, np.ndarray] = {}
        conf = np.zeros(len(CHARACTER_COLOURS) + 1)
        radius = GATHER * self.geometry.cell_px
        for k, name in enumerate((*CHARACTER_COLOURS, "bizarre")):
            mask = masks[name]
            response = cv2.filter2D(mask, -1, self._kernel, borderType=cv2.BORDER_CONSTANT)
            response = response * self._allowed
            y, x = np.unravel_index(int(np.argmax(response)), response.shape)
            peak = float(response[y, x])
            if peak < FIGURE_SCORE:
                conf[k] = float(np.clip((FIGURE_SCORE - peak) / FIGURE_SCORE * 2, 0, 1))
                continue
            y0, y1 = max(int(y - radius), 0), int(y + radius) + 1
            x0, x1 = max(int(x - radius), 0), int(x + radius) + 1
            part = mask[y0:y1, x0:x1]
            ys, xs = np.mgrid[y0 : y0 + part.shape[0], x0 : x0 + part.shape[1]]
            near = np.hypot(xs - x, ys - y) <= radius
            weight = part * near
            centre = np.array([(xs * weight).sum(), (ys * weight).sum()]) / weight.sum()
            seen = to_units(self.geometry, centre)[0]
            found[name] = unlean(self.camera, seen, LEAN_HEIGHT)
            conf[k] = float(np.clip((peak - FIGURE_SCORE) / (1 - FIGURE_SCORE) * 2, 0, 1))
        return found, conf

    def _learned_masks(self, board_img: np.ndarray) -> dict[str, np.ndarray]:
        """Each figure whose paint was learned: the pixels its paint explains better than any
        other figure's or the bare board's colours, and, on a lantern (or Dr. Bizarre's
        home), better than that print's colour: a figure on a lantern of its own paint shows
        where it rises above the ring."""
        figures = self.learned.figures
        if not figures:
            return {}
        # only pixels a figure's response inside ``_allowed`` can gather are looked at
        reach = self._reach
        card = self._card_colour(board_img).reshape(-1, 3)[reach]
        features = log_ratio(board_img.reshape(-1, 3)[reach], card)
        names = list(figures)
        near = np.stack([figures[n].distance(features) <= MATCH for n in names])
        candidate = np.flatnonzero(near.any(axis=0))
        picked = features[candidate]
        paints = [*(figures[n] for n in names), *self.learned.background]
        best = np.stack([p.score(picked) for p in paints]).argmin(axis=0)
        keep = {name: (best == k) & near[k][candidate] for k, name in enumerate(names)}
        for colour, region in self._prints.items():
            inside = np.flatnonzero(region[reach[candidate]])
            if len(inside) == 0:
                continue
            printed = self.learned.prints[colour].score(picked[inside])
            for name in names:
                keep[name][inside] &= figures[name].score(picked[inside]) < printed
        masks = {}
        for name in names:
            mask = np.zeros(self._allowed.size, np.float32)
            mask[reach[candidate]] = keep[name]
            masks[name] = mask.reshape(self._allowed.shape) * self._unprinted[name]
        return masks

    def _assumed_masks(self, board_img: np.ndarray, known: set[str]) -> dict[str, np.ndarray]:
        """The figures no paint was learned for, by the built-in assumptions: strongly
        saturated stands in ``HUES``' bands, a white coat brighter than the card."""
        hsv = cv2.cvtColor(board_img, cv2.COLOR_BGR2HSV)
        hue = hsv[..., 0].astype(np.float32)
        sat, val = hsv[..., 1], hsv[..., 2]
        strong = (sat >= MIN_SATURATION) & (val >= 50)
        masks = {}
        for colour in CHARACTER_COLOURS:
            if colour in known:
                continue
            d = np.abs(hue - HUES[colour])
            d = np.minimum(d, 180.0 - d)
            paint = (strong & (d <= HUE_TOLERANCE)).astype(np.float32)
            masks[colour] = paint * self._lanterns.get(colour, 1.0)
        if "bizarre" not in known:
            card_v = self._card_brightness(board_img)
            coat = (val.astype(np.float32) >= COAT_BRIGHTNESS * card_v) & (sat <= COAT_SATURATION)
            masks["bizarre"] = coat.astype(np.float32)
        return masks

    def _snap(self, spot: np.ndarray) -> tuple[str, float]:
        d = np.linalg.norm(self._stop_pts - spot, axis=1)
        order = np.argsort(d)
        first, second = float(d[order[0]]), float(d[order[1]])
        return self._stops[int(order[0])], float(np.clip((second - first) / (second + first), 0, 1))

    def _hidden(self, spots: dict[str, np.ndarray]) -> np.ndarray:
        """Rectified pixels a found figure's silhouette covers (True: do not read discs there)."""
        width, height = self.geometry.size
        mask = np.zeros((height, width), np.uint8)
        for name, spot in spots.items():
            stand = BIZARRE_STAND if name == "bizarre" else STAND_RADIUS
            r = round(SILHOUETTE * stand * self.geometry.cell_px)
            for h in np.linspace(0.0, FIGURE_HEIGHT, 5):
                x, y = to_px(self.geometry, lean(self.camera, spot, h))[0]
                cv2.circle(mask, (round(x), round(y)), r, 1, -1)
        return mask.reshape(-1).astype(bool)

    def _disc_ratios(
        self, board_img: np.ndarray, card: np.ndarray, hidden: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each disc space's visible middle as a ratio to its cell's card, and the share seen."""
        flat = board_img.reshape(-1, 3).astype(np.float32)
        ratios = np.ones((len(self.disc_spaces), len(DISC_QUANTILES) * 3), np.float32)
        seen = np.zeros(len(self.disc_spaces))
        for i, idx in enumerate(self._disc_idx):
            keep = ~hidden[idx]
            seen[i] = keep.mean()
            if keep.any():
                spread = np.percentile(flat[idx[keep]], DISC_QUANTILES, axis=0)
                ratios[i] = (spread / np.maximum(card[self._disc_cell[i]], 1.0)).ravel()
        return ratios, seen


def _profile(values: Any) -> np.ndarray:
    """A disc space look (``DISC_QUANTILES`` per channel); a version 1 profile's one colour
    per look stands for a flat print, every quantile alike."""
    arr = np.asarray(values, np.float32).reshape(-1)
    return np.tile(arr, len(DISC_QUANTILES)) if arr.size == 3 else arr


def _check_image(board: Any, geometry: BoardGeometry) -> None:
    width, height = geometry.size
    if not isinstance(board, np.ndarray) or board.shape != (height, width, 3):
        shape = getattr(board, "shape", None)
        raise VisionError(
            f"expected a rectified {width}x{height} colour board image, got shape {shape}; "
            "rectify the frame with the calibration profile first"
        )
