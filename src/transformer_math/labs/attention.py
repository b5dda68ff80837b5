r"""The checks of the lab "Attention by hand" (``docs/labs/attention.py``).

* ``score_1_0`` -- one raw score $q_1 \cdot k_0$, from the embeddings and the projections, by hand (a hash).
* ``causal_mask`` -- True where query $i$ may see key $j$, for $n = 1, \dots, 7$, 13, a length drawn from 8
  to 600 and one from 601 to 2000 (drawn anew at each run, so no table or size written into the code passes: a
  table of 600 cut to $n$ fails every time): a boolean array (a mask of 0s and 1s passes ``np.where``, but ``~mask`` of integers
  is -1 and -2).
* ``attention`` -- $\operatorname{softmax}(QK^\top / \sqrt{d_k})\, V$ with a mask, on hidden cases: as many or
  fewer queries than keys, $d_k \ne d_v$, $d_k$ from 1 to 8, no mask, the causal mask and scattered masks,
  batches and heads in front, scores past 700 with a masked score 800 above a row's visible ones, scores near
  5000 a few apart, which float32 cannot hold finely enough, and a visible score below -1e5 with a masked one 1e6
  above it, which a mask of -1e4 lets through (all three drawn anew at every run), lists, float32.
* ``prediction`` -- what the first token's output is under the causal mask.
* ``multi_head_attention`` -- $h$ causal heads of width $d/h$, side by side, times $W_O$: $h = 1, 2, 4$, widths 4
  to 12, one sequence or a batch.

The references are the library's ``transformer_math.attention``, which the learner's code may not call.

Example
-------
>>> import numpy as np
>>> from transformer_math.labs.attention import check
>>> check("causal_mask", lambda n: np.triu(np.ones((n, n), dtype=bool)))
Wrong: causal_mask - case 2 of 11: n = 2
  the largest error is 1.0e+00, at index (0, 1) (tolerance 1e-06)
"""

from __future__ import annotations

import numpy as np

from transformer_math.attention import causal_mask as reference_mask
from transformer_math.attention import multi_head_attention as reference_multi_head
from transformer_math.attention import scaled_dot_product_attention
from transformer_math.labs.answers import Choice
from transformer_math.labs.cases import Case
from transformer_math.labs.hand import HandNumber
from transformer_math.labs.runner import Checks, FunctionCheck

__all__ = ["check"]

OWN = ("transformer_math.attention.", "transformer_math.softmax.")


def mask_cases(rng: np.random.Generator) -> list[Case]:
    drawn = Case((int(rng.integers(8, 601)),), about="a length drawn from 8 to 600")
    long = Case((int(rng.integers(601, 2001)),), about="a length drawn from 601 to 2000", fresh=True)
    return [*(Case((n,)) for n in (1, 2, 3, 4, 5, 6, 7)), Case((13,)), long, drawn]


def boolean(result, case: Case, seen) -> list[str] | None:
    """A mask is boolean: ``~`` of a mask of 0s and 1s gives -1 and -2, not its complement."""
    dtype = np.asarray(result).dtype
    if dtype != np.bool_:
        return [f"it returned {dtype} values: a mask is boolean (dtype bool), True where query i may see key j"]
    return None


def scattered_mask(rng: np.random.Generator, n_q: int, n_k: int) -> np.ndarray:
    """A random mask with at least one key per query."""
    mask = rng.random((n_q, n_k)) < 0.5
    mask[np.arange(n_q), rng.integers(0, n_k, size=n_q)] = True
    return mask


def far_masked_keys(rng: np.random.Generator, query_size: tuple, key_size: tuple) -> tuple:
    """Q, K and a mask (4 queries, 6 keys of width 4) whose two masked keys lie along a direction u the queries
    lean along, the allowed keys across it: queries of size 10^query_size along u, the masked keys of size
    10^key_size (each drawn from its range), so that the masked scores are their product above the allowed ones,
    which stay a few, however large. A mask added to the scores, of any size short of that, leaves them weight; a
    score of -inf, or one put in their place, leaves none."""
    n_q, n_k, d_k = 4, 6, 4
    u = rng.normal(size=d_k)
    u /= np.linalg.norm(u)
    Q = 10 ** rng.uniform(*query_size, size=(n_q, 1)) * u + rng.normal(size=(n_q, d_k))
    K = rng.normal(size=(n_k, d_k)) * 2
    K -= np.outer(K @ u, u)  # across u: the allowed scores are a few, whatever the queries' size along u
    far = rng.permutation(n_k)[:2]
    K[far] += 10 ** rng.uniform(*key_size, size=(2, 1)) * u
    mask = scattered_mask(rng, n_q, n_k)
    mask[:, far] = False
    mask[np.arange(n_q), rng.choice(np.setdiff1d(np.arange(n_k), far), size=n_q)] = True
    return Q, K, mask


