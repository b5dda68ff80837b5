r"""Decoding: the distribution of the next token, drawing from it, and generating text.

The model's last position gives logits $z$ for the next token; it is drawn from

$$p = \operatorname{softmax}(z / \tau),$$

optionally truncated to the $k$ most probable tokens (top-$k$) or to the fewest whose probabilities add
up to at least ``top_p`` (nucleus, top-$p$), and renormalised. $\tau \to 0$ puts all the probability on the largest logit
(greedy decoding). A logit of $-\infty$ is a masked token: it gets probability exactly 0.

Example
-------
>>> import numpy as np
>>> from transformer_math.sample import sampling_distribution
>>> print(sampling_distribution(np.array([1.0, 1.0, -np.inf])))
[0.5 0.5 0. ]
"""

from __future__ import annotations

import numpy as np

from transformer_math.checks import check_generator, check_in_range, check_integer, float_array, token_ids, wide
from transformer_math.kv_cache import _forward_cached
from transformer_math.kv_cache import kv_cache as new_kv_cache
from transformer_math.model import _forward, check_model_inputs, check_params
from transformer_math.softmax import _softmax, check_rows

__all__ = ["sampling_distribution", "sample_token", "generate"]


def check_sampling(logits, temperature, top_k, top_p) -> tuple[np.ndarray, float]:
    """``logits`` as a float vector that a softmax can normalise, and the options as numbers in range."""
    z = float_array(logits, "logits")
    if z.ndim != 1 or z.size == 0:
        raise ValueError(f"logits must be a non-empty vector of shape (V,), got shape {z.shape}")
    check_rows(z, np.max(z, keepdims=True), 0, "sampling_distribution", name="logits")  # NaN, +inf, all -inf
    temperature = check_in_range(temperature, "temperature", 0.0)  # 0 means greedy
    if top_k is not None and not 1 <= check_integer(top_k, "top_k") <= z.size:
        raise ValueError(f"top_k must be an integer in 1 .. {z.size} (the vocabulary), got {top_k!r}")
    if top_p is not None:
        check_in_range(top_p, "top_p", 0.0, 1.0, low_open=True, high_open=False)
    return z, temperature


# --8<-- [start:sampling_distribution]
def sampling_distribution(logits, temperature=1.0, top_k=None, top_p=None):
    r"""The distribution the next token is drawn from: $\operatorname{softmax}(z / \tau)$, optionally truncated.

    * ``temperature`` $\tau$: below 1 sharpens the distribution, above 1 flattens it; $\tau = 0$ is the
      limit $\tau \to 0$, all the probability on the largest logit (greedy decoding).
    * ``top_k``: keep only the $k$ most probable tokens.
    * ``top_p`` (nucleus sampling): keep the fewest most probable tokens whose probabilities add up to at
      least $p$.

    Whatever is kept is renormalised to sum to 1; the rest gets probability exactly 0.

    Parameters
    ----------
    logits : array_like
        Shape ``(V,)``, the scores of the next token.
    temperature : float, default 1.0
        $\tau \geq 0$.
    top_k : int, optional
        $1 \leq k \leq V$.
    top_p : float, optional
        $0 < p \leq 1$.

    Returns
    -------
    numpy.ndarray
        Shape ``(V,)``, non-negative, summing to 1.

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.sample import sampling_distribution
    >>> logits = np.array([2.0, 1.0, 0.0, -1.0])
    >>> print(sampling_distribution(logits).round(4))
    [0.6439 0.2369 0.0871 0.0321]
    >>> print(sampling_distribution(logits, top_k=2).round(4))       # the 2 largest, renormalised
    [0.7311 0.2689 0.     0.    ]
    >>> print(sampling_distribution(logits, top_p=0.85).round(4))    # 0.64 + 0.24 = 0.88 >= 0.85
    [0.7311 0.2689 0.     0.    ]
    """
    z, temperature = check_sampling(logits, temperature, top_k, top_p)
    return _sampling_distribution(z, temperature, top_k, top_p)


