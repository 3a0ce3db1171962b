"""The spinner card: a printed disc of segments under the spinner's arrow, with ArUco marker 4.

Nothing is known of the real spinner's looks (games/labyrinth.md), so the camera reads a card
of our own design, laid on the spinner base with the arrow's pivot on the disc's centre:

- the disc's rim is a band of segments, one per spinner segment in the rules' order (the
  catalog's lantern colours, then Dr. Bizarre's); segment ``k`` is centred ``k * 360 / n``
  degrees clockwise from the card's top (the side away from the marker);
- inside the band the card is plain paper round a dark hub at the pivot;
- ArUco marker 4 (``SPINNER_ID``, the corner markers' dictionary) lies upright below
  the disc at a fixed place: its four corners give the card's plane in the frame;
- the arrow is dark; its head reaches into the band, its tail stops short of the outer track.

Card units: one marker side = 1, x right, y down, the pivot at (0, 0).  The reader samples two
rings of plain paper in card units through the marker's homography, so the camera's tilt and
distance, the card's turn on the table and the segments' printing do not matter: on the outer
ring only the head is dark, on the inner one the head and, opposite, the tail.  Each sample is
compared with the paper near it on the same ring, which takes out uneven light and shadows.
"""

from __future__ import annotations

import logging
import math
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from companion.games.svg_text import num
from companion.vision.markers import DICTIONARY_ID, marker_image

log = logging.getLogger(__name__)

BGR = tuple[int, int, int]

SPINNER_ID = 4
"""The card's ArUco id: outside the corner markers' ids (``markers.CORNER_IDS``), so finding the
board's corners never takes the card for one."""

DISC = 1.5
"""The disc's radius (card units: one marker side = 1)."""
BAND = 1.05
"""Inner radius of the segment band; paper inside it."""
HUB = 0.12
HEAD = 1.32
"""Where the arrow's head reaches (into the band: it points at a segment)."""
HEAD_LENGTH = 0.3
HEAD_WIDTH = 0.34
TAIL = 0.45
SHAFT = 0.16
"""The arrow's shaft width."""
OUTER_TRACK = (0.62, 0.7, 0.78, 0.86, 0.94)
"""Radii of the ring only the head crosses..."""
INNER_TRACK = (0.2, 0.27, 0.34)
"""...and of the ring head and tail both cross."""
MARKER_TOP = DISC + 0.25
MARKER_CORNERS = np.array(
    [[-0.5, MARKER_TOP], [0.5, MARKER_TOP], [0.5, MARKER_TOP + 1], [-0.5, MARKER_TOP + 1]],
    np.float32,
)
"""The marker's corners on the card, in ArUco's corner order (its own top-left first)."""
MARGIN = 0.25
CARD = (-DISC - MARGIN, -DISC - MARGIN, DISC + MARGIN, MARKER_TOP + 1 + MARGIN)
"""The card's extent (x0, y0, x1, y1): the marker keeps a quarter of its side of white (the
detector's quiet zone) all round; every edge is a whole number of quarter units."""

STEPS = 180
"""Angles sampled round each ring (2 degrees apart)."""
PAPER_WINDOW = 22
"""Samples each side whose paper a sample is compared with (44 degrees: far wider than the
shaft, narrower than a shadow's gradual change)."""
MIN_DARK = 0.3
"""How much darker than its paper the shaft must be (a black arrow on white: about 0.8)."""
BOUNDARY_DEG = 5.0
"""An arrow this near a segment boundary is read with less than full confidence."""
SURE = 0.5
"""Below this confidence the reader says it cannot tell (``segment`` None)."""
REFINE = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.01)


def segment_centre(index: int, count: int) -> float:
    """Segment ``index``'s centre in degrees clockwise from the card's top."""
    return 360.0 * index / count


def direction(angle_deg: float) -> np.ndarray:
    """The unit vector ``angle_deg`` clockwise from the card's top (card units, y down)."""
    a = math.radians(angle_deg)
    return np.array([math.sin(a), -math.cos(a)])


