"""The registry of games: the CLI and the page pick a game by its id.

Games register themselves, so that a new game changes no file outside its own package:

- every subpackage of ``companion.games`` that defines ``GAME`` (a ``Game`` instance) is one;
- a game from another distribution names its ``Game`` in the ``companion.games`` entry point
  group (``[project.entry-points."companion.games"] mygame = "mypackage:GAME"``).

Nothing is imported here at module level: ``companion.games.base`` lives in this package, so
each game's own import of it runs this file first.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
from functools import cache
from importlib.metadata import entry_points
from typing import Any

from companion.errors import InputError
from companion.games.base import Game

log = logging.getLogger(__name__)

ENTRY_POINT_GROUP = "companion.games"


def _bundled() -> list[Game[Any]]:
    """The games that ship in this package: its subpackages that define ``GAME``."""
    games = []
    for module in pkgutil.iter_modules(__path__):
        if not module.ispkg:
            continue
        package = importlib.import_module(f"{__name__}.{module.name}")
        game = getattr(package, "GAME", None)
        if isinstance(game, Game):
            games.append(game)
    return games


def _installed() -> list[Game[Any]]:
    """Games of other installed distributions; one that fails to load is reported and left
    out rather than stopping every command."""
    games = []
    for point in entry_points(group=ENTRY_POINT_GROUP):
        try:
            game = point.load()
        except Exception as err:  # any bug in someone else's package
            log.warning("game %r (%s) does not load: %s", point.name, point.value, err)
            continue
        if isinstance(game, type) and issubclass(game, Game):
            game = game()
        if not isinstance(game, Game):
            log.warning("entry point %r (%s) is not a companion game", point.name, point.value)
            continue
        games.append(game)
    return games


@cache
def registry() -> dict[str, Game[Any]]:
    """Every registered game by id, sorted by id; the bundled game wins a clash of ids."""
    found: dict[str, Game[Any]] = {}
    for game in (*_bundled(), *_installed()):
        if game.id in found:
            log.warning("two games call themselves %r: keeping %s", game.id, found[game.id])
            continue
        found[game.id] = game
    return dict(sorted(found.items()))


def game_ids() -> tuple[str, ...]:
    """The ids of every registered game, sorted."""
    return tuple(registry())


def find_game(game_id: str) -> Game[Any]:
    """The game with this id; ``InputError`` naming the known ids otherwise."""
    try:
        return registry()[game_id]
    except KeyError:
        known = ", ".join(game_ids())
        raise InputError(f"unknown game {game_id!r}: choose one of {known}") from None
