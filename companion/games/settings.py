"""Settings every game's match shares: who plays, in what order, with which shuffle.

Checked once when a game is set up (page or command line), with one-line messages, and filled
in completely so that the stored settings replay the same match after a restart.
"""

from __future__ import annotations

import secrets
from typing import Any, TypeGuard

from companion.errors import InputError
from companion.games.base import JSON


def is_int(value: Any) -> TypeGuard[int]:
    """A whole number from JSON (``True`` is not one)."""
    return isinstance(value, int) and not isinstance(value, bool)


def player_settings(options: JSON, game: str, *, lowest: int = 2, highest: int = 4) -> JSON:
    """``players``, ``names``, ``seed`` and ``first`` checked and filled in.

    ``players`` defaults to the number of ``names``, else ``lowest``; a missing ``seed`` is
    chosen here, so it is stored with the settings.
    """
    if not isinstance(options, dict):
        raise InputError(f"{game} settings must be an object of options")
    names = options.get("names")
    default = len(names) if isinstance(names, list) and names else lowest
    players = options.get("players", default)
    if not is_int(players) or not lowest <= players <= highest:
        raise InputError(f"{game} is for {lowest} to {highest} players, not {players!r}")
    if names is None:
        names = [f"Player {i + 1}" for i in range(players)]
    if (
        not isinstance(names, list)
        or len(names) != players
        or not all(isinstance(n, str) and n.strip() for n in names)
    ):
        raise InputError(f"'names' must list {players} non-empty player names")
    seed = options.get("seed")
    if seed is None:
        seed = secrets.randbelow(2**31)
    if not is_int(seed):
        raise InputError(f"'seed' must be a whole number, not {seed!r}")
    first = options.get("first", 0)
    if not is_int(first) or not 0 <= first < players:
        raise InputError(f"'first' must be a player number 0 to {players - 1}, not {first!r}")
    return {"players": players, "names": [n.strip() for n in names], "seed": seed, "first": first}
