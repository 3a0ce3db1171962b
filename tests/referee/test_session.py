"""The referee session against a small real game (tests/referee/counter_game.py) and amoeba."""

from __future__ import annotations

import importlib.util
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from counter_game import CounterGame

from companion.errors import InputError
from companion.games import find_game
from companion.referee.session import Session
from companion.referee.store import Store

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
STABLE = ("game", "match_id", "status", "board", "view", "verdicts")  # not sync: resume


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "games.sqlite3")
    yield s
    s.close()


@pytest.fixture
def session(store):
    s = Session(CounterGame(), store)
    s.start({"names": ["Ann", "Bob"], "target": 6, "source": "folder /x"})
    return s


def rebuilt(store: Store) -> Session:
    other = Session(CounterGame(), store)
    assert other.resume()
    return other


def same(a: Session, b: Session) -> None:
    sa, sb = a.snapshot(), b.snapshot()
    assert {k: sa[k] for k in STABLE} == {k: sb[k] for k in STABLE}


def test_start_keeps_source_out_of_settings(session, store):
    record = store.get(session.match_id)
    assert "source" not in record.settings and record.settings["target"] == 6
    assert record.meta["source"] == "folder /x" and len(record.meta["tokens"]) == 2
    links = session.links()
    assert [(x["player"], x["name"]) for x in links] == [(0, "Ann"), (1, "Bob")]
    assert len({x["token"] for x in links}) == 2 and all(len(x["token"]) >= 20 for x in links)
    private = session.private(links[1]["token"])
    assert private["player"] == 1 and private["name"] == "Bob"
    assert private["items"][0]["label"] == "secret of Bob"
    assert session.private("not-a-token") is None


def test_play_and_rebuild_equal_after_every_step(session, store):
    steps = [
        lambda s: s.observe((0, 0, 0, 0), frame=3),  # set-up check
        lambda s: s.observe((1, 0, 0, 0), frame=7),
        lambda s: s.event({"event": "bonus", "player": 1}),
        lambda s: s.observe((1, 0, 1, 0), frame=9),
        lambda s: s.event({"event": "pass"}),
        lambda s: s.observe((1, 0, 3, 0), frame=12),  # illegal: +2
        lambda s: s.observe((1, 0, 1, 0), frame=15),  # put back: in sync again
        lambda s: s.undo(),  # takes back the pass
        lambda s: s.undo(),  # and Bob's move on c
        lambda s: s.observe((1, 0, 0, 0), frame=20),  # table follows the undo
        lambda s: s.observe((1, 1, 0, 0), frame=np.int64(22)),
        lambda s: s.correct("b", "0"),
    ]
    for step in steps:
        step(session)
        same(session, rebuilt(store))
    assert session.last_frame == 22 and rebuilt(store).last_frame == 22
    kinds = [e.kind for e in store.entries(session.match_id)]
    assert kinds.count("undo") == 2 and kinds[-1] == "correct"
    # the correction turned Bob's move on b into an unchanged board: illegal now
    moves = [(v["move"], v["legal"]) for v in session.verdicts]
    assert moves == [(None, True), ({"cell": "a"}, True), (None, True), (None, False)]


def test_turn_numbers_and_verdict_json(session):
    assert session.observe((0, 0, 0, 0)).reason == "start position"
    session.observe((0, 1, 0, 0))
    session.event({"event": "pass"})
    session.observe((0, 1, 0, 5))  # illegal
    verdicts = session.verdicts
    assert [(v["turn"], v["reason"], v["legal"]) for v in verdicts] == [
        (0, "start position", True),
        (1, "ok", True),
        (2, "pass", True),
        (3, "a move adds one to one counter", False),
    ]
    assert verdicts[1]["player"] == 0 and verdicts[1]["move"] == {"cell": "b"}
    assert verdicts[1]["svgs"] == ["<svg data-move='b'/>"] and verdicts[1]["score"] == 1


def test_unchanged_board_is_not_judged_twice(session, store):
    session.observe((0, 0, 0, 0))
    assert session.observe((0, 0, 0, 0)) is None
    session.observe((1, 0, 0, 0))
    assert session.observe((1, 0, 0, 0)) is None
    assert [e.kind for e in store.entries(session.match_id)] == ["board", "board"]


