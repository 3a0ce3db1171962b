"""What the Octiles page marks on the board: the last runner's route, the switch tile, and
"Show me my moves" (every legal move, listed and drawn)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from companion.games import find_game
from companion.games.octiles.model import Position
from companion.games.octiles.paths import paths_from
from companion.games.octiles.rules import (
    MAX_ROUTES_DRAWN,
    route_from_json,
    route_json,
)
from companion.games.octiles.svg import HIGHLIGHT_COLOUR

NS = "{http://www.w3.org/2000/svg}"
GAME = find_game("octiles")


def _routes(svg: str) -> list[ET.Element]:
    return [e for e in ET.fromstring(svg).iter(f"{NS}polyline") if e.get("class") == "route"]


def test_after_each_move_the_marks_hold_the_path_the_runner_took() -> None:
    settings, script = GAME.lab.sample_script(2)
    match = GAME.new_match(settings)
    moves_checked = 0
    for item in script:
        before = match.legal_moves()
        if "event" in item:
            match.handle(item)
            assert "path" not in match.board_marks()
            continue
        verdict = match.judge(GAME.parse_state(item))
        if not (verdict.legal and verdict.move):
            continue
        runner = verdict.move["runner"]
        played = [
            m
            for m in before
            if (m.space, m.from_place, m.to_place)
            == (verdict.move["space"], runner["from"], runner["to"])
        ]
        assert played, verdict.text
        path = match.board_marks()["path"]
        assert path == route_json(played[0].path)
        assert route_from_json(path) == played[0].path
        assert route_from_json(path).names() == verdict.move["path"]
        moves_checked += 1
    assert moves_checked >= 10


def test_an_illegal_board_marks_the_path_its_runner_would_take_across_the_new_tile() -> None:
    settings, script = GAME.lab.sample_script(2)
    match = GAME.new_match(settings)
    match.judge(GAME.parse_state(script[0]))
    old, move = match.state, match.legal_moves()[0]
    wrong, pocket = [t for t in range(1, 19) if t not in {match.switch, *old.face_up()}][:2]
    runners = dict(old.runner_map)
    runners[move.to_place] = runners.pop(move.from_place)
    board = Position.make({**old.space_map, move.space: (wrong, move.rotation)}, runners, pocket)
    verdict = match.judge(board)
    assert not verdict.legal and f"the tile placed is {wrong}" in verdict.reason
    path = route_from_json(match.board_marks()["path"])
    across = [p for p in paths_from(match.board, board.space_map, move.from_place)
              if p.crosses(move.space)]  # fmt: skip
    assert path.start == move.from_place and path.crosses(move.space)
    assert path == next((p for p in across if p.end == move.to_place), across[0])
    # the drawing of the (unchanged) match state shows that route
    (drawn,) = _routes(GAME.board_svg(match.state, marks=match.board_marks()))
    assert (drawn.get("data-from"), drawn.get("data-to")) == (path.start, path.end or "")
    # a board with no tile placed has no route to show
    match.judge(old.with_pocket(pocket))
    assert "path" not in match.board_marks()


def test_the_switch_tile_is_named_and_ringed_in_the_pocket_and_drawn_when_it_is_empty() -> None:
    settings, script = GAME.lab.sample_script(2)
    match = GAME.new_match(settings)
    assert "switch" not in match.board_marks()
    first = GAME.parse_state(script[0])
    match.judge(first)
    assert match.board_marks() == {"switch": first.pocket}
    assert f"Ann's switch tile: {first.pocket}" in match.public_view()["summary"]
    root = ET.fromstring(GAME.board_svg(match.state, marks=match.board_marks()))
    pocket = next(g for g in root.iter(f"{NS}g") if g.get("data-cell") == "pocket")
    assert pocket.find(f"{NS}circle[@class='switch']") is not None
    assert pocket.find(f"{NS}g[@class='switch-tile']") is None  # the real tile lies there
    emptied = ET.fromstring(GAME.board_svg(first.with_pocket(None), marks={"switch": 7}))
    pocket = next(g for g in emptied.iter(f"{NS}g") if g.get("data-cell") == "pocket")
    assert pocket.get("data-value") == "empty"
    assert len(pocket.findall(f"{NS}g[@class='switch-tile']/{NS}polyline")) == 8


def test_show_me_my_moves_lists_and_marks_exactly_the_legal_moves() -> None:
    settings, script = GAME.lab.sample_script(2)
    match = GAME.new_match(settings)
    drawn = ringed_only = 0
    for item in script:
        if "event" in item:
            match.handle(item)
        else:
            match.judge(GAME.parse_state(item))
        view = match.moves_view()
        if match.finished:
            assert view is None
            continue
        moves = match.legal_moves()
        listed = [(m["space"], m["rotation"], m["from"], m["to"]) for m in view["moves"]]
        assert listed == [(m.space, m.rotation, m.from_place, m.to_place) for m in moves]
        # one line per runner and destination, naming every placement that gets it there
        pairs = {(m.from_place, m.to_place) for m in moves}
        assert len(view["lines"]) == len(pairs)
        for m in moves:
            (line,) = [x for x in view["lines"] if x.startswith(f"{m.from_place} to {m.to_place}:")]
            assert f" {m.space} at " in line and str(m.rotation) in line
        marks = view["marks"]
        assert set(marks["highlights"]) == {m.space for m in moves} | {m.to_place for m in moves}
        assert marks["switch"] == match.switch
        svg = GAME.board_svg(match.state, marks=marks)
        if len(moves) <= MAX_ROUTES_DRAWN:
            drawn += 1
            assert [route_from_json(r) for r in marks["moves"]] == [m.path for m in moves]
            assert len(_routes(svg)) == len(moves)
        else:
            ringed_only += 1
            assert "moves" not in marks and not _routes(svg)
        ringed = {e.get("data-cell") for e in ET.fromstring(svg).iter(f"{NS}g")
                  if any(c.get("stroke") == HIGHLIGHT_COLOUR for c in e)}  # fmt: skip
        assert ringed == set(marks["highlights"])
        assert f"{len(moves)} legal move" in view["title"]
    assert drawn and ringed_only


def test_no_moves_view_before_the_set_up_board() -> None:
    settings, _ = GAME.lab.sample_script(2)
    match = GAME.new_match(settings)
    assert match.moves_view() is None
    assert match.board_marks() == {}
