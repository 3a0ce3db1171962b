"""The Amoeba tray: 49 two-state Truchet tiles, its notation, and the closed loops it shows.

Tile value 0: arcs hug the top-left and bottom-right corners; 1: top-right and bottom-left
(games/amoeba.md).  A quarter turn flips the value; a half turn changes nothing.

Geometry uses doubled coordinates so every point of interest is an integer: tray corner (i, j)
is (2i, 2j), tile (r, c) has its centre at (2r+1, 2c+1) and its side midpoints one step away.
An arc joins two side midpoints a and b; its point a + b (quadrupled coordinates, both odd)
names the arc uniquely, and a loop's shape is the set of its arc points up to translation and
rotation (never reflection: the rules say a mirror image does not count).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from companion.errors import InputError

SIZE = 7


def cell_name(row: int, col: int) -> str:
    """The name of a tile in moves, corrections and on the page: ``r3c4``."""
    return f"r{row}c{col}"


def parse_cell(name: str) -> tuple[int, int]:
    """``"r3c4"`` -> (3, 4); ``InputError`` for anything else."""
    if len(name) == 4 and name[0] == "r" and name[2] == "c":
        row, col = name[1], name[3]
        if row.isdecimal() and col.isdecimal() and int(row) < SIZE and int(col) < SIZE:
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


Point = tuple[int, int]
ShapeKey = tuple[Point, ...]
CORNERS = ("tl", "tr", "br", "bl")
_VALUE_CORNERS = {0: ("tl", "br"), 1: ("tr", "bl")}
_CORNER_VALUE = {"tl": 0, "br": 0, "tr": 1, "bl": 1}
_EDGE = 2 * SIZE


@dataclass(frozen=True)
class Loop:
    """One closed curve on the tray: an amoeba shape.

    ``points`` are the absolute arc points (so two loops are "the same loop" only if they lie on
    the same tiles), ``tiles`` the tiles it runs through, ``key`` its shape up to translation
    and rotation (what a card shows).
    """

    points: frozenset[Point]
    tiles: frozenset[tuple[int, int]]
    key: ShapeKey


def arc_point(row: int, col: int, corner: str) -> Point:
    """The arc point of the arc at ``corner`` of tile (row, col)."""
    return 4 * row + (1 if corner[0] == "t" else 3), 4 * col + (1 if corner[1] == "l" else 3)


def arc_of_point(point: Point) -> tuple[int, int, str]:
    """Inverse of ``arc_point``: (tile row, tile col, corner); both coordinates must be odd."""
    pr, pc = point
    corner = ("t" if pr % 4 == 1 else "b") + ("l" if pc % 4 == 1 else "r")
    return pr // 4, pc // 4, corner


def _midpoints(row: int, col: int, corner: str) -> tuple[Point, Point]:
    """The two side midpoints (doubled coordinates) an arc joins."""
    corner_row = row if corner[0] == "t" else row + 1
    corner_col = col if corner[1] == "l" else col + 1
    return (2 * corner_row, 2 * col + 1), (2 * row + 1, 2 * corner_col)


def _normalise(pts: list[Point]) -> ShapeKey:
    min_r = min(p[0] for p in pts)
    min_c = min(p[1] for p in pts)
    return tuple(sorted((r - min_r, c - min_c) for r, c in pts))


def shape_key(points: Iterable[Point]) -> ShapeKey:
    """The rotation- and translation-invariant key of a set of arc points."""
    pts = list(points)
    if not pts:
        raise ValueError("a shape has at least one arc")
    keys = []
    for _ in range(4):
        keys.append(_normalise(pts))
        pts = [(c, -r) for r, c in pts]
    return min(keys)


def mirror_key(key: ShapeKey) -> ShapeKey:
    """The key of the mirror image of a shape (left-right reflection, then re-normalised)."""
    return shape_key([(r, -c) for r, c in key])


def _closed_loop_arcs(points: list[Point]) -> list[tuple[int, int, str]] | None:
    """The arcs if ``points`` (absolute, odd) are one closed curve of valid tiles, else None."""
    arcs = [arc_of_point(p) for p in points]
    values: dict[tuple[int, int], int] = {}
    links: dict[Point, list[int]] = {}
    for i, (row, col, corner) in enumerate(arcs):
        value = _CORNER_VALUE[corner]
        if row < 0 or col < 0 or values.setdefault((row, col), value) != value:
            return None
        for mid in _midpoints(row, col, corner):
            links.setdefault(mid, []).append(i)
    if any(len(ends) != 2 for ends in links.values()):
        return None
    seen = {0}
    stack = [0]
    while stack:
        i = stack.pop()
        for mid in _midpoints(*arcs[i]):
            for j in links[mid]:
                if j not in seen:
                    seen.add(j)
                    stack.append(j)
    return arcs if len(seen) == len(arcs) else None


def arcs_of_key(key: ShapeKey) -> list[tuple[int, int, str]]:
    """The arcs (tile row, tile col, corner) of a shape placed with its top-left tile at (0, 0).

    A key forgets whether its top row of arcs hugs tile tops or bottoms (it is translated to 0),
    so each of the four odd offsets is tried and the one that closes the curve with consistent
    tiles is kept.  ``ValueError`` if no offset does: the key is not a closed loop shape.
    """
    if not key or any(r % 2 or c % 2 for r, c in key) or len(set(key)) != len(key):
        raise ValueError("not a closed loop shape: arc points must be distinct even pairs")
    for off_r in (1, 3):
        for off_c in (1, 3):
            arcs = _closed_loop_arcs([(r + off_r, c + off_c) for r, c in key])
            if arcs is not None:
                return sorted(arcs, key=lambda a: (a[0], a[1], CORNERS.index(a[2])))
    raise ValueError("not a closed loop shape: its arcs do not join into one closed curve")


def loops(tray: Tray) -> list[Loop]:
    """The closed loops on the tray (curves that touch no tray edge), in a fixed order."""
    return list(_loops(tray))


# A turn looks at the tray before and after, and previews revisit the same few boards.
@lru_cache(maxsize=512)
def _loops(tray: Tray) -> tuple[Loop, ...]:
    # Each tile touches each of its four side midpoints with exactly one arc, so interior
    # midpoints have two arcs and edge midpoints one: components are cycles or edge paths.
    links: dict[Point, list[Point]] = {}
    for row in range(SIZE):
        for col in range(SIZE):
            for corner in _VALUE_CORNERS[tray[row, col]]:
                a, b = _midpoints(row, col, corner)
                links.setdefault(a, []).append(b)
                links.setdefault(b, []).append(a)
    seen: set[Point] = set()
    found: list[Loop] = []
    for start in sorted(links):
        if start in seen:
            continue
        component = [start]
        seen.add(start)
        closed = True
        i = 0
        while i < len(component):
            mid = component[i]
            i += 1
            if mid[0] in (0, _EDGE) or mid[1] in (0, _EDGE):
                closed = False
            for nxt in links[mid]:
                if nxt not in seen:
                    seen.add(nxt)
                    component.append(nxt)
        if closed:
            found.append(_loop_of(component, links))
    return tuple(found)


def _loop_of(mids: list[Point], links: dict[Point, list[Point]]) -> Loop:
    points = frozenset((a[0] + b[0], a[1] + b[1]) for a in mids for b in links[a])
    tiles = frozenset(arc_of_point(p)[:2] for p in points)
    return Loop(points=points, tiles=tiles, key=shape_key(points))
