"""The amoeba referee: settings, turns, amoeba calls, scoring, hands and the end of the game."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import InputError
from companion.games.amoeba.model import Tray
from companion.games.amoeba.rules import AmoebaMatch, match_settings

START = Tray.start(0)
# From the start, turning any of the inner 5x5 tiles forms card 1 (8 arcs round two corners);
# after TWO_SHAPES[:-1], the last turn forms cards 2 and 1 at once (found by a random search).
CARD_1_KEY = [[0, 0], [0, 2], [2, 0], [2, 4], [4, 2], [4, 6], [6, 4], [6, 6]]
TWO_SHAPES = [(0, 6), (2, 5), (4, 2), (3, 3), (2, 3), (0, 0), (2, 4), (2, 3)]


def _board(match: AmoebaMatch, *tiles: tuple[int, int]) -> Tray:
    tray = match.state
    for tile in tiles:
        tray = tray.turned(*tile)
    return tray


def _entered(players: int = 2, **options: object) -> AmoebaMatch:
    """A started match where the players enter their own cards (hands empty until they do)."""
    names = ["Ann", "Bob", "Cid", "Dee"][:players]
    match = AmoebaMatch({"names": names, "seed": 1, "deal": False, **options})
    assert match.judge(START).legal
    return match


def _hand(match: AmoebaMatch, player: int, cards: list[int]) -> None:
    match.handle({"event": "hand", "player": player, "cards": cards})


def test_settings_fill_defaults_and_replay_the_same() -> None:
    filled = match_settings({})
    assert filled["players"] == 2 and filled["names"] == ["Player 1", "Player 2"]
    assert isinstance(filled["seed"], int)
    assert filled["deal"] is True and filled["deck"] is None
    assert filled["target"] == 50 and filled["first"] == 0
    assert match_settings(filled) == filled
    assert match_settings({"names": ["A", "B", "C"]})["players"] == 3


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"players": 5}, "2 to 4 players"),
        ({"players": True}, "2 to 4 players"),
        ({"players": 3, "names": ["A", "B"]}, "must list 3"),
        ({"seed": "x"}, "'seed'"),
        ({"deal": "yes"}, "'deal'"),
        ({"target": 0}, "'target'"),
        ({"first": 2}, "'first'"),
        ({"deck": 3}, "'deck'"),
    ],
)
def test_bad_settings_are_one_line_input_errors(options: dict, message: str) -> None:
    with pytest.raises(InputError, match=message) as err:
        match_settings(options)
    assert "\n" not in str(err.value)


def test_a_users_deck_is_checked_with_the_settings_and_used(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read deck file"):
        match_settings({"deck": str(tmp_path / "missing.json")})
    path = tmp_path / "deck.json"
    path.write_text(json.dumps({"cards": [{"id": 9, "points": 4, "key": CARD_1_KEY}]}))
    match = AmoebaMatch({"seed": 2, "deck": str(path)})
    assert [c.id for c in match.hand(0)] == [9] and match.hand(1) == ()
    match.judge(START)
    assert match.judge(_board(match, (1, 1))).score == 4


def test_a_board_that_is_not_the_circles_is_not_a_start() -> None:
    match = AmoebaMatch({"seed": 3})
    verdict = match.judge(START.turned(0, 0).turned(3, 3))
    assert not verdict.legal
    assert verdict.reason == "the tray is not set up in the pattern of circles: 2 tiles differ"
    assert match.state == START and not match.public_view()["started"]
    assert match.legal_tiles() == []


def test_either_phase_of_circles_starts_the_game() -> None:
    match = AmoebaMatch({"seed": 3, "first": 1})
    verdict = match.judge(Tray.start(1))
    assert verdict.legal and verdict.reason == "start position" and verdict.player is None
    assert match.state == Tray.start(1) and match.public_view()["started"]
    assert match.to_move == 1 and len(match.legal_tiles()) == 49


def test_two_tiles_or_none_is_not_a_turn() -> None:
    match = _entered()
    verdict = match.judge(_board(match, (1, 2), (3, 4)))
    assert not verdict.legal and verdict.player == 0
    assert verdict.reason == "2 tiles turned (r1c2, r3c4): a turn is one quarter turn of one tile"
    assert not match.judge(match.state).legal
    assert match.state == START and match.to_move == 0


def test_a_tile_cannot_be_turned_by_the_opponent_right_after() -> None:
    match = _entered()
    verdict = match.judge(_board(match, (0, 0)))
    assert verdict.legal and verdict.move == {"tile": "r0c0", "to": 1}
    assert verdict.extra["next"] == 1 and verdict.text == "Ann turns r0c0; Bob to move."
    before = match.state
    verdict = match.judge(_board(match, (0, 0)))
    assert not verdict.legal and verdict.player == 1
    assert verdict.reason == (
        "r0c0 was turned in the previous move: a tile may not be turned in two consecutive moves"
    )
    assert match.state == before and match.to_move == 1
    assert match.last_tile == (0, 0) and (0, 0) not in match.legal_tiles()
    assert match.judge(_board(match, (0, 6))).legal
    assert match.judge(_board(match, (0, 0))).legal  # not the previous move any more


def test_own_amoeba_scores_and_plays_again_but_not_the_same_tile() -> None:
    match = _entered()
    _hand(match, 0, [1, 40])
    _hand(match, 1, [41])
    verdict = match.judge(_board(match, (2, 2)))
    assert verdict.legal and verdict.reason == "amoeba" and verdict.score == 1
    assert verdict.extra["amoebas"] == [
        {"player": 0, "card": 1, "points": 1, "key": [list(p) for p in match.deck[0].key]}
    ]
    assert verdict.extra["extra_turn"] and verdict.extra["next"] == 0
    assert verdict.text == "Ann turns r2c2: amoeba! card 1 scores 1 for Ann; Ann plays again."
    assert len(verdict.svgs) == 1 and "<svg" in verdict.svgs[0]
    assert match.scores == (1, 0) and [c.id for c in match.hand(0)] == [40]
    assert match.discards == (1,)
    assert not match.judge(_board(match, (2, 2))).legal
    assert match.judge(_board(match, (0, 0))).player == 0


def test_opponent_amoeba_scores_and_play_goes_on_in_order() -> None:
    match = _entered(3)
    _hand(match, 2, [1])
    verdict = match.judge(_board(match, (3, 3)))
    assert verdict.score == 0 and not verdict.extra["extra_turn"]
    assert verdict.extra["amoebas"][0]["player"] == 2 and verdict.extra["next"] == 1
    assert verdict.extra["scores"] == [0, 0, 1]
    assert verdict.text == "Ann turns r3c3: amoeba! card 1 scores 1 for Cid; Bob to move."
    assert match.public_view()["players"][2] == {
        "name": "Cid",
        "score": 1,
        "cards": 0,
        "detail": "0 cards",
    }


def _before_two_shapes(**options: object) -> AmoebaMatch:
    match = _entered(**options)
    for tile in TWO_SHAPES[:-1]:
        assert match.judge(_board(match, tile)).extra["amoebas"] == []
    assert match.to_move == 1
    return match


def test_one_turn_can_score_for_both_players() -> None:
    match = _before_two_shapes()
    _hand(match, 0, [1])
    _hand(match, 1, [2])
    verdict = match.judge(_board(match, TWO_SHAPES[-1]))
    assert [(a["player"], a["card"]) for a in verdict.extra["amoebas"]] == [(1, 2), (0, 1)]
    assert verdict.score == 1 and verdict.extra["extra_turn"] and match.to_move == 1
    assert len(verdict.svgs) == 2


def test_one_turn_can_make_two_of_the_movers_shapes_and_win() -> None:
    match = _before_two_shapes(target=2)
    _hand(match, 1, [1, 2, 3])
    verdict = match.judge(_board(match, TWO_SHAPES[-1]))
    assert verdict.score == 2 and match.scores == (0, 2)
    assert [c.id for c in match.hand(1)] == [3]
    assert match.finished and verdict.extra["winner"] == 1


def test_reaching_the_target_ends_the_game_and_ties_go_to_the_mover() -> None:
    match = _before_two_shapes(target=1)
    _hand(match, 0, [1])
    _hand(match, 1, [2])
    verdict = match.judge(_board(match, TWO_SHAPES[-1]))
    assert verdict.extra["winner"] == 1 and match.finished and match.winner == 1
    assert verdict.text.endswith("; Bob wins with 1 points.")
    late = match.judge(_board(match, (6, 6)))
    assert not late.legal and late.reason == "the game is over: Bob wins with 1 points"
    assert match.legal_tiles() == []


def test_preview_does_not_play() -> None:
    match = _entered()
    _hand(match, 0, [1])
    verdict = match.preview(2, 2)
    assert verdict.legal and verdict.score == 1
    assert match.state == START and match.scores == (0, 0) and match.to_move == 0
    assert match.preview(2, 2) == verdict


def test_hand_events_are_checked() -> None:
    match = _entered()
    _hand(match, 0, [1, 2])
    for event, message in [
        ({"event": "pass"}, "no event 'pass'"),
        ({"event": "hand", "player": 2, "cards": []}, "'player'"),
        ({"event": "hand", "player": 1, "cards": [1]}, "in Ann's hand"),
        ({"event": "hand", "player": 1, "cards": [5, 6, 7, 8]}, "at most 3"),
        ({"event": "hand", "player": 1, "cards": [99]}, "no card 99"),
        ({"event": "hand", "player": 1, "cards": [5, 5]}, "twice"),
    ]:
        with pytest.raises(InputError, match=message):
            match.handle(event)
    match.judge(_board(match, (2, 2)))
    with pytest.raises(InputError, match="already been scored"):
        match.handle({"event": "hand", "player": 1, "cards": [1]})
    assert match.public_view()["deck_left"] == 52 - 1 - 1


def test_dealing_is_fixed_by_the_seed() -> None:
    def deal(seed: int) -> tuple:
        match = AmoebaMatch({"players": 3, "seed": seed})
        return tuple(tuple(c.id for c in match.hand(p)) for p in range(3)), match.pile

    assert deal(5) == deal(5)
    assert deal(5) != deal(6)
    hands, pile = deal(5)
    assert all(len(h) == 3 for h in hands) and len(pile) == 52 - 9


def test_dealt_scorer_draws_the_top_of_the_pile() -> None:
    seed = next(s for s in range(100) if 1 in AmoebaMatch({"seed": s}).pile)
    match = AmoebaMatch({"names": ["Ann", "Bob"], "seed": seed})
    match.judge(START)
    kept = [c.id for c in match.hand(0)][1:]
    match.handle({"event": "hand", "player": 0, "cards": [1, *kept]})
    top = match.pile[0]
    verdict = match.judge(_board(match, (4, 4)))
    assert verdict.score == 1 and [c.id for c in match.hand(0)] == [*kept, top]
    assert match.public_view() == {
        "players": [
            {"name": "Ann", "score": 1, "cards": 3, "detail": "3 cards"},
            {"name": "Bob", "score": 0, "cards": 3, "detail": "3 cards"},
        ],
        "summary": ["First to 50 points", "45 cards left", "last tile turned: r4c4"],
        "to_move": 0,
        "deck_left": 52 - 6 - 1,
        "last_tile": "r4c4",
        "target": 50,
        "winner": None,
        "started": True,
    }


def test_private_view_shows_the_players_cards() -> None:
    match = _entered()
    _hand(match, 1, [12, 1])
    view = match.private_view(1)
    assert view["title"] == "Your cards"
    assert [(i["id"], i["label"]) for i in view["items"]] == [
        (12, f"Card 12 · {match.hand(1)[0].points} points"),
        (1, "Card 1 · 1 point"),
    ]
    assert all("<svg" in i["svg"] for i in view["items"])


@settings(max_examples=25, deadline=None)
@given(
    players=st.integers(2, 4),
    seed=st.integers(0, 10**6),
    picks=st.lists(st.tuples(st.booleans(), st.integers(0, 47)), max_size=25),
)
def test_random_games_keep_the_books_straight(players: int, seed: int, picks: list) -> None:
    match = AmoebaMatch({"players": players, "seed": seed, "target": 8})
    match.judge(START)
    all_ids = sorted(card.id for card in match.deck)
    earned = [0] * players
    for greedy, index in picks:
        if match.finished:
            break
        tiles = match.legal_tiles()
        scoring = [t for t in tiles if greedy and match.preview(*t).extra["amoebas"]]
        mover = match.to_move
        verdict = match.judge(_board(match, (scoring or tiles)[index % len(scoring or tiles)]))
        assert verdict.legal and verdict.player == mover
        for amoeba in verdict.extra["amoebas"]:
            earned[amoeba["player"]] += amoeba["points"]
        assert list(match.scores) == earned == verdict.extra["scores"]
        held = [c.id for p in range(players) for c in match.hand(p)]
        assert sorted(held + list(match.pile) + list(match.discards)) == all_ids
        if match.pile:
            assert all(len(match.hand(p)) == 3 for p in range(players))
        by_id = {card.id: card.points for card in match.deck}
        assert sum(by_id[c] for c in match.discards) == sum(earned)
        assert verdict.extra["extra_turn"] == (verdict.score > 0)
        if max(earned) >= 8:
            assert match.finished and earned[match.winner] == max(earned)
