r"""The checks of the lab "The Transformer block" (``docs/labs/transformer-block.py``).

* ``layer_norm`` -- each token's features brought to mean 0 and mean square 1 (the notebook states this goal, not
  the formula), then $\gamma$ and $\beta$: one token, a
  sequence or a batch; widths 2 to 16; a constant token, a token of tiny spread where $\varepsilon$ matters, a
  token near $10^8$ (where $E[x^2] - \mu^2$ loses the variance), another $\varepsilon$ (these four drawn anew at
  every run); lists and float32.
* ``feed_forward`` -- $\operatorname{ReLU}(CW_1 + b_1)W_2 + b_2$ on every token; tokens near $10^4$ whose offset
  $b_1$ cancels, where float32 loses the pre-activations (drawn anew at every run).
* ``transformer_block`` -- the pre-LN block, written after diagnosing a wired-wrong one with the notebook's
  probe: 1, 2 and 4 heads, a batch, a shift of $\mathrm{LN}_2$ near $10^4$ that $b_1$ cancels (drawn anew at every
  run; float32 loses the feed-forward layer's input there, as in ``forward_pass``).
* ``prediction`` -- whether two sentences that start alike get the same first row of logits.
* ``forward_pass`` -- tokens to logits through $L = 1, 2, 3$ and 12 blocks (counted from the model's keys, taken
  in the order of their numbers), one sequence or a batch.

The references are the library's ``layer_norm``,
``block_forward`` and ``forward``, on models whose
gains, shifts and biases are drawn (``models``).

Example
-------
>>> import numpy as np
>>> from transformer_math.labs.transformer_block import check
>>> def layer_norm(x, gamma, beta, eps=1e-5):    # the mean and variance of the whole array
...     return gamma * (x - np.mean(x)) / np.sqrt(np.var(x) + eps) + beta
>>> check("layer_norm", layer_norm)
Wrong: layer_norm - case 2 of 11: x of shape (4, 8), float64, from -3.3 to 6.1, gamma of shape (8,), float64, from 0.58 to 1.5, beta of shape (8,), float64, from -0.12 to 0.11 (four tokens)
  the largest error is 8.5e-01, at index (3, 4) (tolerance 1e-06 + 1e-06 of the value)
"""

from __future__ import annotations

import numpy as np

from transformer_math.block import block_forward
from transformer_math.labs.answers import Choice
from transformer_math.labs.cases import Case
from transformer_math.labs.models import drawn_block, drawn_model, shift_cancelled
from transformer_math.labs.runner import Checks, FunctionCheck
from transformer_math.model import forward
from transformer_math.stats import layer_norm as reference_layer_norm

__all__ = ["check"]

OWN = ("transformer_math.stats.", "transformer_math.block.", "transformer_math.model.", "transformer_math.attention.")


def layer_norm_cases(rng: np.random.Generator) -> list[Case]:
    def gb(d):
        return 1 + 0.3 * rng.normal(size=d), 0.1 * rng.normal(size=d)

    # The tokens where the variance is 0, where eps matters or where E[x^2] - mean^2 cancels, and another eps, are
    # drawn anew at every run.
    return [
        Case((rng.normal(size=6) * 2 + 1, *gb(6)), about="one token"),
        Case((rng.normal(size=(4, 8)) * 2 + 1, *gb(8)), about="four tokens"),
        Case((rng.normal(size=(2, 3, 5)), *gb(5)), about="a batch of sequences"),
        Case((constant_tokens(rng), *gb(4)), about="constant tokens: the variance is 0", fresh=True),
        Case((rng.normal(size=(3, 6)) * 1e-3, *gb(6)), about="a spread of 1e-3: eps matters", fresh=True),
        Case(
            (1e8 + rng.normal(size=(2, 16)), *gb(16)),
            about=(
                "features near 1e8, spread 1: the variance as mean(x^2) - mean(x)^2 cancels to nothing here,"
                " subtract the mean first"
            ),
            fresh=True,
        ),
        Case((rng.normal(size=(3, 2)), *gb(2)), about="d = 2"),
        Case(
            (rng.normal(size=(2, 5)), *gb(5)),
            {"eps": round(float(rng.uniform(0.2, 1.0)), 2)},
            about="another eps",
            fresh=True,
        ),
        Case(tuple(a.tolist() for a in (rng.normal(size=(2, 3)), *gb(3))), about="lists"),
        Case(tuple(a.astype(np.float32) for a in (rng.normal(size=(3, 8)) * 4, *gb(8))), tol=1e-5),
    ]


def constant_tokens(rng: np.random.Generator) -> np.ndarray:
    """One to three tokens of 4 features, every feature the same number."""
    return np.full((int(rng.integers(1, 4)), 4), round(float(rng.uniform(-5, 5)), 1))


def reference_ln(x, gamma, beta, eps=1e-5):
    return reference_layer_norm(np.asarray(x, dtype=float), gamma, beta, eps=eps)