def segment_at(angle_deg: float, count: int) -> tuple[int, float]:
    """The segment an arrow at ``angle_deg`` points to, and its distance (degrees) from the
    nearer edge of that segment."""
    width = 360.0 / count
    pos = (angle_deg + width / 2) % 360.0
    index = int(pos // width) % count
    inside = pos - index * width
    return index, min(inside, width - inside)


# --- drawing -------------------------------------------------------------------------------------
def _wedge(start_deg: float, end_deg: float, inner: float, outer: float) -> np.ndarray:
    arc = np.linspace(start_deg, end_deg, max(8, round(abs(end_deg - start_deg) / 3)))
    rim = [direction(a) * outer for a in arc]
    hole = [direction(a) * inner for a in arc[::-1]]
    return np.array(rim + hole)


def arrow_outline(angle_deg: float) -> np.ndarray:
    """The arrow's outline (card units) pointing ``angle_deg`` clockwise from the top."""
    along, across = direction(angle_deg), direction(angle_deg + 90.0)
    neck = HEAD - HEAD_LENGTH
    half, wing = SHAFT / 2, HEAD_WIDTH / 2
    shape = [(-TAIL, -half), (neck, -half), (neck, -wing), (HEAD, 0.0), (neck, wing),
             (neck, half), (-TAIL, half)]  # fmt: skip
    return np.array([a * along + c * across for a, c in shape])


def card_image(
    segments: Sequence[str],
    paint: Mapping[str, BGR],
    arrow_deg: float,
    *,
    px_per_unit: int,
    paper: BGR = (235, 235, 235),
    ink: BGR = (25, 25, 25),
) -> np.ndarray:
    """The card seen from straight above with the arrow at ``arrow_deg`` (BGR, covering
    ``CARD`` exactly: pixel ``i`` spans ``x0 + i / px_per_unit`` to the next).  Segments
    missing from ``paint`` print grey.  With ``px_per_unit`` a multiple of 4 the marker's
    modules fall on whole pixels, where it is printed exactly."""
    x0, y0, x1, y1 = CARD
    width, height = round((x1 - x0) * px_per_unit), round((y1 - y0) * px_per_unit)
    img = np.empty((height, width, 3), np.uint8)
    img[:] = paper
    shift = 4

    def fixed(points: np.ndarray) -> np.ndarray:
        px = (np.atleast_2d(points) - (x0, y0)) * px_per_unit - 0.5
        return np.round(px * (1 << shift)).astype(np.int32)

    def fill(points: np.ndarray, colour: BGR) -> None:
        cv2.fillPoly(img, [fixed(points)], colour, cv2.LINE_AA, shift)

    count = len(segments)
    width_deg = 360.0 / count
    fill(_wedge(0.0, 360.0, DISC, DISC + 0.02), ink)
    for k, name in enumerate(segments):
        mid = segment_centre(k, count)
        fill(
            _wedge(mid - width_deg / 2, mid + width_deg / 2, BAND, DISC),
            paint.get(name, (128,) * 3),
        )
        edge = direction(mid + width_deg / 2)
        cv2.polylines(img, [fixed(np.array([edge * BAND, edge * DISC]))], False, ink,
                      max(1, round(0.02 * px_per_unit)), cv2.LINE_AA, shift)  # fmt: skip
    fill(_wedge(0.0, 360.0, BAND - 0.02, BAND), ink)
    fill(arrow_outline(arrow_deg), ink)
    fill(_wedge(0.0, 360.0, 0.0, HUB), ink)
    mark = marker_image(SPINNER_ID, px_per_unit)
    left, top = np.round((MARKER_CORNERS[0] - (x0, y0)) * px_per_unit).astype(int)
    img[top : top + px_per_unit, left : left + px_per_unit] = mark[..., None]
    return img


# --- printing ------------------------------------------------------------------------------------
PRINT_COLOURS = {
    "red": "#c62828",
    "yellow": "#f2c500",
    "green": "#2e9e3a",
    "blue": "#1f5fbf",
    "purple": "#7b2d8e",
    "bizarre": "#e6e6e6",
}
"""Print colours of the default segments; a user's own colours print grey, named."""


def _points(points: np.ndarray, scale: float, origin: tuple[float, float]) -> str:
    return " ".join(
        f"{num(x * scale + origin[0], 3)},{num(y * scale + origin[1], 3)}" for x, y in points
    )


def card_svg(segments: Sequence[str], marker_mm: float = 30.0) -> str:
    """A printable A4 page (SVG, millimetres): the card to cut out and lay on the spinner base
    with the arrow's pivot through the cross at its centre, and a dark arrow to cut out and
    glue on the spinner's own arrow (head towards the segments)."""
    scale = marker_mm
    x0, y0, x1, y1 = CARD
    origin = (105.0 - (x0 + x1) / 2 * scale, 40.0 - y0 * scale)
    svg = ET.Element(
        "svg",
        {"xmlns": "http://www.w3.org/2000/svg", "width": "210mm", "height": "297mm",
         "viewBox": "0 0 210 297"},
    )  # fmt: skip

    def add(tag: str, **attrs: str) -> ET.Element:
        return ET.SubElement(svg, tag, {k.replace("_", "-"): v for k, v in attrs.items()})

    def text(x: float, y: float, words: str, size: float) -> None:
        node = add(
            "text",
            x=num(x, 3),
            y=num(y, 3),
            font_size=num(size, 3),
            font_family="sans-serif",
            text_anchor="middle",
        )
        node.text = words

    add("rect", x="0", y="0", width="210", height="297", fill="#ffffff")
    text(105.0, 16.0, f"Zombie Labyrinth spinner card (ArUco DICT_4X4_50, id {SPINNER_ID})", 5.0)
    text(105.0, 23.0, "Print at 100 %: the marker square must measure "
         f"{num(marker_mm, 3)} mm. Cut along the dashed lines.", 3.2)  # fmt: skip
    outline = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    add("polygon", points=_points(outline, scale, origin), fill="none", stroke="#000000",
        stroke_width="0.3", stroke_dasharray="2,1.5")  # fmt: skip
    count = len(segments)
    width_deg = 360.0 / count
    for k, name in enumerate(segments):
        mid = segment_centre(k, count)
        wedge = _wedge(mid - width_deg / 2, mid + width_deg / 2, BAND, DISC)
        colour = PRINT_COLOURS.get(name, "#9e9e9e")
        add("polygon", points=_points(wedge, scale, origin), fill=colour, stroke="#1a1a1a",
            stroke_width="0.4")  # fmt: skip
        label = direction(mid) * (BAND + DISC) / 2 * scale
        text(origin[0] + label[0], origin[1] + label[1] + 1.2,
             "Dr. B" if name == "bizarre" else name, 3.2)  # fmt: skip
    cx, cy = origin
    add("circle", cx=num(cx, 3), cy=num(cy, 3), r=num(HUB * scale, 3), fill="#1a1a1a")
    for (ax, ay), (bx, by) in (((cx - 3, cy), (cx + 3, cy)), ((cx, cy - 3), (cx, cy + 3))):
        add(
            "line",
            x1=num(ax, 3),
            y1=num(ay, 3),
            x2=num(bx, 3),
            y2=num(by, 3),
            stroke="#ffffff",
            stroke_width="0.3",
        )
    module = scale / 6
    bits = marker_image(SPINNER_ID, 6) < 128
    steps = []
    left, top = MARKER_CORNERS[0] * scale + origin
    for r in range(6):
        for c in range(6):
            if bits[r, c]:
                steps.append(f"M{num(left + c * module, 3)} {num(top + r * module, 3)}"
                             f"h{num(module, 3)}v{num(module, 3)}h{num(-module, 3)}z")  # fmt: skip
    add("path", d="".join(steps), fill="#000000")
    # the arrow to glue on the spinner's own: dark, so the camera sees it on the paper
    arrow_origin = (105.0, y1 * scale + origin[1] + 25.0)
    add("polygon", points=_points(arrow_outline(90.0), scale, arrow_origin), fill="#1a1a1a",
        stroke="#000000", stroke_width="0.3", stroke_dasharray="2,1.5")  # fmt: skip
    add("circle", cx=num(arrow_origin[0], 3), cy=num(arrow_origin[1], 3), r="0.8", fill="#ffffff")
    text(105.0, arrow_origin[1] + 12.0, "arrow: cut out, glue on the spinner's arrow, pivot on "
         "the white cross", 3.2)  # fmt: skip
    ET.indent(svg)
    return ET.tostring(svg, encoding="unicode")


# --- reading -------------------------------------------------------------------------------------
@dataclass(frozen=True)
class SpinnerSight:
    """What the camera made of the spinner in one frame."""

    segment: str | None
    """The segment the arrow points to; None when the card is not in view or the reader is
    less than ``SURE`` of it."""
    confidence: float
    angle_deg: float | None = None
    """The arrow's direction, clockwise from the card's top, when an arrow was found."""


def _ring(radii: Sequence[float]) -> np.ndarray:
    angles = np.arange(STEPS) * 360.0 / STEPS
    return np.array([[direction(a) * r for r in radii] for a in angles])


class SpinnerReader:
    """Finds marker 4 in a camera frame and reads where the arrow on its card points."""

    def __init__(self, segments: Sequence[str]) -> None:
        self.segments = tuple(segments)
        self._detector = cv2.aruco.ArucoDetector(
            cv2.aruco.getPredefinedDictionary(DICTIONARY_ID), cv2.aruco.DetectorParameters()
        )
        self._outer = _ring(OUTER_TRACK)
        self._inner = _ring(INNER_TRACK)
        offsets = np.arange(-PAPER_WINDOW, PAPER_WINDOW + 1)
        self._window = (np.arange(STEPS)[:, None] + offsets[None]) % STEPS

    def find(self, grey: np.ndarray) -> np.ndarray | None:
        """Marker 4's corners in ``grey`` (float32 4x2, ArUco order), or None.

        Markers are looked for on a half-size frame first (a quarter of the work; the card's
        marker is large enough there at the mounts the reader is made for), then on the whole
        frame.  The corners found are refined on the whole frame: the arrow is read up to
        three marker sides from them, so their error grows threefold there (half-size
        corners are off by 1-2 pixels, refined ones by a quarter pixel on renders)."""
        height, width = grey.shape[:2]
        half = cv2.resize(grey, (width // 2, height // 2), interpolation=cv2.INTER_AREA)
        for image, scale in ((half, 2.0), (grey, 1.0)):
            corners, ids, _ = self._detector.detectMarkers(image)
            if ids is None:
                continue
            for quad, marker_id in zip(corners, ids.ravel(), strict=True):
                if int(marker_id) == SPINNER_ID:
                    found = (quad.reshape(-1, 1, 2) + 0.5) * scale - 0.5
                    return cv2.cornerSubPix(grey, found.astype(np.float32), (3, 3), (-1, -1),
                                            REFINE).reshape(4, 2)  # fmt: skip
        return None

    def read(self, frame: np.ndarray) -> SpinnerSight:
        grey = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        corners = self.find(grey)
        if corners is None:
            return SpinnerSight(None, 0.0)
        to_frame = cv2.getPerspectiveTransform(MARKER_CORNERS, corners.astype(np.float32))
        outer = self._sample(grey, to_frame, self._outer)
        inner = self._sample(grey, to_frame, self._inner)
        if outer is None or inner is None:
            log.debug("the spinner card is partly out of view")
            return SpinnerSight(None, 0.0)
        return self._arrow(self._darkness(outer), self._darkness(inner))

    def _sample(
        self, grey: np.ndarray, to_frame: np.ndarray, ring: np.ndarray
    ) -> np.ndarray | None:
        """Mean grey per angle over the ring's radii; None if any sample is off the frame."""
        pts = cv2.perspectiveTransform(ring.reshape(-1, 1, 2).astype(np.float32), to_frame)
        pts = pts.reshape(ring.shape)
        height, width = grey.shape[:2]
        if (pts < 0).any() or (pts[..., 0] > width - 1).any() or (pts[..., 1] > height - 1).any():
            return None
        values = cv2.remap(grey, pts[..., 0], pts[..., 1], cv2.INTER_LINEAR)
        return values.astype(np.float32).mean(axis=1)

    def _darkness(self, profile: np.ndarray) -> np.ndarray:
        """How much darker each angle is than the paper round it (0 paper, 1 black)."""
        paper = np.percentile(profile[self._window], 75, axis=1)
        return 1.0 - profile / np.maximum(paper, 1.0)

    def _arrow(self, outer: np.ndarray, inner: np.ndarray) -> SpinnerSight:
        step = 360.0 / STEPS
        head = int(np.argmax(outer))
        peak = float(outer[head])
        if peak < MIN_DARK:
            return SpinnerSight(None, 0.0)
        near = (np.arange(-4, 5) + head) % STEPS
        weight = np.maximum(outer[near] - peak / 2, 0.0)
        angles = np.radians(near * step)
        angle = math.degrees(math.atan2(weight @ np.sin(angles), weight @ np.cos(angles))) % 360
        # the head alone on the outer ring: nothing else as dark away from it
        away = np.abs((np.arange(STEPS) - head + STEPS // 2) % STEPS - STEPS // 2) > 15
        rival = float(outer[away].max())
        # the inner ring shows the shaft at the head and the tail opposite
        spread = np.arange(-3, 4)
        shaft = float(inner[(spread + head) % STEPS].max())
        tail = float(inner[(spread + head + STEPS // 2) % STEPS].max())
        index, margin = segment_at(angle, len(self.segments))
        confidence = min(
            float(np.clip((peak - MIN_DARK) / MIN_DARK + 0.5, 0, 1)),
            float(np.clip(2.0 * (1.0 - rival / peak), 0, 1)),
            float(np.clip(2.0 * min(shaft, tail) / peak, 0, 1)),
            float(np.clip(margin / BOUNDARY_DEG, 0, 1)),
        )
        segment = self.segments[index] if confidence >= SURE else None
        return SpinnerSight(segment, confidence, angle)
