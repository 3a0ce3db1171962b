"""A match together with the log entries that built it: the one path for live play and rebuilds.

The match is a pure function of its settings and its inputs, so undo, corrections and resuming
after a power cut are all "replay the inputs still in effect from a fresh match".  This module
knows the log's entry kinds (``board``, ``event``, ``correct``, ``undo``, ``synced``) and
nothing of cameras, threads or pages.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Generic

from companion.errors import InputError
from companion.games.base import JSON, Game, Match, S, Verdict
from companion.referee.store import Entry


def changed_cells(game: Game[S], a: S, b: S) -> list[str]:
    """Cells whose values differ between two states, in the game's cell order."""
    cells_a = game.cells(a)
    return [name for name, value in game.cells(b).items() if cells_a.get(name) != value]


@dataclass(frozen=True)
class Record:
    """One verdict, the input (item index) that produced it, its turn and the cells it changed."""

    item: int
    verdict: Verdict
    turn: int
    cells: tuple[str, ...]


class History(Generic[S]):
    """The match and the inputs still in effect: ``items`` are boards (as corrected) and
    events; an undo drops inputs and a correction edits one, and both then replay ``items``
    from a fresh match."""

    def __init__(self, game: Game[S], settings: JSON) -> None:
        self.game = game
        self.settings = settings
        self.items: list[tuple[str, JSON]] = []
        self._reset()

    def _reset(self) -> None:
        self.match: Match[S] = self.game.new_match(self.settings)
        self.records: list[Record] = []
        self.moves = 0

    def fork(self) -> History[S]:
        """A copy to try an entry on: inputs are never mutated in place, so only the match
        needs a deep copy."""
        other = copy.copy(self)
        other.items = list(self.items)
        other.records = list(self.records)
        other.match = copy.deepcopy(self.match)
        return other

    @property
    def set_up(self) -> bool:
        """True once some board has been judged legal (the set-up check has passed)."""
        return any(r.verdict.legal and self.items[r.item][0] == "board" for r in self.records)

    def last_board(self) -> int | None:
        """Index in ``items`` of the last board (what a correction applies to)."""
        for i in range(len(self.items) - 1, -1, -1):
            if self.items[i][0] == "board":
                return i
        return None

    def board_at(self, index: int) -> S:
        """The board input ``index`` holds."""
        return self.game.parse_state(self.items[index][1]["state"])

    def last_move(self) -> int | None:
        """Index in ``items`` of the last input that made a legal move (what undo takes back)."""
        for record in reversed(self.records):
            if record.verdict.legal and record.verdict.move is not None:
                return record.item
        return None

    def apply(self, kind: str, payload: JSON) -> Verdict | None:
        """Apply one log entry; the verdict it produced, if any (InputError if it is invalid)."""
        if kind in ("board", "event"):
            self.items.append((kind, payload))
            try:
                return self._play(len(self.items) - 1)
            except BaseException:
                self.items.pop()
                raise
        if kind == "correct":
            return self._correct(payload)
        if kind == "synced":
            return None  # the table matched the match again: nothing changes in the game
        if kind == "undo":
            index = self.last_move()
            if index is None:
                raise InputError("no move to undo yet")
            # Later inputs were judged against the position being taken back: drop them too.
            del self.items[index:]
            self._rebuild()
            return None
        raise ValueError(f"unknown log entry kind {kind!r}")

    def _correct(self, payload: JSON) -> Verdict | None:
        """Set one cell of the last board and judge everything again."""
        index = self.last_board()
        if index is None:
            raise InputError("no board has been judged yet: nothing to correct")
        fixed = self.game.with_cells(self.board_at(index), {payload["cell"]: payload["value"]})
        self.items[index] = (
            "board",
            {**self.items[index][1], "state": self.game.format_state(fixed)},
        )
        self._rebuild()
        return next((r.verdict for r in self.records if r.item == index), None)

    def _rebuild(self) -> None:
        self._reset()
        for index in range(len(self.items)):
            self._play(index)

    def _play(self, index: int) -> Verdict | None:
        kind, payload = self.items[index]
        before = self.match.state
        if kind == "board":
            verdict: Verdict | None = self.match.judge(self.board_at(index))
        else:
            # a recorded game's events carry the photo they came before: not the game's business
            verdict = self.match.handle({k: v for k, v in payload.items() if k != "frame"})
        if verdict is None:
            return None
        cells: tuple[str, ...] = ()
        if verdict.legal and verdict.move is not None:
            self.moves += 1
            turn = self.moves
            cells = tuple(changed_cells(self.game, before, self.match.state))
        else:
            # A setup verdict belongs to the turn already played; an illegal one to the next.
            turn = self.moves + (0 if verdict.legal else 1)
        self.records.append(Record(index, verdict, turn, cells))
        return verdict


@dataclass
class Rebuilt(Generic[S]):
    """A match rebuilt from its log, with what the log says of the table beside it."""

    history: History[S]
    last_frame: int | None = None
    """The frame of the last board or sync logged: a replayed source resumes after it."""
    last_event_frame: int | None = None
    """The photo before which the last recorded event was entered."""
    last_board: S | None = None
    """The last board the camera was taken to show (corrections included), if any."""
    overrides: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Corrections that hold while the camera keeps reading what it read: cell -> (raw, value)."""


def rebuild(game: Game[S], settings: JSON, entries: Iterable[Entry]) -> Rebuilt[S]:
    """Replay a match's log entries in order."""
    out = Rebuilt(History(game, settings))
    for entry in entries:
        out.history.apply(entry.kind, entry.payload)
        if entry.kind == "board":
            out.last_frame = entry.payload.get("frame")
            out.last_board = game.parse_state(entry.payload["state"])
            held = entry.payload.get("held")
            if isinstance(held, dict) and held:
                # the camera showed other values in the cells judged at the match's
                out.last_board = game.with_cells(out.last_board, held)
            fixed = entry.payload.get("corrected")
            if isinstance(fixed, dict) and fixed.get("raw") is not None:
                out.overrides[fixed["cell"]] = (fixed["raw"], fixed["value"])
        elif entry.kind == "synced":
            out.last_frame = entry.payload.get("frame", out.last_frame)
            out.last_board = out.history.match.state
        elif entry.kind == "event" and isinstance(entry.payload.get("frame"), int):
            out.last_event_frame = entry.payload["frame"]
        elif entry.kind == "correct":
            cell, value = entry.payload["cell"], entry.payload["value"]
            if out.last_board is not None:
                out.last_board = game.with_cells(out.last_board, {cell: value})
            if entry.payload.get("raw") is not None:
                out.overrides[cell] = (entry.payload["raw"], value)
    return out
