"""The 18 Octiles tiles: chord maps, rotations, looks and identification."""

from __future__ import annotations

import pytest

from companion.games.octiles.tiles import (
    MAPS,
    PARTNERS,
    ROTATIONS,
    TILES,
    canonical_rotation,
    chords,
    identify,
    looks,
    rotate_map,
    same_face,
)


def _pairings(edges: tuple[int, ...]) -> list[frozenset[frozenset[int]]]:
    """Every way to join ``edges`` in pairs (105 for 8 edges)."""
    if not edges:
        return [frozenset()]
    first, rest = edges[0], edges[1:]
    out = []
    for other in rest:
        remaining = tuple(e for e in rest if e != other)
        out += [p | {frozenset((first, other))} for p in _pairings(remaining)]
    return out


def test_every_map_is_a_perfect_matching() -> None:
    assert sorted(MAPS) == list(TILES)
    for tile in TILES:
        for r in ROTATIONS:
            partner = PARTNERS[tile][r]
            assert all(partner[e] != e and partner[partner[e]] == e for e in range(8))


def test_rotating_eight_times_is_the_identity_and_rotations_compose() -> None:
    for tile, base in MAPS.items():
        turned = base
        for _ in range(8):
            turned = rotate_map(turned, 1)
        assert turned == base
        for a in ROTATIONS:
            for b in ROTATIONS:
                assert rotate_map(rotate_map(base, a), b) == PARTNERS[tile][(a + b) % 8]


def test_rotation_formula_on_a_worked_example() -> None:
    # Tile 7 at rotation 0 joins N-SE; turned one eighth clockwise that chord becomes NE-S.
    assert PARTNERS[7][0][0] == 3
    assert PARTNERS[7][1][1] == 4
    assert frozenset((1, 4)) in chords(7, 1)


def test_distinct_looks_per_tile() -> None:
    counts = {tile: len(looks(tile)) for tile in TILES}
    expected = {1: 1, 3: 2, 18: 2, 2: 4, 5: 4, 8: 4, 11: 4, 14: 4}
    assert counts == {tile: expected.get(tile, 8) for tile in TILES}


def test_the_18_tiles_are_one_per_rotation_class_of_the_105_pairings() -> None:
    pairings = _pairings(tuple(range(8)))
    assert len(set(pairings)) == 105
    owners = {p: identify(p) for p in pairings}
    assert all(owners.values()), "some pairing is no tile in any rotation"
    for found in owners.values():
        assert len({tile for tile, _ in found}) == 1
    assert {found[0][0] for found in owners.values()} == set(TILES)


def test_identify_gives_every_rotation_with_that_look() -> None:
    assert identify(chords(1, 5)) == [(1, r) for r in ROTATIONS]
    assert identify(chords(3, 1)) == [(3, 1), (3, 3), (3, 5), (3, 7)]
    assert identify(chords(9, 2)) == [(9, 2)]
    assert identify(frozenset()) == []


def test_mirror_pair_9_and_10_are_mirror_images_but_not_rotations() -> None:
    def mirrored(look: frozenset[frozenset[int]]) -> frozenset[frozenset[int]]:
        return frozenset(frozenset((8 - e) % 8 for e in pair) for pair in look)

    nine = {chords(9, r) for r in ROTATIONS}
    ten = {chords(10, r) for r in ROTATIONS}
    assert not nine & ten
    assert {mirrored(look) for look in nine} == ten


def test_canonical_rotation_and_same_face() -> None:
    assert canonical_rotation(1, 6) == 0
    assert canonical_rotation(5, 6) == 2
    assert same_face((5, 2), (5, 6))
    assert not same_face((5, 2), (5, 3))
    assert not same_face((1, 0), (2, 0))
    assert same_face(None, None)
    assert not same_face(None, (1, 0))


def test_chords_refuses_a_tile_that_does_not_exist() -> None:
    with pytest.raises(ValueError, match="tiles 1-18"):
        chords(19, 0)
    with pytest.raises(ValueError, match="rotations 0-7"):
        chords(1, 8)


def test_steps_column_of_the_table() -> None:
    """The 'steps' column of games/octiles.md: chord spans in eighths, sorted."""
    steps = {
        1: "4444", 2: "3344", 3: "3333", 4: "2334", 5: "2244", 6: "2233", 7: "1333",
        8: "1144", 9: "1234", 10: "1234", 11: "2222", 12: "1223", 13: "1223", 14: "1133",
        15: "1124", 16: "1113", 17: "1122", 18: "1111",
    }  # fmt: skip
    for tile, text in steps.items():
        spans = sorted(min((b - a) % 8, (a - b) % 8) for a, b in map(sorted, chords(tile, 0)))
        assert "".join(map(str, spans)) == text