def test_out_of_sync_flow(session):
    session.observe((0, 0, 0, 0))
    session.observe((1, 0, 0, 0))
    verdict = session.observe((1, 1, 1, 0))
    assert not verdict.legal
    snap = session.snapshot()
    assert snap["sync"] == {
        "ok": False,
        "cells": ["b", "c"],
        "message": "put back b and c as shown",
    }
    assert snap["board"]["cells"] == [1, 0, 0, 0]
    assert "data-cell='b' class=hl" in snap["board_svg"]
    # the held cells as they were: nothing new is judged, and they are still listed
    assert session.observe((1, 1, 1, 0)) is None
    assert session.snapshot()["sync"]["cells"] == ["b", "c"]
    assert session.observe((1, 0, 0, 0)) is None
    assert session.snapshot()["sync"]["ok"]
    assert session.observe((1, 0, 0, 1)).legal


def test_an_illegal_play_read_again_as_a_legal_one_is_judged(session, store):
    session.observe((0, 0, 0, 0))
    session.observe((1, 0, 0, 0))
    assert not session.observe((1, 1, 1, 0)).legal
    # the next rest shows b and c again, c as it was: the play was b alone (a misread of c,
    # or the player took c back)
    verdict = session.observe((1, 1, 0, 0))
    assert verdict.legal and verdict.move == {"cell": "b"} and session.in_sync
    assert store.entries(session.match_id)[-1].payload["taken"] == "re-read"
    same(session, rebuilt(store))


def test_a_misread_nobody_puts_right_costs_one_verdict(session, store):
    session.observe((0, 0, 0, 0))
    session.observe((1, 0, 0, 0))
    assert not session.observe((1, 0, 0, 5)).legal  # d misread: held at the match's 0
    # later moves are judged against the match's board with d held
    verdict = session.observe((1, 1, 0, 5))
    assert verdict.legal and verdict.move == {"cell": "b"}
    assert session.snapshot()["sync"]["cells"] == ["d"]
    same(session, rebuilt(store))
    assert session.observe((1, 1, 1, 5)).legal
    # read right again: d is let go and the table is in sync
    assert session.observe((1, 1, 1, 0)) is None and session.in_sync
    moves = [(v["move"], v["legal"]) for v in session.verdicts]
    assert moves[1:] == [
        ({"cell": "a"}, True),
        (None, False),
        ({"cell": "b"}, True),
        ({"cell": "c"}, True),
    ]


def test_a_held_cell_the_camera_sees_change_is_judged_again(session):
    session.observe((0, 0, 0, 0))
    assert not session.observe((0, 0, 3, 0)).legal  # +3 on c: held
    # the player puts his counter right in the same rest: c is let go and judged
    assert session.observe((0, 0, 1, 0)).legal and session.in_sync


def test_a_recording_resumed_while_cells_are_held_holds_them_again(session, store):
    session.observe((0, 0, 0, 0))
    session.observe((0, 0, 0, 4), frame=3)
    session.observe((1, 0, 0, 4), frame=4)  # judged with d held at 0
    other = Session(CounterGame(), store)
    assert other.resume(trust_board=True) and not other.in_sync
    assert other.snapshot()["sync"]["cells"] == ["d"]
    assert other.observe((1, 1, 0, 4)).legal


def test_failed_set_up_is_judged_again_once_fixed(session):
    assert not session.observe((0, 2, 0, 0)).legal
    assert session.snapshot()["sync"]["cells"] == ["b"]
    # the gate shows the fixed board once: it must be judged, not only bring the sync back
    assert session.observe((0, 0, 0, 0)).reason == "start position"
    assert session.in_sync and session.observe((0, 0, 1, 0)).legal


def test_a_set_up_misread_is_set_right_by_the_next_rest(session):
    assert not session.observe((0, 2, 0, 0)).legal  # b misread at the start
    # the next rest reads b right and shows the first move on c: both are judged
    assert session.observe((0, 0, 1, 0)).legal and session.in_sync
    moves = [(v["reason"], v["move"]) for v in session.verdicts]
    assert moves[1:] == [("start position", None), ("ok", {"cell": "c"})]


def test_of_two_reads_of_a_rejected_play_the_legal_choice_is_taken(session, store):
    session.observe((0, 0, 0, 0))
    assert not session.observe((1, 5, 0, 0)).legal  # a right, b misread 5
    # the next rest reads b right and a wrong: a from the first read, b from the second
    verdict = session.observe((3, 0, 0, 0))
    assert verdict.legal and verdict.move == {"cell": "a"}
    assert session.snapshot()["sync"]["cells"] == ["a"]  # read 3 now: held at 1
    same(session, rebuilt(store))
    assert session.observe((1, 0, 1, 0)).legal and session.in_sync


