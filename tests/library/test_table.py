"""Every public function against one table of inputs: dtypes, shapes and values at the edges.

Each module's ``__all__`` is enumerated, and a name without a row in ``SPECS`` fails
``test_every_public_name_has_its_rows``: a new function cannot join the library without them. Each row's
expected outcome comes from PyTorch where it has the function (its dtype rule: float16/32/64 in, the
same out; integers computed in float64 as ``torch.tensor([1, 2]).float()`` would not, so NumPy's rule),
else from NumPy, else from exact mathematics, never from what the code happens to do:

* ``SAME`` -- a result of the input's float dtype (float64 for integers), finite, and equal to ``ref``
  (the exact value, computed in float64 by the plain formula) to the dtype's precision;
* an exception class -- raised, with a message that names the argument;
* ``Raises(error, words)`` -- raised, with a message holding ``words`` (a quantity the docstring defines from
  the argument, such as multi-head attention's q = x W_Q);
* a callable -- a check of the result (a value the reference gives at an edge: ``-inf``, NaN, 0...).
"""

from __future__ import annotations

import importlib
import math
import pkgutil
import re
import warnings
from dataclasses import dataclass, field

import numpy as np
import pytest

import transformer_math
from transformer_math import (
    attention,
    block,
    calculus,
    erf,
    information,
    kv_cache,
    linalg,
    model,
    modern,
    optim,
    sample,
    schedules,
    softmax,
    stats,
    train,
)
from transformer_math.autograd import Value

SAME = "same dtype, finite, equal to ref"


@dataclass(frozen=True)
class Raises:
    """An error whose message names ``name``, a quantity the docstring defines from the probed argument."""

    error: type
    name: str


ARRAY_PROBES = {
    "float16": np.array([1.0, 2.0, 3.0], dtype=np.float16),
    "float32": np.array([1.0, 2.0, 3.0], dtype=np.float32),
    "float64": np.array([1.0, 2.0, 3.0]),
    "int": np.array([1, 2, 3]),
    "bool": np.array([True, False, True]),
    "str": np.array(["1", "2", "3"]),
    "object": np.array([1.0, 2.0, 3.0], dtype=object),
    "0-d": np.array(1.0),
    "empty": np.zeros(0),
    "wrong rank": np.ones((3, 3, 3)),
    "nan": np.array([1.0, np.nan, 3.0]),
    "+inf": np.array([1.0, np.inf, 3.0]),
    "-inf": np.array([1.0, -np.inf, 3.0]),
    "1e300": np.array([1e300, -1e300, 5e299]),
    "1e-300": np.array([1e-300, -1e-300, 5e-301]),
    "all equal": np.array([2.0, 2.0, 2.0]),
}
SCALAR_PROBES = {
    "int": 3,
    "float": 3.0,
    "bool": True,
    "str": "3",
    "None": None,
    "nan": math.nan,
    "+inf": math.inf,
    "-inf": -math.inf,
    "zero": 0,
    "negative": -1,
    "1e300": 1e300,
    "1e-300": 1e-300,
}


@dataclass
class Spec:
    call: object  # probe -> result, every other argument valid
    arg: str  # the argument probed, which every error message must name
    expect: dict = field(default_factory=dict)  # probe name -> SAME, an exception class or a check
    ref: object = None  # float64 array -> the exact result, for the SAME rows
    scalar: bool = False  # probed with SCALAR_PROBES instead of ARRAY_PROBES
    rtol: float = 0.0  # the method's own accuracy, if coarser than the dtype's (a finite difference: ~1e-8)
    atol: float = 0.0  # where ref is exactly 0 and rounding leaves a trace, the size of that trace


def adam_spec(optimizer) -> Spec:
    """Adam's and AdamW's rows: the step starts from zero parameters, where AdamW's decay changes nothing."""
    return Spec(
        sgd_step(optimizer),
        "gradient 0",
        array_defaults(
            **{
                "0-d": SAME,
                "empty": SAME,
                "wrong rank": SAME,
                "+inf": ValueError,
                "-inf": ValueError,
                # as PyTorch: g**2 overflows, so v_hat = inf and the step is 0 (the docstring says so)
                "1e300": is_([0.0, 0.0, 0.0]),
            }
        ),
        ref=adam_first_step,
    )


def silu_reference(x):
    """x sigmoid(x) in long double; exp(-x) may overflow to inf for very negative x, and x / inf is the right 0."""
    with np.errstate(over="ignore"):
        return x / (1 + np.exp(-np.asarray(x, np.longdouble)))


def array_defaults(**overrides):
    """What the library's rules give for a function of one float array (each rule says where it comes from)."""
    rows = dict.fromkeys(["float16", "float32", "float64", "int", "1e-300", "all equal"], SAME)
    rows |= dict.fromkeys(["bool", "str", "object"], TypeError)  # not numbers (PyTorch refuses str too)
    rows |= {"nan": ValueError, "wrong rank": ValueError, "empty": ValueError, "0-d": ValueError}
    return rows | overrides


def is_(value):
    def check(result):
        np.testing.assert_array_equal(np.asarray(result, dtype=float), value)

    check.__name__ = f"is {value!r}"
    return check


def close(value, rtol=1e-12):
    def check(result):
        np.testing.assert_allclose(np.asarray(result, dtype=float), value, rtol=rtol)

    return check


