"""Write the teaching sheets: calibration/<game>-teach.svg for each game whose reader learns a
set from one photo of its pieces laid out (``companion calibrate --teach``).

    $ python calibration/make_teach_sheets.py [--out calibration]

A sheet is the game's own board drawing of the reader's ``teaching_pattern`` under a heading that
says how to lay the pieces; print it or keep it on a screen beside the board.
"""

from __future__ import annotations

import argparse
import sys
from html import escape
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WIDTH, HEADING = 400.0, 64.0
"""Drawing units: the board is WIDTH wide under a heading HEADING high."""
PRINT_MM = 190.0
"""Printed width: an A4 page less its margins."""


def sheets() -> dict[str, str]:
    """Each teachable game's id -> its sheet's SVG text."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # run from a checkout without installing the package
    from companion.games import registry

    out: dict[str, str] = {}
    for game in registry().values():
        pattern = game.reader.teaching_pattern()
        if pattern is None:
            continue
        lines = (
            f"Teach the camera your {game.title} set",
            "Lay each piece where shown, upright (its top towards this heading), one high;",
            f"then: companion calibrate --game {game.id} --teach PHOTO --out PROFILE",
        )
        text = "".join(
            f'<text x="{WIDTH / 2:g}" y="{18 + 17 * i}" text-anchor="middle" '
            f'font-family="sans-serif" font-size="{13 if i == 0 else 10}">{escape(line)}</text>'
            for i, line in enumerate(lines)
        )
        board = game.board_svg(pattern).replace(
            "<svg ", f'<svg x="0" y="{HEADING:g}" width="{WIDTH:g}" height="{WIDTH:g}" ', 1
        )
        out[game.id] = (
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH:g} '
            f'{WIDTH + HEADING:g}" width="{PRINT_MM:g}mm" '
            f'height="{PRINT_MM * (WIDTH + HEADING) / WIDTH:.1f}mm">'
            f"{text}{board}</svg>\n"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "calibration")
    args = parser.parse_args(argv)
    for game_id, svg in sheets().items():
        path = args.out / f"{game_id}-teach.svg"
        path.write_text(svg, encoding="utf-8")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
