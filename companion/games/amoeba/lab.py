"""Amoeba in the lab: its photo-like tray looks, random trays and the scripted sample game."""

from __future__ import annotations

import numpy as np

from companion.games.amoeba import draw
from companion.games.amoeba.model import SIZE, Tray
from companion.games.amoeba.script import sample_script
from companion.games.base import JSON
from companion.games.lab import Lab, Looks


class AmoebaLab(Lab[Tray]):
    """Every tile turns either way, so any tray of bits is a position the table can show."""

    @property
    def looks(self) -> Looks:
        return Looks(draw.LOOKS_TUNED, draw.LOOKS_UNSEEN)

    def draw_board(
        self, state: Tray, look: str, rng: np.random.Generator, *, px_per_cell: int = 96
    ) -> np.ndarray:
        return draw.draw_board(
            state, look, rng, geometry=self.game.geometry, px_per_cell=px_per_cell
        )

    def random_state(self, rng: np.random.Generator) -> Tray:
        return Tray(tuple(int(b) for b in rng.integers(0, 2, SIZE * SIZE)))

    def sample_script(self, seed: int) -> tuple[JSON, list[JSON]]:
        return sample_script(seed)
