"""Benchmark: transformer_math's softmax and log_softmax against SciPy's, in time and in memory.

Run it with ``python benchmarks/bench_softmax.py``. It times both implementations in the same run on a
(64, 128, 1024) float64 array -- a batch of 64 sequences of 128 positions over a 1024-token vocabulary,
64 MiB -- and reports the median of several repeats, the ratio to SciPy (target: at most 1.5x), and
the peak memory allocated on top of the input, in input-sized arrays (target: at most 3).
It is a report, not a timed test: timings depend on the machine.
"""

from __future__ import annotations

import statistics
import time
import tracemalloc

import numpy as np
import scipy.special

from transformer_math.softmax import log_softmax, softmax

SHAPE = (64, 128, 1024)
REPEATS = 9
TIME_TARGET = 1.5
MEMORY_TARGET = 3.0


def median_seconds(fn, x: np.ndarray) -> float:
    fn(x)  # warm up: first-touch page faults, lazy imports
    times = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        fn(x)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def peak_extra_arrays(fn, x: np.ndarray) -> float:
    """Peak memory allocated while ``fn(x)`` runs (the result included), in units of ``x.nbytes``."""
    tracemalloc.start()
    tracemalloc.reset_peak()
    result = fn(x)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del result
    return peak / x.nbytes


def main() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(scale=4.0, size=SHAPE)
    x_before = x.copy()
    print(f"input: shape {SHAPE}, float64, {x.nbytes / 2**20:.0f} MiB; median of {REPEATS} repeats\n")
    pairs = [
        ("softmax", softmax, scipy.special.softmax),
        ("log_softmax", log_softmax, scipy.special.log_softmax),
    ]
    header = f"{'function':<12} {'ours (ms)':>10} {'SciPy (ms)':>11} {'ratio':>6} {'ours mem':>9} {'SciPy mem':>10}"
    print(header)
    print("-" * len(header))
    ok = True
    for name, ours, theirs in pairs:
        assert np.allclose(ours(x), theirs(x, axis=-1), rtol=1e-12, atol=0), f"{name} disagrees with SciPy"
        t_ours = median_seconds(ours, x)
        t_scipy = median_seconds(lambda a: theirs(a, axis=-1), x)
        m_ours = peak_extra_arrays(ours, x)
        m_scipy = peak_extra_arrays(lambda a: theirs(a, axis=-1), x)
        ratio = t_ours / t_scipy
        ok &= ratio <= TIME_TARGET and m_ours <= MEMORY_TARGET
        print(f"{name:<12} {t_ours * 1e3:>10.1f} {t_scipy * 1e3:>11.1f} {ratio:>5.2f}x {m_ours:>8.2f}x {m_scipy:>9.2f}x")
    assert np.array_equal(x, x_before), "the input was modified"
    print(f"\nmemory is the peak allocated during one call, result included, in input-sized arrays ({x.nbytes / 2**20:.0f} MiB)")
    print(f"targets: time ratio <= {TIME_TARGET}x SciPy, memory <= {MEMORY_TARGET:g} input-sized arrays: "
          + ("met" if ok else "NOT met"))


if __name__ == "__main__":
    main()
