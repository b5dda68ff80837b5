r"""The checks of the lab "Softmax from scratch" (``docs/labs/softmax.py``).

* ``prediction`` -- what the textbook formula gives for scores of about 1000.
* ``softmax`` -- probabilities from scores along the last axis, for any shape, that never overflow: hidden
  cases from one score to a batch of rows, integers, lists, float32, and spreads from 0 to 2400 (the scores
  that overflow drawn anew at every run); a result of less precision than its input (float64 in, float32 out)
  is refused, as in every lab.
* ``softmax_with_temperature`` -- a temperature $T$: $T = 1$ is softmax, $T \to 0$ puts everything on the
  largest score, $T \to \infty$ gives the uniform distribution; $T$ from 0.01 to 100.

The reference is the library's ``transformer_math.softmax.softmax``, which the learner's code may not call.

Example
-------
>>> from transformer_math.labs.softmax import check
>>> check("softmax", lambda x: x)      # the scores themselves are no distribution
Wrong: softmax - case 1 of 13: x = [2.5, 1.2, 0.3, 3.1] (a list)
  the largest error is 2.5e+00, at index [3] (tolerance 1e-06)
  the rows of your result sum to 7.100000
"""

from __future__ import annotations

import numpy as np

from transformer_math.labs.answers import Choice
from transformer_math.labs.cases import Case
from transformer_math.labs.runner import Checks, FunctionCheck
from transformer_math.softmax import softmax as reference_softmax

__all__ = ["check"]

OWN = ("transformer_math.softmax.",)


def softmax_cases(rng: np.random.Generator) -> list[Case]:
    rows = rng.normal(size=(3, 5)) * 3
    # The scores that overflow e^x (past 709.78, or 88.7 in float32) are drawn anew at every run (``fresh``).
    near = tuple(np.round(rng.uniform(1000, 1003, size=3), 2).tolist())
    spread = round(float(rng.uniform(800, 1200)), 1)
    low, high = np.round(rng.uniform(-5, 5, size=2), 1)
    wide = rng.permutation([-spread, low, spread])
    apart = rng.permuted(np.array([[spread, low], [high, high - spread]]), axis=-1)  # row 2 is 800 below row 1
    large = rng.normal(size=(4, 6)) * 40
    large[np.arange(4), rng.integers(0, 6, size=4)] = rng.uniform(90, 200, size=4)  # one score past 89 a row
    return [
        Case(([2.5, 1.2, 0.3, 3.1],), about="a list"),
        Case((near,), about="a tuple, scores near 1000", fresh=True),
        Case((wide,), about="a spread of about 2000", fresh=True),
        Case((rows,), about="each row on its own"),
        Case((apart,), about="rows far apart", fresh=True),
        Case((rng.normal(size=(2, 3, 4)) * 5,), about="a batch of rows"),
        # kept in float32, x - logsumexp(x) near 200 rounds by up to 8e-6: a right float32 answer's error
        Case((large.astype(np.float32),), about="float32: e^89 is already inf", fresh=True, tol=2e-5),
        Case(
            (1e5 + rng.uniform(0, 4, size=(2, 4)),),
            about="scores near 100000, a few apart: rounded to float32 they move by up to 0.004",
            fresh=True,
        ),
        Case((np.full(int(rng.integers(3, 7)), 2.5),), about="all equal"),
        Case((np.array([3.0]),), about="one score"),
        Case(([1, 2, 3],), about="integers"),
        Case((np.round(rng.uniform(-50, 50, size=(1, 7)), 1),), about="one row"),
    ]


def temperature_cases(rng: np.random.Generator) -> list[Case]:
    x = rng.normal(size=5)
    sharp = rng.normal(size=6) * 5
    sharp[rng.integers(0, 6)] = rng.uniform(8, 15)  # at T = 0.01, a score of 800 to 1500: e^(x/T) overflows
    return [
        Case((x, 1.0), about="T = 1"),
        Case((x, 0.5)),
        Case(([2.5, 1.2, 0.3, 3.1], 10), about="a list, an integer T"),
        Case((rng.normal(size=(3, 4)), 2.0), about="rows"),
        Case((sharp, 0.01), about="T = 0.01: scores of several hundred", fresh=True),
        Case((rng.normal(size=(2, 5)), 100.0), about="T = 100: nearly uniform"),
        Case((rng.normal(size=4).astype(np.float32), 0.3), about="float32"),
        Case(
            (2e5 + rng.uniform(0, 8, size=(2, 4)), 2.0),
            about="scores near 200000, a few apart: rounded to float32 they move by up to 0.008",
            fresh=True,
        ),
    ]


check = Checks(
    "softmax",
    {
        "prediction": Choice(("right", "inf", "nan", "0")),
        "softmax": FunctionCheck(
            ("x",),
            softmax_cases,
            lambda x: reference_softmax(np.asarray(x, dtype=float)),
            rows_sum_to_one=True,
            own=OWN,
        ),
        "softmax_with_temperature": FunctionCheck(
            ("x", "temperature"),
            temperature_cases,
            lambda x, t: reference_softmax(np.asarray(x, dtype=float), temperature=t),
            rows_sum_to_one=True,
            own=OWN,
        ),
    },
)
