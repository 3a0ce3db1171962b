"""The durable game log: SQLite in WAL mode, one append-only list of entries per match.

A match is rebuilt from its settings and entries (see ``referee.session``), so the log is the
only thing that must survive a power cut.  Each ``append`` is its own transaction, committed
with ``synchronous=FULL`` before it returns: once a verdict is on the page its input is on disk.
The web thread and the pipeline thread share one connection behind a lock.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion.errors import StoreError

KINDS = ("board", "event", "undo", "correct", "synced")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    game TEXT NOT NULL,
    settings TEXT NOT NULL,
    meta TEXT NOT NULL,
    created REAL NOT NULL,
    finished REAL,
    outcome TEXT
);
CREATE TABLE IF NOT EXISTS entries (
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    time REAL NOT NULL,
    PRIMARY KEY (match_id, seq)
);
"""


@dataclass(frozen=True)
class MatchRecord:
    id: int
    game: str
    settings: dict[str, Any]
    meta: dict[str, Any]
    created: float
    finished: float | None
    outcome: dict[str, Any] | None


@dataclass(frozen=True)
class Entry:
    match_id: int
    seq: int
    kind: str
    payload: dict[str, Any]
    time: float


def default_path() -> Path:
    """$COMPANION_DATA/games.sqlite3, else ~/.local/share/companion/games.sqlite3."""
    base = os.environ.get("COMPANION_DATA") or Path.home() / ".local" / "share" / "companion"
    return Path(base) / "games.sqlite3"


def _message(path: Path, exc: Exception) -> str:
    text = str(exc).lower()
    if "disk is full" in text or "disk full" in text:
        return f"the disk holding {path} is full: free some space, the game log needs it"
    if "not a database" in text or "malformed" in text:
        return f"{path} is not a game log database: move it away or pick another path"
    if "readonly" in text or "read-only" in text or "unable to open" in text:
        return f"cannot write the game log at {path}: choose a writable place ($COMPANION_DATA)"
    return f"game log {path} failed ({exc}): check the disk"


class Store:
    """The game log at ``path``, created (with its folders) if missing."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"cannot create {self.path.parent} for the game log ({exc.strerror}): "
                "choose a writable place ($COMPANION_DATA)"
            ) from None
        with self._errors():
            # isolation_level=None: transactions are explicit, so nothing lingers uncommitted.
            self._conn = sqlite3.connect(
                str(self.path), isolation_level=None, check_same_thread=False, timeout=10.0
            )
        try:
            with self._errors():
                self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.execute("PRAGMA synchronous=FULL")
                self._conn.executescript(_SCHEMA)
        except StoreError:
            self._conn.close()
            raise

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            raise StoreError(_message(self.path, exc)) from None

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        with self._lock, self._errors():
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                if self._conn.in_transaction:
                    self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def _query(self, sql: str, args: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        with self._lock, self._errors():
            return self._conn.execute(sql, args).fetchall()

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    # --- writing ---------------------------------------------------------------------------
    def create_match(self, game: str, settings: dict[str, Any], meta: dict[str, Any]) -> int:
        with self._transaction() as conn:
            cur = conn.execute(
                "INSERT INTO matches (game, settings, meta, created) VALUES (?, ?, ?, ?)",
                (game, json.dumps(settings), json.dumps(meta), time.time()),
            )
            row_id = cur.lastrowid
            assert row_id is not None  # set by every INSERT
            return row_id

    def append(self, match_id: int, kind: str, payload: dict[str, Any]) -> int:
        """Add one entry and commit it before returning its sequence number (1, 2, ...)."""
        if kind not in KINDS:
            raise ValueError(f"unknown entry kind {kind!r}")
        text = json.dumps(payload)
        with self._transaction() as conn:
            (seq,) = conn.execute(
                "SELECT COALESCE(MAX(seq), 0) + 1 FROM entries WHERE match_id = ?", (match_id,)
            ).fetchone()
            conn.execute(
                "INSERT INTO entries (match_id, seq, kind, payload, time) VALUES (?, ?, ?, ?, ?)",
                (match_id, seq, kind, text, time.time()),
            )
            return int(seq)

    def finish(self, match_id: int, outcome: dict[str, Any]) -> None:
        with self._transaction() as conn:
            conn.execute(
                "UPDATE matches SET finished = ?, outcome = ? WHERE id = ?",
                (time.time(), json.dumps(outcome), match_id),
            )

    def reopen(self, match_id: int) -> None:
        """Undo of the winning move: the match is being played again."""
        with self._transaction() as conn:
            conn.execute(
                "UPDATE matches SET finished = NULL, outcome = NULL WHERE id = ?", (match_id,)
            )

    # --- reading ---------------------------------------------------------------------------
    def entries(self, match_id: int) -> list[Entry]:
        rows = self._query(
            "SELECT match_id, seq, kind, payload, time FROM entries WHERE match_id = ? "
            "ORDER BY seq",
            (match_id,),
        )
        return [Entry(m, s, k, json.loads(p), t) for m, s, k, p, t in rows]

    _MATCH_COLUMNS = "id, game, settings, meta, created, finished, outcome"

    @staticmethod
    def _record(row: tuple[Any, ...]) -> MatchRecord:
        id_, game, settings, meta, created, finished, outcome = row
        return MatchRecord(
            id_,
            game,
            json.loads(settings),
            json.loads(meta),
            created,
            finished,
            None if outcome is None else json.loads(outcome),
        )

    def get(self, match_id: int) -> MatchRecord | None:
        rows = self._query(f"SELECT {self._MATCH_COLUMNS} FROM matches WHERE id = ?", (match_id,))
        return self._record(rows[0]) if rows else None

    def unfinished(self, game: str) -> MatchRecord | None:
        """The latest match of ``game`` not yet finished (what a restart resumes)."""
        rows = self._query(
            f"SELECT {self._MATCH_COLUMNS} FROM matches WHERE game = ? AND finished IS NULL "
            "ORDER BY id DESC LIMIT 1",
            (game,),
        )
        return self._record(rows[0]) if rows else None

    def matches(self, limit: int = 50) -> list[MatchRecord]:
        rows = self._query(
            f"SELECT {self._MATCH_COLUMNS} FROM matches ORDER BY id DESC LIMIT ?", (limit,)
        )
        return [self._record(r) for r in rows]
