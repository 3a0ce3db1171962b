"""Power cuts during a replay: SIGKILL `companion referee --log` at random moments, many times.

    $ python scripts/kill_loop.py --kills 200

Each round starts the referee on the bundled Amoeba sample with the same game log, kills it
after a random delay, and starts it again (it resumes from the log); once every kill is done a
last run finishes the game.  The log must then open, pass SQLite's integrity check, and give
exactly the sample's expected verdicts: no accepted move lost, none doubled.  The test suite
runs a short version (tests/integration/test_sample_game.py).
"""

from __future__ import annotations

import argparse
import json
import os
import random
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


def run(kills: int, *, seed: int = 0, longest: float = 2.5) -> dict[str, object]:
    rng = random.Random(seed)
    expected = [json.loads(x) for x in (SAMPLE / "expected.jsonl").read_text().splitlines() if x]
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "games.sqlite3"
        scratch = Path(folder) / "partial.jsonl"
        finished_early = 0
        for _ in range(kills):
            proc = _referee(log, scratch)
            time.sleep(rng.uniform(0.05, longest))
            if proc.poll() is not None:
                finished_early += 1  # the replay ended before the kill: the next run resumes
            proc.send_signal(signal.SIGKILL)
            proc.wait()
        final = Path(folder) / "final.jsonl"
        status = _referee(log, final).wait(timeout=600)
        got = [json.loads(x) for x in final.read_text().splitlines() if x]
        with sqlite3.connect(log) as db:
            integrity = db.execute("PRAGMA integrity_check").fetchone()[0]
    return {
        "kills": kills,
        "runs_that_finished_before_their_kill": finished_early,
        "final_status": status,
        "integrity": integrity,
        "verdicts": len(got),
        "verdicts_expected": len(expected),
        "all_verdicts_right": got == expected,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kills", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    result = run(args.kills, seed=args.seed)
    print(json.dumps(result, indent=1))
    return 0 if result["all_verdicts_right"] and result["integrity"] == "ok" else 1


if __name__ == "__main__":
    sys.exit(main())
