"""Benchmark: one training step and the whole training run of Part IV's tiny Transformer.

Run it with ``python benchmarks/bench_training.py`` (add ``--docs`` to also time ``pytest docs/part-4``).
It measures exactly the run of ``docs/part-4/training.md``: six windows of eight tokens, a vocabulary of
five, ``d_model = 8``, two heads, ``d_ff = 32``, 300 AdamW steps. Targets: the training run under 10 s and
the doc tests of Part IV under 30 s, both on 2 CPU cores. It is a report, not a timed test: timings depend
on the machine (and on whatever else it is running).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from transformer_math.optim import AdamW
from transformer_math.transformer import forward, init_params, loss_and_grads, make_windows, train

ROOT = Path(__file__).resolve().parent.parent
VOCAB = ["the", "cat", "sat", "on", "mat"]
TEXT = "the cat sat on the mat the cat sat on the mat the cat"
STEPS = 300
REPEATS = 5
RUN_TARGET = 10.0
DOCS_TARGET = 30.0


def data():
    stream = [VOCAB.index(word) for word in TEXT.split()]
    return make_windows(stream, seq_len=8)


def median_step_seconds(inputs, targets, n=200):
    """Median time of forward, backward and AdamW update, and of the forward pass alone."""
    params = init_params(vocab_size=5, d_model=8, d_ff=32, seed=0)
    names = list(params)
    optimizer = AdamW([params[name] for name in names], lr=0.01)
    steps, forwards = [], []
    for _ in range(n):
        start = time.perf_counter()
        forward(params, inputs, n_heads=2)
        forwards.append(time.perf_counter() - start)
        start = time.perf_counter()
        _, grads = loss_and_grads(params, inputs, targets, n_heads=2)
        optimizer.step([grads[name] for name in names])
        steps.append(time.perf_counter() - start)
    return statistics.median(steps), statistics.median(forwards)


def training_runs(inputs, targets):
    times, final = [], None
    for _ in range(REPEATS):
        params = init_params(vocab_size=5, d_model=8, d_ff=32, seed=0)
        start = time.perf_counter()
        losses = train(params, inputs, targets, n_heads=2, steps=STEPS, lr=0.01)
        times.append(time.perf_counter() - start)
        final = losses[-1]
    return times, final


def docs_seconds():
    start = time.perf_counter()
    result = subprocess.run([sys.executable, "-m", "pytest", "docs/part-4", "-q", "-p", "no:cacheprovider"],
                            cwd=ROOT, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    summary = result.stdout.strip().splitlines()[-1] if result.stdout.strip() else result.stderr.strip()[-200:]
    return elapsed, summary


def main() -> int:
    inputs, targets = data()
    print(f"Part IV training benchmark  (NumPy {np.__version__}, {os.cpu_count()} CPUs visible)")
    print(f"data: {inputs.shape[0]} windows x {inputs.shape[1]} tokens; model: V=5, d=8, h=2, d_ff=32, 936 parameters")
    step, fwd = median_step_seconds(inputs, targets)
    print(f"forward pass               median {fwd * 1e3:7.3f} ms")
    print(f"one training step          median {step * 1e3:7.3f} ms  (forward + backward + AdamW)")
    times, final = training_runs(inputs, targets)
    worst = max(times)
    print(f"training run ({STEPS} steps)   median {statistics.median(times):7.3f} s, "
          f"slowest {worst:.3f} s of {REPEATS}; final loss {final:.4f}")
    ok = worst < RUN_TARGET
    print(f"  target < {RUN_TARGET:.0f} s: {'met' if ok else 'MISSED'}")
    if "--docs" in sys.argv:
        elapsed, summary = docs_seconds()
        docs_ok = elapsed < DOCS_TARGET
        print(f"pytest docs/part-4         {elapsed:7.2f} s  ({summary})")
        print(f"  target < {DOCS_TARGET:.0f} s: {'met' if docs_ok else 'MISSED'}")
        ok = ok and docs_ok
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