def test_a_first_move_on_a_start_the_camera_missed_is_judged(session, store):
    # the start was never seen (a hand over it); the camera's first rest is Ann's move
    assert not session.observe((0, 1, 0, 0)).legal
    assert session.observe((0, 1, 1, 0)).legal  # the next rest: Bob's move
    moves = [(v["reason"], v["move"]) for v in session.verdicts][1:]
    assert moves == [("start position", None), ("ok", {"cell": "b"}), ("ok", {"cell": "c"})]
    kinds = [e.payload.get("taken") for e in store.entries(session.match_id)]
    assert kinds == [None, "start not seen", "re-read", None]
    same(session, rebuilt(store))


def test_a_start_set_up_wrong_is_still_refused_while_it_stays(session):
    assert not session.observe((0, 3, 0, 0)).legal  # no first move makes b 3
    assert not session.observe((0, 3, 1, 0)).legal
    assert not session.snapshot()["sync"]["ok"]


def test_the_agreed_board_is_the_match_board_the_camera_last_saw(session):
    assert session.agreed_board() is None  # nothing seen yet
    session.observe((0, 0, 0, 0))
    assert session.agreed_board() == (0, 0, 0, 0)
    session.observe((1, 0, 0, 0))
    assert session.agreed_board() == (1, 0, 0, 0)
    assert not session.observe((1, 1, 1, 0)).legal
    assert session.agreed_board() is None  # the camera sees another board than the match's
    session.observe((1, 0, 0, 0))
    assert session.agreed_board() == (1, 0, 0, 0)


def test_a_correction_is_part_of_the_agreed_board(session):
    session.observe((0, 0, 0, 0))
    assert not session.observe((1, 1, 1, 0)).legal
    session.correct("b", "0")
    session.correct("c", "0")
    # the camera still sees its misread (1, 1, 1, 0); the page made it the legal (1, 0, 0, 0)
    assert session.agreed_board() == (1, 0, 0, 0)
    assert session.observed == (1, 0, 0, 0)
    session.observe((1, 1, 1, 0))  # read the same again: the corrections still hold
    assert session.observed == (1, 0, 0, 0) and session.in_sync


def test_undo(session, store):
    assert session.undo() is False  # nothing to undo yet
    session.observe((0, 0, 0, 0))
    session.observe((0, 0, 1, 0))
    session.observe((0, 0, 1, 1))
    assert session.undo() is True
    snap = session.snapshot()
    assert snap["board"]["cells"] == [0, 0, 1, 0]
    assert snap["sync"]["ok"] is False and snap["sync"]["cells"] == ["d"]
    assert snap["view"]["to_move"] == 1 and snap["view"]["players"][1]["score"] == 0
    assert session.observe((0, 0, 1, 1)) is None  # the table has not followed yet
    session.observe((0, 0, 1, 0))
    assert session.snapshot()["sync"]["ok"]
    assert session.observe((0, 1, 1, 0)).player == 1
    # the table following the undo is logged too, so a restart knows it was put back
    assert [e.kind for e in store.entries(session.match_id)][-3:] == ["undo", "synced", "board"]


def test_correction_rejudges_and_overrides_later_reads(session, store):
    session.observe((0, 0, 0, 0))
    session.observe((1, 0, 0, 0))
    # the camera misreads counter d as 1 while c really went up: two changes, illegal
    assert not session.observe((1, 0, 1, 1)).legal
    verdict = session.correct("d", "0")
    assert verdict.legal and verdict.move == {"cell": "c"}
    snap = session.snapshot()
    assert snap["board"]["cells"] == [1, 0, 1, 0] and snap["sync"]["ok"]
    assert [v["legal"] for v in snap["verdicts"]] == [True, True, True]
    # the camera still reads d as 1: the override applies, so this is a legal move of a
    assert session.observe((2, 0, 1, 1)).legal
    assert session.snapshot()["board"]["cells"] == [2, 0, 1, 0]
    # the camera value of d changes: the override ends and the reading counts as it is
    assert session.observe((2, 0, 1, 2)).legal is False
    entry = store.entries(session.match_id)[3]
    assert entry.kind == "correct" and entry.payload == {"cell": "d", "value": "0", "raw": "1"}
    same(session, rebuilt(store))


