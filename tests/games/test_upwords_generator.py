"""The rack helper: best plays of a typed rack, checked against the rules and a brute force."""

from __future__ import annotations

import contextlib
import itertools
import random
import re
import statistics
import time
from collections import Counter

import pytest

from companion.errors import InputError
from companion.games.upwords.dictionary import load_dictionary
from companion.games.upwords.generator import best_plays, main_word, parse_rack, rack_helper
from companion.games.upwords.model import (
    CENTRE,
    MAX_HEIGHT,
    SIZE,
    TILE_COUNTS,
    Stacks,
    parse_cell,
)
from companion.games.upwords.play import RACK, IllegalPlay, Placement, apply, evaluate

EMPTY: Stacks = ((),) * (SIZE * SIZE)
# The rulebook's golden sequence (games/upwords.md), one turn a line: (row, col, letter).
GOLDEN = [
    [(4, 2, "M"), (4, 3, "O"), (4, 4, "O"), (4, 5, "D")],
    [(5, 5, "E"), (6, 5, "A"), (7, 5, "R")],
    [(5, 4, "N"), (5, 6, "T")],
    [(4, 2, "W")],
    [(4, 5, "L"), (7, 5, "P")],
    [(7, 4, "S"), (7, 5, "N"), (7, 6, "A"), (7, 7, "C"), (7, 8, "K")],
    [(2, 7, "P"), (3, 7, "L"), (4, 7, "U"), (5, 7, "S")],
]


@pytest.fixture(scope="module")
def dictionary():
    return load_dictionary()


@pytest.fixture(scope="module")
def golden(dictionary) -> Stacks:
    """The board after the golden sequence, built through the rules themselves."""
    stacks = EMPTY
    for turn, moves in enumerate(GOLDEN):
        placements = [Placement(*move) for move in moves]
        evaluate(stacks, placements, dictionary, first=turn == 0)
        stacks = apply(stacks, placements)
    return stacks


@pytest.fixture(scope="module")
def crowded(dictionary) -> Stacks:
    """A board two players filled by always taking the best play (seeded bag): tall stacks,
    five-high ones, words packed side by side."""
    rng = random.Random(7)
    bag = [letter for letter, n in TILE_COUNTS.items() for _ in range(n)]
    rng.shuffle(bag)
    racks = [[bag.pop() for _ in range(RACK)] for _ in range(2)]
    stacks = EMPTY
    for turn in range(24):
        rack = racks[turn % 2]
        plays = best_plays(stacks, rack, dictionary, first=turn == 0, limit=1, time_budget=60)
        assert plays, f"no play for {rack} on turn {turn}"
        stacks = apply(stacks, plays[0].placements)
        for p in plays[0].placements:
            rack.remove(p.letter)
        rack.extend(bag.pop() for _ in range(min(len(bag), RACK - len(rack))))
    assert max(len(stack) for stack in stacks) == MAX_HEIGHT
    return stacks


def _words_on(stacks: Stacks) -> list[set[tuple[int, int]]]:
    """The squares of every word on the board (runs of two or more stacks)."""
    words = []
    for across in (True, False):
        for line in range(SIZE):
            run: set[tuple[int, int]] = set()
            for k in range(SIZE + 1):
                cell = (line, k) if across else (k, line)
                if k < SIZE and stacks[cell[0] * SIZE + cell[1]]:
                    run.add(cell)
                    continue
                if len(run) >= 2:
                    words.append(run)
                run = set()
    return words


def _check_plays(plays, stacks: Stacks, dictionary, *, first: bool) -> None:
    """Every play is what the rules say it is, sorted best first, and covers no word whole."""
    words = _words_on(stacks)
    for play in plays:
        assert evaluate(stacks, list(play.placements), dictionary, first=first) == play
        cells = {(p.row, p.col) for p in play.placements}
        assert all(word - cells for word in words)
        assert main_word(play).text in dictionary
    keys = [(-p.score, -len(p.placements), main_word(p).text) for p in plays]
    assert keys == sorted(keys)


# --- parse_rack ---------------------------------------------------------------------------


def test_parse_rack_reads_letters_and_the_qu_tile() -> None:
    assert parse_rack("aeirstqu") == ["A", "E", "I", "R", "S", "T", "QU"]
    assert parse_rack(" q u u ") == ["QU", "U"]
    assert parse_rack("QZ") == ["QU", "Z"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("ABCDEFGHI", "rack has 9 tiles: at most 7"),
        ("AB1", "'1' is not a letter"),
        ("   ", "the rack is empty: type your tiles, e.g. AEIRSTQU"),
        ("ZZA", "rack has 2 Z tiles: the game has only 1"),
    ],
)
def test_parse_rack_rejects_what_no_rack_holds(text: str, message: str) -> None:
    with pytest.raises(InputError) as err:
        parse_rack(text)
    assert str(err.value) == message


# --- best plays -------------------------------------------------------------------------


@pytest.mark.parametrize("rack", ["QUIETSA", "AEINRST", "EEOOAIU"])
def test_first_move_is_the_best_word_the_rack_spells_on_a_centre_square(
    dictionary, rack: str
) -> None:
    tiles = parse_rack(rack)
    plays = best_plays(EMPTY, tiles, dictionary, first=True, time_budget=30)
    assert plays
    _check_plays(plays, EMPTY, dictionary, first=True)
    for play in plays:
        assert {(p.row, p.col) for p in play.placements} & CENTRE
    # On the empty board every tile is one high: the rulebook's 2 a tile, +2 for the Qu, +20
    # for all seven, for the best word the rack's tiles spell, whatever its place.
    have = Counter(tiles)
    best = 0
    for word in dictionary.words:
        spelt = Counter(re.findall("QU|[A-Z]", word))
        if len(word) >= 2 and not spelt - have:
            n = spelt.total()
            best = max(best, 2 * n + 2 * ("QU" in spelt) + 20 * (n == 7))
    assert plays[0].score == best


