"""A small but complete game for testing the core: four counters, a move adds one to one.

Players take turns; the first board must show all zeros (the set-up check); the match ends when
the counters add up to ``target``.  ``{"event": "pass"}`` passes the turn, ``{"event": "bonus",
"player": i}`` gives a point.  It has rules, notation, cells and drawings, but no camera reader.
"""

from __future__ import annotations

from functools import cached_property
from typing import ClassVar

import numpy as np

from companion.errors import InputError
from companion.games.base import JSON, BoardGeometry, Game, Match, Verdict
from companion.games.lab import Lab, Looks
from companion.games.reading import Reader

Counters = tuple[int, ...]

CELLS = ("a", "b", "c", "d")


class CounterMatch(Match[Counters]):
    def __init__(self, settings: JSON) -> None:
        self.names: list[str] = settings["names"]
        self.target: int = settings["target"]
        self._state = (0, 0, 0, 0)
        self.started = False
        self.to_move = 0
        self.scores = [0] * len(self.names)

    @property
    def state(self) -> tuple[int, ...]:
        return self._state

    @property
    def finished(self) -> bool:
        return sum(self._state) >= self.target

    def judge(self, board: tuple[int, ...]) -> Verdict:
        if not self.started:
            if any(board):
                return Verdict(False, "set up all counters at 0", None, None)
            self.started = True
            return Verdict(True, "start position", None, None, text="ready")
        if self.finished:
            return Verdict(False, "the game is over", None, None)
        steps = [b - a for a, b in zip(self._state, board, strict=True)]
        changed = [i for i, s in enumerate(steps) if s]
        player = self.to_move
        if len(changed) != 1 or steps[changed[0]] != 1:
            return Verdict(False, "a move adds one to one counter", player, None)
        self._state = tuple(board)
        self.scores[player] += 1
        self.to_move = (player + 1) % len(self.names)
        cell = CELLS[changed[0]]
        return Verdict(
            True,
            "ok",
            player,
            {"cell": cell},
            score=1,
            text=f"{self.names[player]} +{cell}",
            svgs=[f"<svg data-move='{cell}'/>"],
        )

    def handle(self, event: JSON) -> Verdict | None:
        kind = event.get("event")
        if kind == "pass":
            player = self.to_move
            self.to_move = (player + 1) % len(self.names)
            return Verdict(True, "pass", player, {"pass": True})
        if kind == "bonus":
            player = event.get("player")
            if player not in range(len(self.names)):
                raise InputError(f"no player {player!r}")
            self.scores[player] += 1
            return Verdict(True, "bonus", player, None, score=1)
        if kind == "quiet":
            return None
        raise InputError(f"counter has no event {kind!r}")

    def public_view(self) -> JSON:
        return {
            "players": [
                {"name": n, "score": s} for n, s in zip(self.names, self.scores, strict=True)
            ],
            "to_move": self.to_move,
        }

    def private_view(self, player: int) -> JSON:
        return {"title": "Secret", "items": [{"label": f"secret of {self.names[player]}"}]}


class CounterGame(Game[Counters]):
    id: ClassVar[str] = "counter"
    title: ClassVar[str] = "Counter"
    geometry: ClassVar[BoardGeometry] = BoardGeometry(cols=4, rows=1)

    def start_state(self) -> tuple[int, ...]:
        return (0, 0, 0, 0)

    def parse_state(self, obj: JSON) -> tuple[int, ...]:
        cells = obj.get("cells") if isinstance(obj, dict) else None
        if obj.get("game") != "counter" or not isinstance(cells, list) or len(cells) != 4:
            raise InputError("expected a counter state with 4 cells")
        if not all(isinstance(c, int) and c >= 0 for c in cells):
            raise InputError("counter cells are whole numbers >= 0")
        return tuple(cells)

    def format_state(self, state: tuple[int, ...]) -> JSON:
        return {"game": "counter", "cells": list(state)}

    def cells(self, state: tuple[int, ...]) -> dict[str, str]:
        return {name: str(v) for name, v in zip(CELLS, state, strict=True)}

    def with_cells(self, state: tuple[int, ...], values: dict[str, str]) -> tuple[int, ...]:
        out = list(state)
        for name, value in values.items():
            if name not in CELLS or not value.isdigit():
                raise InputError(f"bad cell {name}={value!r}")
            out[CELLS.index(name)] = int(value)
        return tuple(out)

    def new_match(self, settings: JSON) -> Match[Counters]:
        return CounterMatch(self.settings_for(settings))

    def settings_for(self, options: JSON) -> JSON:
        out = dict(options)
        names = out.setdefault("names", ["Ann", "Bob"])
        if not isinstance(names, list) or not 1 <= len(names) <= 4:
            raise InputError("names: 1 to 4 players")
        out.setdefault("target", 6)
        return out

    @property
    def reader(self) -> type[Reader[Counters]]:
        raise InputError("the counter game has no camera reader")

    @cached_property
    def lab(self) -> Lab[Counters]:
        return CounterLab(self)

    def board_svg(
        self, state: tuple[int, ...], *, highlights: tuple[str, ...] = (), marks: JSON | None = None
    ) -> str:
        cells = "".join(
            f"<text data-cell='{n}'{' class=hl' if n in highlights else ''}>{v}</text>"
            for n, v in zip(CELLS, state, strict=True)
        )
        return f"<svg>{cells}</svg>"


class CounterLab(Lab[Counters]):
    @property
    def looks(self) -> Looks:
        return Looks(("grey",), ())

    def random_state(self, rng: np.random.Generator) -> tuple[int, ...]:
        return tuple(int(v) for v in rng.integers(0, 5, 4))

    def sample_script(self, seed: int) -> tuple[JSON, list[JSON]]:
        states = [(0, 0, 0, 0), (1, 0, 0, 0), (1, 0, 3, 0), (1, 0, 0, 0), (1, 1, 0, 0)]
        lines = [self.game.format_state(s) for s in states[:3]] + [{"event": "pass"}]
        return {"names": ["Ann", "Bob"], "seed": seed}, lines + [
            self.game.format_state(s) for s in states[3:]
        ]

    def draw_board(
        self, state: tuple[int, ...], look: str, rng: np.random.Generator, *, px_per_cell=96
    ) -> np.ndarray:
        img = np.zeros((px_per_cell, 4 * px_per_cell, 3), np.uint8)
        for i, v in enumerate(state):
            img[:, i * px_per_cell : (i + 1) * px_per_cell] = min(255, 40 * v)
        return img
