"""Teach the reader this set: one photo of the pieces laid out in the reader's teaching pattern.

A tile set's own font or paint is what a reader meets least well (real editions differ from the
drawings it was made with), and the page's corrections teach it only one square at a time, in
the middle of a game.  So calibration may be followed by one photo of the set laid out where the
reader's ``teaching_pattern`` says (printed as a sheet in ``calibration/``): every piece's true
value is known there, each is learned as a correction would teach it, and the profile keeps what
was learned.  The photo is read before and after, so the host sees what teaching changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from companion.errors import InputError
from companion.games.base import Game
from companion.vision.calibration import Profile
from companion.vision.pipeline import BoardPipeline


@dataclass(frozen=True)
class Lesson:
    """What one teaching photo taught: pieces learned of those laid out (the pattern's cells
    that differ from the start position), and the photo's cells read right before and after
    (on the photo taught from, so "after" says what the reader can now see there, not how it
    reads other frames)."""

    laid_out: int
    learned: int
    cells: int
    right_before: int
    right_after: int

    def summary(self) -> str:
        return (
            f"learned {self.learned} of the {self.laid_out} pieces laid out; this photo's "
            f"{self.cells} cells read right: {self.right_before} before teaching, "
            f"{self.right_after} after"
        )


def _right(game: Game[Any], truth: Any, seen: Any) -> int:
    true_cells, seen_cells = game.cells(truth), game.cells(seen)
    return sum(seen_cells[name] == value for name, value in true_cells.items())


def teach(game: Game[Any], profile: Profile, photo: np.ndarray) -> Lesson:
    """Teach ``profile``'s reader from ``photo`` of the game's teaching pattern; the profile's
    reader settings are replaced by what it learned (the caller saves it).  ``InputError``
    when the game's reader has nothing to learn that way."""
    pipeline = BoardPipeline(game, profile)
    pattern = pipeline.reader.teaching_pattern()
    if pattern is None:
        raise InputError(
            f"the {game.title} reader has no teaching pattern: it learns this set's look from "
            "the calibration photo and the page's corrections"
        )
    start = game.cells(game.start_state())
    values = game.cells(pattern)
    pieces = {cell: value for cell, value in values.items() if value != start[cell]}
    before, board = pipeline.read(photo)
    learned = pipeline.reader.learn_examples(pipeline.camera_frame(photo), board, pieces)
    after, _ = pipeline.read(photo)
    profile.reader = pipeline.reader.to_json()
    return Lesson(
        laid_out=len(pieces),
        learned=learned,
        cells=len(values),
        right_before=_right(game, pattern, before.state),
        right_after=_right(game, pattern, after.state),
    )
