"""One Upwords play on its own: the tiles put down, the words they make, whether the rules allow
them and what they score.

It knows nothing of turns, players or the bag, so the three that need it stand on it alone: the
match (rules.py) judges each settled board with it, inference.py names the tiles a board added
as its ``Placement``s, and the rack helper (generator.py) tries candidate plays with
``evaluate`` and ``apply``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from companion.games.upwords.dictionary import Dictionary
from companion.games.upwords.model import (
    CENTRE,
    LETTERS,
    MAX_HEIGHT,
    SIZE,
    TILE_COUNTS,
    Stacks,
    cell_name,
)

RACK = 7
"""Tiles on a rack: the most one turn can play, and the +20 bonus for playing them all."""
ALL_TILES_BONUS = 20

_ACROSS = (0, 1)
_DOWN = (1, 0)


class IllegalPlay(ValueError):
    """A play the rules forbid; ``str(err)`` is the reason in words a player understands."""


@dataclass(frozen=True)
class Placement:
    """One tile put down this turn, on an empty square or on top of a stack."""

    row: int
    col: int
    letter: str


@dataclass(frozen=True)
class Word:
    """A word the play formed, read left to right or top to bottom, and what it scores."""

    text: str
    cells: tuple[tuple[int, int], ...]
    score: int


@dataclass(frozen=True)
class Play:
    """A legal play: its words (the one along the tiles first) and its score, ``bonus`` included."""

    placements: tuple[Placement, ...]
    words: tuple[Word, ...]
    score: int
    bonus: int


def empty_stacks() -> Stacks:
    """The history of an empty board."""
    return ((),) * (SIZE * SIZE)


def apply(stacks: Stacks, placements: Iterable[Placement]) -> Stacks:
    """The history after ``placements`` (not checked: ``evaluate`` first)."""
    out = list(stacks)
    for p in placements:
        out[p.row * SIZE + p.col] = (*out[p.row * SIZE + p.col], p.letter)
    return tuple(out)


def tile_counts(stacks: Stacks) -> Counter[str]:
    """How many tiles of each letter are on the board, covered ones included."""
    return Counter(letter for stack in stacks for letter in stack)


def evaluate(
    stacks: Stacks, placements: Sequence[Placement], dictionary: Dictionary, *, first: bool
) -> Play:
    """Check a play against every turn rule and score it; ``IllegalPlay`` says what is wrong.

    ``first`` is the opening play (the board is empty), which must cover a centre square instead
    of connecting to tiles already down.
    """
    placed = tuple(placements)
    _check_tiles(stacks, placed)
    cells = [(p.row, p.col) for p in placed]
    direction = _direction(cells)
    after = apply(stacks, placed)
    if direction is not None:
        _check_gaps(after, cells, direction)
    if first:
        if not CENTRE.intersection(cells):
            raise IllegalPlay("the first word must cover a centre square")
    elif not _connected(stacks, cells):
        raise IllegalPlay("the word must connect to the tiles already on the board")
    words = _words(after, cells, direction)
    if not words:
        raise IllegalPlay("a play must make a word of two letters or more")
    if direction is not None:
        _check_cover(stacks, cells, direction)
    _check_plural(stacks, placed, words)
    wrong = [w.text for w in words if w.text not in dictionary]
    if len(wrong) == 1:
        raise IllegalPlay(f"{wrong[0]} is not a word")
    if wrong:
        raise IllegalPlay(f"{', '.join(wrong[:-1])} and {wrong[-1]} are not words")
    bonus = ALL_TILES_BONUS if len(placed) == RACK else 0
    return Play(placed, words, sum(w.score for w in words) + bonus, bonus)


def _check_tiles(stacks: Stacks, placed: tuple[Placement, ...]) -> None:
    """The rules about the tiles themselves, in this order: count, squares and letters, one
    line, stacking, the set."""
    _check_count(placed)
    _check_squares(placed)
    _check_stacking(stacks, placed)
    _check_set(stacks, placed)


def _check_count(placed: tuple[Placement, ...]) -> None:
    if not placed:
        raise IllegalPlay("no tile was played")
    if len(placed) > RACK:
        raise IllegalPlay(f"a rack holds {RACK} tiles, but {len(placed)} were played")


def _check_squares(placed: tuple[Placement, ...]) -> None:
    """Each tile a letter of the set on a square of the board, one a stack, all in one line."""
    for p in placed:
        if not (0 <= p.row < SIZE and 0 <= p.col < SIZE):
            raise IllegalPlay(f"r{p.row}c{p.col} is not a square of the board")
        if p.letter not in LETTERS:
            raise IllegalPlay(f"{p.letter!r} is not an upwords tile")
    cells = [(p.row, p.col) for p in placed]
    if len(set(cells)) != len(cells):
        raise IllegalPlay("only one tile per stack per turn")
    if len({r for r, _ in cells}) > 1 and len({c for _, c in cells}) > 1:
        raise IllegalPlay("the tiles must be in one row or one column")


def _check_stacking(stacks: Stacks, placed: tuple[Placement, ...]) -> None:
    """No letter on itself, no stack above the highest."""
    for p in placed:
        stack = stacks[p.row * SIZE + p.col]
        if stack and stack[-1] == p.letter:
            tile = _a(p.letter)
            raise IllegalPlay(f"{tile} on {tile} at {cell_name(p.row, p.col)}")
        if len(stack) >= MAX_HEIGHT:
            raise IllegalPlay(f"stacks are at most {MAX_HEIGHT} tiles high")


def _check_set(stacks: Stacks, placed: tuple[Placement, ...]) -> None:
    """No more of a letter on the board than the set holds."""
    counts = tile_counts(stacks)
    counts.update(p.letter for p in placed)
    for letter in dict.fromkeys(p.letter for p in placed):
        limit = TILE_COUNTS[letter]
        if counts[letter] > limit:
            many = f"is only 1 {letter}" if limit == 1 else f"are only {limit} {letter}s"
            raise IllegalPlay(f"there {many} in the set")


def _a(letter: str) -> str:
    """'an A', 'an F', 'a B': the article goes by how the letter's name sounds."""
    return f"an {letter}" if letter[0] in "AEFHILMNORSX" else f"a {letter}"


