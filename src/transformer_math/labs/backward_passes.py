r"""The checks of the lab "Backward passes" (``docs/labs/backward-passes.py``).

* ``grad_by_hand`` -- the gradient of one position's cross entropy for logits worked out by hand (a hash).
* ``ce_backward`` -- $\partial L / \partial Z$ of the mean cross entropy over every position: one position, a
  sequence, a batch; logits of spread 2000; lists and float32; to 1e-12 + 1e-10 of the value, which finite
  differences of the log-sum-exp alone, in shifted coordinates, miss.
* ``prediction`` -- what each row of that gradient sums to.
* ``layer_norm_backward`` -- $\bar x$, $\bar\gamma$, $\bar\beta$ of LayerNorm from an upstream gradient that is
  not 1: widths 2 to 16, a batch, and a batch of heads (the gains' gradients summed over every token, however many
  axes lead), a spread where $\varepsilon$ matters, float32.
* ``attention_backward`` -- $\bar Q$, $\bar K$, $\bar V$ of masked attention: fewer queries than keys,
  $d_k \ne d_v$, no mask, the causal mask, scattered masks, heads and a batch in front, and masked scores far
  above the allowed ones, which a finite mask added to the scores leaves weight.

``ce_backward`` and ``layer_norm_backward`` run within a budget of Python steps (a closed form takes tens) that
a difference for each entry exceeds, and each has a wide case (``WIDE_CE``, ``WIDE_LN``) with a
work budget (``timing``): a gradient measured one entry at a time, however vectorised, or a d×d Jacobian per token
takes a hundred times the closed form's time there.

The references: the library's ``cross_entropy_backward`` and
``layer_norm_backward``, and ``_attention_backward`` here (private: no answer to import), which
``tests/pages/test_lab_values.py`` checks against finite differences. ``numerical_gradient``,
``gradient_check`` and the library's backward passes are refused to the learner's code; the notebook imports
``numerical_gradient`` from here, so that the one it shows is refused too, and each check has a case where
finite differences of any step lose the gradient in the rounding of a large loss (a learner's own finite
differences fail there). ``attention_backward`` has two: values near 1e7 (what they share passes no gradient to
Q or K), and weights near one-hot with values 1e8 apart, which centring the values does not undo. (``dV`` is
linear in V, so a finite difference of a large step measures it exactly: no case can refuse that, and the
exercise's work is in ``dQ`` and ``dK``.)

Example
-------
>>> import numpy as np
>>> from transformer_math.labs.backward_passes import check
>>> def ce_backward(Z, y):        # the gradient of one position, not of the mean
...     Z = np.asarray(Z, dtype=float)
...     e = np.exp(Z - Z.max(axis=-1, keepdims=True))
...     return e / e.sum(axis=-1, keepdims=True) - np.eye(Z.shape[-1])[y]
>>> check("ce_backward", ce_backward)
Wrong: ce_backward - case 2 of 13: Z of shape (4, 5), float64, from -2.9 to 1.5, y = [3, 3, 3, 0] (four positions)
  the largest error is 6.9e-01, at index (2, 3) (tolerance 1e-12 + 1e-10 of the value)
"""

from __future__ import annotations

import numpy as np

from transformer_math.attention import scaled_dot_product_attention
from transformer_math.block import layer_norm_backward as reference_ln_backward
from transformer_math.calculus import numerical_gradient
from transformer_math.labs.answers import Choice
from transformer_math.labs.attention import far_masked_keys, scattered_mask
from transformer_math.labs.cases import Case
from transformer_math.labs.hand import HandNumber
from transformer_math.labs.runner import Checks, FunctionCheck
from transformer_math.labs.timing import TimeLimit
from transformer_math.model import cross_entropy_backward

__all__ = ["check", "numerical_gradient"]

OWN = ("transformer_math.",)
# Python steps a case of ce_backward or layer_norm_backward may run: the closed forms take tens, a loop over the
# tokens a few hundred; a difference of the loss for each entry (in float64, or in wide integers) takes thousands.
CLOSED_FORM = 2_000
# The wide cases, where a gradient measured one entry at a time (any formula, any precision, vectorised or not)
# costs a forward pass per entry: N V^2 or N d^2 work, hundreds of times the closed form's N V or N d (timing.py).
# Their sizes keep a d×d Jacobian of every token at once near 300 MB; a measurement is stopped soon after its time is up.
WIDE_CE = (12, 1024)
WIDE_CE_OPTIONS = {
    "about": "a wide case: within a work budget",
    "time_limit": TimeLimit(
        "a gradient measured one entry at a time costs a forward pass per entry, N·V² work in all; "
        "the closed form does O(N·V)"
    ),
}
# ce_backward's tolerance: the closed form errs by about 1e-16, the best finite difference in float64 by 1e-10 or
# more, even of the log-sum-exp alone in shifted coordinates.
WIDE_LN = (4, 2048)
WIDE_LN_OPTIONS = {
    "about": "a wide case: within a work budget",
    "time_limit": TimeLimit(
        "a gradient measured one entry at a time, or a d×d matrix per token, costs d² work per token; "
        "write it in O(d) work per token"
    ),
}


