r"""The checks of the lab "Softmax from scratch" (``docs/labs/softmax.py``).

* ``prediction`` -- what the textbook formula gives for scores of about 1000.
* ``softmax`` -- probabilities from scores along the last axis, for any shape, that never overflow: hidden
  cases from one score to a batch of rows, integers, lists, float32, and spreads from 0 to 2000.
* ``softmax_with_temperature`` -- a temperature $T$: $T = 1$ is softmax, $T \to 0$ puts everything on the
  largest score, $T \to \infty$ gives the uniform distribution; $T$ from 0.01 to 100.

The reference is the library's ``transformer_math.softmax.softmax``, which the learner's code may not call.

Example
-------
>>> from transformer_math.labs.softmax import check
>>> check("softmax", lambda x: x)      # the scores themselves are no distribution
Wrong: softmax - case 1 of 12: x = [2.5, 1.2, 0.3, 3.1] (a list)
  the largest error is 2.5e+00, at index [3] (tolerance 1e-06)
  the rows of your result sum to 7.100000
"""

from __future__ import annotations

import numpy as np

from transformer_math.labs.cases import Case
from transformer_math.labs.runner import Checks, Choice, FunctionCheck
from transformer_math.softmax import softmax as reference_softmax

__all__ = ["check"]

OWN = ("transformer_math.softmax.",)


def softmax_cases(rng: np.random.Generator) -> list[Case]:
    rows = rng.normal(size=(3, 5)) * 3
    return [
        Case(([2.5, 1.2, 0.3, 3.1],), about="a list"),
        Case(((1000.0, 1001.0, 1002.0),), about="a tuple"),
        Case((np.array([-1000.0, 0.0, 1000.0]),)),
        Case((rows,), about="each row on its own"),
        Case((np.array([[1000.0, 0.0], [0.0, -1000.0]]),), about="rows far apart"),
        Case((rng.normal(size=(2, 3, 4)) * 5,), about="a batch of rows"),
        Case(((rng.normal(size=(4, 6)) * 40).astype(np.float32),), about="float32: e^89 is already inf"),
        Case((np.full(int(rng.integers(3, 7)), 2.5),), about="all equal"),
        Case((np.array([3.0]),), about="one score"),
        Case(([1, 2, 3],), about="integers"),
        Case((np.round(rng.uniform(-50, 50, size=(1, 7)), 1),), about="one row"),
    ]


def temperature_cases(rng: np.random.Generator) -> list[Case]:
    x = rng.normal(size=5)
    return [
        Case((x, 1.0), about="T = 1"),
        Case((x, 0.5)),
        Case(([2.5, 1.2, 0.3, 3.1], 10), about="a list, an integer T"),
        Case((rng.normal(size=(3, 4)), 2.0), about="rows"),
        Case((rng.normal(size=6) * 5, 0.01), about="T = 0.01: scores of several hundred"),
        Case((rng.normal(size=(2, 5)), 100.0), about="T = 100: nearly uniform"),
        Case((rng.normal(size=4).astype(np.float32), 0.3), about="float32"),
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
