"""The ``companion`` command line (contract: ../shared/design.md, "Public contracts").

Every subcommand turns a ``CompanionError`` into one line on stderr and a non-zero exit status;
logging is configured here and nowhere else.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from companion import __version__
from companion.errors import CompanionError, InputError
from companion.games import find_game, game_ids
from companion.referee.stillness import DEFAULT_SETTLE

if TYPE_CHECKING:
    from companion.games.base import Game
    from companion.vision.calibration import Profile
    from companion.vision.charuco import LensFit
    from companion.vision.lens import Lens

log = logging.getLogger("companion")

EXIT_ERROR = 2
VERBOSITY = {"serve": logging.INFO, "render": logging.INFO}
"""Commands that run for long report progress; the others print only results and problems."""
EXIT_INTERNAL = 70
DEFAULT_GAME = "amoeba"
"""What `serve`, `doctor` and `bench` take without --game (README: the Amoeba sample game)."""


def _add_game(parser: argparse.ArgumentParser, *, required: bool = True) -> None:
    ids = game_ids()
    parser.add_argument(
        "--game",
        choices=ids,
        required=required,
        default=None if required else (DEFAULT_GAME if DEFAULT_GAME in ids else ids[0]),
        help="which game is on the table",
    )


def _setting(text: str) -> tuple[str, object]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value  # a plain string, e.g. a file name


def _add_settings(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--setting",
        type=_setting,
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a game setting for new games, e.g. deck=mycards.json (amoeba) or target=30",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser; kept separate so tests and docs can inspect it."""
    parser = argparse.ArgumentParser(
        prog="companion",
        description="A camera referee for physical board games.",
    )
    parser.add_argument("--version", action="version", version=f"companion {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks and debug logs")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    serve = sub.add_parser("serve", help="watch the table and serve the referee page")
    _add_game(serve, required=False)
    serve.add_argument(
        "--source",
        default="auto",
        help="auto | picamera2 | usb:N | video:PATH | folder:PATH (default: auto)",
    )
    serve.add_argument("--profile", type=Path, help="calibration profile (from calibrate)")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument("--data", type=Path, help="folder for the game log (default: per user)")
    serve.add_argument(
        "--settle", type=int, default=DEFAULT_SETTLE, help="agreeing still frames per state"
    )
    serve.add_argument("--fps", type=float, default=2.0, help="replay speed for folders/videos")
    serve.add_argument("--new", action="store_true", help="start a new game, do not resume")
    _add_settings(serve)

    cal = sub.add_parser("calibrate", help="learn the board's position and look from one photo")
    _add_game(cal)
    shot = cal.add_mutually_exclusive_group(required=True)
    shot.add_argument("--image", type=Path, help="photo of the start position")
    shot.add_argument(
        "--source",
        help="take the photo now from a camera (picamera2, usb:N); a Pi camera's exposure and "
        "white balance are locked and kept in the profile",
    )
    shot.add_argument(
        "--teach",
        type=Path,
        metavar="PHOTO",
        help="teach the profile given by --out this set's look from PHOTO of the pieces laid out "
        "as calibration/<game>-teach.svg shows (after calibrating, same camera and place)",
    )
    cal.add_argument("--corners", help='board corners "x,y x,y x,y x,y" (TL TR BR BL)')
    cal.add_argument(
        "--out", type=Path, required=True, help="profile file to write (with --teach: to teach)"
    )
    cal.add_argument(
        "--lens",
        type=Path,
        nargs="+",
        metavar="PHOTO",
        help="photos of calibration/lens-sheet.svg taken by this camera at its resolution: the "
        "lens's bending is fitted from them, kept in the profile and undone on every frame",
    )
    cal.add_argument(
        "--tile-thickness",
        type=float,
        help="upwords: a tile's thickness over its square's side (e.g. 0.16); without it the "
        "reader learns it from the first boards the referee agrees with",
    )

    read = sub.add_parser("read", help="print the board state seen in each image (JSON lines)")
    _add_game(read)
    read.add_argument("--profile", type=Path, required=True)
    read.add_argument("images", type=Path, nargs="+")

    ref = sub.add_parser("referee", help="referee a recorded game: image folder, video or .jsonl")
    _add_game(ref)
    ref.add_argument("--profile", type=Path, help="profile (default: INPUT/profile.json)")
    ref.add_argument("--players", type=int, help="number of players (default: from the input)")
    ref.add_argument("--seed", type=int, help="card shuffle seed (default: from the input)")
    ref.add_argument(
        "--settle", type=int, default=DEFAULT_SETTLE, help="agreeing still frames per state"
    )
    ref.add_argument("--log", type=Path, help="keep the game log here; rerun to resume")
    _add_settings(ref)
    ref.add_argument("input", type=Path)

    ren = sub.add_parser("render", help="synthetic photos with ground truth")
    _add_game(ren)
    ren.add_argument("--out", type=Path, required=True, help="folder to write")
    ren.add_argument("--count", type=int, default=10, help="random boards to render")
    ren.add_argument("--look", help="board look (default: a random unseen look per image)")
    ren.add_argument("--seed", type=int, default=0)
    ren.add_argument(
        "--sample-game",
        action="store_true",
        help="render a whole scripted game (frames, profile, expected verdicts) instead",
    )

    mount = sub.add_parser("mount", help="how high to mount the camera above the board")
    _add_game(mount)
    mount.add_argument("--camera", default="cm3", help="cm3, cm3-wide, cm2 or webcam")
    mount.add_argument("--cell-cm", type=float, help="one square of your board, in cm")

    doctor = sub.add_parser("doctor", help="check camera, profile, light, focus and board")
    _add_game(doctor, required=False)
    doctor.add_argument("--source", default="auto", help="the camera to check (as for serve)")
    doctor.add_argument("--profile", type=Path, help="the calibration profile to check")

    bench = sub.add_parser("bench", help="measure speed and accuracy per stage")
    _add_game(bench, required=False)
    bench.add_argument("--boards", type=int, default=200, help="rendered boards to read")
    bench.add_argument("--poses", type=int, default=8, help="camera poses (one calibration each)")
    bench.add_argument("--seed", type=int, default=1)
    bench.add_argument("--csv", type=Path, help="write one row per rendered image here")
    bench.add_argument(
        "--games",
        type=int,
        default=0,
        help="whole games refereed from the camera (default: one per unseen look)",
    )
    bench.add_argument(
        "--latency",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="time verdicts to an open page of the served sample game (about 25 s)",
    )
    return parser


