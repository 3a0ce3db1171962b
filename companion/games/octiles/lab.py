"""Octiles in the lab: the board drawn with its tiles, runners as raised pegs, random positions,
the scripted sample game, and tallies that compare a symmetric tile's rotations by chords."""

from __future__ import annotations

import numpy as np

from companion.games.base import JSON
from companion.games.lab import Lab, Layer, Looks
from companion.games.octiles import draw
from companion.games.octiles.model import COLOURS, Position, load_board
from companion.games.octiles.script import sample_script
from companion.games.octiles.tiles import same_face


class OctilesLab(Lab[Position]):
    """Spaces are compared by the paths their tiles draw, not by how their numbers spell."""

    @property
    def looks(self) -> Looks:
        return Looks(draw.LOOKS_TUNED, draw.LOOKS_UNSEEN)

    def draw_board(
        self, state: Position, look: str, rng: np.random.Generator, *, px_per_cell: int = 96
    ) -> np.ndarray:
        return draw.draw_board(
            state, look, rng, geometry=self.game.geometry, px_per_cell=px_per_cell
        )

    def raised(
        self, state: Position, look: str, rng: np.random.Generator, *, px_per_cell: int = 96
    ) -> list[Layer]:
        return draw.raised(state, look, rng, geometry=self.game.geometry, px_per_cell=px_per_cell)

    def random_state(self, rng: np.random.Generator) -> Position:
        board = load_board()
        faces = {
            space: None if rng.random() < 0.3 else (int(rng.integers(1, 19)), int(rng.integers(8)))
            for space in board.spaces
        }
        places = board.places()
        chosen = rng.choice(len(places), int(rng.integers(0, 16)), replace=False)
        colours = sorted(COLOURS.values())
        runners = {places[i]: colours[int(rng.integers(4))] for i in chosen}
        return Position.make(faces, runners, int(rng.integers(1, 19)))

    def sample_script(self, seed: int) -> tuple[JSON, list[JSON]]:
        return sample_script(seed)

    def wrong_cells(self, truth: Position, seen: Position) -> list[str]:
        """Spaces by their chords, as ``reading_errors`` counts them; other cells by value."""
        spaces = load_board().spaces
        want, got = self.game.cells(truth), self.game.cells(seen)
        return [
            cell
            for cell in want
            if (
                not same_face(truth.face(cell), seen.face(cell))
                if cell in spaces
                else want[cell] != got[cell]
            )
        ]

    def reading_errors(self, truth: Position, seen: Position) -> dict[str, tuple[int, int]]:
        """Spaces compared by their chords (equivalent rotations of symmetric tiles are equal),
        runners by place and colour, and the pocket tile."""
        board = load_board()
        spaces = sum(not same_face(truth.face(s), seen.face(s)) for s in board.spaces)
        places = board.places()
        want, got = truth.runner_map, seen.runner_map
        runners = sum(want.get(p) != got.get(p) for p in places)
        pocket = int(truth.pocket != seen.pocket)
        return {
            "cells": (spaces + runners + pocket, len(board.spaces) + len(places) + 1),
            "spaces": (spaces, len(board.spaces)),
            "runner places": (runners, len(places)),
            "pocket": (pocket, 1),
        }
