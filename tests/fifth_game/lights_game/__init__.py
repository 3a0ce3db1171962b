"""Lights: a fifth game that lives outside Companion's package, to show a game drops in.

Nine lamps in a 3x3 frame; a turn switches exactly one lamp on or off, and whoever switches
the last one on wins.  Everything Companion needs is here: notation and rules
(``LightsGame``, ``rules.py``), a camera reader (``reader.py``) and a lab that draws the frame
and scripts a sample game (``lab.py``).  It registers itself through the ``companion.games``
entry point of its distribution; nothing in Companion names it.
"""

from __future__ import annotations

from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar

from companion.errors import InputError
from companion.games.base import JSON, BoardGeometry, Game, Match
from companion.games.settings import player_settings

if TYPE_CHECKING:
    from companion.games.lab import Lab
    from companion.games.reading import Reader

SIDE = 3
CELLS = tuple(f"{'abc'[c]}{r + 1}" for r in range(SIDE) for c in range(SIDE))
Lamps = tuple[bool, ...]


class LightsGame(Game[Lamps]):
    id: ClassVar[str] = "lights"
    title: ClassVar[str] = "Lights"
    geometry: ClassVar[BoardGeometry] = BoardGeometry(cols=SIDE, rows=SIDE, cell_px=32)
    samples: ClassVar[Path | None] = Path(__file__).resolve().parent / "samples"

    def start_state(self) -> Lamps:
        return (False,) * len(CELLS)

    def parse_state(self, obj: JSON) -> Lamps:
        lamps = obj.get("lamps") if isinstance(obj, dict) else None
        if obj.get("game") != self.id or not isinstance(lamps, str) or len(lamps) != len(CELLS):
            raise InputError(f'a lights state is {{"game": "lights", "lamps": "{"0" * 9}"}}')
        if set(lamps) - {"0", "1"}:
            raise InputError("each lamp is 0 (off) or 1 (on)")
        return tuple(c == "1" for c in lamps)

    def format_state(self, state: Lamps) -> JSON:
        return {"game": self.id, "lamps": "".join("1" if on else "0" for on in state)}

    def cells(self, state: Lamps) -> dict[str, str]:
        return {name: "1" if on else "0" for name, on in zip(CELLS, state, strict=True)}

    def with_cells(self, state: Lamps, values: dict[str, str]) -> Lamps:
        lamps = list(state)
        for name, value in values.items():
            if name not in CELLS or value not in ("0", "1"):
                raise InputError(f"lamp {name!r} is 0 or 1, not {value!r}")
            lamps[CELLS.index(name)] = value == "1"
        return tuple(lamps)

    def cell_choices(self, cell: str) -> list[str]:
        return ["0", "1"]

    def settings_for(self, options: JSON) -> JSON:
        return player_settings(options, self.id)

    def new_match(self, settings: JSON) -> Match[Lamps]:
        from lights_game.rules import LightsMatch

        return LightsMatch(self.settings_for(settings))

    def board_svg(
        self, state: Lamps, *, highlights: tuple[str, ...] = (), marks: JSON | None = None
    ) -> str:
        cells = []
        for i, (name, on) in enumerate(zip(CELLS, state, strict=True)):
            x, y = 30 * (i % SIDE), 30 * (i // SIDE)
            fill, ring = "gold" if on else "#333", ' stroke="red"' if name in highlights else ""
            cells.append(
                f'<rect data-cell="{name}" x="{x}" y="{y}" width="28" height="28" '
                f'fill="{fill}"{ring}/>'
            )
        drawn = "".join(cells)
        return f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 90 90">{drawn}</svg>'

    @property
    def reader(self) -> type[Reader[Lamps]]:
        from lights_game.reader import LampReader

        return LampReader

    @cached_property
    def lab(self) -> Lab[Lamps]:
        from lights_game.lab import LightsLab

        return LightsLab(self)


GAME = LightsGame()
