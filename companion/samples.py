"""Where the sample games are: bundled ones in ``sample_images/<game id>/`` (installed, or at
the root of a source checkout), a game from another distribution's in its own folder."""

from __future__ import annotations

from pathlib import Path

from companion.errors import InputError
from companion.games import registry

_INSTALLED = Path(__file__).resolve().parent / "sample_images"
_SOURCE_TREE = Path(__file__).resolve().parents[1] / "sample_images"


def samples_root() -> Path:
    """The folder holding ``<game>/<sample>/`` folders: inside the installed package (see
    setup.py), else at the root of a source checkout."""
    return _INSTALLED if _INSTALLED.is_dir() else _SOURCE_TREE


def _folder(game_id: str) -> Path:
    game = registry().get(game_id)
    own = None if game is None else game.samples
    return own if own is not None else samples_root() / game_id


def sample_games(game_id: str) -> list[Path]:
    """Every sample game of this game, sorted by name."""
    folder = _folder(game_id)
    return sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []


def default_sample(game_id: str) -> Path:
    """The sample game ``serve`` replays when no camera is found."""
    games = sample_games(game_id)
    if not games:
        raise InputError(f"no sample game for {game_id}: give --source with a camera")
    return games[0]