def _sampling_distribution(z, temperature=1.0, top_k=None, top_p=None):
    """``sampling_distribution`` without the checks: ``z`` a float vector whose maximum is finite."""
    if temperature == 0:  # the limit tau -> 0: all the probability on the largest logit (split between ties)
        return _softmax(np.where(z == z.max(), 0.0, -np.inf).astype(z.dtype))
    if top_k is not None:
        kept = np.argsort(-z, kind="stable")[: int(top_k)]  # the k largest (ties: the lower id)
        z = np.where(np.isin(np.arange(z.size), kept), z, -np.inf)
    p = _softmax(z, temperature=temperature)  # softmax(z / tau), stable for any tau > 0
    if top_p is not None:
        order = np.argsort(-p, kind="stable")
        ranked = wide(p[order])  # in float64: a float32 running sum can reach 1 before the last token
        before = np.cumsum(ranked) - ranked  # probability of the tokens ranked above each one
        p[order[before >= top_p * ranked.sum()]] = 0.0  # keep a token while those above hold less than top_p
        p = p / p.sum()
    return p


# --8<-- [end:sampling_distribution]


# --8<-- [start:sample_token]
def sample_token(logits, rng, temperature=1.0, top_k=None, top_p=None):
    r"""Draw one token id from ``sampling_distribution``; ``temperature=0`` takes the argmax, no draw.

    Parameters
    ----------
    logits : array_like
        Shape ``(V,)``.
    rng : numpy.random.Generator
        The source of randomness, e.g. ``np.random.default_rng(0)``: the same seed, the same tokens.
    temperature, top_k, top_p
        As in ``sampling_distribution``.

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.sample import sample_token
    >>> rng = np.random.default_rng(0)
    >>> logits = np.array([2.0, 1.0, 0.0, -1.0])
    >>> [sample_token(logits, rng) for _ in range(8)]
    [0, 0, 0, 0, 1, 2, 0, 1]
    >>> [sample_token(logits, rng, top_k=2) for _ in range(8)]   # only tokens 0 and 1 remain
    [0, 1, 1, 0, 1, 0, 0, 0]
    >>> sample_token(logits, rng, temperature=0)                  # greedy
    0
    """
    check_generator(rng, "rng")
    z, temperature = check_sampling(logits, temperature, top_k, top_p)
    return _sample_token(z, rng, temperature, top_k, top_p)


def _sample_token(z, rng, temperature=1.0, top_k=None, top_p=None):
    """``sample_token`` without the checks."""
    p = _sampling_distribution(z, temperature, top_k, top_p)
    if temperature == 0:
        return int(np.argmax(p))  # greedy uses no randomness: rng is left as it was (ties: the lower id)
    return int(rng.choice(p.size, p=p))


# --8<-- [end:sample_token]


def check_generate_inputs(params, prompt, n_new, n_heads, context, temperature, top_k, top_p, seed, options):
    """The prompt as a list of ids, ``n_new`` and ``context`` as ints, after checking every option once."""
    check_params(params, options[1])  # options: activation, tie_embeddings, kv_cache
    tokens = token_ids(prompt, "prompt", params["W_E"].shape[0], item="token") if np.size(prompt) else prompt
    if np.ndim(tokens) != 1 or np.size(tokens) == 0:
        raise ValueError(f"prompt must be a non-empty 1-D sequence of token ids, got {prompt!r}")
    n_new = check_integer(n_new, "n_new")
    if context is not None:
        context = check_integer(context, "context", minimum=1)
    if "W_P" in params:  # learned positions: at most n_ctx tokens in view, as nanoGPT crops to block_size
        n_ctx = len(params["W_P"])
        if context is not None and context > n_ctx:
            raise ValueError(f"context = {context} is longer than the n_ctx = {n_ctx} positions of W_P")
        context = n_ctx if context is None else context
    check_model_inputs(params, tokens[-context:] if context else tokens, n_heads, *options[:2])
    temperature = check_sampling(np.zeros(params["W_E"].shape[0]), temperature, top_k, top_p)[1]
    if (top_k is not None or top_p is not None) and temperature == 0:
        raise ValueError("top_k and top_p need temperature > 0; temperature = 0 is greedy decoding")
    check_integer(seed, "seed")
    if not isinstance(options[2], bool):
        raise TypeError(f"kv_cache must be True or False, got {options[2]!r}")
    if options[2] and context is not None and len(tokens) + n_new > context:
        raise ValueError(
            f"kv_cache=True keeps every token, so prompt + n_new = {len(tokens) + n_new} tokens must fit in "
            f"context = {context}; a cache longer than the context is refused (without it, the window slides)"
        )
    return [int(t) for t in tokens], n_new, context, temperature


