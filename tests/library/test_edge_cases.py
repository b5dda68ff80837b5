"""The model's functions at their edges: one table of cases, each named by what it checks.

Every case runs with warnings as errors (no RuntimeWarning may escape) and expects either an error, whose type
and message (naming the argument, and the entry of ``params``) it checks, or a value, which it checks against
what exact mathematics or PyTorch gives. The kinds: the parameters checked as inputs; caches that do not
belong; sampling at extreme temperatures and in float32; norms over rows of very different sizes; Adam in
float16; results past float16's range and overflowing intermediates.
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

from transformer_math.block import gelu_derivative, layer_norm_backward
from transformer_math.kv_cache import forward_cached, kv_cache
from transformer_math.model import backward, forward, init_params, loss_and_grads
from transformer_math.modern import apply_rope, rms_norm, swiglu
from transformer_math.optim import Adam, AdamW
from transformer_math.sample import generate, sampling_distribution
from transformer_math.stats import layer_norm
from transformer_math.train import train

TOKENS = np.array([[0, 1, 2, 3], [3, 2, 1, 0]])


def model(n_layers=2, **changes):
    """A small model whose entries ``changes`` replaces (a value of None deletes the entry)."""
    params = init_params(vocab_size=5, d_model=8, d_ff=16, n_layers=n_layers, seed=0)
    for name, value in changes.items():
        if value is None:
            del params[name]
        else:
            params[name] = value
    return params


def with_entry(name, index, value, **kw):
    params = model(**kw)
    params[name] = params[name].copy()
    params[name][index] = value
    return params


@dataclass(frozen=True)
class Raises:
    error: type
    message: str  # a regular expression the message must match


@dataclass(frozen=True)
class Case:
    checks: str  # what the case checks: its id
    call: Callable[[], object]
    expect: Raises | Callable[[object], None]


def equal(expected, rtol=0.0):
    def check(result):
        np.testing.assert_allclose(np.asarray(result, dtype=float), expected, rtol=rtol, atol=0)

    return check


def layer_norm_of_rows(x):
    """layer_norm of each row of x alone, in float64, each row scaled to at most 1 first (eps then negligible)."""
    return np.stack([layer_norm(row / np.max(np.abs(row)), eps=1e-5 / np.max(np.abs(row)) ** 2) for row in x])


def first_forward_cache(n_layers):
    return forward(model(n_layers), TOKENS, n_heads=2)[1]


def kv_cache_used_with(n_heads_first, n_heads_then):
    params = model()
    cache = kv_cache(params, 8)
    forward_cached(params, [0, 1], n_heads_first, cache)
    return forward_cached(params, [2], n_heads_then, cache)


def adam_step_in_float16(optimizer):
    rng = np.random.default_rng(0)
    params = [rng.normal(size=(4, 4)).astype(np.float16) for _ in range(16)]
    grads = [(rng.normal(size=(4, 4)) * 10.0 ** -rng.integers(0, 6)).astype(np.float16) for _ in range(16)]
    grads[0][:] = 0  # a parameter whose gradient has always been 0: its step is 0 / eps = 0
    optimizer(params, lr=1e-3).step(grads)
    return params


def all_finite_float16(params):
    assert all(p.dtype == np.float16 and np.all(np.isfinite(p)) for p in params)


def swiglu_of(x, w_gate, w_up, w_down):
    return swiglu(np.array([[x]]), np.array([[w_gate]]), np.array([[w_up]]), np.array([[w_down]]))


HUGE_ROW = np.array([[1.0, 2.0, 4.0], [1e300, -1e300, 5e299]])
CASES = [
    # --- the parameters, checked as every other input: errors name the entry --------------------------------
    Case(
        "a NaN in a block's weight is refused, naming the entry",
        lambda: forward(with_entry("h1.W_Q", (0, 3), np.nan), TOKENS, 2),
        Raises(ValueError, r"params\['h1.W_Q'\] contains NaN \(first at index \(0, 3\)"),
    ),
    Case(
        "an inf in W_U is refused, not a column of NaN logits",
        lambda: forward(with_entry("W_U", (2, 1), np.inf), TOKENS, 2),
        Raises(ValueError, r"params\['W_U'\] contains inf"),
    ),
    Case(
        "integer parameters are a TypeError naming the entry, not a missing dtype argument",
        lambda: forward({name: p.astype(int) for name, p in model().items()}, TOKENS, 2),
        Raises(TypeError, r"params\['W_E'\] must be a NumPy float array .* got dtype int64"),
    ),
    Case(
        "integer learned positions are refused, not trained into truncated gradients",
        lambda: loss_and_grads(
            {**init_params(5, 8, 16, positions="learned", n_ctx=4), "W_P": np.zeros((4, 8), dtype=int)},
            TOKENS,
            TOKENS,
            2,
        ),
        Raises(TypeError, r"params\['W_P'\] must be a NumPy float array"),
    ),
    Case(
        "parameters of two dtypes name both",
        lambda: forward(model(W_E=model()["W_E"].astype(np.float32)), TOKENS, 2),
        Raises(TypeError, r"one float dtype, got params\['W_E'\] float32, params\['ln1_g'\] float64"),
    ),
    Case(
        "a model missing its middle block is refused, not run as a shorter model",
        lambda: forward({n: p for n, p in model(3).items() if not n.startswith("h1.")}, TOKENS, 2),
        Raises(ValueError, r"params lacks params\['h1.ln1_g'\], .*params\['h1.b_2'\]; make it with init_params"),
    ),
    Case(
        "loss_and_grads names a missing entry, not a KeyError",
        lambda: loss_and_grads(model(**{"h1.W_2": None}), TOKENS, TOKENS, 2),
        Raises(ValueError, r"params lacks params\['h1.W_2'\]"),
    ),
    Case(
        "an unknown entry is refused by forward as by loss_and_grads",
        lambda: forward(model(W_X=np.zeros((8, 8))), TOKENS, 2),
        Raises(ValueError, r"params has params\['W_X'\], which a model made by init_params does not have"),
    ),
    Case(
        "a weight of the wrong shape names the entry and the shape it needs",
        lambda: forward(model(**{"h1.W_1": np.zeros((8, 12))}), TOKENS, 2),
        Raises(ValueError, r"params\['h1.b_1'\] must have shape \(12,\)"),
    ),
    Case(
        "generate checks the parameters before the first token",
        lambda: generate(with_entry("lnf_g", 0, np.nan), [0, 1], 3, n_heads=2),
        Raises(ValueError, r"params\['lnf_g'\] contains NaN"),
    ),
    Case(
        "train checks the parameters once, before the first step",
        lambda: train(with_entry("W_E", (1, 1), -np.inf), TOKENS, TOKENS, n_heads=2, steps=3),
        Raises(ValueError, r"params\['W_E'\] contains -inf"),
    ),
    Case(
        "train stops at the step whose loss is not finite, before its update",
        lambda: train(model(), TOKENS, TOKENS, n_heads=2, steps=5, lr=1e305),
        Raises(FloatingPointError, r"step \d: the (loss|gradient) is not finite .* not applied"),
    ),
    # --- caches that do not belong --------------------------------------------------------------------------
    Case(
        "backward with a cache from a model of another depth is refused",
        lambda: backward(model(1), first_forward_cache(2), np.zeros((2, 4, 5))),
        Raises(ValueError, r"cache was made by forward for another model: its params\['h1.W_1'\] had shape"),
    ),
    Case(
        "backward with a cache of None names the cache",
        lambda: backward(model(), None, np.zeros((2, 4, 5))),
        Raises(TypeError, r"cache must be the dict that forward returns, got NoneType"),
    ),
    Case(
        "a KV cache of None names the cache",
        lambda: forward_cached(model(), [0, 1], 2, None),
        Raises(TypeError, r"cache must be made by kv_cache\(params, max_len\), got NoneType"),
    ),
    Case(
        "a KV cache of a model of another depth is refused",
        lambda: forward_cached(model(1), [0, 1], 2, kv_cache(model(2), 8)),
        Raises(ValueError, r"cache was made by kv_cache for another model"),
    ),
    Case(
        "a KV cache filled with another number of heads is refused, not NumPy's concatenate message",
        lambda: kv_cache_used_with(2, 4),
        Raises(ValueError, r"cache holds the keys of 2 heads, but n_heads = 4"),
    ),
    # --- sampling at extreme temperatures and in float32 ----------------------------------------------------
    Case(
        "a temperature that rounds to 0 in float32 gives the greedy distribution, not NaN",
        lambda: sampling_distribution(np.array([1.0, 3.0, 2.0], dtype=np.float32), temperature=1e-46),
        equal([0.0, 1.0, 0.0]),
    ),
    Case(
        "a subnormal float64 temperature gives the greedy distribution, not NaN",
        lambda: sampling_distribution(np.array([1.0, 3.0, 2.0]), temperature=5e-324),
        equal([0.0, 1.0, 0.0]),
    ),
    Case(
        "a temperature past float32's range over float32 logits with a masked token is uniform over the rest",
        lambda: sampling_distribution(np.array([0.0, 1.0, -np.inf], dtype=np.float32), temperature=1e300),
        equal([0.5, 0.5, 0.0]),
    ),
    Case(
        "top_p = 1 over 50,257 equal float32 logits gives every token its share",
        lambda: sampling_distribution(np.zeros(50257, dtype=np.float32), top_p=1.0),
        equal(np.full(50257, 1 / 50257), rtol=1e-6),
    ),
    Case(
        "top_p = 0.5 over 50,257 equal float32 logits keeps exactly half of them, rounded up",
        lambda: np.count_nonzero(sampling_distribution(np.zeros(50257, dtype=np.float32), top_p=0.5)),
        equal(25129),
    ),
    # --- norms over rows of very different sizes: each row at its own scale ---------------------------------
    Case(
        "layer_norm of an ordinary row beside a huge one is that of the row alone",
        lambda: layer_norm(HUGE_ROW),
        equal(np.stack([layer_norm(HUGE_ROW[0]), layer_norm(HUGE_ROW[1] / 1e300, eps=0.0)]), 1e-12),  # eps: 1e-605
    ),
    Case(
        "layer_norm in float32 of an ordinary row beside one of 1e30",
        lambda: layer_norm(np.array([[1, 2, 4], [1e30, -1e30, 5e29]], dtype=np.float32)),
        equal(layer_norm_of_rows(np.array([[1, 2, 4], [1e30, -1e30, 5e29]])), 2e-6),
    ),
    Case(
        "layer_norm of a zero row beside a huge one is 0, not NaN",
        lambda: layer_norm(np.array([[0.0, 0.0, 0.0], [1e300, -1e300, 0.0]]))[0],
        equal([0.0, 0.0, 0.0]),
    ),
    Case(
        "layer_norm_backward of an ordinary row beside a huge one is that of the row alone",
        lambda: layer_norm_backward(np.array([[1.0, -2.0, 0.5]] * 2), HUGE_ROW, np.ones(3))[0][0],
        equal(layer_norm_backward(np.array([[1.0, -2.0, 0.5]]), HUGE_ROW[:1], np.ones(3))[0][0], 1e-14),
    ),
    Case(
        "layer_norm_backward with eps = 0 at a constant row is a clear error",
        lambda: layer_norm_backward(np.ones((1, 3)), np.full((1, 3), 2.0), np.ones(3), eps=0.0),
        Raises(ValueError, r"eps=0 at a constant vector .* use eps > 0"),
    ),
    Case(
        "rms_norm of an ordinary row beside a huge one is that of the row alone",
        lambda: rms_norm(np.array([[3.0, 4.0], [1e300, 1e300]]), eps=0.0),
        equal([[3 / math.sqrt(12.5), 4 / math.sqrt(12.5)], [1.0, 1.0]], 1e-15),
    ),
    Case(
        "rms_norm of a zero row beside a huge one is 0, not NaN",
        lambda: rms_norm(np.array([[0.0, 0.0], [1e300, -1e300]]))[0],
        equal([0.0, 0.0]),
    ),
    Case(
        "rms_norm with eps = 0 of a zero vector is a clear error, as layer_norm's",
        lambda: rms_norm(np.zeros((2, 4)), eps=0.0),
        Raises(ValueError, r"rms_norm with eps=0 of a zero vector divides 0 by 0; use eps > 0"),
    ),
    # --- Adam in float16: the running averages and the step in float32 --------------------------------------
    Case(
        "one Adam step in float16 leaves every parameter finite",
        lambda: adam_step_in_float16(Adam),
        all_finite_float16,
    ),
    Case(
        "one AdamW step in float16 leaves every parameter finite",
        lambda: adam_step_in_float16(AdamW),
        all_finite_float16,
    ),
    # --- results past float16's range, overflowing intermediates: the right value, and no warning -----------
    Case(
        "RoPE of float16 turned past 65504 is inf without a warning, as in PyTorch",
        lambda: apply_rope(np.array([[60000.0, 60000.0]], dtype=np.float16), [1]),
        equal([[60000 * (math.cos(1) - math.sin(1)), np.inf]], 1e-3),
    ),
    Case(
        "RMSNorm of float16 with a gain past 65504 is inf without a warning",
        lambda: rms_norm(np.array([[1.0, 0.0]], dtype=np.float16), np.array([60000.0, 1.0], dtype=np.float16)),
        equal([[np.inf, 0.0]]),
    ),
    Case(
        "gelu_derivative at 2e154, where x**2 overflows, is 1 without a warning",
        lambda: gelu_derivative(np.array([2e154, -2e154, 1e300])),
        equal([1.0, 0.0, 1.0]),
    ),
    Case(
        "swiglu of a finite input whose intermediate overflows is inf, as PyTorch, not an error blaming x",
        lambda: swiglu_of(1e300, 1e10, 1.0, 1.0),
        equal([[np.inf]]),
    ),
    Case(
        "swiglu whose overflowed intermediates meet a 0 (inf * 0) is a clear error, not NaN",
        lambda: swiglu_of(1e300, 1e10, 0.0, 1.0),
        Raises(ValueError, r"swiglu: x @ w_gate and x @ w_up overflow .*\(inf \* 0"),
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[case.checks for case in CASES])
def test_case(case):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning escapes, on the way to a value or to an error
        if isinstance(case.expect, Raises):
            with pytest.raises(case.expect.error, match=case.expect.message):
                case.call()
        else:
            case.expect(case.call())


def test_every_case_checks_something_different():
    assert len({case.checks for case in CASES}) == len(CASES)
    assert all(re.fullmatch(r"\w.*[^.]", case.checks) for case in CASES)  # a phrase, not a sentence
