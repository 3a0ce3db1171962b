"""Train ``companion/games/upwords/letter_net.npz``: the Upwords reader's letter network.

Data recipe.  Every upright (not italic or oblique) TrueType/OpenType face on the machine draws
each of the 26 tile faces ("Qu" for QU, and now and then a bare "Q": a Qu whose u the camera
lost, or Scrabble's Q); the fonts are the Debian packages

    apt-get install -y fonts-dejavu fonts-liberation fonts-freefont-ttf fonts-urw-base35 \\
        fonts-open-sans fonts-roboto fonts-crosextra-carlito fonts-crosextra-caladea \\
        fonts-noto-core fonts-lato fonts-inter fonts-hack fonts-comfortaa fonts-quicksand \\
        fonts-linuxlibertine fonts-league-spartan fonts-oxygen fonts-cabin fonts-jura

(of fonts-noto-core only the Latin NotoSans/NotoSerif families; the families of the bench's
unseen looks, C059, P052, Bookman, Open Sans and Cantarell, are left out).  Each drawing is a
tile face as a camera sees it, degraded at random: letter size and place on the face, a small turn,
shear, stretch and perspective, thinner or bolder strokes (wooden tiles print bold), blur,
sensor noise, contrast, light ink on a dark face, and the clutter of real crops: a point digit
beside the letter's foot as Scrabble prints it, a seam or tile edge along a side, a neighbour's
letter peeking in, a shadow.  The face goes through the reader's own ``find_ink`` and
``fit_glyph``, and the glyph at each of 4 quarter turns is one training row labelled
(letter, turn): the network tells the turn as well as the letter.

The network is a small convolutional network on the normalised glyph (``letter_net``),
trained with PyTorch (training only: ``pip install -e ".[train]"``; the reader's forward pass is
numpy); each batch is turned a little more, sheared, scaled and its strokes thickened or thinned
at random in glyph space as well.  Every sixth font is held out to pick the epoch and, with the
tile faces of ``TUNED_BOARDS`` renders of the tuned looks, to calibrate confidence (the share of
held-out reads right per margin, see ``letter_net``).  No real photo is used: the real crops in
``realdata/`` are the held-out measure.

    python scripts/train_upwords_letters.py [--out PATH] [--per-font N] [--epochs N] [--cache DIR]

Deterministic for a given set of font files (seeded; the font list is sorted and stored).
"""

from __future__ import annotations

import argparse
import copy
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable
from itertools import pairwise
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image, ImageDraw, ImageFont
from torch import nn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from companion.games import find_game  # noqa: E402
from companion.games.upwords.draw import LOOKS, LOOKS_TUNED  # noqa: E402
from companion.games.upwords.letter_net import (  # noqa: E402
    CONVOLUTIONS,
    TURNS,
    calibrate,
    letter_probabilities,
    margins,
    net_from_arrays,
)
from companion.games.upwords.letters import GLYPH, find_ink, fit_glyph, normalise  # noqa: E402
from companion.games.upwords.model import LETTERS  # noqa: E402
from companion.games.upwords.ocr_bench import face_crops  # noqa: E402
from companion.vision.synth import random_light, random_pose, render_scene  # noqa: E402

SLANTED = re.compile(r"italic|oblique|bdita|math|symbol|dingbat|z003|d050000l", re.I)
BENCH_UNSEEN = re.compile(r"/(C059|P052|URWBookman|URWGothic|OpenSans|Cantarell)", re.I)
"""Families of the bench's unseen looks (``draw.LOOKS_UNSEEN``): kept out, so the rendered
figures stay a measure on fonts the network never saw."""
NOT_PRINT = re.compile(r"thin|extralight|hairline|LinBiolinum_K|LinLibertine_(I|M|K)\.", re.I)
"""Faces no tile is printed in: hairline weights (gone at camera size), Libertine's keyboard
keys, initials and mono."""
NOTO_LATIN = re.compile(r"/Noto(Sans|Serif)(Mono|Display)?-")
DIGITS = ("1", "1", "2", "3", "4", "5", "8", "10")
"""Scrabble's point values as printed, 1 the most common."""
SCALE = 3
"""Faces are drawn this many times larger than the camera sees them, then shrunk."""
WIDTH = 16
"""Channels of the first convolution; each later one has twice as many."""
HIDDEN = 128
BATCH = 256
OFF_SQUARE = 0.16
"""How far (face sides) a quarter of the faces are shifted in their crop: a tile a player left
off its square by a third of its gap and then some."""
CLEAN_SHARE = 0.25
"""Share of faces drawn without wear or clutter (only the camera's warp, blur and noise), as a
well-lit tile shows: with every face worn, clean letters came out unsure (a rendered serif F
at a margin of 0.75 over E, against 0.82 the referee's trust needs)."""
BARE_Q = 0.4
"""Share of QU faces drawn as a bare Q (a Qu whose u the camera lost, or Scrabble's Q)."""
HELD_OUT_EVERY = 6
TUNED_BOARDS = 24
"""Rendered boards of the tuned looks whose tile faces join the held-out fonts in calibrating
confidence (about 1,200 faces)."""


