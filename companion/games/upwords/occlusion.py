"""What a tilted camera cannot see past a taller stack: hidden letters, squares leaned over.

Seen obliquely, a stack's sides and top hide whatever lies behind it from the camera: part of a
lower neighbour's letter (a P whose bowl is hidden shows an I), and the squares its face leans
over, where a face appears that is not theirs.  Both follow from the heights read and the lean
alone, so the reader can say which reads to doubt without looking again.
"""

from __future__ import annotations

import numpy as np

from companion.games.upwords.layout import TILE_HALF, N, cell_origins, raised
from companion.games.upwords.model import SIZE, TILE_THICKNESS

HIDDEN_SPAN = (0.25, 0.75)
"""Where a face's letter lies, in cells across its square."""
HIDDEN_CONFIDENCE = 0.2
"""Most confidence a letter gets when a taller neighbour hides part of it."""


def hidden_share(lean: np.ndarray, squares: np.ndarray, levels: np.ndarray) -> np.ndarray:
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
    origins = cell_origins()[squares]
    seen = raised(lean, levels[:, None], origins[:, None] + offsets[None])
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
            centre = cell_origins()[other] + 0.5
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


def overhung(
    targets: np.ndarray, stacks: np.ndarray, levels: np.ndarray, lean: np.ndarray
) -> np.ndarray:
    """Which ``targets`` squares a neighbouring stack (of ``stacks`` at ``levels``) leans
    over: one beside or diagonal to it, two or more high, whose face moves towards it."""
    centres = cell_origins() + 0.5
    tall = levels >= 2
    stacks, levels = stacks[tall], levels[tall]
    if stacks.size == 0:
        return np.zeros(len(targets), bool)
    faces = raised(lean, levels, centres[stacks])
    lean_dir = faces - centres[stacks]
    towards = centres[targets][:, None] - centres[stacks][None]
    near = np.abs(towards).max(axis=2) <= 1.0 + 1e-9
    return (near & ((towards * lean_dir[None]).sum(axis=2) > 0)).any(axis=1)
