"""The upwords rules: every turn and scoring rule, the rulebook's golden sequence, the match."""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import InputError
from companion.games.base import Verdict
from companion.games.upwords.dictionary import load_dictionary, split_tiles
from companion.games.upwords.model import (
    CENTRE,
    LETTERS,
    MAX_HEIGHT,
    SIZE,
    TILE_COUNTS,
    Board,
    Stacks,
)
from companion.games.upwords.play import (
    IllegalPlay,
    Placement,
    apply,
    empty_stacks,
    evaluate,
    tile_counts,
)
from companion.games.upwords.rules import UpwordsMatch, match_settings

WORDS = load_dictionary()

# The rulebook's example game (games/upwords.md): tiles played, words formed, turn scores.
GOLDEN: list[tuple[list[tuple[int, int, str]], list[tuple[str, int]], int]] = [
    ([(4, 2, "M"), (4, 3, "O"), (4, 4, "O"), (4, 5, "D")], [("MOOD", 8)], 8),
    ([(5, 5, "E"), (6, 5, "A"), (7, 5, "R")], [("DEAR", 8)], 8),
    ([(5, 4, "N"), (5, 6, "T")], [("NET", 6), ("ON", 4)], 10),
    ([(4, 2, "W")], [("WOOD", 5)], 5),
    ([(4, 5, "L"), (7, 5, "P")], [("LEAP", 6), ("WOOL", 6)], 12),
    (
        [(7, 4, "S"), (7, 5, "N"), (7, 6, "A"), (7, 7, "C"), (7, 8, "K")],
        [("SNACK", 7), ("LEAN", 7)],
        14,
    ),
    ([(2, 7, "P"), (3, 7, "L"), (4, 7, "U"), (5, 7, "S")], [("PLUS", 8), ("NETS", 8)], 16),
]


def tiles(*spec: tuple[int, int, str]) -> list[Placement]:
    return [Placement(r, c, letter) for r, c, letter in spec]


def across(row: int, col: int, word: str) -> list[Placement]:
    return [Placement(row, col + i, t) for i, t in enumerate(split_tiles(word))]


def down(row: int, col: int, word: str) -> list[Placement]:
    return [Placement(row + i, col, t) for i, t in enumerate(split_tiles(word))]


def played(*plays: list[Placement]) -> Stacks:
    """The history after ``plays``, each checked by the rules."""
    stacks = empty_stacks()
    for placements in plays:
        evaluate(stacks, placements, WORDS, first=not any(stacks))
        stacks = apply(stacks, placements)
    return stacks


def reason(stacks: Stacks, placements: list[Placement], *, first: bool = False) -> str:
    with pytest.raises(IllegalPlay) as err:
        evaluate(stacks, placements, WORDS, first=first)
    return str(err.value)


def started(*names: str, **options: object) -> UpwordsMatch:
    match = UpwordsMatch({"names": list(names or ("Ann", "Bob")), "seed": 1, **options})
    assert match.judge(Board.empty()).legal
    return match


def event(match: UpwordsMatch, kind: str, **fields: object) -> Verdict:
    verdict = match.handle({"event": kind, **fields})
    assert verdict is not None
    return verdict


def board_after(match: UpwordsMatch, placements: list[Placement]) -> Board:
    return Board.from_stacks(apply(match.stacks, placements))


# --- evaluate: scoring --------------------------------------------------------------------------


def test_golden_sequence_scores_8_8_10_5_12_14_16() -> None:
    stacks = empty_stacks()
    for i, (spec, words, score) in enumerate(GOLDEN):
        play = evaluate(stacks, tiles(*spec), WORDS, first=i == 0)
        assert [(w.text, w.score) for w in play.words] == words
        assert play.score == score and play.bonus == 0
        stacks = apply(stacks, play.placements)
    assert stacks[7 * SIZE + 5] == ("R", "P", "N")
    assert Board.from_stacks(stacks)[4, 2] == (2, "W")


