"""The Octiles referee: every path and turn rule, passes, the end, and whole games judged.

Positions are built by hand from the board table of games/octiles.md.  In two-player games
blue sits at W (finishing on the E circles) and yellow at E (finishing on the W circles).
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from companion.errors import InputError
from companion.games.octiles.model import (
    COLOURS,
    OPPOSITE,
    Face,
    Position,
    load_board,
)
from companion.games.octiles.rules import (
    Move,
    OctilesMatch,
    candidate_moves,
    legal_moves,
    match_settings,
    must_leave_start,
)
from companion.games.octiles.tiles import TILES, chords, identify, looks

BOARD = load_board()
NAMES = ["Ann", "Bob", "Cid", "Dee"]
DOWN: dict[str, Face] = dict.fromkeys(BOARD.spaces)


def _position(faces: dict[str, Face], runners: dict[str, str], pocket: int | None = None):
    return Position.make({**DOWN, **faces}, runners, pocket)


def _match(players: int = 2, **options: object) -> OctilesMatch:
    return OctilesMatch({"names": NAMES[:players], "seed": 1, **options})


def _started(players: int = 2, pocket: int = 7, **options: object) -> OctilesMatch:
    match = _match(players, **options)
    start = match.state.with_pocket(pocket)
    if players == 3:  # the tiles by the empty south side start face up
        start = start.with_spaces({"c1": (17, 0), "d1": (18, 0)})
    assert match.judge(start).legal
    return match


def _at(match: OctilesMatch, position: Position, switch: int, to_move: int = 0) -> None:
    """Put a started match in a hand-made position (the table a golden case starts from)."""
    match._table = replace(match._table, position=position, switch=switch, to_move=to_move)


def _after(position: Position, space: str, face: Face, start: str, end: str, pocket: int | None):
    """The board after a tile is placed and a runner moved (start == end: it did not move)."""
    runners = dict(position.runner_map)
    runners[end] = runners.pop(start)
    return Position.make({**position.space_map, space: face}, runners, pocket)


# --- settings and set-up ---------------------------------------------------------------------
def test_settings_defaults_and_checks() -> None:
    two = match_settings({"names": ["A", "B"], "seed": 3})
    assert two["runners"] == 5 and two["start_circles"] == [1, 2, 3, 4, 5]
    assert two["sides"] == ["W", "E"] and two["mirror"] is False and two["places"] is True
    four = match_settings({"players": 4, "seed": 3})
    assert four["runners"] == 4 and four["start_circles"] == [1, 2, 4, 5]
    assert four["sides"] == ["W", "N", "E", "S"]
    assert match_settings({"runners": 3, "seed": 1})["start_circles"] == [1, 3, 5]
    assert match_settings({"start_circles": [5, 1, 2], "seed": 1})["runners"] == 3
    for bad in (
        {"runners": 6},
        {"runners": 4, "start_circles": [1, 2, 3, 4, 5]},
        {"start_circles": [2, 3, 5]},
        {"start_circles": [1, 1, 5]},
        {"mirror": "yes"},
        {"players": 5},
    ):
        with pytest.raises(InputError) as err:
            match_settings({"seed": 1, **bad})
        assert "\n" not in str(err.value)


def test_start_board_is_checked_and_tells_the_first_switch_tile() -> None:
    match = _match()
    start = match.state
    assert all(face is None for _, face in start.spaces) and start.pocket is None
    assert len(start.runners) == 10 and start.runner_map["@E3"] == "yellow"
    verdict = match.judge(start)
    assert not verdict.legal and "pocket" in verdict.reason
    verdict = match.judge(start.with_spaces({"c3": (4, 0)}).with_pocket(7))
    assert not verdict.legal and "turn c3 face down" in verdict.reason
    runners = dict(start.runner_map)
    del runners["@W3"]
    verdict = match.judge(start.with_runners(runners).with_pocket(7))
    assert not verdict.legal and "@W3" in verdict.reason
    mirrored = _match(mirror=True).state.with_pocket(7)
    assert "mirror setting" in match.judge(mirrored).reason
    verdict = match.judge(start.with_pocket(7))
    assert verdict.legal and verdict.move is None and verdict.extra["switch"] == 7
    assert match.switch == 7 and match.to_move == 0 and match.state == start.with_pocket(7)


def test_three_players_start_with_the_tiles_by_the_empty_side_face_up() -> None:
    match = _match(3)
    assert match.sides == ("W", "N", "E")
    start = match.state.with_pocket(7)
    verdict = match.judge(start)
    assert not verdict.legal and "c1 and d1" in verdict.reason
    verdict = match.judge(start.with_spaces({"c1": (2, 0), "d1": (9, 7)}))
    assert verdict.legal


def test_four_players_with_three_runners_fill_the_chosen_circles() -> None:
    match = _match(4, runners=3, start_circles=[1, 2, 5])
    assert set(match.state.runner_map) == {f"@{s}{i}" for s in "WNES" for i in (1, 2, 5)}
    assert match.judge(match.state.with_pocket(1)).legal


def test_a_tile_seen_twice_is_refused() -> None:
    match = _started(pocket=7)
    board = match.state.with_spaces({"a2": (7, 0)})
    verdict = match.judge(board)
    assert not verdict.legal and "tile 7 shows on both a2 and the pocket" in verdict.reason


# --- legal moves: counts ---------------------------------------------------------------------
# Perft-style regression: legal first moves of W (blue) at the 2-player 5-runner start, per
# switch tile 1..18.  Obtained by running legal_moves once (one rotation per distinct look);
# tile 18 checked by hand: only rotation 1 (S-SE) on a2 takes @W1 to SB2.
FIRST_MOVES = [2, 9, 5, 16, 6, 14, 16, 5, 12, 12, 4, 10, 10, 6, 8, 8, 6, 1]


def test_first_move_counts() -> None:
    start = _match().state.with_pocket(1)
    counts = [len(legal_moves(start, "W", tile)) for tile in TILES]
    assert counts == FIRST_MOVES and sum(counts) == 150
    # the board is 4-fold symmetric, so every side has the same counts
    four = _match(4, runners=5).state
    for side in "NES":
        assert [len(legal_moves(four, side, tile)) for tile in TILES] == FIRST_MOVES
    assert legal_moves(start, "W", 18)[0][:4] == ("a2", 1, "@W1", "SB2")


def test_first_move_counts_on_a_mirrored_board_are_those_of_the_mirror_tiles() -> None:
    """The mirrored board with tile t plays like the printed board with t's mirror image."""
    mirrored = load_board(mirror=True)
    start = _match(mirror=True).state
    assert set(start.space_map) == set(mirrored.spaces)

    def mirror_tile(tile: int) -> int:
        look = frozenset(frozenset((8 - e) % 8 for e in pair) for pair in chords(tile, 0))
        return identify(look)[0][0]

    assert mirror_tile(9) == 10 and mirror_tile(1) == 1
    counts = [len(legal_moves(start, "W", tile, mirrored)) for tile in TILES]
    assert counts == [FIRST_MOVES[mirror_tile(tile) - 1] for tile in TILES]


