r"""The Transformer of ``transformer_math.model`` (one block by default), its training loop and decoding, from one
import.

The code lives in three modules, split by job as nanoGPT splits ``model.py``, ``train.py`` and
``sample.py``:

* ``transformer_math.model`` -- the parameters, the forward pass $Z = \operatorname{LN}_f(X_2)\, W_U$
  and the backward pass by hand (``init_params``, ``forward``, ``backward``, ``cross_entropy_backward``,
  ``layer_norm_backward``, ``loss_and_grads``);
* ``transformer_math.train`` -- windows of a token stream and AdamW steps on
  $\nabla_\theta L$ (``make_windows``, ``make_optimizer``, ``train``);
* ``transformer_math.sample`` -- $p = \operatorname{softmax}(z / \tau)$, truncated by top-$k$ or top-$p$,
  and decoding (``sampling_distribution``, ``sample_token``, ``generate``).

This module re-exports every one of those names, so ``from transformer_math.transformer import forward``
keeps working.

Example
-------
>>> import numpy as np
>>> from transformer_math.transformer import forward, generate, init_params
>>> params = init_params(vocab_size=5, d_model=8, d_ff=16, seed=0)
>>> logits, cache = forward(params, np.array([0, 1, 2, 3]), n_heads=2)
>>> logits.shape, len(generate(params, [0, 1], n_new=3, n_heads=2))
((4, 5), 5)
"""

from __future__ import annotations

from transformer_math.model import (  # LN_EPS, PARAM_NAMES, weight_grad: importable from here as before the split
    LN_EPS,  # noqa: F401
    PARAM_NAMES,  # noqa: F401
    backward,
    cross_entropy_backward,
    forward,
    init_params,
    layer_norm_backward,
    loss_and_grads,
    weight_grad,  # noqa: F401
)
from transformer_math.sample import generate, sample_token, sampling_distribution
from transformer_math.train import make_optimizer, make_windows, train

__all__ = [
    "init_params",
    "forward",
    "backward",
    "cross_entropy_backward",
    "layer_norm_backward",
    "loss_and_grads",
    "make_windows",
    "make_optimizer",
    "train",
    "sampling_distribution",
    "sample_token",
    "generate",
]