def test_words_carry_their_cells_in_reading_order() -> None:
    stacks = played(across(4, 2, "MOOD"), down(5, 5, "EAR"))
    play = evaluate(stacks, tiles((5, 4, "N"), (5, 6, "T")), WORDS, first=False)
    assert play.words[0].cells == ((5, 4), (5, 5), (5, 6))
    assert play.words[1].cells == ((4, 4), (5, 4))


def test_qu_bonus_only_on_flat_words() -> None:
    assert evaluate(empty_stacks(), across(4, 3, "QUIT"), WORDS, first=True).score == 3 * 2 + 2
    stacks = played(across(4, 3, "QUIT"))
    # QUIT -> QUIP by a P on the T: stacked, so 1 a tile and no Qu bonus
    assert evaluate(stacks, tiles((4, 5, "P")), WORDS, first=False).score == 1 + 1 + 2


def test_all_seven_tiles_score_20_more() -> None:
    play = evaluate(empty_stacks(), across(4, 1, "PLAYERS"), WORDS, first=True)
    assert play.bonus == 20 and play.score == 14 + 20


def test_every_word_formed_scores_and_a_single_tile_reads_both_ways() -> None:
    stacks = played(across(4, 4, "AT"), down(5, 4, "X"))  # AX down
    play = evaluate(stacks, tiles((5, 5, "I")), WORDS, first=False)  # TI down, XI across
    assert sorted((w.text, w.score) for w in play.words) == [("TI", 4), ("XI", 4)]
    assert play.score == 8


# --- evaluate: every illegal play -----------------------------------------------------------------


def test_words_must_be_in_the_dictionary() -> None:
    assert reason(empty_stacks(), across(4, 4, "QUX"), first=True) == "QUX is not a word"
    stacks = played(across(4, 4, "AT"))
    assert reason(stacks, tiles((3, 5, "Z"), (5, 5, "V"))) == "ZTV is not a word"
    assert reason(stacks, tiles((5, 4, "X"), (5, 5, "V"))) == "XV and TV are not words"


def test_never_a_letter_on_the_same_letter() -> None:
    stacks = played(across(4, 2, "MOOD"))
    assert reason(stacks, tiles((4, 3, "O"))) == "an O on an O at r4c3"
    assert reason(stacks, tiles((4, 5, "D"))) == "a D on a D at r4c5"


def test_stacks_are_at_most_five_high() -> None:
    stacks = list(played(across(4, 4, "AT")))
    stacks[4 * SIZE + 4] = ("A", "E", "I", "O", "A")
    assert reason(tuple(stacks), tiles((4, 4, "U"))) == "stacks are at most 5 tiles high"
    stacks[4 * SIZE + 4] = ("A", "E", "I", "A")
    assert evaluate(tuple(stacks), tiles((4, 4, "U")), WORDS, first=False).words[0].text == "UT"


def test_first_word_covers_a_centre_square_and_has_two_letters() -> None:
    first = "the first word must cover a centre square"
    assert reason(empty_stacks(), across(0, 0, "AT"), first=True) == first
    assert reason(empty_stacks(), across(3, 4, "AT"), first=True) == first
    assert reason(empty_stacks(), across(4, 5, "A"), first=True) == (
        "a play must make a word of two letters or more"
    )
    assert evaluate(empty_stacks(), down(5, 5, "AT"), WORDS, first=True).score == 4


def test_tiles_in_one_line_without_gaps() -> None:
    stacks = played(across(4, 2, "MOOD"))
    assert reason(stacks, tiles((3, 3, "A"), (5, 4, "N"))) == (
        "the tiles must be in one row or one column"
    )
    assert reason(stacks, tiles((4, 6, "S"), (4, 8, "X"))) == "there is a gap at r4c7"
    assert reason(stacks, tiles((2, 3, "N"), (5, 3, "N"))) == "there is a gap at r3c3"
    # tiles on both sides of a word already there leave no gap: one word through all
    play = evaluate(played(across(4, 4, "AT")), tiles((4, 3, "B"), (4, 6, "H")), WORDS, first=False)
    assert [(w.text, w.cells[0], w.score) for w in play.words] == [("BATH", (4, 3), 8)]


