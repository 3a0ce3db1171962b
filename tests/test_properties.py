"""Invariants across the pure parts: notation round trips, rectifier geometry, log rebuilding."""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from companion.games import find_game
from companion.games.amoeba.model import SIZE, Tray
from companion.referee.session import Session
from companion.referee.store import Store
from companion.vision.rectify import Rectifier

GAME = find_game("amoeba")
trays = st.lists(st.integers(0, 1), min_size=SIZE * SIZE, max_size=SIZE * SIZE).map(
    lambda bits: Tray(tuple(bits))
)


@given(trays)
def test_amoeba_notation_round_trips(tray: Tray) -> None:
    assert Tray.from_rows(tray.rows()) == tray
    assert GAME.parse_state(GAME.format_state(tray)) == tray
    assert GAME.with_cells(GAME.start_state(), GAME.cells(tray)) == tray
    assert eval(repr(tray), {"Tray": Tray}) == tray


@given(trays, st.integers(0, SIZE - 1), st.integers(0, SIZE - 1))
def test_a_quarter_turn_changes_exactly_that_tile(tray: Tray, row: int, col: int) -> None:
    turned = tray.turned(row, col)
    assert tray.changed(turned) == [(row, col)]
    assert turned.turned(row, col) == tray


@st.composite
def quads(draw: st.DrawFn) -> np.ndarray:
    """Convex quadrilaterals in TL, TR, BR, BL order, as a camera sees a board (any yaw)."""
    cx, cy = draw(st.floats(400, 900)), draw(st.floats(300, 650))
    radius = draw(st.floats(150, 280))
    yaw = draw(st.floats(0, 2 * np.pi))
    jitter = [draw(st.floats(-0.25, 0.25)) for _ in range(4)]
    angles = [yaw + np.pi / 4 * (2 * i - 3) + jitter[i] for i in range(4)]
    return np.array([[cx + radius * np.cos(a), cy + radius * np.sin(a)] for a in angles])


@settings(max_examples=40, deadline=None)
@given(quads())
def test_rectifier_maps_the_playing_area_onto_the_corners(corners: np.ndarray) -> None:
    rectifier = Rectifier(corners, GAME.geometry)
    mapped = rectifier.board_to_image(GAME.geometry.area_corners())
    assert np.allclose(mapped, corners, atol=1e-2)
    frame = np.zeros((960, 1280, 3), np.uint8)
    assert rectifier(frame).shape == (*GAME.geometry.size[::-1], 3)


actions = st.lists(
    st.one_of(
        st.tuples(st.just("turn"), st.integers(0, SIZE - 1), st.integers(0, SIZE - 1)),
        st.tuples(st.just("two"), st.integers(0, SIZE - 1), st.integers(0, SIZE - 1)),
        st.tuples(st.just("undo"), st.just(0), st.just(0)),
        st.tuples(st.just("correct"), st.integers(0, SIZE - 1), st.integers(0, SIZE - 1)),
    ),
    max_size=12,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(actions)
def test_the_log_rebuilds_exactly_what_was_shown(steps: list[tuple[str, int, int]]) -> None:
    """Whatever happens at the table, a restarted referee shows the same game from its log.

    While out of sync, which cells still differ follows the camera's latest view; that view
    is not logged (the camera sees it again on restart), so only the sync flag is compared,
    and only when the camera's latest view is the last board logged.
    """
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "games.sqlite3")
        live = Session(GAME, store)
        live.start({"players": 2, "seed": 5})
        table = Tray.start(phase=1)
        live.observe(table, frame=0)
        view_logged = True

        def seen(board: Tray, frame: int) -> bool:
            """Show the camera ``board``: was that view logged?"""
            before = len(store.entries(live.match_id))
            live.observe(board, frame=frame)
            return len(store.entries(live.match_id)) > before

        for frame, (kind, row, col) in enumerate(steps, start=1):
            if kind == "turn":
                table = table.turned(row, col)
                view_logged = seen(table, frame)
            elif kind == "two":
                table = table.turned(row, col).turned((row + 1) % SIZE, col)
                view_logged = seen(table, frame)
            elif kind == "undo":
                live.undo()
            else:
                cell = f"r{row}c{col}"
                live.correct(cell, "1" if GAME.cells(table)[cell] == "0" else "0")
        shown = live.snapshot()
        again = Session(GAME, store)
        assert again.resume(trust_board=True) == (shown["status"] != "finished")
        if shown["status"] != "finished":
            rebuilt = again.snapshot()
            for key in ("board", "verdicts", "view"):
                assert rebuilt[key] == shown[key], key
            if view_logged:
                assert rebuilt["sync"]["ok"] == shown["sync"]["ok"]
            if shown["sync"]["ok"]:
                assert rebuilt["sync"] == shown["sync"]
        store.close()
