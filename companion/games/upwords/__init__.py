"""Upwords: stacked letter tiles on a 10x10 board, judged with the ENABLE word list.

This module only wires the parts to the ``Game`` interface: ``model`` (board, notation, tile
set), ``dictionary``, ``play`` (one play's rules and score), ``rules`` (the match: turns,
challenges, the end), ``inference`` (which tiles a new board added), ``generator`` (the
private rack helper), ``reader`` (image -> board, through its stages ``camera``, ``layout``,
``occupancy``, ``faces``, ``heights``, ``letters``, ``memory``), ``svg`` (drawings for the
page), and for the lab ``draw`` (photo-like looks, tiles as raised layers), ``selfplay``,
``script`` and ``lab``.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, ClassVar

from companion.errors import InputError
from companion.games.base import JSON, BoardGeometry, Game, Match
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

if TYPE_CHECKING:
    from companion.games.lab import Lab
    from companion.games.reading import Reader


class UpwordsGame(Game[Board]):
    """The Upwords game as the core sees it."""

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

    def new_match(self, settings: JSON) -> Match[Board]:
        from companion.games.upwords.rules import UpwordsMatch

        return UpwordsMatch(self.settings_for(settings))

    def board_svg(
        self, state: Board, *, highlights: tuple[str, ...] = (), marks: JSON | None = None
    ) -> str:
        from companion.games.upwords.svg import board_svg

        return board_svg(state, highlights=highlights)

    @property
    def reader(self) -> type[Reader[Board]]:
        from companion.games.upwords.reader import TileReader

        return TileReader

    @cached_property
    def lab(self) -> Lab[Board]:
        from companion.games.upwords.lab import UpwordsLab

        return UpwordsLab(self)


GAME = UpwordsGame()