def ffn_cases(rng: np.random.Generator) -> list[Case]:
    def weights(d, d_ff):
        return (
            rng.normal(size=(d, d_ff)) / np.sqrt(d),
            0.3 * rng.normal(size=d_ff),
            rng.normal(size=(d_ff, d)) / np.sqrt(d_ff),
            0.3 * rng.normal(size=d),
        )

    return [
        Case((rng.normal(size=(4, 8)), *weights(8, 16))),
        Case((rng.normal(size=6), *weights(6, 24)), about="one token"),
        Case((rng.normal(size=(2, 3, 4)), *weights(4, 8)), about="a batch"),
        Case((rng.normal(size=(5, 3)), *weights(3, 2)), about="d_ff smaller than d"),
        Case(tuple(a.astype(np.float32) for a in (rng.normal(size=(3, 8)), *weights(8, 32))), tol=1e-5),
        Case((rng.normal(size=(3, 5)), *weights(5, 5)), about="d_ff equal to d: square weights"),
        Case(
            cancelling_offset(rng, weights(6, 12)),
            about="tokens near 1e4 whose offset b_1 cancels: float32 keeps C W_1 + b_1 to about 1e-3",
            fresh=True,
        ),
    ]


def cancelling_offset(rng: np.random.Generator, weights: tuple) -> tuple:
    """Tokens that share an offset of about 1e4, and a b_1 that takes the offset's part of C W_1 away: the
    pre-activations are of size 1 (some below 0), what float32 rounding of C leaves of them is off by about 1e-3,
    float64's by about 1e-12."""
    W_1, b_1, W_2, b_2 = weights
    offset = rng.uniform(0.5, 1.5, size=W_1.shape[0]) * 1e4
    return (offset + rng.normal(size=(4, W_1.shape[0])), W_1, b_1 - offset @ W_1, W_2, b_2)


def reference_ffn(C, W_1, b_1, W_2, b_2):
    return np.maximum(np.asarray(C, dtype=float) @ W_1 + b_1, 0.0) @ W_2 + b_2


def block_cases(rng: np.random.Generator) -> list[Case]:
    return [
        Case((rng.normal(size=(4, 8)), drawn_block(rng, 8, 16), 2)),
        Case((rng.normal(size=(5, 8)), drawn_block(rng, 8, 32), 1), about="one head"),
        Case((rng.normal(size=(3, 8)), drawn_block(rng, 8, 16), 4), about="four heads"),
        Case((rng.normal(size=(1, 4)), drawn_block(rng, 4, 8), 2), about="one token"),
        Case((rng.normal(size=(2, 4, 6)), drawn_block(rng, 6, 12), 2), about="a batch of 2"),
        Case((rng.normal(size=(4, 8)), shift_cancelled(rng, drawn_block(rng, 8, 16)), 2), about=SHIFT, fresh=True),
    ]


SHIFT = "LN_2's shift near 1e4, which b_1 cancels: float32 keeps the feed-forward layer's pre-activations to about 1e-3"


def reference_block(x, p, n_heads):
    return block_forward(p, np.asarray(x, dtype=float), n_heads)[0]


def forward_cases(rng: np.random.Generator) -> list[Case]:
    return [
        Case((drawn_model(rng, 5, 8, 16), np.array([0, 1, 2, 3]), 2), about="one block"),
        Case((drawn_model(rng, 7, 8, 16, n_layers=2), np.array([3, 1, 4, 1, 5]), 2), about="two blocks"),
        Case((drawn_model(rng, 6, 12, 24, n_layers=3), rng.integers(0, 6, size=6), 4), about="three blocks, 4 heads"),
        Case((drawn_model(rng, 4, 4, 8, n_layers=2), [2, 0], 1), about="a list of tokens, one head"),
        Case((drawn_model(rng, 9, 8, 16, n_layers=2), rng.integers(0, 9, size=(3, 5)), 2), about="a batch of 3"),
        # h10. sorts before h2. as text: blocks taken in the keys' sorted order fail only past ten blocks
        Case((drawn_model(rng, 5, 4, 8, n_layers=12), rng.integers(0, 5, size=3), 1), about="twelve blocks"),
        Case(
            (shift_cancelled(rng, drawn_model(rng, 6, 8, 16)), rng.integers(0, 6, size=4), 2), about=SHIFT, fresh=True
        ),
    ]


def reference_forward(params, tokens, n_heads):
    return forward(params, np.asarray(tokens), n_heads)[0]


check = Checks(
    "transformer-block",
    {
        "layer_norm": FunctionCheck(("x", "gamma", "beta"), layer_norm_cases, reference_ln, rtol=1e-6, own=OWN),
        "feed_forward": FunctionCheck(("C", "W_1", "b_1", "W_2", "b_2"), ffn_cases, reference_ffn, rtol=1e-6, own=OWN),
        "transformer_block": FunctionCheck(("x", "p", "n_heads"), block_cases, reference_block, rtol=1e-6, own=OWN),
        "prediction": Choice(("same", "different")),
        "forward_pass": FunctionCheck(
            ("params", "tokens", "n_heads"), forward_cases, reference_forward, rtol=1e-6, own=OWN
        ),
    },
)
