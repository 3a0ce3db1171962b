"""Amoeba (Tantalus): 49 turnable Truchet tiles and shape cards.

This module only wires the parts to the ``Game`` interface; the parts are
``model`` (tray, notation, loops, shape keys), ``deck`` (the cards), ``rules`` (the match),
``reader`` (image -> tray), ``svg`` (drawings for the page), and for the lab ``draw``
(photo-like board looks), ``script`` (the sample game) and ``lab`` (both behind ``Lab``).
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, ClassVar

from companion.errors import InputError
from companion.games.amoeba.model import SIZE, Tray, cell_name, parse_cell
from companion.games.base import JSON, BoardGeometry, Game, Match

if TYPE_CHECKING:
    from companion.games.lab import Lab
    from companion.games.reading import Reader


class AmoebaGame(Game[Tray]):
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

    def new_match(self, settings: JSON) -> Match[Tray]:
        from companion.games.amoeba.rules import AmoebaMatch

        return AmoebaMatch(self.settings_for(settings))

    def board_svg(
        self, state: Tray, *, highlights: tuple[str, ...] = (), marks: JSON | None = None
    ) -> str:
        from companion.games.amoeba.svg import board_svg

        return board_svg(state, highlights=highlights)

    @property
    def reader(self) -> type[Reader[Tray]]:
        from companion.games.amoeba.reader import TileReader

        return TileReader

    @cached_property
    def lab(self) -> Lab[Tray]:
        from companion.games.amoeba.lab import AmoebaLab

        return AmoebaLab(self)


GAME = AmoebaGame()
