"""How many paints a start's crowd of figures shows (``paints.paint_count``)."""

from __future__ import annotations

import numpy as np
import pytest

from companion.games.labyrinth.paints import MIN_SAMPLES, paint_count


def _hues(rng: np.random.Generator, centres_deg: list[float], each: int = 120) -> np.ndarray:
    """Hue angles (radians) of ``each`` pixels round every centre, 4 degrees of spread."""
    parts = [rng.normal(c, 4.0, each) for c in centres_deg]
    return np.deg2rad(np.concatenate(parts))


@pytest.mark.parametrize("centres", [[2.0, 50.0, 124.0], [0.0, 50.0, 112.0, 208.0], [356.0, 60.0]])
def test_each_paint_is_one_peak(centres: list[float]) -> None:
    assert paint_count(_hues(np.random.default_rng(1), centres)) == len(centres)


def test_the_blend_between_two_stands_is_no_paint_of_its_own() -> None:
    """The bundled sample's three-player start: yellow and green stands side by side leave a
    thin run of in-between hues, which k-means with four groups took for a fourth paint."""
    rng = np.random.default_rng(2)
    blend = np.deg2rad(rng.uniform(56.0, 116.0, 40))
    assert paint_count(np.concatenate([_hues(rng, [2.0, 48.0, 126.0]), blend])) == 3


def test_a_paint_with_too_few_pixels_to_fit_is_not_counted() -> None:
    rng = np.random.default_rng(3)
    few = _hues(rng, [200.0], each=MIN_SAMPLES - 4)
    assert paint_count(np.concatenate([_hues(rng, [2.0, 50.0, 124.0]), few])) == 3
