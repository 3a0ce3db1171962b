"""What the Labyrinth page marks and lets the host fix: the legal destinations after a spin, and
the layout (which piece lies where, in which rotation) as correctable cells."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from companion.errors import InputError
from companion.games import find_game
from companion.games.labyrinth.model import PIECE_CELL, default_layout, format_board, graph_of
from companion.games.labyrinth.rules import BIZARRE, LabyrinthMatch, destinations
from companion.referee.session import Session
from companion.referee.store import Store

NS = "{http://www.w3.org/2000/svg}"
GAME = find_game("labyrinth")
SETTINGS = {"players": 4, "names": ["Ann", "Ben", "Cid", "Dee"], "seed": 4}


def _started() -> LabyrinthMatch:
    match = GAME.new_match(SETTINGS)
    assert match.judge(GAME.start_state()).legal
    return match


def _ringed(svg: str) -> set[str]:
    root = ET.fromstring(svg)
    return {
        g.get("data-cell")
        for g in root.iter(f"{NS}g")
        if g.find(f"{NS}circle[@class='destination']") is not None
    }


@pytest.mark.parametrize("spin", ["red", "yellow", "green", "blue", "purple"])
def test_after_a_spin_the_destinations_are_the_rules_stop_set_search(spin: str) -> None:
    match = _started()
    assert match.board_marks() == {}
    verdict = match.handle({"event": "spin", "result": spin})
    board = match.state
    graph = graph_of(board.layout)
    expected = destinations(graph, board.where("red"), graph.lanterns(spin) | board.discs)
    if not expected:  # nothing reachable: the turn passed, nothing to mark
        assert match.spin is None and match.board_marks() == {}
        return
    assert match.board_marks() == {"destinations": sorted(expected)}
    assert verdict.extra["destinations"] == sorted(expected)
    assert _ringed(GAME.board_svg(board, marks=match.board_marks())) == expected
    line = next(x for x in match.public_view()["summary"] if x.startswith("Ann can go to "))
    assert all(graph.describe(s) in line for s in expected)
    # once the character has moved, nothing is marked any more
    match.judge(match.board_after(sorted(expected)[0]))
    assert match.board_marks() == {}


def test_dr_bizarres_destinations_are_marked_after_his_spin() -> None:
    match = _started()
    match.handle({"event": "spin", "result": "red"})
    match.judge(match.board_after(sorted(match.legal_destinations())[0]))  # Ann leaves the start
    match.handle({"event": "spin", "result": BIZARRE})
    board = match.state
    graph = graph_of(board.layout)
    others = {s for colour, s in board.characters if colour != "yellow"}  # Ben's spin
    targets = others | graph.lanterns("purple")
    expected = destinations(graph, board.bizarre, targets)
    assert expected
    assert match.board_marks() == {"destinations": sorted(expected)}
    assert any(x.startswith("Dr. Bizarre can go to ") for x in match.public_view()["summary"])


def test_every_layout_position_is_a_cell_of_piece_and_rotation() -> None:
    board = GAME.start_state()
    cells = GAME.cells(board)
    layout = {k: v for k, v in cells.items() if PIECE_CELL.fullmatch(k)}
    assert layout == {f"r{p.row}c{p.col}": f"{p.piece}/{p.rotation}" for p in board.layout}
    assert list(cells)[-len(layout) :] == list(layout)  # after the reader's confidence cells
    assert len(GAME.cell_choices("r0c1")) == 12 * 4 and "p12/3" in GAME.cell_choices("r0c1")
    # cells round-trip through with_cells, the layout's too
    turned = GAME.with_cells(board, {"r1c2": "p02/0"})
    assert GAME.with_cells(board, GAME.cells(turned)) == turned
    pieces = ET.fromstring(GAME.board_svg(turned)).iter(f"{NS}g")
    shown = {g.get("data-cell"): g.get("data-value") for g in pieces if g.get("class") == "piece"}
    assert shown["r1c2"] == "p02/0" and shown["r0c0"] == "p01/0"


def test_a_piece_named_elsewhere_swaps_places_each_position_keeping_its_rotation() -> None:
    board = GAME.start_state()
    fixed = GAME.with_cells(board, {"r0c1": "p08/1"})  # p08 lay on r0c2 at rotation 2
    placed = {(p.row, p.col): (p.piece, p.rotation) for p in fixed.layout}
    assert placed[(0, 1)] == ("p08", 1) and placed[(0, 2)] == ("p04", 2)
    assert GAME.parse_state(format_board(fixed)) == fixed  # still the design.md JSON form


@pytest.mark.parametrize(
    ("cell", "value", "says"),
    [
        ("r0c1", "p99/0", "no piece 'p99'"),
        ("r0c1", "p04/7", "use 0 to 3"),
        ("r0c1", "p04", "piece/turns"),
        ("r7c7", "p04/0", "no labyrinth piece lies on r7c7"),
    ],
)
def test_a_bad_layout_value_is_refused_in_one_line(cell: str, value: str, says: str) -> None:
    with pytest.raises(InputError) as err:
        GAME.with_cells(GAME.start_state(), {cell: value})
    assert says in str(err.value) and "\n" not in str(err.value)


def test_a_misread_layout_is_fixed_on_the_page_and_stays_fixed(tmp_path: Path) -> None:
    """The camera read piece 4 a quarter turn off; the host corrects it: the set-up board is
    judged again with the right layout, and later readings with the same misreading agree."""
    store = Store(tmp_path / "games.sqlite3")
    try:
        session = Session(GAME, store)
        session.start(SETTINGS)
        misread = GAME.with_cells(GAME.start_state(), {"r0c1": "p04/1"})
        session.observe(misread)
        assert session.snapshot()["board"]["layout"][1]["rotation"] == 1
        with pytest.raises(InputError, match="piece/turns") as err:
            session.correct("r0c1", "four")
        assert "\n" not in str(err.value)
        assert [e.kind for e in store.entries(session.match_id)] == ["board"]
        session.correct("r0c1", "p04/0")
        snap = session.snapshot()
        assert snap["board"]["layout"] == format_board(GAME.start_state())["layout"]
        assert snap["verdicts"][-1]["legal"] and snap["sync"]["ok"]
        session.observe(misread)  # the camera still reads it so: the override holds
        assert session.in_sync and len(session.snapshot()["verdicts"]) == 1
        assert GAME.parse_state(snap["board"]).layout == default_layout()
    finally:
        store.close()