def exact_softmax(x):
    e = np.exp(x - np.max(x))
    return e / e.sum()


def exact_log_softmax(x):
    with np.errstate(divide="ignore"):  # a masked position: log 0 = -inf, as log_softmax gives it
        return np.log(np.apply_along_axis(exact_softmax, -1, x))


def exact_var(x):
    return float(np.var(np.asarray(x, dtype=np.longdouble)))


def exact_std(x):  # in long double (exponents to 4932): the squares of 1e300 or 1e-300 neither overflow nor vanish
    return float(np.sqrt(np.var(np.asarray(x, dtype=np.longdouble))))


def exact_layer_norm(x, eps=1e-5):
    x = np.asarray(x, dtype=np.longdouble)
    centred = x - x.mean(axis=-1, keepdims=True)
    return (centred / np.sqrt((centred**2).mean(axis=-1, keepdims=True) + eps)).astype(float)


def exact_norm(x):  # math.hypot scales, as the exact length does not overflow or vanish
    return math.hypot(*np.ravel(x))


def as_distribution(x):
    """A float probe normalised along its last axis (non-finite and non-float probes as they are)."""
    x = np.asarray(x)
    if x.dtype.kind != "f" or x.ndim == 0 or not np.all(np.isfinite(x)):
        return x
    return x / x.sum(axis=-1, keepdims=True)


def uniform_like(x):
    """The uniform distribution along the last axis of ``x``'s shape (zeros for an empty axis)."""
    shape = np.shape(x)
    return np.full(shape, 1 / shape[-1]) if shape and shape[-1] else np.zeros(shape)


GRADS = np.array([3.0, 4.0, 0.0])


def sgd_step(cls, **kw):
    def call(g):
        p = np.zeros(np.shape(g), dtype=np.asarray(g).dtype if np.asarray(g).dtype.kind == "f" else np.float64)
        cls([p], lr=0.1, **kw).step([g])
        return p

    return call


def as_dlogits(x):
    """A probe of 3 values (one per position) or a 0-d one, spread over the logits' shape (3, 4)."""
    x = np.asarray(x)
    if x.shape == (3,):
        return np.broadcast_to(x[:, None], (3, 4))
    return np.broadcast_to(x, (3, 4)) if x.ndim == 0 else x


def all_grads(grads):
    return np.concatenate([g.ravel() for g in grads.values()])


def linear_in_dlogits(result, scale):
    unit = all_grads(model.backward(PARAMS, CACHE, as_dlogits(np.array([1.0, -1.0, 0.5]))))
    assert np.all(np.isfinite(result))
    np.testing.assert_allclose(result, scale * unit, rtol=1e-12, atol=1e-14 * scale)


CAUSAL = attention.causal_mask(3)
PARAMS = model.init_params(vocab_size=4, d_model=4, d_ff=8)
LOGITS, CACHE = model.forward(PARAMS, np.array([0, 1, 2]), n_heads=2)


def SWIGLU_WEIGHTS(x):  # noqa: N802  w_gate = w_up = ones (d, 2), w_down = 0.5 (2, 1): swiglu(x) = silu(s) * s, s = sum(x)
    d, dtype = np.shape(x)[-1] if np.ndim(x) else 1, np.asarray(x).dtype
    dtype = dtype if dtype.kind == "f" else np.float64
    return np.ones((d, 2), dtype), np.ones((d, 2), dtype), np.full((2, 1), 0.5, dtype)


