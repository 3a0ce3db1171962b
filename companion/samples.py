"""Where the bundled sample games are, installed or in a source checkout."""

from __future__ import annotations

from pathlib import Path

from companion.errors import InputError

_INSTALLED = Path(__file__).resolve().parent / "sample_images"
_SOURCE_TREE = Path(__file__).resolve().parents[1] / "sample_images"


def samples_root() -> Path:
    """The folder holding ``<game>/<sample>/`` folders: inside the installed package (see
    pyproject's package-dir), else at the root of a source checkout."""
    return _INSTALLED if _INSTALLED.is_dir() else _SOURCE_TREE


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
