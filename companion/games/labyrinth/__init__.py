"""Zombie Labyrinth: characters race through 12 joined pieces for brain discs, Dr. Bizarre hunts.

This module only wires the parts to the ``Game`` interface: ``catalog`` (the pieces, a user's
own file too), ``model`` (layout, joined graph, board state), ``rules`` (the stop-set search,
spins, Dr. Bizarre, the match), ``reader`` (layout once, then figures and discs), ``svg``, and
for the lab ``draw``, ``script`` (the sample game) and ``lab``.

Cells, in the reader's confidence order: each character colour (the space it stands on, or
""), "bizarre", every disc space of the layout ("disc" or ""), then every layout position
("r<row>c<col>": "<piece>/<quarter turns>", e.g. "p04/2"), so the players can fix a misread
layout like any other cell.  The spinner is no cell: the page's out-of-sync list would then
ask the players to turn the arrow back after an illegal move, and a spin the camera misread is
undone and entered like any other.  The geometry is the default layout's 4 x 3 pieces, one
cell a piece.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, ClassVar

from companion.errors import InputError
from companion.games.base import JSON, BoardGeometry, Game, Match
from companion.games.labyrinth.catalog import default_catalog
from companion.games.labyrinth.model import (
    BIZARRE_CELL,
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
    set_up_board,
)

if TYPE_CHECKING:
    from companion.games.lab import Lab
    from companion.games.reading import Reader


class LabyrinthGame(Game[Board]):
    """The Zombie Labyrinth game as the core sees it."""

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

    def new_match(self, settings: JSON) -> Match[Board]:
        from companion.games.labyrinth.rules import LabyrinthMatch

        return LabyrinthMatch(self.settings_for(settings))

    def board_svg(
        self, state: Board, *, highlights: tuple[str, ...] = (), marks: JSON | None = None
    ) -> str:
        """Marks (``LabyrinthMatch.board_marks``) ring the spun figure's destinations."""
        from companion.games.labyrinth.svg import board_svg

        destinations = (marks or {}).get("destinations", ())
        return board_svg(state, highlights=highlights, destinations=destinations)

    @property
    def reader(self) -> type[Reader[Board]]:
        from companion.games.labyrinth.reader import TileReader

        return TileReader

    @cached_property
    def lab(self) -> Lab[Board]:
        from companion.games.labyrinth.lab import LabyrinthLab

        return LabyrinthLab(self)


GAME = LabyrinthGame()