def _direction(cells: list[tuple[int, int]]) -> tuple[int, int] | None:
    """The line the tiles lie on; None for a single tile (it may make a word either way)."""
    if len(cells) == 1:
        return None
    return _ACROSS if len({r for r, _ in cells}) == 1 else _DOWN


def _check_gaps(after: Stacks, cells: list[tuple[int, int]], direction: tuple[int, int]) -> None:
    first, last = min(cells), max(cells)
    dr, dc = direction
    row, col = first
    while (row, col) != last:
        if not after[row * SIZE + col]:
            raise IllegalPlay(f"there is a gap at {cell_name(row, col)}")
        row, col = row + dr, col + dc


def _connected(stacks: Stacks, cells: list[tuple[int, int]]) -> bool:
    """Some tile goes on a stack or next to one (tiles between played ones touch them too)."""
    for row, col in cells:
        for r, c in ((row, col), (row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
            if 0 <= r < SIZE and 0 <= c < SIZE and stacks[r * SIZE + c]:
                return True
    return False


def _run(
    stacks: Stacks, cell: tuple[int, int], direction: tuple[int, int]
) -> list[tuple[int, int]]:
    """The maximal line of occupied squares through ``cell``, in reading order."""
    dr, dc = direction
    row, col = cell
    while row >= dr and col >= dc and stacks[(row - dr) * SIZE + col - dc]:
        row, col = row - dr, col - dc
    run = []
    while row < SIZE and col < SIZE and stacks[row * SIZE + col]:
        run.append((row, col))
        row, col = row + dr, col + dc
    return run


def _words(
    after: Stacks, cells: list[tuple[int, int]], direction: tuple[int, int] | None
) -> tuple[Word, ...]:
    """Every word through a played tile: the one along the tiles first, then those across them."""
    if direction is None:
        runs = [_run(after, cells[0], _ACROSS), _run(after, cells[0], _DOWN)]
    else:
        across = _DOWN if direction == _ACROSS else _ACROSS
        runs = [_run(after, cells[0], direction)] + [_run(after, cell, across) for cell in cells]
    return tuple(_word(after, run) for run in runs if len(run) >= 2)


def _word(after: Stacks, run: list[tuple[int, int]]) -> Word:
    """Flat words score 2 a tile (+2 with the Qu); stacked ones 1 a tile in each stack."""
    stacks = [after[r * SIZE + c] for r, c in run]
    text = "".join(stack[-1] for stack in stacks)
    if all(len(stack) == 1 for stack in stacks):
        score = 2 * len(stacks) + (2 if any(stack[-1] == "QU" for stack in stacks) else 0)
    else:
        score = sum(len(stack) for stack in stacks)
    return Word(text, tuple(run), score)


def _check_cover(stacks: Stacks, cells: list[tuple[int, int]], direction: tuple[int, int]) -> None:
    """A word along the play may be changed, but one of its letters must stay uncovered."""
    played = set(cells)
    for cell in cells:
        if stacks[cell[0] * SIZE + cell[1]]:
            old = _run(stacks, cell, direction)
            if len(old) >= 2 and played.issuperset(old):
                text = "".join(stacks[r * SIZE + c][-1] for r, c in old)
                raise IllegalPlay(
                    f"you cannot cover a whole word: {text} would be covered entirely"
                )


def _check_plural(stacks: Stacks, placed: tuple[Placement, ...], words: tuple[Word, ...]) -> None:
    """One S added at the end of a word, making no other word, only pluralises it."""
    if len(placed) != 1 or len(words) != 1:
        return
    tile, word = placed[0], words[0]
    cell = (tile.row, tile.col)
    added = tile.letter == "S" and not stacks[tile.row * SIZE + tile.col]
    if added and word.cells[-1] == cell and len(word.cells) >= 3:
        raise IllegalPlay(f"adding only an S to make a plural ({word.text}) is not allowed")