# --8<-- [start:generate]
def generate(
    params,
    prompt,
    n_new,
    n_heads,
    context=None,
    temperature=0.0,
    top_k=None,
    top_p=None,
    seed=0,
    activation="relu",
    tie_embeddings=False,
    kv_cache=False,
):
    r"""Continue ``prompt`` by ``n_new`` tokens, each drawn by ``sample_token`` from the last position's logits.

    With the default ``temperature=0`` each new token is the most probable one (greedy decoding, no
    randomness); with ``temperature > 0`` it is sampled, optionally from the ``top_k`` or ``top_p``
    most probable tokens only, by ``np.random.default_rng(seed)``: the same seed gives the same text.
    The model only ever saw sequences of its training length, so ``context`` keeps just the last
    ``context`` tokens as its input: with learned positions it defaults to, and may not exceed, their
    ``n_ctx`` (the window slides); otherwise ``None`` reads the whole text.
    ``activation`` and ``tie_embeddings`` are the model's options, as in ``forward``.

    ``kv_cache=True`` runs the prompt once and then each new token alone, keeping every block's keys and
    values (``forward_cached``): the same tokens, with attention work per token
    that grows like the text's length $n$, not like $n^2$. The whole sequence must then fit in ``context``.

    Examples
    --------
    >>> from transformer_math.model import init_params
    >>> from transformer_math.sample import generate
    >>> params = init_params(vocab_size=3, d_model=8, d_ff=16)
    >>> len(generate(params, [0, 1], n_new=3, n_heads=2))
    5
    >>> a = generate(params, [0, 1], n_new=6, n_heads=2, temperature=1.0, seed=3)
    >>> a == generate(params, [0, 1], n_new=6, n_heads=2, temperature=1.0, seed=3)
    True
    >>> a == generate(params, [0, 1], n_new=6, n_heads=2, temperature=1.0, seed=3, kv_cache=True)
    True
    """
    tokens, n_new, context, temperature = check_generate_inputs(
        params, prompt, n_new, n_heads, context, temperature, top_k, top_p, seed, (activation, tie_embeddings, kv_cache)
    )
    rng = np.random.default_rng(seed)  # everything was checked above: the loop runs the unchecked kernels
    if kv_cache:
        cache = new_kv_cache(params, len(tokens) + n_new)
        logits = _forward_cached(params, np.array(tokens), n_heads, cache, activation, tie_embeddings)  # the prompt
        for i in range(n_new):
            tokens.append(_sample_token(logits[-1], rng, temperature, top_k, top_p))
            if i < n_new - 1:  # the new token alone: one row per block
                logits = _forward_cached(params, np.array(tokens[-1:]), n_heads, cache, activation, tie_embeddings)
        return tokens
    for _ in range(n_new):
        window = tokens if context is None else tokens[-context:]
        logits, _ = _forward(params, np.array(window), n_heads, activation, tie_embeddings)
        tokens.append(_sample_token(logits[-1], rng, temperature, top_k, top_p))
    return tokens


# --8<-- [end:generate]