def test_later_words_must_connect() -> None:
    stacks = played(across(4, 2, "MOOD"))
    assert reason(stacks, across(0, 0, "AT")) == (
        "the word must connect to the tiles already on the board"
    )
    assert reason(stacks, down(5, 6, "AT")) == (
        "the word must connect to the tiles already on the board"
    )
    assert evaluate(stacks, down(5, 5, "EAR"), WORDS, first=False).score == 8


def test_one_tile_per_stack_per_turn() -> None:
    stacks = played(across(4, 2, "MOOD"))
    assert reason(stacks, tiles((4, 3, "A"), (4, 3, "I"))) == "only one tile per stack per turn"


def test_a_whole_word_cannot_be_covered() -> None:
    stacks = played(across(4, 4, "AT"))
    assert reason(stacks, across(4, 4, "ON")) == (
        "you cannot cover a whole word: AT would be covered entirely"
    )
    assert reason(stacks, across(4, 4, "ONE")) == (
        "you cannot cover a whole word: AT would be covered entirely"
    )
    # changing one letter of it is fine, as is covering one letter of a crossing word
    assert evaluate(stacks, tiles((4, 4, "I")), WORDS, first=False).words[0].text == "IT"
    play = evaluate(stacks, down(4, 5, "NO"), WORDS, first=False)
    assert [(w.text, w.score) for w in play.words] == [("NO", 3), ("AN", 3)]


def test_only_an_s_for_a_plural_is_not_a_play() -> None:
    stacks = played(across(4, 3, "NET"))
    assert reason(stacks, tiles((4, 6, "S"))) == (
        "adding only an S to make a plural (NETS) is not allowed"
    )
    # an S in front is a new word, and an S making a second word too is fine (PLUS / NETS)
    assert evaluate(played(across(4, 4, "HE")), tiles((4, 3, "S")), WORDS, first=False).score == 6
    stacks = apply(empty_stacks(), across(4, 3, "NET") + down(2, 6, "HA"))
    play = evaluate(stacks, tiles((4, 6, "S")), WORDS, first=False)
    assert [(w.text, w.score) for w in play.words] == [("NETS", 8), ("HAS", 6)]
    # an S on a stack changes a letter: not an S added
    stacks = played(across(4, 4, "HAT"))
    play = evaluate(stacks, tiles((4, 6, "S")), WORDS, first=False)
    assert [(w.text, w.score) for w in play.words] == [("HAS", 4)]


def test_tile_counts_of_the_set() -> None:
    stacks = list(empty_stacks())
    for col in range(8):
        stacks[9 * SIZE + col] = ("E",)
    stacks[9 * SIZE + 9] = ("J",)
    assert reason(tuple(stacks), across(4, 4, "HE"), first=True) == (
        "there are only 8 Es in the set"
    )
    assert reason(tuple(stacks), across(4, 4, "JA"), first=True) == ("there is only 1 J in the set")
    assert tile_counts(tuple(stacks))["E"] == 8


def test_a_rack_holds_seven_tiles() -> None:
    assert reason(empty_stacks(), across(4, 0, "OVERSEAS"), first=True) == (
        "a rack holds 7 tiles, but 8 were played"
    )
    assert reason(empty_stacks(), [], first=True) == "no tile was played"


# --- the match ------------------------------------------------------------------------------------


def test_match_settings_defaults_and_checks(tmp_path: Path) -> None:
    filled = match_settings({})
    assert filled["players"] == 2 and filled["names"] == ["Player 1", "Player 2"]
    assert isinstance(filled["seed"], int) and filled["first"] == 0
    assert filled["wordlist"] is None and filled["extra"] is None
    assert match_settings(filled) == filled
    assert match_settings({"names": ["A", "B", "C"]})["players"] == 3
    for bad in (
        {"players": 1},
        {"players": 5},
        {"players": True},
        {"names": ["A"], "players": 2},
        {"names": ["A", " "]},
        {"seed": "x"},
        {"first": 2},
        {"wordlist": 3},
        {"extra": ""},
    ):
        with pytest.raises(InputError):
            match_settings(bad)
    with pytest.raises(InputError, match="does not exist"):
        match_settings({"extra": str(tmp_path / "missing.txt")})