def ce_cases(rng: np.random.Generator) -> list[Case]:
    return [
        Case((rng.normal(size=4), 2), about="one position"),
        Case((rng.normal(size=(4, 5)), rng.integers(0, 5, size=4)), about="four positions"),
        Case((rng.normal(size=(2, 3, 6)), rng.integers(0, 6, size=(2, 3))), about="a batch of 2 sequences"),
        Case(spread_of_2000(rng), about="a spread of about 2000", fresh=True),
        Case((rng.normal(size=(1, 7)), np.array([6])), about="one position of 7"),
        Case((rng.normal(size=(3, 2)).tolist(), [1, 0, 1]), about="lists"),
        Case(((rng.normal(size=(3, 4)) * 5).astype(np.float32), rng.integers(0, 4, size=3)), tol=1e-6),
        Case((rng.normal(size=(8, 3)), np.zeros(8, dtype=int)), about="eight positions, one target"),
        Case(
            large_loss(rng),
            about="a loss of 2e9 to 2e10: finite differences lose the gradient in its rounding",
            fresh=True,
        ),
        Case((rng.normal(size=WIDE_CE), rng.integers(0, WIDE_CE[1], size=WIDE_CE[0])), **WIDE_CE_OPTIONS, fresh=True),
        # N counts every position, however many axes lead: a count of the first two alone passes the cases above
        Case((rng.normal(size=(2, 2, 3, 4)), rng.integers(0, 4, size=(2, 2, 3))), about="three leading axes"),
        Case(near_1000(rng), about="logits near 1000, a few apart", fresh=True),
    ]


def near_1000(rng: np.random.Generator) -> tuple:
    """Two positions whose large logits are a few apart: e^z overflows, and clipping z (to 80 or 700) makes them
    equal where the row maximum keeps them apart."""
    rows = np.round(rng.uniform(900, 1100, size=(2, 1)) + rng.uniform(0, 3, size=(2, 3)), 2)
    rows[:, 0] -= 1000  # one logit of each row far below
    return rows, rng.integers(0, 3, size=2)


# The cases a naive answer fails are drawn anew at every run (``Case.fresh``): no table made before the run holds
# them, so a naive answer behind a table of the others fails.
def spread_of_2000(rng: np.random.Generator) -> tuple:
    """Two positions: logits from -s to s, s from 800 to 1200 (e^s overflows), and three equal ones."""
    s = round(float(rng.uniform(800, 1200)), 1)
    first = rng.permutation([s, round(float(rng.uniform(-5, 5)), 1), -s])
    return np.array([first, np.zeros(3)]), rng.integers(0, 3, size=2)


def large_loss(rng: np.random.Generator) -> tuple:
    """Two positions, the first with a logit of 3e9 to 3e10 that is not its target: a loss of 2e9 to 2e10."""
    first = rng.permutation([10 ** rng.uniform(9.5, 10.5), 0.0, round(float(rng.uniform(-5, 5)), 1)])
    return np.array([first, np.round(rng.normal(size=3), 1)]), np.array([int(np.argmin(first)), rng.integers(0, 3)])


def reference_ce(Z, y):
    return cross_entropy_backward(np.asarray(Z, dtype=float), np.asarray(y))


def ln_cases(rng: np.random.Generator) -> list[Case]:
    def case(shape, spread=1.0, **kw):
        d = shape[-1]
        x = rng.normal(size=shape) * spread + rng.normal()
        return Case((rng.normal(size=shape), x, 1 + 0.3 * rng.normal(size=d)), **kw)

    return [
        case((3, 6), about="three tokens"),
        case((1, 4), about="one token"),
        case((2, 3, 5), about="a batch: dgamma and dbeta sum over every token"),
        case((2, 2, 3, 4), about="a batch of heads, two axes before the tokens: dgamma and dbeta sum over all three"),
        case((4, 2), about="d = 2"),
        case((3, 8), spread=1e-3, about="a spread of 1e-3: eps matters", fresh=True),
        case((2, 16), spread=20.0, about="a spread of 20"),
        Case(
            tuple(
                a.astype(np.float32)
                for a in (rng.normal(size=(3, 8)), rng.normal(size=(3, 8)), 1 + 0.3 * rng.normal(size=8))
            ),
            tol=1e-5,
        ),
        along_the_token(rng),
        case(WIDE_LN, **WIDE_LN_OPTIONS, fresh=True),
    ]