def test_one_rotation_per_look_and_every_move_follows_the_rules() -> None:
    start = _match().state
    moves = legal_moves(start, "W", 1)
    assert {m.rotation for m in moves} == {0}
    for tile in TILES:
        for move in legal_moves(start, "W", tile):
            assert move.rotation in looks(tile)
            assert move.path.crosses(move.space) and move.path.end == move.to_place
            assert move.path.start == move.from_place and move.from_place.startswith("@W")


# --- golden cases, one per rule --------------------------------------------------------------
def test_the_path_must_cross_the_new_tile() -> None:
    # tile 7 at 0 on a2 already takes @W1 to SB3; placing the switch far away does not count
    position = _position({"a2": (7, 0)}, {"@W1": "blue", "@E1": "yellow"})
    assert {m.space for m in legal_moves(position, "W", 12) if m.from_place == "@W1"} == {"a2"}
    match = _started()
    _at(match, position, 12)
    verdict = match.judge(_after(position, "c3", (12, 0), "@W1", "SB3", None))
    assert not verdict.legal
    assert verdict.reason == "that runner's path does not cross the new tile"


def test_the_runner_stops_at_the_first_resting_place() -> None:
    # a3 holds tile 7 at 0 (S-NE); tile 1 on a2 (S-N) takes @W1 through a2 and a3 to SB4
    position = _position({"a3": (7, 0)}, {"@W1": "blue", "@E1": "yellow"})
    moves = [m for m in legal_moves(position, "W", 1) if m.space == "a2"]
    assert [(m.to_place, m.path.names()) for m in moves] == [("SB4", ["@W1", "a2", "a3", "SB4"])]
    match = _started()
    _at(match, position, 1)
    verdict = match.judge(_after(position, "a2", (1, 0), "@W1", "SC4", None))
    assert not verdict.legal
    assert "stops at SB4, the first resting place, not SC4" in verdict.reason
    verdict = match.judge(_after(position, "a2", (1, 4), "@W1", "SB4", None))
    assert verdict.legal and verdict.move == {
        "space": "a2",
        "tile": 1,
        "rotation": 4,
        "runner": {"from": "@W1", "to": "SB4"},
        "path": ["@W1", "a2", "a3", "SB4"],
    }


