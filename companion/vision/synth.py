"""Photo-like camera scenes of any game's board, with the ground truth of where the board lies.

A game only says what its board looks like from straight above (``Lab.draw_board``) and what
stands on it (``Lab.raised``: layers at heights above the board); this module puts the board on
a textured table under a pinhole camera (tilted about a random axis, the board turned any way in
the image), projects each layer through the same camera at its height (so stacks lean and their
sides show), adds the four ArUco corner markers on the table plane, uneven light, colour cast,
vignette, blur, sensor noise and, on request, an arm reaching over the board.  The
corners it reports are exact, so a reader can be scored against the truth it was drawn from.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from companion.games.base import Game, S
from companion.games.lab import Layer
from companion.games.reading import Reader
from companion.vision.lens import Lens
from companion.vision.markers import CORNER_IDS, marker_image
from companion.vision.rectify import Rectifier

LENS_GRID_PX = 8
"""Spacing of the frame points the lens is undone at when rendering through it; in between the
map is interpolated (the bending is smooth: well under 0.01 px off at k1 = -0.3)."""
QUIET = 0.25
"""White border around each marker, as a share of the marker side."""
CAMERA_DISTANCE = 1.6
"""Camera height over the board centre, in board widths (sets how strong perspective is)."""


@dataclass(frozen=True)
class Pose:
    """Where the camera looks at the board from."""

    tilt_deg: float = 0.0
    """Angle between the table's normal and the line from the board's centre to the camera
    (0 = straight down; panning to place the board at ``offset`` turns the optical axis a
    little further)."""
    tilt_axis_deg: float = 0.0
    """Direction, in the table plane, of the axis the camera is tilted about."""
    yaw_deg: float = 0.0
    """Turn of the board in the image: where the board's top points."""
    fill: float = 0.6
    """The tray's bounding box as a share of the frame's shorter side."""
    offset: tuple[float, float] = (0.0, 0.0)
    """Where the board sits in the room left by ``fill``: -1..1 on each axis."""
    focal: float | None = None
    """Focal length as a share of the frame width (a Pi Camera 3 is about 0.77, a wide lens
    0.4, webcams 0.6-0.9); None: whatever fills the frame from ``CAMERA_DISTANCE``."""
    distortion: tuple[float, float] = (0.0, 0.0)
    """The lens's radial bending (k1, k2 of Brown's model, radius in focal lengths, as OpenCV
    has it): k1 below 0 is barrel (webcams and wide lenses, -0.1 to -0.3), above 0 pincushion.
    The board is placed as for a pinhole, then the lens bends the picture about its centre."""


@dataclass(frozen=True)
class Light:
    """How the scene is lit and how the sensor sees it."""

    exposure: float = 1.0
    cast: tuple[float, float, float] = (1.0, 1.0, 1.0)
    """Per-channel gain (B, G, R): warm bulbs, cool daylight."""
    gradient: float = 0.0
    """Brightness change from the frame's middle to its edge along ``gradient_dir_deg`` (0..1)."""
    gradient_dir_deg: float = 0.0
    vignette: float = 0.0
    noise: float = 0.0
    """Sensor noise sigma in 8-bit levels."""
    blur: float = 0.0
    """Gaussian blur sigma in pixels (focus, motion)."""
    shadow: tuple[float, float, float, float] | None = None
    """A soft shadow across the frame: (x, y) as frame shares, radius share, darkness 0..1."""
    lamp: tuple[float, float, float] | None = None
    """A lamp switched on beside the board: (x, y) as frame shares (may lie outside 0..1) and
    the brightening right under it, falling off smoothly with distance."""
    saturation: float = 1.0
    """Colour kept by the camera's processing (1 unchanged, 0 grey): auto white balance and
    cheap sensors wash colours out as the room light changes."""
    black: float = 0.0
    """Black level lift in 8-bit levels: a channel at 0 shows this (webcams in dim light)."""
    gamma: float = 1.0
    """Tone curve exponent applied after the lift of ``black`` (above 1 darkens mid-tones)."""
    jpeg: int | None = None
    """JPEG quality the frame goes through, as a webcam's stream does (None: raw)."""


@dataclass(frozen=True)
class Table:
    """The table top: two wood tones and the grain scale in board cells."""

    base: tuple[int, int, int] = (70, 110, 150)
    streak: tuple[int, int, int] = (50, 85, 120)
    grain: float = 0.6


