"""The Amoeba tray: 49 two-state Truchet tiles, its notation, and the closed loops it shows.

Tile value 0: arcs hug the top-left and bottom-right corners; 1: top-right and bottom-left
(games/amoeba.md).  A quarter turn flips the value; a half turn changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from companion.errors import InputError

SIZE = 7


def cell_name(row: int, col: int) -> str:
    """The name of a tile in moves, corrections and on the page: ``r3c4``."""
    return f"r{row}c{col}"


def parse_cell(name: str) -> tuple[int, int]:
    """``"r3c4"`` -> (3, 4); ``InputError`` for anything else."""
    if len(name) == 4 and name[0] == "r" and name[2] == "c":
        row, col = name[1], name[3]
        if row.isdigit() and col.isdigit() and int(row) < SIZE and int(col) < SIZE:
            return int(row), int(col)
    raise InputError(f"no tile {name!r} on the amoeba tray: names run from r0c0 to r6c6")


@dataclass(frozen=True)
class Tray:
    """The 49 tile values, row-major (row 0 = top of the tray)."""

    bits: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.bits) != SIZE * SIZE or any(b not in (0, 1) for b in self.bits):
            raise ValueError(f"a tray has {SIZE * SIZE} tiles of value 0 or 1")

    @classmethod
    def start(cls, phase: int = 0) -> Tray:
        """The pattern of circles every game starts from: a checkerboard, either phase."""
        return cls(tuple((r + c + phase) % 2 for r in range(SIZE) for c in range(SIZE)))

    @classmethod
    def from_rows(cls, rows: list[str]) -> Tray:
        """Parse the design.md form: seven strings of seven ``0``/``1``."""
        if not isinstance(rows, list) or len(rows) != SIZE:
            raise InputError(f"amoeba 'tiles' must be a list of {SIZE} strings of 0/1")
        bits: list[int] = []
        for i, row in enumerate(rows):
            if not isinstance(row, str) or len(row) != SIZE or set(row) - {"0", "1"}:
                raise InputError(f"amoeba row {i} is {row!r}: expected {SIZE} characters 0 or 1")
            bits.extend(int(ch) for ch in row)
        return cls(tuple(bits))

    def rows(self) -> list[str]:
        """The design.md form: seven strings, character c of string r is tile (r, c)."""
        return ["".join(str(b) for b in self.bits[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE)]

    def __getitem__(self, rc: tuple[int, int]) -> int:
        row, col = rc
        return self.bits[row * SIZE + col]

    def turned(self, row: int, col: int) -> Tray:
        """The tray after a quarter turn of tile (row, col)."""
        bits = list(self.bits)
        bits[row * SIZE + col] ^= 1
        return Tray(tuple(bits))

    def changed(self, other: Tray) -> list[tuple[int, int]]:
        """Tiles whose value differs between the two trays, in row-major order."""
        pairs = enumerate(zip(self.bits, other.bits, strict=True))
        return [divmod(i, SIZE) for i, (a, b) in pairs if a != b]

    def __repr__(self) -> str:
        return f"Tray.from_rows({self.rows()!r})"

    def __str__(self) -> str:
        return "\n".join(self.rows())
