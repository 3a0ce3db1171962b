"""A fifth game drops in with no change to Companion: Lights (``tests/fifth_game/``) is
installed as a distribution of its own whose entry point names it, and then passes the game
contract, renders and referees its sample game from photos, all through the public commands."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from contract import CHECKS

from companion.games import find_game, game_ids, registry
from companion.games.base import Game
from companion.samples import sample_games

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(__file__).resolve().parent / "fifth_game" / "lights_game"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where pip would have installed the Lights distribution: its package and its metadata
    with the ``companion.games`` entry point."""
    site = tmp_path_factory.mktemp("site")
    shutil.copytree(PACKAGE, site / "lights_game", ignore=shutil.ignore_patterns("__pycache__"))
    info = site / "lights_game-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: lights-game\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[companion.games]\nlights = lights_game:GAME\n")
    return site


@pytest.fixture
def lights(site: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Game[Any]]:
    monkeypatch.syspath_prepend(str(site))
    registry.cache_clear()
    yield find_game("lights")
    registry.cache_clear()


def _companion(site: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    return subprocess.run(
        [sys.executable, "-m", "companion", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )


def test_it_is_registered_beside_the_bundled_games(lights: Game[Any]) -> None:
    assert type(lights).__module__ == "lights_game"
    assert set(game_ids()) >= {"amoeba", "labyrinth", "lights", "octiles", "upwords"}


def test_companion_itself_never_names_it() -> None:
    sources = [*(ROOT / "companion").rglob("*.py"), ROOT / "pyproject.toml", ROOT / "setup.py"]
    named = [
        path.relative_to(ROOT).as_posix()
        for path in sources
        if any(name in path.read_text(encoding="utf-8") for name in ("lights_game", '"lights"'))
    ]
    assert named == []


@pytest.mark.parametrize("check", CHECKS, ids=lambda c: c.__name__.removeprefix("check_"))
def test_it_keeps_the_game_contract(lights: Game[Any], check: Callable[[Game[Any]], None]) -> None:
    check(lights)


def test_its_sample_game_is_rendered_and_refereed_by_the_commands(
    site: Path, lights: Game[Any]
) -> None:
    sample = site / "lights_game" / "samples" / "game1"
    shown = _companion(site, "referee", "--help")
    assert "lights" in shown.stdout
    made = _companion(site, "render", "--game", "lights", "--sample-game", "--out", str(sample))
    assert made.returncode == 0, made.stderr[-800:]
    assert sample_games("lights") == [sample]
    refereed = _companion(site, "referee", "--game", "lights", str(sample))
    assert refereed.returncode == 0, refereed.stderr[-800:]
    got = [json.loads(line) for line in refereed.stdout.splitlines()]
    expected = [json.loads(x) for x in (sample / "expected.jsonl").read_text().splitlines()]
    assert got == expected
    assert sum(v["legal"] for v in got) == 9 and sum(not v["legal"] for v in got) == 1