@dataclass
class Scene:
    """One synthetic frame and the truth about it."""

    image: np.ndarray
    corners: np.ndarray
    """The playing area's corners TL, TR, BR, BL in image pixels (float32 4x2)."""
    tray_corners: np.ndarray
    """The tray's outer corners, likewise (what the markers point at)."""
    projection: np.ndarray
    """The pinhole camera P = K [R | t] (3x4): a board point (x, y, z) in cells -> homogeneous
    image pixels.  x runs along the columns and y down the rows from the playing area's top-left
    corner; z points into the table, so a point ``h`` cells above the board has z = -h."""
    pose: Pose
    light: Light
    hand: str | None = None
    marker_corners: dict[int, np.ndarray] = field(default_factory=dict)
    lens: Lens | None = None
    """The lens the frame was seen through (None: a pinhole).  ``projection`` and
    ``plane_homography`` give pinhole pixels; ``lens.distort`` moves them to where the frame
    shows them.  ``corners``, ``tray_corners`` and ``marker_corners`` are already in the frame."""

    def plane_homography(self, height_cells: float) -> np.ndarray:
        """Board cells (x, y) on the plane ``height_cells`` above the board -> image pixels.

        A stack's top face lies on such a plane; use it with ``cv2.perspectiveTransform`` to
        predict where a square's top face appears (height 0 is the board surface).
        """
        return _height_homography(self.projection, height_cells)


SKIN_TONES: tuple[tuple[int, int, int], ...] = (
    (170, 190, 235),
    (140, 170, 225),
    (110, 150, 200),
    (80, 120, 170),
    (55, 80, 125),
    (40, 55, 90),
)
TABLES: tuple[Table, ...] = (
    Table((70, 110, 150), (50, 85, 120), 0.6),
    Table((40, 60, 90), (30, 45, 70), 0.9),
    Table((150, 170, 185), (130, 150, 165), 0.4),
    Table((200, 200, 200), (185, 185, 185), 0.0),
    Table((60, 60, 60), (50, 50, 55), 0.0),
    Table((90, 120, 100), (80, 105, 90), 0.3),
)


def random_pose(rng: np.random.Generator, max_tilt: float = 20.0, *, min_tilt: float = 0.0) -> Pose:
    """A camera pose such as a phone stand or a lamp arm gives."""
    return Pose(
        tilt_deg=float(rng.uniform(min_tilt, max_tilt)),
        tilt_axis_deg=float(rng.uniform(0.0, 360.0)),
        yaw_deg=float(rng.uniform(0.0, 360.0)),
        fill=float(rng.uniform(0.5, 0.7)),
        offset=(float(rng.uniform(-1, 1)), float(rng.uniform(-1, 1))),
        focal=float(rng.uniform(0.6, 1.0)),
    )


def random_light(rng: np.random.Generator) -> Light:
    """Room light as found at home: uneven, tinted, a little noisy, sometimes a soft shadow."""
    shadow = None
    if rng.random() < 0.3:
        shadow = (
            float(rng.uniform(0.2, 0.8)),
            float(rng.uniform(0.2, 0.8)),
            float(rng.uniform(0.2, 0.4)),
            float(rng.uniform(0.1, 0.3)),
        )
    return Light(
        exposure=float(rng.uniform(0.75, 1.2)),
        cast=tuple(float(x) for x in rng.uniform(0.9, 1.1, 3)),  # type: ignore[arg-type]
        gradient=float(rng.uniform(0.0, 0.35)),
        gradient_dir_deg=float(rng.uniform(0.0, 360.0)),
        vignette=float(rng.uniform(0.0, 0.3)),
        noise=float(rng.uniform(1.0, 5.0)),
        blur=float(rng.uniform(0.0, 1.2)),
        shadow=shadow,
    )


