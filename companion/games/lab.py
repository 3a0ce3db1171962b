"""What the render and bench lab needs of a game: photo-like boards, positions, whole games.

None of this is used while refereeing a table; it makes the synthetic photos that tests, the
bundled samples and ``companion bench`` read, and tallies what a reader got wrong.  Kept apart
from the rules (``base.py``) so that the referee never loads the renderers.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic

import numpy as np

from companion.games.base import JSON, Game, S


@dataclass(frozen=True)
class Layer:
    """Part of a board that stands above the table (a tile's side, a stack's top face).

    ``image`` is BGRA, top-down, the same size and scale as ``Lab.draw_board``'s image, and
    transparent where the layer has nothing; ``height`` is its height above the board surface
    in cells.  The scene synthesiser projects each layer through the camera at its height, so
    a tilted camera sees stacks lean and lower tiles' sides show.
    """

    height: float
    image: np.ndarray


@dataclass(frozen=True)
class Looks:
    """A game's named board looks.  Readers are tuned only on ``tuned``; the benchmark reports
    accuracy on ``unseen``, looks that differ in everything a real set can."""

    tuned: tuple[str, ...]
    unseen: tuple[str, ...]

    @property
    def all(self) -> tuple[str, ...]:
        return (*self.tuned, *self.unseen)


@dataclass(frozen=True)
class PlayerStart(Generic[S]):
    """A start position for ``players`` players and the positions play reaches from it."""

    players: int
    start: S
    positions: Callable[[np.random.Generator], S]


class Lab(ABC, Generic[S]):
    """One game's drawings and made-up positions, for renders, tests and the benchmark."""

    def __init__(self, game: Game[S]) -> None:
        self.game = game

    # --- drawings -------------------------------------------------------------------------
    @property
    @abstractmethod
    def looks(self) -> Looks:
        """The board looks ``draw_board`` knows."""

    @abstractmethod
    def draw_board(
        self, state: S, look: str, rng: np.random.Generator, *, px_per_cell: int = 96
    ) -> np.ndarray:
        """A top-down photo-like BGR image of the physical board in a named look.

        It covers exactly the rectified extent (the cell area plus ``geometry.margin`` cells on
        each side) at ``px_per_cell`` pixels per cell, so the playing area's corners lie at
        ``geometry.area_corners() * px_per_cell / geometry.cell_px``.  The scene synthesiser
        puts it on a table under a camera; the game only says what the board looks like.
        """

    def raised(
        self, state: S, look: str, rng: np.random.Generator, *, px_per_cell: int = 96
    ) -> list[Layer]:
        """What stands above the board surface, lowest first (flat games have nothing)."""
        return []

    def table_items(
        self, state: S, look: str, rng: np.random.Generator, *, px_per_cell: int = 96
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """What lies flat on the table beside the board (Labyrinth's spinner card): pairs of a
        top-down BGR image and its outer corners (TL, TR, BR, BL) in board cells; most games
        have nothing there."""
        return []

    # --- positions ------------------------------------------------------------------------
    @abstractmethod
    def random_state(self, rng: np.random.Generator) -> S:
        """Any position the board can physically show (for rendered test and bench images)."""

    def stress_state(self, rng: np.random.Generator) -> S | None:
        """A position harder to read than play usually leaves, for the benchmark's second
        figure; None where ``random_state`` is already that hard."""
        return None

    def fewer_players(self, rng: np.random.Generator) -> list[PlayerStart[S]]:
        """Starts with fewer players than the set has pieces for, for a game whose reader
        learns from the start who plays and what their pieces look like (Labyrinth): the
        benchmark calibrates on each and reads positions with only those players' pieces.
        Most games have none."""
        return []

    def random_game(self, rng: np.random.Generator) -> list[S] | None:
        """Every settled board of one whole game played by random players, the start first,
        each one legal play after the last (for the benchmark's reads in the order a table
        shows them, ``Reader.remember`` included); None for a game with no such players."""
        return None

    @abstractmethod
    def sample_script(self, seed: int) -> tuple[JSON, list[JSON]]:
        """A whole scripted game for the bundled samples: (settings, states and events in the
        ``referee`` .jsonl form), showing the game's interesting cases (illegal moves, scores)."""

    # --- tallies --------------------------------------------------------------------------
    def reading_errors(self, truth: S, seen: S) -> dict[str, tuple[int, int]]:
        """Benchmark tallies, name -> (wrong, counted): by default whole cells; a game may
        also split them (Upwords: empty/tile, letter, height)."""
        return {"cells": (len(self.wrong_cells(truth, seen)), len(self.game.cells(truth)))}

    def wrong_cells(self, truth: S, seen: S) -> list[str]:
        """The cells read wrong, by name: by default those whose values differ; a game whose
        cell values have equal spellings compares them as its tallies do (Octiles: a symmetric
        tile's equivalent rotations)."""
        want, got = self.game.cells(truth), self.game.cells(seen)
        return [cell for cell in want if want[cell] != got[cell]]

    def extra_bench(self, *, boards: int, seed: int) -> list[str]:
        """Report lines of game-specific benchmarks (Upwords: its letter reader against
        Tesseract on the same crops); most games have none."""
        return []
