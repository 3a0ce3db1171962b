"""The scripted Upwords sample game refereed from its states alone (no images)."""

from __future__ import annotations

import json
from pathlib import Path

from companion.games import find_game
from companion.replay import referee_input

GAME = find_game("upwords")


def _verdicts(tmp_path: Path) -> list[dict]:
    settings, script = GAME.lab.sample_script(3)
    path = tmp_path / "game.jsonl"
    lines = [{"event": "players", **settings}, *script]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return list(referee_input(GAME, path))


def test_the_scripted_game_has_every_case_the_issue_names(tmp_path: Path) -> None:
    verdicts = _verdicts(tmp_path)
    plays = [v for v in verdicts if v["legal"] and v["reason"] == "play"]
    assert len(plays) >= 15
    assert any(v["move"] == {"pass": True} for v in verdicts)
    assert any(not v["legal"] and "is not a word" in v["reason"] for v in verdicts)
    challenged = [v for v in verdicts if v["reason"] == "challenge"]
    assert len(challenged) == 1 and "taken back" in challenged[0]["text"]
    final = verdicts[-1]
    assert final["reason"] == "end" and final["winner"] is not None
    # scores: the plays' points add up to the totals, less the challenged play and the racks
    totals = [0, 0]
    last_play: dict = {}
    for v in verdicts:
        if v["legal"] and v["reason"] == "play":
            totals[v["player"]] += v["score"]
            last_play = v
        elif v["reason"] == "challenge":
            totals[last_play["player"]] -= last_play["score"]
    totals = [t - 5 * n for t, n in zip(totals, final["racks"], strict=True)]
    assert totals == final["scores"]


def test_the_same_states_give_the_same_verdicts_every_time(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    assert _verdicts(tmp_path / "a") == _verdicts(tmp_path / "b")
