"""The checks of the model's inputs: its parameters, tokens, options, caches and backward inputs.

Kept apart from ``transformer_math.model`` so that the model reads as its formulas. The parameters are
inputs like any other: every entry is checked (present, known, a float array of the model's one dtype and of
the shape the others imply, finite), and an error names the entry, as ``params['h1.W_Q']``. The public
functions check once, then run the unchecked kernels (``train`` checks before its first step, not at each).

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
import re

import numpy as np

from transformer_math.block import ACTIVATIONS, BLOCK_NAMES, FFN_NAMES, LN_NAMES, prefix
from transformer_math.checks import check_choice, check_in_range, check_integer, check_no_nan, float_array, token_ids

__all__: list[str] = []  # checks only: the model functions raise what they find

BLOCK_KEY = re.compile(r"h([1-9][0-9]*)\.(.+)")


def expected_names(params, tie_embeddings: bool) -> list[str]:
    """The entries a model like ``params`` has: its blocks (the highest ``h{l}.`` named), each with a feed-forward
    layer if any block has one, LayerNorms if any entry is one, ``W_U`` unless tied, ``W_P`` if present."""
    layers = 1 + max((int(m.group(1)) for m in map(BLOCK_KEY.fullmatch, params) if m), default=0)
    has_ffn = any(name.split(".")[-1] in FFN_NAMES[2:] for name in params)
    has_ln = any(name.split(".")[-1] in LN_NAMES + ("lnf_g", "lnf_b") for name in params)
    block = [n for n in BLOCK_NAMES if (has_ffn or n not in FFN_NAMES) and (has_ln or n not in LN_NAMES)]
    names = ["W_E"] + [prefix(layer) + n for layer in range(layers) for n in block]
    names += (["lnf_g", "lnf_b"] if has_ln else []) + ([] if tie_embeddings else ["W_U"])
    return names + (["W_P"] if "W_P" in params else [])


def expected_shapes(params, names) -> dict[str, tuple[int, ...]]:
    """The shape each entry must have, given ``W_E``'s (V, d), each block's ``W_1``'s d_ff and ``W_P``'s n_ctx."""
    vocab, d = params["W_E"].shape
    n_ctx = params["W_P"].shape[0] if "W_P" in params and params["W_P"].ndim else 0
    top = {"W_E": (vocab, d), "lnf_g": (d,), "lnf_b": (d,), "W_U": (d, vocab), "W_P": (n_ctx, d)}
    shapes = {}
    for name in names:
        block, _, last = name.rpartition(".")  # "h1", ".", "W_Q"; or "", "", "W_Q" in block 0
        if name in top:
            shapes[name] = top[name]
            continue
        w_1 = params.get(f"{block}.W_1" if block else "W_1")
        d_ff = w_1.shape[-1] if isinstance(w_1, np.ndarray) and w_1.ndim == 2 else 0
        shapes[name] = {"W_1": (d, d_ff), "b_1": (d_ff,), "W_2": (d_ff, d)}.get(
            last, (d, d) if last[0] == "W" else (d,)
        )
    return shapes


def check_params(params, tie_embeddings=False) -> np.dtype:
    """The one float dtype of ``params``, after checking every entry as an input: present, known, a float array
    of one dtype and of the shape the model implies, finite. Errors name the entry: ``params['h1.W_Q']``."""
    if not isinstance(params, dict):
        raise TypeError(f"params must be a dict of arrays made by init_params, got {type(params).__name__}")
    if not isinstance(tie_embeddings, bool):
        raise TypeError(f"tie_embeddings must be True or False, got {tie_embeddings!r}")
    if "W_E" not in params:
        raise ValueError("params lacks params['W_E'] (the embeddings); make it with init_params")
    names = expected_names(params, tie_embeddings)
    unknown = [name for name in params if name not in names]
    if unknown == ["W_U"] and tie_embeddings:
        raise ValueError("tie_embeddings=True, but params has its own W_U; W_E.T is the output projection")
    if unknown:
        raise ValueError(
            f"params has {', '.join(f'params[{n!r}]' for n in unknown)}, which a model made by init_params does not "
            f"have (its entries: {', '.join(names)})"
        )
    missing = [name for name in names if name not in params]
    if missing:
        hint = " (or pass tie_embeddings=True)" if missing == ["W_U"] else ""
        raise ValueError(f"params lacks {', '.join(f'params[{n!r}]' for n in missing)}; make it with init_params{hint}")
    for name in names:
        p = params[name]
        if not isinstance(p, np.ndarray) or not np.issubdtype(p.dtype, np.floating):
            kind = f"dtype {p.dtype}" if isinstance(p, np.ndarray) else type(p).__name__
            raise TypeError(
                f"params[{name!r}] must be a NumPy float array (float16, float32 or float64), as init_params makes "
                f"it, got {kind}; gradients of integer parameters would be rounded"
            )
    dtypes = {params[name].dtype for name in names}
    if len(dtypes) != 1:
        first = {str(params[name].dtype): name for name in reversed(names)}
        raise TypeError(
            f"params must all have one float dtype, got {', '.join(f'params[{n!r}] {t}' for t, n in sorted(first.items()))}"
        )
    if params["W_E"].ndim != 2 or params["W_E"].size == 0:
        raise ValueError(f"params['W_E'] must have shape (vocab_size, d_model), got {params['W_E'].shape}")
    for name, shape in expected_shapes(params, names).items():
        if params[name].shape != shape:
            raise ValueError(f"params[{name!r}] must have shape {shape} to fit params['W_E'], got {params[name].shape}")
    for name in names:
        check_no_nan(params[name], f"params[{name!r}]", finite=True)
    return dtypes.pop()


def model_signature(params) -> dict[str, tuple]:
    """Each entry's shape and dtype: what a cache records of the model it was made for."""
    return {name: (p.shape, p.dtype.str) for name, p in params.items()}


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
    """Every argument of ``init_params``, checked: the sizes as ints, and the factor on W_O and W_2."""
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
    """``dlogits`` as a finite array of the parameters' dtype, shaped like the logits of ``cache``, after checking
    that ``cache`` is what ``forward`` returned for a model of ``params``' shapes."""
    if not isinstance(cache, dict) or "z" not in cache or "model" not in cache:
        raise TypeError(f"cache must be the dict that forward returns, got {type(cache).__name__}")
    dtype = check_params(params, cache["tie_embeddings"])
    check_cache_belongs(cache, params, "forward")
    dlogits = float_array(dlogits, "dlogits")
    shape = cache["z"].shape[:-1] + params["W_E"].shape[:1]
    if dlogits.shape != shape:
        raise ValueError(f"dlogits must be shaped like the logits, {shape}, got {dlogits.shape}")
    check_no_nan(dlogits, "dlogits", finite=True)
    if dlogits.dtype != dtype:
        raise TypeError(f"dlogits has dtype {dlogits.dtype}, but the parameters have dtype {dtype}")
    return dlogits


def check_cache_belongs(cache, params, made_by: str) -> None:
    """A ``cache`` made by ``made_by`` for a model of other entries, shapes or dtype is refused, naming the first."""
    recorded, actual = cache["model"], model_signature(params)
    if recorded == actual:
        return
    name = next(n for n in sorted(set(recorded) | set(actual)) if recorded.get(n) != actual.get(n))
    was = "no such entry" if name not in recorded else f"shape {recorded[name][0]}, dtype {np.dtype(recorded[name][1])}"
    now = "no such entry" if name not in actual else f"shape {actual[name][0]}, dtype {np.dtype(actual[name][1])}"
    raise ValueError(
        f"cache was made by {made_by} for another model: its params[{name!r}] had {was}, this one has {now}"
    )