def font_files() -> list[Path]:
    """Upright Latin faces known to fontconfig, sorted (the training set's fonts)."""
    out = subprocess.run(
        ["fc-list", "--format", "%{file}\n"], capture_output=True, text=True, check=True
    ).stdout.split()
    keep = [
        p
        for p in out
        if p.endswith((".ttf", ".otf"))
        and not SLANTED.search(p)
        and not NOT_PRINT.search(p)
        and not BENCH_UNSEEN.search(p)
        and ("/Noto" not in p or NOTO_LATIN.search(p))
    ]
    return sorted({Path(p) for p in keep})


def _text_mask(
    text: str, font: ImageFont.FreeTypeFont, big: int, share: float
) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """``text`` drawn white on black, centred on a ``big`` square, its height ``share``."""
    img = Image.new("L", (big, big), 0)
    draw = ImageDraw.Draw(img)
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
    scale = share * big / max(bottom - top, 1)
    if (right - left) * scale > 0.86 * big:
        scale = 0.86 * big / (right - left)
    sized = font.font_variant(size=max(6, int(font.size * scale)))
    left, top, right, bottom = draw.textbbox((0, 0), text, font=sized)
    x = (big - (right - left)) / 2 - left
    y = (big - (bottom - top)) / 2 - top
    draw.text((x, y), text, fill=255, font=sized)
    box = draw.textbbox((x, y), text, font=sized)
    return np.asarray(img, np.float32) / 255.0, tuple(int(v) for v in box)  # type: ignore[return-value]