def along_the_token(rng: np.random.Generator) -> Case:
    """An upstream gradient of 10^6 along the normalised token itself, which LayerNorm cancels up to eps: the loss
    is large, the gradient of x small, and finite differences lose it in the rounding of the loss."""
    x, gamma, eps = rng.normal(size=(3, 6)), 1 + 0.3 * rng.normal(size=6), 1e-12
    x_hat = (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(x.var(axis=-1, keepdims=True) + eps)
    dy = 1e6 * x_hat / gamma + rng.normal(size=x.shape)
    return Case(
        (dy, x, gamma),
        {"eps": eps},
        about="dy of 1e6 along each token, eps = 1e-12: beyond finite differences",
        fresh=True,
    )


def reference_ln(dy, x, gamma, eps=1e-5):
    return reference_ln_backward(np.asarray(dy, dtype=float), np.asarray(x, dtype=float), gamma, eps)


def _attention_backward(dO, Q, K, V, mask=None):
    r"""The reference: the weights $P$ of the library's attention, $\bar P = \bar O V^\top$,
    $\bar S = P \odot (\bar P - \operatorname{rowsum}(P \odot \bar P)) / \sqrt{d_k}$, then $\bar Q = \bar S K$,
    $\bar K = \bar S^\top Q$ and $\bar V = P^\top \bar O$, for any leading axes. Built on the library's forward, it is
    no answer's twin: a copy of it calls the library, and an answer written the natural way shares too little of it
    to be taken for a copy (``fingerprint``)."""
    Q, K, V, dO = (np.asarray(a, dtype=float) for a in (Q, K, V, dO))
    _, P = scaled_dot_product_attention(Q, K, V, None if mask is None else np.asarray(mask, dtype=bool))
    dP = dO @ np.swapaxes(V, -1, -2)
    dS = P * (dP - np.sum(P * dP, axis=-1, keepdims=True)) / np.sqrt(Q.shape[-1])
    return dS @ K, np.swapaxes(dS, -1, -2) @ Q, np.swapaxes(P, -1, -2) @ dO


def attention_cases(rng: np.random.Generator) -> list[Case]:
    def args(n_q, n_k, d_k, d_v, lead=()):
        return (
            rng.normal(size=(*lead, n_q, d_v)),
            rng.normal(size=(*lead, n_q, d_k)),
            rng.normal(size=(*lead, n_k, d_k)),
            rng.normal(size=(*lead, n_k, d_v)),
        )

    causal = np.tril(np.ones((4, 4), dtype=bool))
    return [
        Case((*args(4, 4, 3, 2), causal), about="the causal mask"),
        Case((*args(3, 3, 2, 2), None), about="no mask"),
        Case((*args(2, 5, 4, 3), scattered_mask(rng, 2, 5)), about="fewer queries than keys, a scattered mask"),
        Case((*args(4, 4, 1, 4), causal), about="d_k = 1"),
        Case((*args(4, 4, 2, 3, lead=(2, 2)), causal), about="a batch of 2, 2 heads each"),
        Case((*args(1, 1, 3, 2), None), about="one query, one key"),
        Case((*(a.astype(np.float32) for a in args(4, 4, 4, 2)), causal), tol=1e-5),
        offset_values(rng, causal),
        decisive_weights(rng),
        Case(overflowing_scores(rng, causal), about="scores past 700: e^710 is inf", fresh=True),
        masked_far_above(rng),
    ]


def masked_far_above(rng: np.random.Generator) -> Case:
    """Masked keys whose scores are 1e10 to 1e13 above the allowed ones (``attention.far_masked_keys``): a mask
    added to the scores, of any size short of that, leaves them weight. The queries stay near 1e2, so that dK, a
    product with Q, keeps the tolerance of the scores' rounding (the far keys meet dS = 0)."""
    Q, K, mask = far_masked_keys(rng, (1.5, 2.5), (9.5, 10.5))
    args = (rng.normal(size=(4, 3)), Q, K, rng.normal(size=(6, 3)), mask)
    return Case(args, about="masked scores 1e10 above the allowed: a finite mask added leaves them weight", fresh=True)


def overflowing_scores(rng: np.random.Generator, mask: np.ndarray) -> tuple:
    """dO, Q, K, V and the causal mask of 4 tokens, with scores of about a thousand and one that a query sees past
    750: e^x of it is inf, and a softmax that does not subtract its row's maximum gives nan (drawn again until so)."""
    while True:
        Q, K = rng.normal(size=(4, 6)) * 40, rng.normal(size=(4, 6)) * 40
        if np.max(np.where(mask, Q @ K.T / np.sqrt(6), -np.inf)) > 750:
            return rng.normal(size=(4, 2)), Q, K, rng.normal(size=(4, 2)), mask


def offset_values(rng: np.random.Generator, mask: np.ndarray) -> Case:
    """Values near 10^7: what they share passes no gradient to Q or K (each row of weights sums to 1), but it
    makes the loss large, and finite differences lose the gradients in its rounding."""
    dO, Q, K, V = rng.normal(size=(4, 2)), rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), rng.normal(size=(4, 2))
    return Case((dO, Q, K, V + 1e7, mask), about="values near 1e7: beyond finite differences", fresh=True)


