"""Upwords letter classifier: the packaged network, any rotation, learning a new font."""

from __future__ import annotations

import json
import shutil
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from companion.errors import VisionError
from companion.games.upwords import letter_net, letters
from companion.games.upwords.letter_net import TURNS, load_net
from companion.games.upwords.letters import LetterClassifier, normalise, tesseract_letter
from companion.games.upwords.model import LETTERS

FONTS = Path("/usr/share/fonts/truetype")
SEEN = FONTS / "dejavu/DejaVuSans-Bold.ttf"
UNSEEN = Path("/usr/share/fonts/opentype/urw-base35/Z003-MediumItalic.otf")
"""Italic faces are kept out of the network's training fonts; this calligraphic one is its
worst (62.5 % read right)."""


def face(
    letter: str,
    font: Path,
    rng: np.random.Generator,
    *,
    side: int = 34,
    turns: int = 0,
    ink: int = 40,
    paper: int = 215,
) -> np.ndarray:
    """A grey tile face as a camera sees it: drawn at 4x, shrunk, blurred a little, noisy."""
    big = side * 4
    img = Image.new("L", (big, big), paper)
    draw = ImageDraw.Draw(img)
    text = "Qu" if letter == "QU" else letter
    font_obj = ImageFont.truetype(str(font), int(big * rng.uniform(0.5, 0.62)))
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font_obj)
    jitter = rng.uniform(-0.03, 0.03, 2) * big
    x = (big - (right - left)) / 2 - left + jitter[0]
    y = (big - (bottom - top)) / 2 - top + jitter[1]
    draw.text((x, y), text, fill=ink, font=font_obj)
    out = np.asarray(img.resize((side, side), Image.Resampling.BOX), np.float32)
    out += rng.normal(0, 3.0, out.shape)
    return np.ascontiguousarray(np.rot90(np.clip(out, 0, 255).astype(np.uint8), turns))


def accuracy(
    classifier: LetterClassifier,
    font: Path,
    seed: int,
    *,
    sure: float = 1.0,
    missing_ok: bool = False,
    **kw: int,
) -> float:
    """Share read right; wrong reads must come with confidence below ``sure``, and every face
    shows a letter unless ``missing_ok`` (a face showing none counts as wrong)."""
    rng = np.random.default_rng(seed)
    right = total = 0
    for letter in LETTERS:
        for turns in range(4):
            guess = classifier.read(face(letter, font, rng, turns=turns, **kw))
            assert guess is not None or missing_ok
            if guess is not None and guess.letter == letter:
                right += 1
            elif guess is not None:
                assert guess.confidence < sure, (letter, guess)
            total += 1
    return right / total


@pytest.fixture(scope="module")
def classifier() -> LetterClassifier:
    return LetterClassifier()


def test_packaged_network_is_small_and_scores_every_face_at_every_turn() -> None:
    path = Path(letters.__file__).with_name("letter_net.npz")
    assert path.stat().st_size < 1_500_000
    net = load_net()
    glyph = normalise(face("A", SEEN, np.random.default_rng(0)))
    assert net.logits(net.hidden(glyph[None])).shape == (1, len(LETTERS), TURNS)


def test_isotonic_share_never_falls_and_keeps_the_mean() -> None:
    values = np.array([0, 1, 0, 0, 1, 1, 0, 1], np.float64)
    fitted = letter_net.isotonic(values)
    assert np.all(np.diff(fitted) >= 0)
    assert fitted.sum() == pytest.approx(values.sum())
    assert fitted.tolist() == pytest.approx([0, 1 / 3, 1 / 3, 1 / 3, 2 / 3, 2 / 3, 2 / 3, 1])


def test_confidence_knots_sit_where_reads_are_right_often_enough() -> None:
    """Reads right 90 % of the time at margin 0, climbing to 100 % at 1: the knots lie where
    that share reaches ``SURE_RIGHT`` and ``CERTAIN_RIGHT``."""
    rng = np.random.default_rng(11)
    margin = rng.random(40000)
    right = rng.random(40000) < 0.9 + 0.1 * margin
    sure, certain = letter_net.calibrate(margin, right)
    assert sure == pytest.approx((letter_net.SURE_RIGHT - 0.9) / 0.1, abs=0.1)
    assert certain == pytest.approx((letter_net.CERTAIN_RIGHT - 0.9) / 0.1, abs=0.05)
    assert sure < certain


def test_reads_a_training_font_at_every_rotation(classifier: LetterClassifier) -> None:
    assert accuracy(classifier, SEEN, seed=1, sure=0.5) >= 0.99


def test_light_letters_on_dark_tiles(classifier: LetterClassifier) -> None:
    assert accuracy(classifier, SEEN, seed=2, ink=225, paper=45) >= 0.99


def test_rotation_is_reported(classifier: LetterClassifier) -> None:
    rng = np.random.default_rng(3)
    turns = [classifier.read(face("R", SEEN, rng, turns=k)).quarter_turns for k in range(4)]
    assert turns == [0, 1, 2, 3]


def test_blank_faces_and_edges_show_no_letter() -> None:
    rng = np.random.default_rng(4)
    blank = np.clip(200 + rng.normal(0, 4, (34, 34)), 0, 255).astype(np.uint8)
    assert normalise(blank) is None
    edged = blank.copy()
    edged[:, :4] = 40  # the dark gap beside a tile, along one side of the crop
    edged[:4, :] = 40
    assert normalise(edged) is None


def _ink(face: np.ndarray) -> tuple[tuple[int, int, int, int], tuple[int, ...]]:
    """A crop's ink box and its letter glyph's shape."""
    found = letters.find_ink(face)
    assert found is not None
    return found.box, found.letter.shape


