"""The referee session: settled boards and events in, verdicts and page state out.

Everything that happens to a match is first written to the game log and only then shown, and
the match itself is a pure function of its settings and the log.  So live play, undo,
corrections and resuming after a power cut all run through one replay of log entries
(``Replay.apply``): what the page shows after a restart is exactly what it showed before.

The session is game-agnostic: it handles states through ``Game.format_state``/``parse_state``
and compares cells through ``Game.cells``.
"""

from __future__ import annotations

import copy
import json
import logging
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from companion.errors import InputError
from companion.games.base import JSON, Game, Match, Verdict
from companion.referee.store import MatchRecord, Store

State = Any  # replaced by the generic session below

log = logging.getLogger(__name__)

MAX_LISTED_CELLS = 6


@dataclass(frozen=True)
class _Record:
    """One verdict, the input (item index) that produced it, its turn and the cells it changed."""

    item: int
    verdict: Verdict
    turn: int
    cells: tuple[str, ...]


DOUBT_BELOW = 0.35
"""Confidence under which a changed cell makes the referee ask (readers give ~1 when sure)."""


def _diff(game: Game, a: State, b: State) -> list[str]:
    """Cells whose values differ between two states, in the game's cell order."""
    cells_a = game.cells(a)
    return [name for name, value in game.cells(b).items() if cells_a.get(name) != value]


class Replay:
    """A match together with the inputs that built it: the one path for live play and rebuilds.

    ``items`` are the inputs still in effect (boards, as corrected, and events); an undo drops
    inputs and a correction edits one, and both then replay ``items`` from a fresh match.
    """

    def __init__(self, game: Game, settings: JSON) -> None:
        self.game = game
        self.settings = settings
        self.items: list[tuple[str, JSON]] = []
        self._reset()

    def _reset(self) -> None:
        self.match: Match = self.game.new_match(self.settings)
        self.records: list[_Record] = []
        self.moves = 0

    def fork(self) -> Replay:
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

    @property
    def boards(self) -> int:
        return sum(1 for kind, _ in self.items if kind == "board")

    def last_board(self) -> int | None:
        """Index in ``items`` of the last board (what a correction applies to)."""
        for i in range(len(self.items) - 1, -1, -1):
            if self.items[i][0] == "board":
                return i
        return None

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
            index = self.last_board()
            if index is None:
                raise InputError("no board has been judged yet: nothing to correct")
            state = self.game.parse_state(self.items[index][1]["state"])
            fixed = self.game.with_cells(state, {payload["cell"]: payload["value"]})
            board = {**self.items[index][1], "state": self.game.format_state(fixed)}
            self.items[index] = ("board", board)
            self._rebuild()
            return next((r.verdict for r in self.records if r.item == index), None)
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

    def _rebuild(self) -> None:
        self._reset()
        for index in range(len(self.items)):
            self._play(index)

    def _play(self, index: int) -> Verdict | None:
        kind, payload = self.items[index]
        before = self.match.state
        if kind == "board":
            verdict: Verdict | None = self.match.judge(self.game.parse_state(payload["state"]))
        else:
            # a recorded game's events carry the photo they came before: not the game's business
            verdict = self.match.handle({k: v for k, v in payload.items() if k != "frame"})
        if verdict is None:
            return None
        cells: tuple[str, ...] = ()
        if verdict.legal and verdict.move is not None:
            self.moves += 1
            turn = self.moves
            cells = tuple(_diff(self.game, before, self.match.state))
        else:
            # A setup verdict belongs to the turn already played; an illegal one to the next.
            turn = self.moves + (0 if verdict.legal else 1)
        self.records.append(_Record(index, verdict, turn, cells))
        return verdict


def _sentence(cells: list[str]) -> str:
    if not cells:
        return "show the whole board to the camera: it must match the drawing before play goes on"
    if len(cells) > MAX_LISTED_CELLS:
        return f"put back the {len(cells)} highlighted cells as shown"
    names = cells[0] if len(cells) == 1 else ", ".join(cells[:-1]) + " and " + cells[-1]
    return f"put back {names} as shown"


