"""Stack heights from parallax: which height puts each stack's face where the view shows it.

Under a tilted camera a stack's top face appears moved along the lean, the more the higher it
is.  Three cues say where: the letter's centre (printed in the middle of the face), how sharply
the image steps across each height's face outline, and the silhouette's width
(``silhouette``).  The calibrated lean rests on an assumed lens, so with enough letters in view
it is first refitted to where they lie (``refine_lean``), their heights unknown.  Where the
cues leave the next best height nearly as likely (``HEIGHT_MARGIN``: overhead, thin tiles, a
face half in shadow) the view does not show the height, and the reader says it is unsure
rather than guess.
"""

from __future__ import annotations

import numpy as np

from companion.games.upwords.layout import LEVELS, cell_origins, face_centres
from companion.games.upwords.model import TILE_THICKNESS

EDGE_WEIGHT = 16.0
"""Weight of the face-outline evidence against the letter-position evidence."""
REFINE_ROUNDS = 10
"""Rounds of the lean refit (each reweighs the heights, then solves for the lean)."""
LETTER_SPREAD = 0.012
"""Spread (cells) of a letter's centre about its face's centre: a loose stack sits up to 0.02
cells off its well's centre on each axis (``draw.MAX_SHIFT``), which spreads about this much."""
LEAN_SPREAD = np.array([0.15, 0.15, 0.03])
"""How far the true lean may lie from the calibrated one (a principal point off-centre)."""
SILHOUETTE_SPREAD = 0.015
"""Spread (cells) of a measured silhouette width about the true one (shadows, low contrast)."""
HEIGHT_MARGIN = 10.0
"""How much more the next best height must cost for a height to count as shown (below it the
height is unknown and the page asks).  Set on the tuned looks only, their tiles made 0.10,
0.16, 0.25 and 0.35 cells thick (a harness outside the repo: 12 cameras at 0-20 degrees and 12
at 25-35, thickness unknown, given and learned): the smallest margin past which sure heights
were under 0.5 % wrong in every group, overhead 3 of 744 with the thickness given and 2 of 414
unknown, 25-35 degrees 0 of 1,502; at 5, 14 of 960 overhead were wrong, and with no margin
272 of 1,667 (a neighbour's outline or a loose stack moves the cues that much)."""
SILHOUETTE_CAP = 2.0
"""Most a silhouette width can cost a height: a neighbour's edge can mislead it."""


def refine_lean(prior: np.ndarray, seen: np.ndarray, squares: np.ndarray) -> np.ndarray:
    """The lean that best explains where the letters lie, their heights unknown (soft EM).

    Each round weighs every height for every letter by how near its face centre lies, then
    solves the weighted least squares for the lean (linear in it), pulled towards the
    calibrated lean so that a few tiles cannot drag it far.  Hard assignments would bias the
    lean towards whatever the first guess favoured.
    """
    centres = cell_origins()[squares] + 0.5
    bx, by = seen[:, 0], seen[:, 1]
    # each level's rows for every letter at once (levels, letters, 3): the x rows, then the y
    z = np.arange(1, LEVELS)[:, None] * TILE_THICKNESS * np.ones(len(squares))
    zero = np.zeros_like(z)
    rows = np.stack([np.stack([-z, zero, z * bx], 2), np.stack([zero, -z, z * by], 2)])
    rhs = np.stack([np.broadcast_to(seen[:, k] - centres[:, k], z.shape) for k in range(2)])
    pull = np.diag(LETTER_SPREAD / LEAN_SPREAD)
    lean = prior.copy()
    for _ in range(REFINE_ROUNDS):
        miss = np.linalg.norm(face_centres(lean, squares) - seen[None], axis=2)
        weight = np.exp(-0.5 * (miss / LETTER_SPREAD) ** 2)
        weight /= np.maximum(weight.sum(axis=0, keepdims=True), 1e-12)
        w = np.sqrt(weight)
        a = np.concatenate([(rows * w[None, ..., None]).reshape(-1, 3), pull])
        b = np.concatenate([(rhs * w[None]).ravel(), prior * LETTER_SPREAD / LEAN_SPREAD])
        lean = np.linalg.lstsq(a, b, rcond=None)[0]
    return lean


def choose_levels(
    edge: np.ndarray,
    centres: np.ndarray,
    predicted: np.ndarray,
    silhouette: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each stack's height from its letter's position, its face outline and its silhouette,
    how far (cells) the letter lies from the nearest height's face centre (a letter far from
    every face is not this square's), and how much more the next best height costs: where the
    view cannot tell two heights apart that margin is small, and the height is unknown.

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
    ranked = np.sort(cost, axis=1)
    return np.argmin(cost, axis=1) + 1, miss.min(axis=1), ranked[:, 1] - ranked[:, 0]
