"""Which tiles a player put down, from two camera views of the board and the game's history.

The camera sees each square's top letter reliably and its height less so (a stack's height is
read from perspective cues).  So a changed top letter is what says a tile was played, and the
height comes from history: a misread height becomes a warning for the page, not a verdict.
Only changes no misread can explain (a letter change with a stack that shrank or grew by two)
make the play illegal.
"""

from __future__ import annotations

from companion.games.upwords.model import SIZE, Board, Stacks, cell_name
from companion.games.upwords.play import IllegalPlay, Placement


def infer_placements(
    before: Board, after: Board, stacks: Stacks
) -> tuple[list[Placement], list[str]]:
    """The tiles played between ``before`` and ``after``, and the height warnings.

    ``before`` is the board the match last accepted (its letters are compared with ``after``);
    ``stacks`` is the history behind it (its heights are what ``after``'s heights should be).
    Raises ``IllegalPlay`` when a square lost a tile, rose by two or more, or nothing changed.
    """
    placements: list[Placement] = []
    warnings: list[str] = []
    for index in range(SIZE * SIZE):
        row, col = divmod(index, SIZE)
        name = cell_name(row, col)
        height = len(stacks[index])
        seen_height, seen_letter = after.squares[index]
        if seen_letter == before.squares[index][1]:
            if seen_height != height:
                warnings.append(f"camera reads {name} as {seen_height} high, history says {height}")
            continue
        if seen_height < height or seen_height == 0:
            raise IllegalPlay(f"{name} lost a tile: a misread, or a tile was taken off")
        if seen_height >= height + 2:
            raise IllegalPlay(
                f"{name} rose by {seen_height - height} tiles: one tile per stack per turn"
            )
        if seen_height != height + 1:
            warnings.append(f"camera reads {name} as {seen_height} high, history says {height + 1}")
        placements.append(Placement(row, col, seen_letter))
    if not placements:
        detail = f" ({'; '.join(warnings)})" if warnings else ""
        raise IllegalPlay(f"no tile was played: no square shows a new letter{detail}")
    return placements, warnings