def test_mid_game_plays_are_legal_and_some_stack(dictionary, golden) -> None:
    plays = best_plays(
        golden, parse_rack("AEINRST"), dictionary, first=False, limit=200, time_budget=30
    )
    assert len(plays) == 200
    _check_plays(plays, golden, dictionary, first=False)
    assert any(golden[p.row * SIZE + p.col] for play in plays for p in play.placements)


def test_a_full_stack_and_the_same_letter_are_never_covered(dictionary, golden) -> None:
    plays = best_plays(
        golden, parse_rack("OLWA"), dictionary, first=False, limit=10**6, time_budget=30
    )
    assert plays
    for play in plays:
        for p in play.placements:
            stack = golden[p.row * SIZE + p.col]
            assert len(stack) < MAX_HEIGHT
            assert not stack or stack[-1] != p.letter


def _brute_force(stacks: Stacks, rack: list[str], dictionary) -> dict[frozenset, int]:
    """Every way to put some of ``rack`` along a line that the rules accept, and its score."""
    legal = {}
    lines = [[(r, c) for c in range(SIZE)] for r in range(SIZE)]
    lines += [[(r, c) for r in range(SIZE)] for c in range(SIZE)]
    for line in lines:
        for n in range(1, len(rack) + 1):
            for squares in itertools.combinations(line, n):
                for letters in set(itertools.permutations(rack, n)):
                    placements = [
                        Placement(r, c, x) for (r, c), x in zip(squares, letters, strict=True)
                    ]
                    with contextlib.suppress(IllegalPlay):
                        play = evaluate(stacks, placements, dictionary, first=False)
                        legal[frozenset(placements)] = play.score
    return legal


def _with_full_stack(stacks: Stacks) -> Stacks:
    """The golden board with a five-high stack under the O of WOOL at r4c4."""
    out = list(stacks)
    out[4 * SIZE + 4] = ("A", "B", "C", "D", "O")
    return tuple(out)


@pytest.mark.parametrize(
    ("board", "rack"),
    [("golden", ["O", "E", "S"]), ("golden", ["QU", "I", "T"]), ("crowded", ["A", "E", "R"])],
)
def test_the_generator_finds_exactly_what_a_brute_force_finds(
    dictionary, request, board: str, rack: list[str]
) -> None:
    stacks = request.getfixturevalue(board)
    if board == "golden":
        stacks = _with_full_stack(stacks)
    brute = _brute_force(stacks, rack, dictionary)
    plays = best_plays(stacks, rack, dictionary, first=False, limit=None, time_budget=60)
    found = {frozenset(play.placements): play.score for play in plays}
    assert len(brute) > 20
    assert any(stacks[p.row * SIZE + p.col] for key in brute for p in key)
    assert found == brute
    assert plays[0].score == max(brute.values())


@pytest.mark.parametrize("board", ["golden", "crowded"])
def test_a_mid_game_search_fits_a_phone_request(dictionary, request, board: str) -> None:
    stacks = request.getfixturevalue(board)
    best_plays(stacks, parse_rack("AEINRST"), dictionary, first=False)  # index built once
    times = []
    for rack in ("AEINRST", "QUIETSA", "EEOOAIU", "BCDGHLM", "SSEERTT"):
        started = time.perf_counter()
        plays = best_plays(stacks, parse_rack(rack), dictionary, first=False, time_budget=10)
        times.append(time.perf_counter() - started)
        _check_plays(plays, stacks, dictionary, first=False)
    assert statistics.median(times) < 3.0, times


def test_a_spent_time_budget_returns_only_what_was_evaluated(dictionary, golden) -> None:
    assert best_plays(golden, parse_rack("AEINRST"), dictionary, first=False, time_budget=0) == []


# --- the page's answer -------------------------------------------------------------------


def test_rack_helper_lists_the_best_plays_for_the_page(dictionary, golden) -> None:
    answer = rack_helper(golden, "aeirs tqu", dictionary, first=False)
    assert answer["title"] == "Best plays for AEIRSTQU"
    best = best_plays(golden, parse_rack("AEIRSTQU"), dictionary, first=False)
    items = answer["items"]
    assert len(items) == 10
    assert items[0]["score"] == best[0].score
    assert [item["score"] for item in items] == sorted((i["score"] for i in items), reverse=True)
    for item in items:
        assert re.fullmatch(r"[A-Z]+ (across|down) at r\dc\d for \d+", item["label"])
        assert item["label"].startswith(f"{item['word']} ")
        placements = [Placement(*parse_cell(c["cell"]), c["letter"]) for c in item["cells"]]
        play = evaluate(golden, placements, dictionary, first=False)
        assert (main_word(play).text, play.score) == (item["word"], item["score"])


def test_rack_helper_shows_each_word_once_on_the_empty_board(dictionary) -> None:
    items = rack_helper(EMPTY, "AEINRST", dictionary, first=True)["items"]
    assert len(items) == 10
    assert len({item["word"] for item in items}) == 10
    assert items[0]["score"] == 34  # seven tiles one high, +20


def test_rack_helper_says_when_nothing_can_be_played(dictionary) -> None:
    answer = rack_helper(EMPTY, "xz", dictionary, first=True)
    assert answer == {"title": "No play for XZ: pass or exchange a tile", "items": []}


def test_rack_helper_turns_a_bad_rack_into_a_message(dictionary) -> None:
    with pytest.raises(InputError, match="at most 7"):
        rack_helper(EMPTY, "ABCDEFGH", dictionary, first=True)
