"""Upwords: stacked letter tiles on a 10x10 board, judged with the ENABLE word list.

This module only wires the parts to the ``Game`` interface: ``model`` (board, notation, tile
set), ``dictionary``, ``rules`` (the match, every turn rule and the scoring), ``inference``
(which tiles a new board added), ``generator`` (the private rack helper), ``reader`` and
``letters`` (image -> board), ``draw`` (photo-like looks, tiles as raised layers) and ``svg``.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from companion.errors import InputError
from companion.games.base import JSON, BoardGeometry, Match, PackagedGame
from companion.games.upwords.model import (
    LETTERS,
    MAX_HEIGHT,
    SIZE,
    Board,
    cell_name,
    format_square,
    parse_cell,
    parse_square,
)


class UpwordsGame(PackagedGame):
    """The Upwords game as the core sees it."""

    package: ClassVar[str] = "companion.games.upwords"

    id: ClassVar[str] = "upwords"
    title: ClassVar[str] = "Upwords"
    # squares assumed ~2.3 cm (a 10x10 grid of about 23 cm); letters need more pixels than arcs;
    # heights are read from parallax, which a camera straight above hardly has (docs/upwords.md)
    geometry: ClassVar[BoardGeometry] = BoardGeometry(
        cols=SIZE,
        rows=SIZE,
        cell_px=32,
        margin=0.5,
        cell_cm=2.3,
        min_camera_px=45,
        tilt_deg=(25.0, 35.0),
    )

    def start_state(self) -> Board:
        return Board.empty()

    def parse_state(self, obj: JSON) -> Board:
        if not isinstance(obj, dict) or obj.get("game") != self.id:
            game = obj.get("game") if isinstance(obj, dict) else None
            raise InputError(f"expected an upwords state, got game {game!r}")
        if "cells" not in obj:
            raise InputError("upwords state has no 'cells': expected 10 rows of 10 strings")
        return Board.from_rows(obj["cells"])

    def format_state(self, state: Board) -> JSON:
        return {"game": self.id, "cells": state.rows()}

    def cells(self, state: Board) -> dict[str, str]:
        return {
            cell_name(r, c): format_square(state[r, c]) for r in range(SIZE) for c in range(SIZE)
        }

    def with_cells(self, state: Board, values: dict[str, str]) -> Board:
        squares = list(state.squares)
        for name, value in values.items():
            row, col = parse_cell(name)
            squares[row * SIZE + col] = parse_square(value)
        return Board(tuple(squares))

    def cell_choices(self, cell: str) -> list[str]:
        parse_cell(cell)
        return ["", *(f"{h}{letter}" for h in range(1, MAX_HEIGHT + 1) for letter in LETTERS)]

    def settings_for(self, options: JSON) -> JSON:
        from companion.games.upwords.rules import match_settings

        return match_settings(options)

    def new_match(self, settings: JSON) -> Match:
        from companion.games.upwords.rules import UpwordsMatch

        return UpwordsMatch(self.settings_for(settings))

    def random_state(self, rng: np.random.Generator) -> Board:
        """A position from the second half of a game played with random players (``selfplay``):
        the boards a reader is shown."""
        from companion.games.upwords.selfplay import played_board

        return played_board(rng)

    def random_game(self, rng: np.random.Generator) -> list[Board]:
        """A whole game of random players choosing among the rack helper's best plays."""
        from companion.games.upwords.selfplay import played_game

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
        from companion.games.upwords.ocr_bench import compare

        return [
            "letter reader and Tesseract on the same face crops:",
            *compare(self, boards=max(2, boards // 10), seed=seed),
        ]
