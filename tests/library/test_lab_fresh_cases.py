"""The hidden cases a naive answer fails (an overflow, an epsilon that matters, a large loss, a run of steps no loop
takes) are drawn anew at every run, so that a table of the other cases with a naive answer behind it fails. Every
draw of them must be passed by the lab's folded solution and failed by each naive answer it is there for."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import jupytext
import numpy as np
import pytest

from tools.labs import solved
from transformer_math.labs import cases as lab_cases_module
from transformer_math.labs.cases import snapshot
from transformer_math.labs.runner import Verdict

ROOT = Path(__file__).resolve().parents[2]
DRAWS = 8  # fresh draws of each check's hard cases; the lab tests run one more, pinned
CHECK_CALL = re.compile(r"^check\(", re.M)

SOFTMAX_NO_SHIFT = (
    "def softmax(x):\n    x = np.asarray(x, dtype=float)\n    e = np.exp(x)\n    return e / e.sum(-1, keepdims=True)"
)
LOGITS_UNDERFLOW = (
    "def cross_entropy_from_logits(logits, targets):\n"
    "    z = np.asarray(logits, dtype=float)\n"
    "    e = np.exp(z - z.max(-1, keepdims=True))\n"
    "    p = e / e.sum(-1, keepdims=True)\n"
    "    return float(-np.mean(np.log(np.take_along_axis(p, np.asarray(targets)[..., None], -1))))"
)
LN_NO_EPS = (
    "def layer_norm(x, gamma, beta, eps=1e-5):\n"
    "    x = np.asarray(x, dtype=float)\n"
    "    return gamma * (x - x.mean(-1, keepdims=True)) / x.std(-1, keepdims=True) + beta"
)

# (lab, check) -> naive answers, each with the hard cases (words of their descriptions) it must fail at every draw.
NAIVE = {
    ("softmax", "softmax"): [
        (SOFTMAX_NO_SHIFT, ("near 1000", "spread of about 2000", "rows far apart")),
        (
            "def softmax(x):\n    x = np.asarray(x, dtype=float)\n    e = np.exp(x - x.max())\n"
            "    return e / e.sum(-1, keepdims=True)",
            ("rows far apart",),
        ),
        (
            "def softmax(x):\n    x = np.asarray(x)\n    e = np.exp(x.astype(np.result_type(x, np.float32)))\n"
            "    return e / e.sum(-1, keepdims=True)",
            ("float32",),
        ),
        (
            "def softmax(x):\n    x = np.asarray(x, dtype=float).astype(np.float32)\n"
            "    e = np.exp(x - x.max(-1, keepdims=True))\n    return e / e.sum(-1, keepdims=True)",
            ("near 100000",),
        ),
    ],
    ("softmax", "softmax_with_temperature"): [
        (
            "def softmax_with_temperature(x, temperature):\n"
            "    e = np.exp(np.asarray(x, dtype=float) / temperature)\n"
            "    return e / e.sum(-1, keepdims=True)",
            ("T = 0.01",),
        ),
        (
            "def softmax_with_temperature(x, temperature):\n"
            "    x = np.asarray(x, dtype=np.float32).astype(float) / temperature\n"
            "    e = np.exp(x - x.max(-1, keepdims=True))\n"
            "    return e / e.sum(-1, keepdims=True)",
            ("near 200000",),
        ),
    ],
    ("attention", "attention"): [
        (
            "def attention(Q, K, V, mask=None):\n"
            "    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))\n"
            "    W = np.exp(Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]))\n"
            "    W = W if mask is None else W * np.asarray(mask, dtype=bool)\n"
            "    return W / W.sum(-1, keepdims=True) @ V",
            ("past 700",),
        ),
        (
            "def attention(Q, K, V, mask=None):\n"
            "    Q, K, V = (np.asarray(a, dtype=np.float32) for a in (Q, K, V))\n"
            "    S = Q @ np.swapaxes(K, -1, -2) / np.float32(np.sqrt(Q.shape[-1]))\n"
            "    S = S if mask is None else np.where(mask, S, -np.inf)\n"
            "    return softmax(S) @ V",
            ("near 5000",),
        ),
        (
            "def attention(Q, K, V, mask=None):\n"
            "    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))\n"
            "    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n"
            "    W = np.exp(S - S.max(-1, keepdims=True))\n"
            "    W = W if mask is None else W * np.asarray(mask, dtype=bool)\n"
            "    return W / W.sum(-1, keepdims=True) @ V",
            ("past 700", "below -1e5"),
        ),
        (
            "def attention(Q, K, V, mask=None):\n"
            "    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))\n"
            "    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n"
            "    S = S if mask is None else np.where(mask, S, -1e4)\n"
            "    return softmax(S) @ V",
            ("below -1e5",),
        ),
        (
            "def attention(Q, K, V, mask=None):\n"
            "    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))\n"
            "    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n"
            "    S = S if mask is None else S - 1e4 * ~np.asarray(mask, dtype=bool)\n"
            "    return softmax(S) @ V",
            ("below -1e5",),
        ),
    ],
    ("attention", "causal_mask"): [
        (
            "_T = np.tril(np.ones((600, 600), dtype=bool))\n\n\ndef causal_mask(n):\n    return _T[:n, :n]",
            ("601 to 2000",),
        ),
    ],
    ("cross-entropy", "cross_entropy"): [
        (
            "def cross_entropy(y_true, y_pred):\n"
            "    y, p = np.asarray(y_true, dtype=float), np.asarray(y_pred, dtype=float)\n"
            "    return float(np.mean(-np.sum(y * np.log(p), axis=-1)))",
            ("a zero where", "certain and right", "certain and wrong: +inf"),
        ),
        (
            "def cross_entropy(y_true, y_pred):\n"
            "    y, p = np.asarray(y_true, dtype=float), np.asarray(y_pred, dtype=float)\n"
            "    return float(np.mean(-np.sum(y * np.log(np.clip(p, 1e-12, 1)), axis=-1)))",
            ("certain and wrong: +inf", "nearly certain and wrong"),
        ),
    ],
    ("cross-entropy", "cross_entropy_from_logits"): [
        (
            "def cross_entropy_from_logits(logits, targets):\n"
            "    z = np.asarray(logits, dtype=float)\n"
            "    p = np.exp(z) / np.exp(z).sum(-1, keepdims=True)\n"
            "    return float(-np.mean(np.log(np.take_along_axis(p, np.asarray(targets)[..., None], -1))))",
            ("a list", "spread of about 2000", "spreads of", "apart", "about 20000"),
        ),
        (LOGITS_UNDERFLOW, ("a list", "spreads of", "apart")),
        (
            "def cross_entropy_from_logits(logits, targets):\n"
            "    z = np.asarray(logits, dtype=float).astype(np.longdouble)\n"
            "    lse = np.log(np.sum(np.exp(z), axis=-1))\n"
            "    picked = np.take_along_axis(z, np.asarray(targets)[..., None], -1)[..., 0]\n"
            "    return float(np.mean(lse - picked))",
            ("about 20000",),
        ),
    ],
    ("backward-passes", "ce_backward"): [
        (
            "def ce_backward(Z, y):\n"
            "    Z, y = np.asarray(Z, dtype=float), np.asarray(y)\n"
            "    e = np.exp(Z)\n"
            "    return (e / e.sum(-1, keepdims=True) - np.eye(Z.shape[-1])[y]) / y.size",
            ("spread of about 2000", "a loss of"),
        ),
        (
            "def ce_backward(Z, y):\n"
            "    Z, y = np.asarray(Z, dtype=float), np.asarray(y)\n"
            "    def loss(Z):\n"
            "        m = Z.max(-1, keepdims=True)\n"
            "        lse = m[..., 0] + np.log(np.exp(Z - m).sum(-1))\n"
            "        return np.mean(lse - np.take_along_axis(Z, y[..., None], -1)[..., 0])\n"
            "    E = np.eye(Z.size).reshape(Z.size, *Z.shape) * 1e-5\n"
            "    return np.array([(loss(Z + e) - loss(Z - e)) / 2e-5 for e in E]).reshape(Z.shape)",
            ("a loss of",),
        ),
        (
            "def ce_backward(Z, y):\n"
            "    Z, y = np.asarray(Z, dtype=float), np.asarray(y)\n"
            "    e = np.exp(np.clip(Z, -700, 700))\n"
            "    return (e / e.sum(-1, keepdims=True) - np.eye(Z.shape[-1])[y]) / y.size",
            ("near 1000",),
        ),
    ],
    ("backward-passes", "layer_norm_backward"): [
        (
            "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n"
            "    dy, x, gamma = (np.asarray(a, dtype=float) for a in (dy, x, gamma))\n"
            "    s = x.std(-1, keepdims=True)\n"
            "    xh, g = (x - x.mean(-1, keepdims=True)) / s, dy * gamma\n"
            "    ax = tuple(range(x.ndim - 1))\n"
            "    dx = (g - g.mean(-1, keepdims=True) - xh * (g * xh).mean(-1, keepdims=True)) / s\n"
            "    return dx, (dy * xh).sum(ax), dy.sum(ax)",
            ("eps matters",),
        ),
        (
            "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n"
            "    dy, x, gamma = (np.asarray(a, dtype=float) for a in (dy, x, gamma))\n"
            "    def normed(X):\n"
            "        return (X - X.mean(-1, keepdims=True)) / np.sqrt(X.var(-1, keepdims=True) + eps)\n"
            "    E = np.eye(x.size).reshape(x.size, *x.shape) * 1e-4\n"
            "    f = lambda X: (dy * gamma * normed(X)).reshape(len(X), -1).sum(1)\n"
            "    dx = ((f(x + E) - f(x - E)) / 2e-4).reshape(x.shape)\n"
            "    ax = tuple(range(x.ndim - 1))\n"
            "    return dx, (dy * normed(x)).sum(ax), dy.sum(ax)",
            ("dy of 1e6",),
        ),
    ],
    ("backward-passes", "attention_backward"): [
        (
            "def attention_backward(dO, Q, K, V, mask):\n"
            "    dO, Q, K, V = (np.asarray(a, dtype=float) for a in (dO, Q, K, V))\n"
            "    def loss(Q, K, V):\n"
            "        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n"
            "        S = S if mask is None else np.where(mask, S, -np.inf)\n"
            "        return np.sum(dO * (softmax(S) @ V))\n"
            "    grads = []\n"
            "    for which in range(3):\n"
            "        args = [Q, K, V]\n"
            "        G = np.zeros_like(args[which])\n"
            "        for i in np.ndindex(G.shape):\n"
            "            up, down = list(args), list(args)\n"
            "            up[which], down[which] = args[which].copy(), args[which].copy()\n"
            "            up[which][i] += 1e-5\n"
            "            down[which][i] -= 1e-5\n"
            "            G[i] = (loss(*up) - loss(*down)) / 2e-5\n"
            "        grads.append(G)\n"
            "    return tuple(grads)",
            ("values near 1e7", "weights near one-hot"),
        ),
        (
            "def attention_backward(dO, Q, K, V, mask):\n"
            "    dO, Q, K, V = (np.asarray(a, dtype=float) for a in (dO, Q, K, V))\n"
            "    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n"
            "    S = S if mask is None else np.where(mask, S, -np.inf)\n"
            "    P = np.exp(S)\n"
            "    P /= P.sum(-1, keepdims=True)\n"
            "    dP = dO @ np.swapaxes(V, -1, -2)\n"
            "    dS = P * (dP - np.sum(P * dP, -1, keepdims=True)) / np.sqrt(Q.shape[-1])\n"
            "    return dS @ K, np.swapaxes(dS, -1, -2) @ Q, np.swapaxes(P, -1, -2) @ dO",
            ("past 700",),
        ),
        (
            "def attention_backward(dO, Q, K, V, mask):\n"
            "    dO, Q, K, V = (np.asarray(a, dtype=float) for a in (dO, Q, K, V))\n"
            "    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n"
            "    S = S if mask is None else S + np.where(mask, 0.0, -1e11)\n"
            "    P = softmax(S)\n"
            "    dP = dO @ np.swapaxes(V, -1, -2)\n"
            "    dS = P * (dP - np.sum(P * dP, -1, keepdims=True)) / np.sqrt(Q.shape[-1])\n"
            "    return dS @ K, np.swapaxes(dS, -1, -2) @ Q, np.swapaxes(P, -1, -2) @ dO",
            ("masked scores 1e10 above",),
        ),
    ],
    ("adam", "m_after_steps"): [
        (
            "def m_after_steps(g, beta1, t):\n"
            "    m = 0.0\n"
            "    for _ in range(t):\n"
            "        m = beta1 * m + (1 - beta1) * np.asarray(g, dtype=float)\n"
            "    return m",
            ("thousands", "near 10**12"),
        ),
        (
            "def m_after_steps(g, beta1, t):\n"
            "    return (1 - beta1) * np.asarray(g, dtype=float) * np.sum(beta1 ** np.arange(t))",
            ("near 10**12",),
        ),
        (
            "def m_after_steps(g, beta1, t):\n"
            "    return (1 - beta1) * np.asarray(g, dtype=float) * np.sum(beta1 ** np.arange(min(t, 10**6)))",
            ("1e10 or so",),
        ),
    ],
    ("transformer-block", "layer_norm"): [
        (LN_NO_EPS, ("variance is 0", "eps matters")),
        (
            "def layer_norm(x, gamma, beta, eps=1e-5):\n"
            "    x = np.asarray(x, dtype=float)\n"
            "    mean = x.mean(-1, keepdims=True)\n"
            "    var = (x**2).mean(-1, keepdims=True) - mean**2\n"
            "    return gamma * (x - mean) / np.sqrt(var + eps) + beta",
            ("near 1e8",),
        ),
        (
            "def layer_norm(x, gamma, beta, eps=1e-5):\n"
            "    x = np.asarray(x, dtype=float)\n"
            "    c = x - x.mean(-1, keepdims=True)\n"
            "    return gamma * c / np.sqrt((c**2).mean(-1, keepdims=True) + 1e-5) + beta",
            ("another eps",),
        ),
    ],
    ("transformer-block", "feed_forward"): [
        (
            "def feed_forward(C, W_1, b_1, W_2, b_2):\n"
            "    C = np.asarray(C, dtype=np.float32)\n"
            "    H = np.maximum(C @ W_1.astype(np.float32) + b_1.astype(np.float32), 0)\n"
            "    return (H @ W_2.astype(np.float32) + b_2.astype(np.float32)).astype(float)",
            ("near 1e4",),
        ),
    ],
    ("transformer-block", "transformer_block"): [
        (
            "_right = transformer_block\n\n\ndef transformer_block(x, p, n_heads):\n"
            "    return _right(x, {k: np.asarray(v, dtype=np.float32) for k, v in p.items()}, n_heads)",
            ("near 1e4",),
        ),
    ],
    ("transformer-block", "forward_pass"): [
        (
            "_right = forward_pass\n\n\ndef forward_pass(params, tokens, n_heads):\n"
            "    return _right({k: np.asarray(v, dtype=np.float32) for k, v in params.items()}, tokens, n_heads)",
            ("near 1e4",),
        ),
    ],
    ("depth-rmsnorm-rope", "stream_sizes"): [
        (
            "_right = stream_sizes\n\n\ndef stream_sizes(params, tokens, n_heads):\n"
            "    return _right({k: np.asarray(v, dtype=np.float32) for k, v in params.items()}, tokens, n_heads)",
            ("about 1e4",),
        ),
    ],
    ("depth-rmsnorm-rope", "rms_norm"): [
        (
            "def rms_norm(x, gamma, eps=1e-6):\n"
            "    x = np.asarray(x, dtype=float)\n"
            "    return gamma * x / np.sqrt((x**2).mean(-1, keepdims=True))",
            ("eps matters", "tokens of zeros"),
        ),
        (
            "def rms_norm(x, gamma, eps=1e-6):\n"
            "    x = np.asarray(x, dtype=float)\n"
            "    return gamma * x / np.sqrt((x**2).mean(-1, keepdims=True) + 1e-6)",
            ("another eps",),
        ),
        (
            "def rms_norm(x, gamma, eps=1e-6):\n"
            "    x = np.asarray(x, dtype=np.float32)\n"
            "    return gamma * x / np.sqrt((x**2).mean(-1, keepdims=True) + eps)",
            ("past float32",),
        ),
    ],
    ("depth-rmsnorm-rope", "layer_norm_from_rms"): [
        (
            "def layer_norm_from_rms(x, gamma, eps=1e-5):\n"
            "    x = np.asarray(x, dtype=float)\n"
            "    return rms_norm(x - x.mean(-1, keepdims=True), gamma)",
            ("eps matters", "another eps"),
        )
    ],
    ("depth-rmsnorm-rope", "apply_rope"): [
        (
            "def apply_rope(x, positions, base=10000.0):\n"
            "    x = np.asarray(x, dtype=float)\n"
            "    d = x.shape[-1]\n"
            "    angle = np.arange(x.shape[-2])[:, None] * base ** (-np.arange(0, d, 2) / d)\n"
            "    c, s = np.cos(angle), np.sin(angle)\n"
            "    out = np.empty_like(x)\n"
            "    out[..., 0::2] = x[..., 0::2] * c - x[..., 1::2] * s\n"
            "    out[..., 1::2] = x[..., 0::2] * s + x[..., 1::2] * c\n"
            "    return out",
            ("not 0, 1, 2", "past 50"),
        ),
        (
            "def apply_rope(x, positions, base=10000.0):\n"
            "    x = np.asarray(x, dtype=float)\n"
            "    d = x.shape[-1]\n"
            "    angle = np.asarray(positions)[:, None] * 10000.0 ** (-np.arange(0, d, 2) / d)\n"
            "    c, s = np.cos(angle), np.sin(angle)\n"
            "    out = np.empty_like(x)\n"
            "    out[..., 0::2] = x[..., 0::2] * c - x[..., 1::2] * s\n"
            "    out[..., 1::2] = x[..., 0::2] * s + x[..., 1::2] * c\n"
            "    return out",
            ("another base",),
        ),
        (
            "def apply_rope(x, positions, base=10000.0):\n"
            "    x = np.asarray(x, dtype=float)\n"
            "    d = x.shape[-1]\n"
            "    angle = (np.asarray(positions)[:, None] * base ** (-np.arange(0, d, 2) / d)).astype(np.float32)\n"
            "    c, s = np.cos(angle), np.sin(angle)\n"
            "    out = np.empty_like(x)\n"
            "    out[..., 0::2] = x[..., 0::2] * c - x[..., 1::2] * s\n"
            "    out[..., 1::2] = x[..., 0::2] * s + x[..., 1::2] * c\n"
            "    return out",
            ("in the thousands",),
        ),
    ],
    ("depth-rmsnorm-rope", "rope_attention_scores"): [
        (
            "_right = rope_attention_scores\n\n\ndef rope_attention_scores(X, W_Q, W_K, n_heads):\n"
            "    X, W_Q, W_K = (np.asarray(a, dtype=np.float32) for a in (X, W_Q, W_K))\n"
            "    return _right(X, W_Q, W_K, n_heads)",
            ("offset of 1e5",),
        ),
    ],
    ("autodiff-mlp", "mul"): [
        (
            "class Measured(Value):\n"
            "    def __mul__(self, other):\n"
            "        other = other if isinstance(other, Value) else Value(other)\n"
            "        out = Value(self.data * other.data, (self, other))\n"
            "        def _backward():\n"
            "            h = 1e-6\n"
            "            self.grad += ((self.data + h) * other.data - self.data * other.data) / h * out.grad\n"
            "            other.grad += (self.data * (other.data + h) - self.data * other.data) / h * out.grad\n"
            "        out._backward = _backward\n"
            "        return out",
            ("near 1e17",),
        ),
        (
            "class Measured(Value):\n"
            "    def __mul__(self, other):\n"
            "        other = other if isinstance(other, Value) else Value(other)\n"
            "        out = Value(self.data * other.data, (self, other))\n"
            "        def _backward():\n"
            "            self.grad += out.data / self.data * out.grad\n"
            "            other.grad += out.data / other.data * out.grad\n"
            "        out._backward = _backward\n"
            "        return out",
            ("a = 0",),
        ),
    ],
}
ANSWER = {"mul": "Value"}  # the check of a backward rule is given the class
NAIVE_NAME = {"mul": "Measured"}


@pytest.fixture(scope="module")
def solved_labs() -> dict[str, dict]:
    """Each lab's namespace after its solved cells, up to the last check tested here (no check cell run)."""
    found = {}
    for lab in sorted({lab for lab, _ in NAIVE}):
        notebook = solved(jupytext.read(ROOT / "docs" / "labs" / f"{lab}.py"))
        calls = [f'check("{name}"' for each, name in NAIVE if each == lab]
        last = max(i for i, cell in enumerate(notebook.cells) if any(call in cell.source for call in calls))
        namespace = {"__name__": "__main__"}
        with contextlib.redirect_stdout(io.StringIO()):
            for cell in notebook.cells[:last]:
                if cell.cell_type == "code" and not CHECK_CALL.search(cell.source):
                    exec(compile(cell.source, "<cell>", "exec"), namespace)  # noqa: S102 - the notebook's cells
        found[lab] = namespace
    return found