def test_a_stroke_broken_off_the_letter_is_joined_back() -> None:
    """A binarised W whose outer leg broke off lies near the crop's edge (its centre in the
    edge band): the letter's glyph takes the leg back, as it runs beside the central ink; a
    point digit, a neighbour's stroke across the gap and a seam along two sides stay out.  The
    box the heights use keeps to the central ink."""
    crop = np.full((36, 36), 220, np.uint8)
    crop[8:28, 9:26] = 30  # the central ink
    crop[8:28, 9:26][3:-3, 3:-3] = 220
    central = ((9, 8, 26, 28), (20, 17))
    assert _ink(crop) == central
    leg = crop.copy()
    leg[9:27, 3:7] = 30  # a leg two pixels off, its centre at 0.14 of the crop
    assert _ink(leg) == ((9, 8, 26, 28), (20, 23))
    digit = crop.copy()
    digit[24:30, 30:34] = 30  # a point digit at the letter's foot, in the edge band: short
    assert _ink(digit) == central
    neighbour = crop.copy()
    neighbour[9:27, 0:3] = 30  # a neighbour's stroke, six pixels off across the gap
    assert _ink(neighbour) == central
    seam = crop.copy()
    seam[0:36, 3:6] = 30  # a seam from top to bottom, close by
    assert _ink(seam) == central


def test_unseen_font_is_learned_from_three_examples_per_letter() -> None:
    """Its swashes leave a few faces with no letter inside the crop's edge band: those count
    as wrong, and are not taught."""
    fresh = LetterClassifier()
    before = accuracy(fresh, UNSEEN, seed=5, missing_ok=True)
    rng = np.random.default_rng(6)
    taught = sum(
        fresh.learn(face(letter, UNSEEN, rng, turns=k), letter)
        for letter in LETTERS
        for k in range(3)
    )
    assert taught >= 70
    after = accuracy(fresh, UNSEEN, seed=5, sure=0.5, missing_ok=True)
    assert before < 0.8  # 62.5 % measured: a calligraphic face the network never saw
    assert after > before and after >= 0.92  # 94.2 % measured (91.3 % with the old boost)
    # the examples travel in the profile (JSON) and come back the same
    params = json.loads(json.dumps(fresh.examples_json()))
    again = LetterClassifier(LetterClassifier.examples_from_json(params))
    assert accuracy(again, UNSEEN, seed=5, missing_ok=True) == after
    assert len(json.dumps(params)) < 26 * 3 * 120


def test_examples_are_bounded_per_letter() -> None:
    fresh = LetterClassifier()
    rng = np.random.default_rng(7)
    for _ in range(letters.MAX_EXAMPLES_PER_LETTER + 5):
        fresh.learn(face("A", SEEN, rng), "A")
    assert len(fresh.examples["A"]) == letters.MAX_EXAMPLES_PER_LETTER


def test_damaged_examples_are_refused() -> None:
    with pytest.raises(ValueError):
        LetterClassifier.examples_from_json({"A": ["AAAA"]})
    with pytest.raises(ValueError):
        LetterClassifier.examples_from_json({"Q": []})


@pytest.mark.skipif(shutil.which("tesseract") is None, reason="tesseract is not installed")
def test_tesseract_reads_a_clear_turned_letter() -> None:
    rng = np.random.default_rng(8)
    assert tesseract_letter(face("K", SEEN, rng, side=48, turns=1)) == "K"


def test_a_letter_that_is_no_tile_is_refused_before_anything_is_learned() -> None:
    fresh = LetterClassifier()
    rng = np.random.default_rng(9)
    for bad in ("Q", "", "AB", "e"):
        with pytest.raises(VisionError):
            fresh.learn(face("A", SEEN, rng), bad)
    with pytest.raises(VisionError):
        LetterClassifier({"Q": [np.zeros((letters.GLYPH, letters.GLYPH), np.float32)]})
    assert dict(fresh.examples) == {}


@pytest.fixture
def switching_often() -> Iterator[None]:
    """Threads take turns every few bytecodes, as they may on a loaded machine."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    yield
    sys.setswitchinterval(before)


@pytest.mark.usefixtures("switching_often")
def test_a_classify_on_another_thread_never_sees_half_a_table() -> None:
    """The camera's thread reads while a correction teaches the font: each classify sees the
    prototypes before or after the example was added, never arrays of both (which raised on
    mismatched shapes when the table was swapped one array at a time)."""
    fresh = LetterClassifier()
    rng = np.random.default_rng(10)
    glyphs = np.stack([normalise(face(letter, SEEN, rng)) for letter in "AEK"])
    want = [guess.letter for guess in fresh.classify(glyphs)]
    crops = [face(letter, SEEN, rng) for letter in LETTERS[:20]]
    failures: list[BaseException] = []
    stop = threading.Event()

    def read() -> None:
        while not stop.is_set():
            try:
                assert [guess.letter for guess in fresh.classify(glyphs)] == want
            except BaseException as err:
                failures.append(err)
                stop.set()

    reader = threading.Thread(target=read)
    reader.start()
    try:
        for crop, letter in zip(crops, LETTERS[:20], strict=True):
            fresh.learn(crop, letter)
    finally:
        stop.set()
        reader.join()
    assert failures == []
    assert sum(len(kept) for kept in fresh.examples.values()) == 20


@pytest.mark.usefixtures("switching_often")
def test_corrections_on_two_threads_both_count() -> None:
    fresh = LetterClassifier()
    rng = np.random.default_rng(11)
    work = {letter: [face(letter, SEEN, rng) for _ in range(6)] for letter in "MN"}
    threads = [
        threading.Thread(target=lambda k=k: [fresh.learn(crop, k) for crop in work[k]])
        for k in work
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert {k: len(v) for k, v in fresh.examples.items()} == {"M": 6, "N": 6}