def _give_thickness(profile: Profile, game: Game[Any], cells: float) -> None:
    """Tell the profile's reader how thick the set's tiles are (games of stacked tiles only)."""
    reader = profile.load_reader(game)
    give = getattr(reader, "give_thickness", None)
    if give is None:
        raise InputError(f"--tile-thickness is for stacked tiles (upwords), not {game.title}")
    give(cells)
    profile.reader = reader.to_json()


def _cmd_calibrate(args: argparse.Namespace) -> int:
    from companion.capture.images import load_image
    from companion.vision.calibration import calibrate, parse_corners

    game = find_game(args.game)
    if args.teach is not None:
        return _teach(game, args)
    corners = parse_corners(args.corners) if args.corners else None
    fit = _fit_lens(args.lens) if args.lens else None
    if args.image is not None:
        image = load_image(args.image)
        profile = calibrate(game, image, corners, _lens_for(image, fit, args.image))
    else:
        from companion.capture.snapshot import save_jpeg, take_start_photo

        photo, controls = take_start_photo(args.source)
        profile = calibrate(game, photo, corners, _lens_for(photo, fit, args.source))
        profile.camera_controls = controls
        saved = args.out.with_suffix(".start.jpg")
        save_jpeg(saved, photo)
        print(f"start photo saved as {saved}")
    if args.tile_thickness is not None:
        _give_thickness(profile, game, args.tile_thickness)
    profile.save(args.out)
    print(f"calibrated {game.title} ({profile.method}); profile written to {args.out}")
    for problem in profile.load_reader(game).view_problems():
        print(f"note: {problem}")
    return 0


def _fit_lens(paths: list[Path]) -> LensFit:
    """``calibrate --lens``: the lens fitted from photos of the ChArUco sheet, with its fit."""
    from companion.capture.images import load_image
    from companion.vision.charuco import fit_lens

    fit = fit_lens([(path, load_image(path)) for path in paths])
    k1, k2 = (float(c) for c in fit.lens.coefficients[:2])
    print(
        f"lens fitted from {fit.photos} photo(s), {fit.corners} sheet corners: focal "
        f"{fit.lens.matrix[0, 0]:.0f} px, k1 {k1:+.3f}, k2 {k2:+.3f}, corners within "
        f"{fit.rms_px:.2f} px (rms)"
    )
    return fit


def _lens_for(image: Any, fit: LensFit | None, origin: object) -> Lens | None:
    """The fitted lens for the start photo: one fitted at another resolution says nothing."""
    if fit is None:
        return None
    size = (image.shape[1], image.shape[0])
    if size != fit.size:
        raise InputError(
            f"{origin} is {size[0]}x{size[1]} but the lens photos are {fit.size[0]}x"
            f"{fit.size[1]}: take both at the camera's one resolution"
        )
    return fit.lens


