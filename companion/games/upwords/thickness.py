"""How thick a tile set's tiles are, from where their letters appear: editions differ.

A stack's face appears moved along the lean by its height times the tile thickness, so only
their product shows in a view: the layout's lean is kept as a tile ``TILE_THICKNESS`` thick
would show it, and a set ``k`` times as thick shows the lean times ``k`` (``scaled``).  Two
sources tell ``k``.  A board the referee agreed with says every stack's height, so where its
letters lie is a linear fit for ``k`` (``fit_known``), sharp wherever one level moves a face
visibly; those fits add up over boards.  One frame alone, its heights unknown, says ``k`` up to
a whole-number ratio: stacks of 1 and 2 tiles of 0.30 cells lie where stacks of 2 and 4 tiles
of 0.15 would, so ``frame_scale`` tries every thickness of ``THICKNESS_RANGE`` and tells when
the letters leave more than one possible.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from companion.games.upwords.heights import LETTER_SPREAD
from companion.games.upwords.layout import LEVELS, cell_origins
from companion.games.upwords.model import TILE_THICKNESS

THICKNESS_RANGE = (0.08, 0.42)
"""Tile thicknesses (cells) a set may have: thin plastic 0.10 to chunky wood 0.35, with room."""
SCALE_STEP = 1.015
"""Ratio between neighbouring thicknesses tried on one frame: 1.5 %, a tenth of the step a
level's face moves at 5 high."""
MISS_CAP = 4.5
"""Most a letter costs a thickness (squared misses over two spreads, halved: 3 spreads): a
letter that no height explains is someone else's, not evidence."""
LEVEL_CLIMB = float(np.log(2.0))
"""Cost of each level a letter's height climbs: in self-played positions 64 % of stacks are 1
high, 18 % 2, 8 % 3, 4 % 4 and 5 % 5, each level up to 4 at most half as common as the one
below."""
AMBIGUITY_MARGIN = 3.0
"""A thickness whose letters cost at most this much more than the best one's (where their
cost dips) is as possible."""
SCALE_MARGIN = 1.0
"""Scales whose letters cost this little more than the best one's fit them as well."""
SHARP_SCALE = 1.08
"""Most those may span (ratio) for the frame to tell the scale: 8 % moves a 5-high face by
0.4 levels."""
SAME_SCALE = 1.25
"""Dips within this ratio of the best one are the same answer, only blurred by noise."""
OUTLIER_SPREADS = 3.0
"""A letter this many spreads off the fitted face centre of its known height is left out."""


def scaled(lean: np.ndarray, thickness: float) -> np.ndarray:
    """The lean as the layout takes it (for tiles ``TILE_THICKNESS`` thick) of a set whose
    tiles are ``thickness`` cells thick, from the camera's lean for tiles of the model's."""
    return np.asarray(lean, np.float64) * (thickness / TILE_THICKNESS)


def _scales(thickness: float) -> np.ndarray:
    """The scales of a layout lean for tiles ``thickness`` thick that ``THICKNESS_RANGE``
    spans, ``SCALE_STEP`` apart."""
    lo, hi = (t / thickness for t in THICKNESS_RANGE)
    return lo * SCALE_STEP ** np.arange(int(np.log(hi / lo) / np.log(SCALE_STEP)) + 1)


def _costs(
    lean: np.ndarray,
    seen: np.ndarray,
    squares: np.ndarray,
    scales: np.ndarray,
    heights: np.ndarray | None = None,
    climb: float = 0.0,
) -> np.ndarray:
    """(len(scales),) how badly each scale of the lean explains the letters, each letter at
    its known height or, without ``heights``, at whichever suits it best when each level up
    costs ``climb`` more."""
    levels = np.arange(1, LEVELS)
    # every scale's face centres at once (``layout.face_centres``): (scales, levels, n, 2)
    z = scales[:, None] * levels[None] * TILE_THICKNESS
    centres = cell_origins()[squares] + 0.5
    faces = (centres - z[..., None, None] * lean[:2]) / (1 - z * lean[2])[..., None, None]
    fit = (np.linalg.norm(faces - seen, axis=3) / (2 * LETTER_SPREAD)) ** 2 / 2
    if heights is None:
        best = (fit + climb * levels[None, :, None]).min(axis=1)
    else:
        best = fit[:, heights - 1, np.arange(len(seen))]
    return np.minimum(best, MISS_CAP).sum(axis=1)


