"""The registry of games: the CLI and the page pick a game by its id."""

from __future__ import annotations

from companion.errors import InputError
from companion.games.base import Game


def _amoeba() -> Game:
    from companion.games.amoeba import AmoebaGame

    return AmoebaGame()


def _upwords() -> Game:
    from companion.games.upwords import UpwordsGame

    return UpwordsGame()


def _octiles() -> Game:
    from companion.games.octiles import OctilesGame

    return OctilesGame()


def _labyrinth() -> Game:
    from companion.games.labyrinth import LabyrinthGame

    return LabyrinthGame()


_FACTORIES = {
    "amoeba": _amoeba,
    "upwords": _upwords,
    "octiles": _octiles,
    "labyrinth": _labyrinth,
}

GAME_IDS: tuple[str, ...] = tuple(_FACTORIES)


def find_game(game_id: str) -> Game:
    """The game with this id; ``InputError`` naming the known ids otherwise."""
    try:
        factory = _FACTORIES[game_id]
    except KeyError:
        known = ", ".join(GAME_IDS)
        raise InputError(f"unknown game {game_id!r}: choose one of {known}") from None
    return factory()
