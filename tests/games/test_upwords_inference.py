"""Which tiles were played, from two camera boards and the stack history."""

from __future__ import annotations

import pytest

from companion.games.upwords.inference import infer_placements
from companion.games.upwords.model import SIZE, Board, Square, Stacks
from companion.games.upwords.play import IllegalPlay, Placement, apply, empty_stacks

# MOOD across r4 c2-5, with a W on the M: r4c2 is 2 high
HISTORY: Stacks = apply(
    empty_stacks(),
    [Placement(4, 2, "M"), Placement(4, 3, "O"), Placement(4, 4, "O"), Placement(4, 5, "D")],
)
HISTORY = apply(HISTORY, [Placement(4, 2, "W")])
BEFORE = Board.from_stacks(HISTORY)


def seen(**squares: Square) -> Board:
    """BEFORE with some squares as the camera reads them (``r4c5=(2, "L")``)."""
    out = list(BEFORE.squares)
    for name, square in squares.items():
        out[int(name[1]) * SIZE + int(name[3])] = square
    return Board(tuple(out))


def test_new_letters_are_the_placements() -> None:
    placements, warnings = infer_placements(
        BEFORE, seen(r4c5=(2, "L"), r5c5=(1, "E"), r4c2=(3, "S")), HISTORY
    )
    assert placements == [Placement(4, 2, "S"), Placement(4, 5, "L"), Placement(5, 5, "E")]
    assert warnings == []


def test_a_misread_height_on_a_new_letter_trusts_history() -> None:
    placements, warnings = infer_placements(BEFORE, seen(r4c5=(1, "L")), HISTORY)
    assert placements == [Placement(4, 5, "L")]
    assert warnings == ["camera reads r4c5 as 1 high, history says 2"]


def test_a_misread_height_on_an_unchanged_square_is_only_a_warning() -> None:
    placements, warnings = infer_placements(
        BEFORE, seen(r4c2=(1, "W"), r4c3=(3, "O"), r3c3=(1, "A")), HISTORY
    )
    assert placements == [Placement(3, 3, "A")]
    assert warnings == [
        "camera reads r4c2 as 1 high, history says 2",
        "camera reads r4c3 as 3 high, history says 1",
    ]


@pytest.mark.parametrize(
    ("after", "reason"),
    [
        (seen(r4c3=(0, "")), "r4c3 lost a tile: a misread, or a tile was taken off"),
        (seen(r4c2=(1, "M")), "r4c2 lost a tile: a misread, or a tile was taken off"),
        (seen(r4c3=(3, "A")), "r4c3 rose by 2 tiles: one tile per stack per turn"),
        (seen(r6c6=(2, "A")), "r6c6 rose by 2 tiles: one tile per stack per turn"),
        (BEFORE, "no tile was played: no square shows a new letter"),
        (
            seen(r4c4=(2, "O")),
            "no tile was played: no square shows a new letter "
            "(camera reads r4c4 as 2 high, history says 1)",
        ),
    ],
)
def test_changes_no_misread_explains_are_illegal(after: Board, reason: str) -> None:
    with pytest.raises(IllegalPlay) as err:
        infer_placements(BEFORE, after, HISTORY)
    assert str(err.value) == reason