def test_a_play_the_camera_missed_is_judged_when_the_host_corrects_it(session, store):
    session.observe((0, 0, 0, 0))
    session.observe((1, 0, 0, 0))
    # b went up, but the camera still shows the match's board: nothing to judge
    assert session.observe((1, 0, 0, 0)) is None
    verdict = session.correct("b", "1")
    # not a re-judged first move (a and b both up: illegal) but the move the camera missed
    assert verdict.legal and verdict.move == {"cell": "b"}
    snap = session.snapshot()
    assert snap["board"]["cells"] == [1, 1, 0, 0] and snap["sync"]["ok"]
    assert [v["legal"] for v in snap["verdicts"]] == [True, True, True]
    entry = store.entries(session.match_id)[-1]
    assert entry.kind == "board"
    assert entry.payload["corrected"] == {"cell": "b", "value": "1", "raw": "0"}
    # the camera goes on reading b as 0: the correction holds, after a restart too
    assert session.observe((1, 0, 0, 0)) is None and session.agreed_board() == (1, 1, 0, 0)
    again = rebuilt(store)
    same(session, again)
    assert again.observe((1, 0, 0, 0)) is None and again.in_sync


def test_a_missed_play_of_two_tiles_takes_two_corrections(store):
    upwords = find_game("upwords")
    session = Session(upwords, store)
    session.start({})
    empty = upwords.start_state()
    session.observe(empty)
    assert session.observe(empty) is None  # AT was played; the camera saw the old board
    first = session.correct("r4c4", "1A")
    assert not first.legal and not session.in_sync  # half the play so far
    second = session.correct("r4c5", "1T")
    assert second.legal and second.move["words"][0]["word"] == "AT"
    assert session.agreed_board() == upwords.with_cells(empty, {"r4c4": "1A", "r4c5": "1T"})
    assert [v["legal"] for v in session.snapshot()["verdicts"]] == [True, True]
    other = Session(upwords, store)
    assert other.resume()
    same(session, other)


def test_bad_input_writes_nothing(session, store):
    with pytest.raises(InputError, match="nothing to correct"):
        session.correct("a", "1")
    session.observe((0, 0, 0, 0))
    before = store.entries(session.match_id)
    for bad in (
        lambda: session.event({"event": "dance"}),
        lambda: session.event({"event": "bonus", "player": 7}),
        lambda: session.event(["pass"]),
        lambda: session.event({"event": "pass", "when": object()}),
        lambda: session.correct("z", "1"),
        lambda: session.correct("a", "minus one"),
        lambda: session.observe({"not": "a state"}),
    ):
        with pytest.raises(InputError):
            bad()
    assert store.entries(session.match_id) == before
    with pytest.raises(InputError):
        Session(CounterGame(), store).event({"event": "pass"})
    assert Session(CounterGame(), store).observe((1, 0, 0, 0)) is None
    assert session.event({"event": "quiet"}) is None
    assert store.entries(session.match_id)[-1].kind == "event"


def test_finish_and_undo_reopens(session, store):
    session.observe((0, 0, 0, 0))
    for state in [(1, 0, 0, 0), (2, 0, 0, 0), (3, 0, 0, 0), (3, 1, 0, 0), (3, 2, 0, 0)]:
        session.observe(state)
    assert session.snapshot()["status"] == "playing"
    session.observe((3, 2, 1, 0))
    assert session.snapshot()["status"] == "finished"
    record = store.get(session.match_id)
    assert record.finished is not None and record.outcome["view"]["players"][0]["score"] == 3
    assert store.unfinished("counter") is None
    assert session.observe((4, 2, 1, 0)) is None  # finished: nothing more is judged
    assert session.undo()
    assert store.get(session.match_id).finished is None
    assert session.snapshot()["status"] == "playing"


def test_resume_needs_the_table_to_match(session, store):
    session.observe((0, 0, 0, 0))
    session.observe((0, 1, 0, 0), frame=40)
    other = Session(CounterGame(), store)
    assert other.snapshot()["status"] == "idle"
    assert other.resume() and other.match_id == session.match_id and other.last_frame == 40
    snap = other.snapshot()
    assert snap["sync"]["ok"] is False and snap["sync"]["cells"] == []
    assert "show the whole board" in snap["sync"]["message"]
    assert other.observe((0, 1, 1, 0)) is None
    assert other.observe((0, 1, 0, 0)) is None and other.in_sync
    assert other.observe((0, 1, 1, 0)).player == 1
    assert other.links() == session.links()