def test_golden_sequence_through_the_match() -> None:
    match = UpwordsMatch({"names": ["Ann", "Bob"], "seed": 3})
    start = match.judge(Board.empty())
    assert start.legal and start.text == "The board is empty; Ann plays first."
    verdicts = []
    for spec, words, score in GOLDEN:
        verdict = match.judge(board_after(match, tiles(*spec)))
        assert verdict.legal, verdict.reason
        assert verdict.score == score
        assert verdict.extra["words"] == [w for w, _ in words]
        assert verdict.move is not None
        assert verdict.move["words"] == [{"word": w, "score": s} for w, s in words]
        verdicts.append(verdict)
    assert verdicts[0].text == "Ann plays MOOD for 8."
    assert verdicts[0].move is not None
    assert verdicts[0].move["placements"][0] == {"cell": "r4c2", "letter": "M"}
    assert verdicts[2].text == "Ann plays NET and ON for 10."
    assert [v.player for v in verdicts] == [0, 1, 0, 1, 0, 1, 0]
    assert match.scores == (8 + 10 + 12 + 16, 8 + 5 + 14)
    assert verdicts[-1].extra["scores"] == [46, 27] and verdicts[-1].extra["next"] == 1
    assert match.state[7, 5] == (3, "N")
    assert match.public_view()["players"] == [
        {"name": "Ann", "score": 46},
        {"name": "Bob", "score": 27},
    ]


def test_the_first_board_must_be_empty() -> None:
    match = UpwordsMatch({"seed": 1})
    board = Board.from_stacks(apply(empty_stacks(), across(4, 2, "MOOD")))
    verdict = match.judge(board)
    assert not verdict.legal
    assert (
        verdict.reason
        == "the board must be empty at the start: take the tiles off r4c2, r4c3, r4c4, r4c5"
    )
    assert event(match, "pass").legal is False
    assert match.judge(Board.empty()).legal
    assert match.judge(board).legal


def test_an_illegal_play_leaves_the_match_unchanged() -> None:
    match = started()
    match.judge(board_after(match, across(4, 2, "MOOD")))
    state, scores = match.state, match.scores
    verdict = match.judge(board_after(match, tiles((4, 3, "X"))))  # MXOD
    assert not verdict.legal and verdict.reason == "MXOD is not a word"
    assert verdict.player == 1 and verdict.score is None
    assert verdict.text == "Bob: MXOD is not a word."
    assert (match.state, match.scores, match.to_move) == (state, scores, 1)
    lost = Board(tuple((0, "") if i == 4 * SIZE + 2 else sq for i, sq in enumerate(state.squares)))
    assert match.judge(lost).reason == "r4c2 lost a tile: a misread, or a tile was taken off"
    assert match.judge(state).reason.startswith("no tile was played")


def test_height_warnings_reach_the_verdict_and_history_wins() -> None:
    match = started()
    match.judge(board_after(match, across(4, 2, "MOOD")))
    squares = list(board_after(match, tiles((4, 2, "W"))).squares)
    squares[4 * SIZE + 2] = (1, "W")  # the camera missed the M under the W
    verdict = match.judge(Board(tuple(squares)))
    assert verdict.legal and verdict.score == 5
    assert verdict.extra["height_warnings"] == ["camera reads r4c2 as 1 high, history says 2"]
    assert match.state[4, 2] == (2, "W")


def test_challenge_takes_back_the_last_play() -> None:
    match = started()
    assert event(match, "challenge").reason == "there is no play to take back"
    match.judge(board_after(match, across(4, 2, "MOOD")))
    before = match.state
    match.judge(board_after(match, down(5, 5, "EAR")))
    assert match.last_play is not None and match.scores == (8, 8)
    verdict = match.handle({"event": "challenge"})
    assert verdict is not None and verdict.legal and verdict.player == 1
    assert verdict.text == "Bob's DEAR is taken back, 8 points off; Bob plays again."
    assert (match.state, match.scores, match.to_move) == (before, (8, 0), 1)
    again = match.handle({"event": "challenge"})
    assert again is not None and not again.legal  # only the latest play can be taken back
    assert match.judge(board_after(match, down(5, 5, "EAR"))).legal


