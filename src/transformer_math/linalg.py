r"""Linear algebra from the definitions.

Each function here computes what NumPy already computes (``A @ B``, ``np.dot``, ``np.linalg.eigh``),
but written the way the formula reads, with plain loops and sums, so that the code can be put next to
the formula on the page. They are slow on purpose; use NumPy in real work and these to see what NumPy
does. Every function checks its inputs and says clearly what is wrong with them.

Example
-------
>>> from transformer_math.linalg import dot, matmul_loops
>>> matmul_loops([[1, 2], [3, 4]], [[5, 6], [7, 8]])
array([[19, 22],
       [43, 50]])
>>> print(dot([1, 2, 3], [4, 5, 6]))
32
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from transformer_math.checks import check_integer, check_no_nan, float_array, real_array, wide

__all__ = ["matmul_loops", "dot", "norm", "cosine_similarity", "power_iteration"]


# --8<-- [start:matmul_loops]
def matmul_loops(A: ArrayLike, B: ArrayLike) -> np.ndarray:
    r"""Multiply two matrices with three loops: $C_{ij} = \sum_{k} A_{ik} B_{kj}$.

    Parameters
    ----------
    A : array_like, shape (m, n)
    B : array_like, shape (n, p)

    Returns
    -------
    numpy.ndarray, shape (m, p)
        The same numbers as ``A @ B`` (exactly for integers, up to rounding for floats), in the dtype
        NumPy would give them.

    Raises
    ------
    ValueError
        If an input is not 2-D, or the inner dimensions differ.

    Examples
    --------
    >>> from transformer_math.linalg import matmul_loops
    >>> matmul_loops([[1, 2, 3]], [[1], [1], [1]])
    array([[6]])
    """
    A, B = real_array(A, "A"), real_array(B, "B")
    if A.ndim != 2 or B.ndim != 2:
        raise ValueError(f"matmul_loops needs two 2-D arrays, got shapes {A.shape} for A and {B.shape} for B")
    (m, n), (n_b, p) = A.shape, B.shape
    if n != n_b:
        raise ValueError(f"cannot multiply {A.shape} by {B.shape}: inner dimensions {n} and {n_b} differ")

    C = np.zeros((m, p), dtype=np.result_type(A, B))
    with np.errstate(over="ignore", invalid="ignore"):  # inf and NaN come out quietly, as from A @ B
        for i in range(m):  # each row of A ...
            for j in range(p):  # ... meets each column of B
                for k in range(n):  # in a sum over the shared dimension
                    C[i, j] += A[i, k] * B[k, j]
    return C


# --8<-- [end:matmul_loops]


# --8<-- [start:dot]
def dot(a: ArrayLike, b: ArrayLike):
    r"""The dot product as defined: the sum of products, $a \cdot b = \sum_i a_i b_i$.

    Parameters
    ----------
    a, b : array_like, shape (n,)
        Two vectors of the same length.

    Returns
    -------
    scalar
        The same number as ``np.dot(a, b)`` (up to rounding for floats).

    Raises
    ------
    ValueError
        If an input is not 1-D, or the lengths differ.

    Examples
    --------
    >>> from transformer_math.linalg import dot
    >>> print(dot([1, 0, -1], [2, 5, 2]))
    0
    """
    a, b = real_array(a, "a"), real_array(b, "b")
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"dot needs two 1-D vectors, got shapes {a.shape} and {b.shape}")
    if a.shape != b.shape:
        raise ValueError(f"cannot take the dot product of shapes {a.shape} and {b.shape}: lengths differ")

    total = 0
    with np.errstate(over="ignore", invalid="ignore"):  # inf (a sum past 1.8e308) and NaN (inf * 0) as np.dot
        for a_i, b_i in zip(a, b):
            total += a_i * b_i
    return total


# --8<-- [end:dot]


# --8<-- [start:norm]
def norm(v: ArrayLike) -> float:
    r"""The Euclidean length of a vector: $\lVert v \rVert = \sqrt{v \cdot v} = \sqrt{\sum_i v_i^2}$.

    Raises
    ------
    ValueError
        If ``v`` is not 1-D (for the lengths of the rows of a matrix, use
        ``np.linalg.norm(M, axis=1)``), or holds a NaN.

    Examples
    --------
    >>> from transformer_math.linalg import norm
    >>> norm([3, 4])
    5.0
    """
    v = float_array(v, "v")
    if v.ndim != 1:
        raise ValueError(f"norm needs a 1-D vector, got shape {v.shape}")
    check_no_nan(v, "v")
    largest = np.max(np.abs(v), initial=0.0)
    if largest == 0 or not np.isfinite(largest):
        return float(largest)  # the zero vector has length 0; one with an infinite entry, length inf
    k = np.frexp(largest)[1]  # largest = m * 2**k with 0.5 <= m < 1
    u = np.ldexp(wide(v), -k)  # v / 2**k, exactly, in float64: no square overflows or underflows to 0
    return float(np.ldexp(np.sqrt(dot(u, u)), k))


# --8<-- [end:norm]


# --8<-- [start:cosine_similarity]
def cosine_similarity(a: ArrayLike, b: ArrayLike) -> float:
    r"""The cosine of the angle between two vectors: $\cos\theta = \dfrac{a \cdot b}{\lVert a \rVert \, \lVert b \rVert}$.

    It is 1 for vectors pointing the same way, 0 for perpendicular ones and -1 for opposite ones,
    whatever their lengths. Rounding can push the quotient a hair past 1; the result is clipped to
    $[-1, 1]$ so that ``np.arccos`` of it always works.

    Raises
    ------
    ValueError
        If either vector is zero (it has no direction, so no angle) or has a NaN or infinite entry, if one
        is not 1-D, or if the lengths differ.

    Examples
    --------
    >>> from transformer_math.linalg import cosine_similarity
    >>> cosine_similarity([1, 0], [0, 2])
    0.0
    >>> cosine_similarity([1, 1], [3, 3])
    1.0
    """
    a, b = float_array(a, "a"), float_array(b, "b")
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"cosine_similarity needs two 1-D vectors, got shapes {a.shape} for a and {b.shape} for b")
    if a.shape != b.shape:
        raise ValueError(f"cosine_similarity needs a and b of the same length, got {a.shape[0]} and {b.shape[0]}")
    check_no_nan(a, "a", finite=True)
    check_no_nan(b, "b", finite=True)
    norm_a, norm_b = norm(a), norm(b)
    if norm_a == 0 or norm_b == 0:
        raise ValueError("cosine similarity is undefined for a zero vector: it has no direction")
    a, b = np.ldexp(a, -np.frexp(norm_a)[1]), np.ldexp(b, -np.frexp(norm_b)[1])  # exact rescaling to length ~1
    return float(np.clip(dot(a, b) / (norm(a) * norm(b)), -1.0, 1.0))


# --8<-- [end:cosine_similarity]


# --8<-- [start:power_iteration]
def power_iteration(A: ArrayLike, steps: int = 100, seed: int = 0) -> tuple[float, np.ndarray]:
    r"""The dominant eigenvalue and eigenvector of a square matrix, by repeated multiplication.

    Start from a random unit vector $v_0$, repeat $v_{t+1} = A v_t / \lVert A v_t \rVert$, and return
    $v$ with its Rayleigh quotient $\lambda = v^\top A v$. When $A$ has a basis of eigenvectors, the
    vector's error shrinks like $|\lambda_2 / \lambda_1|^t$ (slower otherwise: like $1/t$ for
    $[[1, 1], [0, 1]]$). It needs the largest $|\lambda|$ to belong to one eigenvalue (which may
    repeat); the residual $\lVert A v - \lambda v \rVert$ is checked at the end.

    Parameters
    ----------
    A : array_like, shape (n, n)
    steps : int
        How many multiplications to do (at least 1).
    seed : int
        Seed of the random start vector, so the result is reproducible.

    Returns
    -------
    eigenvalue : float
    eigenvector : numpy.ndarray, shape (n,)
        Of length 1, its largest-magnitude entry made positive (an eigenvector's sign is arbitrary;
        this fixes one).

    Raises
    ------
    ValueError
        If ``A`` is not square or is empty, has a NaN or infinite entry, or ``steps`` is below 1; or if
        $v$ has not settled on an eigenvector after ``steps`` steps: different eigenvalues share the
        largest $|\lambda|$ ($\lambda$ and $-\lambda$, or a complex pair), or it converges too slowly.
    TypeError
        If ``steps`` or ``seed`` is not an integer.

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.linalg import power_iteration
    >>> value, vector = power_iteration([[2, 1], [1, 2]])
    >>> print(round(value, 6), np.round(vector, 4))
    3.0 [0.7071 0.7071]
    """
    A = float_array(A, "A")
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"power iteration needs a square matrix, got A of shape {A.shape}")
    if A.size == 0:
        raise ValueError("power iteration needs a matrix of at least 1 x 1, got A of shape (0, 0)")
    check_no_nan(A, "A", finite=True)
    steps = check_integer(steps, "steps", minimum=1)
    seed = check_integer(seed, "seed")

    k = np.frexp(np.max(np.abs(A)))[1]  # A = 2**k B with entries of B in [-1, 1]: B v neither overflows
    B = np.ldexp(A.astype(np.float64), -k)  # nor underflows, and B has A's eigenvectors (exact scaling)
    v = np.random.default_rng(seed).standard_normal(A.shape[0])
    v = v / np.linalg.norm(v)
    for _ in range(steps):
        w = B @ v
        length = np.linalg.norm(w)
        if length == 0:  # B v = 0: v is an eigenvector with eigenvalue 0
            break
        v = w / length

    value = v @ B @ v  # Rayleigh quotient; |v| = 1
    residual, size = np.linalg.norm(B @ v - value * v), np.linalg.norm(B)  # residual 0 when A v = λ v
    if residual > 1e-6 * size:  # a silently wrong eigenvalue otherwise
        raise ValueError(
            f"power iteration did not settle on an eigenvector of A after {steps} steps "
            f"(|A v - λ v| / |A| = {residual / size:.2g}): different eigenvalues of A share the largest |λ| "
            "(λ and -λ, or a complex pair), or it converges too slowly for this many steps"
        )
    eigenvalue = float(np.ldexp(value, k))  # the Rayleigh quotient of A = 2**k B is 2**k times that of B
    if v[np.argmax(np.abs(v))] < 0:  # make the sign deterministic
        v = -v
    return eigenvalue, v.astype(A.dtype)


# --8<-- [end:power_iteration]