def test_resume_trusting_a_recording(session, store):
    session.observe((0, 0, 0, 0))
    session.observe((0, 1, 0, 0), frame=40)
    other = Session(CounterGame(), store)
    assert other.resume(trust_board=True) and other.in_sync
    assert other.observe((0, 1, 1, 0), frame=41).player == 1
    # a recording that stopped while its board was wrong resumes out of sync, cells known
    other.observe((0, 1, 1, 7), frame=42)
    third = Session(CounterGame(), store)
    assert third.resume(trust_board=True) and not third.in_sync
    assert third.snapshot()["sync"]["cells"] == ["d"] and third.last_frame == 42


def test_resume_before_any_board_is_in_sync(store):
    Session(CounterGame(), store).start({})
    other = Session(CounterGame(), store)
    assert other.resume() and other.in_sync
    assert other.observe((0, 0, 0, 0)).reason == "start position"
    assert Session(CounterGame(), Store(store.path.parent / "empty.sqlite3")).resume() is False


def test_new_start_abandons_previous(session, store):
    first = session.match_id
    second = session.start({"names": ["Cy"]})
    assert second != first and store.get(first).outcome == {"abandoned": True}
    assert store.unfinished("counter").id == second
    assert session.snapshot()["view"]["players"] == [{"name": "Cy", "score": 0}]


def test_on_change_runs_outside_the_lock(store):
    seen: list[int] = []
    session: Session

    def on_change() -> None:
        # a web thread reading the snapshot must not block on the session's lock
        t = threading.Thread(target=lambda: seen.append(session.snapshot()["version"]))
        t.start()
        t.join(2.0)
        assert not t.is_alive()

    session = Session(CounterGame(), store, on_change=on_change)
    session.start({})
    session.on_change = on_change  # the service sets it after construction
    session.observe((0, 0, 0, 0))
    session.observe((0, 0, 0, 0))  # no change: no call
    session.event({"event": "pass"})
    assert seen == sorted(seen) and len(seen) == 3


@pytest.mark.skipif(
    importlib.util.find_spec("companion.games.amoeba.rules") is None,
    reason="amoeba rules not written yet",
)
def test_amoeba_session(store):
    from companion.games import find_game
    from companion.games.amoeba.model import Tray

    game = find_game("amoeba")
    session = Session(game, store)
    session.start({"names": ["Ann", "Bob"], "seed": 5})
    start = Tray.start(0)
    assert session.observe(start).reason == "start position"
    verdict = session.observe(start.turned(3, 4))
    assert verdict.legal and verdict.player == 0
    snap = session.snapshot()
    assert "r3c4" in snap["board_svg"] and snap["verdicts"][-1]["turn"] == 1
    bad = session.observe(start.turned(3, 4).turned(0, 0).turned(6, 6))
    assert not bad.legal and session.snapshot()["sync"]["cells"] == ["r0c0", "r6c6"]
    assert session.correct("r6c6", str(start[6, 6])).legal
    same_amoeba = Session(game, store)
    assert same_amoeba.resume()
    assert same_amoeba.snapshot()["board"] == session.snapshot()["board"]
    assert session.private(session.links()[0]["token"])["player"] == 0


OBSERVER = """
import sys
from counter_game import CounterGame
from companion.referee.session import Session
from companion.referee.store import Store
session = Session(CounterGame(), Store(sys.argv[1]))
if not session.resume():
    session.start({"target": 10**9})
    session.observe((0, 0, 0, 0))
state = list(session.snapshot()["board"]["cells"])
session.observe(tuple(state))  # the table matches the log: back in sync
while True:
    state[0] += 1
    if not session.observe(tuple(state)).legal:
        raise SystemExit("illegal")
    print(state[0], flush=True)
"""


def test_kill_minus_9_through_observe(tmp_path):
    path = tmp_path / "games.sqlite3"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(HERE)])}
    rng = random.Random(5)
    highest = 0
    t0 = time.monotonic()
    for _ in range(12):
        proc = subprocess.Popen(
            [sys.executable, "-c", OBSERVER, str(path)], stdout=subprocess.PIPE, env=env, text=True
        )
        first = proc.stdout.readline()
        assert first.strip().isdigit()
        time.sleep(rng.uniform(0.0, 0.1))
        proc.send_signal(signal.SIGKILL)
        rest, _ = proc.communicate()
        printed = [int(x) for x in (first + rest).split()]
        assert printed[0] >= highest + 1  # each run continued where the log ended
        highest = printed[-1]
        store = Store(path)
        session = Session(CounterGame(), store)
        assert session.resume()
        counted = session.snapshot()["board"]["cells"][0]
        assert counted >= highest  # every acknowledged move survived
        highest = counted
        store.close()
    assert time.monotonic() - t0 < 30
