"""What the page shows of a session: the snapshot, the moves view, the doubt, player links.

Pure functions of the match's history, the table view and the session's bookkeeping, so that
every page, the stream and the tests see one drawing of the same facts.
"""

from __future__ import annotations

import secrets
from typing import Any

from companion.games.base import JSON, Game, Match, S
from companion.referee.history import History
from companion.referee.table import Doubt, TableView

MAX_LISTED_CELLS = 6


def sync_sentence(cells: list[str]) -> str:
    """What the page tells the players to put back."""
    if not cells:
        return "show the whole board to the camera: it must match the drawing before play goes on"
    if len(cells) > MAX_LISTED_CELLS:
        return f"put back the {len(cells)} highlighted cells as shown"
    names = cells[0] if len(cells) == 1 else ", ".join(cells[:-1]) + " and " + cells[-1]
    return f"put back {names} as shown"


def verdicts(history: History[Any]) -> list[JSON]:
    """Every verdict so far, as the ``referee`` JSON lines plus the page's drawings."""
    return [{**r.verdict.to_json(r.turn), "svgs": list(r.verdict.svgs)} for r in history.records]


def idle_snapshot(game: Game[Any], version: int) -> JSON:
    """The page before any match: the start position."""
    start = game.start_state()
    return {
        "game": game.id,
        "title": game.title,
        "match_id": None,
        "status": "idle",
        "board": game.format_state(start),
        "board_svg": game.board_svg(start),
        "sync": {"ok": True, "cells": [], "message": ""},
        "view": {},
        "verdicts": [],
        "version": version,
    }


def public_view(match: Match[S], notes: list[str]) -> JSON:
    """The match's public view with what it says of the camera's latest reading."""
    view = match.public_view()
    if notes:
        view = {**view, "summary": [*view.get("summary", []), *notes]}
    return view


def snapshot(
    history: History[S],
    table: TableView[S],
    *,
    match_id: int | None,
    closed: bool,
    notes: list[str],
    version: int,
) -> JSON:
    """Everything the page shows of a match."""
    game, match = history.game, history.match
    if table.in_sync:
        last = next((r for r in reversed(history.records) if r.cells), None)
        highlights = last.cells if last else ()
    else:
        highlights = tuple(table.cells)
    return {
        "game": game.id,
        "title": game.title,
        "match_id": match_id,
        "status": "finished" if match.finished or closed else "playing",
        "board": game.format_state(match.state),
        "board_svg": game.board_svg(match.state, highlights=highlights, marks=match.board_marks()),
        "offers_moves": match.moves_view() is not None,
        "sync": {
            "ok": table.in_sync,
            "cells": list(table.cells),
            "message": "" if table.in_sync else sync_sentence(table.cells),
        },
        "view": public_view(match, notes),
        "doubt": None if table.doubt is None else doubt_view(game, table.doubt),
        "verdicts": verdicts(history),
        "version": version,
    }


def doubt_view(game: Game[S], doubt: Doubt[S]) -> JSON:
    """The board the camera is unsure of, with the unsure cells marked."""
    names = " and ".join(doubt.cells)
    return {
        "cells": doubt.cells,
        "board_svg": game.board_svg(doubt.state, highlights=tuple(doubt.cells)),
        "message": f"The camera is not sure about {names}: is the board drawn here right?",
    }


def moves_view(history: History[S]) -> JSON | None:
    """The player to move's legal moves with the board drawn to show them, or None when the
    game offers no such view now (see ``Match.moves_view``)."""
    match = history.match
    view = match.moves_view()
    if view is None:
        return None
    drawn = history.game.board_svg(match.state, marks=view.get("marks") or {})
    return {**{k: v for k, v in view.items() if k != "marks"}, "board_svg": drawn}


def links(history: History[Any], tokens: list[str]) -> list[JSON]:
    """Each player's private page token, for the organiser to hand out."""
    players = history.match.public_view().get("players", [])
    return [
        {"player": i, "name": p.get("name", f"Player {i + 1}"), "token": token}
        for i, (p, token) in enumerate(zip(players, tokens, strict=False))
    ]


def player_of(history: History[Any], tokens: list[str], token: str) -> JSON | None:
    """The link a private token belongs to (compared in constant time), or None."""
    for link in links(history, tokens):
        if secrets.compare_digest(str(token), link["token"]):
            return link
    return None
