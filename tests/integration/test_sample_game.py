"""What the bundled sample games show (the verdicts of every one are in test_game_contract)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from companion.games import find_game
from companion.samples import sample_games

GAME = find_game("amoeba")
SAMPLE = sample_games("amoeba")[0]
ROOT = Path(__file__).resolve().parents[2]


def _expected() -> list[dict]:
    lines = (SAMPLE / "expected.jsonl").read_text().splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def test_sample_is_a_whole_game_with_the_cases_the_issue_asks_for() -> None:
    expected = _expected()
    legal = [v for v in expected if v["legal"]]
    reasons = " ".join(v["reason"] for v in expected if not v["legal"])
    assert len(legal) >= 20
    assert "2 tiles turned" in reasons
    assert "previous move" in reasons
    amoebas = [a for v in expected for a in v.get("amoebas", [])]
    assert len(amoebas) >= 3
    assert any(a["player"] != v["player"] for v in expected for a in v.get("amoebas", []))
    assert any(v.get("extra_turn") for v in expected)
    frames = sorted(SAMPLE.glob("*.jpg"))
    size = sum(f.stat().st_size for f in frames)
    assert size < 8_000_000, f"sample photos take {size / 1e6:.1f} MB"


# every game's sample games, from states and from photos: tests/test_game_contract.py


def test_the_upwords_sample_has_what_the_issue_asks_for() -> None:
    sample = sample_games("upwords")[0]
    expected = [json.loads(x) for x in (sample / "expected.jsonl").read_text().splitlines() if x]
    plays = [v for v in expected if v["legal"] and v["reason"] == "play"]
    assert len(plays) >= 15
    assert any(v["reason"] == "challenge" for v in expected)
    assert any(v["move"] == {"pass": True} for v in expected)
    assert any(not v["legal"] for v in expected)
    last_board = [json.loads(x) for x in (sample / "script.jsonl").read_text().splitlines()][-2]
    assert max(int(c[0]) for row in last_board["cells"] for c in row if c) >= 4
    size = sum(f.stat().st_size for f in sample.glob("*.jpg"))
    assert size < 8_000_000


@pytest.mark.slow
def test_kill_9_during_replay_loses_no_move() -> None:
    """A short run of scripts/kill_loop.py: SIGKILL the referee while it works, rerun it
    (it resumes from the log) until the game is done; the log ends complete and sound."""
    spec = importlib.util.spec_from_file_location("kill_loop", ROOT / "scripts" / "kill_loop.py")
    assert spec is not None and spec.loader is not None
    kill_loop = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(kill_loop)
    result = kill_loop.run(4, seed=3)
    assert result["integrity"] == "ok"
    assert result["all_verdicts_right"], result
