"""The 18 Octiles tiles: which edge each of their four paths joins to which, in any rotation.

A tile joins its 8 edge midpoints (0..7 = N, NE, E, SE, S, SW, W, NW, clockwise) in 4 pairs;
the set is one tile per rotation class of the 105 such pairings (games/octiles.md).  A tile at
rotation r (45-degree steps clockwise) joins edge e to (M[(e - r) mod 8] + r) mod 8, M its
rotation-0 map.  Symmetric tiles look the same in several rotations, and a camera cannot tell
those rotations apart, so looks (chord sets) rather than rotation numbers are what compare.
"""

from __future__ import annotations

from functools import cache

EDGES = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
TILES = tuple(range(1, 19))
ROTATIONS = tuple(range(8))

Chords = frozenset[frozenset[int]]

# Rotation-0 chords as printed in games/octiles.md (boardspace's tile numbers).
_CHORD_TEXT = {
    1: "N-S NE-SW E-W SE-NW",
    2: "N-SW NE-S E-W SE-NW",
    3: "N-SW NE-S E-NW SE-W",
    4: "N-S NE-NW E-SW SE-W",
    5: "N-S NE-NW E-W SE-SW",
    6: "N-E NE-W SE-SW S-NW",
    7: "N-SE NE-S E-SW W-NW",
    8: "N-S NE-SW E-SE W-NW",
    9: "N-S NE-SE E-SW W-NW",
    10: "N-S NE-SE E-NW SW-W",
    11: "N-E NE-NW SE-SW S-W",
    12: "N-SW NE-SE E-S W-NW",
    13: "N-E NE-S SE-SW W-NW",
    14: "N-SW NE-S E-SE W-NW",
    15: "N-NW NE-SE E-W S-SW",
    16: "N-SE NE-E S-SW W-NW",
    17: "N-E NE-SE S-SW W-NW",
    18: "N-NE E-SE S-SW W-NW",
}


def _parse_map(text: str) -> tuple[int, ...]:
    partner = [-1] * 8
    for chord in text.split():
        a, b = (EDGES.index(name) for name in chord.split("-"))
        partner[a], partner[b] = b, a
    return tuple(partner)


MAPS: dict[int, tuple[int, ...]] = {tile: _parse_map(text) for tile, text in _CHORD_TEXT.items()}
"""Rotation-0 partner of each edge, per tile."""


def rotate_map(base: tuple[int, ...], rotation: int) -> tuple[int, ...]:
    """The partner table of a map turned ``rotation`` eighths clockwise."""
    return tuple((base[(e - rotation) % 8] + rotation) % 8 for e in range(8))


PARTNERS: dict[int, tuple[tuple[int, ...], ...]] = {
    tile: tuple(rotate_map(base, r) for r in ROTATIONS) for tile, base in MAPS.items()
}
"""``PARTNERS[tile][rotation][edge]``: the edge a path entering at ``edge`` leaves by."""


def check_face(tile: int, rotation: int) -> None:
    """``ValueError`` unless (tile, rotation) names a real tile lying in a real rotation."""
    if tile not in MAPS or rotation not in ROTATIONS:
        raise ValueError(f"no tile {tile!r} at rotation {rotation!r}: tiles 1-18, rotations 0-7")


def partner_map_chords(partner: tuple[int, ...]) -> Chords:
    """A partner table as its set of unordered edge pairs."""
    return frozenset(frozenset((e, p)) for e, p in enumerate(partner))


@cache
def chords(tile: int, rotation: int) -> Chords:
    """What the tile looks like from above: its 4 chords as unordered edge pairs."""
    check_face(tile, rotation)
    return partner_map_chords(PARTNERS[tile][rotation])


@cache
def canonical_rotation(tile: int, rotation: int) -> int:
    """The smallest rotation in which ``tile`` looks as it does at ``rotation``."""
    look = chords(tile, rotation)
    return next(r for r in ROTATIONS if chords(tile, r) == look)


@cache
def looks(tile: int) -> tuple[int, ...]:
    """One rotation per distinct look of ``tile`` (the smallest), ascending."""
    return tuple(sorted({canonical_rotation(tile, r) for r in ROTATIONS}))


@cache
def _by_chords() -> dict[Chords, tuple[tuple[int, int], ...]]:
    found: dict[Chords, list[tuple[int, int]]] = {}
    for tile in TILES:
        for r in ROTATIONS:
            found.setdefault(chords(tile, r), []).append((tile, r))
    return {look: tuple(faces) for look, faces in found.items()}


def identify(look: Chords) -> list[tuple[int, int]]:
    """Every (tile, rotation) showing exactly these chords: one tile, all its equal rotations;
    empty when no tile in the set looks like that."""
    return list(_by_chords().get(frozenset(frozenset(c) for c in look), ()))


def same_face(a: tuple[int, int] | None, b: tuple[int, int] | None) -> bool:
    """Face down equals face down; face-up tiles are equal when the same tile shows the same
    chords (tile 1 at rotation 0 and 3 is one look)."""
    if a is None or b is None:
        return a is b
    return a[0] == b[0] and chords(*a) == chords(*b)