def test_no_path_across_a_face_down_tile() -> None:
    position = _position({}, {"@W1": "blue", "@E1": "yellow"})
    assert not [m for m in legal_moves(position, "W", 1) if m.space == "a2"]
    match = _started()
    _at(match, position, 1)
    verdict = match.judge(_after(position, "a2", (1, 0), "@W1", "SB4", None))
    assert not verdict.legal and "face-down tile on a3" in verdict.reason


def test_no_landing_on_an_occupied_stop() -> None:
    position = _position({"a3": (7, 0)}, {"@W1": "blue", "SB4": "yellow"})
    assert not [m for m in legal_moves(position, "W", 1) if m.space == "a2"]
    match = _started()
    _at(match, position, 1)
    verdict = match.judge(_after(position, "a2", (1, 0), "@W1", "SB3", None))
    assert not verdict.legal and verdict.reason == "the path ends on an occupied stop (SB4)"


def test_own_finishing_circles_only_and_never_back_to_a_start_circle() -> None:
    # tile 1 on e4 joins SW to NE: from stop SE4 to circle @E2
    position = _position({}, {"SE4": "blue", "SD4": "yellow"})
    assert ("e4", 0, "SE4", "@E2") in [m[:4] for m in legal_moves(position, "W", 1)]
    yellow = _position({}, {"SE4": "yellow", "SD4": "blue"})
    assert "@E2" not in [m.to_place for m in legal_moves(yellow, "E", 1)]
    match = _started()
    _at(match, yellow, 1, to_move=1)
    verdict = match.judge(_after(yellow, "e4", (1, 0), "SE4", "@E2", None))
    assert not verdict.legal
    assert verdict.reason == "a runner may not go back onto a start circle (@E2)"
    # tile 7 at 3 on b5 joins SW to N: from SB5 to @N3, nobody's finishing circle with 2 players
    north = _position({}, {"SB5": "blue", "SD4": "yellow"})
    assert "@N3" not in [m.to_place for m in legal_moves(north, "W", 7)]
    _at(match, north, 7)
    verdict = match.judge(_after(north, "b5", (7, 3), "SB5", "@N3", None))
    assert not verdict.legal and "@N3 is not one of blue's finishing circles" in verdict.reason


def test_no_landing_on_an_occupied_finishing_circle() -> None:
    position = _position({}, {"SE4": "blue", "@E2": "yellow"})
    assert "@E2" not in [m.to_place for m in legal_moves(position, "W", 1)]


def test_a_finished_runner_never_moves_again() -> None:
    position = _position({}, {"@E2": "blue", "SB2": "blue", "SD4": "yellow"})
    assert all(m.from_place == "SB2" for m in legal_moves(position, "W", 1))
    match = _started()
    _at(match, position, 1)
    verdict = match.judge(_after(position, "e4", (1, 0), "@E2", "SE4", None))
    assert (
        not verdict.legal
        and verdict.reason == "the runner on @E2 has finished and may not move again"
    )


def test_back_to_the_same_stop_only_across_the_new_tile() -> None:
    # a3 holds tile 16 at 7 (S-SE); tile 18 at 0 on a2 (NE-N) makes SB3 -> a2 -> a3 -> SB3
    position = _position({"a3": (16, 7)}, {"SB3": "blue", "SD4": "yellow"})
    loops = [m for m in legal_moves(position, "W", 18) if m.from_place == m.to_place]
    assert [(m.space, m.rotation, m.path.names()) for m in loops] == [
        ("a2", 0, ["SB3", "a2", "a3", "SB3"]),
        ("a2", 0, ["SB3", "a3", "a2", "SB3"]),  # the same loop the other way round
    ]
    match = _started()
    _at(match, position, 18)
    verdict = match.judge(position.with_spaces({"a2": (18, 4)}))  # the same look as rotation 0
    assert verdict.legal and verdict.move["runner"] == {"from": "SB3", "to": "SB3"}
    # the same loop already on the board does not let the runner stay when a tile goes elsewhere
    looped = position.with_spaces({"a2": (18, 0)})
    _at(match, looped, 3)
    verdict = match.judge(looped.with_spaces({"c3": (3, 0)}))
    assert not verdict.legal and verdict.reason.startswith("no runner moved")


