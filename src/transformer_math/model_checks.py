"""The checks of the model's inputs: its parameters, tokens, options and backward inputs.

Kept apart from :mod:`transformer_math.model` so that the model reads as its formulas; each check raises
``ValueError`` or ``TypeError`` naming the argument and what it got.

Example
-------
>>> import numpy as np
>>> from transformer_math.model import init_params
>>> from transformer_math.model_checks import check_model_inputs
>>> tokens, n_heads = check_model_inputs(init_params(vocab_size=5, d_model=8, d_ff=16), [0, 1, 2], n_heads=2)
>>> tokens, n_heads
(array([0, 1, 2]), 2)
"""

from __future__ import annotations

import math

import numpy as np

from transformer_math.block import ACTIVATIONS, block_names, n_layers_of, prefix
from transformer_math.checks import check_choice, check_in_range, check_integer, check_no_nan, float_array, token_ids

__all__: list[str] = []  # checks only: the model functions raise what they find


def check_params(params, tie_embeddings=False) -> np.dtype:
    """The one float dtype of ``params``, after checking it has every array of :func:`init_params`."""
    if not isinstance(params, dict):
        raise TypeError(f"params must be a dict of arrays made by init_params, got {type(params).__name__}")
    if not isinstance(tie_embeddings, bool):
        raise TypeError(f"tie_embeddings must be True or False, got {tie_embeddings!r}")
    names = ["W_E"] + [prefix(i) + n for i in range(n_layers_of(params)) for n in block_names(params, i)]
    names += (["lnf_g", "lnf_b"] if "ln1_g" in params else []) + ([] if tie_embeddings else ["W_U"])
    missing = [name for name in names if name not in params]
    if missing:
        hint = " (or pass tie_embeddings=True)" if missing == ["W_U"] else ""
        raise ValueError(f"params lacks {', '.join(missing)}; make it with init_params{hint}")
    if tie_embeddings and "W_U" in params:
        raise ValueError("tie_embeddings=True, but params has its own W_U; W_E.T is the output projection")
    names += ["W_P"] if "W_P" in params else []
    arrays = {name: float_array(params[name], f"params[{name!r}]") for name in names}
    dtypes = {a.dtype for a in arrays.values()}
    if len(dtypes) != 1:
        raise TypeError(f"params must all have one float dtype, got {', '.join(sorted(map(str, dtypes)))}")
    if arrays["W_E"].ndim != 2 or arrays["W_E"].size == 0:
        raise ValueError(f"params['W_E'] must have shape (vocab_size, d_model), got {arrays['W_E'].shape}")
    return dtypes.pop()


def check_model_inputs(
    params, tokens, n_heads, activation="relu", tie_embeddings=False, residual=True
) -> tuple[np.ndarray, int]:
    """``tokens`` as ids of shape ``(n,)`` or ``(batch, n)`` and ``n_heads`` as a divisor of ``d``."""
    check_params(params, tie_embeddings)
    vocab_size, d = params["W_E"].shape
    tokens = token_ids(tokens, "tokens", vocab_size, item="token")
    if tokens.ndim not in (1, 2) or tokens.shape[-1] == 0 or tokens.size == 0:
        raise ValueError(f"tokens must have shape (n,) or (batch, n) with n >= 1, got shape {tokens.shape}")
    n_heads = check_integer(n_heads, "n_heads", minimum=1)
    if d % n_heads != 0:
        raise ValueError(f"d_model = {d} is not divisible by n_heads = {n_heads}")
    check_choice(activation, "activation", ACTIVATIONS)
    if not isinstance(residual, bool):
        raise TypeError(f"residual must be True or False, got {residual!r}")
    if "W_P" in params and tokens.shape[-1] > len(params["W_P"]):
        raise ValueError(f"tokens has {tokens.shape[-1]} positions, more than the {len(params['W_P'])} of W_P (n_ctx)")
    return tokens, n_heads


def check_init_options(vocab_size, d_model, d_ff, seed, output_scale, n_layers, scale, positions, n_ctx, tie, ln):
    """Every argument of :func:`init_params`, checked: the sizes as ints, and the factor on W_O and W_2."""
    sizes = [check_integer(v, name, minimum=1) for v, name in ((vocab_size, "vocab_size"), (d_model, "d_model"))]
    sizes += [check_integer(d_ff, "d_ff", minimum=0), check_integer(n_layers, "n_layers", minimum=1)]
    check_integer(seed, "seed")
    check_in_range(output_scale, "output_scale", 0.0)
    if check_choice(positions, "positions", ("sinusoidal", "learned")) == "learned":
        n_ctx = check_integer(n_ctx, "n_ctx", minimum=1)
    elif n_ctx is not None:
        raise ValueError("n_ctx is the length of learned positions; pass positions='learned' with it")
    for value, name in ((tie, "tie_embeddings"), (ln, "layer_norm")):
        if not isinstance(value, bool):
            raise TypeError(f"{name} must be True or False, got {value!r}")
    if tie and output_scale != 1.0:
        raise ValueError(f"output_scale must be 1 with tie_embeddings=True (W_U is W_E.T), got {output_scale!r}")
    if scale is not None and not isinstance(scale, bool):
        raise TypeError(f"scale_residual must be True, False or None, got {scale!r}")
    scaled = sizes[3] > 1 if scale is None else scale  # None: GPT-2's scaling for a deeper model only
    return (*sizes, n_ctx, 1.0 / math.sqrt(2 * sizes[3]) if scaled else 1.0)


def check_backward_inputs(params, cache, dlogits) -> np.ndarray:
    """``dlogits`` as a finite array of the parameters' dtype, shaped like the logits of ``cache``."""
    if not isinstance(cache, dict) or "z" not in cache or "n_heads" not in cache:
        raise TypeError(f"cache must be the dict that forward returns, got {type(cache).__name__}")
    dtype = check_params(params, cache["tie_embeddings"])
    dlogits = float_array(dlogits, "dlogits")
    shape = cache["z"].shape[:-1] + params["W_E"].shape[:1]
    if dlogits.shape != shape:
        raise ValueError(f"dlogits must be shaped like the logits, {shape}, got {dlogits.shape}")
    check_no_nan(dlogits, "dlogits", finite=True)
    if dlogits.dtype != dtype:
        raise TypeError(f"dlogits has dtype {dlogits.dtype}, but the parameters have dtype {dtype}")
    return dlogits
