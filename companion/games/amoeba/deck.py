"""The Amoeba shape cards: the reconstructed 52-card deck shipped with the package, or a user's.

The original 1975 card list is lost (games/amoeba.md), so people who own the real cards must be
able to describe them in their own file of the same form: ``{"cards": [{"id", "points", "key"},
...]}``.  Only ``id``, ``points`` and ``key`` are read; the drawing and the mirror partner are
derived from the key so a hand-written file cannot contradict itself.  The file is read once,
when a game is set up (``read_deck``); the game's settings keep what it held (``deck_of``).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

from companion.errors import InputError
from companion.games.amoeba.model import ShapeKey, arcs_of_key, mirror_key, shape_key

log = logging.getLogger(__name__)

Arc = tuple[int, int, str]


@dataclass(frozen=True)
class Card:
    """One shape card.

    ``arcs`` is the drawing (tile row, tile col, corner) with the shape's top-left tile at (0, 0);
    ``len(arcs)`` is the loop length.  ``mirror_of`` is the id of the card showing this shape's
    mirror image, if the deck has one (the rules say a mirror image does not count).
    """

    id: int
    points: int
    key: ShapeKey
    arcs: tuple[Arc, ...]
    mirror_of: int | None = None

    @property
    def label(self) -> str:
        """How the page and the verdicts name the card."""
        return f"Card {self.id} · {self.points} point{'s' if self.points != 1 else ''}"


def load_deck(path: str | Path | None = None) -> tuple[Card, ...]:
    """The shipped deck (``path`` None) or a user's deck file, cards in file order."""
    return deck_of(None if path is None else read_deck(path))


def read_deck(path: str | Path) -> dict[str, Any]:
    """What a user's deck file holds, as JSON: a match's settings keep this rather than the
    path, so a game record replays on any machine and a later edit of the file changes no
    past game.  Checked to be a deck, so a bad file is reported, naming it, when it is read."""
    where = Path(path)
    try:
        text = where.read_text(encoding="utf-8")
    except OSError as err:
        raise InputError(f"cannot read deck file {where}: {err.strerror or err}") from err
    data = _json(text, f"deck file {where}")
    _cards(data, f"deck file {where}")
    return data


def deck_of(data: Any | None, where: str = "the 'deck' setting") -> tuple[Card, ...]:
    """The shipped deck (``data`` None) or the cards of a deck's JSON (``read_deck``'s), in
    file order; ``InputError`` naming ``where`` and the first thing wrong."""
    if data is None:
        text = resources.files("companion.games.amoeba").joinpath("deck.json").read_text("utf-8")
        return _cards(_json(text, "the built-in amoeba deck"), "the built-in amoeba deck")
    return _cards(data, where)


def card_by_key(deck: tuple[Card, ...]) -> dict[ShapeKey, Card]:
    """The lookup a match uses to recognise a loop on the tray as a card."""
    return {card.key: card for card in deck}


def _json(text: str, where: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"{where} is not JSON ({err.msg}, line {err.lineno})") from err


def _cards(data: Any, where: str) -> tuple[Card, ...]:
    if not isinstance(data, dict) or not isinstance(data.get("cards"), list) or not data["cards"]:
        raise InputError(f"{where} has no 'cards': expected {{\"cards\": [{{id, points, key}}]}}")
    cards: list[Card] = []
    ids: set[int] = set()
    shapes: dict[ShapeKey, int] = {}
    for n, entry in enumerate(data["cards"]):
        card = _card(entry, f"{where}, card #{n + 1}")
        if card.id in ids:
            raise InputError(f"{where} has card id {card.id} twice: give every card its own id")
        if card.key in shapes:
            raise InputError(
                f"{where}: cards {shapes[card.key]} and {card.id} show the same shape; "
                "a deck has no duplicate shapes"
            )
        ids.add(card.id)
        shapes[card.key] = card.id
        cards.append(card)
    deck = tuple(replace(c, mirror_of=_mirror_id(c, shapes)) for c in cards)
    log.debug("loaded %d amoeba cards from %s", len(deck), where)
    return deck


def _mirror_id(card: Card, shapes: dict[ShapeKey, int]) -> int | None:
    mirrored = mirror_key(card.key)
    return None if mirrored == card.key else shapes.get(mirrored)


def _card(entry: Any, where: str) -> Card:
    if not isinstance(entry, dict):
        raise InputError(f"{where} is not an object with id, points and key")
    card_id, points, raw_key = entry.get("id"), entry.get("points"), entry.get("key")
    if not isinstance(card_id, int) or isinstance(card_id, bool) or card_id < 0:
        raise InputError(f"{where} has id {card_id!r}: ids are whole numbers 0 or more")
    if not isinstance(points, int) or isinstance(points, bool) or not 1 <= points <= 100:
        raise InputError(f"card {card_id} in {where} has points {points!r}: use a number 1-100")
    pairs = raw_key if isinstance(raw_key, list) else []
    if not pairs or not all(
        isinstance(p, list)
        and len(p) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in p)
        for p in pairs
    ):
        raise InputError(
            f"card {card_id} in {where} has no valid 'key': expected [[row, col], ...]"
        )
    key = shape_key((r, c) for r, c in pairs)
    try:
        arcs = arcs_of_key(key)
    except ValueError as err:
        raise InputError(f"card {card_id} in {where}: key is {err}") from err
    return Card(id=card_id, points=points, key=key, arcs=tuple(arcs))
