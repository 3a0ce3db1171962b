"""Lights' rules: a turn switches one lamp; the player who switches the last one on wins."""

from __future__ import annotations

from dataclasses import dataclass, replace

from companion.games.base import JSON, TableMatch, Verdict
from lights_game import CELLS, Lamps


@dataclass(frozen=True)
class Table:
    lamps: Lamps
    started: bool
    to_move: int
    winner: int | None
    over: bool


class LightsMatch(TableMatch[Lamps, Table]):
    def __init__(self, settings: JSON) -> None:
        self.names: list[str] = settings["names"]
        self._table = Table((False,) * len(CELLS), False, settings["first"], None, False)

    @property
    def state(self) -> Lamps:
        return self._table.lamps

    def _step(self, table: Table, board: Lamps) -> tuple[Verdict, Table]:
        if not table.started:
            if any(board):
                return Verdict(False, "switch every lamp off to start", None, None), table
            return Verdict(True, "ready", None, None, text="all lamps off"), replace(
                table, started=True
            )
        if table.over:
            return Verdict(False, "the game is over", None, None), table
        switched = [name for name, a, b in zip(CELLS, table.lamps, board, strict=True) if a != b]
        player = table.to_move
        if len(switched) != 1:
            reason = f"{len(switched)} lamps switched: one a turn"
            return Verdict(False, reason, player, None, text=reason), table
        (cell,) = switched
        over = all(board)
        after = replace(
            table,
            lamps=board,
            to_move=(player + 1) % len(self.names),
            winner=player if over else None,
            over=over,
        )
        text = f"{self.names[player]} switches {cell}" + (" and wins" if over else "")
        return Verdict(True, "switch", player, {"lamp": cell}, score=int(over), text=text), after

    def handle(self, event: JSON) -> Verdict | None:
        from companion.errors import InputError

        raise InputError(f"lights has no event {event.get('event')!r}")

    def public_view(self) -> JSON:
        return {
            "players": [{"name": n, "score": 0} for n in self.names],
            "to_move": self._table.to_move,
            "winner": self._table.winner,
        }

    def private_view(self, player: int) -> JSON:
        return {"title": "Nothing secret", "items": []}
