"""The Upwords board: 10x10 squares, each empty or a stack of 1-5 letter tiles.

What the camera sees of a square is its height and its top letter; that pair is the board
state of design.md (``"3E"``).  The letters under the top are known only from the game's
history, which the rules keep as ``Stacks`` (every square's letters, bottom first).  ``QU`` is
one tile: the letter "QU" on one square.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.errors import InputError

SIZE = 10
MAX_HEIGHT = 5
CENTRE = frozenset({(4, 4), (4, 5), (5, 4), (5, 5)})
TILE_THICKNESS = 0.16
"""A tile's thickness in cells: a stack of h tiles has its top face h * TILE_THICKNESS above the
board, which is where the drawings put it and where the reader looks for it."""
LETTERS: tuple[str, ...] = (*"ABCDEFGHIJKLMNOP", "QU", *"RSTUVWXYZ")
"""The 26 tile faces: no plain Q, and QU is a single tile."""
TILE_COUNTS: dict[str, int] = {
    **dict.fromkeys(["J", "QU", "V", "X", "Z"], 1),
    **dict.fromkeys(["K", "W", "Y"], 2),
    **dict.fromkeys(["B", "F", "G", "H", "P"], 3),
    "C": 4,
    **dict.fromkeys(["D", "L", "M", "N", "R", "T", "U"], 5),
    "S": 6,
    **dict.fromkeys(["A", "I", "O"], 7),
    "E": 8,
}
"""The 100-tile set (games/upwords.md)."""

Square = tuple[int, str]
"""(height, top letter); (0, "") is an empty square."""
EMPTY: Square = (0, "")

Stacks = tuple[tuple[str, ...], ...]
"""Every square's letters bottom first, row-major: what the rules know from history."""


def cell_name(row: int, col: int) -> str:
    """The name of a square in moves, corrections and on the page: ``r3c4``."""
    return f"r{row}c{col}"


def parse_cell(name: str) -> tuple[int, int]:
    """``"r3c4"`` -> (3, 4); ``InputError`` for anything else."""
    if len(name) == 4 and name[0] == "r" and name[2] == "c":
        row, col = name[1], name[3]
        if row.isdecimal() and col.isdecimal():
            return int(row), int(col)
    raise InputError(f"no square {name!r} on the upwords board: names run from r0c0 to r9c9")


def parse_square(text: str) -> Square:
    """``""`` -> empty, ``"3E"`` -> (3, "E"), ``"2QU"`` -> (2, "QU"); ``InputError`` otherwise."""
    if text == "":
        return EMPTY
    if not isinstance(text, str) or len(text) < 2 or not text[0].isdecimal():
        raise InputError(f"upwords square {text!r}: expected '' or height then letter, e.g. '2E'")
    height, letter = int(text[0]), text[1:].upper()
    if not 1 <= height <= MAX_HEIGHT:
        raise InputError(f"upwords square {text!r}: stacks are 1 to {MAX_HEIGHT} tiles high")
    if letter not in LETTERS:
        raise InputError(f"upwords square {text!r}: {letter!r} is not a tile (Q is always QU)")
    return height, letter


def format_square(square: Square) -> str:
    height, letter = square
    return f"{height}{letter}" if height else ""


@dataclass(frozen=True)
class Board:
    """What can be seen: each square's (height, top letter), row-major (row 0 = top)."""

    squares: tuple[Square, ...]

    def __post_init__(self) -> None:
        if len(self.squares) != SIZE * SIZE:
            raise ValueError(f"a board has {SIZE * SIZE} squares")

    @classmethod
    def empty(cls) -> Board:
        return cls((EMPTY,) * (SIZE * SIZE))

    @classmethod
    def from_stacks(cls, stacks: Stacks) -> Board:
        """The visible board of a history: each stack's height and top letter."""
        return cls(tuple((len(s), s[-1]) if s else EMPTY for s in stacks))

    @classmethod
    def from_rows(cls, rows: list[list[str]]) -> Board:
        """Parse the design.md form: 10 rows of 10 strings."""
        if not isinstance(rows, list) or len(rows) != SIZE:
            raise InputError(f"upwords 'cells' must be {SIZE} rows of {SIZE} strings")
        squares: list[Square] = []
        for r, row in enumerate(rows):
            if not isinstance(row, list) or len(row) != SIZE:
                raise InputError(f"upwords row {r} must be a list of {SIZE} strings")
            squares.extend(parse_square(text) for text in row)
        return cls(tuple(squares))

    def rows(self) -> list[list[str]]:
        """The design.md form."""
        return [
            [format_square(self.squares[r * SIZE + c]) for c in range(SIZE)] for r in range(SIZE)
        ]

    def __getitem__(self, rc: tuple[int, int]) -> Square:
        row, col = rc
        return self.squares[row * SIZE + col]

    def changed(self, other: Board) -> list[tuple[int, int]]:
        """Squares whose height or top letter differ, row-major."""
        pairs = enumerate(zip(self.squares, other.squares, strict=True))
        return [divmod(i, SIZE) for i, (a, b) in pairs if a != b]

    def __repr__(self) -> str:
        return f"Board.from_rows({self.rows()!r})"
