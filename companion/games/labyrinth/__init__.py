"""Zombie Labyrinth: characters race through 12 joined pieces for brain discs, Dr. Bizarre hunts.

This module only wires the parts to the ``Game`` interface: ``catalog`` (the pieces, a user's
own file too), ``model`` (layout, joined graph, board state), ``rules`` (the stop-set search,
spins, Dr. Bizarre, the match), ``reader`` (layout once, then figures and discs), ``draw``,
``svg`` and ``script`` (the sample game).  Cells, in the reader's confidence order: each
character colour (the space it stands on, or ""), "bizarre", every disc space of the layout
("disc" or ""), then every layout position ("r<row>c<col>": "<piece>/<quarter turns>", e.g.
"p04/2"), so the players can fix a misread layout like any other cell.  The spinner is no cell:
the page's out-of-sync list would then ask the players to turn the arrow back after an
illegal move, and a spin the camera misread is undone and entered like any other.  The
geometry is the default layout's 4 x 3 pieces, one cell a piece.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from companion.errors import InputError
from companion.games.base import JSON, BoardGeometry, Match, PackagedGame
from companion.games.labyrinth.catalog import default_catalog
from companion.games.labyrinth.model import (
    CHARACTER_COLOURS,
    PIECE_CELL,
    Board,
    corrected_layout,
    default_layout,
    format_board,
    graph_of,
    make_board,
    parse_board,
    piece_cell,
    piece_value,
    random_board,
    set_up_board,
)

BIZARRE_CELL = "bizarre"


class LabyrinthGame(PackagedGame):
    """The Zombie Labyrinth game as the core sees it."""

    package: ClassVar[str] = "companion.games.labyrinth"

    id: ClassVar[str] = "labyrinth"
    title: ClassVar[str] = "Zombie Labyrinth"
    # a labyrinth piece is assumed about 12 cm square; figures are easy to see
    geometry: ClassVar[BoardGeometry] = BoardGeometry(
        cols=4, rows=3, cell_px=64, margin=0.25, cell_cm=12.0, min_camera_px=60
    )

    def start_state(self) -> Board:
        return set_up_board(default_layout(), CHARACTER_COLOURS)

    def parse_state(self, obj: JSON) -> Board:
        return parse_board(obj)

    def format_state(self, state: Board) -> JSON:
        return format_board(state)

    def cells(self, state: Board) -> dict[str, str]:
        where = state.character_map
        out = {colour: where.get(colour, "") for colour in CHARACTER_COLOURS}
        out[BIZARRE_CELL] = state.bizarre or ""
        for space in sorted(graph_of(state.layout).disc_spaces()):
            out[space] = "disc" if space in state.discs else ""
        out.update({piece_cell(p): piece_value(p) for p in state.layout})
        return out

    def reading_errors(self, truth: Board, seen: Board) -> dict[str, tuple[int, int]]:
        """The issue's two figures apart: layout positions (piece and turns right) and token
        cells (each figure's space, each disc space's disc); and the spinner, once a board
        (a segment, or no card in view: a reader must not see a spinner that is not there)."""
        want, got = self.cells(truth), self.cells(seen)
        layout = [c for c in want if PIECE_CELL.fullmatch(c)]
        tokens = [c for c in want if not PIECE_CELL.fullmatch(c)]
        figures = [c for c in tokens if c in (*CHARACTER_COLOURS, BIZARRE_CELL)]
        discs = [c for c in tokens if c not in figures]
        tallies = {
            name: (sum(want[c] != got.get(c) for c in group), len(group))
            for name, group in (
                ("cells", tokens),
                ("figures", figures),
                ("discs", discs),
                ("layout", layout),
            )
        }
        tallies["spinner"] = (int(truth.spinner != seen.spinner), 1)
        return tallies

    def with_cells(self, state: Board, values: dict[str, str]) -> Board:
        """Layout positions first (the figures' and discs' spaces belong to the new layout)."""
        layout = state.layout
        for cell, value in values.items():
            if PIECE_CELL.fullmatch(cell):
                layout = corrected_layout(layout, cell, value)
        graph = graph_of(layout)
        characters, bizarre, discs = dict(state.character_map), state.bizarre, set(state.discs)
        lost = [s for s in (*characters.values(), bizarre, *discs) if s and s not in graph.spaces]
        if lost and layout != state.layout:
            raise InputError(
                f"something lies on {lost[0]}, which that piece would take off: "
                "correct the figures and discs on it first"
            )
        for cell, value in values.items():
            if value and cell in (*CHARACTER_COLOURS, BIZARRE_CELL) and value not in graph.spaces:
                raise InputError(f"{value!r} is not a space of this labyrinth")
            if cell in CHARACTER_COLOURS:
                characters.pop(cell, None)
                if value:
                    characters[cell] = value
            elif cell == BIZARRE_CELL:
                bizarre = value or None
            elif cell in graph.disc_spaces():
                if value not in ("disc", ""):
                    raise InputError(f"disc space {cell} holds 'disc' or nothing, not {value!r}")
                (discs.add if value else discs.discard)(cell)
            elif not PIECE_CELL.fullmatch(cell):
                raise InputError(f"there is no {cell!r} in this labyrinth")
        return make_board(layout, characters, bizarre, discs, state.spinner)

    def cell_choices(self, cell: str) -> list[str]:
        graph = graph_of(default_layout())
        if cell in (*CHARACTER_COLOURS, BIZARRE_CELL):
            return ["", *sorted(graph.spaces)]
        if cell in graph.disc_spaces():
            return ["", "disc"]
        if PIECE_CELL.fullmatch(cell):
            return [f"{piece}/{turns}" for piece in default_catalog().ids for turns in range(4)]
        raise InputError(f"there is no {cell!r} in this labyrinth")

    def settings_for(self, options: JSON) -> JSON:
        from companion.games.labyrinth.rules import match_settings

        return match_settings(options)

    def new_match(self, settings: JSON) -> Match:
        from companion.games.labyrinth.rules import LabyrinthMatch

        return LabyrinthMatch(self.settings_for(settings))

    def table_items(
        self, state: Board, look: str, rng: np.random.Generator, *, px_per_cell: int = 96
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """The spinner card beside the board when the state shows one."""
        return self._part("draw").table_items(
            state, look, rng, geometry=self.geometry, px_per_cell=px_per_cell
        )

    def random_state(self, rng: np.random.Generator) -> Board:
        """A board play can reach on the default labyrinth: figures rest on stopping spaces,
        never on junctions, which is what the referee is shown (``model.random_board``)."""
        return random_board(rng, default_layout())
