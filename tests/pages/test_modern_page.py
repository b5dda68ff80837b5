"""What docs/part-4/modern.md says in words about masks in float16 holds for float16."""

from __future__ import annotations

import numpy as np

from tests.pages import prose


def test_a_score_of_minus_16_or_less_plus_the_most_negative_float16_rounds_to_minus_infinity():
    """Near 65,504 float16's spacing is 32: an overshoot of half of it, 16, rounds past the largest number."""
    lowest = np.finfo(np.float16).min
    with np.errstate(over="ignore"):
        sums = {score: np.float16(score) + lowest for score in (-1.0, -15.9921875, -16.0, -100.0)}
    assert np.isfinite(sums[-1.0]) and np.isfinite(sums[-15.9921875])  # the float16 just above -16
    assert sums[-16.0] == -np.inf and sums[-100.0] == -np.inf
    assert prose.says("part-4/modern.md", "added, it would round a score of $-16$ or less to $-\\infty$ in float16")
