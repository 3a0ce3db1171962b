"""Write the printable A4 sheet of the four board-corner markers (calibration/markers.svg).

    $ python calibration/make_marker_sheet.py [--out calibration/markers.svg] [--size-mm 40]
                                              [--spinner calibration/labyrinth-spinner.svg]

Each marker is drawn as vector squares from the ArUco dictionary bits, so it prints sharp at any
resolution.  Every marker sits on a white card (the quiet zone the detector needs) with a notch
cut away at the corner that must touch the tray: the notch fits around the tray's corner, which
puts the black square's corner exactly on it (the convention of ``companion/vision/markers.py``).
``--spinner`` also writes Zombie Labyrinth's spinner card (marker 4, its own page: see
``companion/games/labyrinth/spinner.py``).
"""

from __future__ import annotations

import argparse
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PAGE_MM = (210.0, 297.0)
LABELS = ("TL", "TR", "BR", "BL")
# which corner of each marker is innermost: (+1, +1) is the bottom-right of the marker
INNER = ((1, 1), (-1, 1), (-1, -1), (1, -1))


def _importable() -> None:
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # run from a checkout without installing the package


def _marker_bits(marker_id: int) -> list[list[bool]]:
    """True for black modules: 4x4 data bits inside a one-module black border."""
    _importable()
    from companion.vision.markers import marker_image

    image = marker_image(marker_id, 6)
    return [[bool(image[r, c] < 128) for c in range(6)] for r in range(6)]


def _num(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".")


def _sub(parent: ET.Element, tag: str, **attrs: float | str) -> ET.Element:
    return ET.SubElement(
        parent,
        tag,
        {
            k.rstrip("_").replace("_", "-"): _num(v) if isinstance(v, float) else v
            for k, v in attrs.items()
        },
    )


def _text(parent: ET.Element, x: float, y: float, text: str, size: float, **attrs: str) -> None:
    node = _sub(parent, "text", x=x, y=y, font_size=size, font_family="sans-serif", **attrs)
    node.text = text


def _card(page: ET.Element, index: int, x: float, y: float, side: float, quiet: float) -> None:
    """One marker card: cut outline with the notch, the marker, its label and the touch mark."""
    sx, sy = INNER[index]
    card = side + 2 * quiet
    # the black square's inner corner, and the card corner diagonally beyond it
    corner_x = x + quiet + (side if sx > 0 else 0.0)
    corner_y = y + quiet + (side if sy > 0 else 0.0)
    far_x, far_y = corner_x + sx * quiet, corner_y + sy * quiet
    notch = [(corner_x, corner_y), (far_x, corner_y), (far_x, far_y), (corner_x, far_y)]
    _sub(
        page,
        "polygon",
        points=" ".join(f"{_num(px)},{_num(py)}" for px, py in notch),
        fill="#d0d0d0",
        stroke="none",
    )
    # cut line: the card's square minus the notch, as one closed path
    x0, y0, x1, y1 = x, y, x + card, y + card
    ring = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    notch_at = {(-1, -1): 0, (1, -1): 1, (1, 1): 2, (-1, 1): 3}[(sx, sy)]
    cx, cy = ring[notch_at]
    # the ring reaches the notch along a vertical edge at corners 0 and 2, a horizontal one at 1, 3
    into, out_of = (cx, corner_y), (corner_x, cy)
    if notch_at % 2:
        into, out_of = out_of, into
    outline = [*ring[:notch_at], into, (corner_x, corner_y), out_of, *ring[notch_at + 1 :]]
    _sub(
        page,
        "polygon",
        points=" ".join(f"{_num(px)},{_num(py)}" for px, py in outline),
        fill="none",
        stroke="#000000",
        stroke_width=0.3,
        stroke_dasharray="2,1.5",
    )
    module = side / 6
    steps = []
    for r, row in enumerate(_marker_bits(index)):
        c = 0
        while c < 6:  # one sub-path per run of black modules keeps the file small
            if not row[c]:
                c += 1
                continue
            run = c
            while run < 6 and row[run]:
                run += 1
            left, top = x + quiet + c * module, y + quiet + r * module
            steps.append(
                f"M{_num(left)} {_num(top)}h{_num((run - c) * module)}v{_num(module)}"
                f"h{_num(-(run - c) * module)}z"
            )
            c = run
    # one path, not one rectangle per run: renderers leave hairline seams between shapes
    _sub(page, "path", d="".join(steps), fill="#000000")
    label_y = y - 3.0 if sy > 0 else y + card + 7.0
    _text(
        page,
        x + card / 2,
        label_y,
        f"{LABELS[index]} {index}",
        6.0,
        text_anchor="middle",
        font_weight="bold",
    )
    _text(
        page,
        far_x - sx * quiet / 2,
        far_y - sy * quiet / 2 + 1.0,
        "cut",
        2.6,
        text_anchor="middle",
        fill="#555555",
    )
    note_y = y + card + 7.0 if sy > 0 else y - 3.0
    _text(
        page,
        corner_x,
        note_y,
        "this corner touches the tray corner",
        3.2,
        text_anchor="end" if sx > 0 else "start",
    )
    # a red line from the note to the touching corner
    _sub(
        page,
        "line",
        x1=corner_x,
        y1=note_y - 3.5 if sy > 0 else note_y + 1.5,
        x2=corner_x,
        y2=corner_y + sy * 1.2,
        stroke="#c00000",
        stroke_width=0.4,
    )
    _sub(
        page,
        "circle",
        cx=corner_x,
        cy=corner_y,
        r=0.9,
        fill="none",
        stroke="#c00000",
        stroke_width=0.4,
    )


