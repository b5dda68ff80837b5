"""What docs/part-4/attention.md says in words about its small example holds: a score of 0 is not a weight of 0."""

from __future__ import annotations

import functools

import numpy as np

from tests.pages import prose
from transformer_math.attention import scaled_dot_product_attention

says = functools.partial(prose.says, "part-4/attention.md")


def test_a_key_that_scores_0_still_gets_weight():
    q = np.array([[1.0, 0.0], [0.0, 1.0]])
    k = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    v = np.array([[1.0, 0.0], [0.0, 1.0], [5.0, 5.0]])
    _, weights = scaled_dot_product_attention(q, k, v)
    assert (q @ k.T)[0, 1] == 0.0 and weights[0, 0] == weights[0, 2]
    assert says(f"key 2 scores 0 and still gets weight {weights[0, 1]:.4f}")


def test_float64_rounds_a_weight_to_exactly_0_about_745_below_the_largest_score():
    from transformer_math.softmax import softmax

    assert softmax(np.array([0.0, -744.0]))[1] > 0.0 and softmax(np.array([0.0, -746.0]))[1] == 0.0
    assert says(
        "a weight is 0 only for a score of $-\\infty$, or, in float64, one over about 745 below the row's largest"
    )