def test_no_blocking_the_finish_gives_start_circles_priority() -> None:
    # blue's start circles are all full (three blue, two yellow runners that finished there)
    runners = {"@W1": "blue", "@W3": "blue", "@W5": "blue", "@W2": "yellow", "@W4": "yellow"}
    runners |= {"SC3": "blue", "SD4": "blue", "SE4": "yellow"}
    position = _position({}, runners)
    assert must_leave_start(position, "W", BOARD)
    every = candidate_moves(position, "W", 4)
    legal = legal_moves(position, "W", 4)
    assert {m.from_place[0] for m in every} == {"@", "S"}
    assert legal and all(m.from_place.startswith("@W") for m in legal)
    stop_move = next(m for m in every if m.from_place == "SC3")
    match = _started(runners=5)
    _at(match, position, 4)
    board = _after(
        position, stop_move.space, (4, stop_move.rotation), "SC3", stop_move.to_place, None
    )
    verdict = match.judge(board)
    assert not verdict.legal and verdict.reason.startswith("no blocking the finish")
    # with SB3 taken, tile 1 opens no start circle: then a stop runner may move
    blocked = position.with_runners({**runners, "SB3": "yellow"})
    assert not [m for m in candidate_moves(blocked, "W", 1) if m.from_place.startswith("@")]
    assert legal_moves(blocked, "W", 1) == candidate_moves(blocked, "W", 1) != []
    # a start circle left empty lifts the rule
    without = {k: v for k, v in runners.items() if k != "@W2"}
    assert not must_leave_start(position.with_runners(without), "W", BOARD)


# --- judging turns -------------------------------------------------------------------------
def _first_move(match: OctilesMatch) -> Move:
    return match.legal_moves()[0]


def test_judge_names_what_is_wrong() -> None:
    match = _started(pocket=7)
    start = match.state
    move = _first_move(match)  # tile 7 at 0 on a2: @W1 to SB3
    good = _after(start, move.space, (7, move.rotation), move.from_place, move.to_place, 12)

    def reason(board: Position) -> str:
        verdict = match.judge(board)
        assert not verdict.legal and verdict.player == 0 and "\n" not in verdict.reason
        assert match.state == start
        return verdict.reason

    assert (
        reason(good.with_spaces({"c3": (3, 0)}))
        == "2 spaces changed (a2 and c3): a turn replaces one tile"
    )
    assert reason(start.with_pocket(7)).startswith("no tile was placed")
    wrong_tile = _after(start, "a2", (12, 0), "@W1", "SB3", 4)
    assert reason(wrong_tile) == "the tile placed is 12 but the switch tile was 7"
    yellow = _after(start, "a2", (7, 0), "@E1", "SE5", 12)
    assert reason(yellow) == "yellow's runner moved but it is blue's turn"
    two = _after(good, "a2", (7, 0), "@W2", "SB2", 12)
    assert reason(two).startswith("2 runners moved")
    placed = start.with_spaces({"a2": (7, 0)}).with_pocket(12)
    gone = placed.with_runners({k: v for k, v in start.runner_map.items() if k != "@W5"})
    assert reason(gone) == "a runner is missing from @W5: put it back"
    assert reason(good.with_spaces({"a2": None})).startswith("no tile was placed")
    verdict = match.judge(good)
    assert verdict.legal and verdict.player == 0 and verdict.extra["next"] == 1
    assert verdict.extra["switch"] == 12 and match.switch == 12 and match.to_move == 1