class Session:
    """One game's referee; the pipeline thread and the web thread share it (one RLock)."""

    def __init__(
        self, game: Game, store: Store, *, on_change: Callable[[], None] | None = None
    ) -> None:
        self.game = game
        self.store = store
        self.on_change = on_change
        self.defaults: JSON = {}
        """Settings given on the command line (``--setting``), under what the page sends."""
        self.doubt_below = DOUBT_BELOW
        """A changed cell read with less confidence than this is asked about, not judged."""
        self._doubt: tuple[State, int | None, Any, list[str]] | None = None
        self.on_correct: Callable[[str, str], None] | None = None
        """Told of every correction (cell, value): the camera's reader may learn from it."""
        self._lock = threading.RLock()
        self._replay: Replay | None = None
        self._match_id: int | None = None
        self._meta: JSON = {}
        self._finished_logged = False
        self._closed = False
        """A game closed in the log (abandoned, imported): shown, never played on."""
        self._sync_ok = True
        self._sync_cells: list[str] = []
        self._raw: State | None = None
        self._observed: State | None = None
        self._overrides: dict[str, tuple[str, str]] = {}
        self._unjudged: tuple[int | None] | None = None
        """(frame,) while the last settled board is the match's board and was not judged."""
        self._last_frame: int | None = None
        self._last_event_frame: int | None = None
        self._reading_notes: list[str] = []
        """What the match says of the camera's latest reading (``Match.notes_on``)."""
        self._version = 0

    # --- starting and resuming ---------------------------------------------------------------
    def start(self, options: JSON) -> int:
        """A new match from page/CLI options; the previous unfinished one is marked abandoned."""
        if not isinstance(options, dict):
            raise InputError("match options must be an object of settings")
        options = {**self.defaults, **options}
        source = options.pop("source", None)
        settings = self.game.settings_for(options)
        try:
            json.dumps(settings)
        except (TypeError, ValueError):
            raise InputError("match settings must be plain JSON values") from None
        replay = Replay(self.game, settings)
        players = replay.match.public_view().get("players", [])
        meta: JSON = {"tokens": [secrets.token_urlsafe(16) for _ in players]}
        if source is not None:
            meta["source"] = str(source)
        with self._lock:
            if self._match_id is not None and not self._finished_logged:
                self.store.finish(self._match_id, {"abandoned": True})
            match_id = self.store.create_match(self.game.id, settings, meta)
            self._load(match_id, replay, meta)
            self._bump()
        self._notify()
        return match_id

    def resume(self, *, trust_board: bool = False) -> bool:
        """Rebuild this game's latest unfinished match from the log; False if there is none.

        A camera's table may have changed while the program was down, so play waits until a
        settled board equals the match state.  A replayed recording (``trust_board``) continues
        exactly where the log ends: its table is the last logged board.
        """
        record = self.store.unfinished(self.game.id)
        if record is None:
            return False
        self._open(record, trust_board=trust_board)
        return True

    def open(self, match_id: int) -> None:
        """Show a past (or imported) match of this game; an unfinished one can go on, once
        the table shows its board."""
        record = self.store.get(match_id)
        if record is None or record.game != self.game.id:
            raise InputError(f"there is no {self.game.title} game number {match_id}")
        self._open(record, trust_board=False)

    def _open(self, record: MatchRecord, *, trust_board: bool) -> None:
        closed = record.finished is not None
        replay = Replay(self.game, record.settings)
        overrides: dict[str, tuple[str, str]] = {}
        last_frame = None
        last_event_frame = None
        last_board: State | None = None
        for entry in self.store.entries(record.id):
            replay.apply(entry.kind, entry.payload)
            if entry.kind == "board":
                last_frame = entry.payload.get("frame")
                last_board = self.game.parse_state(entry.payload["state"])
                fixed = entry.payload.get("corrected")
                if isinstance(fixed, dict) and fixed.get("raw") is not None:
                    overrides[fixed["cell"]] = (fixed["raw"], fixed["value"])
            elif entry.kind == "synced":
                last_frame = entry.payload.get("frame", last_frame)
                last_board = replay.match.state
            elif entry.kind == "event" and isinstance(entry.payload.get("frame"), int):
                last_event_frame = entry.payload["frame"]
            elif entry.kind == "correct":
                cell, value = entry.payload["cell"], entry.payload["value"]
                if last_board is not None:
                    last_board = self.game.with_cells(last_board, {cell: value})
                if entry.payload.get("raw") is not None:
                    overrides[cell] = (entry.payload["raw"], value)
        with self._lock:
            self._load(record.id, replay, record.meta)
            self._closed = closed
            self._finished_logged = self._finished_logged or closed
            self._overrides = overrides
            self._last_frame = last_frame
            self._last_event_frame = last_event_frame
            if last_board is None:
                self._sync_ok = True
            elif trust_board:
                self._observed = last_board
                self._resync()
            else:
                self._sync_ok = False
            self._bump()
        self._notify()
        log.info("opened %s match %d (%d entries)", self.game.id, record.id, len(replay.items))

    def _load(self, match_id: int, replay: Replay, meta: JSON) -> None:
        self._replay = replay
        self._match_id = match_id
        self._meta = meta
        self._finished_logged = replay.match.finished
        self._closed = False
        self._doubt = None
        self._sync_ok = True
        self._sync_cells = []
        self._raw = self._observed = None
        self._overrides = {}
        self._unjudged = None
        self._last_frame = None
        self._last_event_frame = None

    # --- inputs ----------------------------------------------------------------------------
    def observe(
        self, state: State, *, frame: int | None = None, confidence: Any = None
    ) -> Verdict | None:
        """A settled board from the camera; the verdict if it was judged (a change), else None."""
        with self._lock:
            verdict, changed = self._observe(state, frame, confidence)
        if changed:
            self._notify()
        return verdict

    def _observe(
        self, raw: State, frame: int | None, confidence: Any
    ) -> tuple[Verdict | None, bool]:
        replay = self._replay
        if replay is None or replay.match.finished or self._closed:
            return None, False
        # A state that does not survive its own notation is not this game's board.
        self.game.parse_state(self.game.format_state(raw))
        self._raw = raw
        state = self._observed = self._apply_overrides(raw)
        match = replay.match
        resynced = False
        if not self._sync_ok:
            cells = _diff(self.game, state, match.state)
            if cells:
                changed = cells != self._sync_cells
                self._sync_cells = cells
                if changed:
                    self._bump()
                return None, changed
            # logged, so that a restarted referee knows the table was put back, and where
            frame = None if frame is None else int(frame)
            self._require()
            assert self._match_id is not None
            self.store.append(self._match_id, "synced", {"frame": frame})
            if frame is not None:
                self._last_frame = frame
            self._sync_ok, self._sync_cells, resynced = True, [], True
            self._bump()
        # Until a board has been accepted, a board equal to the start state is still judged:
        # it is the set-up check, and the gate shows a resting board only once.
        if state == match.state and replay.set_up:
            had_doubt, self._doubt = self._doubt is not None, None
            self._unjudged = (None if frame is None else int(frame),)
            return None, resynced or had_doubt
        self._unjudged = None
        unsure = self._unsure_cells(match.state, state, confidence)
        if unsure:
            # ask rather than guess: the host confirms or rejects on the page
            self._doubt = (state, frame, confidence, unsure)
            self._bump()
            return None, True
        self._doubt = None
        return self._judge_board(state, frame, confidence), True

    def _unsure_cells(self, before: State, state: State, confidence: Any) -> list[str]:
        """Changed cells the camera read with less confidence than ``doubt_below``."""
        if confidence is None or not len(confidence) or self.doubt_below <= 0:
            return []
        names = list(self.game.cells(state))
        if len(names) != len(confidence):
            return []
        index = {name: i for i, name in enumerate(names)}
        changed = _diff(self.game, before, state)
        return [c for c in changed if float(confidence[index[c]]) < self.doubt_below]

    def confirm(self, accept: bool) -> Verdict | None:
        """The host's answer to a doubtful reading: judge it as read, or drop it (then the
        players fix the board or correct the cell, and the camera looks again)."""
        with self._lock:
            self._require_open()
            if self._doubt is None:
                raise InputError("there is no doubtful reading to confirm")
            state, frame, confidence, _ = self._doubt
            self._doubt = None
            verdict = self._judge_board(state, frame, confidence) if accept else None
            self._bump()
        self._notify()
        return verdict

    def _judge_board(
        self, state: State, frame: int | None, confidence: Any, corrected: JSON | None = None
    ) -> Verdict | None:
        """Log a settled board, then judge it (an illegal one puts the table out of sync);
        ``corrected`` is the host's correction it carries, if any (cell, value, raw)."""
        frame = None if frame is None else int(frame)
        self._unjudged = None
        payload: JSON = {"state": self.game.format_state(state), "frame": frame}
        if confidence is not None and len(confidence):
            payload["confidence"] = round(float(min(confidence)), 4)
        if corrected:
            payload["corrected"] = corrected
        verdict = self._commit("board", payload)
        if frame is not None:
            self._last_frame = frame
        if verdict is not None and not verdict.legal:
            self._sync_ok = False
            self._sync_cells = _diff(self.game, state, self._match().state)
        self._bump()
        return verdict

    def reconcile(self, state: State) -> State:
        """A camera reading with what the match knows better filled in (see Match.reconcile)."""
        with self._lock:
            if self._replay is None:
                return state
            match = self._replay.match
            self._reading_notes = match.notes_on(state)
            return match.reconcile(state)

    def event(self, ev: JSON, *, frame: int | None = None) -> Verdict | None:
        """A game event from the page or a .jsonl line (``{"event": "pass"}``...); ``frame``
        is the photo it came before, in a recorded game (a resumed replay skips up to it)."""
        with self._lock:
            self._require_open()
            if not isinstance(ev, dict) or not isinstance(ev.get("event"), str):
                raise InputError('an event must be an object with an "event" name')
            try:
                json.dumps(ev)
            except (TypeError, ValueError):
                raise InputError("an event must hold plain JSON values") from None
            before = self._match().state
            payload = dict(ev) if frame is None else {**ev, "frame": int(frame)}
            verdict = self._commit("event", payload)
            if frame is not None:
                self._last_event_frame = int(frame)
            if self._match().state != before:
                self._resync()  # e.g. a challenged word taken back: the table must follow
            self._bump()
        self._notify()
        return verdict

    def undo(self) -> bool:
        """Take back the last legal move; False if there is none.  The table must follow."""
        with self._lock:
            replay = self._require_open()
            if replay.last_move() is None:
                return False
            self._commit("undo", {})
            self._resync()
            self._bump()
        self._notify()
        return True

    def correct(self, cell: str, value: str) -> Verdict | None:
        """The camera misread ``cell`` on the last judged board: it is ``value``; re-judge.

        While the camera keeps reading what it read when corrected, later boards get ``value``
        there too; once the camera's value changes (the tile really moved), the override ends.

        A play the camera missed altogether (it read the match's own board, so nothing was
        judged) is set right the same way: when the correction would make the last judged
        board illegal, it is put on the board the camera shows now instead, and that board is
        judged as a new one (illegal until the host has corrected every square of a longer
        play: the later corrections re-judge it).
        """
        with self._lock:
            replay = self._require_open()
            if not isinstance(cell, str) or not isinstance(value, str):
                raise InputError("a correction needs a cell name and a value, both text")
            index = replay.last_board()
            if index is None:
                raise InputError("no board has been judged yet: nothing to correct")
            board = self.game.parse_state(replay.items[index][1]["state"])
            if cell not in self.game.cells(board):
                raise InputError(f"there is no cell {cell!r} on the {self.game.title} board")
            seen = self._raw if self._raw is not None else board
            raw_value = self.game.cells(seen)[cell]
            payload = {"cell": cell, "value": value, "raw": raw_value}
            missed = self._missed_play(replay, payload)
            if missed is None:
                verdict = self._commit("correct", payload)
            self._overrides[cell] = (raw_value, value)
            if self._raw is not None:
                self._observed = self._apply_overrides(self._raw)
            if missed is not None:
                assert self._observed is not None
                verdict = self._judge_board(self._observed, missed[0], None, payload)
            self._resync()
            self._bump()
        self._notify()
        if self.on_correct is not None:
            self.on_correct(cell, value)
        return verdict

    def _missed_play(self, replay: Replay, payload: JSON) -> tuple[int | None] | None:
        """(frame,) of the settled board a correction belongs to when it is a play the camera
        missed (see ``correct``), else None."""
        if self._unjudged is None or self._observed is None:
            return None
        fixed = self.game.with_cells(self._observed, {payload["cell"]: payload["value"]})
        if fixed == replay.match.state:
            return None
        again = replay.fork().apply("correct", payload)
        return None if again is not None and again.legal else self._unjudged

    # --- internals -------------------------------------------------------------------------
    def _require_open(self) -> Replay:
        """The match, if it may still be played on (not closed in the log)."""
        replay = self._require()
        if self._closed:
            raise InputError(f"game {self._match_id} is closed: start a new game to play")
        return replay

    def _require(self) -> Replay:
        if self._replay is None:
            raise InputError("no match in progress: start one first")
        return self._replay

    def _match(self) -> Match:
        return self._require().match

    def _commit(self, kind: str, payload: JSON) -> Verdict | None:
        """Try the entry on a copy (bad input raises before anything is written), log it, keep it.

        The entry is committed to disk before the new match state is kept or shown.
        """
        replay = self._require_open()
        trial = replay.fork()
        verdict = trial.apply(kind, payload)
        assert self._match_id is not None
        self.store.append(self._match_id, kind, payload)
        self._replay = trial
        if trial.match.finished and not self._finished_logged:
            self.store.finish(self._match_id, {"view": trial.match.public_view()})
            self._finished_logged = True
        elif not trial.match.finished and self._finished_logged:
            self.store.reopen(self._match_id)
            self._finished_logged = False
        return verdict

    def _apply_overrides(self, raw: State) -> State:
        if not self._overrides:
            return raw
        seen = self.game.cells(raw)
        self._overrides = {c: rv for c, rv in self._overrides.items() if seen.get(c) == rv[0]}
        values = {c: value for c, (_, value) in self._overrides.items()}
        return self.game.with_cells(raw, values) if values else raw

    def _resync(self) -> None:
        """After an undo or correction: in sync only if the last board seen is the match state."""
        target = self._match().state
        if self._observed is None:
            self._sync_ok, self._sync_cells = False, []
            return
        self._sync_cells = _diff(self.game, self._observed, target)
        self._sync_ok = not self._sync_cells

    def _bump(self) -> None:
        self._version += 1

    def _notify(self) -> None:
        if self.on_change is not None:
            self.on_change()

    # --- outputs ---------------------------------------------------------------------------
    @property
    def match_id(self) -> int | None:
        return self._match_id

    @property
    def last_event_frame(self) -> int | None:
        """The photo before which the last recorded event was entered (resumed replays apply
        only later ones)."""
        return self._last_event_frame

    @property
    def last_frame(self) -> int | None:
        """Frame index of the last board logged: a replayed source resumes after it."""
        return self._last_frame

    @property
    def in_sync(self) -> bool:
        return self._sync_ok

    @property
    def observed(self) -> State | None:
        """The last settled board as the referee took it: the camera's reading with the page's
        corrections that still hold (None before the first)."""
        with self._lock:
            return self._observed

    def agreed_board(self) -> State | None:
        """The match's board when the last settled board the camera saw is that board (in
        sync, nothing in doubt), else None: what the camera may remember that frame as
        (``Reader.remember``)."""
        with self._lock:
            replay = self._replay
            if replay is None or not self._sync_ok or self._doubt is not None:
                return None
            if self._observed is None or self._observed != replay.match.state:
                return None
            return replay.match.state

    @property
    def verdicts(self) -> list[JSON]:
        with self._lock:
            if self._replay is None:
                return []
            return [
                {**r.verdict.to_json(r.turn), "svgs": list(r.verdict.svgs)}
                for r in self._replay.records
            ]

    def snapshot(self) -> JSON:
        """Everything the page shows, with a version that grows on every change."""
        with self._lock:
            replay = self._replay
            if replay is None:
                start = self.game.start_state()
                return {
                    "game": self.game.id,
                    "title": self.game.title,
                    "match_id": None,
                    "status": "idle",
                    "board": self.game.format_state(start),
                    "board_svg": self.game.board_svg(start),
                    "sync": {"ok": True, "cells": [], "message": ""},
                    "view": {},
                    "verdicts": [],
                    "version": self._version,
                }
            match = replay.match
            if self._sync_ok:
                last = next((r for r in reversed(replay.records) if r.cells), None)
                highlights = last.cells if last else ()
            else:
                highlights = tuple(self._sync_cells)
            return {
                "game": self.game.id,
                "title": self.game.title,
                "match_id": self._match_id,
                "status": "finished" if match.finished or self._closed else "playing",
                "board": self.game.format_state(match.state),
                "board_svg": self.game.board_svg(
                    match.state, highlights=highlights, marks=match.board_marks()
                ),
                "offers_moves": match.moves_view() is not None,
                "sync": {
                    "ok": self._sync_ok,
                    "cells": list(self._sync_cells),
                    "message": "" if self._sync_ok else _sentence(self._sync_cells),
                },
                "view": self._public_view(match),
                "doubt": self._doubt_view(),
                "verdicts": self.verdicts,
                "version": self._version,
            }

    def _public_view(self, match: Match) -> JSON:
        """The match's public view with what it says of the camera's latest reading."""
        view = match.public_view()
        if self._reading_notes:
            view = {**view, "summary": [*view.get("summary", []), *self._reading_notes]}
        return view

    def moves_view(self) -> JSON | None:
        """The player to move's legal moves with the board drawn to show them, or None when
        the game offers no such view now (see ``Match.moves_view``)."""
        with self._lock:
            if self._replay is None:
                return None
            match = self._replay.match
            view = match.moves_view()
            if view is None:
                return None
            marks = view.get("marks") or {}
            drawn = self.game.board_svg(match.state, marks=marks)
            return {**{k: v for k, v in view.items() if k != "marks"}, "board_svg": drawn}

    def _doubt_view(self) -> JSON | None:
        if self._doubt is None:
            return None
        state, _, _, cells = self._doubt
        names = " and ".join(cells)
        return {
            "cells": cells,
            "board_svg": self.game.board_svg(state, highlights=tuple(cells)),
            "message": f"The camera is not sure about {names}: is the board drawn here right?",
        }

    def links(self) -> list[JSON]:
        """Each player's private page token, for the organiser to hand out."""
        with self._lock:
            if self._replay is None:
                return []
            players = self._replay.match.public_view().get("players", [])
            tokens = self._meta.get("tokens", [])
            return [
                {"player": i, "name": p.get("name", f"Player {i + 1}"), "token": token}
                for i, (p, token) in enumerate(zip(players, tokens, strict=False))
            ]

    def _player_of(self, token: str) -> JSON | None:
        for link in self.links():
            if secrets.compare_digest(str(token), link["token"]):
                return link
        return None

    def private(self, token: str) -> JSON | None:
        """The private view of the player holding ``token``; None for an unknown token."""
        with self._lock:
            link = self._player_of(token)
            if link is None:
                return None
            player = link["player"]
            return {"player": player, "name": link["name"], **self._match().private_view(player)}

    def private_event(self, token: str, text: str) -> Verdict | None:
        """A player's private entry (e.g. the cards he holds), logged as the event it means;
        ``InputError`` for an unknown token."""
        with self._lock:
            link = self._player_of(token)
            if link is None:
                raise InputError("no such player link: ask the host for your link again")
            ev = self._match().private_event(link["player"], text)
        return self.event(ev)

    def private_query(self, token: str, text: str) -> JSON | None:
        """A private question of the player holding ``token``; None for an unknown token."""
        with self._lock:
            link = self._player_of(token)
            if link is None:
                return None
            return self._match().private_query(link["player"], text)
