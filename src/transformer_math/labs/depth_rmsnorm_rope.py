r"""The checks of the lab "Depth, RMSNorm and RoPE" (``docs/labs/depth-rmsnorm-rope.py``).

* ``prediction`` -- whether the residual stream of 12 blocks as drawn stays near its first size or grows.
* ``stream_sizes`` -- the root mean square of the stream before the first block and after each one, for
  models of 1 to 12 blocks, one sequence or a batch, and a block whose second LayerNorm is shifted by about
  $10^4$, cancelled by $b_1$, where float32 loses the block's output (drawn anew at every run).
* ``rms_norm`` -- $\gamma \odot x / \sqrt{\operatorname{mean}(x^2) + \varepsilon}$ on every token: any shape,
  tokens where $\varepsilon$ matters, tokens whose squares float32 cannot hold, another $\varepsilon$ (drawn anew
  at every run, as is each check's case that a naive answer fails), float32.
* ``layer_norm_from_rms`` -- LayerNorm (no shift) as RMSNorm of the centred token; the learner's ``rms_norm``
  must do the dividing: the guard counts its calls, and the function runs a second time with ``rms_norm``
  answering its value with each entry moved by an amount of its own, which must move each entry of the result
  alike (a result computed beside ``rms_norm``, or rescaled by a ratio from it, does not), and which records what
  ``rms_norm`` is given: the centred tokens (a LayerNorm computed beside it, times ``rms_norm`` of ones, is named
  so), and ``gamma`` (its result scaled by gamma outside is named as such).
* ``apply_rope`` -- each feature pair of each row turned by its position times its frequency: widths 2 to 8,
  heads in front, positions that are not $0, 1, \dots$, positions in the thousands (whose angles float32 rounds
  past the tolerance) and another base (drawn anew at every run), float32.
* ``rope_attention_scores`` -- the scores of multi-head attention with RoPE on each head's queries and keys
  (the head's own width, so turning the whole row before the split is wrong): 1 to 4 heads, one sequence, a
  batch, two leading axes, tokens that share an offset W_Q and W_K do not see (drawn anew at every run: float32
  loses q and k there), float32.

The references are the library's ``forward``, ``rms_norm``,
``layer_norm`` and ``apply_rope``.

Example
-------
>>> import numpy as np
>>> from transformer_math.labs.depth_rmsnorm_rope import check
>>> def rms_norm(x, gamma, eps=1e-6):     # the spread instead of the root mean square
...     return gamma * x / np.sqrt(np.var(x, axis=-1, keepdims=True) + eps)
>>> check("rms_norm", rms_norm)
Wrong: rms_norm - case 1 of 10: x = [1.24, 0.6593, 0.9892, 0.9117, 0.5833, 1.905], gamma = [0.9479, 1.364, 0.7884, 0.9301, 0.9774, 1.12] (one token)
  the largest error is 3.0e+00, at index [5] (tolerance 1e-06 + 1e-06 of the value)
"""

from __future__ import annotations

import copy
import inspect

import numpy as np

from transformer_math.block import n_layers_of, prefix
from transformer_math.labs.answers import Choice
from transformer_math.labs.cases import Case
from transformer_math.labs.models import drawn_model, shift_cancelled
from transformer_math.labs.runner import Checks, FunctionCheck, Verdict
from transformer_math.model import forward
from transformer_math.modern import apply_rope as reference_rope
from transformer_math.modern import rms_norm as reference_rms_norm
from transformer_math.stats import layer_norm

__all__ = ["check"]

OWN = ("transformer_math.modern.", "transformer_math.stats.", "transformer_math.model.", "transformer_math.block.")


def sizes_cases(rng: np.random.Generator) -> list[Case]:
    return [
        Case((drawn_model(rng, 5, 8, 16, n_layers=2), np.array([0, 1, 2, 3]), 2), about="two blocks"),
        Case((drawn_model(rng, 6, 8, 16, n_layers=1), np.array([5, 0, 3]), 2), about="one block"),
        Case((drawn_model(rng, 7, 12, 24, n_layers=4), rng.integers(0, 7, size=6), 4), about="four blocks"),
        Case((drawn_model(rng, 5, 8, 16, n_layers=3), rng.integers(0, 5, size=(2, 4)), 2), about="a batch of 2"),
        Case((drawn_model(rng, 5, 8, 16, n_layers=12), [1, 2, 3, 4], 1), about="twelve blocks, tokens as a list"),
        Case(
            (shift_cancelled(rng, drawn_model(rng, 5, 8, 16, n_layers=2), layer=1), rng.integers(0, 5, size=4), 2),
            about="block 2's LN_2 shifted by about 1e4, which b_1 cancels: float32 keeps that block's output to 1e-3",
            fresh=True,
        ),
    ]