SPECS: dict[str, Spec] = {
    # --- linalg: matmul_loops and dot reproduce A @ B and np.dot, integers and NaN included ---------
    "linalg.matmul_loops": Spec(
        lambda x: linalg.matmul_loops(
            np.atleast_1d(x)[None], np.ones((np.atleast_1d(x).shape[-1], 1), np.asarray(x).dtype)
        ),
        "A",
        array_defaults(
            int=lambda r: r.dtype.kind == "i" and r[0, 0] == 6,  # as A @ B: integers stay integers
            nan=is_([[np.nan]]),
            **{"+inf": is_([[np.inf]]), "-inf": is_([[-np.inf]])},
            **{"0-d": SAME, "empty": is_(np.zeros((1, 1))), "1e300": SAME},  # the sum 5e299 is finite
        ),
        ref=lambda x: np.atleast_1d(x).sum(keepdims=True)[None],
    ),
    "linalg.dot": Spec(
        lambda x: linalg.dot(x, np.ones(np.shape(x), np.asarray(x).dtype)),
        "a",
        array_defaults(
            int=lambda r: r == 6,  # as np.dot: integers stay integers
            nan=is_(np.nan),
            **{"+inf": is_(np.inf), "-inf": is_(-np.inf), "empty": is_(0.0)},
            **{"1e300": close(5e299)},
        ),
        ref=lambda x: np.sum(x),
    ),
    "linalg.norm": Spec(
        linalg.norm,
        "v",
        array_defaults(**{"+inf": is_(np.inf), "-inf": is_(np.inf), "empty": is_(0.0), "1e300": close(1.5e300)}),
        ref=exact_norm,
    ),
    "linalg.cosine_similarity": Spec(
        lambda x: linalg.cosine_similarity(x, np.ones(np.shape(x))),
        "a",
        array_defaults(**{"+inf": ValueError, "-inf": ValueError, "1e300": close(0.5 / math.sqrt(2.25 * 3))}),
        ref=lambda x: np.sum(x) / (exact_norm(x) * math.sqrt(len(x))),
    ),
    "linalg.power_iteration": Spec(
        lambda x: linalg.power_iteration(np.diag(x) if np.ndim(x) == 1 else x)[0],
        "A",
        array_defaults(
            # 1e300 and 1e-300 are diag(c, -c, c / 2): eigenvalues c and -c tie in size, so there is no dominant
            # eigenvalue and v never settles; the residual check refuses to return a value
            **{"+inf": ValueError, "-inf": ValueError, "1e300": ValueError, "1e-300": ValueError}
        ),
        ref=lambda x: float(np.max(np.abs(x))) if len(set(x.tolist())) == len(x) else float(x[0]),
    ),
    # --- stats: as np.mean / torch.var(correction=0); inf refused (the spread is undefined) --------
    "stats.mean": Spec(
        stats.mean,
        "x",
        array_defaults(**{"0-d": SAME, "+inf": ValueError, "-inf": ValueError, "1e300": SAME, "wrong rank": SAME}),
        ref=lambda x: float(np.mean(np.asarray(x, dtype=np.longdouble))),
    ),
    "stats.variance": Spec(
        stats.variance,
        "x",
        array_defaults(
            **{"0-d": is_(0.0), "+inf": ValueError, "-inf": ValueError, "1e300": is_(np.inf), "wrong rank": SAME}
        ),
        ref=exact_var,
    ),
    "stats.std": Spec(
        stats.std,
        "x",
        array_defaults(**{"0-d": is_(0.0), "+inf": ValueError, "-inf": ValueError, "1e300": SAME, "wrong rank": SAME}),
        ref=exact_std,
    ),
    "stats.layer_norm": Spec(
        stats.layer_norm,
        "x",
        array_defaults(
            **{"+inf": ValueError, "-inf": ValueError, "1e300": SAME, "all equal": is_([0, 0, 0]), "wrong rank": SAME}
        ),
        ref=exact_layer_norm,
    ),
    # --- softmax: as torch.softmax / torch.logsumexp; -inf a mask, +inf refused or +inf -----------
    "softmax.softmax": Spec(
        softmax.softmax,
        "x",
        array_defaults(**{"+inf": ValueError, "-inf": SAME, "1e300": SAME, "wrong rank": SAME}),
        ref=lambda x: np.apply_along_axis(exact_softmax, -1, x),
    ),
    "softmax.naive_softmax": Spec(  # kept to show the failure: it warns and gives NaN at 1e300, by design
        softmax.naive_softmax,
        "x",
        array_defaults(**{"+inf": ValueError, "-inf": SAME, "1e300": RuntimeWarning, "wrong rank": SAME}),
        ref=lambda x: np.apply_along_axis(exact_softmax, -1, x),
    ),
    "softmax.logsumexp": Spec(
        softmax.logsumexp,
        "x",
        array_defaults(
            **{"+inf": is_(np.inf), "-inf": SAME, "1e300": close(1e300), "empty": is_(-np.inf)},
            **{"wrong rank": SAME},
        ),
        ref=lambda x: np.log(np.sum(np.exp(np.asarray(x, np.longdouble)), axis=-1)).astype(float),
    ),
    "softmax.log_softmax": Spec(
        softmax.log_softmax,
        "x",
        array_defaults(**{"+inf": ValueError, "-inf": SAME, "1e300": close([0, -2e300, -5e299]), "wrong rank": SAME}),
        ref=exact_log_softmax,
    ),
    # --- information: distributions must be finite, >= 0 and sum to 1 -----------------------------
    "information.entropy": Spec(
        lambda x: information.entropy(as_distribution(x)),
        "p",
        array_defaults(
            **{
                "+inf": ValueError,
                "-inf": ValueError,
                "1e300": ValueError,
                "1e-300": ValueError,
                "int": ValueError,
                "wrong rank": SAME,
            }
        ),
        ref=lambda x: -np.sum(x / x.sum(-1, keepdims=True) * np.log(x / x.sum(-1, keepdims=True)), axis=-1),
    ),
    "information.cross_entropy": Spec(
        lambda x: information.cross_entropy(x, uniform_like(x)),
        "y_true",
        array_defaults(
            **{
                "+inf": ValueError,
                "-inf": ValueError,
                "1e300": ValueError,
                "1e-300": ValueError,
                "float16": ValueError,
                "float32": ValueError,
                "float64": ValueError,
                "int": ValueError,
                "all equal": ValueError,
                "wrong rank": ValueError,
            }
        ),
    ),
    "information.kl_divergence": Spec(
        lambda x: information.kl_divergence(x, uniform_like(x)),
        "p",
        array_defaults(
            **{
                "+inf": ValueError,
                "-inf": ValueError,
                "1e300": ValueError,
                "1e-300": ValueError,
                "float16": ValueError,
                "float32": ValueError,
                "float64": ValueError,
                "int": ValueError,
                "all equal": ValueError,
                "wrong rank": ValueError,
            }
        ),
    ),
    "information.cross_entropy_from_logits": Spec(
        lambda x: information.cross_entropy_from_logits(x, np.zeros(np.shape(x)[:-1], dtype=int)),
        "logits",
        array_defaults(
            **{
                "+inf": ValueError,
                "-inf": close(-math.log(math.e**1 / (math.e + math.e**3))),
                "1e300": SAME,
                "wrong rank": SAME,
            }
        ),
        ref=lambda x: float(np.mean(-np.log(np.apply_along_axis(exact_softmax, -1, x)[..., 0]))),
    ),
    "information.perplexity": Spec(
        lambda x: information.perplexity(x, np.zeros(np.shape(x)[:-1], dtype=int)),
        "logits",
        array_defaults(
            **{
                "+inf": ValueError,
                "-inf": close((math.e + math.e**3) / math.e),
                "1e300": SAME,  # the target holds the largest logit: a loss of 0, a perplexity of 1
                "wrong rank": SAME,
            }
        ),
        ref=lambda x: math.exp(float(np.mean(-np.log(np.apply_along_axis(exact_softmax, -1, x)[..., 0])))),
    ),
    # --- attention: as F.scaled_dot_product_attention; queries are rows of x -----------------------
    "attention.scaled_dot_product_attention": Spec(
        lambda x: attention.scaled_dot_product_attention(
            np.atleast_1d(x)[:, None] if np.ndim(x) < 2 else x,
            np.atleast_1d(x)[:, None] if np.ndim(x) < 2 else x,
            np.atleast_1d(x)[:, None] if np.ndim(x) < 2 else x,
        )[0],
        "q",
        array_defaults(
            **{"+inf": ValueError, "-inf": ValueError, "1e300": ValueError, "0-d": SAME, "wrong rank": SAME}
        ),
        ref=lambda x: (lambda q: exact_attention(q))(np.atleast_1d(x)[:, None] if np.ndim(x) < 2 else x),
    ),
    "attention.multi_head_attention": Spec(
        lambda x: attention.multi_head_attention(
            as_tokens(x), *[np.eye(np.shape(as_tokens(x))[-1] if np.ndim(x) else 1)] * 4, n_heads=1
        )[0],
        "x",
        array_defaults(
            **{
                "+inf": ValueError,
                "-inf": ValueError,
                "1e300": Raises(ValueError, "the scores q @ k^T would overflow"),  # q = x W_Q, k = x W_K
                "float16": SAME,
                "wrong rank": SAME,
                "all equal": SAME,
            }
        ),
        ref=lambda x: exact_attention(as_tokens(x)),
    ),
    "attention.split_heads": Spec(
        lambda x: attention.split_heads(np.atleast_1d(x)[None], 1),
        "x",
        {**dict.fromkeys(ARRAY_PROBES, lambda r: None), "bool": TypeError, "str": TypeError, "object": TypeError},
    ),
    "attention.merge_heads": Spec(
        lambda x: attention.merge_heads(np.atleast_1d(x)[None, None]),
        "x",
        {**dict.fromkeys(ARRAY_PROBES, lambda r: None), "bool": TypeError, "str": TypeError, "object": TypeError},
    ),
    "attention.causal_mask": Spec(
        attention.causal_mask,
        "n",
        {
            "int": lambda r: r.dtype == bool and r.shape == (3, 3),
            "float": TypeError,
            "bool": TypeError,
            "str": TypeError,
            "None": TypeError,
            "nan": TypeError,
            "+inf": TypeError,
            "-inf": TypeError,
            "zero": ValueError,
            "negative": ValueError,
            "1e300": TypeError,
            "1e-300": TypeError,
        },
        scalar=True,
    ),
    "attention.positional_encoding": Spec(
        lambda n: attention.positional_encoding(n, 4),
        "seq_len",
        {
            "int": lambda r: r.shape == (3, 4),
            "float": TypeError,
            "bool": TypeError,
            "str": TypeError,
            "None": TypeError,
            "nan": TypeError,
            "+inf": TypeError,
            "-inf": TypeError,
            "zero": ValueError,
            "negative": ValueError,
            "1e300": TypeError,
            "1e-300": TypeError,
        },
        scalar=True,
    ),
}