def test_challenge_after_a_pass_returns_the_turn_to_the_player() -> None:
    match = started("Ann", "Bob", "Cid")
    match.judge(board_after(match, across(4, 2, "MOOD")))
    match.handle({"event": "pass"})
    assert event(match, "challenge").legal
    assert (match.state, match.scores, match.to_move) == (Board.empty(), (0, 0, 0), 0)
    assert match.public_view()["passes"] == 0


def test_pass_exchange_and_the_end_by_passes() -> None:
    match = started()
    match.judge(board_after(match, across(4, 2, "MOOD")))
    verdict = match.handle({"event": "pass"})
    assert verdict is not None and verdict.legal and verdict.player == 1
    assert match.public_view()["passes"] == 1
    exchange = match.handle({"event": "exchange"})
    assert exchange is not None and exchange.legal and exchange.player == 0
    assert exchange.text == "Ann exchanges a tile."
    assert match.public_view()["passes"] == 0 and match.to_move == 1
    match.handle({"event": "pass"})
    assert not match.finished
    last = match.handle({"event": "pass"})
    assert last is not None and match.finished and match.winner == 0
    assert "every player passed in a row" in last.text and "Ann wins with 8 points" in last.text
    assert not event(match, "pass").legal
    assert not match.judge(board_after(match, down(5, 5, "EAR"))).legal
    # the racks can still be counted once
    end = match.handle({"event": "end", "racks": [2, 0]})
    assert end is not None and end.legal and match.scores == (-2, 0) and match.winner == 1
    assert not event(match, "end", racks=[0, 0]).legal


def test_end_with_racks_and_a_draw() -> None:
    match = started("Ann", "Bob")
    match.judge(board_after(match, across(4, 4, "AT")))
    match.judge(board_after(match, down(5, 5, "O")))  # TO: 4
    for bad in (
        {"event": "end"},
        {"event": "end", "racks": [1]},
        {"event": "end", "racks": [8, 0]},
    ):
        with pytest.raises(InputError):
            match.handle(bad)
    verdict = match.handle({"event": "end", "racks": [3, 3]})
    assert verdict is not None and verdict.legal and match.finished
    assert match.scores == (-11, -11) and match.winner is None
    assert verdict.text == "Game over (Ann -15, Bob -15 for tiles left): the game is drawn."


def test_unknown_events_are_input_errors() -> None:
    with pytest.raises(InputError, match="no event 'spin'"):
        started().handle({"event": "spin"})
    with pytest.raises(InputError):
        started().handle("pass")  # type: ignore[arg-type]


def test_the_set_limits_letters_over_the_whole_game(tmp_path: Path) -> None:
    path = tmp_path / "words.txt"
    path.write_text("ssssss\nsss\n")
    match = started(wordlist=str(path))
    assert match.judge(board_after(match, across(4, 2, "SSSSSS"))).score == 12
    verdict = match.judge(board_after(match, down(3, 3, "S") + down(5, 3, "S")))
    assert not verdict.legal and verdict.reason == "there are only 6 Ss in the set"
    assert tile_counts(match.stacks)["S"] == TILE_COUNTS["S"]


def test_public_and_private_views() -> None:
    match = started("Ann", "Bob", "Cid")
    match.judge(board_after(match, across(4, 2, "MOOD")))
    view = match.public_view()
    assert view["to_move"] == 1 and view["winner"] is None and view["passes"] == 0
    assert view["tiles_left"] == 100 - 4 - 3 * 7
    assert [a["event"] for a in view["actions"]] == ["pass", "exchange", "challenge", "end"]
    assert view["actions"][3] == {"event": "end", "label": "End game", "fields": "racks"}
    private = match.private_view(0)
    assert private["title"] == "Rack helper" and private["items"] == []
    assert private["query"]["label"] == "Your tiles"


