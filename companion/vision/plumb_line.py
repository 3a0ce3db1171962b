"""The lens's barrel or pincushion from the start photo alone: the markers' sides must line up.

Whatever the game, each corner marker is laid with two sides along the tray's two outer edges
(``markers.py``, calibration/README.md), so the eight marker sides beside one tray edge lie on
two straight lines in the world: the edge's own line through both tray corners, and its
parallel one marker side further out.  Perspective keeps lines straight; a lens does not.
So the one-term lens (Brown's k1) that puts the four corners of each such line back on a line
is the estimate: the plumb-line method, with the markers' sub-pixel corners as the plumb
lines' points and no game knowledge.  One photo of a plane cannot tell the focal length and
the lens's centre from a bow, so the centre is the frame's middle and the radius is counted in
``camera.DEFAULT_FOCAL`` frame widths (only k1 over the focal squared moves pixels).

On renders of every game's unseen looks (k1 -0.3 to +0.1 at focal lengths 0.6-1.0 frame
widths, 4 games x 3 seeds) the estimate came within 0.02 of the true k1, once 0.035; the signal
is small (k1 -0.1 leaves the corners 0.2-0.9 px off their lines), so cards laid a degree askew
by hand (0.7 px at a marker's far corner) spoil it: the sheet is the sure way.  With
hand-given corners there are no marker sides, so such a camera's lens comes from the ChArUco
sheet (``charuco.py``) or none.
"""

from __future__ import annotations

import numpy as np

from companion.vision.camera import DEFAULT_FOCAL
from companion.vision.lens import Lens
from companion.vision.markers import CORNER_IDS

K1_RANGE = (-0.5, 0.3)
"""Candidate bendings: past -0.5 at 0.8 frame widths' focal a one-term lens folds back inside a
4:3 frame's corners, and table cameras with pincushion this strong are not made."""
K1_STEPS = (0.02, 0.001)
"""Coarse grid, then a fine one around the coarse best."""
UNDO_STEPS = 40
"""Fixed-point steps undoing a candidate lens (as ``lens.INVERSE_STEPS``)."""
MAX_LEFT = 0.6
"""The best lens must leave at most this share of the markers' crookedness (rms distance from
their lines) that a pinhole leaves, or the camera is taken for a pinhole: on pinhole renders
the best k1 left 0.9-1.0 of it (the corners' own noise of 0.05-0.35 px: once a spurious k1 of
-0.015 that moved corners 4 px), on bent ones (k1 -0.2 to +0.1) 0.1-0.6, and on weakly bent
ones (k1 -0.05 to -0.1 seen from 25-35 degrees) up to 0.9, which are then left unestimated."""


def _line_corners(found: dict[int, np.ndarray]) -> np.ndarray:
    """The eight lines as indices into the markers' 16 corners (id-major), 4 corners each."""
    quads = [np.asarray(found[i], np.float64) for i in CORNER_IDS]
    middle = np.mean([q.mean(axis=0) for q in quads], axis=0)
    inner = [int(np.argmin(np.linalg.norm(q - middle, axis=1))) for q in quads]
    tray = np.array([q[j] for q, j in zip(quads, inner, strict=True)])
    roles = []
    for i, (quad, j) in enumerate(zip(quads, inner, strict=True)):
        beside = [(j + 1) % 4, (j - 1) % 4]
        onward = tray[(i + 1) % 4] - tray[i]  # tray edge i runs from corner i to corner i + 1
        # of the two corners beside the inner one, the one on edge i's line points away from
        # corner i + 1; the other lies on the line of edge i - 1
        on_edge = beside[int(np.argmin([np.dot(quad[b] - quad[j], onward) for b in beside]))]
        on_previous = beside[0] if on_edge == beside[1] else beside[1]
        roles.append({"edge": on_edge, "previous": on_previous, "inner": j, "outer": (j + 2) % 4})
    lines = []
    for i in range(4):
        k = (i + 1) % 4
        mine, theirs = roles[i], roles[k]
        lines.append(
            [
                4 * i + mine["edge"],
                4 * i + mine["inner"],
                4 * k + theirs["inner"],
                4 * k + theirs["previous"],
            ]
        )
        lines.append(
            [
                4 * i + mine["outer"],
                4 * i + mine["previous"],
                4 * k + theirs["edge"],
                4 * k + theirs["outer"],
            ]
        )
    return np.array(lines)


def _crookedness(seen: np.ndarray, lines: np.ndarray, k1s: np.ndarray) -> np.ndarray:
    """Per candidate k1: the squared distances of the lines' corners from their fitted lines,
    summed, once the candidate lens is undone (``seen``: corners in focal units about the
    centre).  A candidate the corners lie past the fold of is impossible: infinite."""
    ideal = np.repeat(seen[None], len(k1s), axis=0)
    bend = k1s[:, None, None]
    with np.errstate(all="ignore"):
        for _ in range(UNDO_STEPS):
            ideal = seen[None] / (1.0 + bend * (ideal**2).sum(axis=2, keepdims=True))
        back = ideal * (1.0 + bend * (ideal**2).sum(axis=2, keepdims=True))
        points = ideal[:, lines]  # candidates x lines x 4 x 2
        centred = points - points.mean(axis=2, keepdims=True)
        scatter = np.einsum("clpi,clpj->clij", centred, centred)
        smallest = np.linalg.eigvalsh(scatter)[..., 0].sum(axis=1)
    faithful = np.isfinite(smallest) & (np.abs(back - seen[None]).max(axis=(1, 2)) < 1e-6)
    return np.where(faithful, smallest, np.inf)


def estimate_lens(found: dict[int, np.ndarray], image_size: tuple[int, int]) -> Lens | None:
    """The one-term lens that lines the markers' sides up, or None for a pinhole (no bending
    straightens them clearly better, ``MAX_LEFT``).  ``found``: the four corner markers'
    frame corners (``calibration.find_markers``, sub-pixel)."""
    width, height = image_size
    focal, centre = DEFAULT_FOCAL * width, np.array([width / 2.0, height / 2.0])
    corners = np.concatenate([np.asarray(found[i], np.float64) for i in CORNER_IDS])
    seen = (corners - centre) / focal
    lines = _line_corners(found)
    coarse, fine = K1_STEPS
    candidates = np.arange(K1_RANGE[0], K1_RANGE[1] + coarse / 2, coarse)
    k1 = float(candidates[int(np.argmin(_crookedness(seen, lines, candidates)))])
    candidates = np.arange(k1 - coarse, k1 + coarse + fine / 2, fine)
    k1 = float(candidates[int(np.argmin(_crookedness(seen, lines, candidates)))])
    left, pinhole = _crookedness(seen, lines, np.array([k1, 0.0]))
    if not left <= MAX_LEFT**2 * pinhole:
        return None
    return Lens.radial(focal, (float(centre[0]), float(centre[1])), k1, source="estimate")
