"""Game records: a finished (or running) game as a file people can keep, read and load again.

The JSON record holds the settings and every log entry (so loading it rebuilds exactly the
same game) plus every verdict (so it can be read without Companion); the text record is the
same game as sentences.  Importing checks the whole record by rebuilding it before anything
is written to the log.
"""

from __future__ import annotations

import secrets
import time
from typing import Any

from companion.errors import InputError
from companion.games.base import JSON, Game
from companion.referee.history import History
from companion.referee.session import Session
from companion.referee.store import KINDS, Store

FORMAT = "companion-record"
VERSION = 1


def export_record(game: Game, store: Store, match_id: int) -> JSON:
    """The JSON record of one match from the log."""
    record = store.get(match_id)
    if record is None or record.game != game.id:
        raise InputError(f"there is no {game.title} game number {match_id}")
    viewer = Session(game, store)
    viewer.open(match_id)
    snapshot = viewer.snapshot()
    return {
        "format": FORMAT,
        "version": VERSION,
        "game": game.id,
        "id": match_id,
        "created": record.created,
        "finished": record.finished,
        "settings": record.settings,
        "entries": [
            {"kind": e.kind, "payload": e.payload, "time": e.time} for e in store.entries(match_id)
        ],
        "verdicts": [{k: v for k, v in d.items() if k != "svgs"} for d in snapshot["verdicts"]],
        "view": snapshot["view"],
    }


def text_record(record: JSON) -> str:
    """The record as lines people read: who played, every verdict, the result."""
    view = record.get("view", {})
    names = [p.get("name", "?") for p in view.get("players", [])]
    started = time.strftime("%Y-%m-%d %H:%M", time.localtime(record.get("created", 0)))
    lines = [f"{record['game'].title()} game {record.get('id', '')}, {started}: {', '.join(names)}"]
    for verdict in record["verdicts"]:
        mark = "" if verdict.get("legal") else "  (not allowed)"
        lines.append(f"{verdict.get('turn', '')}. {verdict.get('text', '')}{mark}")
    scores = ", ".join(f"{p.get('name')} {p.get('score')}" for p in view.get("players", []))
    if scores:
        lines.append(f"Scores: {scores}")
    return "\n".join(lines) + "\n"


def import_record(game: Game, store: Store, record: Any) -> int:
    """Check a JSON record by rebuilding it, then add it to the log; its new match id."""
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise InputError("that file is not a Companion game record (export one from the page)")
    if record.get("version") != VERSION:
        raise InputError(f"game record version {record.get('version')!r} is not supported")
    if record.get("game") != game.id:
        raise InputError(f"that record is a {record.get('game')!r} game, not {game.id}")
    settings, entries = record.get("settings"), record.get("entries")
    if not isinstance(settings, dict) or not isinstance(entries, list):
        raise InputError("the game record has no settings or entries: export it again")
    named = [k for k, v in settings.items() if isinstance(v, str) and ("/" in v or "\\" in v)]
    if named:
        # a record must not make this machine read its files (a deck or word list by path)
        raise InputError(
            f"the record's settings name files ({', '.join(sorted(named))}): those files are on "
            "the machine that made it; load it there, or copy the files and start a new game"
        )
    trial = History(game, game.settings_for(settings))
    checked: list[tuple[str, JSON]] = []
    for number, entry in enumerate(entries, start=1):
        kind = entry.get("kind") if isinstance(entry, dict) else None
        payload = entry.get("payload") if isinstance(entry, dict) else None
        if kind not in KINDS or not isinstance(payload, dict):
            raise InputError(f"entry {number} of the game record is damaged: export it again")
        try:
            trial.apply(kind, payload)
        except (InputError, KeyError, TypeError, ValueError) as err:
            raise InputError(f"entry {number} of the game record does not replay: {err}") from None
        checked.append((kind, payload))
    players = trial.match.public_view().get("players", [])
    meta = {
        "imported": True,
        "source": "imported record",
        "tokens": [secrets.token_urlsafe(16) for _ in players],
    }
    match_id = store.create_match(game.id, trial.settings, meta)
    for kind, payload in checked:
        store.append(match_id, kind, payload)
    store.finish(match_id, {"imported": True, "view": trial.match.public_view()})
    return match_id
