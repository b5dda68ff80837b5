r"""The checks of the lab "Cross entropy" (``docs/labs/cross-entropy.py``).

* ``loss_at_one_half`` -- the loss of probability 1/2 on the right token, by hand (checked against a hash).
* ``prediction`` -- whether one confident mistake among ten predictions dominates the mean loss.
* ``cross_entropy`` -- $-\sum_i y_i \log \hat y_i$ along the last axis, averaged over the leading ones; a zero
  in $\hat y$ costs nothing where $y$ is zero and $+\infty$ where it is not. Hidden cases: one-hot and soft
  targets, batches, zeros on both sides and a probability below float32's smallest (drawn anew at every run),
  lists, float32.
* ``cross_entropy_from_logits`` -- the same loss from logits and integer targets, finite for any finite
  logits: spreads up to 2400, rows 1600 to 2400 apart from each other (drawn anew at every run), one position or
  a batch of sequences.

The references are the library's ``cross_entropy`` and
``cross_entropy_from_logits``.

Example
-------
>>> import numpy as np
>>> from transformer_math.labs.cross_entropy import check
>>> with np.errstate(over="ignore"):
...     check("cross_entropy_from_logits", lambda z, t: float(np.log(np.sum(np.exp(z))) - np.asarray(z)[t]))
...     # doctest: +ELLIPSIS
Wrong: cross_entropy_from_logits - case 2 of 12: logits = [...], targets = ... (a list)
  it returned inf where the loss is finite
"""

from __future__ import annotations

import numpy as np

from transformer_math.information import cross_entropy as reference_cross_entropy
from transformer_math.information import cross_entropy_from_logits as reference_from_logits
from transformer_math.labs.answers import Choice
from transformer_math.labs.cases import Case
from transformer_math.labs.diagnose import compare
from transformer_math.labs.hand import HandNumber
from transformer_math.labs.runner import Checks, FunctionCheck

__all__ = ["check"]

OWN = ("transformer_math.information.", "transformer_math.softmax.")


def distributions(rng: np.random.Generator, shape: tuple[int, ...], zeros: int = 0) -> np.ndarray:
    """Random distributions along the last axis, ``zeros`` entries of each set to exactly 0."""
    p = rng.uniform(0.05, 1.0, size=shape)
    if zeros:
        p[..., :zeros] = 0.0
        p = rng.permuted(p, axis=-1)
    return p / p.sum(axis=-1, keepdims=True)