def _warp(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A small turn, shear, stretch, shift and perspective of a drawn face."""
    big = mask.shape[0]
    src = np.array([[0, 0], [big, 0], [big, big], [0, big]], np.float32)
    angle = np.deg2rad(rng.normal(0, 3.0))
    shear, stretch = rng.normal(0, 0.06), np.exp(rng.normal(0, 0.1))
    m = np.array(
        [[np.cos(angle) * stretch, -np.sin(angle) + shear], [np.sin(angle), np.cos(angle)]]
    )
    # tiles lying off their square: the grid's crop cuts into the face now and then
    reach = OFF_SQUARE if rng.random() < 0.25 else 0.07
    centred = (src - big / 2) @ m.T + big / 2 + rng.uniform(-reach, reach, 2) * big
    dst = (centred + rng.normal(0, 0.02 * big, (4, 2))).astype(np.float32)
    warp = cv2.getPerspectiveTransform(src, dst)
    return cv2.warpPerspective(mask, warp, (big, big), flags=cv2.INTER_LINEAR)


def _clutter(
    mask: np.ndarray,
    box: tuple[int, int, int, int],
    rng: np.random.Generator,
    digit_font: ImageFont.FreeTypeFont,
) -> np.ndarray:
    """Point digit, seams, a neighbour's edge: ink a real crop shows besides the letter."""
    big = mask.shape[0]
    out = mask.copy()
    _, _, x1, y1 = box
    if rng.random() < 0.5:  # Scrabble's point digit at the letter's lower right
        digit, _ = _text_mask(rng.choice(DIGITS), digit_font, big, rng.uniform(0.16, 0.26))
        ys, xs = np.nonzero(digit > 0.5)
        if xs.size:
            piece = digit[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
            ph, pw = piece.shape
            px = int(x1 + rng.uniform(0.0, 0.08) * big)
            py = int(y1 - ph * rng.uniform(0.2, 0.9))
            px, py = min(px, big - pw), min(max(py, 0), big - ph)
            out[py : py + ph, px : px + pw] = np.maximum(out[py : py + ph, px : px + pw], piece)
    for side in range(4):  # a seam or the dark gap beside the tile
        if rng.random() < 0.15:
            width = max(1, int(rng.uniform(0.01, 0.06) * big))
            strip = np.zeros_like(out)
            strip[:, :width] = rng.uniform(0.5, 1.0)
            out = np.maximum(out, np.rot90(strip, side))
    if rng.random() < 0.12:  # a neighbour's letter stroke just inside one side
        strip = np.zeros_like(out)
        width = max(2, int(rng.uniform(0.03, 0.08) * big))
        a, b = sorted(rng.uniform(0.1, 0.9, 2) * big)
        strip[int(a) : int(b) + 2, :width] = 1.0
        out = np.maximum(out, np.rot90(strip, int(rng.integers(4))))
    return out


def render_face(letter: str, font_path: Path, rng: np.random.Generator) -> np.ndarray:
    """One degraded grey face crop showing ``letter`` upright."""
    side = int(rng.integers(24, 65))
    big = side * SCALE
    text = "Qu" if letter == "QU" and rng.random() >= BARE_Q else letter[0]
    font = ImageFont.truetype(str(font_path), big)
    mask, box = _text_mask(text, font, big, rng.uniform(0.42, 0.68))
    clean = rng.random() < CLEAN_SHARE
    # bold wooden prints are common: lean to thicker
    thick = int(rng.integers(0, 2)) if clean else int(rng.integers(-2, 4))
    if thick:
        kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * abs(thick) + 1,) * 2)
        mask = (cv2.dilate if thick > 0 else cv2.erode)(mask, kernel)
    if not clean:
        mask = _wear(mask, rng, big)
        mask = _clutter(mask, box, rng, font)
    mask = _warp(mask, rng)
    paper, ink = rng.uniform(140, 245), rng.uniform(5, 110)
    if rng.random() < 0.1:
        paper, ink = 255 - paper, 255 - ink
    face = paper + (ink - paper) * mask
    if rng.random() < 0.2:  # a shadow or uneven light across the face
        ramp = np.linspace(0, 1, big)[None, :] * rng.uniform(-50, 50)
        face = face + np.rot90(np.broadcast_to(ramp, face.shape), int(rng.integers(4)))
    small = cv2.resize(face.astype(np.float32), (side, side), interpolation=cv2.INTER_AREA)
    blur = rng.uniform(0.0, 1.1)
    if blur > 0.3:
        small = cv2.GaussianBlur(small, (0, 0), blur)
    small = small + rng.normal(0, rng.uniform(0, 8), small.shape)
    if rng.random() < 0.2:  # a webcam pipeline's own binarisation: hard edges, no grey
        small = np.where(small < (paper + ink) / 2, min(paper, ink), max(paper, ink))
    return np.clip(small, 0, 255).astype(np.uint8)


def _wear(mask: np.ndarray, rng: np.random.Generator, big: int) -> np.ndarray:
    """Print as worn wood and coarse cameras show it: corners rounded (a bold D nearly an O),
    thin bars broken (an A's crossbar lost in a threshold)."""
    if rng.random() < 0.3:
        soft = cv2.GaussianBlur(mask, (0, 0), rng.uniform(0.02, 0.05) * big)
        mask = (soft > rng.uniform(0.4, 0.6)).astype(np.float32)
    if rng.random() < 0.15:
        holes = cv2.resize(
            rng.random((8, 8)).astype(np.float32), (big, big), interpolation=cv2.INTER_LINEAR
        )
        thin = cv2.erode(mask, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5)))
        mask = np.where(holes < rng.uniform(0.1, 0.25), thin, mask)
    return mask


