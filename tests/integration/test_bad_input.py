"""Bad input on the command line: one line on stderr, a non-zero status, never a traceback."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion.cli import EXIT_ERROR, main
from companion.samples import sample_games

SAMPLE = sample_games("amoeba")[0]
PROFILE = SAMPLE / "profile.json"


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def _one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


def test_corrupt_jpeg(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    photo = sorted(SAMPLE.glob("*.jpg"))[0].read_bytes()
    broken = tmp_path / "broken.jpg"
    broken.write_bytes(photo[: len(photo) // 3])
    status, out, err = _run(
        capsys, "read", "--game", "amoeba", "--profile", str(PROFILE), str(broken)
    )
    assert status == EXIT_ERROR and out == ""
    assert "broken.jpg" in _one_line(err)


def test_image_with_no_board(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rng = np.random.default_rng(0)
    table = np.full((960, 1280, 3), (60, 90, 120), np.uint8)
    table = cv2.add(table, rng.integers(0, 25, table.shape, dtype=np.uint8))
    empty = tmp_path / "empty-table.jpg"
    cv2.imwrite(str(empty), table)
    status, out, err = _run(
        capsys, "read", "--game", "amoeba", "--profile", str(PROFILE), str(empty)
    )
    assert status == EXIT_ERROR and out == ""
    assert "board" in _one_line(err)


def test_profile_of_another_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = json.loads(PROFILE.read_text())
    other["game"] = "upwords"
    wrong = tmp_path / "upwords-table.json"
    wrong.write_text(json.dumps(other))
    photo = sorted(SAMPLE.glob("*.jpg"))[0]
    status, _, err = _run(capsys, "read", "--game", "amoeba", "--profile", str(wrong), str(photo))
    assert status == EXIT_ERROR
    assert "upwords" in _one_line(err)


def test_calibrate_without_markers_or_corners(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 200, np.uint8))
    status, _, err = _run(
        capsys,
        "calibrate",
        "--game",
        "amoeba",
        "--image",
        str(blank),
        "--out",
        str(tmp_path / "p.json"),
    )
    assert status == EXIT_ERROR
    assert "--corners" in _one_line(err)
    assert not (tmp_path / "p.json").exists()


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ('{"game": "amoeba", "tiles": [', "not valid JSON"),
        ('{"game": "upwords", "cells": []}', "upwords"),
        ('{"game": "amoeba", "tiles": ["0101010"]}', "7 strings"),
        ('{"event": "dance"}', "dance"),
    ],
)
def test_malformed_jsonl(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], line: str, needle: str
) -> None:
    script = tmp_path / "moves.jsonl"
    good = (SAMPLE / "script.jsonl").read_text().splitlines()[:4]
    script.write_text("\n".join([*good, line]) + "\n")
    status, _, err = _run(capsys, "referee", "--game", "amoeba", str(script))
    assert status == EXIT_ERROR
    message = _one_line(err)
    assert needle in message and "line 5" in message


def test_wrong_game_name(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["read", "--game", "chess", "--profile", str(PROFILE), "x.jpg"])
    assert exit_info.value.code == 2
    assert "chess" in capsys.readouterr().err


def test_missing_input_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = _run(capsys, "referee", "--game", "amoeba", str(tmp_path / "nowhere"))
    assert status == EXIT_ERROR
    assert "does not exist" in _one_line(err)


def test_folder_without_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(sorted(SAMPLE.glob("*.jpg"))[0], tmp_path / "0000.jpg")
    status, _, err = _run(capsys, "referee", "--game", "amoeba", str(tmp_path))
    assert status == EXIT_ERROR
    assert "--profile" in _one_line(err)
