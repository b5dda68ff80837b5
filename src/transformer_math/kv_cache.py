r"""The KV cache: decode one new token at a time, keeping every block's keys and values.

For a text of $n$ tokens, running the whole text again computes $n$ rows through every matrix and $n^2$
attention scores, though the causal mask leaves every row but the last exactly as it was the step before.
The last row needs only the *keys and values* of the rows before it, never their queries; kept per block,
one row more per token ($k$, $v$ the new token's),

$$K \leftarrow \begin{pmatrix} K \\ k \end{pmatrix}, \qquad V \leftarrow \begin{pmatrix} V \\ v \end{pmatrix},$$

a new token costs one row through the matrices and $n$ scores. This is how models are run, GPT-2's own code
included (its ``past`` and ``present``); it changes no weight and, in exact arithmetic, no output (in floating point,
none beyond rounding), only the work.
``generate`` uses it with ``kv_cache=True``.

Example
-------
>>> from transformer_math.model import init_params
>>> from transformer_math.kv_cache import forward_cached, kv_cache
>>> params = init_params(vocab_size=5, d_model=8, d_ff=16, n_layers=2)
>>> cache = kv_cache(params, max_len=4)
>>> forward_cached(params, [0, 1, 2], 2, cache).shape   # the prompt: 3 rows of logits
(3, 5)
>>> forward_cached(params, [3], 2, cache).shape         # then one token: one row, the 3 before it cached
(1, 5)
"""

from __future__ import annotations

import numpy as np

from transformer_math.attention import _attention, _merge_heads, _split_heads, positional_encoding
from transformer_math.block import activate, block_params, norm
from transformer_math.checks import check_integer
from transformer_math.model import check_model_inputs, n_layers_of
from transformer_math.model_checks import check_cache_belongs, check_params, model_signature

__all__ = ["kv_cache", "forward_cached"]


# --8<-- [start:kv_cache]
def kv_cache(params, max_len):
    """An empty cache of keys and values for a model of ``params``, for at most ``max_len`` tokens."""
    check_params(params, "W_U" not in params)
    max_len = check_integer(max_len, "max_len", minimum=1)
    if "W_P" in params and max_len > len(params["W_P"]):
        raise ValueError(f"max_len = {max_len} is longer than the n_ctx = {len(params['W_P'])} positions of W_P")
    layers = n_layers_of(params)
    return {
        "keys": [None] * layers,
        "values": [None] * layers,
        "max_len": max_len,
        "n_heads": None,
        "model": model_signature(params),
    }  # what the cache belongs to, checked at each use


# --8<-- [end:kv_cache]


def check_cache(cache, params, n_new, n_heads) -> int:
    """The number of tokens ``cache`` already holds, after checking it belongs to this model and these heads,
    and that ``n_new`` more fit in it."""
    if not isinstance(cache, dict) or not {"keys", "values", "max_len", "n_heads", "model"} <= set(cache):
        raise TypeError(f"cache must be made by kv_cache(params, max_len), got {type(cache).__name__}")
    check_cache_belongs(cache, params, "kv_cache")
    if cache["n_heads"] not in (None, n_heads):
        raise ValueError(f"cache holds the keys of {cache['n_heads']} heads, but n_heads = {n_heads}")
    start = 0 if cache["keys"][0] is None else cache["keys"][0].shape[-2]
    if start + n_new > cache["max_len"]:
        raise ValueError(
            f"the cache holds {start} tokens and {n_new} more would make {start + n_new}, longer than "
            f"its max_len = {cache['max_len']} (the context)"
        )
    return start


# --8<-- [start:forward_cached]
def forward_cached(params, tokens, n_heads, cache, activation="relu", tie_embeddings=False):
    r"""Logits of ``tokens`` (shape ``(m,)``), the continuation of the tokens whose keys and values ``cache`` holds.

    The same blocks as ``forward``, for the $m$ new rows only: each block
    appends their keys and values to the cache, and their queries attend to every key so far. A new token
    costs about $2 n d$ multiply-adds in attention instead of the $2 n^2 d$ of running the whole sequence again.

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.model import forward, init_params
    >>> from transformer_math.kv_cache import forward_cached, kv_cache
    >>> params = init_params(vocab_size=5, d_model=8, d_ff=16, n_layers=2)
    >>> cache = kv_cache(params, max_len=4)
    >>> first = forward_cached(params, [0, 1, 2], 2, cache)   # the prompt, in one pass
    >>> last = forward_cached(params, [3], 2, cache)          # then one token, one row
    >>> full, _ = forward(params, np.array([0, 1, 2, 3]), 2)
    >>> bool(np.allclose(np.vstack([first, last]), full, rtol=1e-12, atol=1e-12))
    True
    """
    tokens, n_heads = check_model_inputs(params, tokens, n_heads, activation, tie_embeddings)
    if tokens.ndim != 1:
        raise ValueError(f"forward_cached takes one sequence, tokens of shape (m,), got shape {tokens.shape}")
    check_cache(cache, params, len(tokens), n_heads)
    return _forward_cached(params, tokens, n_heads, cache, activation, tie_embeddings)


def _forward_cached(params, tokens, n_heads, cache, activation="relu", tie_embeddings=False):
    """``forward_cached`` without the checks."""
    start = 0 if cache["keys"][0] is None else cache["keys"][0].shape[-2]  # tokens already in the cache
    m, d = len(tokens), params["W_E"].shape[1]
    pe = params["W_P"] if "W_P" in params else positional_encoding(start + m, d, dtype=params["W_E"].dtype)
    x = params["W_E"][tokens] + pe[start : start + m]
    mask = np.arange(start + m)[None, :] <= np.arange(start, start + m)[:, None]  # row i sees keys 0 .. start + i
    cache["n_heads"] = n_heads
    for layer in range(n_layers_of(params)):
        P = block_params(params, layer)
        a = norm(P, "ln1", x)[0]
        q, k, v = (_split_heads(a @ P[w], n_heads) for w in ("W_Q", "W_K", "W_V"))  # (h, m, d_head)
        # keys and values of the earlier tokens, computed once; concatenating copies the n rows kept, O(n d) per
        # block and token: the order of attention's 2 n d, so the counts stand (an array of max_len rows filled
        # in place would copy only the new ones)
        if start:
            k = np.concatenate([cache["keys"][layer], k], axis=-2)
            v = np.concatenate([cache["values"][layer], v], axis=-2)
        cache["keys"][layer], cache["values"][layer] = k, v
        heads, _ = _attention(q, k, v, mask)  # (h, m, d_head): m rows, not start + m
        x = x + _merge_heads(heads) @ P["W_O"]
        if "W_1" in P:  # the feed-forward layer, when the block has one
            x = x + activate(norm(P, "ln2", x)[0] @ P["W_1"] + P["b_1"], activation)[0] @ P["W_2"] + P["b_2"]
    z = norm(params, "lnf", x)[0]
    return z @ (params["W_E"].T if tie_embeddings else params["W_U"])


# --8<-- [end:forward_cached]
