r"""Models for the labs' hidden cases: the library's parameters, with every gain, shift and bias drawn.

A freshly initialised model has gains of 1 and shifts and biases of 0, so a LayerNorm that forgets
$\gamma$ or $\beta$, or a feed-forward layer that forgets $b_1$, gives the right numbers on it.
``drawn_model`` draws them instead (gains near 1, shifts and biases near 0), and everything else as the
library's ``init_params`` does, under the library's names: block 0's arrays
``W_Q``, ``ln1_g``, ..., block $l \geq 1$'s ``h{l}.W_Q``, ...

Example
-------
>>> from transformer_math.labs.cases import generator
>>> from transformer_math.labs.models import drawn_model
>>> params = drawn_model(generator("demo"), vocab=5, d=8, d_ff=16, n_layers=2)
>>> sorted(name for name in params if name.startswith("h1.W"))
['h1.W_1', 'h1.W_2', 'h1.W_K', 'h1.W_O', 'h1.W_Q', 'h1.W_V']
"""

from __future__ import annotations

import numpy as np

from transformer_math.block import BLOCK_NAMES, prefix
from transformer_math.model import init_params

__all__: list[str] = []


def drawn_block(rng: np.random.Generator, d: int, d_ff: int) -> dict[str, np.ndarray]:
    """One block's arrays under the one-block names, with drawn gains, shifts and biases."""
    params = drawn_model(rng, vocab=2, d=d, d_ff=d_ff, n_layers=1)
    return {name: params[name] for name in BLOCK_NAMES}


def drawn_model(
    rng: np.random.Generator,
    vocab: int,
    d: int,
    d_ff: int,
    n_layers: int = 1,
    positions: str = "sinusoidal",
    n_ctx=None,
) -> dict[str, np.ndarray]:
    """The library's parameters of a model, with gains ``1 + 0.2 N(0, 1)`` and shifts and biases ``0.1 N(0, 1)``."""
    params = init_params(
        vocab, d, d_ff, seed=int(rng.integers(2**31)), n_layers=n_layers, positions=positions, n_ctx=n_ctx
    )
    for layer in range(n_layers):
        for name in ("ln1_g", "ln2_g"):
            params[prefix(layer) + name] = 1 + 0.2 * rng.normal(size=d)
        for name in ("ln1_b", "ln2_b", "b_1", "b_2"):
            params[prefix(layer) + name] = 0.1 * rng.normal(size=params[prefix(layer) + name].shape)
    params["lnf_g"], params["lnf_b"] = 1 + 0.2 * rng.normal(size=d), 0.1 * rng.normal(size=d)
    return params


def shift_cancelled(rng: np.random.Generator, params: dict[str, np.ndarray], layer: int = 0) -> dict:
    """``params`` with block ``layer``'s second LayerNorm shifted by about 1e4 in every feature, and ``b_1`` taking
    that shift's part of the feed-forward layer's pre-activations away: they stay of size 1, but float32 keeps
    them only to about 1e-3 (float64 to about 1e-12)."""
    params, name = dict(params), prefix(layer)
    shift = rng.uniform(0.5, 1.5, size=params[name + "ln2_b"].shape) * 1e4
    params[name + "ln2_b"] = params[name + "ln2_b"] + shift
    params[name + "b_1"] = params[name + "b_1"] - shift @ params[name + "W_1"]
    return params


def gpt_model(rng: np.random.Generator, vocab: int, d: int, n_layers: int, n_ctx: int = 12) -> dict[str, np.ndarray]:
    """The capstone's GPT: learned positions, a feed-forward layer twice the width."""
    return drawn_model(rng, vocab, d, 2 * d, n_layers=n_layers, positions="learned", n_ctx=n_ctx)
