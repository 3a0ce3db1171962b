"""Where every square's parts lie in one view of the board, for one lean of the camera.

A tile's top face ``h`` levels up lies on the plane ``h * TILE_THICKNESS`` cells above the board;
seen through a tilted camera that plane is the board plane moved by a homology whose only
unknown is the *lean* (where the vertical's vanishing point lies in board coordinates).  So one
lean says where each height's face outline, letter crop and colour ring appear, and the points
are laid out once per view as ``cv2.remap`` maps: a read costs a few remaps, whichever view
(camera frame or rectified board) it samples.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.games.upwords.model import MAX_HEIGHT, SIZE, TILE_THICKNESS

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
RING_INSET = 0.12
"""Where a face's colour is sampled: this far (cells) inside its square, outside any letter
and inside the face even when a loose stack sits off centre."""
RING_ALONG = np.linspace(0.1, 0.9, 8)
GRID_ALONG = np.linspace(0.25, 0.75, 5)
"""Sample positions along each printed grid line round a square (its corners are left out:
a diagonal neighbour's stack may stand over them)."""
GRID_BESIDE = 0.2
"""How far (cells) inside a square its well is sampled beside each grid line: clear of the
widest line (0.14 cells) and its shading, outside a tile's footprint ring."""
TILE_HALF = 0.44
"""Half a tile's side, in cells."""


def _origins() -> np.ndarray:
    rows, cols = np.divmod(np.arange(N), SIZE)
    origins = np.stack([cols, rows], axis=1).astype(np.float64)
    origins.setflags(write=False)
    return origins


_ORIGINS = _origins()


def cell_origins() -> np.ndarray:
    """(N, 2) top-left corner (x, y) of every square in cells, row-major (read-only: one
    table, not one per call; a read asks for it some 60 times)."""
    return _ORIGINS


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


def _crop_to_cells() -> np.ndarray:
    """(N, 3, 3) each square's upright face crop, pixel (col, row) -> board cells on its face's
    plane: pixel centres spread evenly inside the face outline."""
    lo, hi = FACE_INSET + LETTER_MARGIN, 1.0 - FACE_INSET - LETTER_MARGIN
    step = (hi - lo) / LETTER_PX
    out = np.zeros((N, 3, 3))
    out[:, 0, 0] = out[:, 1, 1] = step
    out[:, :2, 2] = cell_origins() + lo + 0.5 * step
    out[:, 2, 2] = 1.0
    return out


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


def _grid_offsets() -> np.ndarray:
    """(4 sides, 2 [on the line, beside it], len(GRID_ALONG), 2) offsets in a cell: points on
    the printed line along each side of a square and in its well just inside."""
    out = np.empty((4, 2, len(GRID_ALONG), 2))
    for k, inset in enumerate((0.0, GRID_BESIDE)):
        lo, hi = np.full_like(GRID_ALONG, inset), np.full_like(GRID_ALONG, 1.0 - inset)
        out[0, k] = np.stack([GRID_ALONG, lo], 1)  # top
        out[1, k] = np.stack([hi, GRID_ALONG], 1)  # right
        out[2, k] = np.stack([GRID_ALONG, hi], 1)  # bottom
        out[3, k] = np.stack([lo, GRID_ALONG], 1)  # left
    return out


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


def project(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Apply a homography to (..., 2) points.  OpenCV's loop, not numpy's products: 15 times
    as fast on a layout's 56,000 outline points and 5 times on a handful (2 us against 9)."""
    flat = np.ascontiguousarray(points, np.float64).reshape(-1, 1, 2)
    if flat.size == 0:
        return np.zeros(np.shape(points))
    return cv2.perspectiveTransform(flat, np.asarray(h, np.float64)).reshape(np.shape(points))


def as_map(points: np.ndarray) -> np.ndarray:
    """(..., 2) float coordinates -> a (rows, 64, 2) float32 map for ``cv2.remap``."""
    flat = points.reshape(-1, 2).astype(np.float32)
    pad = (-len(flat)) % 64
    if pad:
        flat = np.concatenate([flat, np.full((pad, 2), -10.0, np.float32)])
    return flat.reshape(-1, 64, 2)


def _remap(image: np.ndarray, coords: np.ndarray) -> np.ndarray:
    """Bilinear samples of ``image`` at the points of one two-channel float map."""
    # two one-channel maps rather than one two-channel map and None: OpenCV's type stubs
    # disagree across versions on whether map2 may be None
    xs = np.ascontiguousarray(coords[..., 0], np.float32)
    ys = np.ascontiguousarray(coords[..., 1], np.float32)
    return cv2.remap(image, xs, ys, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def sample(image: np.ndarray, coords: np.ndarray, count: int) -> np.ndarray:
    """Bilinear samples of ``image`` at a ``as_map`` map: (count, channels) float32."""
    out = _remap(image, coords)
    return out.reshape(-1, image.shape[2] if image.ndim == 3 else 1)[:count].astype(np.float32)


def homology(lean: np.ndarray, level: int) -> np.ndarray:
    """Board cells on the top-face plane of a ``level``-high stack -> where they appear on the
    board plane.  ``lean`` is the vertical direction's vanishing point in board coordinates
    (v = H^-1 p3 for P = [p1 p2 p3 p4], H = [p1 p2 p4]): a point z cells up at (x, y) appears at
    (x - z v1, y - z v2) / (1 - z v3)."""
    z = level * TILE_THICKNESS
    return np.array(
        [[1.0, 0.0, -z * lean[0]], [0.0, 1.0, -z * lean[1]], [0.0, 0.0, 1 - z * lean[2]]]
    )


def raised(lean: np.ndarray, levels: np.ndarray, points: np.ndarray) -> np.ndarray:
    """(..., 2) where points on the top faces of stacks ``levels`` high (broadcast against
    ``points``' leading axes) appear on the board plane: ``homology`` for every level at once,
    without a matrix per level (a read asks for some 140 of them)."""
    z = (np.asarray(levels, np.float64) * TILE_THICKNESS)[..., None]
    return (points - z * lean[:2]) / (1.0 - z * lean[2])


@dataclass
class Layout:
    """Where every height's faces lie in one view, for one lean."""

    lean: np.ndarray
    planes: list[np.ndarray]
    """Per level 0..MAX_HEIGHT: board cells on that level's face plane -> view pixels."""
    edge_points: np.ndarray
    """(MAX_HEIGHT, N, points, 2) float32 where each height's face outline of each square is
    sampled (``_edge_offsets``), in view pixels."""
    crops: np.ndarray
    """(LEVELS, N, 3, 3) each level's face crop of each square, crop pixels -> view pixels."""

    @classmethod
    def build(cls, view: np.ndarray, lean: np.ndarray) -> Layout:
        planes = [view @ homology(lean, lv) for lv in range(LEVELS)]
        origins = cell_origins()[:, None] + _edge_offsets().reshape(1, -1, 2)
        edge_pts = np.stack([project(planes[lv], origins) for lv in range(1, LEVELS)])
        crops = np.stack(planes)[:, None] @ _crop_to_cells()[None]
        return cls(np.asarray(lean, np.float64), planes, edge_pts.astype(np.float32), crops)

    def edge_scores(self, image: np.ndarray, squares: np.ndarray) -> np.ndarray:
        """(len(squares), MAX_HEIGHT) how sharply the image steps across each height's face
        outline; only the squares asked about are sampled (a read asks about the 70 or so
        that changed)."""
        points = self.edge_points[:, squares]
        s = sample(image, as_map(points), points.size // 2)
        s = s.reshape(MAX_HEIGHT, len(squares), 4, 2, len(EDGE_ACROSS), len(EDGE_ALONG), -1)
        step = s[:, :, :, 0] - s[:, :, :, 1]  # inside minus outside, per point and channel
        # one number per side: the mean step, so texture that flips sign averages away
        side = np.abs(step.mean(axis=(3, 4))).sum(axis=-1)
        return side.sum(axis=2).T

    def faces(self, gray: np.ndarray, levels: np.ndarray, squares: np.ndarray) -> np.ndarray:
        """(len(squares), LETTER_PX, LETTER_PX) upright top-face crops at ``levels``, of
        ``gray``'s type.

        Each crop is one perspective warp: laying out its 1,600 points for ``cv2.remap``
        cost ten times as much as the sampling (12 ms per 100 crops against 3 ms warped, on
        this 2-core machine), and a read cuts about 170 crops."""
        out = np.empty((len(squares), LETTER_PX, LETTER_PX), gray.dtype)
        for k, (level, square) in enumerate(zip(levels, squares, strict=True)):
            out[k] = cv2.warpPerspective(
                gray,
                self.crops[level, square],
                (LETTER_PX, LETTER_PX),
                flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                borderMode=cv2.BORDER_REPLICATE,
            )
        return out

    def face_colour(self, image: np.ndarray, levels: np.ndarray, squares: np.ndarray) -> np.ndarray:
        """(len(squares), 3) median colour of each face's ring at ``levels``: a tile set prints
        every face on one colour, outside the letter."""
        cells = cell_origins()[squares][:, None] + _ring_offsets()[None]
        pts = np.empty(cells.shape)
        for level in np.unique(levels):
            pick = levels == level
            pts[pick] = project(self.planes[level], cells[pick])
        ring = len(_ring_offsets())
        samples = sample(image, as_map(pts), len(squares) * ring).reshape(len(squares), ring, -1)
        return np.median(samples, axis=1)

    def ink_on_board(
        self, boxes: np.ndarray, levels: np.ndarray, squares: np.ndarray
    ) -> np.ndarray:
        """Letter box centres (x0, y0, x1, y1 in crop pixels) -> where they appear on the board
        plane, in cells: a measurement that does not depend on the lean it was cropped with."""
        lo, hi = FACE_INSET + LETTER_MARGIN, 1.0 - FACE_INSET - LETTER_MARGIN
        mid = np.stack([boxes[:, 0] + boxes[:, 2], boxes[:, 1] + boxes[:, 3]], axis=1) / 2
        cells = cell_origins()[squares] + lo + mid / LETTER_PX * (hi - lo)
        return raised(self.lean, levels, cells)


def face_centres(lean: np.ndarray, squares: np.ndarray) -> np.ndarray:
    """(MAX_HEIGHT, n, 2) where each height puts each square's face centre on the board plane."""
    return raised(lean, np.arange(1, LEVELS)[:, None], cell_origins()[squares][None] + 0.5)


@dataclass
class View:
    """One view of the board (camera frame or rectified image) and its fixed sample maps."""

    size: tuple[int, int]
    cells: np.ndarray
    """Board cells on the board plane -> this view's pixels."""
    colour_map: np.ndarray
    rim_map: np.ndarray
    footprint_map: np.ndarray
    """Every square's ring of ``_ring_offsets`` on the board plane: inside a stack's footprint."""
    grid_map: np.ndarray
    """Every square's ``_grid_offsets`` on the board plane: its printed lines and its well."""
    base: Layout

    @classmethod
    def build(cls, cells: np.ndarray, lean: np.ndarray, size: tuple[int, int]) -> View:
        origins = cell_origins()
        colour_pts = np.stack(
            [
                project(cells @ homology(lean, lv), origins[:, None] + _colour_offsets()[None])
                for lv in COLOUR_LEVELS
            ]
        )
        return cls(
            size=size,
            cells=cells,
            colour_map=as_map(colour_pts),
            rim_map=as_map(project(cells, _rim_points())),
            footprint_map=as_map(project(cells, origins[:, None] + _ring_offsets()[None])),
            grid_map=as_map(project(cells, origins[:, None, None, None] + _grid_offsets()[None])),
            base=Layout.build(cells, lean),
        )

    def colour_samples(self, image: np.ndarray) -> np.ndarray:
        """(len(COLOUR_LEVELS), N, points, 3) colours across each square's middle on those
        planes."""
        n = len(COLOUR_GRID) ** 2
        samples = sample(image, self.colour_map, len(COLOUR_LEVELS) * N * n)
        return samples.reshape(len(COLOUR_LEVELS), N, n, -1)

    def colours(self, image: np.ndarray) -> np.ndarray:
        """(len(COLOUR_LEVELS), N, 3) median colour of each square's middle on those planes:
        seen obliquely, a tall stack's side can match the board, but not its face too."""
        return np.median(self.colour_samples(image), axis=2)

    def footprints(self, image: np.ndarray) -> np.ndarray:
        """(N, ring points, 3) colours on each square's footprint ring on the board plane,
        where no letter is printed: a stack there always hides it."""
        ring = len(_ring_offsets())
        return sample(image, self.footprint_map, N * ring).reshape(N, ring, -1)

    def grid(self, image: np.ndarray) -> np.ndarray:
        """(N, 4 sides, 2 [line, well], len(GRID_ALONG), 3) colours on the printed grid lines
        round each square on the board plane and in its well beside them."""
        shape = (N, 4, 2, len(GRID_ALONG))
        return sample(image, self.grid_map, int(np.prod(shape))).reshape(*shape, -1)

    def rim(self, image: np.ndarray) -> np.ndarray:
        return sample(image, self.rim_map, len(_rim_points()))