def exact_attention(x):
    x = np.asarray(x, dtype=np.float64)
    scores = x @ np.swapaxes(x, -1, -2) / math.sqrt(x.shape[-1])
    return np.apply_along_axis(exact_softmax, -1, scores) @ x


def as_tokens(x):
    """A 1-D probe as n tokens of width 1, shape (n, 1); other shapes as they are."""
    return np.asarray(x)[:, None] if np.ndim(x) == 1 else x


def scalar_rows(valid, *, integer=False, positive=False, zero_ok=True, inf_ok=False, bool_ok=False):
    """Rows for a scalar hyperparameter: its kind (int or real), its range, NaN and inf."""
    rows = {
        "int": valid,
        "float": TypeError if integer else valid,
        "bool": valid if bool_ok else TypeError,
        "str": TypeError,
        "None": TypeError,
    }
    rows |= {"nan": TypeError if integer else ValueError}
    rows |= dict.fromkeys(["+inf", "-inf"], TypeError if integer else (valid if inf_ok else ValueError))
    rows |= {"zero": valid if zero_ok else ValueError, "negative": ValueError}
    rows |= {"1e300": TypeError if integer else valid, "1e-300": TypeError if integer else valid}
    return rows


OK = lambda r: None  # noqa: E731  (an answer of the right kind; its value is checked elsewhere)


