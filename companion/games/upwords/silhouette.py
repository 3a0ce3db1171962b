"""How wide each stack's silhouette is along both axes: a height cue the loose stack cannot move.

A letter's position says where a stack's top face is, but a stack sits loose in its well and
moves face and letter together, as much as one level does at small tilt.  The silhouette runs
from the footprint's edge to the far edge of the top face, so its width grows with the height
wherever the stack sits.  ``heights.choose_levels`` weighs it with the other cues.
"""

from __future__ import annotations

import numpy as np

from companion.games.upwords.layout import (
    LEVELS,
    TILE_HALF,
    as_map,
    cell_origins,
    project,
    raised,
    sample,
)

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


def _profile_points(lean: np.ndarray, squares: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sample points on the board plane for every square's two profiles, and each height's
    predicted face extent along them.

    Returns (points (n, 2 axes, lines, samples, 2) in cells, face (LEVELS, n, 2 axes, 2) low and
    high end of the face along each axis, in cells from the square's corner; level 0 is the
    bottom tile's footprint).
    """
    origins = cell_origins()[squares]
    u = np.arange(PROFILE_SPAN[0], PROFILE_SPAN[1] + 1e-9, PROFILE_STEP)
    mid = origins + 0.5
    # (n, 2 axes, 2 ends, 2 coordinates): the footprint's two ends along each axis
    ends = np.repeat(mid[:, None, None], 2, axis=1).repeat(2, axis=2)
    for axis in range(2):
        ends[:, axis, :, axis] += [-TILE_HALF, TILE_HALF]
    moved = raised(lean, np.arange(LEVELS)[:, None, None, None], ends[None])
    face = np.stack([moved[:, :, axis, :, axis] for axis in range(2)], axis=2)
    face -= origins[None, :, :, None]
    # the lines follow the stack's middle height across the axis, so they cross base and face
    lift = raised(lean, np.array((LEVELS + 1) // 2), mid) - mid
    pts = np.empty((len(squares), 2, len(PROFILE_LINES), len(u), 2))
    for axis in range(2):
        other = 1 - axis
        across = mid[:, other, None] + lift[:, other, None] / 2 + PROFILE_LINES[None]
        pts[:, axis, :, :, axis] = origins[:, axis, None, None] + u[None, None]
        pts[:, axis, :, :, other] = across[:, :, None]
    return pts, face


def silhouettes(
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
    samples = sample(image, as_map(project(cells, pts)), int(np.prod(shape)))
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