def test_runners_that_do_not_pair_up_are_named() -> None:
    match = _started(pocket=7)
    start = match.state
    placed = start.with_spaces({"a2": (7, 0)}).with_pocket(12)
    extra = placed.with_runners({**start.runner_map, "SC3": "blue"})
    assert match.judge(extra).reason == "an extra runner stands on SC3: take it off"
    swapped = _after(start, "a2", (7, 0), "@W1", "SB3", 12)
    swapped = swapped.with_runners({**swapped.runner_map, "SB3": "yellow"})
    assert match.judge(swapped).reason == "a blue runner left @W1 but a yellow one arrived on SB3"
    assert match.state == start and match.to_move == 0


def test_the_switch_tile_goes_face_up_and_tiles_never_turn_in_place() -> None:
    position = _position({"a2": (7, 0)}, {"SB3": "blue", "SD4": "yellow"})
    match = _started()
    _at(match, position, 12)
    verdict = match.judge(position.with_spaces({"a2": None}))
    assert verdict.reason == "the tile on a2 is face down: place the switch tile face up"
    _at(match, position, None)  # type: ignore[arg-type]
    verdict = match.judge(position.with_spaces({"a2": (7, 2)}))
    assert verdict.reason == "the tile on a2 was turned in place: tiles never turn in place"


def test_the_pocket_must_hold_the_tile_taken_off() -> None:
    # tile 12 at 4 replaces the face-up 7 on a2 and takes @W1 to SB3: 7 goes to the pocket
    position = _position({"a2": (7, 0)}, {"@W1": "blue", "SD4": "yellow"})
    match = _started()
    _at(match, position, 12)
    after = _after(position, "a2", (12, 4), "@W1", "SB3", 3)
    verdict = match.judge(after)
    assert not verdict.legal
    assert verdict.reason == (
        "the pocket shows tile 3 but the tile taken off a2 was 7: lay 7 face up in the pocket"
    )
    verdict = match.judge(after.with_pocket(None))
    assert verdict.legal and match.switch == 7  # known from history


def test_an_empty_pocket_after_a_face_down_tile_leaves_the_switch_unknown() -> None:
    match = _started(pocket=7)
    first = _first_move(match)
    board = _after(
        match.state, first.space, (7, first.rotation), first.from_place, first.to_place, None
    )
    verdict = match.judge(board)
    assert verdict.legal and match.switch is None and "unknown" in verdict.text
    assert match.legal_moves() == []
    assert "unknown" in match.public_view()["summary"][0]
    # yellow places some unseen tile; it is judged with the tile the camera sees
    move = legal_moves(board, "E", 9)[0]
    after = _after(board, move.space, (9, move.rotation), move.from_place, move.to_place, 13)
    assert match.judge(after).legal and match.switch == 13


def test_reconcile_keeps_the_known_rotation_of_a_symmetric_tile() -> None:
    match = _started(pocket=1)
    move = _first_move(match)
    board = _after(match.state, move.space, (1, move.rotation), move.from_place, move.to_place, 4)
    assert match.judge(board).legal
    seen = board.with_spaces({move.space: (1, 6)})
    assert seen != match.state and match.reconcile(seen) == match.state
    other = board.with_spaces({move.space: (2, 6)})
    assert match.reconcile(other) == other


# --- passes and the end ----------------------------------------------------------------------
def _stuck_blue() -> Position:
    """Blue's last runner on SB2 with SB3, SC3 and SC2 taken: no tile on a2 or b2 frees it."""
    runners = {f"@E{i}": "blue" for i in range(1, 5)} | {"SB2": "blue"}
    runners |= {"SB3": "yellow", "SC3": "yellow", "SC2": "yellow", "SD4": "yellow", "@W5": "yellow"}
    return _position({}, runners, 6)


def test_pass_only_without_a_legal_move() -> None:
    match = _started(pocket=7)
    verdict = match.handle({"event": "pass"})
    assert not verdict.legal and "a legal move exists, e.g. tile 7 on a2" in verdict.reason
    position = _stuck_blue()
    assert all(not legal_moves(position, "W", t) for t in TILES)
    _at(match, position, 6)
    verdict = match.handle({"event": "pass"})
    assert verdict.legal and verdict.player == 0 and verdict.extra["next"] == 1
    assert match.to_move == 1 and match.switch == 6 and not match.finished
    with pytest.raises(InputError, match="only event is 'pass'"):
        match.handle({"event": "spin"})


def test_pass_before_the_start_and_after_the_end_is_refused() -> None:
    match = _match()
    assert not match.handle({"event": "pass"}).legal


