"""``companion render``: synthetic photos with ground truth, and whole sample games.

A sample game is the game's scripted play (``Game.sample_script``) filmed by a fixed synthetic
camera: a start frame to calibrate from, a few settled frames per position, and hands over the
board between moves.  Its expected verdicts come from refereeing the script's states without any
image, so `companion referee` on the frames must reproduce what the rules alone say.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import numpy as np

from companion.errors import InputError
from companion.games.base import JSON, Game
from companion.vision.synth import Light, Pose, encode_jpeg, random_light, random_pose, render_scene

log = logging.getLogger(__name__)

SAMPLE_SIZE = (1024, 768)
SAMPLE_QUALITY = 60
SETTLED_FRAMES = 3


def _ensure_folder(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"cannot create {out}: {err.strerror}") from None


def write_boards(game: Game, out: Path, *, count: int, look: str | None, seed: int) -> None:
    """``count`` random positions, each a photo plus one ground-truth line in truth.jsonl."""
    looks = game.lab.looks
    if look is not None and look not in looks.all:
        names = ", ".join(looks.all)
        raise InputError(f"unknown look {look!r} for {game.id}: choose one of {names}")
    _ensure_folder(out)
    rng = np.random.default_rng(seed)
    with (out / "truth.jsonl").open("w", encoding="utf-8") as truth:
        for i in range(count):
            state = game.lab.random_state(rng)
            this_look = look or str(rng.choice(looks.unseen))
            scene = render_scene(
                game, state, this_look, rng, pose=random_pose(rng), light=random_light(rng)
            )
            name = f"{i:04d}.jpg"
            (out / name).write_bytes(encode_jpeg(scene.image))
            line = {"image": name, "look": this_look, "corners": scene.corners.tolist()}
            truth.write(json.dumps({**line, "state": game.format_state(state)}) + "\n")
            log.info("rendered %d/%d", i + 1, count)


def write_sample_game(
    game: Game, out: Path, *, seed: int, scripted: tuple[JSON, list[JSON]] | None = None
) -> None:
    """A scripted game as photos, with its profile, settings and expected verdicts: the game's
    ``sample_script(seed)``, or ``scripted`` (settings, script) for another variant of it (more
    players, part of a game)."""
    from companion.replay import EVENTS_FILE, referee_input
    from companion.vision.calibration import calibrate

    settings, script = game.lab.sample_script(seed) if scripted is None else scripted
    _ensure_folder(out)
    for old in out.glob("*.jpg"):
        old.unlink()
    rng = np.random.default_rng(seed)
    look = game.lab.looks.unseen[0]
    pose = Pose(tilt_deg=14.0, yaw_deg=6.0, fill=0.72)
    light = Light(gradient=0.25, gradient_dir_deg=30.0, noise=1.0)
    board_seed = int(rng.integers(1 << 31))
    frames: list[tuple[Any, str | None]] = []  # (state, hand) per photo
    events: list[JSON] = []  # what was entered on the page, and before which photo
    state = game.start_state()
    for item in script:
        if "event" in item:
            events.append({"frame": len(frames), "event": item})
            continue
        new_state = game.parse_state(item)
        if frames:
            hands = int(rng.integers(0, 3))
            frames.extend((state if h == 0 else new_state, "over") for h in range(hands))
        frames.extend((new_state, None) for _ in range(SETTLED_FRAMES))
        state = new_state
    for index, (shown, hand) in enumerate(frames):
        scene = render_scene(
            game,
            shown,
            look,
            np.random.default_rng([board_seed, index]),
            pose=pose,
            light=light,
            size=SAMPLE_SIZE,
            hand=hand,
            board_seed=board_seed,
        )
        (out / f"{index:04d}.jpg").write_bytes(encode_jpeg(scene.image, quality=SAMPLE_QUALITY))
        if index == 0:
            calibrate(game, scene.image).save(out / "profile.json")
        log.info("frame %d/%d", index + 1, len(frames))
    (out / "game.json").write_text(json.dumps(settings, indent=1) + "\n", encoding="utf-8")
    events_path = out / EVENTS_FILE
    events_path.unlink(missing_ok=True)
    if events:
        events_path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    script_path = out / "script.jsonl"
    with script_path.open("w", encoding="utf-8") as handle:
        handle.write(json.dumps({"event": "players", **settings}) + "\n")
        for item in script:
            handle.write(json.dumps(item) + "\n")
    with (out / "expected.jsonl").open("w", encoding="utf-8") as handle:
        for verdict in referee_input(game, script_path):
            handle.write(json.dumps(verdict) + "\n")