def test_a_custom_word_list_decides_what_is_a_word(tmp_path: Path) -> None:
    path = tmp_path / "words.txt"
    path.write_text("mood\nmoods\n")
    match = started(wordlist=str(path))
    assert match.judge(board_after(match, across(4, 2, "MOOD"))).legal
    assert match.judge(board_after(match, down(5, 5, "EAR"))).reason == "DEAR is not a word"


# --- properties -----------------------------------------------------------------------------------


@cache
def _words_by_tile() -> dict[str, list[tuple[str, ...]]]:
    """Words of 2-5 tiles, by each tile they use: candidates to lay through a square."""
    out: dict[str, list[tuple[str, ...]]] = {}
    for word in sorted(WORDS.words):
        if 2 <= len(word) <= 5:
            spelled = split_tiles(word)
            for tile in set(spelled):
                out.setdefault(tile, []).append(spelled)
    return out


def _find_play(stacks: Stacks, rng: random.Random) -> list[Placement] | None:
    """A legal play found by laying random words through a square (on it, or stacked over it)."""
    first = not any(stacks)
    occupied = [divmod(i, SIZE) for i, stack in enumerate(stacks) if stack]
    for _ in range(400):
        anchor = rng.choice(sorted(CENTRE) if first else occupied)
        top = stacks[anchor[0] * SIZE + anchor[1]]
        tile = top[-1] if top and rng.random() < 0.6 else rng.choice(LETTERS)
        word = rng.choice(_words_by_tile()[tile])
        k = rng.choice([j for j, t in enumerate(word) if t == tile])
        dr, dc = rng.choice([(0, 1), (1, 0)])
        cells = [(anchor[0] + dr * (j - k), anchor[1] + dc * (j - k)) for j in range(len(word))]
        if not all(0 <= r < SIZE and 0 <= c < SIZE for r, c in cells):
            continue
        placements = [
            Placement(r, c, t)
            for (r, c), t in zip(cells, word, strict=True)
            if not stacks[r * SIZE + c] or stacks[r * SIZE + c][-1] != t
        ]
        try:
            evaluate(stacks, placements, WORDS, first=first)
        except IllegalPlay:
            continue
        return placements
    return None


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 4), turns=st.integers(1, 14))
def test_random_legal_games_keep_score_and_board(seed: int, players: int, turns: int) -> None:
    rng = random.Random(seed)
    match = started(*["Ann", "Bob", "Cid", "Dee"][:players])
    totals = [0] * players
    for _ in range(turns):
        placements = _find_play(match.stacks, rng)
        if placements is None:  # a crowded board can defeat a random search
            break
        before, mover = match.stacks, match.to_move
        expected = evaluate(before, placements, WORDS, first=not any(before))
        after = apply(before, placements)
        verdict = match.judge(Board.from_stacks(after))
        assert verdict.legal, verdict.reason
        assert (
            verdict.score
            == expected.score
            == sum(w.score for w in expected.words) + (expected.bonus)
        )
        assert all(word in WORDS for word in verdict.extra["words"])
        assert match.stacks == after and match.state == Board.from_stacks(after)
        assert Board.from_rows(match.state.rows()) == match.state
        assert all(len(stack) <= MAX_HEIGHT for stack in after)
        assert all(n <= TILE_COUNTS[t] for t, n in tile_counts(after).items())
        totals[mover] += expected.score
        if rng.random() < 0.15:
            assert event(match, "challenge").legal
            assert match.stacks == before and match.to_move == mover
            totals[mover] -= expected.score
        assert list(match.scores) == totals


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.lists(st.sampled_from(LETTERS), max_size=MAX_HEIGHT), min_size=100, max_size=100)
)
def test_board_notation_round_trips(columns: list[list[str]]) -> None:
    stacks = tuple(tuple(stack) for stack in columns)
    board = Board.from_stacks(stacks)
    assert Board.from_rows(board.rows()) == board
    assert all(
        board[divmod(i, SIZE)] == ((len(s), s[-1]) if s else (0, "")) for i, s in enumerate(stacks)
    )