def test_unknown_switch_pass_is_checked_as_far_as_possible() -> None:
    match = _started(pocket=7)
    _at(match, _stuck_blue(), None)  # type: ignore[arg-type]
    verdict = match.handle({"event": "pass"})
    assert verdict.legal and verdict.extra["checked"] is True
    match = _started(pocket=7)
    _at(match, match.state, None)  # type: ignore[arg-type]
    verdict = match.handle({"event": "pass"})
    assert not verdict.legal and "whatever the unknown switch tile is" in verdict.reason


def test_bringing_every_runner_home_wins() -> None:
    # blue's last runner on SE4; tile 1 on e4 takes it to @E2
    runners = {"@E1": "blue", "@E3": "blue", "@E4": "blue", "@E5": "blue", "SE4": "blue"}
    runners |= {"SB3": "yellow", "SD3": "yellow", "@W1": "yellow", "@W2": "yellow", "SC4": "yellow"}
    position = _position({}, runners)
    match = _started(pocket=7)
    _at(match, position, 1)
    verdict = match.judge(_after(position, "e4", (1, 0), "SE4", "@E2", 5))
    assert verdict.legal and verdict.score == 5 and match.finished
    assert match.winner == 0 and match.places == [0, 1] and verdict.extra["winner"] == 0
    assert "Ann wins" in verdict.text
    view = match.public_view()
    assert view["to_move"] is None and view["players"][0]["score"] == 5
    assert view["players"][0]["detail"] == "blue (W): 5 of 5 home"
    assert not match.judge(position).legal
    assert not match.handle({"event": "pass"}).legal


def test_three_players_play_on_for_places() -> None:
    match = _started(3, pocket=7, runners=3, start_circles=[1, 3, 5])
    # blue's last runner on SE4 goes home; red and yellow play on
    runners = {"@E1": "blue", "@E3": "blue", "SE4": "blue"}
    runners |= {"@N1": "red", "@N3": "red", "@N5": "red", "SB3": "yellow", "@E5": "yellow"}
    runners |= {"SC3": "yellow"}
    position = _position({}, runners)
    _at(match, position, 1)
    verdict = match.judge(_after(position, "e4", (1, 0), "SE4", "@E2", 5))
    assert verdict.legal and not match.finished and match.winner == 0
    assert match.to_move == 1 and match.public_view()["places"] == [0]
    # yellow moves next; the turn then skips blue, who is home, and goes to red
    _at(match, match.state, 5, to_move=2)
    before = match.state
    move = match.legal_moves()[0]
    verdict = match.judge(
        _after(before, move.space, (5, move.rotation), move.from_place, move.to_place, None)
    )
    assert verdict.legal and verdict.extra["next"] == 1


def test_nobody_can_move_ends_the_game_for_the_last_mover() -> None:
    # Found by a seeded random search over small positions: blue's only move with tile 1 (on
    # d2, SE2 to SD3) takes off tile 7, and with 7 neither blue nor yellow can move.
    runners = {"@E5": "blue", "@E1": "blue", "SE2": "blue"}
    runners |= {"@W3": "yellow", "@W4": "yellow", "SD2": "yellow"}
    position = _position({"d2": (7, 5)}, runners)
    assert [m[:4] for m in legal_moves(position, "W", 1)] == [("d2", 0, "SE2", "SD3")]
    match = _started(runners=3, start_circles=[1, 3, 5])
    _at(match, position, 1)
    verdict = match.judge(_after(position, "d2", (1, 0), "SE2", "SD3", 7))
    assert verdict.legal and match.finished
    assert match.winner == 0 and match.places == [0]
    assert verdict.text.endswith("no one can move, so Ann wins.")
    assert match.public_view()["summary"][-1] == "game over: no one can move, so Ann wins"