def reference_sizes(params, tokens, n_heads):
    _, cache = forward(params, np.asarray(tokens), n_heads)
    streams = [cache["x0"]] + [cache[prefix(layer) + "x2"] for layer in range(n_layers_of(params))]
    return np.array([np.sqrt(np.mean(x**2)) for x in streams])


def rms_cases(rng: np.random.Generator) -> list[Case]:
    def gamma(d):
        return 1 + 0.2 * rng.normal(size=d)

    return [
        Case((rng.normal(size=6) + 1, gamma(6)), about="one token"),
        Case((rng.normal(size=(4, 8)) * 3, gamma(8)), about="four tokens"),
        Case((rng.normal(size=(2, 3, 4)), gamma(4)), about="a batch"),
        Case((rng.normal(size=(3, 8)) * 1e-3, gamma(8)), about="tokens of size 1e-3: eps matters", fresh=True),
        Case((np.zeros((int(rng.integers(1, 4)), 5)), gamma(5)), about="tokens of zeros", fresh=True),
        Case((rng.normal(size=(2, 6)), gamma(6)), {"eps": another_eps(rng)}, about="another eps", fresh=True),
        Case(
            (rng.normal(size=(2, 5)) * 10.0 ** rng.uniform(20, 30), gamma(5)),
            about="tokens of size 1e20 and more: their squares are past float32's largest number, not float64's",
            fresh=True,
        ),
        Case((rng.normal(size=(2, 4)).tolist(), gamma(4).tolist()), about="lists"),
        Case(tuple(a.astype(np.float32) for a in (rng.normal(size=(3, 8)) * 5, gamma(8))), tol=1e-5),
    ]


def ln_cases(rng: np.random.Generator) -> list[Case]:
    def gamma(d):
        return 1 + 0.2 * rng.normal(size=d)

    return [
        Case((rng.normal(size=(4, 8)) + 2, gamma(8)), about="four tokens, mean near 2"),
        Case((rng.normal(size=5) - 7, gamma(5)), about="one token"),
        Case((rng.normal(size=(2, 3, 6)), gamma(6)), about="a batch"),
        Case(
            (rng.normal(size=(3, 4)) * 1e-3 + rng.uniform(-9, 9), gamma(4)),
            about="a spread of 1e-3 around a mean that is not 0: eps matters",
            fresh=True,
        ),
        Case((rng.normal(size=(2, 6)), gamma(6)), {"eps": another_eps(rng)}, about="another eps", fresh=True),
    ]


def another_eps(rng: np.random.Generator) -> float:
    """An epsilon far from the default, so that one left at the default shows."""
    return round(float(rng.uniform(0.1, 1.0)), 2)


def rope_cases(rng: np.random.Generator) -> list[Case]:
    return [
        Case((rng.normal(size=(4, 4)), np.arange(4))),
        Case((rng.normal(size=(5, 2)), np.arange(5)), about="one pair"),
        Case((rng.normal(size=(2, 4, 8)), np.arange(4)), about="two heads"),
        Case(
            (rng.normal(size=(4, 4)), np.sort(rng.choice(np.arange(1, 40), size=4, replace=False))),
            about="positions not 0, 1, 2, ...",
            fresh=True,
        ),
        Case((rng.normal(size=(3, 6)), np.arange(3) + rng.integers(50, 500)), about="positions past 50", fresh=True),
        Case(
            (rng.normal(size=(3, 8)), np.arange(3) + rng.integers(5000, 20000)),
            about="positions in the thousands: float32 rounds their angles of hundreds or thousands by up to 1e-4",
            fresh=True,
        ),
        Case(
            (rng.normal(size=(3, 4)), np.arange(3)),
            {"base": float(rng.integers(20, 1000))},
            about="another base",
            fresh=True,
        ),
        Case((rng.normal(size=(2, 4)).tolist(), [0, 5]), about="lists"),
        Case((rng.normal(size=(2, 3, 4)).astype(np.float32), np.arange(3)), tol=1e-5),
    ]