def dataset(fonts: list[Path], per_font: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(glyphs, (letter, turn) class) rows: every drawn glyph at 4 turns."""
    rng = np.random.default_rng(seed)
    glyphs, classes = [], []
    for path in fonts:
        for i, letter in enumerate(LETTERS):
            for _ in range(per_font):
                found = find_ink(render_face(letter, path, rng))
                if found is None:
                    continue
                glyph = fit_glyph(found.box_glyph)
                for turn in range(TURNS):
                    glyphs.append(np.rot90(glyph, turn))
                    classes.append(i * TURNS + turn)
    return np.stack(glyphs), np.array(classes, np.int64)


def tuned_renders(boards: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """(glyphs, (letter, turn) class) of the tile faces on renders of the tuned looks, cut
    where the renderer put them, at 4 turns: the camera's kind of crop, never trained on."""
    game = find_game("upwords")
    rng = np.random.default_rng(seed)
    low, high = game.geometry.tilt_deg
    glyphs, classes = [], []
    for i in range(boards):
        truth = game.lab.random_state(rng)
        look = LOOKS_TUNED[i % len(LOOKS_TUNED)]
        pose = random_pose(rng, max_tilt=high, min_tilt=low if i % 2 else 0.0)
        scene = render_scene(game, truth, look, rng, pose=pose, light=random_light(rng))
        crops = face_crops(scene.plane_homography, truth, scene.image, LOOKS[look].thickness)
        for letter, crop in crops:
            glyph = normalise(crop)
            if glyph is None:
                continue
            for turn in range(TURNS):
                glyphs.append(np.rot90(glyph, turn))
                classes.append(LETTERS.index(letter) * TURNS + turn)
    return np.stack(glyphs), np.array(classes, np.int64)


def cached(
    make: Callable[[], tuple[np.ndarray, np.ndarray]], cache: Path | None
) -> tuple[np.ndarray, np.ndarray]:
    """``make()``'s glyphs and classes, kept in ``cache`` (an .npz) when given: drawing and
    rendering are the slow part."""
    if cache is not None and cache.is_file():
        with np.load(cache) as data:
            return data["glyphs"].astype(np.float32) / 255, data["classes"]
    glyphs, classes = make()
    if cache is not None:
        np.savez_compressed(cache, glyphs=np.round(glyphs * 255).astype(np.uint8), classes=classes)
    return glyphs, classes


def cached_dataset(
    fonts: list[Path], per_font: int, seed: int, cache: Path | None
) -> tuple[np.ndarray, np.ndarray]:
    """``dataset``, kept in ``cache`` when given."""
    return cached(lambda: dataset(fonts, per_font, seed), cache)


class Net(nn.Module):
    """The network ``letter_net.LetterNet`` runs, in PyTorch's terms (dropout only here)."""

    def __init__(self) -> None:
        super().__init__()
        widths = [1] + [WIDTH * 2**i for i in range(CONVOLUTIONS)]
        self.convs = nn.ModuleList(nn.Conv2d(a, b, 3, padding=1) for a, b in pairwise(widths))
        side = GLYPH >> CONVOLUTIONS
        self.dense = nn.Linear(widths[-1] * side * side, HIDDEN)
        self.out = nn.Linear(HIDDEN, len(LETTERS) * TURNS)
        self.drop = nn.Dropout(0.3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for conv in self.convs:
            x = F.max_pool2d(F.relu(conv(x)), 2)
        return self.out(self.drop(F.relu(self.dense(x.flatten(1)))))


def augment(x: torch.Tensor) -> torch.Tensor:
    """A batch of glyphs turned (about 7 degrees), sheared, scaled and shifted a little, a
    fifth of them bolder and a tenth thinner: real tiles lie turned on their squares further
    than ``_warp`` turns a drawn face, and sets print bold."""
    n = len(x)
    angle, scale = torch.randn(n) * 0.12, torch.exp(torch.randn(n) * 0.06)
    shear, shift = torch.randn(n) * 0.08, torch.randn(n, 2) * 0.04
    cos, sin = torch.cos(angle) * scale, torch.sin(angle) * scale
    theta = torch.stack(
        [torch.stack([cos, -sin + shear, shift[:, 0]], 1), torch.stack([sin, cos, shift[:, 1]], 1)],
        1,
    )
    x = F.grid_sample(
        x, F.affine_grid(theta, list(x.shape), align_corners=False), align_corners=False
    )
    pick = torch.rand(n)[:, None, None, None]
    bold, thin = F.max_pool2d(x, 3, 1, 1), -F.max_pool2d(-x, 3, 1, 1)
    return torch.where(pick < 0.2, bold, torch.where(pick > 0.9, thin, x))


def train(
    x: np.ndarray, y: np.ndarray, xv: np.ndarray, yv: np.ndarray, epochs: int, seed: int
) -> Net:
    """AdamW on label-smoothed cross-entropy, one-cycle learning rate; the best held-out epoch."""
    torch.manual_seed(seed)
    net = Net()
    opt = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-4)
    tx, ty = torch.from_numpy(x[:, None]), torch.from_numpy(y)
    tv, letters_v = torch.from_numpy(xv[:, None]), torch.from_numpy(yv) // TURNS
    steps = epochs * -(-len(tx) // BATCH)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=steps)
    best, kept = -1.0, copy.deepcopy(net.state_dict())
    for epoch in range(epochs):
        net.train()
        order = torch.randperm(len(tx))
        for start in range(0, len(tx), BATCH):
            idx = order[start : start + BATCH]
            loss = F.cross_entropy(net(augment(tx[idx])), ty[idx], label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        net.eval()
        with torch.no_grad():
            held = float((net(tv).argmax(1) // TURNS == letters_v).float().mean())
        print(f"  epoch {epoch + 1}: held-out letters right {held:.2%}", flush=True)
        if held > best:
            best, kept = held, copy.deepcopy(net.state_dict())
    net.load_state_dict(kept)
    return net


def exported(net: Net) -> dict[str, np.ndarray]:
    """The trained weights in ``letter_net``'s float16 layout: kernels as (9 * in, out)
    matrices, the dense layer taking (row, column, channel) order."""
    arrays: dict[str, np.ndarray] = {}
    for i, conv in enumerate(net.convs):
        weight = conv.weight.detach().numpy()
        arrays[f"kernel{i}"] = weight.reshape(len(weight), -1).T
        arrays[f"bias{i}"] = conv.bias.detach().numpy()
    dense = net.dense.weight.detach().numpy()
    channels = net.convs[-1].out_channels
    side = GLYPH >> CONVOLUTIONS
    arrays["w1"] = (
        dense.reshape(HIDDEN, channels, side, side).transpose(0, 2, 3, 1).reshape(HIDDEN, -1).T
    )
    arrays["b1"] = net.dense.bias.detach().numpy()
    arrays["w2"] = net.out.weight.detach().numpy().T
    arrays["b2"] = net.out.bias.detach().numpy()
    return {n: np.ascontiguousarray(a, np.float16) for n, a in arrays.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "companion/games/upwords/letter_net.npz"))
    parser.add_argument("--per-font", type=int, default=30)
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--cache", type=Path, help="folder keeping the drawn glyphs")
    args = parser.parse_args()
    fonts = font_files()
    held = [p for i, p in enumerate(fonts) if i % HELD_OUT_EVERY == 0]
    used = [p for i, p in enumerate(fonts) if i % HELD_OUT_EVERY != 0]
    start = time.perf_counter()
    cache = args.cache
    gx, y = cached_dataset(used, args.per_font, 1, cache and cache / "train.npz")
    gv, yv = cached_dataset(held, args.per_font, 2, cache and cache / "held_out.npz")
    print(
        f"{len(gx)} rows from {len(used)} fonts, {len(gv)} held out from {len(held)} fonts "
        f"({time.perf_counter() - start:.0f} s)",
        flush=True,
    )
    torch.set_num_threads(max(1, os.cpu_count() or 1))
    arrays: dict[str, Any] = exported(train(gx, y, gv, yv, args.epochs, seed=3))
    # calibrate the network as shipped (float16 weights) on both kinds of held-out reads
    gr, yr = cached(lambda: tuned_renders(TUNED_BOARDS, 4), cache and cache / "tuned.npz")
    shipped = net_from_arrays({**arrays, "knots": np.ones(2)})
    fit_x, fit_y = np.concatenate([gv, gr]), np.concatenate([yv, yr])
    best, margin = margins(letter_probabilities(shipped.logits(shipped.hidden(fit_x))))
    arrays["knots"] = calibrate(margin, best == fit_y // TURNS).astype(np.float32)
    print(f"  confidence knots (margins for SURE, CERTAIN): {arrays['knots']}", flush=True)
    arrays["fonts"] = np.array([p.name for p in used])
    np.savez_compressed(args.out, **arrays)
    print(f"-> {args.out} ({Path(args.out).stat().st_size} bytes)")


if __name__ == "__main__":
    main()