# --- whole games -----------------------------------------------------------------------------
class Table:
    """The physical table: which tile lies under each face-down one, and the players' hands.

    Players pick among enumerated legal moves (``greedy``: home first, then the move that
    gains most ground towards the finishing side); the board they leave is what the camera
    would see.  ``empty_pocket`` is how often a player forgets to lay the removed tile in the
    pocket, so the referee must follow the game from history.
    """

    def __init__(self, players: int, seed: int, *, greedy: bool, empty_pocket: float = 0.0):
        self.rng = random.Random(seed)
        self.match = _match(players, seed=seed)
        tiles = list(TILES)
        self.rng.shuffle(tiles)
        self.hidden = dict(zip(BOARD.spaces, tiles[:17], strict=True))
        self.held = tiles[17]
        self.greedy, self.empty_pocket = greedy, empty_pocket
        start = self.match.state.with_pocket(self.held)
        opened = {s: (self.hidden.pop(s), self.rng.randrange(8)) for s in self.match._open}
        self.board = start.with_spaces(opened)
        assert self.match.judge(self.board).legal

    def choose(self, moves: list[Move], side: str) -> Move:
        if not self.greedy:
            return self.rng.choice(moves)
        dx, dy = {"W": (1, 0), "E": (-1, 0), "N": (0, -1), "S": (0, 1)}[side]

        def gain(move: Move) -> float:
            (x0, y0), (x1, y1) = BOARD.coords[move.from_place], BOARD.coords[move.to_place]
            home = move.to_place.startswith("@")
            return 100 * home + (x1 - x0) * dx + (y1 - y0) * dy + self.rng.random()

        return max(moves, key=gain)

    def turn(self) -> tuple[object, Move | None]:
        """One player's turn at the table: a move judged from the board, or a pass event."""
        match = self.match
        side = match.sides[match.to_move]
        moves = legal_moves(self.board, side, self.held)
        if match.switch is not None:
            assert moves == match.legal_moves()
        if not moves:
            return match.handle({"event": "pass"}), None
        move = self.choose(moves, side)
        old = self.board.face(move.space)
        removed = self.hidden.pop(move.space) if old is None else old[0]
        pocket = None if self.rng.random() < self.empty_pocket else removed
        board = _after(
            self.board,
            move.space,
            (self.held, move.rotation),
            move.from_place,
            move.to_place,
            pocket,
        )
        verdict = match.judge(board)
        self.board, self.held = board, removed
        return verdict, move

    def check(self) -> None:
        """Invariants of every position the game passes through."""
        board, match = self.board, self.match
        assert len(board.spaces) == 17 and board == match.state
        colours = [COLOURS[s] for s in match.sides]
        assert sorted(board.runner_map.values()) == sorted(colours * match.runners)
        shown = [face[0] for _, face in board.spaces if face is not None]
        assert sorted([*shown, self.held, *self.hidden.values()]) == list(TILES)
        assert len(self.hidden) == sum(face is None for _, face in board.spaces)
        assert match.switch in (self.held, None)
        if board.pocket is not None:
            assert match.switch == board.pocket == self.held

    def home(self) -> set[str]:
        runners = self.board.runner_map
        return {
            c
            for side in self.match.sides
            for c in BOARD.circles_of(OPPOSITE[side])
            if runners.get(c) == COLOURS[side]
        }


@pytest.mark.parametrize(
    ("players", "seed", "empty"), [(2, 1, 0.0), (3, 2, 0.0), (4, 3, 0.0), (2, 4, 0.3), (4, 5, 0.3)]
)
def test_random_playout_keeps_the_invariants(players: int, seed: int, empty: float) -> None:
    table = Table(players, seed, greedy=False, empty_pocket=empty)
    for _ in range(80):
        if table.match.finished:
            break
        home = table.home()
        verdict, move = table.turn()
        assert verdict.legal, verdict.reason
        table.check()
        assert home <= table.home()  # finished runners never move
        if move is not None:
            assert move.from_place not in home


def test_a_whole_two_player_game_judged_move_by_move() -> None:
    table = Table(2, 11, greedy=True)
    verdicts = []
    while not table.match.finished:
        verdict, move = table.turn()
        assert verdict.legal, verdict.reason
        table.check()
        verdicts.append(verdict)
        if move is not None:
            assert verdict.move["runner"] == {"from": move.from_place, "to": move.to_place}
            assert verdict.move["path"] == move.path.names()
            assert verdict.move["tile"] == table.board.face(move.space)[0]
        assert len(verdicts) < 300, "the game did not end"
    match = table.match
    assert match.winner is not None and match.places[0] == match.winner
    view = match.public_view()
    if max(p["score"] for p in view["players"]) == match.runners:
        assert view["players"][match.winner]["score"] == match.runners
    else:  # nobody could move: the last player who moved wins
        last = next(v.player for v in reversed(verdicts) if v.reason == "move")
        assert match.winner == last and "no one can move" in verdicts[-1].text
    assert verdicts[-1].extra["winner"] == match.winner and verdicts[-1].extra["next"] is None
