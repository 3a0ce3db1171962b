"""Loading the shipped amoeba deck and users' own deck files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from companion.errors import InputError
from companion.games.amoeba.deck import card_by_key, load_deck
from companion.games.amoeba.model import arc_point, shape_key

SHIPPED = Path(__file__).resolve().parents[2] / "companion/games/amoeba/deck.json"
CIRCLE = [[0, 0], [0, 2], [2, 0], [2, 2]]
DOMINO = [[0, 0], [0, 2], [2, 0], [2, 4], [4, 2], [4, 6], [6, 4], [6, 6]]


def _write(tmp_path: Path, data: object) -> Path:
    path = tmp_path / "deck.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


def test_shipped_deck_matches_amoeba_md() -> None:
    deck = load_deck()
    assert len(deck) == 52
    assert sum(card.points for card in deck) == 185
    assert [sum(1 for c in deck if c.points == p) for p in range(1, 6)] == [5, 6, 10, 17, 14]
    assert len({card.key for card in deck}) == 52
    raw = json.loads(SHIPPED.read_text(encoding="utf-8"))["cards"]
    for card, entry in zip(deck, raw, strict=True):
        assert card.id == entry["id"] and card.mirror_of == entry["mirror_of"]
        assert len(card.arcs) == entry["arcs"]
        assert shape_key(arc_point(*arc) for arc in card.arcs) == card.key
    assert deck[0].label == "Card 1 · 1 point"


def test_card_by_key_finds_each_card() -> None:
    deck = load_deck()
    lookup = card_by_key(deck)
    assert all(lookup[card.key] is card for card in deck)


def test_user_deck_accepts_keys_in_any_rotation(tmp_path: Path) -> None:
    turned = [[c, -r] for r, c in DOMINO]
    deck = load_deck(_write(tmp_path, {"cards": [{"id": 7, "points": 2, "key": turned}]}))
    assert deck[0].key == shape_key(tuple(p) for p in DOMINO)
    assert deck[0].label == "Card 7 · 2 points"
    assert deck[0].mirror_of is None


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("{not json", "is not JSON"),
        ({"deck": []}, "has no 'cards'"),
        ({"cards": []}, "has no 'cards'"),
        (
            {
                "cards": [
                    {"id": 1, "points": 1, "key": CIRCLE},
                    {"id": 1, "points": 2, "key": DOMINO},
                ]
            },
            "card id 1 twice",
        ),
        (
            {
                "cards": [
                    {"id": 1, "points": 1, "key": CIRCLE},
                    {"id": 2, "points": 2, "key": CIRCLE},
                ]
            },
            "same shape",
        ),
        ({"cards": [{"id": 1, "points": 1, "key": [[0, 0], [0, 2], [2, 0]]}]}, "not a closed loop"),
        ({"cards": [{"id": 1, "points": 1, "key": "round"}]}, "no valid 'key'"),
        ({"cards": [{"id": 1, "points": 0, "key": CIRCLE}]}, "has points 0"),
        ({"cards": [{"id": 1, "points": "3", "key": CIRCLE}]}, "has points '3'"),
        ({"cards": [{"id": "x", "points": 1, "key": CIRCLE}]}, "has id 'x'"),
    ],
)
def test_bad_user_decks_get_one_line_errors(tmp_path: Path, data: object, message: str) -> None:
    with pytest.raises(InputError, match=message) as err:
        load_deck(_write(tmp_path, data))
    assert "\n" not in str(err.value)


def test_missing_deck_file_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot read deck file"):
        load_deck(tmp_path / "nope.json")