def judged(check, function, case) -> list[str] | None:
    """What the check says of ``function`` on one case: the lines of a failure, or None."""
    try:
        check.run_case(function, snapshot(case), snapshot(case))
    except Verdict as verdict:
        return verdict.lines
    return None


# The naive answers overflow and divide by zero on the hard cases, as they are meant to: NumPy warns, the check refuses.
@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("lab, name", sorted(NAIVE), ids=[f"{lab}-{name}" for lab, name in sorted(NAIVE)])
def test_every_draw_of_a_hard_case_is_passed_by_the_solution_and_failed_by_the_naive_answers(lab, name, solved_labs):
    namespace = solved_labs[lab]
    check = namespace["check"].checks[name]
    solution = namespace[ANSWER.get(name, name)]
    naive = []
    for source, kinds in NAIVE[(lab, name)]:
        mine = dict(namespace)
        exec(compile(source, "<cell>", "exec"), mine)  # noqa: S102 - a learner's cell
        naive.append((mine[NAIVE_NAME.get(name, name)], kinds))
    for seed in range(DRAWS):
        hard = [case for case in check.cases(np.random.default_rng(seed)) if case.fresh and case.time_limit is None]
        assert hard, f"{name} has no hard case drawn anew"
        for case in hard:
            assert judged(check, solution, case) is None, f"draw {seed}: the solution fails {case.about!r}"
            meant = [function for function, kinds in naive if any(kind in case.about for kind in kinds)]
            assert meant, f"{case.about!r} is there for no naive answer"
            for function in meant:
                assert judged(check, function, case), f"draw {seed}: a naive answer passes {case.about!r}"