def sheet(side: float = 40.0) -> ET.Element:
    """The whole A4 page as an SVG element tree (millimetre units)."""
    width, height = PAGE_MM
    svg = ET.Element(
        "svg",
        {
            "xmlns": "http://www.w3.org/2000/svg",
            "width": f"{_num(width)}mm",
            "height": f"{_num(height)}mm",
            "viewBox": f"0 0 {_num(width)} {_num(height)}",
        },
    )
    _sub(svg, "rect", x=0.0, y=0.0, width=width, height=height, fill="#ffffff")
    quiet = side / 4
    card = side + 2 * quiet
    _text(
        svg,
        width / 2,
        16.0,
        "Companion board markers (ArUco DICT_4X4_50, ids 0-3)",
        5.5,
        text_anchor="middle",
        font_weight="bold",
    )
    _text(
        svg,
        width / 2,
        23.0,
        "Print at 100 % (actual size, no fit-to-page): the bar must "
        "measure 50 mm. Cut along the dashed lines, grey notch included.",
        3.2,
        text_anchor="middle",
    )
    _sub(svg, "rect", x=width / 2 - 25.0, y=27.0, width=50.0, height=2.0, fill="#000000")
    _text(svg, width / 2, 34.0, "50 mm", 3.0, text_anchor="middle")
    gap_x = (width - 2 * card) / 3
    top, bottom = 55.0, height - 45.0 - card
    spots = ((gap_x, top), (2 * gap_x + card, top), (2 * gap_x + card, bottom), (gap_x, bottom))
    for index, (x, y) in enumerate(spots):
        _card(svg, index, x, y, side, quiet)
    _text(
        svg,
        width / 2,
        height / 2 - 4.0,
        "Lay each marker just outside its corner of the tray (TL at the board's top-left, ...),",
        3.4,
        text_anchor="middle",
    )
    _text(
        svg,
        width / 2,
        height / 2 + 1.5,
        "the notch around the tray's corner, so that the black square's corner touches it.",
        3.4,
        text_anchor="middle",
    )
    _text(
        svg,
        width / 2,
        height / 2 + 7.0,
        "Markers may be turned any way; keep them flat and uncovered. See calibration/README.md.",
        3.4,
        text_anchor="middle",
    )
    return svg


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "calibration" / "markers.svg")
    parser.add_argument("--size-mm", type=float, default=40.0, help="marker side (black square)")
    parser.add_argument(
        "--spinner", type=Path, help="also write the Zombie Labyrinth spinner card to this file"
    )
    args = parser.parse_args(argv)
    if not 20.0 <= args.size_mm <= 60.0:
        parser.error("--size-mm must be between 20 and 60 (four cards must fit on A4)")
    tree = ET.ElementTree(sheet(args.size_mm))
    ET.indent(tree)
    tree.write(args.out, encoding="utf-8", xml_declaration=True)
    if args.spinner is not None:
        _importable()
        from companion.games.labyrinth.model import spinner_segments
        from companion.games.labyrinth.spinner import card_svg

        args.spinner.write_text(card_svg(spinner_segments()) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
