"""Runner paths: across tiles and printed segments to the first stop or circle."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.octiles.model import Face, load_board
from companion.games.octiles.paths import follow, paths_from, reverse

BOARD = load_board()
DOWN: dict[str, Face] = dict.fromkeys(BOARD.spaces)


def test_a_path_into_a_face_down_tile_is_void() -> None:
    (path,) = paths_from(BOARD, DOWN, "@W1")
    assert path.end is None and path.void == "a2" and path.steps == ()
    assert path.names() == ["@W1", "a2"]


def test_one_tile_from_a_circle_to_a_stop() -> None:
    # tile 7 at rotation 0 joins S to NE: @W1 enters a2 at S and leaves to SB3
    (path,) = paths_from(BOARD, {**DOWN, "a2": (7, 0)}, "@W1")
    assert path.end == "SB3" and path.steps == (("a2", 4, 1),)
    assert path.names() == ["@W1", "a2", "SB3"]
    assert path.crosses("a2") and not path.crosses("a3")


def test_a_long_path_over_a_printed_segment() -> None:
    # a3: tile 11 at 6 joins W-N, then the printed segment to b4.W; b4: tile 1 W-E;
    # c4: tile 18 at 0 joins W-NW, which faces stop SC5.
    spaces = {**DOWN, "a3": (11, 6), "b4": (1, 0), "c4": (18, 0)}
    (path,) = paths_from(BOARD, spaces, "@W4")
    assert path.names() == ["@W4", "a3", "b4", "c4", "SC5"]
    assert path.steps == (("a3", 6, 0), ("b4", 6, 2), ("c4", 6, 7))
    back = reverse(BOARD, spaces, path)
    assert back.names() == ["SC5", "c4", "b4", "a3", "@W4"]


def test_a_path_ends_at_the_first_place_even_a_circle() -> None:
    # tile 8 at 0 joins W-NW: from @W4 straight into the neighbouring circle @W5
    (path,) = paths_from(BOARD, {**DOWN, "a3": (8, 0)}, "@W4")
    assert path.end == "@W5"


def test_a_stop_has_one_path_per_octagon_it_touches() -> None:
    spaces = {**DOWN, "a2": (18, 0), "a3": (16, 7)}
    paths = {p.exit: p for p in paths_from(BOARD, spaces, "SB3")}
    assert set(paths) == {("a2", 1), ("a3", 3), ("b2", 7), ("b3", 5)}
    # out through a2 (NE-N), into a3 (S-SE) and back into the same stop
    assert paths[("a2", 1)].names() == ["SB3", "a2", "a3", "SB3"]
    assert paths[("b2", 7)].end is None


def test_a_void_path_cannot_be_reversed() -> None:
    (path,) = paths_from(BOARD, DOWN, "@W1")
    with pytest.raises(ValueError, match="face-down"):
        reverse(BOARD, DOWN, path)


FULL = st.fixed_dictionaries(
    {s: st.tuples(st.integers(1, 18), st.integers(0, 7)) for s in BOARD.spaces}
)


@settings(max_examples=60, deadline=None)
@given(FULL, st.booleans())
def test_paths_pair_up_every_exit_and_walk_back_to_their_start(
    spaces: dict[str, Face], mirror: bool
) -> None:
    board = load_board(mirror)
    spaces = {name: face for name, face in zip(board.spaces, spaces.values(), strict=True)}
    ends: dict[tuple[str, tuple[str, int]], tuple[str, tuple[str, int]]] = {}
    for place in board.places():
        for exit in board.exits[place]:
            path = follow(board, spaces, place, exit)
            assert path.end is not None and path.steps
            for space, _, out in path.steps[:-1]:
                assert not isinstance(board.links[space][out], str)  # no place passed
            back = reverse(board, spaces, path)
            assert back.end == place and back.steps[-1][:2] == (exit[0], path.steps[0][2])
            assert back.spaces == path.spaces[::-1]
            last_space, _, last_out = path.steps[-1]
            ends[(place, exit)] = (path.end, (last_space, last_out))
    for start, end in ends.items():
        assert ends[end] == start  # every exit is the other end of exactly one path
