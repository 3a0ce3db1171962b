"""A scripted Upwords game for the bundled samples and end-to-end tests.

Two players draw from a shuffled bag and play the rack helper's choice, preferring plays that
stack (so towers grow to 4 and 5), with the cases every referee must handle on the way: a pass,
a word that is not in the dictionary (illegal, then taken off the board), and a word the other
player challenges (taken back; the same player then plays another).  After ``TURNS`` turns the
players stop and enter the tiles left on their racks.
"""

from __future__ import annotations

import random

from companion.games.base import JSON
from companion.games.upwords.dictionary import load_dictionary
from companion.games.upwords.generator import best_plays
from companion.games.upwords.model import TILE_COUNTS, Board, Stacks
from companion.games.upwords.play import RACK, Placement, Play, apply, empty_stacks
from companion.games.upwords.rules import UpwordsMatch, match_settings

TURNS = 18
PASS_AT = 5
NON_WORD_AT = 8
CHALLENGE_AT = 11


def _state(stacks: Stacks) -> JSON:
    return {"game": "upwords", "cells": Board.from_stacks(stacks).rows()}


def _height(stacks: Stacks, play: Play) -> int:
    return max(len(stacks[p.row * 10 + p.col]) for p in play.placements)


def _choose(stacks: Stacks, plays: list[Play], turn: int) -> Play:
    """Late in the game the players like building towers: the highest stack wins a tie."""
    if turn < 6:
        return plays[0]
    return max(plays, key=lambda p: (_height(stacks, p), p.score))


def _non_word(stacks: Stacks, play: Play) -> list[Placement]:
    """The same tiles with one letter changed so the main word is no word at all."""
    first = play.placements[0]
    for letter in "XZJVK":
        spoiled = [Placement(first.row, first.col, letter), *play.placements[1:]]
        top = stacks[first.row * 10 + first.col]
        if letter != first.letter and (not top or top[-1] != letter):
            return spoiled
    return list(play.placements)


def sample_script(seed: int) -> tuple[JSON, list[JSON]]:
    """(settings, script) of a whole game: board states and events, in play order."""
    settings = match_settings({"players": 2, "names": ["Ann", "Ben"], "seed": seed})
    dictionary = load_dictionary()
    rng = random.Random(seed)
    bag = [letter for letter, count in TILE_COUNTS.items() for _ in range(count)]
    rng.shuffle(bag)
    racks = [[bag.pop() for _ in range(RACK)] for _ in range(2)]
    match = UpwordsMatch(settings)
    stacks = empty_stacks()
    match.judge(Board.from_stacks(stacks))
    script: list[JSON] = [_state(stacks)]
    for turn in range(TURNS):
        player = match.to_move
        if turn == PASS_AT:
            script.append({"event": "pass"})
            match.handle({"event": "pass"})
            continue
        plays = best_plays(stacks, racks[player], dictionary, first=not any(stacks), limit=40)
        if not plays:
            script.append({"event": "pass"})
            match.handle({"event": "pass"})
            continue
        play = _choose(stacks, plays, turn)
        if turn == NON_WORD_AT:
            wrong = apply(stacks, _non_word(stacks, play))
            script += [_state(wrong), _state(stacks)]  # refused, then taken off again
        if turn == CHALLENGE_AT:
            challenged = apply(stacks, play.placements)
            script.append(_state(challenged))
            match.judge(Board.from_stacks(challenged))
            script += [{"event": "challenge"}, _state(stacks)]
            match.handle({"event": "challenge"})
            play = plays[1] if len(plays) > 1 else play
        stacks = apply(stacks, play.placements)
        verdict = match.judge(Board.from_stacks(stacks))
        if not verdict.legal:
            raise RuntimeError(f"scripted play was illegal: {verdict.reason}")
        script.append(_state(stacks))
        for placement in play.placements:
            racks[player].remove(placement.letter)
        while bag and len(racks[player]) < RACK:
            racks[player].append(bag.pop())
    script.append({"event": "end", "racks": [len(rack) for rack in racks]})
    return settings, script
