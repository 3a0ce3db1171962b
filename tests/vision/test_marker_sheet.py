"""The printable marker sheet: the committed SVG is the script's output and carries the real
marker bits, at the promised size, with the touching corner marked."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
from calibration_scripts import ROOT, load

from companion.vision.markers import marker_image

NS = "{http://www.w3.org/2000/svg}"


def _bits(d: str, side: float) -> tuple[np.ndarray, tuple[float, float]]:
    """Rebuild the 6x6 module grid from the path's runs ``M x y h w v m h -w z``."""
    runs = [tuple(map(float, m)) for m in re.findall(r"M([\d.]+) ([\d.]+)h([\d.]+)v", d)]
    x0 = min(r[0] for r in runs)
    y0 = min(r[1] for r in runs)
    module = side / 6
    grid = np.zeros((6, 6), bool)
    for x, y, w in runs:
        row, col = round((y - y0) / module), round((x - x0) / module)
        grid[row, col : col + round(w / module)] = True
    return grid, (x0, y0)


def test_committed_sheet_is_the_scripts_output(tmp_path: Path) -> None:
    out = tmp_path / "markers.svg"
    load("make_marker_sheet").main(["--out", str(out)])
    assert out.read_bytes() == (ROOT / "calibration" / "markers.svg").read_bytes()


def test_sheet_holds_the_four_markers_at_40_mm() -> None:
    svg = ET.parse(ROOT / "calibration" / "markers.svg").getroot()
    assert (svg.get("width"), svg.get("height")) == ("210mm", "297mm")
    paths = svg.findall(f"{NS}path")
    assert len(paths) == 4
    texts = [t.text for t in svg.iter(f"{NS}text")]
    for marker_id, label in enumerate(["TL", "TR", "BR", "BL"]):
        grid, _ = _bits(paths[marker_id].get("d", ""), 40.0)
        assert np.array_equal(grid, marker_image(marker_id, 6) < 128)
        assert f"{label} {marker_id}" in texts
    assert texts.count("this corner touches the tray corner") == 4


def test_touch_marks_sit_on_the_inner_corners() -> None:
    """Each red circle is on the black square's corner that faces the other markers."""
    svg = ET.parse(ROOT / "calibration" / "markers.svg").getroot()
    origins = [_bits(p.get("d", ""), 40.0)[1] for p in svg.findall(f"{NS}path")]
    squares = [np.array([[x, y], [x + 40, y], [x + 40, y + 40], [x, y + 40]]) for x, y in origins]
    middle = np.mean([s.mean(axis=0) for s in squares], axis=0)
    inner = [s[np.argmin(np.linalg.norm(s - middle, axis=1))] for s in squares]
    circles = [
        (float(c.get("cx", "nan")), float(c.get("cy", "nan"))) for c in svg.iter(f"{NS}circle")
    ]
    np.testing.assert_allclose(circles, inner, atol=1e-3)
