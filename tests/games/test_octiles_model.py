"""The Octiles board graph (and its mirror image), positions and their JSON form."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import InputError
from companion.games.octiles.model import (
    COLOURS,
    SEATS,
    BoardGraph,
    Position,
    format_position,
    load_board,
    mirror_name,
    parse_position,
    same_look,
    seats,
    start_position,
)

# The table of games/octiles.md, copied by hand: what each octagon edge faces, N to NW.
TABLE = """
b5 @N3 P>c5.NW c5 SC5 b4 SB5 @N1 @N2
c5 @N4 @N5 P>d4.N SD5 c4 SC5 b5 P>b5.NE
b4 b5 SC5 c4 SC4 b3 SB4 P>a3.N SB5
c4 c5 SD5 d4 SD4 c3 SC4 b4 SC5
d4 P>c5.E SE5 e4 SE4 d3 SD4 c4 SD5
e4 @E1 @E2 @E3 P>e3.NE e3 SE4 d4 SE5
a3 P>b4.W SB4 b3 SB3 a2 P>a2.NW @W4 @W5
b3 b4 SC4 c3 SC3 b2 SB3 a3 SB4
c3 c4 SD4 d3 SD3 c2 SC3 b3 SC4
d3 d4 SE4 e3 SE3 d2 SD3 c3 SD4
e3 e4 P>e4.SE @E4 @E5 P>d2.E SE3 d3 SE4
a2 a3 SB3 b2 SB2 @W1 @W2 @W3 P>a3.SW
b2 b3 SC3 c2 SC2 P>c1.W SB2 a2 SB3
c2 c3 SD3 d2 SD2 c1 SC2 b2 SC3
d2 d3 SE3 P>e3.S SE2 d1 SD2 c2 SD3
c1 c2 SD2 d1 P>d1.SW @S4 @S5 P>b2.S SC2
d1 d2 SE2 @S1 @S2 @S3 P>c1.SE c1 SD2
"""
EDGE = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")


def _expected_links() -> dict[str, list[object]]:
    out: dict[str, list[object]] = {}
    for line in TABLE.strip().splitlines():
        space, *faces = line.split()
        row: list[object] = []
        for edge, face in enumerate(faces):
            if face.startswith("P>"):
                other, name = face[2:].split(".")
                row.append((other, EDGE.index(name)))
            elif face[0] in "abcde":
                row.append((face, (edge + 4) % 8))  # neighbours touch through opposite edges
            else:
                row.append(face)
        out[space] = row
    return out


def _check_matching(board: BoardGraph) -> None:
    kinds = {"octagon": 0, "printed": 0, "stop": 0, "circle": 0}
    for space, links in board.links.items():
        assert len(links) == 8
        for edge, link in enumerate(links):
            if isinstance(link, str):
                kinds["stop" if link.startswith("S") else "circle"] += 1
                assert (space, edge) in board.exits[link]
                continue
            other, back = link
            assert board.links[other][back] == (space, edge), (space, edge)
            printed = frozenset({(space, edge), link}) in board.printed
            kinds["printed" if printed else "octagon"] += 1
    assert kinds == {"octagon": 48, "printed": 16, "stop": 52, "circle": 20}
    centres = {board.coords[s] for s in board.spaces}
    for place, exits in board.exits.items():
        if place.startswith("@"):
            assert len(exits) == 1
            continue
        # a stop touches every octagon diagonally next to it (2 at corners, 3 by a gap)
        x, y = board.coords[place]
        near = {(x + dx, y + dy) for dx in (-0.5, 0.5) for dy in (-0.5, 0.5)} & centres
        assert len(exits) == len(near) and len(near) in (2, 3, 4), place
        assert {board.coords[s] for s, _ in exits} == near


def _check_names(board: BoardGraph) -> None:
    """Names tell where a thing lies: a..e = x -2..2, rows 1..5 = y -2..2, circles clockwise."""
    for space in board.spaces:
        x, y = board.coords[space]
        assert (x, y) == ("abcde".index(space[0]) - 2, int(space[1]) - 3)
    for stop in board.stops:
        x, y = board.coords[stop]
        assert (x, y) == ("BCDE".index(stop[1]) - 1.5, int(stop[2]) - 3.5)
    direction = {"W": (0, 1), "N": (1, 0), "E": (0, -1), "S": (-1, 0)}
    for side, (dx, dy) in direction.items():
        circles = board.circles_of(side)
        assert [c[2] for c in circles] == list("12345")
        along = [board.coords[c][0] * dx + board.coords[c][1] * dy for c in circles]
        assert along == sorted(along)


def test_board_matches_the_table_of_the_notes() -> None:
    board = load_board()
    assert len(board.spaces) == 17 and len(board.stops) == 16 and len(board.circles) == 20
    assert {s: list(links) for s, links in board.links.items()} == _expected_links()
    _check_matching(board)
    _check_names(board)


def test_mirror_is_still_a_perfect_matching_with_names_by_position() -> None:
    mirrored = load_board(mirror=True)
    _check_matching(mirrored)
    _check_names(mirrored)
    assert mirrored.mirrored and "a4" in mirrored.spaces and "a2" not in mirrored.spaces
    # a2's south edge faces @W1; in the mirror e2's south edge faces the last east circle
    assert mirrored.links["e2"][4] == "@E5"
    assert mirrored.links["e3"][2] == "@E2"  # a3.W faces @W4


def test_mirror_of_mirror_is_the_identity() -> None:
    board, twice = load_board(), load_board(mirror=True).mirror()
    assert twice.links == board.links
    assert twice.coords == board.coords
    assert twice.printed == board.printed
    assert twice.exits == board.exits
    assert twice.spaces == board.spaces and twice.circles == board.circles
    assert twice.pocket == board.pocket and not twice.mirrored
    for name in board.coords:
        assert mirror_name(mirror_name(name)) == name


def test_seats_and_colours() -> None:
    assert seats(2) == ("W", "E") and seats(3) == ("W", "N", "E") and len(seats(4)) == 4
    assert COLOURS == {"W": "blue", "N": "red", "E": "yellow", "S": "green"}
    assert set(SEATS) == {2, 3, 4}
    with pytest.raises(InputError):
        seats(5)


FACES = st.one_of(st.none(), st.tuples(st.integers(1, 18), st.integers(0, 7)))
BOARD = load_board()


@st.composite
def positions(draw: st.DrawFn) -> Position:
    faces = {space: draw(FACES) for space in BOARD.spaces}
    places = draw(st.lists(st.sampled_from(BOARD.places()), unique=True, max_size=20))
    runners = {p: draw(st.sampled_from(sorted(COLOURS.values()))) for p in places}
    return Position.make(faces, runners, draw(st.one_of(st.none(), st.integers(1, 18))))


@settings(max_examples=60, deadline=None)
@given(positions())
def test_json_round_trip(position: Position) -> None:
    obj = format_position(position)
    assert parse_position(json.loads(json.dumps(obj))) == position
    assert format_position(parse_position(obj)) == obj
    assert len(obj["spaces"]) == 17 and obj["game"] == "octiles"
    assert hash(position) == hash(parse_position(obj))


def test_json_form_is_the_design_form() -> None:
    position = start_position(BOARD, ("W", "E"), (1, 5)).with_spaces({"a2": (7, 3)}).with_pocket(5)
    obj = format_position(position)
    assert obj["spaces"]["a2"] == {"tile": 7, "rotation": 3}
    assert obj["spaces"]["c3"] == {"face_down": True}
    assert obj["runners"] == {"@E1": "yellow", "@E5": "yellow", "@W1": "blue", "@W5": "blue"}
    assert obj["pocket"] == {"tile": 5}
    assert format_position(position.with_pocket(None))["pocket"] is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"game": "amoeba"}, "expected an octiles state"),
        ({"spaces": {"a2": {"face_down": True}}}, "each of the 17 spaces"),
        ({"spaces.a2": {"tile": 19, "rotation": 0}}, "tiles are 1-18"),
        ({"spaces.a2": {"tile": 3, "rotation": 8}}, "rotations 0-7"),
        ({"spaces.a2": {"tile": 3}}, "expected"),
        ({"spaces.a2": {"face_down": False}}, "expected"),
        ({"spaces.a2": {"tile": True, "rotation": 0}}, "expected"),
        ({"runners": {"SA1": "blue"}}, "no such stop or circle"),
        ({"runners": {"SB2": "purple"}}, "colours are"),
        ({"runners": []}, "place -> colour"),
        ({"pocket": {"tile": 0}}, "'pocket'"),
        ({"pocket": 5}, "'pocket'"),
        ({"pocket": "missing"}, "no 'pocket'"),
    ],
)
def test_parse_refuses_malformed_states_in_one_line(change: dict, message: str) -> None:
    obj = format_position(start_position(BOARD, ("W", "E")).with_pocket(4))
    for key, value in change.items():
        if key.startswith("spaces."):
            obj["spaces"][key[7:]] = value
        elif value == "missing":
            del obj[key]
        else:
            obj[key] = value
    with pytest.raises(InputError, match=message) as err:
        parse_position(obj)
    assert "\n" not in str(err.value)


def test_parse_checks_names_against_the_mirrored_board() -> None:
    obj = format_position(start_position(BOARD, ("W", "E")))
    with pytest.raises(InputError, match="17 spaces"):
        parse_position(obj, load_board(mirror=True))
    mirrored = load_board(mirror=True)
    position = start_position(mirrored, ("W", "E"))
    assert parse_position(format_position(position), mirrored) == position


def test_same_look_ignores_equal_rotations_of_symmetric_tiles() -> None:
    base = start_position(BOARD, ("W", "E")).with_pocket(2)
    assert same_look(base.with_spaces({"c3": (1, 0)}), base.with_spaces({"c3": (1, 5)}))
    assert same_look(base.with_spaces({"c3": (3, 1)}), base.with_spaces({"c3": (3, 7)}))
    assert base.with_spaces({"c3": (1, 0)}) != base.with_spaces({"c3": (1, 5)})
    assert not same_look(base.with_spaces({"c3": (3, 0)}), base.with_spaces({"c3": (3, 1)}))
    assert not same_look(base.with_spaces({"c3": (7, 0)}), base.with_spaces({"c3": (7, 4)}))
    assert not same_look(base, base.with_spaces({"c3": (1, 0)}))
    assert not same_look(base, base.with_pocket(3))
    assert not same_look(base, base.with_runners({}))
