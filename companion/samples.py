"""Where the bundled sample games are, installed or in a source checkout."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from companion.errors import InputError

_SOURCE_TREE = Path(__file__).resolve().parents[1] / "sample_images"


def samples_root() -> Path:
    """The folder holding ``<game>/<sample>/`` folders."""
    try:
        installed = Path(str(resources.files("companion.sample_images")))
    except ModuleNotFoundError:
        installed = None
    if installed is not None and installed.is_dir():
        return installed
    return _SOURCE_TREE


def sample_games(game_id: str) -> list[Path]:
    """Every bundled sample game of this game, sorted by name."""
    folder = samples_root() / game_id
    return sorted(p for p in folder.iterdir() if p.is_dir()) if folder.is_dir() else []


def default_sample(game_id: str) -> Path:
    """The sample game ``serve`` replays when no camera is found."""
    games = sample_games(game_id)
    if not games:
        raise InputError(f"no bundled sample game for {game_id}: give --source with a camera")
    return games[0]
