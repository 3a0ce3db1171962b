"""The referee session: settled boards and events in, verdicts and page state out.

Everything that happens to a match is first written to the game log and only then shown, and
the match itself is a pure function of its settings and the log.  So live play, undo,
corrections and resuming after a power cut all run through one replay of log entries
(``history.History.apply``): what the page shows after a restart is exactly what it showed
before.  What the camera last showed and whether it agrees with the match is the table view
(``table.TableView``); what the page draws of it all is ``views``.

The session is game-agnostic: it handles states through ``Game.format_state``/``parse_state``
and compares cells through ``Game.cells``.  The frame loop (``loop.py``) is its only caller
while a camera runs: page actions reach it through the loop's queue.
"""

from __future__ import annotations

import itertools
import json
import logging
import secrets
import threading
from collections.abc import Callable
from typing import Any, Generic

from companion.errors import InputError
from companion.games.base import JSON, Game, Match, S, Verdict
from companion.referee import views
from companion.referee.history import History, changed_cells, rebuild
from companion.referee.store import MatchRecord, Store
from companion.referee.table import Doubt, Rejected, TableView, Unjudged

log = logging.getLogger(__name__)

DOUBT_BELOW = 0.35
"""Confidence under which a changed cell makes the referee ask (readers give ~1 when sure)."""


REREAD_CELLS = 8
"""Cells two reads of a rejected board may differ in for a choice between them to be tried
(2**8 trials at most, only after an illegal verdict)."""


