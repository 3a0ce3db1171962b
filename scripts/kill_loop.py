"""Power cuts during a replay: SIGKILL `companion referee --log` at random moments, many times.

    $ python scripts/kill_loop.py --kills 200

Each round starts the referee on the bundled Amoeba sample with a game log, kills it after a
random delay, and starts it again (it resumes from the log), until a run gets to the end of the
game; then the next game starts with a new log.  Every log must pass SQLite's integrity check
and the finishing run must print exactly the sample's expected verdicts: no accepted move lost,
none doubled.  The test suite
runs a short version (tests/integration/test_sample_game.py).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_images" / "amoeba" / "game1"


def _referee(log: Path, out: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with out.open("ab") as sink:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "companion",
                "referee",
                "--game",
                "amoeba",
                "--log",
                str(log),
                str(SAMPLE),
            ],
            stdout=sink,
            stderr=subprocess.DEVNULL,
            env=env,
        )


def run(
    kills: int, *, seed: int = 0, longest: float = 1.6, keep: Path | None = None
) -> dict[str, object]:
    """Kill until ``kills`` runs were cut short while working; each game log is replayed to
    the end (a run that finishes before its kill closes that log) and checked."""
    rng = random.Random(seed)
    expected = [json.loads(x) for x in (SAMPLE / "expected.jsonl").read_text().splitlines() if x]
    cut = games = wrong = 0
    integrity = "ok"
    with tempfile.TemporaryDirectory() as folder:
        while cut < kills:
            games += 1
            log = Path(folder) / f"games-{games}.sqlite3"
            out = Path(folder) / f"out-{games}.jsonl"
            while True:
                out.write_bytes(b"")
                proc = _referee(log, out)
                time.sleep(rng.uniform(0.05, longest))
                if proc.poll() is not None:
                    break  # the replay got to its end: this game is done
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                cut += 1
            got = [json.loads(x) for x in out.read_text().splitlines() if x]
            if got != expected:
                wrong += 1
                if keep is not None:
                    keep.mkdir(parents=True, exist_ok=True)
                    shutil.copy(log, keep / log.name)
                    shutil.copy(out, keep / out.name)
            with sqlite3.connect(log) as db:
                check = db.execute("PRAGMA integrity_check").fetchone()[0]
            if check != "ok":
                integrity = check
    return {
        "kills_while_working": cut,
        "games_replayed_to_the_end": games,
        "games_with_wrong_verdicts": wrong,
        "integrity": integrity,
        "all_verdicts_right": wrong == 0,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--keep", type=Path, help="copy the logs of games that went wrong here")
    args = parser.parse_args()
    result = run(args.kills, seed=args.seed, keep=args.keep)
    print(json.dumps(result, indent=1))
    return 0 if result["all_verdicts_right"] and result["integrity"] == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
