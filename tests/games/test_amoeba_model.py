"""Closed loops and shape keys of the amoeba tray (games/amoeba.md)."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.amoeba.deck import load_deck
from companion.games.amoeba.model import (
    SIZE,
    Tray,
    arc_of_point,
    arc_point,
    arcs_of_key,
    loops,
    mirror_key,
    shape_key,
)

CIRCLE = ((0, 0), (0, 2), (2, 0), (2, 2))
TRAYS = st.lists(st.integers(0, 1), min_size=SIZE * SIZE, max_size=SIZE * SIZE).map(
    lambda bits: Tray(tuple(bits))
)
# Side midpoints a tile's arcs join, by value (written out independently of the model).
_PAIRS = {
    0: {"top": "left", "left": "top", "bottom": "right", "right": "bottom"},
    1: {"top": "right", "right": "top", "bottom": "left", "left": "bottom"},
}
_ACROSS = {
    "top": ((-1, 0), "bottom"),
    "bottom": ((1, 0), "top"),
    "left": ((0, -1), "right"),
    "right": ((0, 1), "left"),
}


def _mid(tile: tuple[int, int], side: str) -> tuple[int, int]:
    r, c = tile
    return {
        "top": (2 * r, 2 * c + 1),
        "bottom": (2 * r + 2, 2 * c + 1),
        "left": (2 * r + 1, 2 * c),
        "right": (2 * r + 1, 2 * c + 2),
    }[side]


def _all_shapes(max_arcs: int) -> Counter[int]:
    """Every closed-loop shape up to ``max_arcs`` arcs on an unbounded tray, by length.

    Every loop crosses some left/right side midpoint (arcs alternate between horizontal and
    vertical sides), so walking from one fixed such midpoint, choosing each new tile's value and
    keeping revisited tiles consistent, meets every shape.
    """
    start = _mid((0, 0), "left")
    shapes: set[tuple[tuple[int, int], ...]] = set()

    def walk(
        tile: tuple[int, int],
        entry: str,
        values: dict[tuple[int, int], int],
        points: list[tuple[int, int]],
    ) -> None:
        for value in (values[tile],) if tile in values else (0, 1):
            exit_side = _PAIRS[value][entry]
            a, b = _mid(tile, entry), _mid(tile, exit_side)
            path = [*points, (a[0] + b[0], a[1] + b[1])]
            if b == start:
                shapes.add(shape_key(path))
            elif len(path) < max_arcs:
                (dr, dc), new_entry = _ACROSS[exit_side]
                walk((tile[0] + dr, tile[1] + dc), new_entry, {**values, tile: value}, path)

    walk((0, 0), "left", {}, [])
    return Counter(len(key) for key in shapes)


def _rotate(tray: Tray) -> Tray:
    """The tray turned a quarter: tile (r, c) goes to (c, 6 - r) and its arcs swap corners."""
    bits = [0] * (SIZE * SIZE)
    for r in range(SIZE):
        for c in range(SIZE):
            bits[c * SIZE + (SIZE - 1 - r)] = 1 - tray[r, c]
    return Tray(tuple(bits))


def _mirror(tray: Tray) -> Tray:
    bits = [1 - tray[r, SIZE - 1 - c] for r in range(SIZE) for c in range(SIZE)]
    return Tray(tuple(bits))


def _tray_with(arcs: list[tuple[int, int, str]], dr: int, dc: int) -> Tray | None:
    bits = [0] * (SIZE * SIZE)
    for r, c, corner in arcs:
        if not (0 <= r + dr < SIZE and 0 <= c + dc < SIZE):
            return None
        bits[(r + dr) * SIZE + c + dc] = 0 if corner in ("tl", "br") else 1
    return Tray(tuple(bits))


@pytest.mark.parametrize("phase", [0, 1])
def test_start_pattern_shows_eighteen_circles(phase: int) -> None:
    found = loops(Tray.start(phase))
    assert len(found) == 18
    assert {loop.key for loop in found} == {CIRCLE}


def test_circle_arcs_close_around_one_corner() -> None:
    assert arcs_of_key(CIRCLE) == [(0, 0, "br"), (0, 1, "bl"), (1, 0, "tr"), (1, 1, "tl")]


def test_every_deck_key_is_drawn_and_found_on_a_tray() -> None:
    for card in load_deck():
        arcs = arcs_of_key(card.key)
        assert min(r for r, _, _ in arcs) == 0 and min(c for _, c, _ in arcs) == 0
        assert shape_key(arc_point(*arc) for arc in arcs) == card.key
        trays = [_tray_with(arcs, dr, dc) for dr in range(SIZE) for dc in range(SIZE)]
        assert any(
            card.key in {loop.key for loop in loops(tray)} for tray in trays if tray is not None
        ), card.id


def test_arcs_of_key_rejects_open_shapes() -> None:
    with pytest.raises(ValueError):
        arcs_of_key(((0, 0), (0, 2), (2, 0)))
    with pytest.raises(ValueError):
        arcs_of_key(((0, 0), (0, 1)))


def test_mirror_key_of_a_chiral_card_is_its_partner() -> None:
    deck = {card.id: card for card in load_deck()}
    pairs = [card for card in deck.values() if card.mirror_of is not None]
    assert len(pairs) == 34
    for card in pairs:
        assert mirror_key(card.key) == deck[card.mirror_of].key != card.key
    assert mirror_key(CIRCLE) == CIRCLE


def test_shape_counts_by_length_match_amoeba_md() -> None:
    counts = _all_shapes(20)
    assert [counts[n] for n in (4, 8, 12, 16, 20)] == [1, 1, 3, 10, 47]


@settings(max_examples=60, deadline=None)
@given(TRAYS)
def test_rotating_the_tray_keeps_the_shapes(tray: Tray) -> None:
    assert Counter(loop.key for loop in loops(_rotate(tray))) == Counter(
        loop.key for loop in loops(tray)
    )


@settings(max_examples=60, deadline=None)
@given(TRAYS)
def test_mirroring_the_tray_mirrors_the_shapes(tray: Tray) -> None:
    assert Counter(loop.key for loop in loops(_mirror(tray))) == Counter(
        mirror_key(loop.key) for loop in loops(tray)
    )


@settings(max_examples=60, deadline=None)
@given(TRAYS)
def test_loops_are_disjoint_closed_curves_of_the_tray(tray: Tray) -> None:
    found = loops(tray)
    seen: set[tuple[int, int]] = set()
    for loop in found:
        assert not seen & loop.points
        seen |= loop.points
        arcs = [arc_of_point(p) for p in loop.points]
        for r, c, corner in arcs:
            assert corner in (("tl", "br") if tray[r, c] == 0 else ("tr", "bl"))
        assert loop.tiles == {(r, c) for r, c, _ in arcs}
        assert len(loop.points) >= 4 and len(loop.points) % 4 == 0
        assert shape_key(loop.points) == loop.key
        assert arcs_of_key(loop.key)  # every loop key is a drawable closed shape