def reference_apply_rope(x, positions, base=10000.0):
    return reference_rope(np.asarray(x, dtype=float), np.asarray(positions), base=base)


def attention_scores_cases(rng: np.random.Generator) -> list[Case]:
    def case(lead, n, d, n_heads, **kw):
        X = rng.normal(size=(*lead, n, d))
        W_Q, W_K = rng.normal(size=(d, d)) / np.sqrt(d), rng.normal(size=(d, d)) / np.sqrt(d)
        return Case((X, W_Q, W_K, n_heads), **kw)

    return [
        case((), 4, 8, 2, about="two heads of width 4"),
        case((), 5, 4, 1, about="one head"),
        case((), 6, 8, 4, about="four heads of width 2"),
        case((2,), 4, 12, 3, about="a batch of 2, three heads of width 4"),
        case((), 1, 8, 2, about="one token"),
        case((2, 2), 3, 8, 2, about="two leading axes"),
        Case(unseen_offset(rng, 5, 8) + (2,), about=UNSEEN, fresh=True),
        Case(
            tuple(a.astype(np.float32) for a in (rng.normal(size=(5, 8)), *rng.normal(size=(2, 8, 8)) / 3)) + (2,),
            tol=1e-5,
        ),
    ]


UNSEEN = "tokens that share an offset of 1e5 which W_Q and W_K do not see: float32 keeps q and k to about 1e-2"


def unseen_offset(rng: np.random.Generator, n: int, d: int) -> tuple:
    """X, W_Q and W_K: tokens of size 1 plus an offset of length 1e5 that every column of W_Q and W_K is orthogonal to,
    so that q and k are of size 1, but what float32 rounding of X leaves of them is off by about 1e-2 (float64's by
    about 1e-11)."""
    offset = rng.normal(size=d)
    offset *= 1e5 / np.linalg.norm(offset)
    u = offset / 1e5
    W_Q, W_K = (W - np.outer(u, u @ W) for W in rng.normal(size=(2, d, d)) / np.sqrt(d))
    return rng.normal(size=(n, d)) + offset, W_Q, W_K


def reference_attention_scores(X, W_Q, W_K, n_heads):
    r"""Each head's queries and keys (its columns of X W_Q and X W_K) turned at positions 0..n-1 with the
    frequencies of a row of the head's width, then $q k^\top / \sqrt{d_h}$; heads on axis -3."""
    X = np.asarray(X, dtype=float)
    n, d_head = X.shape[-2], X.shape[-1] // n_heads

    def heads(M):
        return np.stack([M[..., h * d_head : (h + 1) * d_head] for h in range(n_heads)], axis=-3)

    q, k = (reference_rope(heads(X @ np.asarray(W, dtype=float)), np.arange(n)) for W in (W_Q, W_K))
    return q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head)


def uses_rms_norm(function):
    """The learner's rms_norm, whose calls the guard counts while layer_norm_from_rms runs."""
    mine = getattr(function, "__globals__", {}).get("rms_norm")
    return (mine.__code__,) if hasattr(mine, "__code__") else ()


def bent(value):
    """What the learner's ``rms_norm`` answers while ``layer_norm_from_rms`` runs again: its value, each entry moved
    by an amount of its own (not a multiple of the value, which a per-token rescaling would pass on too)."""
    value = np.asarray(value, dtype=float)
    return value + value * value / 8


