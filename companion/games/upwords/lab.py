"""Upwords in the lab: tiles drawn as raised layers, positions from self-play and stress
positions, the scripted sample game, tallies split by what went wrong."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from companion.games.base import JSON
from companion.games.lab import Lab, Layer, Looks
from companion.games.upwords import draw
from companion.games.upwords.model import LETTERS, MAX_HEIGHT, SIZE, Board
from companion.games.upwords.script import sample_script
from companion.games.upwords.selfplay import played_board, played_game

HEIGHT_BOARDS_PER = 24
"""The heights section reads one board per look and pose group for this many of the bench's
boards (18 cameras: 9 unseen looks under both pose groups)."""
SOURCE_ROOT = Path(__file__).resolve().parents[3]
"""The source tree, whose ``realdata/`` the bench measures on (an installed wheel has none)."""


class UpwordsLab(Lab[Board]):
    """Stacks stand above the board, so a tilted camera sees them lean (``raised``)."""

    @property
    def looks(self) -> Looks:
        return Looks(draw.LOOKS_TUNED, draw.LOOKS_UNSEEN)

    def draw_board(
        self, state: Board, look: str, rng: np.random.Generator, *, px_per_cell: int = 96
    ) -> np.ndarray:
        return draw.draw_board(
            state, look, rng, geometry=self.game.geometry, px_per_cell=px_per_cell
        )

    def raised(
        self, state: Board, look: str, rng: np.random.Generator, *, px_per_cell: int = 96
    ) -> list[Layer]:
        return draw.raised(state, look, rng, geometry=self.game.geometry, px_per_cell=px_per_cell)

    def random_state(self, rng: np.random.Generator) -> Board:
        """A position from the second half of a game played with random players (``selfplay``):
        the boards a reader is shown."""
        return played_board(rng)

    def random_game(self, rng: np.random.Generator) -> list[Board]:
        """A whole game of random players choosing among the rack helper's best plays."""
        return played_game(rng)

    def stress_state(self, rng: np.random.Generator) -> Board:
        """Any physically possible board: stacks of 1-5 with random top letters, towers beside
        single tiles far more often than play leaves them."""
        heights = rng.choice(MAX_HEIGHT + 1, SIZE * SIZE, p=[0.4, 0.25, 0.15, 0.1, 0.06, 0.04])
        letters = rng.choice(len(LETTERS), SIZE * SIZE)
        return Board(
            tuple(
                (int(h), LETTERS[int(i)]) if h else (0, "")
                for h, i in zip(heights, letters, strict=True)
            )
        )

    def sample_script(self, seed: int) -> tuple[JSON, list[JSON]]:
        return sample_script(seed)

    def reading_errors(self, truth: Board, seen: Board) -> dict[str, tuple[int, int]]:
        """Squares (letter and height both right), and empty/tile, letter and height apart."""
        occupancy = letters = heights = tiles = squares = 0
        for (h, a), (g, b) in zip(truth.squares, seen.squares, strict=True):
            squares += (h, a) != (g, b)
            if (h > 0) != (g > 0):
                occupancy += 1
            elif h:
                tiles += 1
                letters += a != b
                heights += h != g
        n = SIZE * SIZE
        return {
            "cells": (squares, n),
            "empty or tile": (occupancy, n),
            "letters": (letters, tiles),
            "heights": (heights, tiles),
        }

    def extra_bench(self, *, boards: int, seed: int) -> list[str]:
        # Tesseract, real crops and heights apart: only when the bench asks
        from companion.games.upwords.heights_bench import heights_report
        from companion.games.upwords.ocr_bench import compare
        from companion.games.upwords.real_letters import real_crops_report

        return [
            "letter reader and Tesseract on the same face crops:",
            *compare(self.game, boards=max(2, boards // 10), seed=seed),
            "letter reader on real Scrabble tile crops (never trained or tuned on):",
            *real_crops_report(SOURCE_ROOT),
            *heights_report(self.game, boards=max(1, boards // HEIGHT_BOARDS_PER), seed=seed),
        ]
