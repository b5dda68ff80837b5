"""transformer_math.linalg: real values, clear errors, and properties checked against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from transformer_math.linalg import cosine_similarity, dot, matmul_loops, norm, power_iteration

# Moderate floats: no overflow when squared and summed, no subnormals.
FLOATS = st.floats(min_value=-1e3, max_value=1e3, allow_nan=False, allow_infinity=False, allow_subnormal=False)


# Timing varies on a busy machine (the docs build and other tests run alongside); correctness does not.
NO_DEADLINE = settings(deadline=None)


def vectors(n):
    return arrays(np.float64, n, elements=FLOATS)


@st.composite
def vector_pairs(draw):
    n = draw(st.integers(1, 12))
    return draw(vectors(n)), draw(vectors(n))


@st.composite
def matrix_pairs(draw):
    m, n, p = draw(st.integers(1, 5)), draw(st.integers(1, 5)), draw(st.integers(1, 5))
    return draw(arrays(np.float64, (m, n), elements=FLOATS)), draw(arrays(np.float64, (n, p), elements=FLOATS))


# --- matmul_loops ---------------------------------------------------------------------------------


def test_matmul_loops_seed_example():
    C = matmul_loops([[1, 2], [3, 4]], [[5, 6], [7, 8]])
    assert C.tolist() == [[19, 22], [43, 50]]
    assert C.dtype.kind == "i"  # integers in, integers out, like A @ B


def test_matmul_loops_rectangular_and_vector_shapes():
    A = np.arange(6).reshape(2, 3)
    B = np.arange(12).reshape(3, 4)
    np.testing.assert_array_equal(matmul_loops(A, B), A @ B)
    assert matmul_loops([[1, 2, 3]], [[1], [1], [1]]).tolist() == [[6]]
    assert matmul_loops([[1.5]], [[2]]).dtype == np.float64


def test_matmul_loops_shape_error_names_both_shapes():
    with pytest.raises(ValueError, match=r"^cannot multiply \(2, 3\) by \(2, 2\): inner dimensions 3 and 2 differ$"):
        matmul_loops(np.ones((2, 3)), np.ones((2, 2)))


@pytest.mark.parametrize("A, B", [([1, 2], [[1], [2]]), ([[1, 2]], [1, 2]), (np.ones((2, 2, 2)), np.ones((2, 2)))])
def test_matmul_loops_refuses_non_matrices(A, B):
    with pytest.raises(ValueError, match=r"needs two 2-D arrays, got shapes \("):
        matmul_loops(A, B)


@NO_DEADLINE
@given(matrix_pairs())
def test_matmul_loops_agrees_with_numpy(pair):
    A, B = pair
    C = matmul_loops(A, B)
    assert C.shape == (A.shape[0], B.shape[1])
    np.testing.assert_allclose(C, A @ B, rtol=1e-9, atol=1e-6)


@NO_DEADLINE
@given(st.integers(1, 4), st.integers(1, 4), st.integers(1, 4), st.integers(0, 2**32 - 1))
def test_matmul_loops_is_exact_on_integers(m, n, p, seed):
    rng = np.random.default_rng(seed)
    A, B = rng.integers(-9, 10, (m, n)), rng.integers(-9, 10, (n, p))
    np.testing.assert_array_equal(matmul_loops(A.tolist(), B.tolist()), A @ B)


# --- dot, norm, cosine_similarity -----------------------------------------------------------------


def test_dot_seed_example():
    assert dot([1, 2, 3], [4, 5, 6]) == 32
    assert dot(np.array([0.5, 0.25]), np.array([2.0, 4.0])) == 2.0


def test_dot_length_error_names_both_shapes():
    with pytest.raises(ValueError, match=r"shapes \(3,\) and \(2,\)"):
        dot([1, 2, 3], [1, 2])
    with pytest.raises(ValueError, match=r"needs two 1-D vectors, got shapes \(2, 2\) and \(2,\)"):
        dot([[1, 2], [3, 4]], [1, 2])


@NO_DEADLINE
@given(vector_pairs())
def test_dot_agrees_with_numpy(pair):
    a, b = pair
    assert dot(a, b) == pytest.approx(np.dot(a, b), rel=1e-9, abs=1e-6)


def test_norm_values():
    assert norm([3, 4]) == 5.0
    assert norm([1, 2, 2]) == 3.0
    assert norm([0, 0, 0]) == 0.0


@NO_DEADLINE
@given(vectors(st.integers(1, 12)))
def test_norm_agrees_with_numpy(v):
    assert norm(v) == pytest.approx(np.linalg.norm(v), rel=1e-9, abs=1e-9)


def test_cosine_similarity_values():
    assert cosine_similarity([1, 0], [5, 0]) == 1.0
    assert cosine_similarity([1, 0], [0, 3]) == 0.0
    assert cosine_similarity([1, 2], [-2, -4]) == pytest.approx(-1.0, abs=1e-15)  # sqrt(5) * sqrt(20) rounds
    assert cosine_similarity([1, 0], [1, 1]) == pytest.approx(np.sqrt(0.5))


def test_cosine_similarity_refuses_zero_vector():
    with pytest.raises(ValueError, match="undefined for a zero vector"):
        cosine_similarity([0, 0, 0], [1, 2, 3])
    with pytest.raises(ValueError, match="undefined for a zero vector"):
        cosine_similarity([1, 2], [0.0, 0.0])


def test_cosine_similarity_names_its_arguments_when_shapes_are_wrong():
    with pytest.raises(ValueError, match=r"cosine_similarity needs two 1-D vectors, got shapes \(1, 2\) for a"):
        cosine_similarity([[1, 2]], [1, 2])
    with pytest.raises(ValueError, match=r"cosine_similarity needs a and b of the same length, got 2 and 3"):
        cosine_similarity([1, 2], [1, 2, 3])


@NO_DEADLINE
@given(vector_pairs())
def test_cosine_similarity_is_bounded_and_agrees_with_numpy(pair):
    a, b = pair
    assume(np.linalg.norm(a) > 1e-3 and np.linalg.norm(b) > 1e-3)
    cos = cosine_similarity(a, b)
    assert -1.0 <= cos <= 1.0
    expected = np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))
    assert cos == pytest.approx(expected, abs=1e-9)


@NO_DEADLINE
@given(vector_pairs(), st.floats(0.01, 100))
def test_cosine_similarity_ignores_length(pair, scale):
    a, b = pair
    assume(np.linalg.norm(a) > 1e-3 and np.linalg.norm(b) > 1e-3)
    assert cosine_similarity(scale * a, b) == pytest.approx(cosine_similarity(a, b), abs=1e-9)


# --- power_iteration ------------------------------------------------------------------------------


def test_power_iteration_known_matrix():
    value, vector = power_iteration([[2, 1], [1, 2]])
    assert value == pytest.approx(3.0, abs=1e-12)
    np.testing.assert_allclose(vector, [np.sqrt(0.5), np.sqrt(0.5)], atol=1e-12)


def test_power_iteration_negative_dominant_eigenvalue_and_sign():
    value, vector = power_iteration([[1, 0], [0, -3]])
    assert value == pytest.approx(-3.0)
    np.testing.assert_allclose(vector, [0, 1], atol=1e-12)  # largest entry made positive


def test_power_iteration_is_reproducible():
    A = [[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]]
    first, second = power_iteration(A, seed=7), power_iteration(A, seed=7)
    assert first[0] == second[0]
    np.testing.assert_array_equal(first[1], second[1])


def test_power_iteration_zero_matrix():
    value, vector = power_iteration(np.zeros((3, 3)))
    assert value == 0.0
    assert np.linalg.norm(vector) == pytest.approx(1.0)


def test_power_iteration_errors():
    with pytest.raises(ValueError, match=r"needs a square matrix, got A of shape \(2, 3\)"):
        power_iteration(np.ones((2, 3)))
    with pytest.raises(ValueError, match=r"needs a square matrix, got A of shape \(3,\)"):
        power_iteration([1, 2, 3])
    with pytest.raises(ValueError, match="steps must be at least 1, got 0"):
        power_iteration(np.eye(2), steps=0)


def test_power_iteration_repeated_dominant_eigenvalue():
    # the largest |λ| belongs to one eigenvalue, 2, twice: v settles in its eigenspace
    value, vector = power_iteration(np.diag([2.0, 2.0, 1.0]))
    assert value == pytest.approx(2.0, abs=1e-12)
    assert abs(vector[2]) < 1e-12
    assert power_iteration(np.eye(3))[0] == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize(
    "A",
    [
        np.diag([2.0, -2.0, 1.0]),  # λ and -λ: v alternates between two directions (and gave -0.0988 unchecked)
        [[0.0, -1.0], [1.0, 0.0]],  # a rotation by 90°: the complex pair ±i
        [[1.0, 1.0], [0.0, 1.0]],  # a shear: one eigendirection, v approaches it like 1/t
    ],
)
def test_power_iteration_refuses_an_unsettled_vector(A):
    with pytest.raises(ValueError, match=r"did not settle on an eigenvector of A after 100 steps"):
        power_iteration(A)


def test_power_iteration_close_eigenvalues_need_more_steps():
    A = np.diag([1.0, 0.9])  # the error shrinks like 0.9**t
    with pytest.raises(ValueError, match="too slowly for this many steps"):
        power_iteration(A, steps=20)
    assert power_iteration(A, steps=300)[0] == pytest.approx(1.0, abs=1e-12)


@st.composite
def symmetric_with_gap(draw):
    """A random symmetric matrix Q diag(values) Q^T whose largest |eigenvalue| is at least twice the next."""
    n = draw(st.integers(2, 6))
    seed = draw(st.integers(0, 2**32 - 1))
    rest = draw(st.lists(st.floats(-1.0, 1.0), min_size=n - 1, max_size=n - 1))
    top = draw(st.floats(2.5, 10.0)) * draw(st.sampled_from([-1.0, 1.0]))
    Q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((n, n)))
    values = np.array([top, *rest])
    return (Q * values) @ Q.T


@settings(max_examples=60, deadline=None)
@given(symmetric_with_gap())
def test_power_iteration_agrees_with_eigh(A):
    values, vectors = np.linalg.eigh(A)
    top = np.argmax(np.abs(values))
    value, vector = power_iteration(A, steps=200)
    assert value == pytest.approx(values[top], rel=1e-8)
    assert np.linalg.norm(vector) == pytest.approx(1.0)
    assert abs(vector @ vectors[:, top]) == pytest.approx(1.0, abs=1e-8)  # same direction, up to sign
    assert vector[np.argmax(np.abs(vector))] > 0
    np.testing.assert_allclose(A @ vector, value * vector, atol=1e-7)
