"""`companion serve` with no camera: replays the bundled sample, survives kill -9, resumes."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from companion.samples import sample_games

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = sample_games("amoeba")[0]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _serve(data: Path, port: int) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with (data / "serve.log").open("ab") as log:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "companion",
                "serve",
                "--source",
                "auto",
                "--data",
                str(data),
                "--port",
                str(port),
                "--fps",
                "25",
            ],
            stdout=subprocess.DEVNULL,
            stderr=log,
            env=env,
        )


def _snapshot(port: int, timeout: float = 30) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/snapshot", timeout=5) as r:
                return json.load(r)
        except urllib.error.HTTPError as err:
            err.close()
            raise AssertionError(f"/api/snapshot answered {err.code}") from None
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def _moves(snapshot: dict) -> list[dict]:
    return [
        {k: v for k, v in verdict.items() if k != "svgs"}
        for verdict in snapshot["verdicts"]
        if verdict["move"] is not None or not verdict["legal"]
    ]


def test_serve_replays_the_sample_and_resumes_after_kill_9(tmp_path: Path) -> None:
    expected = [
        json.loads(line)
        for line in (SAMPLE / "expected.jsonl").read_text().splitlines()
        if line.strip()
    ]
    port = _free_port()
    proc = _serve(tmp_path, port)
    try:
        before: list[dict] = []
        deadline = time.monotonic() + 120
        while len(before) < 4 and time.monotonic() < deadline:
            before = _moves(_snapshot(port))
            time.sleep(0.2)
        assert len(before) >= 4, "the replay produced no verdicts"
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        port = _free_port()
        proc = _serve(tmp_path, port)
        resumed = _moves(_snapshot(port))
        assert resumed[: len(before)] == before, "a verdict accepted before the kill was lost"
        deadline = time.monotonic() + 180
        while _snapshot(port)["status"] != "finished" and time.monotonic() < deadline:
            if len(_moves(_snapshot(port))) == len(expected):
                break
            time.sleep(0.5)
        assert _moves(_snapshot(port)) == expected
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_a_bundled_sample_profile_is_never_written(tmp_path: Path) -> None:
    """What the reader learns replaying a bundled sample stays in memory (the shipped profile is
    the install's data); a copy of the same folder is a table's own and keeps its file."""
    import shutil

    from companion.capture.sources import FolderSource
    from companion.games import find_game
    from companion.service import _profile_of

    game = find_game("upwords")
    bundled = sample_games("upwords")[0]
    assert _profile_of(game, FolderSource(bundled), None).path == ""
    copy = tmp_path / "game"
    shutil.copytree(bundled, copy)
    assert _profile_of(game, FolderSource(copy), None).path == str(copy / "profile.json")
