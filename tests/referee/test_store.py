"""The game log: round trips, one-line errors, and durability under kill -9."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from companion.errors import StoreError
from companion.referee.store import Store, default_path

ROOT = Path(__file__).resolve().parents[2]


def test_round_trip(tmp_path):
    store = Store(tmp_path / "deep" / "er" / "games.sqlite3")
    a = store.create_match("counter", {"players": 2}, {"tokens": ["x", "y"]})
    b = store.create_match("counter", {"players": 3}, {})
    other = store.create_match("amoeba", {}, {})
    assert store.append(a, "board", {"state": [1, 2]}) == 1
    assert store.append(a, "event", {"event": "pass"}) == 2
    assert store.append(b, "undo", {}) == 1
    entries = store.entries(a)
    assert [(e.seq, e.kind, e.payload) for e in entries] == [
        (1, "board", {"state": [1, 2]}),
        (2, "event", {"event": "pass"}),
    ]
    assert store.unfinished("counter").id == b
    store.finish(b, {"winner": 0})
    assert store.unfinished("counter").id == a
    assert store.get(b).outcome == {"winner": 0} and store.get(b).finished is not None
    store.reopen(b)
    assert store.get(b).finished is None
    assert store.get(a).meta == {"tokens": ["x", "y"]} and store.get(a).settings["players"] == 2
    assert [m.id for m in store.matches()] == [other, b, a]
    assert store.get(999) is None and store.unfinished("nothing") is None
    with pytest.raises(ValueError):
        store.append(a, "bogus", {})
    store.close()
    conn = sqlite3.connect(tmp_path / "deep" / "er" / "games.sqlite3")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_threads_share_the_store(tmp_path):
    store = Store(tmp_path / "games.sqlite3")
    match = store.create_match("g", {}, {})
    got: list[int] = []

    def writer() -> None:
        for _ in range(40):
            got.append(store.append(match, "event", {"event": "pass"}))
            store.entries(match)

    threads = [threading.Thread(target=writer) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(got) == list(range(1, 121))
    assert [e.seq for e in store.entries(match)] == list(range(1, 121))


def test_default_path(monkeypatch, tmp_path):
    monkeypatch.setenv("COMPANION_DATA", str(tmp_path))
    assert default_path() == tmp_path / "games.sqlite3"
    monkeypatch.delenv("COMPANION_DATA")
    assert default_path() == Path.home() / ".local/share/companion/games.sqlite3"


def test_not_a_database(tmp_path):
    path = tmp_path / "games.sqlite3"
    path.write_bytes(b"this is a text file, long enough to not be empty " * 100)
    with pytest.raises(StoreError, match="is not a game log database") as err:
        Store(path)
    assert "\n" not in str(err.value)


def test_unwritable_location(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("a file where a folder should be")
    with pytest.raises(StoreError, match="choose a writable place"):
        Store(blocker / "sub" / "games.sqlite3")


@pytest.mark.skipif(os.geteuid() == 0, reason="root ignores file permissions")
def test_read_only_file(tmp_path):
    path = tmp_path / "games.sqlite3"
    Store(path).close()
    path.chmod(0o444)
    tmp_path.chmod(0o555)
    try:
        with pytest.raises(StoreError, match="writable"):
            Store(path).create_match("g", {}, {})
    finally:
        tmp_path.chmod(0o755)


def test_disk_full(tmp_path):
    store = Store(tmp_path / "games.sqlite3")
    match = store.create_match("g", {}, {})
    # SQLite reports a page limit exactly as a full disk (SQLITE_FULL)
    (pages,) = store._conn.execute("PRAGMA page_count").fetchone()
    store._conn.execute(f"PRAGMA max_page_count = {pages + 1}")
    with pytest.raises(StoreError, match="is full: free some space"):
        for _ in range(50):
            store.append(match, "board", {"blob": "x" * 20000})
    store._conn.execute("PRAGMA max_page_count = 1000000")
    # the log is still usable and holds no half-written entry
    seqs = [e.seq for e in store.entries(match)]
    assert seqs == list(range(1, len(seqs) + 1))
    assert store.append(match, "undo", {}) == len(seqs) + 1


WRITER = """
import sys
from companion.referee.store import Store
store = Store(sys.argv[1])
match = store.unfinished("kill") or None
match_id = match.id if match else store.create_match("kill", {}, {})
while True:
    seq = store.append(match_id, "board", {"state": "x" * 200})
    print(seq, flush=True)
"""


def test_kill_minus_9_loses_nothing_acknowledged(tmp_path):
    path = tmp_path / "games.sqlite3"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    rng = random.Random(3)
    printed: list[int] = []
    t0 = time.monotonic()
    for _ in range(20):
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path)], stdout=subprocess.PIPE, env=env, text=True
        )
        first = proc.stdout.readline()  # the writer is up and appending
        assert first.strip().isdigit()
        time.sleep(rng.uniform(0.0, 0.15))
        proc.send_signal(signal.SIGKILL)
        rest, _ = proc.communicate()
        printed += [int(x) for x in (first + rest).split()]
    assert time.monotonic() - t0 < 30
    store = Store(path)
    match = store.unfinished("kill")
    seqs = [e.seq for e in store.entries(match.id)]
    assert set(printed) <= set(seqs)
    assert seqs == list(range(1, len(seqs) + 1))
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