def _teach(game: Game[Any], args: argparse.Namespace) -> int:
    """``calibrate --teach``: the profile at ``--out`` learns this set from one photo."""
    from companion.capture.images import load_image
    from companion.vision.calibration import Profile
    from companion.vision.teaching import teach

    if args.corners or args.lens:
        raise InputError(
            "--corners and --lens belong to a new calibration, not to --teach: leave them out"
        )
    profile = Profile.load(args.out, game=game.id)
    photo = load_image(args.teach)
    print(f"teaching {game.title} from {args.teach} (reads the photo twice: a few seconds)")
    if args.tile_thickness is not None:
        _give_thickness(profile, game, args.tile_thickness)
    lesson = teach(game, profile, photo)
    profile.save(args.out)
    print(f"{lesson.summary()}; profile written to {args.out}")
    return 0


def _cmd_read(args: argparse.Namespace) -> int:
    from companion.capture.images import load_image
    from companion.vision.calibration import Profile
    from companion.vision.pipeline import BoardPipeline

    game = find_game(args.game)
    pipeline = BoardPipeline(game, Profile.load(args.profile, game=game.id))
    failures = 0
    for path in args.images:
        try:
            reading, _ = pipeline.read(load_image(path))
        except CompanionError as err:
            print(f"companion: {path}: {err}", file=sys.stderr)
            failures += 1
            continue
        if reading.covered:
            print(
                f"companion: {path}: the board is not clearly in view (something covers it, or "
                "it is not where it was calibrated): clear the board or calibrate again",
                file=sys.stderr,
            )
            failures += 1
            continue
        out = game.format_state(reading.state)
        out["confidence"] = [round(float(c), 3) for c in reading.confidence]
        print(json.dumps(out), flush=True)
    return EXIT_ERROR if failures else 0


def _cmd_referee(args: argparse.Namespace) -> int:
    from companion.replay import referee_input

    game = find_game(args.game)
    for line in referee_input(
        game,
        args.input,
        profile_path=args.profile,
        players=args.players,
        seed=args.seed,
        settle=args.settle,
        log_path=args.log,
        settings=dict(args.setting),
    ):
        print(json.dumps(line), flush=True)
    return 0


def _cmd_render(args: argparse.Namespace) -> int:
    from companion import render

    game = find_game(args.game)
    if args.sample_game:
        render.write_sample_game(game, args.out, seed=args.seed)
    else:
        render.write_boards(game, args.out, count=args.count, look=args.look, seed=args.seed)
    return 0


def _cmd_bench(args: argparse.Namespace) -> int:
    from companion.bench import run_bench

    run_bench(
        find_game(args.game),
        boards=args.boards,
        poses=args.poses,
        seed=args.seed,
        csv_path=args.csv,
        games=args.games,
        latency=args.latency,
    )
    return 0


def _cmd_mount(args: argparse.Namespace) -> int:
    from companion.setup.mount import advise, camera_named

    advice = advise(find_game(args.game).geometry, camera_named(args.camera), cell_cm=args.cell_cm)
    print(advice.text)
    return 0 if advice.enough else EXIT_ERROR


def _cmd_doctor(args: argparse.Namespace) -> int:
    from companion.setup.doctor import examine

    checks = examine(find_game(args.game), source=args.source, profile_path=args.profile)
    for check in checks:
        print(f"{'ok     ' if check.ok else 'PROBLEM'}  {check.name:<8} {check.text}")
    return 0 if all(c.ok for c in checks) else EXIT_ERROR


def _cmd_serve(args: argparse.Namespace) -> int:
    from companion.service import serve

    serve(
        find_game(args.game),
        source=args.source,
        profile_path=args.profile,
        host=args.host,
        port=args.port,
        data_dir=args.data,
        settle=args.settle,
        fps=args.fps,
        new=args.new,
        settings=dict(args.setting),
    )
    return 0


COMMANDS = {
    "serve": _cmd_serve,
    "calibrate": _cmd_calibrate,
    "read": _cmd_read,
    "referee": _cmd_referee,
    "render": _cmd_render,
    "bench": _cmd_bench,
    "mount": _cmd_mount,
    "doctor": _cmd_doctor,
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run one subcommand; returns the process exit status."""
    args = build_parser().parse_args(argv)
    # OpenCV's own warnings (e.g. probing for a camera that is not there) are not for users
    os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")
    logging.basicConfig(
        level=logging.DEBUG if args.debug else VERBOSITY.get(args.command, logging.WARNING),
        format="companion: %(message)s",
        stream=sys.stderr,
    )
    try:
        return COMMANDS[args.command](args)
    except CompanionError as err:
        print(f"companion: {err}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except Exception as err:  # a bug: one line for the user, the traceback with --debug
        if args.debug:
            raise
        print(
            f"companion: internal error ({type(err).__name__}: {err}); "
            "rerun with --debug and report it",
            file=sys.stderr,
        )
        return EXIT_INTERNAL


if __name__ == "__main__":
    sys.exit(main())
