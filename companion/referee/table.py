"""The table against the match: what the camera last showed, and whether the two agree.

After an illegal verdict, an undo or a correction, the board on the table may differ from the
match's: the table is out of sync and the page lists the cells to put back.  Those cells are
*held*: while the camera keeps showing there what it showed when the verdict came, later boards
are judged with the match's values in them, so a misread (or a move nobody put back) costs one
verdict, not the rest of the game.  A held cell the camera sees change again is let go: put
back, or played on.  After a resume nothing is known of the table, so nothing is judged until
a settled board equals the match again.

A correction made on the page holds while the camera keeps reading what it read when corrected
(an override), and a reading too unsure to judge waits for the host's answer (a doubt) until
the table changes again.  None of this is logged apart from the held cells' camera values on
each board judged: it is rebuilt from the log's last board (``history.rebuild``) or from the
camera's next settled board.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic

from companion.games.base import Game, S
from companion.referee.history import changed_cells


@dataclass(frozen=True)
class Doubt(Generic[S]):
    """A settled board the referee asks about instead of judging: the cells read unsure.

    ``state`` is the board to judge (held cells at the match's values), ``seen`` the camera's
    view of it and ``held`` the held cells' camera values then."""

    state: S
    frame: int | None
    confidence: Any
    cells: list[str]
    seen: S
    held: dict[str, str]


@dataclass(frozen=True)
class Rejected(Generic[S]):
    """A board just judged illegal, until another board is judged: the next rest reads its
    cells again (``Session._reread``)."""

    board: S
    cells: frozenset[str] | None
    """The cells it changed, which a second read may set right; None for a failed set-up
    check, where any cell may be the misread one."""


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
        self.held: dict[str, str] | None = None
        """While out of sync after a verdict: cell -> the camera's value there then (see the
        module's docstring); None in sync, and after a resume (nothing judged till equal)."""
        self.rejected: Rejected[S] | None = None
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

    def lose_sync(self, seen: S, target: S, rejected: Rejected[S]) -> None:
        """``seen`` was judged illegal (``rejected``): the table must go back to ``target``,
        and the cells where it differs are held.  A failed set-up check holds nothing: every
        rest is checked as it is until one passes (the match's board before then is only one
        of the starts it accepts)."""
        self._hold(seen, target)
        self.rejected = rejected
        if rejected.cells is None and self.held is not None:
            self.held = {}

    def resync(self, target: S) -> None:
        """After an undo or correction: in sync only if the last board seen is ``target``;
        the cells where it is not are held."""
        if self.observed is None:
            self.in_sync, self.cells, self.held, self.rejected = False, [], None, None
            return
        self._hold(self.observed, target)

    def _hold(self, seen: S, target: S) -> None:
        self.rejected = None
        self.cells = changed_cells(self.game, seen, target)
        self.in_sync = not self.cells
        values = self.game.cells(seen)
        self.held = None if self.in_sync else {c: values[c] for c in self.cells}

    def keep(self, held: dict[str, str]) -> None:
        """Hold exactly ``held`` (cell -> the camera's value): in sync when it is empty."""
        if held:
            self.in_sync, self.held, self.cells = False, held, list(held)
        else:
            self.sync()

    def sync(self) -> None:
        """A settled board equals the match again."""
        self.in_sync, self.cells, self.held, self.rejected = True, [], None, None

    def judged(self, seen: S, target: S) -> S:
        """The board to judge ``seen`` as while out of sync: held cells still showing what
        they showed get ``target``'s values; those the camera sees change are let go."""
        if self.held is None:
            return seen
        values = self.game.cells(seen)
        self.held = {c: v for c, v in self.held.items() if values.get(c) == v}
        wanted = self.game.cells(target)
        return self.game.with_cells(seen, {c: wanted[c] for c in self.held}) if self.held else seen

    def agrees(self, target: S) -> bool:
        """The camera's last settled board is ``target``, in sync and with nothing in doubt:
        what the camera may remember that frame as (``Reader.remember``)."""
        return (
            self.in_sync
            and self.doubt is None
            and self.observed is not None
            and self.observed == target
        )
