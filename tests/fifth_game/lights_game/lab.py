"""Lights in the lab: the frame drawn from above, random lamps, a scripted sample game."""

from __future__ import annotations

import cv2
import numpy as np

from companion.games.base import JSON
from companion.games.lab import Lab, Looks
from lights_game import CELLS, SIDE, Lamps

PAINT = {"night": ((40, 40, 40), (60, 200, 250)), "day": ((90, 80, 70), (170, 240, 255))}
"""Look -> (a lamp off, a lamp on), BGR."""


class LightsLab(Lab[Lamps]):
    @property
    def looks(self) -> Looks:
        return Looks(("night",), ("day",))

    def draw_board(
        self, state: Lamps, look: str, rng: np.random.Generator, *, px_per_cell: int = 96
    ) -> np.ndarray:
        geometry = self.game.geometry
        margin = round(geometry.margin * px_per_cell)
        side = SIDE * px_per_cell + 2 * margin
        image = np.full((side, side, 3), (60, 110, 150), np.uint8)  # a wooden frame
        off, on = PAINT[look]
        for i, lit in enumerate(state):
            row, col = divmod(i, SIDE)
            centre = (
                margin + col * px_per_cell + px_per_cell // 2,
                margin + row * px_per_cell + px_per_cell // 2,
            )
            cv2.circle(image, centre, int(px_per_cell * 0.4), on if lit else off, -1)
        return image

    def random_state(self, rng: np.random.Generator) -> Lamps:
        return tuple(bool(v) for v in rng.integers(0, 2, len(CELLS)))

    def sample_script(self, seed: int) -> tuple[JSON, list[JSON]]:
        """A whole game: every lamp switched on in turn, one turn trying two at once."""
        order = np.random.default_rng(seed).permutation(len(CELLS))
        lamps = [False] * len(CELLS)
        script = [self.game.format_state(tuple(lamps))]
        for turn, index in enumerate(order):
            if turn == 3:  # two lamps at once: refused, then put back
                wrong = list(lamps)
                wrong[index] = wrong[order[-1]] = True
                script += [
                    self.game.format_state(tuple(wrong)),
                    self.game.format_state(tuple(lamps)),
                ]
            lamps[index] = True
            script.append(self.game.format_state(tuple(lamps)))
        return {"players": 2, "names": ["Ann", "Ben"], "seed": seed}, script
