"""What the camera needs of a game: a reader that turns a rectified board image into a state.

Kept apart from the rules (``base.py``) because only the camera loop, calibration and the lab
use it; a reader is built once per camera by calibration (``Reader.learn``) and rebuilt from
the saved profile on every start (``Reader.from_json``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar, Generic, Self

import numpy as np

from companion.games.base import JSON, BoardGeometry, S


@dataclass(frozen=True)
class Reading(Generic[S]):
    """What a reader saw on one rectified board image.

    ``confidence`` holds one value in 0..1 per cell, in the order of ``Game.cells``.
    ``covered`` is set when something (a hand, an arm, a card) lies over part of the board, so the
    reading must not be trusted even if every cell produced a value.
    """

    state: S
    confidence: np.ndarray
    covered: bool = False
    note: str = ""


class Reader(ABC, Generic[S]):
    """Turns a rectified board image into a ``Reading``; built once per camera by calibration.

    A reader is used by one thread at a time: the frame loop owns it, and page corrections that
    teach it reach it through the loop's queue (``referee/loop.py``)."""

    follows_board: ClassVar[bool] = True
    """True when the board-plane corners are all the reader needs, so a board found again at
    a new place (by its markers, after a knock) is read with no new calibration.  A reader that
    learned the camera's pose for raised pieces says False."""

    @classmethod
    @abstractmethod
    def learn(
        cls,
        board: np.ndarray,
        geometry: BoardGeometry,
        *,
        homography: np.ndarray,
        image_size: tuple[int, int],
    ) -> Self:
        """Calibrate from a rectified image of the start position under this camera;
        ``homography`` maps rectified pixels to frame pixels of ``image_size`` (what a reader
        of raised pieces needs to know where the camera is; flat games ignore it)."""

    @classmethod
    @abstractmethod
    def from_json(cls, params: JSON, geometry: BoardGeometry) -> Self:
        """Rebuild a reader from ``to_json()`` (``ProfileError`` if the params are bad)."""

    @abstractmethod
    def to_json(self) -> JSON:
        """What calibration learned: stored in the profile, given back to ``from_json``."""

    @abstractmethod
    def read(self, board: np.ndarray) -> Reading[S]:
        """Read one rectified BGR image of ``Game.geometry.size``."""

    def read_frame(self, frame: np.ndarray, board: np.ndarray) -> Reading[S]:
        """Read a camera frame whose rectified board is ``board``.  Flat games read the
        rectified board; games with height (stacks, standing figures) may look at the frame,
        where raised parts are not where the board plane's rectification puts them."""
        return self.read(board)

    def learn_example(self, frame: np.ndarray, board: np.ndarray, cell: str, value: str) -> bool:
        """Learn from a cell the players corrected on the page (e.g. a tile set's font); True
        when the reader changed and the profile should be saved.  Two-state cells teach
        nothing.  Raises nothing but ``CompanionError`` for a value it cannot learn from."""
        return False

    def learn_examples(self, frame: np.ndarray, board: np.ndarray, values: dict[str, str]) -> int:
        """Learn several cells of one picture at once (a teaching photo): how many taught the
        reader something.  A reader that reads the whole picture to learn one cell overrides
        this to read it once."""
        return sum(self.learn_example(frame, board, cell, value) for cell, value in values.items())

    @classmethod
    def teaching_pattern(cls) -> S | None:
        """Where to lay this set's pieces for ``companion calibrate --teach`` (a sheet in
        ``calibration/`` shows it), so that each is learned as a page correction would teach
        it; None when the reader has nothing to learn that way."""
        return None

    def remember(self, frame: np.ndarray, board: np.ndarray, state: S) -> None:
        """The referee holds ``state`` true for this settled frame (the camera's reading agreed
        with the match).  A reader may keep, on later frames, the cells that still look as they
        did here rather than read them afresh.  Readers whose cells are read reliably enough
        from every frame alone need nothing of it."""
        return None

    def view_problems(self) -> list[str]:
        """What this camera view cannot read and how to fix the mount, one line each (said by
        ``calibrate`` and ``doctor``); empty when the view serves the reader fully."""
        return []
