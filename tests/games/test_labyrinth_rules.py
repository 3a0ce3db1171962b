"""The Zombie Labyrinth referee: the stop-set search, spins, discs, Dr. Bizarre, the end."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import InputError
from companion.games.labyrinth.model import make_board
from companion.games.labyrinth.rules import (
    BIZARRE,
    LabyrinthMatch,
    destinations,
    match_settings,
)

# --- the stop-set search on hand-made graphs ----------------------------------------------


def _graph(*edges: str) -> dict[str, set[str]]:
    adj: dict[str, set[str]] = {}
    for edge in edges:
        a, b = edge.split("-")
        adj.setdefault(a, set()).add(b)
        adj.setdefault(b, set()).add(a)
    return adj


def test_a_corridor_stops_at_the_first_stop():
    line = _graph("a-b", "b-c", "c-d", "d-e")
    assert destinations(line, "a", {"c"}) == {"c"}
    assert destinations(line, "a", {"b", "d"}) == {"b"}
    assert destinations(line, "c", {"a", "e"}) == {"a", "e"}
    assert destinations(line, "a", set()) == set()


def test_the_start_is_never_a_stop_and_walls_stop_nothing_beyond():
    line = _graph("a-b", "b-c")
    assert destinations(line, "b", {"a", "b", "c"}) == {"a", "c"}
    assert destinations(line, "a", {"c"}, walls={"b"}) == set()
    assert destinations(line, "a", {"b"}, walls={"b"}) == set()


def test_a_fork_and_a_loop_offer_every_first_stop():
    graph = _graph("s-j", "j-x", "x-y", "j-z", "z-w", "w-y", "y-f")
    # both branches of the loop reach y; x is a stop on one branch only
    assert destinations(graph, "s", {"x", "y"}) == {"x", "y"}
    assert destinations(graph, "s", {"x", "z"}) == {"x", "z"}
    assert destinations(graph, "s", {"x", "z", "f"}) == {"x", "z"}


def _non_backtracking(adj, start, stops) -> set[str]:
    """Reference: walks that never turn straight back along the edge they came by."""
    stops = set(stops) - {start}
    found: set[str] = set()
    seen = {(start, None)}
    todo = [(start, None)]
    while todo:
        here, came = todo.pop()
        for nxt in adj[here]:
            if nxt == came:
                continue
            if nxt in stops:
                found.add(nxt)
            elif (nxt, here) not in seen:
                seen.add((nxt, here))
                todo.append((nxt, here))
    return found


@st.composite
def graphs(draw):
    n = draw(st.integers(2, 9))
    nodes = [f"v{i}" for i in range(n)]
    pairs = [(a, b) for i, a in enumerate(nodes) for b in nodes[i + 1 :]]
    edges = draw(st.sets(st.sampled_from(pairs), max_size=14))
    adj: dict[str, set[str]] = {v: set() for v in nodes}
    for a, b in edges:
        adj[a].add(b)
        adj[b].add(a)
    start = draw(st.sampled_from(nodes))
    stops = draw(st.sets(st.sampled_from(nodes)))
    return adj, start, stops


@settings(max_examples=300, deadline=None)
@given(graphs())
def test_doubling_back_or_not_gives_the_same_destinations(case):
    adj, start, stops = case
    assert destinations(adj, start, stops) == _non_backtracking(adj, start, stops)


# --- a small test labyrinth: three pieces in a row ------------------------------------------
#
#   piece a                     piece b                              piece c
#   start - r1 -+- p1 -+- E|W - d1 - jb - y1 - p2 - E|W - g1 - d2 - finish
#               +- j1 -+              |
#                                    home
#
# r1 red, y1 yellow, g1 green, p1/p2 purple; d1/d2 disc spaces.  Dr. Bizarre standing on p1
# can be walked round (via j1); standing on p2 he cannot.

TEST_PIECES = {
    "colours": ["red", "yellow", "green", "blue", "purple"],
    "pieces": [
        {
            "id": "a",
            "nodes": {
                "start": {"kind": "start", "at": [0.2, 0.5]},
                "r1": {"kind": "lantern", "colour": "red", "at": [0.45, 0.5]},
                "p1": {"kind": "lantern", "colour": "purple", "at": [0.75, 0.35]},
                "j1": {"kind": "junction", "at": [0.75, 0.7]},
            },
            "edges": [
                {"from": "start", "to": "r1", "path": [[0.2, 0.5], [0.45, 0.5]]},
                {"from": "r1", "to": "p1", "path": [[0.45, 0.5], [0.75, 0.35]]},
                {"from": "r1", "to": "j1", "path": [[0.45, 0.5], [0.75, 0.7]]},
                {"from": "p1", "to": "E", "path": [[0.75, 0.35], [1.0, 0.5]]},
                {"from": "j1", "to": "E", "path": [[0.75, 0.7], [1.0, 0.5]]},
            ],
        },
        {
            "id": "b",
            "nodes": {
                "d1": {"kind": "disc", "at": [0.2, 0.5]},
                "jb": {"kind": "junction", "at": [0.4, 0.5]},
                "home": {"kind": "home", "at": [0.4, 0.8]},
                "y1": {"kind": "lantern", "colour": "yellow", "at": [0.6, 0.5]},
                "p2": {"kind": "lantern", "colour": "purple", "at": [0.8, 0.5]},
            },
            "edges": [
                {"from": "W", "to": "d1", "path": [[0.0, 0.5], [0.2, 0.5]]},
                {"from": "d1", "to": "jb", "path": [[0.2, 0.5], [0.4, 0.5]]},
                {"from": "jb", "to": "home", "path": [[0.4, 0.5], [0.4, 0.8]]},
                {"from": "jb", "to": "y1", "path": [[0.4, 0.5], [0.6, 0.5]]},
                {"from": "y1", "to": "p2", "path": [[0.6, 0.5], [0.8, 0.5]]},
                {"from": "p2", "to": "E", "path": [[0.8, 0.5], [1.0, 0.5]]},
            ],
        },
        {
            "id": "c",
            "nodes": {
                "g1": {"kind": "lantern", "colour": "green", "at": [0.25, 0.5]},
                "d2": {"kind": "disc", "at": [0.5, 0.5]},
                "finish": {"kind": "finish", "at": [0.75, 0.5]},
            },
            "edges": [
                {"from": "W", "to": "g1", "path": [[0.0, 0.5], [0.25, 0.5]]},
                {"from": "g1", "to": "d2", "path": [[0.25, 0.5], [0.5, 0.5]]},
                {"from": "d2", "to": "finish", "path": [[0.5, 0.5], [0.75, 0.5]]},
            ],
        },
    ],
}
TEST_LAYOUT = [
    {"piece": pid, "cell": [0, col], "rotation": 0} for col, pid in enumerate(("a", "b", "c"))
]


@pytest.fixture
def pieces_file(tmp_path):
    path = tmp_path / "pieces.json"
    path.write_text(json.dumps(TEST_PIECES))
    return str(path)


def start(pieces_file: str, players: int = 2, **options) -> LabyrinthMatch:
    names = ["Ann", "Bob", "Cy", "Di"][:players]
    match = LabyrinthMatch(
        {"names": names, "seed": 11, "pieces": pieces_file, "layout": TEST_LAYOUT, **options}
    )
    verdict = match.judge(match.state)
    assert verdict.legal, verdict.reason
    return match


def play(match: LabyrinthMatch, spin: str, to: str | None = None):
    """Enter a spin, check that ``to`` is a legal destination, and make the move."""
    spun = match.handle({"event": "spin", "result": spin})
    assert spun.legal, spun.reason
    if to is None:
        return spun
    assert to in match.legal_destinations()
    verdict = match.judge(match.board_after(to))
    assert verdict.legal, verdict.reason
    return verdict


def test_the_test_labyrinth_is_set_up_as_drawn(pieces_file):
    match = start(pieces_file)
    board = match.state
    assert board.discs == {"b.d1", "c.d2", "c.finish", "b.home"}
    assert board.bizarre == "b.home"
    assert board.character_map == {"red": "a.start", "yellow": "a.start"}


def test_a_move_stops_at_the_first_disc_or_lantern_of_the_spun_colour(pieces_file):
    match = start(pieces_file)
    play(match, "yellow")
    assert match.legal_destinations() == {"b.d1"}  # the disc comes before the yellow lantern
    verdict = match.judge(match.board_after("b.d1"))
    assert verdict.legal and verdict.score == 1
    assert verdict.text == (
        "Ann spins yellow and goes to the disc space on piece b and collects the disc there; "
        "Bob to spin."
    )
    assert match.kept(0) == ("b.d1",)
    assert "b.d1" not in match.state.discs
    play(match, "yellow")
    assert match.legal_destinations() == {"b.y1", "b.home"}  # d1 is empty now: passed


def test_a_move_past_a_stop_is_illegal_and_changes_nothing(pieces_file):
    match = start(pieces_file)
    play(match, "green")
    before = match.state
    verdict = match.judge(match.board_after("c.g1"))
    assert not verdict.legal
    assert verdict.reason == (
        "the green lantern on piece c is not a green lantern or a disc reachable without "
        "passing one"
    )
    assert match.state == before and match.spin == "green"
    assert match.judge(match.board_after("b.d1")).legal


def test_hoard_is_safe_while_he_is_home_and_landing_on_him_costs_a_disc(pieces_file):
    match = start(pieces_file)
    play(match, "yellow", "b.d1")  # Ann collects d1
    play(match, "red", "a.r1")  # Bob
    verdict = play(match, "yellow", "b.home")  # Ann lands on Dr. Bizarre at home
    assert verdict.extra["collected"] is None
    assert verdict.extra["losses"] == [{"player": 0, "disc": "b.d1"}]
    assert "lands on Dr. Bizarre and sets a disc aside" in verdict.text
    assert match.kept(0) == ()
    assert "b.home" in match.state.discs
    assert match.state.bizarre == "b.home"


def test_bizarre_stops_on_purple_and_passing_him_costs_with_the_home_rule(pieces_file):
    match = start(pieces_file)
    play(match, BIZARRE)  # Ann spins him: Bob on the start is a target, Ann's own is not
    assert match.legal_destinations() == {"a.p1", "a.start", "b.p2"}
    verdict = match.judge(match.board_after("b.p2"))
    assert verdict.text == (
        "Ann spins Dr. Bizarre and sends him to the purple lantern on piece b; Bob to spin."
    )
    assert match.state.bizarre == "b.p2"
    play(match, "yellow", "b.d1")  # Bob collects d1
    hoard = play(match, "yellow", "b.home")  # Ann: he is away, so the hoard is hers
    assert hoard.extra["collected"] == "b.home"
    assert match.disc_value("b.home") == 4
    play(match, "green")  # Bob: the only way to g1 runs through Dr. Bizarre on p2
    assert match.legal_destinations() == {"c.g1"}
    verdict = match.judge(match.board_after("c.g1"))
    assert verdict.legal
    assert verdict.extra["losses"] == [
        {"player": 1, "disc": "b.d1"},  # Bob passes him
        {"player": 0, "disc": "b.home"},  # Ann stands on his home when he returns
    ]
    assert match.state.bizarre == "b.home"
    # the table still shows him on p2 until someone carries him home: nothing to judge
    shown = make_board(match.state.layout, match.state.character_map, "b.p2", match.state.discs)
    assert match.reconcile(shown) == match.state


def test_walking_round_him_costs_nothing(pieces_file):
    match = start(pieces_file)
    play(match, BIZARRE, "a.p1")
    verdict = play(match, "yellow", "b.d1")  # Bob goes by j1, not past p1
    assert verdict.extra["losses"] == []
    assert match.state.bizarre == "a.p1"


def test_bizarre_catches_a_character_and_goes_home(pieces_file):
    match = start(pieces_file)
    play(match, "yellow", "b.d1")  # Ann
    play(match, BIZARRE)  # Bob spins him
    assert match.legal_destinations() == {"b.d1", "b.p2"}
    verdict = match.judge(match.board_after("b.d1"))
    assert verdict.legal and verdict.extra["caught"] == "b.d1"
    assert verdict.text.startswith("Bob spins Dr. Bizarre and he catches Ann on the disc space")
    assert match.kept(0) == () and match.state.bizarre == "b.home"
    shown = make_board(match.state.layout, match.state.character_map, "b.d1", match.state.discs)
    assert match.reconcile(shown) == match.state


def test_bizarre_goes_for_the_other_players_unless_set_to_all(pieces_file):
    for targets, expected in (("others", {"a.p1", "a.r1", "b.p2"}), ("all", {"b.d1", "b.p2"})):
        match = start(pieces_file, bizarre_targets=targets)
        play(match, "yellow", "b.d1")  # Ann
        play(match, "red", "a.r1")  # Bob
        play(match, BIZARRE)  # Ann spins him: her own character on d1 is in his way
        assert match.legal_destinations() == expected


def test_bizarre_shown_home_at_once_is_accepted_only_when_unambiguous(pieces_file):
    match = start(pieces_file)
    play(match, BIZARRE, "b.p2")  # Ann
    play(match, "yellow", "b.d1")  # Bob
    play(match, "yellow", "b.y1")  # Ann
    play(match, BIZARRE)  # Bob: from p2 only Ann on y1 is in reach
    assert match.legal_destinations() == {"b.y1"}
    verdict = match.judge(match.board_after("b.home"))
    assert verdict.legal and verdict.extra["caught"] == "b.y1"
    assert "Ann is caught but has no disc to lose" in verdict.text

    match = start(pieces_file, players=3)
    play(match, BIZARRE, "a.p1")  # Ann
    play(match, "red", "a.r1")  # Bob
    play(match, "yellow", "b.d1")  # Cy, round him by j1
    play(match, BIZARRE)  # Ann: Bob on r1 and Cy on d1 are both in reach
    verdict = match.judge(match.board_after("b.home"))
    assert not verdict.legal
    assert verdict.reason.startswith("Dr. Bizarre can reach characters on")
    verdict = match.handle({"event": "move", "to": "b.d1"})  # entered by hand instead
    assert verdict is not None and verdict.legal and verdict.extra["caught"] == "b.d1"
    assert match.kept(2) == ()


def test_a_move_changes_only_the_spun_piece_and_the_disc_it_takes(pieces_file):
    match = start(pieces_file)
    play(match, "yellow", "b.d1")  # Ann (red) collects d1
    play(match, "red")  # Bob (yellow) may go to r1
    state = match.state
    moved = match.board_after("a.r1")

    def reason(characters, bizarre, discs) -> str:
        verdict = match.judge(make_board(state.layout, characters, bizarre, discs))
        assert not verdict.legal and verdict.player == 1
        assert match.state == state and match.spin == "red"
        return verdict.reason

    red_only = {"red": "b.d1"}
    assert reason(red_only, "b.home", state.discs) == "the yellow character is not on a space"
    assert reason(moved.character_map, "b.home", state.discs | {"b.d1"}) == (
        "a disc appeared on the disc space on piece b: discs only leave the labyrinth"
    )
    assert reason(moved.character_map, "a.p1", state.discs) == (
        "Dr. Bizarre moves only on his own spin: put him back"
    )
    assert reason(state.character_map, "a.p1", state.discs) == (
        "Dr. Bizarre moves only on his own spin: put him back"
    )
    assert match.judge(moved).legal


def test_dr_bizarre_must_stand_where_his_spin_lets_him(pieces_file):
    match = start(pieces_file)
    play(match, "yellow", "b.d1")  # Ann
    play(match, BIZARRE)  # Bob spins him
    state = match.state
    unseen = make_board(state.layout, state.character_map, None, state.discs)
    verdict = match.judge(unseen)  # as the camera saw it, not reconciled
    assert not verdict.legal and verdict.reason == "Dr. Bizarre is not on a space"
    verdict = match.judge(match.board_after("c.g1"))
    assert not verdict.legal and verdict.reason == (
        "the green lantern on piece c is not a character or a purple lantern Dr. Bizarre "
        "reaches without passing one"
    )
    assert match.state == state and match.spin == BIZARRE


def test_asked_losses_wait_for_the_players_choice(pieces_file):
    match = start(pieces_file, lose="ask")
    play(match, "yellow", "b.d1")  # Ann
    verdict = play(match, BIZARRE, "b.d1")  # Bob catches Ann
    assert verdict.extra["losses"] == [{"player": 0, "disc": None, "ask": True}]
    view = match.public_view()
    assert view["owed"] == [0] and "Ann must set a disc aside" in view["summary"]
    refused = match.handle({"event": "lose", "player": 1, "disc": 0})
    assert refused is not None and not refused.legal
    with pytest.raises(InputError, match="'disc' must be one of Ann's discs"):
        match.handle({"event": "lose", "player": 0, "disc": 3})
    chosen = match.handle({"event": "lose", "player": 0, "disc": 0})
    assert chosen is not None and chosen.legal and match.kept(0) == ()
    assert match.public_view()["owed"] == []


def test_no_destination_keeps_the_character_and_passes_or_spins_again(pieces_file):
    match = start(pieces_file, block=True)
    play(match, "red", "a.r1")  # Ann now blocks the only way out of the start
    verdict = play(match, "yellow")  # Bob
    assert verdict.reason == "no move" and match.to_move == 0 and match.spin is None
    assert verdict.text.endswith("Bob can reach nothing and stays; Ann to spin.")

    match = start(pieces_file, block=True, no_destination="spin again")
    play(match, "red", "a.r1")
    play(match, "yellow")
    assert match.to_move == 1 and match.spin is None


def test_moving_may_be_optional_by_setting(pieces_file):
    match = start(pieces_file)
    play(match, "yellow")
    refused = match.handle({"event": "stay"})
    assert refused is not None and not refused.legal
    match = start(pieces_file, compulsory=False)
    play(match, "yellow")
    assert {"event": "stay", "label": "Stay put"} in match.public_view()["actions"]
    stayed = match.handle({"event": "stay"})
    assert stayed is not None and stayed.legal and match.to_move == 1


def test_boards_that_do_more_or_less_than_a_move_are_illegal(pieces_file):
    match = start(pieces_file, players=3)
    before = match.state
    chars = before.character_map
    not_spun = match.judge(
        make_board(before.layout, chars | {"red": "b.d1"}, "b.home", before.discs)
    )
    assert not not_spun.legal and not_spun.reason == "Ann must spin first, then move"
    play(match, "yellow")
    cases = {
        "only the red character moves now: put the yellow character back on the starting space": (
            make_board(before.layout, chars | {"yellow": "a.r1"}, "b.home", before.discs)
        ),
        "the disc on the disc space on piece c was taken: put it back": make_board(
            before.layout, chars | {"red": "b.d1"}, "b.home", before.discs - {"c.d2"}
        ),
        "Dr. Bizarre moves only on his own spin: put him back": make_board(
            before.layout, chars | {"red": "b.d1"}, "b.p2", before.discs
        ),
        "the disc on the disc space on piece b was taken": make_board(
            before.layout, chars, "b.home", before.discs - {"b.d1"}
        ),
        "the red character has not moved": before,
        "the labyrinth pieces moved: put them back as they were": make_board(
            before.layout[:2], chars, "b.home", before.discs
        ),
    }
    for reason, board in cases.items():
        verdict = match.judge(board)
        assert not verdict.legal and reason in verdict.reason, verdict.reason
        assert match.state == before


def test_the_set_up_board_is_checked(pieces_file):
    match = LabyrinthMatch(
        {"names": ["Ann", "Bob"], "seed": 1, "pieces": pieces_file, "layout": TEST_LAYOUT}
    )
    board = match.state
    wrong = make_board(board.layout, {"red": "a.r1"}, "b.p2", board.discs - {"c.finish"})
    verdict = match.judge(wrong)
    assert not verdict.legal
    assert verdict.reason == (
        "the labyrinth is not set up: the red character must stand on the starting space; "
        "the yellow character must stand on the starting space; Dr. Bizarre must stand on his "
        "home space; the finish disc must lie on the finish disc space"
    )
    refused = match.handle({"event": "spin"})
    assert refused is not None and not refused.legal


def test_spins_are_checked_and_drawn_from_the_seed(pieces_file):
    match = start(pieces_file)
    with pytest.raises(InputError, match="the spinner shows"):
        match.handle({"event": "spin", "result": "pink"})
    drawn = match.handle({"event": "spin"})
    assert drawn is not None and drawn.extra["drawn"] is True
    assert drawn.text.startswith("The companion spins")
    again = match.handle({"event": "spin", "result": "red"})
    assert again is not None and not again.legal and "has already spun" in again.reason
    no_purple = start(pieces_file, purple_spins=False)
    assert "purple" not in no_purple.segments and BIZARRE in no_purple.segments
    with pytest.raises(InputError, match="spin, move, stay, lose or discs"):
        match.handle({"event": "pass"})


def test_the_finish_ends_the_game_and_revealed_values_can_be_entered(pieces_file):
    match = start(pieces_file, disc_values=[2])
    play(match, "yellow", "b.d1")  # Ann collects a 2
    play(match, "red", "a.r1")  # Bob
    play(match, "green")  # Ann: past y1 and p2, free while Dr. Bizarre is home
    assert match.legal_destinations() == {"b.home", "c.g1"}
    match.judge(match.board_after("c.g1"))
    play(match, "yellow", "b.y1")  # Bob
    play(match, "green", "c.d2")  # Ann collects another 2
    play(match, "blue")  # Bob could win now, but goes home to Dr. Bizarre
    assert match.legal_destinations() == {"b.home", "c.finish"}
    match.judge(match.board_after("b.home"))
    assert not match.finished
    end = play(match, "blue", "c.finish")  # Ann
    assert match.finished
    assert end.text.endswith("collects the finish disc; Ann 9, Bob 0 brains; Ann wins.")
    assert end.extra["winners"] == [0]
    view = match.public_view()
    assert view["to_move"] is None and view["actions"] == []
    assert view["players"][0]["detail"] == "red · 3 discs, 9 brains"
    after = match.handle({"event": "spin", "result": "red"})
    assert after is not None and not after.legal
    with pytest.raises(InputError, match="'values' must list the brains on each"):
        match.handle({"event": "discs", "player": 0, "values": [1]})
    shown = match.handle({"event": "discs", "player": 0, "values": [0, 0, 0]})
    assert shown is not None and shown.extra["winners"] == [0, 1]
    assert "Ann and Bob share the win" in shown.text


def test_settings_are_validated_with_one_line_messages(pieces_file):
    full = match_settings({"players": 3, "seed": 5})
    assert full["characters"] == ["red", "yellow", "green"]
    assert full["compulsory"] is True and full["block"] is False
    assert (full["finish_value"], full["hoard_value"], full["disc_values"]) == (5, 4, [1, 2, 3])
    assert full["lose"] == "lowest" and full["no_destination"] == "stay"
    for bad, message in (
        ({"players": 5}, "2 to 4 players"),
        ({"characters": ["red", "red"]}, "different stand colour"),
        ({"block": "yes"}, "'block' must be true or false"),
        ({"lose": "random"}, "'lose' must be one of lowest, ask"),
        ({"disc_values": []}, "'disc_values' must list"),
        ({"finish_value": -1}, "'finish_value' must be"),
        ({"pieces": pieces_file}, "give the 'layout'"),
        ({"layout": [{"piece": "p01", "cell": [0, 0], "rotation": 0}]}, "no finish piece"),
    ):
        with pytest.raises(InputError, match=message):
            match_settings(bad)


# --- whole games on the default labyrinth ---------------------------------------------------


def test_a_scripted_three_player_game_with_a_catch_and_an_illegal_move():
    match = LabyrinthMatch({"names": ["Ann", "Bob", "Cy"], "seed": 3})
    assert match.judge(match.state).text == (
        "The labyrinth is set up with 13 discs; Ann spins first."
    )
    texts = [play(match, "yellow", "p01.d1").text, play(match, "green", "p11.l1").text]
    play(match, "red")  # Cy tries to go past the red lantern on piece 7
    illegal = match.judge(match.board_after("p07.d1"))
    assert not illegal.legal
    assert illegal.text == (
        "Cy: the disc space on piece 7 is not a red lantern or a disc reachable without "
        "passing one."
    )
    texts.append(match.judge(match.board_after("p02.d2")).text)
    play(match, BIZARRE)  # Ann
    assert match.legal_destinations() == {"p02.d2", "p06.l1"}
    caught = match.judge(match.board_after("p02.d2"))
    assert caught.extra["losses"] == [{"player": 2, "disc": "p02.d2"}]
    state = match.state  # the table still shows him on Cy's space until he is carried home
    shown = make_board(state.layout, state.character_map, "p02.d2", state.discs)
    assert match.reconcile(shown) == match.state
    texts.append(caught.text)
    texts.append(play(match, "blue", "p11.d1").text)
    end = play(match, "blue", "p12.finish")  # Cy reaches the finish
    values = [match.disc_value("p01.d1"), match.disc_value("p11.d1")]
    assert texts == [
        "Ann spins yellow and goes to the disc space on piece 1 and collects the disc there; "
        "Bob to spin.",
        "Bob spins green and goes to the green lantern on piece 11; Cy to spin.",
        "Cy spins red and goes to the disc space on piece 2 and collects the disc there; "
        "Ann to spin.",
        "Ann spins Dr. Bizarre and he catches Cy on the disc space on piece 2; Cy is caught "
        "and sets a disc aside; Bob to spin.",
        "Bob spins blue and goes to the disc space on piece 11 and collects the disc there; "
        "Cy to spin.",
    ]
    assert match.finished and end.extra["winners"] == [2]
    assert end.text == (
        "Cy spins blue and goes to the finish disc space and collects the finish disc; "
        f"Ann {values[0]}, Bob {values[1]}, Cy 5 brains; Cy wins."
    )
    assert [p["detail"] for p in match.public_view()["players"]] == [
        f"red · 1 disc, {values[0]} brain{'' if values[0] == 1 else 's'}",
        f"yellow · 1 disc, {values[1]} brain{'' if values[1] == 1 else 's'}",
        "green · 1 disc, 5 brains",
    ]
    assert match.private_view(2)["items"][0]["value"] == 5


def _autoplay(seed: int) -> list[dict]:
    match = LabyrinthMatch({"players": 3, "seed": seed})
    out = [match.judge(match.state).to_json(0)]
    for turn in range(1, 120):
        if match.finished:
            break
        out.append(match.handle({"event": "spin"}).to_json(turn))
        if match.spin is not None:
            out.append(
                match.judge(match.board_after(min(match.legal_destinations()))).to_json(turn)
            )
    return out


def test_spins_and_disc_values_are_fixed_by_the_seed():
    assert _autoplay(5) == _autoplay(5)
    assert _autoplay(5) != _autoplay(6)
    one, two = LabyrinthMatch({"seed": 9}), LabyrinthMatch({"seed": 9})
    spaces = sorted(one.graph.disc_spaces())
    assert [one.disc_value(s) for s in spaces] == [two.disc_value(s) for s in spaces]
    assert {one.disc_value(s) for s in spaces} >= {1, 2, 3, 4, 5}


def test_the_public_view_offers_a_spin_and_names_the_player_to_move():
    match = LabyrinthMatch({"names": ["Ann", "Bob"], "seed": 2})
    match.judge(match.state)
    view = match.public_view()
    assert view["actions"] == [{"event": "spin", "label": "Spin for me"}]
    assert view["to_move"] == 0 and view["spin"] is None
    assert view["players"][0] == {
        "name": "Ann",
        "score": 0,
        "discs": 0,
        "set_aside": 0,
        "colour": "red",
        "detail": "red · 0 discs",
    }
    match.handle({"event": "spin", "result": "green"})
    view = match.public_view()
    assert view["spin"] == "green" and view["actions"] == []
    assert "Ann spun green" in view["summary"]