class Session(Generic[S]):
    """One game's referee: the match's history, the table view and the log they are kept in.

    Thread-safe (one RLock), but while a camera runs only its frame loop calls the methods
    that change anything; the page's threads read snapshots."""

    def __init__(
        self, game: Game[S], store: Store, *, on_change: Callable[[], None] | None = None
    ) -> None:
        self.game = game
        self.store = store
        self.on_change = on_change
        self.defaults: JSON = {}
        """Settings given on the command line (``--setting``), under what the page sends."""
        self.doubt_below = DOUBT_BELOW
        """A changed cell read with less confidence than this is asked about, not judged."""
        self.on_correct: Callable[[str, str], None] | None = None
        """Told of every correction (cell, value): the camera's reader may learn from it."""
        self._lock = threading.RLock()
        self._history: History[S] | None = None
        self._table = TableView(game)
        self._match_id: int | None = None
        self._meta: JSON = {}
        self._finished_logged = False
        self._closed = False
        """A game closed in the log (abandoned, imported): shown, never played on."""
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
        history = History(self.game, settings)
        players = history.match.public_view().get("players", [])
        meta: JSON = {"tokens": [secrets.token_urlsafe(16) for _ in players]}
        if source is not None:
            meta["source"] = str(source)
        with self._lock:
            if self._match_id is not None and not self._finished_logged:
                self.store.finish(self._match_id, {"abandoned": True})
            match_id = self.store.create_match(self.game.id, settings, meta)
            self._load(match_id, history, meta)
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
        rebuilt = rebuild(self.game, record.settings, self.store.entries(record.id))
        with self._lock:
            self._load(record.id, rebuilt.history, record.meta)
            self._closed = closed
            self._finished_logged = self._finished_logged or closed
            table = self._table
            table.overrides = rebuilt.overrides
            self._last_frame = rebuilt.last_frame
            self._last_event_frame = rebuilt.last_event_frame
            if rebuilt.last_board is None:
                table.in_sync = True
            elif trust_board:
                table.observed = rebuilt.last_board
                table.resync(rebuilt.history.match.state)
            else:
                table.in_sync = False
            self._bump()
        self._notify()
        log.info(
            "opened %s match %d (%d entries)", self.game.id, record.id, len(rebuilt.history.items)
        )

    def _load(self, match_id: int, history: History[S], meta: JSON) -> None:
        self._history = history
        self._match_id = match_id
        self._meta = meta
        self._finished_logged = history.match.finished
        self._closed = False
        self._table = TableView(self.game)
        self._last_frame = None
        self._last_event_frame = None

    # --- inputs ----------------------------------------------------------------------------
    def observe(
        self, state: S, *, frame: int | None = None, confidence: Any = None
    ) -> Verdict | None:
        """A settled board from the camera; the verdict if it was judged (a change), else None."""
        with self._lock:
            verdict, changed = self._observe(state, frame, confidence)
        if changed:
            self._notify()
        return verdict

    def _observe(self, raw: S, frame: int | None, confidence: Any) -> tuple[Verdict | None, bool]:
        history = self._history
        if history is None or history.match.finished or self._closed:
            return None, False
        # A state that does not survive its own notation is not this game's board.
        self.game.parse_state(self.game.format_state(raw))
        table = self._table
        seen = table.take(raw)
        doubt = table.doubt
        if doubt is not None and seen == doubt.seen:
            return None, False  # the same rest again: the host may still answer
        earlier: Verdict | None = None
        if doubt is not None:
            table.doubt = None
            earlier = self._take_unanswered(doubt, seen)
        if not table.in_sync and table.rejected:
            earlier = self._reread(seen, frame) or earlier
        changed = doubt is not None or earlier is not None
        state = seen
        if not table.in_sync:
            judged, moved = self._out_of_sync(seen, frame)
            changed = changed or moved
            if judged is None:
                return earlier, changed
            state = judged
        match = self._match()
        # Until a board has been accepted, a board equal to the start state is still judged:
        # it is the set-up check, and the gate shows a resting board only once.
        if state == match.state and self._require().set_up:
            table.unjudged = Unjudged(None if frame is None else int(frame))
            return earlier, changed
        table.unjudged = None
        held = dict(table.held or {})
        unsure = self._unsure_cells(match.state, state, confidence)
        if unsure:
            # ask rather than guess: the host confirms or rejects on the page
            table.doubt = Doubt(state, frame, confidence, unsure, seen, held)
            self._bump()
            return earlier, True
        verdict = self._judge_board(state, frame, confidence, held=held)
        return (earlier if verdict is None else verdict), True

    def _out_of_sync(self, seen: S, frame: int | None) -> tuple[S | None, bool]:
        """While out of sync: the board to judge ``seen`` as (held cells at the match's
        values), or None when it shows nothing new; and whether the table's view changed."""
        table, match = self._table, self._match()
        state = table.judged(seen, match.state)
        if state == match.state and not table.held:
            self._log_synced(frame)
            return state, True
        if state == match.state or table.held is None:
            # nothing new beside the cells to put back (or, after a resume, nothing is
            # judged until the table shows the match's board)
            cells = changed_cells(self.game, seen, match.state)
            changed = cells != table.cells
            table.cells = cells
            if changed:
                self._bump()
            return None, changed
        table.keep(table.held)  # none left: every held cell changed again, judged as seen
        return state, True

    def _take_unanswered(self, doubt: Doubt[S], seen: S) -> Verdict | None:
        """A doubt nobody answered before the table changed again is settled by the new
        rest, a second read of the same squares: the changes it shows as the doubt read them
        are judged (both reads agree), the others were misreads or a hand and are dropped,
        unless the new rest is a legal play from the doubt's board as read: then the doubt
        read right and a play has changed its cells since (a pocket tile read faintly at the
        start, then taken), and that board is judged whole.  The new rest itself is judged
        after, against the match this leaves."""
        before = self.game.cells(self._match().state)
        then, now = self.game.cells(doubt.seen), self.game.cells(seen)
        dropped = {
            c: before[c]
            for c, v in self.game.cells(doubt.state).items()
            if v != before[c] and now.get(c) != then.get(c)
        }
        if dropped and self._legal_after(doubt.state, seen):
            dropped = {}
        state = self.game.with_cells(doubt.state, dropped) if dropped else doubt.state
        if not changed_cells(self.game, state, self._match().state):
            return None
        return self._judge_board(
            state, doubt.frame, doubt.confidence, held=doubt.held, taken="unanswered doubt"
        )

    def _legal_after(self, *boards: S) -> bool:
        """Whether ``boards``, judged one after another from the match as it stands, are
        all legal (tried on a fork: nothing is logged)."""
        trial = self._require().fork()
        for board in boards:
            verdict = trial.apply("board", {"state": self.game.format_state(board)})
            if verdict is None or not verdict.legal:
                return False
        return True

    def _reread(self, seen: S, frame: int | None) -> Verdict | None:
        """The next rest after an illegal verdict is a second read of the rejected board's
        cells.  Where the two reads differ, the smallest choice between them that makes the
        rejected board legal is taken: the verdict came from a misread (a letter, a tile read
        lost, a start tile read face up), and the board is judged as re-read (its verdict
        returned).  The cells this rest read otherwise are held.  None if no choice is legal,
        or the rest shows none of the rejected play's changes (it was put back).  A failed
        set-up check with no such choice may be a first move on a start the camera missed
        (``_assume_start``).
        """
        table = self._table
        rejected = table.rejected
        assert rejected is not None
        before = self._match().state
        differ = [
            c
            for c in changed_cells(self.game, rejected.board, seen)
            if rejected.cells is None or c in rejected.cells
        ]
        now = self.game.cells(seen)
        was = self.game.cells(before)
        if len(differ) > REREAD_CELLS or (
            rejected.cells is not None and all(now[c] == was[c] for c in rejected.cells)
        ):
            return None  # ...or the whole play was taken back, as the page asked
        history = self._require()
        for size in range(1, len(differ) + 1):
            for chosen in itertools.combinations(differ, size):
                again = self.game.with_cells(rejected.board, {c: now[c] for c in chosen})
                if again == before and rejected.cells is not None:
                    continue  # the play taken back: nothing to judge
                trial = history.fork().apply("board", {"state": self.game.format_state(again)})
                if trial is None or not trial.legal:
                    continue
                # what this rest shows otherwise in the play's cells is taken for a misread
                # (after a set-up check, the other cells are the first move's)
                misread = {
                    c: now[c] for c in differ if c not in chosen and rejected.cells is not None
                }
                played = rejected.cells or frozenset()
                kept = {c: v for c, v in (table.held or {}).items() if c not in played}
                verdict = self._judge_board(again, frame, None, held=kept, taken="re-read")
                table.keep({**kept, **misread})
                return verdict
        return self._assume_start(rejected.board, frame) if rejected.cells is None else None

    def _assume_start(self, board: S, frame: int | None) -> Verdict | None:
        """A set-up check failed, and the next rest showed no start either; if the failed
        board is a legal first move from a start the match accepts, the camera missed the
        set-up (a hand over it, a start misread): that start is taken as set up, and the
        board is judged from it.  Its verdict, or None if no start makes it legal."""
        for start in dict.fromkeys((self._match().state, self.game.start_state())):
            if not self._legal_after(start, board):
                continue
            self._judge_board(start, None, None, taken="start not seen")
            verdict = self._judge_board(board, frame, None, taken="re-read")
            self._table.sync()
            return verdict
        return None

    def _log_synced(self, frame: int | None) -> None:
        """The table matches the match again: logged, so that a restarted referee knows the
        table was put back, and where."""
        frame = None if frame is None else int(frame)
        assert self._match_id is not None
        self.store.append(self._match_id, "synced", {"frame": frame})
        if frame is not None:
            self._last_frame = frame
        self._table.sync()
        self._bump()

    def _unsure_cells(self, before: S, state: S, confidence: Any) -> list[str]:
        """Changed cells the camera read with less confidence than ``doubt_below``."""
        if confidence is None or not len(confidence) or self.doubt_below <= 0:
            return []
        names = list(self.game.cells(state))
        if len(names) != len(confidence):
            return []
        index = {name: i for i, name in enumerate(names)}
        changed = changed_cells(self.game, before, state)
        return [c for c in changed if float(confidence[index[c]]) < self.doubt_below]

    def confirm(self, accept: bool) -> Verdict | None:
        """The host's answer to a doubtful reading: judge it as read, or drop it (then the
        players fix the board or correct the cell, and the camera looks again)."""
        with self._lock:
            self._require_open()
            doubt = self._table.doubt
            if doubt is None:
                raise InputError("there is no doubtful reading to confirm")
            self._table.doubt = None
            verdict = (
                self._judge_board(doubt.state, doubt.frame, doubt.confidence, held=doubt.held)
                if accept
                else None
            )
            self._bump()
        self._notify()
        return verdict

    def _judge_board(
        self,
        state: S,
        frame: int | None,
        confidence: Any,
        corrected: JSON | None = None,
        *,
        held: dict[str, str] | None = None,
        taken: str = "",
    ) -> Verdict | None:
        """Log a settled board, then judge it (an illegal one puts the table out of sync);
        ``corrected`` is the host's correction it carries, if any (cell, value, raw);
        ``held``, the camera's values in the cells judged at the match's (``TableView``);
        ``taken``, how a board nobody confirmed was taken, when it was not simply as read
        (logged, for the record: "unanswered doubt", "re-read", "start not seen")."""
        frame = None if frame is None else int(frame)
        self._table.unjudged = None
        self._table.rejected = None
        payload: JSON = {"state": self.game.format_state(state), "frame": frame}
        if confidence is not None and len(confidence):
            payload["confidence"] = round(float(min(confidence)), 4)
        if corrected:
            payload["corrected"] = corrected
        if held:
            payload["held"] = held
        if taken:
            payload["taken"] = taken
        verdict = self._commit("board", payload)
        if frame is not None:
            self._last_frame = frame
        if verdict is not None and not verdict.legal:
            seen = self.game.with_cells(state, held) if held else state
            before = self._match().state
            cells = changed_cells(self.game, state, before)
            rejected = Rejected(state, frozenset(cells) if self._require().set_up else None)
            self._table.lose_sync(seen, before, rejected)
        self._bump()
        return verdict

    def reconcile(self, state: S) -> S:
        """A camera reading with what the match knows better filled in (see Match.reconcile)."""
        with self._lock:
            if self._history is None:
                return state
            match = self._history.match
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
            history = self._require_open()
            if history.last_move() is None:
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
            history = self._require_open()
            if not isinstance(cell, str) or not isinstance(value, str):
                raise InputError("a correction needs a cell name and a value, both text")
            index = history.last_board()
            if index is None:
                raise InputError("no board has been judged yet: nothing to correct")
            board = history.board_at(index)
            if cell not in self.game.cells(board):
                raise InputError(f"there is no cell {cell!r} on the {self.game.title} board")
            table = self._table
            payload = {"cell": cell, "value": value, "raw": table.raw_value(cell, board)}
            missed = self._missed_play(history, payload)
            if missed is None:
                verdict = self._commit("correct", payload)
            table.override(cell, value, payload["raw"])
            if missed is not None:
                assert table.observed is not None
                verdict = self._judge_board(table.observed, missed.frame, None, payload)
            self._resync()
            self._bump()
        self._notify()
        if self.on_correct is not None:
            self.on_correct(cell, value)
        return verdict

    def _missed_play(self, history: History[S], payload: JSON) -> Unjudged | None:
        """The unjudged settled board a correction belongs to when it is a play the camera
        missed (see ``correct``), else None."""
        table = self._table
        if table.unjudged is None or table.observed is None:
            return None
        fixed = self.game.with_cells(table.observed, {payload["cell"]: payload["value"]})
        if fixed == history.match.state:
            return None
        again = history.fork().apply("correct", payload)
        return None if again is not None and again.legal else table.unjudged

    # --- internals -------------------------------------------------------------------------
    def _require_open(self) -> History[S]:
        """The match, if it may still be played on (not closed in the log)."""
        history = self._require()
        if self._closed:
            raise InputError(f"game {self._match_id} is closed: start a new game to play")
        return history

    def _require(self) -> History[S]:
        if self._history is None:
            raise InputError("no match in progress: start one first")
        return self._history

    def _match(self) -> Match[S]:
        return self._require().match

    def _commit(self, kind: str, payload: JSON) -> Verdict | None:
        """Try the entry on a copy (bad input raises before anything is written), log it, keep it.

        The entry is committed to disk before the new match state is kept or shown.
        """
        history = self._require_open()
        trial = history.fork()
        verdict = trial.apply(kind, payload)
        assert self._match_id is not None
        self.store.append(self._match_id, kind, payload)
        self._history = trial
        if trial.match.finished and not self._finished_logged:
            self.store.finish(self._match_id, {"view": trial.match.public_view()})
            self._finished_logged = True
        elif not trial.match.finished and self._finished_logged:
            self.store.reopen(self._match_id)
            self._finished_logged = False
        return verdict

    def _resync(self) -> None:
        self._table.resync(self._match().state)

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
        return self._table.in_sync

    @property
    def observed(self) -> S | None:
        """The last settled board as the referee took it: the camera's reading with the page's
        corrections that still hold (None before the first)."""
        with self._lock:
            return self._table.observed

    def agreed_board(self) -> S | None:
        """The match's board when the last settled board the camera saw is that board (in
        sync, nothing in doubt, host corrections included), else None: what the camera may
        remember that frame as (``Reader.remember``)."""
        with self._lock:
            history = self._history
            if history is None or not self._table.agrees(history.match.state):
                return None
            return history.match.state

    @property
    def verdicts(self) -> list[JSON]:
        with self._lock:
            return [] if self._history is None else views.verdicts(self._history)

    def snapshot(self) -> JSON:
        """Everything the page shows, with a version that grows on every change."""
        with self._lock:
            if self._history is None:
                return views.idle_snapshot(self.game, self._version)
            return views.snapshot(
                self._history,
                self._table,
                match_id=self._match_id,
                closed=self._closed,
                notes=self._reading_notes,
                version=self._version,
            )

    def moves_view(self) -> JSON | None:
        """The player to move's legal moves with the board drawn to show them, or None when
        the game offers no such view now (see ``Match.moves_view``)."""
        with self._lock:
            return None if self._history is None else views.moves_view(self._history)

    def links(self) -> list[JSON]:
        """Each player's private page token, for the organiser to hand out."""
        with self._lock:
            if self._history is None:
                return []
            return views.links(self._history, self._meta.get("tokens", []))

    def _player_of(self, token: str) -> JSON | None:
        if self._history is None:
            return None
        return views.player_of(self._history, self._meta.get("tokens", []), token)

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
