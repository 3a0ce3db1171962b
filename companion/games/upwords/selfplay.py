"""Boards as Upwords play leaves them, for rendered benchmark and test images.

A reader is judged on the boards it will be shown: words from the dictionary, mostly one or two
tiles high with a few towers, tile counts within the set.  Independent random stacks (the
``stress`` boards) put a 5-high tower beside a 1-high tile far more often than play does, and
that is where a tilted camera loses letters behind towers; both are measured, neither stands
in for the other.

Two to four players draw from a shuffled bag and each plays one of the rack helper's best
plays, picked at random (players of mixed strength), until nobody can play.  The position
returned is one from the game's second half, where the stacks are.
"""

from __future__ import annotations

import numpy as np

from companion.games.upwords.dictionary import Dictionary, load_dictionary
from companion.games.upwords.generator import best_plays
from companion.games.upwords.model import TILE_COUNTS, Board
from companion.games.upwords.play import RACK, apply, empty_stacks

CHOICES = 8
"""A player picks among this many of the best plays."""
MAX_TURNS = 80
"""A game ends before this many turns in practice (100 tiles, at least one a play)."""


def played_game(rng: np.random.Generator, dictionary: Dictionary | None = None) -> list[Board]:
    """The board after every play of one game played to its end with random players, the empty
    board first: what a camera over the table sees settle, turn after turn."""
    words = load_dictionary() if dictionary is None else dictionary
    bag = [letter for letter, count in TILE_COUNTS.items() for _ in range(count)]
    bag = [bag[i] for i in rng.permutation(len(bag))]
    players = int(rng.integers(2, 5))
    racks = [[bag.pop() for _ in range(RACK)] for _ in range(players)]
    stacks = empty_stacks()
    seen = [stacks]
    stuck = 0
    for turn in range(MAX_TURNS):
        if stuck >= players:
            break
        rack = racks[turn % players]
        # no time budget: the same seed must give the same board however busy the machine
        plays = best_plays(
            stacks, rack, words, first=not any(stacks), limit=CHOICES, time_budget=float("inf")
        )
        if not plays:
            stuck += 1
            continue
        stuck = 0
        play = plays[int(rng.integers(len(plays)))]
        stacks = apply(stacks, play.placements)
        seen.append(stacks)
        for placement in play.placements:
            rack.remove(placement.letter)
        while bag and len(rack) < RACK:
            rack.append(bag.pop())
    return [Board.from_stacks(s) for s in seen]


def played_board(rng: np.random.Generator, dictionary: Dictionary | None = None) -> Board:
    """A position from the second half of a game played to its end with random players."""
    boards = played_game(rng, dictionary)
    half = len(boards) // 2
    return boards[half + int(rng.integers(len(boards) - half))]
