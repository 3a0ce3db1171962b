"""Write calibration/lens-sheet.svg: the ChArUco sheet whose photos fit the camera's lens
(``companion calibrate --lens PHOTO...``).

    $ python calibration/make_lens_sheet.py [--out calibration]

The chessboard and its markers are drawn as black rectangles from the board OpenCV detects
(``companion/vision/charuco.py``), so the printed sheet is that board to the pixel.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARGIN_MM = (22.5, 30.0)
"""Left and top margin on an A4 page in landscape (297 x 210 mm): the board in the middle of
the page's width, with room above it for the instructions."""
PAGE_MM = (297.0, 210.0)


def sheet() -> str:
    """The sheet's SVG text (millimetres as the drawing unit)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # run from a checkout without installing the package
    import numpy as np

    from companion.vision import charuco

    px_per_mm = 2
    black = charuco.sheet_image(px_per_mm) < 128
    rects: list[str] = []
    open_runs: dict[tuple[int, int], int] = {}  # (x0, x1) -> first row of a run still growing
    for row in range(black.shape[0] + 1):
        line = black[row] if row < black.shape[0] else np.zeros(black.shape[1], bool)
        edges = np.flatnonzero(np.diff(np.concatenate([[0], line.astype(np.int8), [0]])))
        runs = set(zip(edges[::2].tolist(), edges[1::2].tolist(), strict=True))
        for run in [r for r in open_runs if r not in runs]:
            top = open_runs.pop(run)
            rects.append(_rect(run[0], top, run[1] - run[0], row - top, px_per_mm))
        for run in runs:
            open_runs.setdefault(run, row)
    lines = (
        "Lens sheet: print at 100 % (each square 28 mm), glue or tape it flat on card",
        "Photograph it 3-8 times with the table camera, at its resolution, tilted and moved "
        "about, the whole sheet in view; then:",
        "companion calibrate --game GAME --image START.jpg --lens PHOTO... --out PROFILE",
    )
    text = "".join(
        f'<text x="{PAGE_MM[0] / 2:g}" y="{9 + 6 * i}" text-anchor="middle" '
        f'font-family="sans-serif" font-size="{4.5 if i == 0 else 3.5}">{line}</text>'
        for i, line in enumerate(lines)
    )
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {PAGE_MM[0]:g} {PAGE_MM[1]:g}" '
        f'width="{PAGE_MM[0]:g}mm" height="{PAGE_MM[1]:g}mm">'
        f'<rect width="{PAGE_MM[0]:g}" height="{PAGE_MM[1]:g}" fill="white"/>{text}'
        f'<g transform="translate({MARGIN_MM[0]:g} {MARGIN_MM[1]:g})" fill="black">'
        + "".join(sorted(rects))
        + "</g></svg>\n"
    )


def _rect(x: int, y: int, width: int, height: int, px_per_mm: int) -> str:
    return (
        f'<rect x="{x / px_per_mm:g}" y="{y / px_per_mm:g}" width="{width / px_per_mm:g}" '
        f'height="{height / px_per_mm:g}"/>'
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "calibration")
    args = parser.parse_args(argv)
    target = args.out / "lens-sheet.svg"
    target.write_text(sheet(), encoding="utf-8")
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