def one_hot(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return np.eye(shape[-1])[rng.integers(0, shape[-1], size=shape[:-1])]


def cross_entropy_cases(rng: np.random.Generator) -> list[Case]:
    # The zeros that 0 log 0 turns to NaN, and a probability below what a clip keeps, drawn anew at every run.
    n = int(rng.integers(3, 7))
    target, other = (int(k) for k in rng.choice(n, size=2, replace=False))
    zero_elsewhere = distributions(rng, (n,))
    zero_elsewhere[other] = 0.0
    zero_elsewhere /= zero_elsewhere.sum()
    tiny = 10.0 ** -rng.uniform(50, 150)  # far below a clip's 1e-12 or 1e-15, and float32's 1e-45, which holds it as 0
    return [
        Case(([0, 1, 0], [0.1, 0.8, 0.1]), about="lists"),
        Case((one_hot(rng, (4, 6)), distributions(rng, (4, 6))), about="a batch: the mean over the rows"),
        Case((distributions(rng, (3, 5)), distributions(rng, (3, 5))), about="soft targets"),
        Case((np.eye(n)[target], zero_elsewhere), about="a zero where the target is zero", fresh=True),
        Case((one_hot(rng, (2, 3, 4)), distributions(rng, (2, 3, 4), zeros=1)), about="a batch of sequences"),
        Case((np.eye(n)[other], np.eye(n)[other]), about="certain and right: 0", fresh=True),
        Case((np.eye(n)[target], np.eye(n)[other]), about="certain and wrong: +inf", fresh=True),
        Case((np.eye(2)[1], np.array([1 - tiny, tiny])), about="nearly certain and wrong, p below 1e-50", fresh=True),
        Case(tuple(a.astype(np.float32) for a in (one_hot(rng, (3, 4)), distributions(rng, (3, 4)))), tol=1e-5),
        # the batch of sequences above is most often +inf (a zero at a target), where the divisor does not show
        Case((one_hot(rng, (2, 3, 4)), distributions(rng, (2, 3, 4))), about="a batch of sequences, a finite loss"),
    ]


def logits_cases(rng: np.random.Generator) -> list[Case]:
    # The logits whose e^z overflows, and targets far below the largest (whose softmax underflows to 0), drawn
    # anew at every run.
    big = np.round(rng.uniform(800, 1200, size=4), 1)
    small = np.round(rng.uniform(-5, 5, size=4), 1)
    first = [float(big[0]), float(small[0]), float(small[1])]
    spreads = np.array([[small[2], -big[1], big[2]], [5.0, 5.0, 5.0]])
    apart = np.array([[big[3], 0.0, 10.0], [-big[3], -big[3] + 10, -big[3] - 5]])
    return [
        Case(([2.0, 1.0, 0.1], 0), about="a list, one position"),
        Case((first, int(rng.integers(1, 3))), about="a list", fresh=True),
        Case((np.array([-big[1], small[3], big[1]]), np.int64(2)), about="a spread of about 2000", fresh=True),
        Case((rng.normal(size=(4, 7)) * 3, rng.integers(0, 7, size=4)), about="the mean over the positions"),
        Case((rng.normal(size=(2, 5, 6)) * 2, rng.integers(0, 6, size=(2, 5))), about="a batch of sequences"),
        Case((spreads, np.array([1, 0])), about="spreads of 1600 to 2400 and 0", fresh=True),
        Case((apart, np.array([2, 1])), about="rows 1600 to 2400 apart", fresh=True),
        Case(((rng.normal(size=(3, 5)) * 30).astype(np.float32), rng.integers(0, 5, size=3)), tol=1e-4),
        Case((rng.normal(size=(1, 9)), [4]), about="targets as a list"),
        Case((np.zeros(50), 17), about="the uniform guess: ln 50"),
        # past 11400, e^z overflows np.longdouble too (80-bit): only the shift by the maximum keeps it finite
        Case(
            (np.array([round(float(rng.uniform(15000, 25000)), 1), 0.0, small[0]]), 1),
            about="a logit of about 20000",
            fresh=True,
        ),
    ]


def compare_loss(got, expected, tol: float) -> list[str] | None:
    """A loss is one number (a Python float or an array of shape ()); an infinity must be where the reference
    has one, and only there."""
    try:
        array = np.asarray(got, dtype=float)
    except (TypeError, ValueError):
        return [f"it returned a {type(got).__name__}, not one number"]
    if array.shape != ():
        return [f"it returned an array of shape {array.shape}, not one number: reduce it to shape ()"]
    value = float(array)
    if np.isfinite(expected) and not np.isfinite(value):
        return [f"it returned {value} where the loss is finite"]
    if not np.isfinite(expected):
        return None if value == expected else ["it returned a finite loss where probability 0 on the target costs +inf"]
    return compare(value, expected, tol=tol)


check = Checks(
    "cross-entropy",
    {
        "loss_at_one_half": HandNumber(
            "24040ca77bfcc92eebf964a0",
            slips={
                "32249f70a42aa1b78dd31df1": "that is the logarithm to base 10; the loss uses the natural one",
                "0ce11e3d96f4dff4852f2f80": "that is in bits, the logarithm to base 2; the loss uses nats",
                "0c1b2ddde8cedc250f18af08": "the loss is minus the logarithm: a positive number",
            },
        ),
        "prediction": Choice(("0.1", "0.8")),
        "cross_entropy": FunctionCheck(
            ("y_true", "y_pred"), cross_entropy_cases, reference_cross_entropy, own=OWN, compare_with=compare_loss
        ),
        "cross_entropy_from_logits": FunctionCheck(
            ("logits", "targets"), logits_cases, reference_from_logits, own=OWN, compare_with=compare_loss
        ),
    },
)