def decisive_weights(rng: np.random.Generator) -> Case:
    """A batch of 2, 2 heads each, where every query meets one key with a score 9 to 20 above the others (its
    weights within 1e-4 of one-hot) and the values differ by about 1e8 from key to key. The loss is near 1e8, the
    gradients of Q and K of order 1 to 1e4 (the weights barely move), and finite differences lose them in the
    rounding of the loss at any step, with the values centred or not: what is large is how the values differ,
    not what they share. Exact gradients use a few percent of the tolerance (1e-6 + 1e-6 of the value)."""
    n, d_k, d_v = 4, 4, 2
    Q, K = np.empty((2, 2, n, d_k)), np.empty((2, 2, n, d_k))
    for b in range(2):
        for h in range(2):
            turn = np.linalg.qr(rng.normal(size=(d_k, d_k)))[0]  # orthonormal rows: one key per query stands out
            K[b, h] = 6 * turn + 0.5 * rng.normal(size=(n, d_k))
            Q[b, h] = 6 * turn[rng.permutation(n)] + 0.5 * rng.normal(size=(n, d_k))
    V, dO = 1e8 * rng.normal(size=(2, 2, n, d_v)), rng.normal(size=(2, 2, n, d_v))
    about = "weights near one-hot, values 1e8 apart: beyond finite differences, with the values centred or not"
    return Case((dO, Q, K, V, None), about=about, tol=1e-6, fresh=True)


check = Checks(
    "backward-passes",
    {
        "grad_by_hand": HandNumber(
            "9b5d143600c441cab0dd6258",
            size=3,
            slips={
                "140ebaa251a6de9c28c1b962": "those are the probabilities alone; the loss also depends on the target",
                "d2bbc2b9bfe5969ceece39da": "the signs are flipped: the target's logit should go up, so its gradient is negative",
                "d81738daf0ab50ebf6ccf53d": "the 1 is subtracted at position 1; the target is token 0",
            },
        ),
        "ce_backward": FunctionCheck(
            ("Z", "y"),
            ce_cases,
            reference_ce,
            tol=1e-12,
            rtol=1e-10,
            own=OWN,
            derived=True,
            budget=CLOSED_FORM,
            advice="a loop over the entries? Write it with whole-array operations on Z, with no loop: the softmax "
            "of every row at once, the one-hot of y, the division by N; it then takes the same few steps at any size",
        ),
        "prediction": Choice(("0", "1", "1/n")),
        "layer_norm_backward": FunctionCheck(
            ("dy", "x", "gamma"),
            ln_cases,
            reference_ln,
            tol=1e-8,
            rtol=1e-6,
            parts=("dx", "dgamma", "dbeta"),
            own=OWN,
            derived=True,
            budget=CLOSED_FORM,
            advice="a loop over the entries? Write it with whole-array operations along the last axis (a mean over "
            "each token's features), with no loop; it then takes the same few steps at any size",
        ),
        "attention_backward": FunctionCheck(
            ("dO", "Q", "K", "V", "mask"),
            attention_cases,
            _attention_backward,
            tol=1e-8,
            rtol=1e-6,
            parts=("dQ", "dK", "dV"),
            own=OWN,
            derived=True,
        ),
    },
)
