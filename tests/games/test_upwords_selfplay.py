"""Boards from self-play, which the benchmark renders: each must be one play could leave."""

from __future__ import annotations

from collections import Counter

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.games.upwords import UpwordsGame
from companion.games.upwords.dictionary import load_dictionary
from companion.games.upwords.model import MAX_HEIGHT, SIZE, TILE_COUNTS, Board
from companion.games.upwords.selfplay import played_board

WORDS = load_dictionary()


def runs(board: Board) -> list[str]:
    """Every line of two or more touching top letters, across and down."""
    tops = [[board.squares[r * SIZE + c][1] for c in range(SIZE)] for r in range(SIZE)]
    lines = tops + [list(col) for col in zip(*tops, strict=True)]
    out = []
    for line in lines:
        tiles: list[str] = []
        for letter in [*line, ""]:
            if letter:
                tiles.append(letter)
                continue
            if len(tiles) > 1:
                out.append("".join(tiles))
            tiles = []
    return out


@settings(max_examples=8, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_a_played_board_shows_only_dictionary_words(seed: int) -> None:
    board = played_board(np.random.default_rng(seed), WORDS)
    assert any(height for height, _ in board.squares)
    for word in runs(board):
        assert word in WORDS, word
    assert all(0 <= height <= MAX_HEIGHT for height, _ in board.squares)
    # top letters alone cannot exceed the set either
    tops = Counter(letter for height, letter in board.squares if height)
    assert all(tops[letter] <= TILE_COUNTS[letter] for letter in tops)


def test_played_boards_reach_towers_and_the_second_half_of_a_game() -> None:
    boards = [played_board(np.random.default_rng(seed), WORDS) for seed in range(6)]
    heights = [h for board in boards for h, _ in board.squares if h]
    assert len(heights) / len(boards) > 20  # tiles per board: past the opening
    assert max(heights) >= 3
    assert Counter(heights)[1] > len(heights) / 2  # mostly single tiles, as play leaves them


def test_the_game_renders_played_boards_and_keeps_random_stacks_for_stress() -> None:
    game = UpwordsGame()
    rng = np.random.default_rng(3)
    played, stress = game.lab.random_state(rng), game.lab.stress_state(rng)
    assert all(word in WORDS for word in runs(played))
    assert sum(h > 0 for h, _ in stress.squares) > 40
