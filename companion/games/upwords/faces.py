"""Finding each tile's top face: the height whose crop shows its letter, and where it lies.

A tile's letter is printed in the middle of its top face, so a crop cut where some height puts
the face shows the letter whole only near the right height.  Each candidate square is cropped
first at the height whose face outline the image fits best, then at the next best while no
letter shows; once letters are found the lean is refitted to them and the rest looked for again.
Where a letter lies on the board plane (``Layout.ink_on_board``) does not depend on the lean it
was cropped with, so it is what tells the heights apart (``heights.choose_levels``), and a crop
at a height the letter's position rules out is cut again where it points.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from companion.games.upwords.heights import choose_levels, refine_lean
from companion.games.upwords.layout import LETTER_MARGIN, LEVELS, Layout, View, face_centres
from companion.games.upwords.letters import Ink, find_ink, fit_glyph
from companion.games.upwords.model import MAX_HEIGHT

MIN_REFINE_TILES = 6
"""Letters needed before the lean is refitted to them."""
STRAY_MISS = 0.08
"""A letter farther than this (cells) from every height's face centre is looked for again at
each height: loose stacks and camera error stay well inside it."""
MAX_MISS = 0.15
"""A letter farther than this (cells) from every height's face centre is not this square's: a
tall neighbour's face leaning over it lies 0.2 cells or more off, while a loose stack and the
refitted lean keep a square's own letter within a few hundredths."""
RECROPS = 2
"""Times a letter is cropped again at the height its position points to."""


@dataclass
class Letters:
    """The letters found on some squares so far, one entry per square; each search step fills
    in or replaces entries."""

    squares: np.ndarray
    inks: list[Ink | None]
    """The letter's ink in its crop (``letters.find_ink``), None while none was found."""
    crops: np.ndarray
    """The height each letter was cropped at."""
    fine: np.ndarray
    """(n, 4) the ink box to a fraction of a crop pixel (``fine_box``)."""
    seen: np.ndarray
    """(n, 2) where each letter's centre lies on the board plane, in cells."""

    @classmethod
    def none_yet(cls, squares: np.ndarray) -> Letters:
        """No letter found yet on any of ``squares``."""
        n = len(squares)
        return cls(squares, [None] * n, np.zeros(n, np.intp), np.zeros((n, 4)), np.zeros((n, 2)))

    def found(self) -> np.ndarray:
        """Positions of the entries that hold a letter."""
        return np.array([k for k, ink in enumerate(self.inks) if ink is not None], np.intp)

    def glyphs(self) -> np.ndarray:
        """(n, GLYPH, GLYPH) the letters found, normalised for ``LetterClassifier.classify``
        (entries without one are left out)."""
        return np.stack([fit_glyph(ink.letter) for ink in self.inks if ink is not None])

    def drop(self, entries: np.ndarray) -> None:
        """Forget the letters at ``entries``: what showed there was no letter after all."""
        for k in entries:
            self.inks[k] = None

    def subset(self, entries: np.ndarray) -> Letters:
        """A copy of those entries (in that order), to be refined apart from these."""
        return Letters(
            self.squares[entries],
            [self.inks[k] for k in entries],
            self.crops[entries],
            self.fine[entries],
            self.seen[entries],
        )


def find_letters(
    image: np.ndarray,
    gray: np.ndarray,
    view: View,
    candidates: np.ndarray,
    tile_coloured: np.ndarray,
    lean: np.ndarray,
) -> tuple[Letters, Layout, np.ndarray]:
    """Every candidate square's letter, the layout of the lean the letters show, and the face
    outlines' scores (``Layout.edge_scores``) under it.

    ``tile_coloured`` says which candidates are far enough from the board's colour to be worth
    a crop at every height; the others get one, at their best outline's height.  After the
    lean is refitted, those others are cropped again only where the refit moved their faces
    by more than the margin a crop keeps inside the face outline (``LETTER_MARGIN``): nearer,
    the crop shows what it showed.  On 48 frames of four unseen looks at 25-35 degrees,
    cropping them all again cut 15 more crops a read (134 -> 149) and found 2 letters, both a
    neighbour's over an empty square.  Squares that look like tiles are always looked at
    again: stress positions' 4- and 5-high stacks show their letter only under the refitted
    lean though their faces moved less than that, and left letterless they call the board
    covered.
    """
    layout = view.base
    letters = Letters.none_yet(candidates)
    everywhere = np.ones(len(candidates), bool)
    scores = layout.edge_scores(image, candidates)
    _crop_best_heights(letters, layout, gray, scores, tile_coloured, everywhere)
    got = letters.found()
    if got.size < MIN_REFINE_TILES:
        return letters, layout, scores
    # the calibrated lean rests on an assumed lens; the letters show the real one
    refined = Layout.build(view.cells, refine_lean(lean, letters.seen[got], candidates[got]))
    shift = face_centres(refined.lean, candidates) - face_centres(layout.lean, candidates)
    moved = np.linalg.norm(shift, axis=2).max(axis=0) > LETTER_MARGIN
    scores = refined.edge_scores(image, candidates)
    _crop_best_heights(letters, refined, gray, scores, tile_coloured, moved | tile_coloured)
    return letters, refined, scores