def drifting_lights(rng: np.random.Generator, frames: int) -> list[Light]:
    """The light of ``frames`` successive frames of one game filmed without a camera lock.

    The room and the camera's automatic processing drift between the first frame (calibration's,
    a plain ``random_light``) and the last: exposure and white balance wander, colours wash out
    (saturation down to 0.45-0.8), the black level lifts so near-zero channels show 30-80, the
    tone curve bends (all of it reached by the middle of the game and kept), and from some frame
    on a lamp beside the board is switched on.  Webcam
    grade JPEG and noise throughout.  The ranges follow what an outside tester saw on real
    overhead frames of a whole game (saturation falling, dark channels rising to 30-80 of 255).
    """
    start = random_light(rng)
    end_cast = np.array(start.cast) * rng.uniform(0.85, 1.15, 3)
    end = {
        "exposure": start.exposure * float(rng.uniform(0.75, 1.3)),
        "saturation": float(rng.uniform(0.45, 0.8)),
        "black": float(rng.uniform(30.0, 80.0)),
        "gamma": float(rng.uniform(0.8, 1.25)),
    }
    lamp_on = int(rng.integers(frames // 3, max(frames, 2)))
    lamp = (
        float(rng.uniform(-0.3, 1.3)),
        float(rng.uniform(-0.3, 1.3)),
        float(rng.uniform(0.2, 0.5)),
    )
    quality = int(rng.integers(60, 86))
    lights = []
    for k in range(frames):
        t = min(1.0, 2 * k / max(frames - 1, 1))  # the camera settles on its drift by mid-game
        jitter = rng.normal(1.0, 0.03)
        lights.append(
            Light(
                exposure=float((start.exposure + t * (end["exposure"] - start.exposure)) * jitter),
                cast=tuple(float(x) for x in np.array(start.cast) + t * (end_cast - start.cast)),  # type: ignore[arg-type]
                gradient=start.gradient,
                gradient_dir_deg=start.gradient_dir_deg,
                vignette=start.vignette,
                noise=start.noise + 2.0 * t,
                blur=start.blur,
                shadow=start.shadow,
                lamp=lamp if k >= lamp_on else None,
                saturation=1.0 + t * (end["saturation"] - 1.0),
                black=t * end["black"],
                gamma=1.0 + t * (end["gamma"] - 1.0),
                jpeg=quality,
            )
        )
    return lights


def _rotation(tilt_deg: float, axis_deg: float, yaw_deg: float) -> np.ndarray:
    """Board plane -> camera rotation: turn in the plane (yaw), then tilt about an in-plane axis."""
    yaw = np.deg2rad(yaw_deg)
    rz = np.array([[np.cos(yaw), -np.sin(yaw), 0], [np.sin(yaw), np.cos(yaw), 0], [0, 0, 1]])
    a = np.deg2rad(axis_deg)
    axis = np.array([np.cos(a), np.sin(a), 0.0]) * np.deg2rad(tilt_deg)
    rt, _ = cv2.Rodrigues(axis)
    return rt @ rz


def _camera(game: Game[Any], pose: Pose, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The pinhole camera of ``pose``: (K, [R | t]) for board points in cells.

    K has its principal point at the frame's centre, as a real sensor does.  With
    ``pose.focal`` unset the camera stands ``CAMERA_DISTANCE`` board widths from the board
    centre and the focal length is what makes the tray fill ``pose.fill`` of the frame; with it
    set, the lens is fixed and the distance is what fills the frame.  Either way the camera
    backs off until the markers fit, and the board is put at ``pose.offset`` by turning the
    camera about its own centre (panning), not by shifting K.
    """
    geo = game.geometry
    centre = np.array([geo.cols / 2, geo.rows / 2])
    extent = max(geo.cols, geo.rows) + 2 * geo.margin
    rot = _rotation(pose.tilt_deg, pose.tilt_axis_deg, pose.yaw_deg)
    reach = geo.margin + 1.0 + 2 * QUIET
    outer = np.array(
        [
            [-reach, -reach],
            [geo.cols + reach, -reach],
            [geo.cols + reach, geo.rows + reach],
            [-reach, geo.rows + reach],
        ],
        dtype=np.float64,
    )
    tray = _tray_points(game)
    width, height = size
    middle = np.array([width / 2.0, height / 2.0])

    def intrinsic(focal: float) -> np.ndarray:
        return np.array([[focal, 0.0, middle[0]], [0.0, focal, middle[1]], [0.0, 0.0, 1.0]])

    def extrinsic(distance: float, turn: np.ndarray) -> np.ndarray:
        t = np.array([0.0, 0.0, distance]) - rot[:, :2] @ centre
        return turn @ np.column_stack([rot, t])

    def spans(k: np.ndarray, ext: np.ndarray) -> tuple[float, np.ndarray]:
        h = k @ ext[:, [0, 1, 3]]
        tray_proj, proj = _apply(h, tray), _apply(h, outer)
        return (tray_proj.max(0) - tray_proj.min(0)).max(), proj.max(0) - proj.min(0)

    frame = np.array([width, height], np.float64)
    target = pose.fill * min(width, height)
    distance = CAMERA_DISTANCE * extent
    if pose.focal is None:
        focal = 1.0
        tray_span, _ = spans(intrinsic(focal), extrinsic(distance, np.eye(3)))
        focal = target / tray_span
        _, span = spans(intrinsic(focal), extrinsic(distance, np.eye(3)))
        focal *= min(1.0, 0.98 * float((frame / span).min()))
    else:
        focal = pose.focal * width
        for _ in range(4):  # the apparent size goes nearly as 1 / distance
            tray_span, span = spans(intrinsic(focal), extrinsic(distance, np.eye(3)))
            distance *= max(tray_span / target, float((span / (0.98 * frame)).max()))
    k = intrinsic(focal)
    # pan towards where the board should sit; perspective may then push a marker out: less pan
    proj = _apply(k @ extrinsic(distance, np.eye(3))[:, [0, 1, 3]], outer)
    room = np.maximum(frame - (proj.max(0) - proj.min(0)), 0.0)
    mid = (proj.max(0) + proj.min(0)) / 2
    turn = np.eye(3)
    for share in (1.0, 0.8, 0.6, 0.4, 0.2, 0.0):
        aim = middle + room / 2 * np.clip(np.array(pose.offset), -1, 1) * share
        turn = _turn_towards(mid - middle, aim - middle, focal)
        seen = _apply(k @ extrinsic(distance, turn)[:, [0, 1, 3]], outer)
        if (seen.min(0) >= 0).all() and (seen.max(0) <= frame).all():
            break
    return k, extrinsic(distance, turn)


def _turn_towards(start: np.ndarray, goal: np.ndarray, focal: float) -> np.ndarray:
    """The camera rotation that moves what appears at ``start`` (pixels from the principal
    point) to ``goal``: the shortest turn between the two viewing rays."""
    a = np.array([start[0], start[1], focal]) / np.linalg.norm([start[0], start[1], focal])
    b = np.array([goal[0], goal[1], focal]) / np.linalg.norm([goal[0], goal[1], focal])
    axis = np.cross(a, b)
    sin = np.linalg.norm(axis)
    if sin < 1e-12:
        return np.eye(3)
    angle = np.arctan2(sin, float(a @ b))
    turn, _ = cv2.Rodrigues(axis / sin * angle)
    return turn


def _plane_homography(fit: np.ndarray, extrinsic: np.ndarray) -> np.ndarray:
    """Table plane (board cells, origin at the playing area's top-left) -> image pixels."""
    h = fit @ extrinsic[:, [0, 1, 3]]
    return h / h[2, 2]


def _height_homography(projection: np.ndarray, height: float) -> np.ndarray:
    """The plane ``height`` cells above the table -> image pixels: z = -height folds into t."""
    h = np.column_stack(
        [projection[:, 0], projection[:, 1], projection[:, 3] - height * projection[:, 2]]
    )
    return h / h[2, 2]


def _tray_points(game: Game[Any]) -> np.ndarray:
    geo = game.geometry
    m = geo.margin
    return np.array(
        [[-m, -m], [geo.cols + m, -m], [geo.cols + m, geo.rows + m], [-m, geo.rows + m]],
        dtype=np.float64,
    )


def _apply(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, h).reshape(-1, 2)


def _scale_to_plane(px_per_unit: float, origin: tuple[float, float]) -> np.ndarray:
    """Texture pixels (centres at integers) -> plane units."""
    s = 1.0 / px_per_unit
    return np.array([[s, 0, origin[0] + 0.5 * s], [0, s, origin[1] + 0.5 * s], [0, 0, 1]])


def _paste(canvas: np.ndarray, texture: np.ndarray, h: np.ndarray, size: tuple[int, int]) -> None:
    """Warp a BGR ``texture`` with ``h`` over the canvas, with anti-aliased edges."""
    # outside the texture the warp fills 0, so the warped image is already premultiplied
    warped = cv2.warpPerspective(texture.astype(np.float32), h, size, flags=cv2.INTER_LINEAR)
    ones = np.ones(texture.shape[:2], np.float32)
    mask = cv2.warpPerspective(ones, h, size, flags=cv2.INTER_LINEAR)
    canvas *= (1.0 - mask)[..., None]
    canvas += warped


def _paste_layers(
    canvas: np.ndarray,
    layers: list[Layer],
    projection: np.ndarray,
    ppc: int,
    ratio: float,
    game: Game[Any],
    size: tuple[int, int],
) -> None:
    """Project each raised layer at its height and composite it over the canvas, lowest first.

    Layer images are uint8 BGRA with straight (not premultiplied) alpha.

    Every ray from a camera above the board descends, so along it the highest surface is met
    first: drawing in order of height is an exact painter's order.  Each layer is warped only
    over the frame region its content covers, which keeps many thin layers cheap.
    """
    margin = game.geometry.margin
    to_plane = _scale_to_plane(ppc, (-margin, -margin))
    pad = 2 + (int(np.ceil(1.5 * ratio)) if ratio > 1.0 else 0)
    width, height = size
    for layer in sorted(layers, key=lambda item: item.height):
        alpha = layer.image[..., 3]
        rows, cols = np.nonzero(alpha.any(axis=1))[0], np.nonzero(alpha.any(axis=0))[0]
        if rows.size == 0:
            continue
        y0, x0 = max(rows[0] - pad, 0), max(cols[0] - pad, 0)
        y1, x1 = min(rows[-1] + 1 + pad, alpha.shape[0]), min(cols[-1] + 1 + pad, alpha.shape[1])
        crop = layer.image[y0:y1, x0:x1].astype(np.float32)
        opacity = crop[..., 3:] / 255.0
        premult = np.concatenate([crop[..., :3] * opacity, opacity], axis=2)
        if ratio > 1.0:
            premult = cv2.GaussianBlur(premult, (0, 0), 0.5 * ratio)
        crop_to_plane = to_plane @ np.array([[1, 0, x0], [0, 1, y0], [0, 0, 1]], np.float64)
        to_image = _height_homography(projection, layer.height) @ crop_to_plane
        box = np.array([[-1, -1], [x1 - x0, -1], [x1 - x0, y1 - y0], [-1, y1 - y0]], np.float64)
        seen = _apply(to_image, box)
        lo = np.clip(np.floor(seen.min(axis=0)).astype(int), 0, [width, height])
        hi = np.clip(np.ceil(seen.max(axis=0)).astype(int) + 1, 0, [width, height])
        if (hi <= lo).any():
            continue
        shift = np.array([[1, 0, -lo[0]], [0, 1, -lo[1]], [0, 0, 1]], np.float64)
        region = (hi[0] - lo[0], hi[1] - lo[1])
        warped = cv2.warpPerspective(premult, shift @ to_image, region, flags=cv2.INTER_LINEAR)
        part = canvas[lo[1] : hi[1], lo[0] : hi[0]]
        part *= 1.0 - warped[..., 3:]
        part += warped[..., :3]


def _table_texture(table: Table, rng: np.random.Generator, span: float, px: int) -> np.ndarray:
    side = int(span * px)
    ys = np.arange(side, dtype=np.float32)[:, None] / px
    warp = cv2.resize(
        rng.uniform(-1, 1, (12, 12)).astype(np.float32), (side, side), interpolation=cv2.INTER_CUBIC
    )
    mix: np.ndarray = np.zeros((side, side), np.float32)
    if table.grain:
        freq = rng.uniform(1.5, 3.0) / table.grain
        mix = 0.5 + 0.5 * np.sin((ys + warp * 1.5) * freq)
        mix = mix**3
    mix = np.clip(mix + rng.normal(0, 0.04, (side, side)).astype(np.float32), 0, 1)
    base, streak = np.array(table.base, np.float32), np.array(table.streak, np.float32)
    return base + (streak - base) * mix[..., None]


def _draw_markers(
    canvas: np.ndarray,
    game: Game[Any],
    h: np.ndarray,
    size: tuple[int, int],
    rng: np.random.Generator,
) -> dict[int, np.ndarray]:
    """The four markers on white paper, innermost marker corner on the tray's outer corner."""
    tray = _tray_points(game)
    outward = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=np.float64)
    side_px, pad_px = 96, round(96 * QUIET)
    placed: dict[int, np.ndarray] = {}
    for i, marker_id in enumerate(CORNER_IDS):
        mark = np.rot90(marker_image(marker_id, side_px), int(rng.integers(4)))
        paper = np.full((side_px + 2 * pad_px,) * 2, 235, np.uint8)
        paper[pad_px:-pad_px, pad_px:-pad_px] = mark
        paper_bgr = np.repeat(paper[..., None], 3, axis=2).astype(np.float32)
        # marker square spans from the tray corner one cell outward on both axes
        far = tray[i] + outward[i]
        low = np.minimum(tray[i], far) - QUIET
        to_plane = _scale_to_plane(side_px, (low[0], low[1]))
        _paste(canvas, paper_bgr, h @ to_plane, size)
        square = np.array([np.minimum(tray[i], far), np.maximum(tray[i], far)])
        quad = np.array(
            [square[0], [square[1][0], square[0][1]], square[1], [square[0][0], square[1][1]]]
        )
        placed[marker_id] = _apply(h, quad).astype(np.float32)
    return placed


def _arm_mask(
    tray_img: np.ndarray, hand: str, rng: np.random.Generator, size: tuple[int, int]
) -> tuple[np.ndarray, float]:
    """An arm entering over one tray edge, in image space (the arm is above the table plane)."""
    width, height = size
    centre = tray_img.mean(axis=0)
    side = int(rng.integers(4))
    a, b = tray_img[side], tray_img[(side + 1) % 4]
    edge_point = a + (b - a) * rng.uniform(0.2, 0.8)
    inward = centre - edge_point
    board_size = float(np.linalg.norm(tray_img[1] - tray_img[0]))
    depth = rng.uniform(0.3, 0.6) if hand == "over" else rng.uniform(0.08, 0.15)
    tip = edge_point + inward * depth * 2 * (board_size / 2) / max(np.linalg.norm(inward), 1)
    start = tip + (-inward / max(np.linalg.norm(inward), 1)) * (width + height)
    arm_w = board_size / 8 * rng.uniform(1.1, 1.5)
    mask = np.zeros((height, width), np.float32)
    cv2.line(
        mask,
        tuple(np.round(start).astype(int)),
        tuple(np.round(tip).astype(int)),
        1.0,
        int(arm_w),
        cv2.LINE_AA,
    )
    hand_len, hand_w = arm_w * 1.2, arm_w * 0.75
    angle = float(np.degrees(np.arctan2(-inward[1], -inward[0])))
    cv2.ellipse(
        mask,
        tuple(np.round(tip).astype(int)),
        (int(hand_len), int(hand_w)),
        angle,
        0,
        360,
        1.0,
        -1,
        cv2.LINE_AA,
    )
    return cv2.GaussianBlur(mask, (0, 0), 1.5), arm_w


def _add_hand(
    canvas: np.ndarray, tray_img: np.ndarray, hand: str, rng: np.random.Generator
) -> None:
    height, width = canvas.shape[:2]
    mask, arm_w = _arm_mask(tray_img, hand, rng, (width, height))
    offset = rng.uniform(0.2, 0.5, 2) * arm_w
    shift = np.array([[1, 0, offset[0]], [0, 1, offset[1]]], np.float32)
    shadow = cv2.warpAffine(mask, shift, (width, height))
    shadow = cv2.GaussianBlur(shadow, (0, 0), arm_w * 0.3)
    canvas *= (1.0 - 0.45 * shadow)[..., None]
    skin = np.array(SKIN_TONES[int(rng.integers(len(SKIN_TONES)))], np.float32)
    skin *= rng.uniform(0.9, 1.1, 3).astype(np.float32)
    # a rounded limb is lit on one side: shade across it with the blurred mask
    roundness = cv2.GaussianBlur(mask, (0, 0), arm_w * 0.25)
    tone = skin[None, None, :] * (0.7 + 0.35 * roundness)[..., None]
    canvas *= 1.0 - mask[..., None]
    canvas += tone * mask[..., None]


def _light(canvas: np.ndarray, light: Light, rng: np.random.Generator) -> np.ndarray:
    height, width = canvas.shape[:2]
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    nx, ny = (xs - width / 2) / (width / 2), (ys - height / 2) / (height / 2)
    a = np.deg2rad(light.gradient_dir_deg)
    gain = 1.0 + light.gradient * (nx * np.cos(a) + ny * np.sin(a)) / np.sqrt(2)
    gain *= 1.0 - light.vignette * (nx * nx + ny * ny) / 2
    if light.shadow is not None:
        sx, sy, radius, dark = light.shadow
        # a soft shadow has no detail: draw it small and enlarge
        small_w, small_h = width // 8, height // 8
        blob = np.zeros((small_h, small_w), np.float32)
        axes = (int(radius * small_w), int(radius * small_h * rng.uniform(0.5, 1.0)))
        centre = (int(sx * small_w), int(sy * small_h))
        cv2.ellipse(blob, centre, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
        blob = cv2.GaussianBlur(blob, (0, 0), radius * small_w * 0.3)
        blob = cv2.resize(blob, (width, height), interpolation=cv2.INTER_LINEAR)
        gain *= 1.0 - dark * blob
    if light.lamp is not None:
        lx, ly, strength = light.lamp
        reach = 0.6 * width
        gain *= 1.0 + strength * np.exp(
            -((xs - lx * width) ** 2 + (ys - ly * height) ** 2) / reach**2
        )
    cast = np.array(light.cast, np.float32) * light.exposure
    out = canvas * gain[..., None] * cast[None, None, :]
    if light.blur > 0:
        out = cv2.GaussianBlur(out, (0, 0), light.blur)
    if light.noise > 0:
        out += rng.normal(0.0, light.noise, out.shape).astype(np.float32)
    out = np.clip(out, 0, 255)
    if (light.saturation, light.black, light.gamma) != (1.0, 0.0, 1.0):
        out = _processed(out, light)
    image = out.astype(np.uint8)
    if light.jpeg is not None:
        image = cv2.imdecode(
            np.frombuffer(encode_jpeg(image, light.jpeg), np.uint8), cv2.IMREAD_COLOR
        )
    return image


def relight(image: np.ndarray, light: Light, rng: np.random.Generator) -> np.ndarray:
    """Any BGR ``image`` (a real photo too) as seen under ``light`` by the camera it describes:
    the same light, processing and noise a render gets."""
    return _light(image.astype(np.float32), light, rng)


def _processed(out: np.ndarray, light: Light) -> np.ndarray:
    """What a camera's processing does to the sensor's colours: washes them towards grey,
    bends the tone curve and lifts the black level (0..255 in and out)."""
    grey = out.mean(axis=2, keepdims=True)
    out = grey + light.saturation * (out - grey)
    out = 255.0 * (np.clip(out, 0, 255) / 255.0) ** light.gamma
    return light.black + out * (255.0 - light.black) / 255.0


def render_scene(
    game: Game[S],
    state: S,
    look: str,
    rng: np.random.Generator,
    *,
    pose: Pose | None = None,
    light: Light | None = None,
    size: tuple[int, int] = (1280, 960),
    markers: bool = True,
    hand: str | None = None,
    table: Table | None = None,
    board_seed: int | None = None,
) -> Scene:
    """One camera frame of ``state`` drawn in ``look``; ``hand`` is None, "over" or "edge".

    With ``board_seed`` the things that stay put while a game is filmed (table grain, how the
    markers lie, each tile's looseness and print texture) come from that seed, so successive
    frames show the same physical set-up; otherwise everything comes from ``rng``.
    """
    if hand not in (None, "over", "edge"):
        raise ValueError(f"hand must be None, 'over' or 'edge', not {hand!r}")
    pose = pose if pose is not None else random_pose(rng)
    light = light if light is not None else random_light(rng)
    still = rng if board_seed is None else np.random.default_rng(board_seed)
    table = table if table is not None else TABLES[int(still.integers(len(TABLES)))]
    geo = game.geometry
    fit, extrinsic = _camera(game, pose, size)
    lens = _lens(pose, fit)
    low_px, view = _pinhole_view(lens, size)
    # the pinhole picture is drawn over all the lens sees: with barrel, more than the frame
    fit_view = np.array([[1.0, 0, -low_px[0]], [0, 1.0, -low_px[1]], [0, 0, 1.0]]) @ fit
    h = _plane_homography(fit_view, extrinsic)
    projection = fit_view @ extrinsic
    projection /= projection[2, 3]

    # how many image pixels one cell covers decides the texture resolution (avoid aliasing)
    tray = _tray_points(game)
    tray_img = _apply(h, tray)
    cell_img = float(np.linalg.norm(tray_img[1] - tray_img[0])) / (geo.cols + 2 * geo.margin)
    ppc = int(np.clip(round(cell_img * 1.25), 24, 128))

    span = 4 * (max(geo.cols, geo.rows) + 2 * geo.margin)
    table_px = 12
    wood = _table_texture(table, still, span, table_px)
    low = (geo.cols / 2 - span / 2, geo.rows / 2 - span / 2)
    to_table = h @ _scale_to_plane(table_px, low)
    canvas: np.ndarray = cv2.warpPerspective(wood, to_table, view, borderMode=cv2.BORDER_REFLECT)

    placed = _draw_markers(canvas, game, h, view, still) if markers else {}

    board: np.ndarray = game.lab.draw_board(state, look, still, px_per_cell=ppc).astype(np.float32)
    ratio = ppc / cell_img
    if ratio > 1.0:
        board = cv2.GaussianBlur(board, (0, 0), 0.5 * ratio)
    to_board = h @ _scale_to_plane(ppc, (-geo.margin, -geo.margin))
    # the tray stands on the table: a soft contact shadow around it
    ones = np.ones(board.shape[:2], np.float32)
    footprint = cv2.warpPerspective(ones, to_board, view, flags=cv2.INTER_LINEAR)
    contact = cv2.GaussianBlur(footprint, (0, 0), max(cell_img * 0.15, 1.0))
    canvas *= (1.0 - 0.4 * contact)[..., None]
    _paste(canvas, board, to_board, view)
    for image, item_corners in game.lab.table_items(state, look, still, px_per_cell=ppc):
        item: np.ndarray = image.astype(np.float32)
        if ratio > 1.0:
            item = cv2.GaussianBlur(item, (0, 0), 0.5 * ratio)
        rows, cols = item.shape[:2]
        edges = np.array([[0, 0], [cols, 0], [cols, rows], [0, rows]], np.float32) - 0.5
        to_item = cv2.getPerspectiveTransform(edges, np.asarray(item_corners, np.float32))
        _paste(canvas, item, h @ to_item, view)
    layers = game.lab.raised(state, look, still, px_per_cell=ppc)
    _paste_layers(canvas, layers, projection, ppc, ratio, game, view)

    if hand is not None:
        _add_hand(canvas, tray_img, hand, rng)
    if lens is not None:
        canvas = through_lens(canvas, lens, size, low_px)
    image = _light(canvas, light, rng)
    corners = np.array(
        [[0, 0], [geo.cols, 0], [geo.cols, geo.rows], [0, geo.rows]], dtype=np.float64
    )

    def in_frame(points: np.ndarray) -> np.ndarray:
        ideal = np.asarray(points, np.float64).reshape(-1, 2) + low_px
        return (ideal if lens is None else lens.distort(ideal)).astype(np.float32)

    return Scene(
        image=image,
        corners=in_frame(_apply(h, corners)),
        tray_corners=in_frame(tray_img),
        projection=np.array([[1.0, 0, low_px[0]], [0, 1.0, low_px[1]], [0, 0, 1.0]]) @ projection,
        pose=pose,
        light=light,
        hand=hand,
        marker_corners={i: in_frame(quad) for i, quad in placed.items()},
        lens=lens,
    )


def _lens(pose: Pose, fit: np.ndarray) -> Lens | None:
    """The pose's lens on the camera matrix ``fit`` (None for a pinhole)."""
    k1, k2 = pose.distortion
    if k1 == 0.0 and k2 == 0.0:
        return None
    return Lens.radial(float(fit[0, 0]), (float(fit[0, 2]), float(fit[1, 2])), k1, k2, "render")


def _pinhole_view(lens: Lens | None, size: tuple[int, int]) -> tuple[np.ndarray, tuple[int, int]]:
    """Where the pinhole picture starts (frame pixels) and its size: the frame itself, or what
    the lens gathers into it (a barrel lens sees past the frame's edges)."""
    if lens is None:
        return np.zeros(2), size
    width, height = size
    steps = np.linspace(0.0, 1.0, 65)
    border = np.concatenate(
        [
            np.column_stack([steps * width, np.zeros_like(steps)]),
            np.column_stack([steps * width, np.full_like(steps, height)]),
            np.column_stack([np.zeros_like(steps), steps * height]),
            np.column_stack([np.full_like(steps, width), steps * height]),
        ]
    )
    ideal = _pinhole_points(lens, border)
    low = np.floor(np.minimum(ideal.min(axis=0), 0.0)) - 2
    high = np.ceil(np.maximum(ideal.max(axis=0), [width, height])) + 2
    return low, (int(high[0] - low[0]), int(high[1] - low[1]))


def _pinhole_points(lens: Lens, points: np.ndarray) -> np.ndarray:
    """Frame pixels -> the pinhole pixels a radial ``lens`` bends onto them.

    A strong barrel k1 alone folds back past some radius (the radius it reaches grows no
    more); frame pixels beyond what the lens reaches show the fold's rim, as a real lens's
    corners show its image circle's smeared edge."""
    k1, k2 = (float(c) for c in lens.coefficients[:2])
    focal, centre = float(lens.matrix[0, 0]), lens.matrix[:2, 2]
    ideal_r = np.linspace(0.0, 3.0, 6001)
    seen_r = ideal_r * (1.0 + k1 * ideal_r**2 + k2 * ideal_r**4)
    rising = np.diff(seen_r) > 0
    end = len(rising) if rising.all() else int(np.argmin(rising))
    offsets = (np.asarray(points, np.float64).reshape(-1, 2) - centre) / focal
    radius = np.linalg.norm(offsets, axis=1)
    back = np.interp(radius, seen_r[: end + 1], ideal_r[: end + 1])
    scale = np.divide(back, radius, out=np.ones_like(radius), where=radius > 1e-12)
    return centre + offsets * scale[:, None] * focal


def through_lens(
    canvas: np.ndarray,
    lens: Lens,
    size: tuple[int, int],
    low_px: np.ndarray | None = None,
) -> np.ndarray:
    """The ``size`` frame a radial ``lens`` (k1, k2; the rest is not drawn) makes of the
    pinhole picture ``canvas``, whose pixel (0, 0) is the frame's ``low_px`` (default the
    frame's own): each frame pixel shows the pinhole point the lens bends onto it."""
    low_px = np.zeros(2) if low_px is None else low_px
    width, height = size
    step = LENS_GRID_PX
    gx = np.arange(0, width + step, step, dtype=np.float64)
    gy = np.arange(0, height + step, step, dtype=np.float64)
    grid = np.stack(np.meshgrid(gx, gy), axis=-1).reshape(-1, 2)
    coarse = (_pinhole_points(lens, grid) - low_px).reshape(len(gy), len(gx), 2)
    xs, ys = np.meshgrid(
        np.arange(width, dtype=np.float32) / step, np.arange(height, dtype=np.float32) / step
    )
    fine = cv2.remap(coarse.astype(np.float32), xs, ys, cv2.INTER_LINEAR)
    return cv2.remap(
        canvas, fine[..., 0], fine[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


def encode_jpeg(image: np.ndarray, quality: int = 85) -> bytes:
    """The frame as a camera would store it (JPEG artefacts matter to readers)."""
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError("could not encode the image as JPEG")
    return buf.tobytes()


def calibrated_reader(
    game: Game[S], look: str, pose: Pose, light: Light, seed: int
) -> tuple[Reader[S], Rectifier]:
    """The reader ``companion calibrate`` would make from a start-position frame of this
    camera, and the camera's rectifier: the benches' sections that film their own games start
    from it, as a table does."""
    rng = np.random.default_rng(seed)
    start = render_scene(
        game, game.start_state(), look, rng, pose=pose, light=light, board_seed=seed
    )
    rectifier = Rectifier(start.corners, game.geometry)
    reader = game.reader.learn(
        rectifier(start.image),
        game.geometry,
        homography=rectifier.homography,
        image_size=start.image.shape[1::-1],
    )
    return reader, rectifier
