"""Everything docs/part-4/decoding.md draws or includes: what one new token costs, with and without the KV cache,
measured when the site is built."""

from __future__ import annotations

import functools
import time

import numpy as np
from matplotlib.figure import Figure

from tools.figures import figure
from transformer_math.kv_cache import forward_cached, kv_cache
from transformer_math.model import forward, init_params


@functools.cache  # both themes draw the same measurement: time once per build
# --8<-- [start:decoding-times]
def decoding_times(lengths=(16, 32, 64, 128, 256, 512, 1024), repeat=7):
    """Milliseconds to decode the last of n tokens, for each n of ``lengths``: the whole sequence through
    ``forward``, or the one new row through ``forward_cached`` with the n - 1 earlier tokens in the cache.
    Each the fastest of ``repeat`` runs (the least disturbed by whatever else the machine does)."""
    params = init_params(vocab_size=65, d_model=64, d_ff=256, seed=0, n_layers=2)
    tokens = np.random.default_rng(0).integers(0, 65, size=max(lengths))
    without, with_cache = [], []
    for n in lengths:
        full, one = [], []
        for _ in range(repeat):
            start = time.perf_counter()
            forward(params, tokens[:n], n_heads=4)
            full.append(time.perf_counter() - start)
            cache = kv_cache(params, max_len=n)
            forward_cached(params, tokens[: n - 1], 4, cache)  # the n - 1 earlier tokens, not timed
            start = time.perf_counter()
            forward_cached(params, tokens[n - 1 : n], 4, cache)
            one.append(time.perf_counter() - start)
        without.append(1e3 * min(full))
        with_cache.append(1e3 * min(one))
    return list(lengths), without, with_cache


# --8<-- [end:decoding-times]


@figure("kv-cache-times")
# --8<-- [start:kv-cache-times]
def kv_cache_times() -> Figure:
    """Time per new token against the length n of the text, with and without the cache, on logarithmic axes."""
    lengths, without, with_cache = decoding_times()
    fig = Figure(figsize=(7, 3.8))
    ax = fig.subplots()
    ax.plot(lengths, without, "o-", color="C1", label="whole sequence again (forward)")
    ax.plot(lengths, with_cache, "s-", color="C0", label="one new row (forward_cached)")
    ratio = without[-1] / with_cache[-1]  # at the longest context
    ax.annotate(f"{ratio:.0f}× faster at n = {lengths[-1]}", (lengths[-1], with_cache[-1]), xytext=(-8, 10),
                textcoords="offset points", ha="right", fontsize=9)  # fmt: skip
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("n, the tokens so far")
    ax.set_ylabel("milliseconds per new token")
    ax.set_title("2 blocks, d = 64, d_ff = 256, 4 heads, float64: measured when this page was built", fontsize=10)
    ax.legend(fontsize=9, loc="upper left")
    return fig


# --8<-- [end:kv-cache-times]