def test_the_hard_cases_are_drawn_anew_at_every_run_and_the_others_stay(monkeypatch):
    """A table of a check's fixed cases, rebuilt from its generator and answered by its reference before the run,
    with a naive softmax behind it, fails: the cases that overflow are not the table's."""
    from transformer_math.labs import softmax as softmax_lab
    from transformer_math.labs.cases import generator

    monkeypatch.setattr(lab_cases_module, "PINNED", None)  # as in a notebook: the operating system's randomness
    check = softmax_lab.check.checks["softmax"]
    fixed = check.cases(generator("softmax"))
    table = {np.asarray(c.args[0], dtype=float).tobytes(): check.reference(*c.args) for c in fixed}

    def from_the_table(x):
        x = np.asarray(x, dtype=float)
        if x.tobytes() in table:
            return table[x.tobytes()]
        e = np.exp(x)
        return e / e.sum(axis=-1, keepdims=True)

    run = check.this_run("softmax", check.cases(generator("softmax")))
    assert [case.fresh for case in run[: len(fixed)]] == [case.fresh for case in fixed]
    for old, new in zip(fixed, run):
        kept = np.array_equal(np.asarray(old.args[0]), np.asarray(new.args[0]))
        assert kept != old.fresh, old.about
    out = io.StringIO()
    with contextlib.redirect_stdout(out), np.errstate(all="ignore"):
        softmax_lab.check("softmax", from_the_table)
    assert out.getvalue().startswith("Wrong: softmax - case 2 of 13"), out.getvalue()
