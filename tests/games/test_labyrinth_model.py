"""The assembled labyrinth: layouts, the joined graph, reachability and the state's JSON form."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import InputError
from companion.games.labyrinth.catalog import PORT_AT, PORTS, default_catalog
from companion.games.labyrinth.model import (
    CHARACTER_COLOURS,
    Placement,
    default_layout,
    format_board,
    graph_of,
    make_board,
    make_layout,
    parse_board,
    reachable,
    reachable_from,
    rotate_point,
    rotate_side,
    set_up_board,
)


def test_default_layout_is_three_rows_of_four_and_reachable():
    layout = default_layout()
    assert {(p.row, p.col) for p in layout} == {(r, c) for r in range(3) for c in range(4)}
    assert {p.piece for p in layout} == set(default_catalog().ids)
    graph = reachable(layout)
    near = reachable_from(graph, graph.start)
    assert graph.finish in near and graph.home in near
    assert set(graph.spaces) <= near  # the default labyrinth has no unreachable corner


def test_touching_ports_join_and_unmatched_ports_are_dead_ends():
    graph = graph_of(default_layout())
    # p01 (cell 0,0, unturned) opens east onto p04 (cell 0,1, unturned), which opens west
    assert "p04.W" in graph.adj["p01.E"]
    # p01's north and west sides face the table edge: the paths end there
    assert graph.adj["p01.N"] == {"p01.l1"}
    assert graph.adj["p01.W"] == {"p01.l3"}
    # p03 turned twice sits at (0, 3): its own north opens south onto p09 turned once, whose
    # own west faces north
    assert "p09.W" in graph.adj["p03.N"]


def test_rotation_moves_ports_and_points_together():
    for side in PORTS:
        for rotation in range(4):
            turned = rotate_point(PORT_AT[side], rotation)
            assert turned == pytest.approx(PORT_AT[rotate_side(side, rotation)])
    assert rotate_side("N", 1) == "E"
    assert rotate_point((0.1, 0.2), 4) == pytest.approx((0.1, 0.2))


def test_space_points_follow_rotation_into_board_units():
    layout = make_layout(
        [Placement(0, 0, "p01", 0), Placement(0, 1, "p12", 1), Placement(1, 0, "p06", 0)]
    )
    graph = graph_of(layout)
    # p12's finish at (0.68, 0.68) turned a quarter clockwise -> (0.32, 0.68), one cell east
    assert graph.points["p12.finish"] == pytest.approx((1.32, 0.68))
    assert graph.points["p01.start"] == pytest.approx((0.5, 0.5))


def test_a_cut_off_finish_is_refused():
    layout = make_layout(
        [Placement(0, 0, "p01", 0), Placement(0, 1, "p12", 2), Placement(1, 0, "p06", 0)]
    )
    with pytest.raises(InputError, match="finish cannot be reached from the start"):
        reachable(layout)
    joined = make_layout(
        [Placement(0, 0, "p01", 0), Placement(0, 1, "p12", 0), Placement(1, 0, "p06", 0)]
    )
    assert reachable(joined).finish == "p12.finish"


def test_a_layout_without_the_home_piece_is_refused():
    layout = make_layout([Placement(0, 0, "p01", 0), Placement(0, 1, "p12", 0)])
    with pytest.raises(InputError, match="no home piece"):
        reachable(layout)


@pytest.mark.parametrize(
    ("placements", "message"),
    [
        ([], "no pieces"),
        ([Placement(0, 0, "p01", 0), Placement(0, 1, "p01", 0)], "placed twice"),
        ([Placement(0, 0, "p01", 0), Placement(0, 0, "p02", 0)], "two pieces lie on cell"),
        ([Placement(0, 0, "p01", 0), Placement(0, 2, "p02", 0)], "touches no other piece"),
        ([Placement(0, 0, "p01", 4)], "rotation 4"),
        ([Placement(0, 0, "p99", 0)], "no piece 'p99'"),
    ],
)
def test_impossible_layouts_are_refused(placements, message):
    with pytest.raises(InputError, match=message):
        make_layout(placements)


def test_set_up_board_places_what_the_seed_says():
    board = set_up_board(default_layout(), ["red", "green"])
    graph = graph_of(board.layout)
    assert board.character_map == {"red": graph.start, "green": graph.start}
    assert board.bizarre == graph.home
    assert {graph.finish, graph.home} <= board.discs
    empty = graph.disc_spaces() - board.discs
    assert 0 < len(empty) < len(board.discs)


SPACES = sorted(graph_of(default_layout()).spaces)
DISC_SPACES = sorted(graph_of(default_layout()).disc_spaces())


@st.composite
def boards(draw):
    cells = draw(st.permutations([(r, c) for r in range(3) for c in range(4)]))
    rotations = draw(st.lists(st.integers(0, 3), min_size=12, max_size=12))
    layout = make_layout(
        Placement(r, c, pid, rot)
        for (r, c), pid, rot in zip(cells, default_catalog().ids, rotations, strict=True)
    )
    colours = draw(st.lists(st.sampled_from(CHARACTER_COLOURS), unique=True, max_size=4))
    characters = {c: draw(st.sampled_from(SPACES)) for c in colours}
    bizarre = draw(st.none() | st.sampled_from(SPACES))
    discs = draw(st.sets(st.sampled_from(DISC_SPACES)))
    return make_board(layout, characters, bizarre, discs)


@settings(max_examples=60, deadline=None)
@given(boards())
def test_json_form_round_trips(board):
    obj = format_board(board)
    assert parse_board(obj) == board
    assert format_board(parse_board(obj)) == obj
    assert hash(parse_board(obj)) == hash(board)


def test_json_form_looks_as_documented():
    board = set_up_board(default_layout(), ["red"])
    obj = format_board(board)
    assert obj["game"] == "labyrinth"
    assert obj["layout"][0] == {"piece": "p01", "cell": [0, 0], "rotation": 0}
    assert obj["characters"] == {"red": "p01.start"}
    assert obj["bizarre"] == "p06.home"
    assert "p12.finish" in obj["discs"]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"game": "amoeba"}, '"game": "labyrinth"'),
        ({"layout": "p01"}, '"layout" must list'),
        ({"layout": [{"piece": "p01", "cell": [0], "rotation": 0}]}, "use \\[row, col\\]"),
        ({"layout": [{"piece": "p01", "cell": [0, 0], "rotation": 5}]}, "rotation 5"),
        ({"characters": {"pink": "p01.start"}}, "no 'pink' character"),
        ({"characters": {"red": "p01.N"}}, "no space of this labyrinth"),
        ({"bizarre": "p13.home"}, "Dr. Bizarre is on"),
        ({"discs": ["p01.l1"]}, "not a disc space"),
        ({"discs": ["p01.d1", "p01.d1"]}, "listed twice"),
    ],
)
def test_malformed_states_are_refused_in_one_line(change, message):
    obj = format_board(set_up_board(default_layout(), ["red"])) | change
    with pytest.raises(InputError, match=message) as err:
        parse_board(obj)
    assert "\n" not in str(err.value)


def test_bench_tallies_layout_figures_and_discs_apart() -> None:
    from dataclasses import replace

    import numpy as np

    from companion.games.labyrinth import LabyrinthGame

    game = LabyrinthGame()
    truth = game.lab.random_state(np.random.default_rng(3))
    same = game.lab.reading_errors(truth, truth)
    assert all(wrong == 0 for wrong, _ in same.values())
    assert same["layout"][1] == len(truth.layout)
    assert same["cells"][1] == same["figures"][1] + same["discs"][1]
    colour, space = sorted(truth.character_map.items())[0]
    other = next(s for s in game.cell_choices(colour) if s and s != space)
    moved = game.with_cells(truth, {colour: other, sorted(truth.discs)[0]: ""})
    errors = game.lab.reading_errors(truth, moved)
    assert (errors["figures"][0], errors["discs"][0], errors["layout"][0]) == (1, 1, 0)
    first, *rest = truth.layout
    turned = replace(truth, layout=(replace(first, rotation=(first.rotation + 1) % 4), *rest))
    assert game.lab.reading_errors(truth, turned)["layout"][0] == 1