def _crop_best_heights(
    letters: Letters,
    layout: Layout,
    gray: np.ndarray,
    scores: np.ndarray,
    tile_coloured: np.ndarray,
    wanted: np.ndarray,
) -> None:
    """Crop each ``wanted`` face still without a letter where its outline fits best; a letter
    cut by the crop's border means that guess was off, so try the next best heights for
    squares that look like tiles."""
    ranked = np.argsort(-scores, axis=1) + 1
    todo = np.array(
        [k for k in range(len(letters.inks)) if letters.inks[k] is None and wanted[k]], np.intp
    )
    for rank in range(MAX_HEIGHT):
        if todo.size == 0:
            break
        levels = ranked[todo, rank]
        faces = layout.faces(gray, levels, letters.squares[todo])
        hits: list[int] = []
        for k, level, face in zip(todo, levels, faces, strict=True):
            ink = find_ink(face)
            if ink is not None:
                letters.inks[k], letters.crops[k], letters.fine[k] = ink, level, fine_box(face, ink)
                hits.append(k)
        if hits:
            letters.seen[hits] = layout.ink_on_board(
                letters.fine[hits], letters.crops[hits], letters.squares[hits]
            )
        todo = np.array([k for k in todo if letters.inks[k] is None and tile_coloured[k]], np.intp)


def find_strays(letters: Letters, layout: Layout, gray: np.ndarray, predicted: np.ndarray) -> None:
    """A letter that lies on no face of its stack (farther than ``STRAY_MISS`` from every
    height's face centre, ``predicted``) was a taller neighbour's face leaning over the crop:
    look at every height for a letter where that height puts it."""
    stray = np.linalg.norm(predicted - letters.seen[None], axis=2).min(axis=0) > STRAY_MISS
    options = np.arange(1, LEVELS)
    for k in np.flatnonzero(stray):
        square = letters.squares[k : k + 1]
        faces = layout.faces(gray, options, np.full(MAX_HEIGHT, square[0]))
        for level, face in zip(options, faces, strict=True):
            ink = find_ink(face)
            if ink is None:
                continue
            at = layout.ink_on_board(fine_box(face, ink)[None], np.array([level]), square)[0]
            if np.linalg.norm(at - predicted[level - 1, k]) < STRAY_MISS:
                letters.inks[k], letters.crops[k], letters.seen[k] = ink, level, at
                break


def settle_heights(
    letters: Letters,
    layout: Layout,
    gray: np.ndarray,
    scores: np.ndarray,
    predicted: np.ndarray,
    silhouette: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each stack's height, how far its letter lies from that height's face centre and how
    much more the next best height costs (``heights.choose_levels``).  A crop at the wrong
    height can cut the letter (a T's bar), so each letter cropped at another height than
    chosen is looked for again there, up to ``RECROPS`` times."""
    for _ in range(RECROPS + 1):
        levels, miss, margin = choose_levels(scores, letters.seen, predicted, silhouette)
        moved = np.flatnonzero(levels != letters.crops)
        if moved.size == 0:
            break
        faces = layout.faces(gray, levels[moved], letters.squares[moved])
        for k, face in zip(moved, faces, strict=True):
            ink = find_ink(face)
            if ink is not None:
                letters.inks[k], letters.crops[k] = ink, levels[k]
                letters.seen[k] = layout.ink_on_board(
                    fine_box(face, ink)[None], letters.crops[k : k + 1], letters.squares[k : k + 1]
                )[0]
    return levels, miss, margin


def fine_box(face: np.ndarray, ink: Ink) -> np.ndarray:
    """The ink box (x0, y0, x1, y1) to a fraction of a crop pixel.

    ``find_ink`` thresholds, so its box moves in whole crop pixels (two hundredths of a cell),
    as much as one tile level shifts a face at small tilt.  How far the ink covers the pixels
    just inside and outside each side of the box places that side between pixels.
    """
    glyph, (x0, y0, x1, y1) = ink.box_glyph, ink.box
    inner = face[max(y0 - 2, 0) : y1 + 2, max(x0 - 2, 0) : x1 + 2]
    ring = face.size - inner.size
    strokes = cv2.countNonZero(glyph)  # the ink box is binary
    if not ring or not strokes:
        return np.array([x0, y0, x1, y1], np.float64)
    # OpenCV's sums, not numpy's: this runs on some 80 crops a read, where numpy's cost per
    # call was most of the time; the sums of whole grey levels are exact either way
    paper = (cv2.sumElems(face)[0] - cv2.sumElems(inner)[0]) / ring
    on_ink = cv2.multiply(face[y0:y1, x0:x1], glyph, dtype=cv2.CV_32F)
    inked = cv2.sumElems(on_ink)[0] / strokes
    if abs(inked - paper) < 1.0:
        return np.array([x0, y0, x1, y1], np.float64)
    # the most inked pixel of each column and row across the box, darkest or lightest
    most = np.max if inked > paper else np.min
    columns, rows = most(face[y0:y1], axis=0).tolist(), most(face[:, x0:x1], axis=1).tolist()

    def cover(line: list[float], at: int) -> float:
        """How far the most inked pixel of column or row ``at`` goes from paper to ink."""
        return min(max((line[at] - paper) / (inked - paper), 0.0), 1.0)

    def sides(line: list[float], lo: int, hi: int) -> tuple[float, float]:
        before = cover(line, lo - 1) if lo > 0 else 0.0
        after = cover(line, hi) if hi < len(line) else 0.0
        return lo + (1.0 - cover(line, lo)) - before, hi - (1.0 - cover(line, hi - 1)) + after

    left, right = sides(columns, x0, x1)
    top, bottom = sides(rows, y0, y1)
    return np.array([left, top, right, bottom], np.float64)
