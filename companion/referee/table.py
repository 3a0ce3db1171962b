"""The table against the match: what the camera last showed, and whether the two agree.

After an illegal verdict, an undo or a resume, the board on the table may differ from the
match's; the referee then judges nothing until a settled board equals the match again, and the
page lists the cells to put back.  A correction made on the page holds while the camera keeps
reading what it read when corrected (an override), and a reading too unsure to judge waits for
the host's answer (a doubt).  None of this is logged: it is rebuilt from the log's last board
(``history.rebuild``) or from the camera's next settled board.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic

from companion.games.base import Game, S
from companion.referee.history import changed_cells


@dataclass(frozen=True)
class Doubt(Generic[S]):
    """A settled board the referee asks about instead of judging: the cells read unsure."""

    state: S
    frame: int | None
    confidence: Any
    cells: list[str]


@dataclass(frozen=True)
class Unjudged:
    """The last settled board was the match's own board, so nothing was judged (at ``frame``):
    a play the camera missed altogether looks like this."""

    frame: int | None


class TableView(Generic[S]):
    """The camera's latest settled view of the table, and how it stands to the match."""

    def __init__(self, game: Game[S]) -> None:
        self.game = game
        self.raw: S | None = None
        """The last settled board as the camera read it."""
        self.observed: S | None = None
        """...and as the referee took it: with the page's corrections that still hold."""
        self.overrides: dict[str, tuple[str, str]] = {}
        """cell -> (the camera's value when corrected, the host's value)."""
        self.in_sync = True
        self.cells: list[str] = []
        """While out of sync: the cells the table must put back."""
        self.doubt: Doubt[S] | None = None
        self.unjudged: Unjudged | None = None

    def take(self, raw: S) -> S:
        """A settled board from the camera, as the referee takes it (overrides applied)."""
        self.raw = raw
        self.observed = self._with_overrides(raw)
        return self.observed

    def override(self, cell: str, value: str, raw_value: str) -> None:
        """The host says ``cell`` is ``value`` while the camera reads ``raw_value`` there."""
        self.overrides[cell] = (raw_value, value)
        if self.raw is not None:
            self.observed = self._with_overrides(self.raw)

    def raw_value(self, cell: str, fallback: S) -> str:
        """What the camera read at ``cell`` (``fallback``'s value before any reading)."""
        return self.game.cells(self.raw if self.raw is not None else fallback)[cell]

    def _with_overrides(self, raw: S) -> S:
        """``raw`` with the overrides whose camera value it still shows; the others end (the
        tile really moved)."""
        if not self.overrides:
            return raw
        seen = self.game.cells(raw)
        self.overrides = {c: rv for c, rv in self.overrides.items() if seen.get(c) == rv[0]}
        values = {c: value for c, (_, value) in self.overrides.items()}
        return self.game.with_cells(raw, values) if values else raw

    def lose_sync(self, seen: S, target: S) -> None:
        """``seen`` was judged illegal: the table must go back to ``target``."""
        self.in_sync = False
        self.cells = changed_cells(self.game, seen, target)

    def resync(self, target: S) -> None:
        """After an undo or correction: in sync only if the last board seen is ``target``."""
        if self.observed is None:
            self.in_sync, self.cells = False, []
            return
        self.cells = changed_cells(self.game, self.observed, target)
        self.in_sync = not self.cells

    def agrees(self, target: S) -> bool:
        """The camera's last settled board is ``target``, in sync and with nothing in doubt:
        what the camera may remember that frame as (``Reader.remember``)."""
        return (
            self.in_sync
            and self.doubt is None
            and self.observed is not None
            and self.observed == target
        )