def with_rms_norm_bent(function, x, gamma, **options):
    """The learner's function, then again with their ``rms_norm`` answering ``bent`` of its value: if ``rms_norm``
    does the work, each entry of the result moves as ``bent`` moves it (a LayerNorm of their own, rescaled by a
    ratio from ``rms_norm``, moves by another amount)."""
    result = function(x, gamma, **options)
    namespace = getattr(function, "__globals__", {})
    mine = namespace.get("rms_norm")
    if result is Ellipsis or not callable(mine):
        return result

    received = []  # what rms_norm was given: the centred tokens and gamma, or it does not do the work

    def bent_rms_norm(*args, **kwargs):
        received.append((args, kwargs))
        return bent(mine(*args, **kwargs))

    namespace["rms_norm"] = bent_rms_norm
    try:
        again = function(copy.deepcopy(x), copy.deepcopy(gamma), **options)
    finally:
        namespace["rms_norm"] = mine
    try:
        uses_it = np.allclose(np.asarray(again, dtype=float), bent(result), rtol=1e-9, atol=1e-12)
    except (TypeError, ValueError):
        uses_it = False
    if not received:
        raise Verdict("Wrong", "its result is not what your rms_norm returns: let rms_norm do the dividing")
    missing = not_given(mine, received, x, gamma)
    if missing:
        raise Verdict("Wrong", missing)
    if not uses_it:
        raise Verdict("Wrong", RESCALED)
    return result


RESCALED = (
    "its result is not what your rms_norm returns, entry by entry: let rms_norm do the dividing (a result of your"
    " own, even one rescaled by a ratio from rms_norm, is not it)"
)
CENTRED = (
    "your rms_norm was not given the centred tokens: let rms_norm do the work (a LayerNorm of your own, scaled by"
    " rms_norm of something else, is not it)"
)
GAMMA = (
    "your rms_norm was given the centred tokens but not gamma: give gamma to rms_norm, as the exercise asks, rather"
    " than scaling its result"
)


def not_given(rms_norm, received: list, x, gamma) -> str | None:
    """What the calls of ``rms_norm`` lacked, if anything: the centred tokens as their ``x`` (in one call, or a part
    in each, in order), or the case's ``gamma`` as theirs."""
    x = np.asarray(x, dtype=float)
    centred, gamma = x - x.mean(axis=-1, keepdims=True), np.asarray(gamma, dtype=float)
    parts, gains = [], True
    try:
        names = list(inspect.signature(rms_norm).parameters)[:2]
    except (TypeError, ValueError):
        names = []
    for args, kwargs in received:
        values = list(args[:2]) + [kwargs[name] for name in names[len(args) :] if name in kwargs]
        try:
            parts.append(np.asarray(values[0], dtype=float).reshape(-1))
            scale = np.asarray(values[1], dtype=float) if len(values) > 1 else None
            gains = gains and scale is not None and np.allclose(scale, np.broadcast_to(gamma, scale.shape), 1e-12, 0)
        except (IndexError, TypeError, ValueError):
            return CENTRED
    joined = np.concatenate(parts) if parts else np.zeros(0)
    tokens = joined.shape == centred.reshape(-1).shape and np.allclose(joined, centred.reshape(-1), 1e-9, 1e-12)
    return CENTRED if not tokens else None if gains else GAMMA


BENT = "transformer_math.labs.depth_rmsnorm_rope.with_rms_norm_bent.<locals>.bent_rms_norm"


def calls_rms_norm(result, case, seen) -> list[str] | None:
    if not any(seen.calls.values()):
        return ["it gives the right numbers without calling your rms_norm: let rms_norm do the dividing"]
    return None


check = Checks(
    "depth-rmsnorm-rope",
    {
        "prediction": Choice(("grows", "stays")),
        "stream_sizes": FunctionCheck(
            ("params", "tokens", "n_heads"), sizes_cases, reference_sizes, rtol=1e-6, own=OWN
        ),
        "rms_norm": FunctionCheck(
            ("x", "gamma"),
            rms_cases,
            lambda x, g, eps=1e-6: reference_rms_norm(np.asarray(x, dtype=float), g, eps),
            rtol=1e-6,
            own=OWN,
        ),
        "layer_norm_from_rms": FunctionCheck(
            ("x", "gamma"),
            ln_cases,
            lambda x, g, eps=1e-5: layer_norm(np.asarray(x, dtype=float), g, None, eps=eps),
            rtol=1e-6,
            own=OWN,
            watch=uses_rms_norm,
            verify=calls_rms_norm,
            call=with_rms_norm_bent,
            allowed=(BENT,),
        ),
        "apply_rope": FunctionCheck(("x", "positions"), rope_cases, reference_apply_rope, rtol=1e-6, own=OWN),
        "rope_attention_scores": FunctionCheck(
            ("X", "W_Q", "W_K", "n_heads"), attention_scores_cases, reference_attention_scores, rtol=1e-6, own=OWN
        ),
    },
)