def sum_of_squares(v):
    with np.errstate(over="ignore"):  # f's own overflow is inf, quietly: the library must refuse that value
        return float(np.sum(np.asarray(v, dtype=float) ** 2))


def linear(c):
    """f(v) = sum(c * v), whose gradient is c wherever c is a finite float array (else any f: c is refused)."""
    c = np.asarray(c)
    c = np.where(np.isfinite(c), c, 0.0).astype(float) if c.dtype.kind in "fiu" else np.zeros(c.shape)
    return lambda v: float(np.sum(c * v))


def agree(result):
    assert result < 1e-9 and result.worst < 1e-9, (float(result), result.worst)


def adam_first_step(g, lr=0.1, eps=1e-8):
    """Adam's first step from 0, exactly: m_hat = g and v_hat = g**2, so theta = -lr g / (|g| + eps)."""
    return -lr * g / (np.abs(g) + eps)


SPECS |= {
    "calculus.derivative": Spec(
        lambda x: calculus.derivative(lambda t: t * t, x),  # not t**2: Python's float ** raises OverflowError
        "x",
        scalar_rows(OK) | {"negative": OK, "1e300": ValueError, "int": close(6.0, 1e-8)},
        scalar=True,
    ),
    "calculus.numerical_gradient": Spec(
        lambda x: calculus.numerical_gradient(sum_of_squares, x),
        "x",
        array_defaults(
            **{
                "0-d": SAME,
                "empty": lambda r: r.shape == (0,),
                "wrong rank": SAME,
                "nan": ValueError,
                "+inf": ValueError,
                "-inf": ValueError,
                "1e300": ValueError,
                "1e-300": OK,
            }
        ),
        ref=lambda x: 2 * x,
        rtol=1e-8,  # central differences with h = 1e-5: rounding of about eps |f| / h, ten digits or so
    ),
    "calculus.gradient_check": Spec(
        # the probe is the analytic gradient of the linear f(v) = sum(c * v), whose true gradient is c itself:
        # a right gradient at every scale, so exact mathematics gives an error of 0
        lambda g: calculus.gradient_check(linear(g), g, np.zeros(np.shape(g))),
        "grad",
        array_defaults(
            **{
                **dict.fromkeys(["float16", "float32", "float64", "int", "0-d", "wrong rank", "all equal"], agree),
                **dict.fromkeys(["1e300", "1e-300"], agree),
                "empty": is_(0.0),  # two empty gradients agree exactly
                "+inf": ValueError,
                "-inf": ValueError,
            }
        ),
    ),
    "calculus.GradientCheck": Spec(
        lambda x: calculus.GradientCheck(x, 0.0, ()),
        "error",
        # a relative error is a real number: the library's kind rule (no text, no bool) and its NaN rule
        scalar_rows(OK, inf_ok=True) | {"negative": OK},
        scalar=True,
    ),
    "autograd.Value": Spec(
        Value,
        "data",
        scalar_rows(OK, inf_ok=True) | {"negative": OK, "bool": TypeError},
        scalar=True,
    ),
    "optim.Optimizer": Spec(
        lambda lr: optim.Optimizer([np.zeros(2)], lr),
        "lr",
        scalar_rows(OK, zero_ok=False) | {"1e300": OK},
        scalar=True,
    ),
    "optim.SGD": Spec(
        sgd_step(optim.SGD, momentum=0.9),
        "gradient 0",
        array_defaults(
            **{"0-d": SAME, "empty": SAME, "wrong rank": SAME, "+inf": ValueError, "-inf": ValueError, "1e300": SAME}
        ),
        ref=lambda g: -0.1 * g,
    ),
    "optim.Adam": adam_spec(optim.Adam),
    "optim.AdamW": adam_spec(optim.AdamW),
    "schedules.clip_grad_norm": Spec(
        lambda g: schedules.clip_grad_norm([g], 1.0)[0][0],
        "gradient 0",
        array_defaults(
            **{"0-d": SAME, "empty": SAME, "wrong rank": SAME, "+inf": ValueError, "-inf": ValueError, "1e300": SAME}
        ),
        ref=lambda g: g * min(1.0, 1.0 / (exact_norm(g) + 1e-6)),  # as PyTorch: c / (norm + 1e-6), at most 1
    ),
    "schedules.warmup_cosine": Spec(
        lambda lr: schedules.warmup_cosine(0, 10, 2, lr),
        "peak_lr",
        scalar_rows(OK, zero_ok=False) | {"int": is_(1.5)},
        scalar=True,
    ),
    "model.init_params(n_layers)": Spec(
        lambda n: model.init_params(4, 4, 8, n_layers=n),
        "n_layers",
        scalar_rows(OK, integer=True, zero_ok=False),
        scalar=True,
    ),
    "erf.erf": Spec(  # as math.erf and torch.erf: erf(+-inf) = +-1
        erf.erf,
        "x",
        array_defaults(
            **{"0-d": SAME, "empty": SAME, "wrong rank": SAME, "1e300": is_([1.0, -1.0, 1.0])},
            **{"+inf": close([math.erf(1), 1.0, math.erf(3)]), "-inf": close([math.erf(1), -1.0, math.erf(3)])},
        ),
        ref=lambda x: np.vectorize(math.erf, otypes=[float])(x),
    ),
    "block.gelu": Spec(
        block.gelu,
        "x",
        array_defaults(
            **{"0-d": SAME, "empty": SAME, "wrong rank": SAME, "+inf": ValueError, "-inf": ValueError, "1e300": SAME}
        ),
        ref=lambda x: 0.5 * x * (1 + np.array([math.erf(t / math.sqrt(2)) for t in x.flat]).reshape(x.shape)),
    ),
    "modern.rms_norm": Spec(
        modern.rms_norm,
        "x",
        array_defaults(**{"+inf": ValueError, "-inf": ValueError, "1e300": SAME, "wrong rank": SAME}),
        ref=lambda x: x / np.sqrt(np.mean(np.asarray(x, np.longdouble) ** 2, axis=-1, keepdims=True) + 1e-6),
    ),  # torch.nn.RMSNorm(d, eps=1e-6)
    "modern.silu": Spec(
        modern.silu,
        "x",
        array_defaults(
            **{"0-d": SAME, "empty": SAME, "wrong rank": SAME, "+inf": ValueError, "-inf": ValueError, "1e300": SAME}
        ),
        ref=silu_reference,  # torch.nn.functional.silu
    ),
    "modern.swiglu": Spec(
        lambda x: modern.swiglu(x, *SWIGLU_WEIGHTS(x)),
        "x",
        array_defaults(
            **{"+inf": ValueError, "-inf": ValueError, "1e300": is_([np.inf]), "empty": is_([0.0]), "wrong rank": SAME}
        ),
        ref=lambda x: (lambda s: s * s / (1 + np.exp(-np.asarray(s, np.longdouble))))(
            np.sum(x, axis=-1, keepdims=True)
        ),
    ),
    "modern.apply_rope": Spec(
        lambda x: modern.apply_rope(np.stack([x, x], axis=-1) if np.ndim(x) == 1 else x),
        "x",
        array_defaults(**{"+inf": ValueError, "-inf": ValueError, "1e300": SAME, "empty": SAME}),
        ref=lambda x: (lambda m: np.stack([x * (np.cos(m) - np.sin(m)), x * (np.sin(m) + np.cos(m))], axis=-1))(
            np.arange(len(x))
        ),
    ),
    "kv_cache.kv_cache": Spec(
        lambda n: kv_cache.kv_cache(PARAMS, n),
        "max_len",
        scalar_rows(OK, integer=True, zero_ok=False),
        scalar=True,
    ),
    "kv_cache.forward_cached": Spec(
        lambda n: kv_cache.forward_cached(PARAMS, np.array([0, 1]), n, kv_cache.kv_cache(PARAMS, 4)),
        "n_heads",
        scalar_rows(OK, integer=True, zero_ok=False) | {"int": ValueError},
        scalar=True,  # 3 does not divide d = 4
    ),
    "model.init_params": Spec(
        lambda v: model.init_params(v, 4, 8),
        "vocab_size",
        scalar_rows(OK, integer=True, zero_ok=False),
        scalar=True,
    ),
    "model.forward": Spec(
        lambda n: model.forward(PARAMS, np.array([0, 1]), n)[0],
        "n_heads",
        scalar_rows(OK, integer=True, zero_ok=False) | {"int": ValueError},
        scalar=True,  # 3 does not divide d = 4
    ),
    "model.backward": Spec(
        lambda x: all_grads(model.backward(PARAMS, CACHE, as_dlogits(x))),
        "dlogits",
        array_defaults(
            **{
                "float16": TypeError,  # float64 parameters: mixed dtypes, refused as torch.autograd refuses them
                "float32": TypeError,
                "0-d": SAME,
                "+inf": ValueError,
                "-inf": ValueError,
                # backward is linear in dlogits: at 1e300 and 1e-300 the gradients are the scale times those at 1
                "1e300": lambda r: linear_in_dlogits(r, 1e300),
                "1e-300": lambda r: linear_in_dlogits(r, 1e-300),
            }
        ),
    ),
    "model.cross_entropy_backward": Spec(
        lambda x: model.cross_entropy_backward(x, np.zeros(np.shape(x)[:-1], dtype=int)),
        "logits",
        array_defaults(**{"+inf": ValueError, "-inf": SAME, "1e300": SAME, "wrong rank": SAME}),
        ref=lambda x: (np.apply_along_axis(exact_softmax, -1, x) - np.eye(x.shape[-1])[0]) / (x.size // x.shape[-1]),
    ),
    "model.layer_norm_backward": Spec(
        lambda x: model.layer_norm_backward(np.ones(np.shape(x)), x, np.ones(np.shape(x)[-1:]))[0],
        "x",
        array_defaults(**{"+inf": ValueError, "-inf": ValueError, "1e300": SAME, "wrong rank": SAME}),
        ref=lambda x: np.zeros(np.shape(x)),  # adding the same to every output changes nothing
        atol=1e-300,  # at x ~ 1e300 rounding leaves eps / std(x) ~ 1e-316 of the exact 0
    ),
    "model.loss_and_grads": Spec(
        lambda t: model.loss_and_grads(PARAMS, t, t, n_heads=2)[0],
        "tokens",
        {
            "float16": TypeError,
            "float32": TypeError,
            "float64": TypeError,
            "int": lambda r: isinstance(r, float) and math.isfinite(r),  # ids 1, 2, 3 of a vocabulary of 4
            "bool": TypeError,
            "str": TypeError,
            "object": TypeError,
            "0-d": TypeError,
            "empty": TypeError,
            "wrong rank": TypeError,
            "nan": TypeError,
            "+inf": TypeError,
            "-inf": TypeError,
            "1e300": TypeError,
            "1e-300": TypeError,
            "all equal": TypeError,
        },
    ),
    "train.make_windows": Spec(
        lambda s: train.make_windows(s, 1)[0],
        "stream",
        {
            "float16": TypeError,
            "float32": TypeError,
            "float64": TypeError,
            "int": is_([[1], [2]]),
            "bool": TypeError,
            "str": TypeError,
            "object": TypeError,
            "0-d": TypeError,
            "empty": TypeError,
            "wrong rank": TypeError,
            "nan": TypeError,
            "+inf": TypeError,
            "-inf": TypeError,
            "1e300": TypeError,
            "1e-300": TypeError,
            "all equal": TypeError,
        },
    ),
    "train.make_optimizer": Spec(
        lambda w: train.make_optimizer(model.init_params(4, 4, 8), weight_decay=w),
        "weight_decay",
        scalar_rows(OK),
        scalar=True,
    ),
    "train.train": Spec(
        lambda m: train.train(
            model.init_params(4, 4, 8), np.array([[0, 1]]), np.array([[1, 2]]), 2, 1, max_grad_norm=m
        ),
        "max_grad_norm",
        scalar_rows(OK, zero_ok=False) | {"1e300": OK, "1e-300": OK, "None": OK},  # None: no clipping (the default)
        scalar=True,
    ),
    "sample.sampling_distribution": Spec(
        sample.sampling_distribution,
        "logits",
        array_defaults(**{"+inf": ValueError, "-inf": SAME, "1e300": close([1, 0, 0]), "0-d": ValueError}),
        ref=exact_softmax,
    ),
    "sample.sample_token": Spec(
        lambda t: sample.sample_token([0.0, 1.0], np.random.default_rng(0), temperature=t),
        "temperature",
        scalar_rows(OK) | {"zero": is_(1), "1e-300": is_(1)},
        scalar=True,
    ),
    "sample.generate": Spec(
        lambda n: sample.generate(PARAMS, [0], n, n_heads=2),
        "n_new",
        scalar_rows(OK, integer=True) | {"zero": is_([0])},
        scalar=True,
    ),
}

# The checks are the library's own building blocks; each is probed through the functions above, and here directly.
CHECKS = {
    "real_array": lambda x: transformer_math.checks.real_array(x, "x"),
    "float_array": lambda x: transformer_math.checks.float_array(x, "x"),
    "wide": lambda x: transformer_math.checks.wide(transformer_math.checks.float_array(x, "x")),
}
SPECS["checks.weight"] = Spec(
    lambda x: transformer_math.checks.weight(x, "x", np.shape(x), np.float32),
    "x",
    array_defaults(
        **{"float16": lambda r: r.dtype == np.float32, "float64": lambda r: r.dtype == np.float32},
        **{"int": lambda r: r.dtype == np.float32, "1e-300": is_([0, 0, 0]), "all equal": is_([2, 2, 2])},
        **{"0-d": OK, "empty": OK, "wrong rank": OK, "+inf": ValueError, "-inf": ValueError},
        **{"1e300": ValueError, "float32": is_([1, 2, 3])},  # 1e300 does not fit in float32: no silent inf
    ),
)
for _name, _call in CHECKS.items():
    SPECS[f"checks.{_name}"] = Spec(
        _call,
        "x",
        {**dict.fromkeys(ARRAY_PROBES, OK), "bool": TypeError, "str": TypeError, "object": TypeError},
    )
for _name in ["integer_array", "token_ids"]:
    SPECS[f"checks.{_name}"] = Spec(
        (lambda x: transformer_math.checks.integer_array(x, "x"))
        if _name == "integer_array"
        else (lambda x: transformer_math.checks.token_ids(x, "x", vocab=4)),
        "x",
        {**dict.fromkeys(ARRAY_PROBES, TypeError), "int": OK, "0-d": TypeError, "empty": TypeError},
    )
for _name, _call, _arg, _rows in [
    ("check_integer", lambda v: transformer_math.checks.check_integer(v, "n"), "n", scalar_rows(OK, integer=True)),
    ("check_number", lambda v: transformer_math.checks.check_number(v, "h"), "h", scalar_rows(OK) | {"negative": OK}),
    ("check_in_range", lambda v: transformer_math.checks.check_in_range(v, "lr", 0.0), "lr", scalar_rows(OK)),
    (
        "check_callable",
        lambda v: transformer_math.checks.check_callable(v, "f"),
        "f",
        dict.fromkeys(SCALAR_PROBES, TypeError),
    ),
    (
        "check_choice",
        lambda v: transformer_math.checks.check_choice(v, "activation", ("relu", "gelu")),
        "activation",
        dict.fromkeys(SCALAR_PROBES, TypeError) | {"str": ValueError},
    ),
    (
        "check_generator",
        lambda v: transformer_math.checks.check_generator(v, "rng"),
        "rng",
        dict.fromkeys(SCALAR_PROBES, TypeError),
    ),
    (
        "check_float_dtype",
        lambda v: transformer_math.checks.check_float_dtype(v, "dtype"),
        "dtype",
        dict.fromkeys(SCALAR_PROBES, TypeError) | {"float": TypeError},
    ),
    (
        "scalar_result",
        lambda v: transformer_math.checks.scalar_result(v, "at x = 0"),
        "f",
        scalar_rows(OK) | {"negative": OK},
    ),
    (
        "check_axis",
        lambda v: transformer_math.checks.check_axis(v, np.ones((2, 2))),
        "axis",
        scalar_rows(OK, integer=True) | {"int": ValueError, "negative": OK},
    ),
    (
        "check_axes",
        lambda v: transformer_math.checks.check_axes(v, np.ones((2, 2))),
        "axis",
        scalar_rows(OK, integer=True) | {"int": ValueError, "negative": OK, "None": OK},
    ),
    (
        "check_no_nan",
        lambda v: transformer_math.checks.check_no_nan(np.array(v, dtype=float), "x", finite=True),
        "x",
        {**scalar_rows(OK), "str": OK, "bool": OK, "None": ValueError, "negative": OK},  # float(True) is 1.0
    ),
    (
        "array_list",
        lambda v: transformer_math.checks.array_list(v, "grads", "gradient"),
        "grad",
        dict.fromkeys(SCALAR_PROBES, TypeError),
    ),
]:
    SPECS[f"checks.{_name}"] = Spec(_call, _arg, _rows, scalar=True)

RE_EXPORTS = {"transformer"}  # modules whose names are the same objects as another module's


def public_names():
    names = []
    for info in pkgutil.iter_modules(transformer_math.__path__):
        module = importlib.import_module(f"transformer_math.{info.name}")
        if info.name in RE_EXPORTS or info.name == "data":
            continue
        names += [f"{info.name}.{name}" for name in module.__all__]
    return names


def test_every_public_name_has_its_rows():
    missing = [name for name in public_names() if name not in SPECS]
    assert not missing, f"public functions without rows in the table: {missing}"
    for name, spec in SPECS.items():
        probes = SCALAR_PROBES if spec.scalar else ARRAY_PROBES
        assert set(spec.expect) == set(probes), f"{name}: rows missing for {set(probes) - set(spec.expect)}"


def test_the_re_exports_are_the_same_objects():
    from transformer_math import transformer

    for name in transformer.__all__:
        owner = next(m for m in (model, train, sample) if name in m.__all__)
        assert getattr(transformer, name) is getattr(owner, name)


# Rows the table finds failing that a change cannot settle at once go here, each as a strict xfail (a row that
# starts passing must leave). Every one has been settled: the set is empty and should stay so.
KNOWN_GAPS: set[str] = set()

ROWS = [
    pytest.param(
        name,
        probe,
        id=f"{name}-{probe}",
        marks=[pytest.mark.xfail(reason="known gap, see KNOWN_GAPS", strict=True)]
        if f"{name}-{probe}" in KNOWN_GAPS
        else [],
    )
    for name, spec in SPECS.items()
    for probe in (SCALAR_PROBES if spec.scalar else ARRAY_PROBES)
]


@pytest.mark.parametrize(("name", "probe"), ROWS)
def test_row(name, probe):
    spec = SPECS[name]
    value = (SCALAR_PROBES if spec.scalar else ARRAY_PROBES)[probe]
    expected = spec.expect[probe]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no RuntimeWarning escapes, except where a row expects one
        if isinstance(expected, type) and issubclass(expected, Warning):
            with pytest.warns(expected):
                warnings.simplefilter("always")
                spec.call(value)
            return
        if isinstance(expected, Raises):
            with pytest.raises(expected.error, match=re.escape(expected.name)):
                spec.call(value)
            return
        if isinstance(expected, type) and issubclass(expected, Exception):
            with pytest.raises(expected) as info:
                spec.call(value)
            assert spec.arg.split()[0] in str(info.value) or spec.arg in str(info.value), (
                f"{name}({probe}): the message does not name {spec.arg}: {info.value}"
            )
            return
        result = spec.call(value)
    if expected == SAME:
        in_dtype = np.asarray(value).dtype
        want = in_dtype if in_dtype.kind == "f" else np.dtype(np.float64)
        if type(result) is float:  # the conventions: a function that returns one number returns a Python float
            want = np.dtype(np.float64)
        assert np.asarray(result).dtype == want, f"{name}({probe}): dtype {np.asarray(result).dtype}, not {want}"
        assert np.all(np.isfinite(np.asarray(result, dtype=float)) | np.isneginf(np.asarray(result, dtype=float)))
        if spec.ref is not None:  # to the precision of the input (a Python float from float32 input: float32's)
            precision = in_dtype if in_dtype.kind == "f" else np.dtype(np.float64)
            rtol = max({np.float16: 2e-3, np.float32: 2e-6}.get(precision.type, 1e-12), spec.rtol)
            exact = np.asarray(spec.ref(np.asarray(value, dtype=np.float64)), dtype=float)
            np.testing.assert_allclose(np.asarray(result, dtype=float), exact, rtol=rtol, atol=spec.atol)
    else:
        outcome = expected(result)
        assert outcome is None or outcome is True or outcome is np.True_, f"{name}({probe}): {outcome}"
