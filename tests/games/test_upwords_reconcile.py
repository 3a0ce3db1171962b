"""Heights come from history where the camera cannot see them well (UpwordsMatch.reconcile)."""

from __future__ import annotations

from companion.games.upwords.model import Board
from companion.games.upwords.play import Placement, apply, empty_stacks
from companion.games.upwords.rules import UpwordsMatch


def _match_with_stack() -> tuple[UpwordsMatch, tuple]:
    """MOOD across r4 c2-5, then W on the M: r4c2 holds M under W."""
    match = UpwordsMatch({"players": 2, "seed": 1})
    match.judge(Board.empty())
    mood = apply(empty_stacks(), [Placement(4, 2 + i, ch) for i, ch in enumerate("MOOD")])
    assert match.judge(Board.from_stacks(mood)).legal
    wood = apply(mood, [Placement(4, 2, "W")])
    assert match.judge(Board.from_stacks(wood)).legal
    return match, wood


def _with(board: Board, index: int, square: tuple[int, str]) -> Board:
    squares = list(board.squares)
    squares[index] = square
    return Board(tuple(squares))


def test_an_unchanged_letter_keeps_its_known_height() -> None:
    match, wood = _match_with_stack()
    seen = _with(Board.from_stacks(wood), 42, (4, "W"))  # camera says 4 high
    before = match.public_view()
    assert match.reconcile(seen) == Board.from_stacks(wood)
    assert match.notes_on(seen) == ["camera reads r4c2 as 4 high, history says 2"]
    assert match.public_view() == before  # reading the camera changes nothing in the match


def test_a_new_letter_is_one_tile_higher_than_before() -> None:
    match, wood = _match_with_stack()
    after = apply(wood, [Placement(4, 2, "H")])  # HOOD: H on the W, height 3
    seen = _with(Board.from_stacks(after), 42, (2, "H"))
    assert match.reconcile(seen) == Board.from_stacks(after)
    assert match.judge(match.reconcile(seen)).legal


def test_a_tile_taken_off_is_left_for_the_rules_to_refuse() -> None:
    match, wood = _match_with_stack()
    seen = _with(Board.from_stacks(wood), 42, (1, "M"))  # the W lifted off again
    assert match.reconcile(seen) == seen
    verdict = match.judge(seen)
    assert not verdict.legal and "lost a tile" in verdict.reason
