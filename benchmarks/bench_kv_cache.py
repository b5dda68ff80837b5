#!/usr/bin/env python3
"""The cost of one new token, with and without the KV cache, as the context grows (issue 38, item 4).

    .venv/bin/python benchmarks/bench_kv_cache.py [--repeat 15] [--out benchmarks/kv_cache.json]

For each context length n it times, as the median of ``--repeat`` runs, what decoding token n costs:

* without the cache, ``forward`` over all n tokens (what ``generate`` does by default);
* with the cache, ``forward_cached`` of the one new token, the cache holding the n - 1 before it.

The model is two blocks, d = 64, d_ff = 256, 4 heads, 65 tokens, in float64. The results, with the machine they
were measured on, go to ``benchmarks/kv_cache.json``, which the page part-4/modern.md prints: its table is what
this script measured, never typed. Run it again to measure your machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path
from statistics import median

import numpy as np

from transformer_math.model import forward, init_params
from transformer_math.modern import forward_cached, kv_cache

HERE = Path(__file__).resolve().parent
LENGTHS = [16, 32, 64, 128, 256, 512, 1024]


def measure(repeat: int) -> dict:
    params = init_params(65, 64, 256, seed=0, n_layers=2)
    tokens = np.random.default_rng(0).integers(0, 65, size=max(LENGTHS))
    rows = []
    for n in LENGTHS:
        without, with_cache = [], []
        for _ in range(repeat):
            start = time.perf_counter()
            forward(params, tokens[:n], n_heads=4)
            without.append(time.perf_counter() - start)
            cache = kv_cache(params, max_len=n)
            forward_cached(params, tokens[: n - 1], 4, cache)  # the n - 1 tokens before, not timed
            start = time.perf_counter()
            forward_cached(params, tokens[n - 1 : n], 4, cache)
            with_cache.append(time.perf_counter() - start)
        rows.append({"n": n, "without_ms": 1e3 * median(without), "with_ms": 1e3 * median(with_cache)})
        print(f"n = {n:4d}: without the cache {rows[-1]['without_ms']:8.3f} ms, with it {rows[-1]['with_ms']:7.3f} ms")
    machine = (
        f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, NumPy {np.__version__}"
    )
    return {"model": "2 blocks, d = 64, d_ff = 256, 4 heads, V = 65, float64", "machine": machine, "rows": rows}


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--out", type=Path, default=HERE / "kv_cache.json")
    args = parser.parse_args()
    result = measure(args.repeat)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"written to {args.out}")
