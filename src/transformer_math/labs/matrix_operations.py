r"""The checks of the lab "Matrix operations" (``docs/labs/matrix-operations.py``).

* ``prediction`` -- whether $AB$ and $BA$ are equal.
* ``entry_0_1`` -- one entry of a product, worked out by hand (checked against a hash).
* ``row_dots`` -- the matrix of dot products of every row of $X$ with every row of $Y$, for shapes from
  $1 \times 1$ to $4 \times 5$, $Y$ square among them (one drawn anew at every run): which transpose, on which
  side.
* ``matmul`` -- the matrix product written with loops, run on arrays that refuse ``@``, ``np.matmul``,
  ``np.dot`` and ``np.einsum`` (``loops_only_array``), and whose entries count their multiplications: every
  $X_{ik}$ must meet every $Y_{kj}$, $n \cdot m \cdot p$ pairs of entries (a multiplication of anything else, or
  of a plain copy, counts for nothing), and no product may be longer than a row or a column (every row with every
  column at once, flattened or not); entries that are integers and entries that are not (a result of integers
  would cut off their fractions).

Example
-------
>>> import numpy as np
>>> from transformer_math.labs.matrix_operations import check
>>> check("matmul", lambda X, Y: np.asarray(X) @ np.asarray(Y))
Wrong: matmul - case 1 of 8: X = [[1.0, 2.0], [3.0, 4.0]], Y = [[5.0, 6.0], [7.0, 8.0]]
  it uses the @ operator (line 1): write the loops
"""

from __future__ import annotations

import numpy as np

from transformer_math.labs.answers import Choice
from transformer_math.labs.cases import Case
from transformer_math.labs.hand import HandNumber
from transformer_math.labs.runner import Checks, FunctionCheck
from transformer_math.labs.trace import entries, float_keeping_entries, loops_only_array

__all__ = ["check"]

A = np.array([[1, 2], [3, 4]])
B = np.array([[5, 6], [7, 8]])


def row_dots_cases(rng: np.random.Generator) -> list[Case]:
    def pair(n, m, d):
        return rng.integers(-5, 6, size=(n, d)).astype(float), rng.normal(size=(m, d))

    cases = [
        Case(pair(2, 4, 3)),
        Case(pair(3, 3, 2), about="square results"),
        Case(pair(1, 1, 5)),
        Case(pair(4, 2, 1)),
        Case(tuple(a.tolist() for a in pair(2, 3, 4)), about="lists"),
        Case(tuple(a.astype(np.float32) for a in pair(3, 2, 3)), about="float32", tol=1e-4),
    ]
    # Y square (m = d): there X @ Y has the right shape, so an answer that falls back on it fails only here
    n, d = (int(k) for k in rng.integers((1, 2), (5, 5)))
    square = [Case(pair(2, 3, 3), about="Y square"), Case(pair(n, d, d), about="Y square", fresh=True)]
    # X of whole numbers above (readable by hand), so one case of fractions: an X cast to integers fails there
    return [*cases, *square, Case((rng.normal(size=(3, 4)), rng.normal(size=(2, 4))), about="X of fractions")]


def matmul_cases(rng: np.random.Generator) -> list[Case]:
    def pair(n, m, p):
        return loops_only_array(rng.integers(-4, 5, size=(n, m))), loops_only_array(rng.integers(-4, 5, size=(m, p)))

    return [
        Case((loops_only_array(A), loops_only_array(B))),
        Case(pair(2, 3, 1)),
        Case(pair(1, 4, 3)),
        Case(pair(3, 2, 4)),
        Case(pair(4, 1, 2), about="each entry one product"),
        Case(tuple(entries(a) for a in pair(3, 3, 2)), about="lists"),
        Case(
            (loops_only_array(rng.normal(size=(3, 4))), loops_only_array(rng.normal(size=(4, 2)))),
            about="entries that are not integers",
        ),
    ]


def _vectorised(shape: tuple, n: int, m: int, p: int) -> bool:
    """A product of every row with every column at once: 3-D (``X[:, :, None] * Y[None]``), a 2-D outer product
    with several rows and columns (``X[:, k:k+1] * Y[k:k+1, :]``, a rank-one update), or 1-D and longer than any
    row or column (the same update flattened by ``np.repeat`` and ``np.tile``). A row times a column
    (``X[i] * Y[:, j]``) or a row scaled by one entry (``X[i][k] * Y[k]``) is 1-D, no longer than one of them."""
    return len(shape) > 2 or (len(shape) == 2 and min(shape) > 1) or int(np.prod(shape)) > max(n, m, p)


def enough_multiplications(result, case: Case, seen) -> list[str] | None:
    """A product written with loops multiplies every entry X[i, k] by every entry Y[k, j]: n m p pairs."""
    (n, m), p = np.shape(case.args[0]), np.shape(case.args[1])[1]
    wide = max((s for s in seen.products if _vectorised(s, n, m, p)), key=lambda s: int(np.prod(s)), default=None)
    if wide is not None:
        return [
            f"it multiplied arrays into a result of shape {tuple(wide)}: every row with every column at once is the"
            " product vectorised; loop over the rows i and the columns j, and multiply the entries yourself"
        ]
    if seen.multiplications < n * m * p:
        return [
            f"for a {n} x {m} times {m} x {p} product the check could follow {seen.multiplications} of the {n * m * p}"
            " pairs X[i][k], Y[k][j] being multiplied (with * or np.multiply, each pair once; entries rearranged by"
            " np.repeat, np.tile or the like, or copied into a plain array, it cannot follow): loop over the rows i"
            " and the columns j, and multiply X[i][k] by Y[k][j] for every k"
        ]
    return None


def entries_kept(function, X, Y):
    """The learner's function with ``float(X[i][k])`` keeping the entry, whose multiplications then count."""
    with float_keeping_entries(getattr(function, "__globals__", None)):
        return function(X, Y)


check = Checks(
    "matrix-operations",
    {
        "prediction": Choice(("equal", "different")),
        "entry_0_1": HandNumber(
            "5f0cb078109960d544c2211e",
            slips={
                "2af4609361ae20e7bd84dec1": "that is entry (0, 0): row 0 of A with column 0 of B",
                "9c763642efcd896ee3144119": "that is entry (0, 1) of BA: the order of a product matters",
                "6ddf62ae1b9c9008da7c1cfb": "row 0 of A times row 1 of B: entry (0, 1) takes column 1 of B",
            },
        ),
        "row_dots": FunctionCheck(
            ("X", "Y"), row_dots_cases, lambda X, Y: np.asarray(X, dtype=float) @ np.asarray(Y, dtype=float).T
        ),
        "matmul": FunctionCheck(
            ("X", "Y"),
            matmul_cases,
            lambda X, Y: np.asarray(X, dtype=float).view(np.ndarray) @ np.asarray(Y, dtype=float).view(np.ndarray),
            own=("transformer_math.linalg.",),
            loops=True,
            call=entries_kept,
            verify=enough_multiplications,
        ),
    },
)
