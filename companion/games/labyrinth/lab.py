"""Zombie Labyrinth in the lab: pieces and figures drawn, the spinner card beside the tray,
boards play can reach, the scripted sample game, and tallies for layout, figures and discs."""

from __future__ import annotations

import numpy as np

from companion.games.base import JSON
from companion.games.lab import Lab, Layer, Looks, PlayerStart
from companion.games.labyrinth import draw
from companion.games.labyrinth.model import (
    BIZARRE_CELL,
    CHARACTER_COLOURS,
    PIECE_CELL,
    Board,
    default_layout,
    make_board,
    random_board,
    set_up_board,
)
from companion.games.labyrinth.script import sample_script


class LabyrinthLab(Lab[Board]):
    """Figures stand above the pieces (``raised``); the spinner card lies on the table."""

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

    def table_items(
        self, state: Board, look: str, rng: np.random.Generator, *, px_per_cell: int = 96
    ) -> list[tuple[np.ndarray, np.ndarray]]:
        """The spinner card beside the board when the state shows one."""
        return draw.table_items(
            state, look, rng, geometry=self.game.geometry, px_per_cell=px_per_cell
        )

    def random_state(self, rng: np.random.Generator) -> Board:
        """A board play can reach on the default labyrinth: figures rest on stopping spaces,
        never on junctions, which is what the referee is shown (``model.random_board``)."""
        return random_board(rng, default_layout())

    def fewer_players(self, rng: np.random.Generator) -> list[PlayerStart[Board]]:
        """A 2- and a 3-player start, their colours drawn at random: the reader learns the
        paints from the start's crowd, whatever its size, and must look for no colour that
        is not playing."""
        layout = default_layout()
        starts = []
        for players in (2, 3):
            chosen = rng.choice(len(CHARACTER_COLOURS), players, replace=False)
            colours = tuple(c for i, c in enumerate(CHARACTER_COLOURS) if i in chosen)

            def positions(rng: np.random.Generator, colours: tuple[str, ...] = colours) -> Board:
                board = random_board(rng, layout)
                playing = {c: s for c, s in board.character_map.items() if c in colours}
                return make_board(layout, playing, board.bizarre, board.discs)

            starts.append(PlayerStart(players, set_up_board(layout, colours), positions))
        return starts

    def sample_script(self, seed: int) -> tuple[JSON, list[JSON]]:
        return sample_script(seed)

    def reading_errors(self, truth: Board, seen: Board) -> dict[str, tuple[int, int]]:
        """The issue's two figures apart: layout positions (piece and turns right) and token
        cells (each figure's space, each disc space's disc); and the spinner, once a board
        (a segment, or no card in view: a reader must not see a spinner that is not there)."""
        want, got = self.game.cells(truth), self.game.cells(seen)
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