def frame_scale(
    lean: np.ndarray, thickness: float, seen: np.ndarray, squares: np.ndarray
) -> tuple[float, bool]:
    """The scale of ``lean`` (a layout lean for tiles ``thickness`` thick) that the letters at
    ``seen`` on ``squares`` show, heights unknown, and whether the view tells it.

    Tiles half as thick put faces at every level these do up to 2 high, and more levels fit
    noise better, so the scales are weighed with ``LEVEL_CLIMB``; but only letters that sit
    3 or more levels up (where the half-thick set has no face) tell the two apart, and without
    them the scale is a guess.  So is one that another scale, not near it, explains as well.
    """
    scales = _scales(thickness)
    costs = _costs(lean, seen, squares, scales, climb=LEVEL_CLIMB)
    best = int(np.argmin(costs))
    padded = np.concatenate([[np.inf], costs, [np.inf]])
    dips = (costs <= padded[:-2]) & (costs <= padded[2:])
    possible = dips & (costs <= costs[best] + AMBIGUITY_MARGIN)
    possible[best] = True
    ratio = scales / scales[best]
    if (possible & ((ratio > SAME_SCALE) | (ratio < 1 / SAME_SCALE))).any():
        return float(scales[best]), False
    # within its dip the climb would pull the scale up (fewer levels cost less): fit without
    near = (ratio <= SAME_SCALE) & (ratio >= 1 / SAME_SCALE)
    fits = _costs(lean, seen, squares, scales)
    plain = np.where(near, fits, np.inf)
    best = int(np.argmin(plain))
    spread = scales[plain <= plain[best] + SCALE_MARGIN]
    whole, half = _costs(lean, seen, squares, np.array([1.0, 0.5]) * scales[best])
    # the climb only settles what the letters leave open, never against what they show; and
    # one letter the half-thick set cannot explain may be a stray (a neighbour's face found
    # over an empty square), so ruling it out takes more than one letter's most cost
    told = (
        half - whole > max(AMBIGUITY_MARGIN, MISS_CAP)
        and spread.max() / spread.min() <= SHARP_SCALE
        and fits[best] <= fits.min() + AMBIGUITY_MARGIN
    )
    return float(scales[best]), bool(told)


@dataclass(frozen=True)
class Fit:
    """A scale of the lean fitted to letters of known heights, and how sure it is."""

    scale: float
    information: float
    """1 / variance of ``scale``: fits of several boards add up by it."""


def fit_known(
    lean: np.ndarray, thickness: float, seen: np.ndarray, squares: np.ndarray, heights: np.ndarray
) -> Fit:
    """The scale of ``lean`` (a layout lean for tiles ``thickness`` thick) that puts each
    letter where its known height's face centre lies.

    A point z up at board point c appears at q = (c - z k v) / (1 - z k v3), i.e.
    k z (v - q v3) = c - q: linear in k, one 2-vector row per letter.  It is solved over the
    letters near the best scale of the whole range (misses capped, so that a neighbour's
    letter or a stack the hand moved cannot pull it).
    """
    if len(seen) == 0:
        return Fit(1.0, 0.0)
    scales = _scales(thickness)
    first = float(scales[int(np.argmin(_costs(lean, seen, squares, scales, heights)))])
    z = heights * TILE_THICKNESS
    u = z[:, None] * (lean[None, :2] - seen * lean[2])
    d = cell_origins()[squares] + 0.5 - seen
    weight = (u * u).sum(axis=1)
    keep = np.linalg.norm(d - first * u, axis=1) < OUTLIER_SPREADS * LETTER_SPREAD
    if weight[keep].sum() <= 0:
        return Fit(first, 0.0)
    scale = float((d[keep] * u[keep]).sum() / weight[keep].sum())
    return Fit(scale, float(weight[keep].sum()) / LETTER_SPREAD**2)
