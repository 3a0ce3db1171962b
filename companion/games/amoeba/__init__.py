"""Amoeba (Tantalus): 49 turnable Truchet tiles and shape cards.

This module only wires the parts to the ``Game`` interface; the parts are
``model`` (tray, notation, loops, shape keys), ``deck`` (the cards), ``rules`` (the match),
``reader`` (image -> tray), ``draw`` (photo-like board looks) and ``svg`` (drawings for the page).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from companion.errors import InputError
from companion.games.amoeba.model import SIZE, Tray, cell_name, parse_cell
from companion.games.base import JSON, BoardGeometry, Game, Match, Reader


class AmoebaGame(Game):
    """The Amoeba game as the core sees it."""

    id: ClassVar[str] = "amoeba"
    title: ClassVar[str] = "Amoeba"
    # tile size assumed (no measured tray found): ~3 cm tiles in a ~23 cm tray
    geometry: ClassVar[BoardGeometry] = BoardGeometry(
        cols=SIZE, rows=SIZE, cell_px=32, margin=0.5, cell_cm=3.0, min_camera_px=40
    )

    def start_state(self) -> Tray:
        return Tray.start()

    def parse_state(self, obj: JSON) -> Tray:
        if not isinstance(obj, dict) or obj.get("game") != self.id:
            game = obj.get("game") if isinstance(obj, dict) else None
            raise InputError(f"expected an amoeba state, got game {game!r}")
        if "tiles" not in obj:
            raise InputError("amoeba state has no 'tiles': expected 7 strings of 0/1")
        return Tray.from_rows(obj["tiles"])

    def format_state(self, state: Tray) -> JSON:
        return {"game": self.id, "tiles": state.rows()}

    def cells(self, state: Tray) -> dict[str, str]:
        return {cell_name(r, c): str(state[r, c]) for r in range(SIZE) for c in range(SIZE)}

    def with_cells(self, state: Tray, values: dict[str, str]) -> Tray:
        bits = list(state.bits)
        for name, value in values.items():
            row, col = parse_cell(name)
            if value not in ("0", "1"):
                raise InputError(f"tile {name} can only be 0 or 1, not {value!r}")
            bits[row * SIZE + col] = int(value)
        return Tray(tuple(bits))

    def cell_choices(self, cell: str) -> list[str]:
        parse_cell(cell)
        return ["0", "1"]

    def settings_for(self, options: JSON) -> JSON:
        from companion.games.amoeba.rules import match_settings

        return match_settings(options)

    def new_match(self, settings: JSON) -> Match:
        from companion.games.amoeba.rules import AmoebaMatch

        return AmoebaMatch(self.settings_for(settings))

    def random_state(self, rng: np.random.Generator) -> Tray:
        return Tray(tuple(int(b) for b in rng.integers(0, 2, SIZE * SIZE)))

    def sample_script(self, seed: int) -> tuple[JSON, list[JSON]]:
        from companion.games.amoeba.script import sample_script

        return sample_script(seed)

    def learn_reader(
        self, board: np.ndarray, *, homography: np.ndarray, image_size: tuple[int, int]
    ) -> Reader:
        """Flat tiles: the rectified start image is all the reader needs."""
        from companion.games.amoeba.reader import TileReader

        return TileReader.learn(board, self.geometry)

    def load_reader(self, params: JSON) -> Reader:
        from companion.games.amoeba.reader import TileReader

        return TileReader.from_json(params, self.geometry)

    def board_svg(
        self, state: Tray, *, highlights: tuple[str, ...] = (), marks: JSON | None = None
    ) -> str:
        from companion.games.amoeba.svg import board_svg

        return board_svg(state, highlights=highlights)

    def draw_board(
        self, state: Tray, look: str, rng: np.random.Generator, *, px_per_cell: int = 96
    ) -> np.ndarray:
        from companion.games.amoeba.draw import draw_board

        return draw_board(state, look, rng, geometry=self.geometry, px_per_cell=px_per_cell)

    def looks(self) -> dict[str, list[str]]:
        from companion.games.amoeba.draw import LOOKS_TUNED, LOOKS_UNSEEN

        return {"tuned": list(LOOKS_TUNED), "unseen": list(LOOKS_UNSEEN)}
