"""The rack helper: every legal play of a player's tiles on the current board, best first.

A play is one line of tiles whose main word fills a *span*: a run of squares bounded by empty
squares or the edge, where each square keeps its top letter, takes a rack tile on top of its
stack (a different letter, stack below five) or takes a rack tile on an empty square.  So the
search walks every span of every row and column, and for each span asks the dictionary index
which words fit letter by letter, as bitsets: position ``i`` of a ``L``-tile word may hold only
the letters that square allows.  Letters a placed tile may take are narrowed first by the
perpendicular word it would change (cross-checks), which is what keeps a mid-game search well
under a second.  Rack counts, "at least one tile", "keep a letter of every covered word" and
"connected to the board" are then checked on the few surviving words, and every remaining
candidate goes through ``play.evaluate``: the rules, not this module, decide legality (the
plural-S rule, anything else) and the score.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from companion.errors import InputError
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
from companion.games.upwords.play import RACK, IllegalPlay, Placement, Play, Word, evaluate

log = logging.getLogger(__name__)

_CODES = len(LETTERS)
# LETTERS is the alphabet with QU in Q's place, so a word with every QU written as Q maps to
# tile codes by ``ord(ch) - ord("A")``.
assert all(ord(letter[0]) - ord("A") == i for i, letter in enumerate(LETTERS))


@dataclass(frozen=True)
class _Index:
    """A dictionary's words of 2..SIZE tiles, grouped by tile count.

    ``words[L]`` is an (N, L) array of tile codes; ``bits[L][i, x]`` is the packed bitset of
    the words whose tile ``i`` is letter ``x``.
    """

    words: dict[int, np.ndarray]
    bits: dict[int, np.ndarray]


_INDEXES: dict[int, tuple[Dictionary, _Index]] = {}
_KEEP_INDEXES = 4


def _index(dictionary: Dictionary) -> _Index:
    """Build the index once per Dictionary object (0.15 s for ENABLE) and keep it.

    Keyed by identity, with the dictionary itself held so its id cannot be reused.
    """
    cached = _INDEXES.get(id(dictionary))
    if cached is not None and cached[0] is dictionary:
        return cached[1]
    by_length: dict[int, list[str]] = {}
    for word in dictionary.words:
        if word.count("Q") != word.count("QU"):
            continue  # a Q no tile can make
        tiles = word.replace("QU", "Q")
        if 2 <= len(tiles) <= SIZE and tiles.isascii() and tiles.isalpha():
            by_length.setdefault(len(tiles), []).append(tiles)
    words: dict[int, np.ndarray] = {}
    bits: dict[int, np.ndarray] = {}
    for length, texts in by_length.items():
        texts.sort()
        raw = np.frombuffer("".join(texts).encode("ascii"), dtype=np.uint8)
        codes = (raw - ord("A")).astype(np.int8).reshape(len(texts), length)
        onehot = codes[:, :, None] == np.arange(_CODES, dtype=np.int8)
        words[length] = codes
        bits[length] = np.ascontiguousarray(np.packbits(onehot, axis=0).transpose(1, 2, 0))
    index = _Index(words, bits)
    if len(_INDEXES) >= _KEEP_INDEXES:
        _INDEXES.pop(next(iter(_INDEXES)))
    _INDEXES[id(dictionary)] = (dictionary, index)
    return index


@dataclass(frozen=True)
class _Candidate:
    """A play to put through ``evaluate``; ``priority`` only orders the evaluation."""

    placements: tuple[Placement, ...]
    priority: int


def best_plays(
    stacks: Stacks,
    rack: Sequence[str],
    dictionary: Dictionary,
    *,
    first: bool,
    limit: int | None = 10,
    time_budget: float = 1.0,
) -> list[Play]:
    """The ``limit`` (None: all) best legal plays of ``rack`` (model.LETTERS tiles) on ``stacks``.

    Sorted by score, then more tiles, then the main word alphabetically.  Candidates are
    evaluated most promising first; if ``time_budget`` seconds run out, the best found so far
    are returned (and a warning logged) rather than keeping a phone waiting.
    """
    start = time.monotonic()
    rack_codes = [LETTERS.index(tile) for tile in rack]
    candidates = _candidates(stacks, rack_codes, dictionary, first=first)
    candidates.sort(key=lambda cand: -cand.priority)
    generated = time.monotonic()
    plays: list[Play] = []
    rejected = 0
    for n, cand in enumerate(candidates):
        if time.monotonic() - start > time_budget:
            log.warning(
                "rack helper stopped after %.2f s with %d of %d candidates evaluated",
                time.monotonic() - start,
                n,
                len(candidates),
            )
            break
        try:
            plays.append(evaluate(stacks, list(cand.placements), dictionary, first=first))
        except IllegalPlay:
            rejected += 1
    log.debug(
        "rack helper: %d candidates in %.3f s, %d legal, %d rejected by the rules, %.3f s in all",
        len(candidates),
        generated - start,
        len(plays),
        rejected,
        time.monotonic() - start,
    )
    plays.sort(key=_play_order)
    return plays[:limit]


def _play_order(play: Play) -> tuple[int, int, str, list[tuple[int, int]]]:
    cells = sorted((p.row, p.col) for p in play.placements)
    return -play.score, -len(play.placements), main_word(play).text, cells


def main_word(play: Play) -> Word:
    """The word along the line of the play (for one tile: its longer word, across on a tie)."""
    cells = {(p.row, p.col) for p in play.placements}
    holding = [w for w in play.words if cells <= set(w.cells)]
    if len(cells) == 1:
        holding.sort(key=lambda w: (-len(w.cells), not _across(w)))
    return holding[0]


def _across(word: Word) -> bool:
    return len({row for row, _ in word.cells}) == 1


def _candidates(
    stacks: Stacks, rack: list[int], dictionary: Dictionary, *, first: bool
) -> list[_Candidate]:
    """Every placement set along a line whose main word is in the dictionary and that passes
    the cheap necessary checks; each set once even when one tile makes words both ways."""
    index = _index(dictionary)
    heights = [[len(stacks[r * SIZE + c]) for c in range(SIZE)] for r in range(SIZE)]
    tops = [
        [LETTERS.index(stacks[r * SIZE + c][-1]) if heights[r][c] else -1 for c in range(SIZE)]
        for r in range(SIZE)
    ]
    counts = Counter(rack)
    seen: set[frozenset[Placement]] = set()
    out: list[_Candidate] = []
    for across in (True, False):
        for line in range(SIZE):
            cells = [(line, k) if across else (k, line) for k in range(SIZE)]
            out.extend(
                _line_candidates(cells, heights, tops, counts, dictionary, index, first, seen)
            )
    return out


def _cross_letters(
    heights: list[list[int]],
    tops: list[list[int]],
    cell: tuple[int, int],
    step: tuple[int, int],
    dictionary: Dictionary,
) -> set[int] | None:
    """Letters a tile placed on ``cell`` may show so that the word it makes (or changes) along
    ``step`` is a word; None when it touches nothing that way."""

    def run(sign: int) -> list[str]:
        letters = []
        r, c = cell[0] + sign * step[0], cell[1] + sign * step[1]
        while 0 <= r < SIZE and 0 <= c < SIZE and heights[r][c]:
            letters.append(LETTERS[tops[r][c]])
            r, c = r + sign * step[0], c + sign * step[1]
        return letters

    before, after = "".join(reversed(run(-1))), "".join(run(1))
    if not before and not after:
        return None
    return {x for x, letter in enumerate(LETTERS) if before + letter + after in dictionary}


def _line_candidates(
    cells: list[tuple[int, int]],
    heights: list[list[int]],
    tops: list[list[int]],
    counts: Counter[int],
    dictionary: Dictionary,
    index: _Index,
    first: bool,
    seen: set[frozenset[Placement]],
) -> list[_Candidate]:
    height = np.array([heights[r][c] for r, c in cells])
    top = np.array([tops[r][c] for r, c in cells])
    step = (1, 0) if cells[0][0] == cells[1][0] else (0, 1)  # perpendicular to the line
    rack_letters = set(counts)
    allowed: list[list[int]] = []  # letters each square may show after the play
    anchor: list[bool] = []  # a play through this square touches the board (or the centre)
    for k, cell in enumerate(cells):
        placeable = rack_letters - {top[k]} if height[k] < MAX_HEIGHT else set()
        cross = _cross_letters(heights, tops, cell, step, dictionary) if placeable else None
        if cross is not None:
            placeable &= cross
        allowed.append(sorted(placeable | ({top[k]} if height[k] else set())))
        anchor.append(cell in CENTRE if first else bool(height[k]) or cross is not None)

    out: list[_Candidate] = []
    for s in range(SIZE):
        if s and height[s - 1]:
            continue  # a span starts after an empty square or the edge
        empties = 0
        for e in range(s + 1, SIZE + 1):
            if not allowed[e - 1]:
                break
            empties += not height[e - 1]
            if empties > sum(counts.values()):
                break
            if e - s < 2 or (e < SIZE and height[e]) or not any(anchor[s:e]):
                continue
            out.extend(_span_candidates(cells, s, e, height, top, allowed, counts, index, seen))
    return out


def _span_candidates(
    cells: list[tuple[int, int]],
    s: int,
    e: int,
    height: np.ndarray,
    top: np.ndarray,
    allowed: list[list[int]],
    counts: Counter[int],
    index: _Index,
    seen: set[frozenset[Placement]],
) -> list[_Candidate]:
    length = e - s
    if length not in index.bits:
        return []
    bits = index.bits[length]
    fits = np.full(bits.shape[2], 0xFF, dtype=np.uint8)  # every word, until a square says no
    for i in range(length):
        fits &= np.bitwise_or.reduce(bits[i, allowed[s + i]], axis=0)
        if not fits.any():
            return []
    words = index.words[length]
    rows = words[np.flatnonzero(np.unpackbits(fits, count=len(words)))]
    h, t = height[s:e], top[s:e]
    placed = (h == 0) | (rows != t)
    ok = placed.any(axis=1)
    for letter in np.unique(rows[placed]):
        ok &= ((rows == letter) & placed).sum(axis=1) <= counts.get(int(letter), 0)
    for seg in _segments(h):
        ok &= ~placed[:, seg].all(axis=1)  # some letter of a covered word must stay in view
    out = []
    for row, mask in zip(rows[ok].tolist(), placed[ok].tolist(), strict=True):
        placements = tuple(
            Placement(*cells[s + i], LETTERS[x]) for i, x in enumerate(row) if mask[i]
        )
        key = frozenset(placements)
        if key in seen:
            continue
        seen.add(key)
        out.append(_Candidate(placements, length + len(placements) + int(h.sum())))
    return out


def _segments(height: np.ndarray) -> list[slice]:
    """Runs of two or more stacks within a span: the words already there along the line."""
    out, k = [], 0
    while k < len(height):
        if height[k]:
            j = k
            while j < len(height) and height[j]:
                j += 1
            if j - k >= 2:
                out.append(slice(k, j))
            k = j
        else:
            k += 1
    return out


def parse_rack(text: str) -> list[str]:
    """What a player typed -> his tiles; "Q" or "QU" is the Qu tile, spaces are ignored."""
    chars = "".join(text.split()).upper()
    tiles: list[str] = []
    k = 0
    while k < len(chars):
        ch = chars[k]
        if not ("A" <= ch <= "Z"):
            raise InputError(f"{ch!r} is not a letter")
        if ch == "Q":
            tiles.append("QU")
            k += 2 if chars[k + 1 : k + 2] == "U" else 1
        else:
            tiles.append(ch)
            k += 1
    if not tiles:
        raise InputError("the rack is empty: type your tiles, e.g. AEIRSTQU")
    if len(tiles) > RACK:
        raise InputError(f"rack has {len(tiles)} tiles: at most {RACK}")
    for tile, n in Counter(tiles).items():
        if n > TILE_COUNTS[tile]:
            raise InputError(f"rack has {n} {tile} tiles: the game has only {TILE_COUNTS[tile]}")
    return tiles


def rack_helper(
    stacks: Stacks, rack_text: str, dictionary: Dictionary, *, first: bool, limit: int = 10
) -> dict:
    """The private page's answer to "what can I play with these tiles?".

    One item per word and score: on an open board the same word fits in many places for the
    same points (on the empty board, everywhere through the centre), and ten copies of one
    word would hide the other choices.  The item shown is the first in ``best_plays`` order.
    """
    rack = parse_rack(rack_text)
    items: list[dict] = []
    shown: set[tuple[str, int]] = set()
    for play in best_plays(stacks, rack, dictionary, first=first, limit=None):
        word = main_word(play)
        if (word.text, play.score) in shown:
            continue
        shown.add((word.text, play.score))
        row, col = word.cells[0]
        direction = "across" if _across(word) else "down"
        items.append(
            {
                "label": f"{word.text} {direction} at {cell_name(row, col)} for {play.score}",
                "word": word.text,
                "score": play.score,
                "cells": [
                    {"cell": cell_name(p.row, p.col), "letter": p.letter} for p in play.placements
                ],
            }
        )
        if len(items) == limit:
            break
    if not items:
        title = f"No play for {''.join(rack)}: pass or exchange a tile"
        return {"title": title, "items": []}
    return {"title": f"Best plays for {''.join(rack)}", "items": items}