def attention_cases(rng: np.random.Generator) -> list[Case]:
    def qkv(n_q, n_k, d_k, d_v, lead=(), scale=1.0):
        return (
            rng.normal(size=(*lead, n_q, d_k)) * scale,
            rng.normal(size=(*lead, n_k, d_k)) * scale,
            rng.normal(size=(*lead, n_k, d_v)),
        )

    return [
        Case(qkv(4, 4, 2, 2), {"mask": None}, about="no mask: every query sees every key"),
        Case((*qkv(5, 5, 3, 2), reference_mask(5)), about="the causal mask"),
        Case((*qkv(3, 6, 5, 4), scattered_mask(rng, 3, 6)), about="fewer queries than keys, a scattered mask"),
        Case((*qkv(4, 4, 8, 1), reference_mask(4)), about="d_k = 8, d_v = 1"),
        Case((*qkv(3, 3, 1, 3), None), about="d_k = 1"),
        Case((*qkv(4, 4, 4, 4, lead=(2,)), reference_mask(4)), about="a batch of 2"),
        Case((*qkv(5, 5, 2, 3, lead=(2, 3)), reference_mask(5)), about="a batch of 2, 3 heads each"),
        Case(overflowing(rng), about="scores past 700: e^710 is inf", fresh=True),
        Case(close_and_large(rng), about="scores near 5000, a few apart: float32 moves them by about 1e-3", fresh=True),
        Case(far_below(rng), about="a query whose one key scores below -1e5, 1e6 under a masked one", fresh=True),
        Case(tuple(a.tolist() for a in qkv(2, 3, 2, 2)) + (scattered_mask(rng, 2, 3).tolist(),), about="lists"),
        Case((*(a.astype(np.float32) for a in qkv(4, 4, 4, 3)), reference_mask(4)), about="float32", tol=1e-5),
    ]


def overflowing(rng: np.random.Generator) -> tuple:
    """Q, K, V and the causal mask of 4 tokens, with scores of about a thousand, at least one that a query sees
    past 750: e^x of it is inf, as is the sum of its row; and a row where a masked score lies more than 800 above
    every visible one, so that a maximum taken over the masked scores too leaves e^x of the visible ones 0 and the
    row 0/0 (drawn again until both hold)."""
    mask = reference_mask(4)
    while True:
        Q, K, V = rng.normal(size=(4, 6)) * 40, rng.normal(size=(4, 6)) * 40, rng.normal(size=(4, 2))
        S = Q @ K.T / np.sqrt(6)
        visible, hidden = np.where(mask, S, -np.inf).max(-1), np.where(mask, -np.inf, S).max(-1)
        if visible.max() > 750 and np.max(hidden - visible) > 800:
            return Q, K, V, mask


def far_below(rng: np.random.Generator) -> tuple:
    """Q, K, V and the causal mask of 4 tokens where query 0's one visible score is below -1e5 and a masked one
    lies more than 1e6 above it: a mask that fills with -1e4, or adds -1e4, lets that key through; -inf does not."""
    u = rng.normal(size=3)
    u /= np.linalg.norm(u)
    Q, K = rng.normal(size=(4, 3)), 0.1 * rng.normal(size=(4, 3))
    Q[0] = 1000 * u
    K[0] += -rng.uniform(300, 400) * u  # q_0 . k_0 / sqrt(3) below -1.7e5
    K[1] += rng.uniform(2000, 3000) * u  # q_0 . k_1 / sqrt(3) above 1.1e6
    return Q, K, rng.normal(size=(4, 2)), reference_mask(4)


def close_and_large(rng: np.random.Generator) -> tuple:
    """Q, K and V of 4 tokens whose queries and keys share one long direction: the scores are near 5000 and differ
    by a few, so that every weight counts, and Q and K rounded to float32 move them by about 1e-3."""
    shared = rng.normal(size=4)
    shared *= np.sqrt(2 * 5000) / np.linalg.norm(shared)  # |shared|^2 / sqrt(4) = 5000
    Q, K = (shared + 0.02 * rng.normal(size=(4, 4)) for _ in range(2))
    return Q, K, rng.normal(size=(4, 3)), None


def multi_head_cases(rng: np.random.Generator) -> list[Case]:
    def inputs(n, d, h, lead=()):
        x = rng.normal(size=(*lead, n, d))
        return (x, *(rng.normal(size=(d, d)) / np.sqrt(d) for _ in range(4)), h)

    return [
        Case(inputs(4, 8, 2)),
        Case(inputs(5, 8, 1), about="one head"),
        Case(inputs(3, 8, 4), about="four heads of width 2"),
        Case(inputs(6, 12, 4)),
        Case(inputs(1, 4, 2), about="one token"),
        Case(inputs(4, 6, 2, lead=(3,)), about="a batch of 3 sequences"),
        Case(tuple(a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in inputs(5, 8, 2)), tol=1e-5),
    ]


def reference_attention(Q, K, V, mask=None):
    mask = None if mask is None else np.asarray(mask, dtype=bool)
    return scaled_dot_product_attention(np.asarray(Q, dtype=float), np.asarray(K, dtype=float), V, mask)[0]


def reference_mha(X, W_Q, W_K, W_V, W_O, n_heads):
    X = np.asarray(X, dtype=np.float64)
    return reference_multi_head(X, W_Q, W_K, W_V, W_O, n_heads, mask=reference_mask(X.shape[-2]))[0]


check = Checks(
    "attention",
    {
        "score_1_0": HandNumber(
            "cd326bebeef1ed67c770f326",
            slips={
                "e7c4511f8c9fe85c5f52b8d1": "that is q_0 . k_1: token 0 looking at token 1, the other way round",
                "7d06cf1b9def5d9a864089e7": "that is the scaled score; the raw score is asked for",
            },
        ),
        "causal_mask": FunctionCheck(("n",), mask_cases, reference_mask, own=OWN, verify=boolean),
        "attention": FunctionCheck(
            ("Q", "K", "V", "mask"), attention_cases, reference_attention, tol=1e-6, rtol=1e-6, own=OWN
        ),
        "prediction": Choice(("own value", "average")),
        "multi_head_attention": FunctionCheck(
            ("X", "W_Q", "W_K", "W_V", "W_O", "n_heads"), multi_head_cases, reference_mha, rtol=1e-6, own=OWN
        ),
    },
)
