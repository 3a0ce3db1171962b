"""Octiles: path tiles switched on a pinwheel of 17 octagons, runners racing to the far side.

This module only wires the parts to the ``Game`` interface: ``model`` (board graph, positions,
notation), ``tiles`` (the 18 chord maps), ``paths``, ``rules`` (legal moves, the match),
``reader`` (image -> position), ``svg``, and for the lab ``draw`` (photo-like looks, pegs as
raised layers), ``script`` (the sample game) and ``lab``.  Cells, in the reader's confidence
order: the 17 spaces ("down" or "tile/rotation"), the 36 places (a runner's colour or ""),
then "pocket".
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, ClassVar

from companion.errors import InputError
from companion.games.base import JSON, BoardGeometry, Game, Match
from companion.games.octiles.model import (
    COLOURS,
    BoardGraph,
    Position,
    format_position,
    load_board,
    parse_position,
)
from companion.games.octiles.tiles import looks

if TYPE_CHECKING:
    from companion.games.lab import Lab
    from companion.games.reading import Reader

POCKET = "pocket"


def _face_value(face: tuple[int, int] | None) -> str:
    return "down" if face is None else f"{face[0]}/{face[1]}"


def _parse_face(cell: str, value: str) -> tuple[int, int] | None:
    if value == "down":
        return None
    tile, _, rotation = value.partition("/")
    if tile.isdecimal() and rotation.isdecimal() and 1 <= int(tile) <= 18 and int(rotation) < 8:
        return int(tile), int(rotation)
    raise InputError(f"space {cell} is 'down' or 'tile/rotation' (e.g. 7/3), not {value!r}")


class OctilesGame(Game[Position]):
    """The Octiles game as the core sees it."""

    id: ClassVar[str] = "octiles"
    title: ClassVar[str] = "Octiles"
    # one cell = one octagon pitch P (about 3 in = 7.6 cm); the corners are (+-3, +-3) P
    geometry: ClassVar[BoardGeometry] = BoardGeometry(
        cols=6, rows=6, cell_px=48, margin=0.25, cell_cm=7.6, min_camera_px=40
    )

    @property
    def board(self) -> BoardGraph:
        return load_board()

    def start_state(self) -> Position:
        """All 17 tiles face down, five runners on every side, a tile face up in the pocket."""
        runners = {circle: COLOURS[circle[1]] for circle in self.board.circles}
        return Position.make(dict.fromkeys(self.board.spaces), runners, 1)

    def parse_state(self, obj: JSON) -> Position:
        return parse_position(obj, self.board)

    def format_state(self, state: Position) -> JSON:
        return format_position(state)

    def cells(self, state: Position) -> dict[str, str]:
        out = {space: _face_value(state.face(space)) for space in self.board.spaces}
        runners = state.runner_map
        out.update({place: runners.get(place, "") for place in self.board.places()})
        out[POCKET] = "" if state.pocket is None else str(state.pocket)
        return out

    def with_cells(self, state: Position, values: dict[str, str]) -> Position:
        spaces, runners, pocket = dict(state.space_map), dict(state.runner_map), state.pocket
        places = set(self.board.places())
        for cell, value in values.items():
            if cell in spaces:
                spaces[cell] = _parse_face(cell, value)
            elif cell in places:
                if value and value not in COLOURS.values():
                    raise InputError(f"a runner on {cell} is blue, red, yellow or green")
                runners.pop(cell, None)
                if value:
                    runners[cell] = value
            elif cell == POCKET:
                if value and not (value.isdecimal() and 1 <= int(value) <= 18):
                    raise InputError(f"the pocket holds a tile 1-18 or nothing, not {value!r}")
                pocket = int(value) if value else None
            else:
                raise InputError(f"there is no {cell!r} on the octiles board")
        return Position.make(spaces, runners, pocket)

    def cell_choices(self, cell: str) -> list[str]:
        if cell in self.board.spaces:
            faces = [f"{t}/{r}" for t in range(1, 19) for r in looks(t)]
            return ["down", *faces]
        if cell in self.board.places():
            return ["", *sorted(COLOURS.values())]
        if cell == POCKET:
            return ["", *(str(t) for t in range(1, 19))]
        raise InputError(f"there is no {cell!r} on the octiles board")

    def board_svg(
        self, state: Position, *, highlights: tuple[str, ...] = (), marks: JSON | None = None
    ) -> str:
        """Marks (``OctilesMatch.board_marks`` and ``moves_view``) carry routes as JSON."""
        from companion.games.octiles.rules import route_from_json
        from companion.games.octiles.svg import board_svg

        marks = marks or {}
        path = marks.get("path")
        return board_svg(
            state,
            highlights=(*highlights, *marks.get("highlights", ())),
            path=None if path is None else route_from_json(path),
            moves=[route_from_json(m) for m in marks.get("moves", ())],
            switch=marks.get("switch"),
        )

    def settings_for(self, options: JSON) -> JSON:
        from companion.games.octiles.rules import match_settings

        return match_settings(options)

    def new_match(self, settings: JSON) -> Match[Position]:
        from companion.games.octiles.rules import OctilesMatch

        return OctilesMatch(self.settings_for(settings))

    @property
    def reader(self) -> type[Reader[Position]]:
        from companion.games.octiles.reader import TileReader

        return TileReader

    @cached_property
    def lab(self) -> Lab[Position]:
        from companion.games.octiles.lab import OctilesLab

        return OctilesLab(self)


GAME = OctilesGame()
