"""What a check says names what is really wrong: the type a function returned, the part of the exercise missed; and
a right answer is not refused for an edge the exercise does not ask about."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import jupytext
import numpy as np

from tools.labs import solved
from transformer_math.labs import (
    adam,
    autodiff_mlp,
    backward_passes,
    depth_rmsnorm_rope,
    matrix_operations,
    measured,
    softmax,
    train_transformer,
)

AUTODIFF = Path(__file__).resolve().parents[2] / "docs" / "labs" / "autodiff-mlp.py"

RMS_NORM = """def rms_norm(x, gamma, eps=1e-6):
    x = np.asarray(x, dtype=float)
    return gamma * x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps)
"""


def said(check, name: str, value) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        check(name, value)
    return out.getvalue()


def learners(source: str, name: str):
    namespace = {"__name__": "__main__", "np": np}
    exec(compile(RMS_NORM + source, "<cell>", "exec"), namespace)  # noqa: S102 - a learner's cell
    return namespace[name]


def test_gamma_applied_outside_rms_norm_is_named_as_such_not_as_uncentred_tokens():
    outside = learners(
        "def layer_norm_from_rms(x, gamma, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n"
        "    return gamma * rms_norm(x - np.mean(x, -1, keepdims=True), np.ones(x.shape[-1]), eps)\n",
        "layer_norm_from_rms",
    )
    lines = said(depth_rmsnorm_rope.check, "layer_norm_from_rms", outside).splitlines()
    assert lines[0].startswith("Wrong: layer_norm_from_rms - case 1 of"), lines
    assert lines[1].strip() == depth_rmsnorm_rope.GAMMA
    beside = learners(
        "def layer_norm_from_rms(x, gamma, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n"
        "    c = x - x.mean(axis=-1, keepdims=True)\n"
        "    scale = rms_norm(np.ones_like(c), np.ones_like(gamma), 0.0)\n"
        "    return gamma * c / np.sqrt(np.mean(c**2, axis=-1, keepdims=True) + eps) * scale\n",
        "layer_norm_from_rms",
    )
    assert said(depth_rmsnorm_rope.check, "layer_norm_from_rms", beside).splitlines()[1].strip() == (
        depth_rmsnorm_rope.CENTRED
    )


def test_a_layer_norm_of_their_own_rescaled_by_a_ratio_from_rms_norm_is_named_and_rms_norm_alone_passes():
    rescaled = learners(
        "def layer_norm_from_rms(x, gamma, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n"
        "    r = rms_norm(x - x.mean(axis=-1, keepdims=True), gamma, eps)\n"
        "    own = gamma * (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(x.var(axis=-1, keepdims=True) + eps)\n"
        "    return own * (r[..., :1] / own[..., :1])\n",
        "layer_norm_from_rms",
    )
    lines = said(depth_rmsnorm_rope.check, "layer_norm_from_rms", rescaled).splitlines()
    assert lines[0].startswith("Wrong: layer_norm_from_rms - case 1 of"), lines
    assert lines[1].strip() == depth_rmsnorm_rope.RESCALED
    through = learners(
        "def layer_norm_from_rms(x, gamma, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n"
        "    return rms_norm(x - x.mean(axis=-1, keepdims=True), gamma, eps)\n",
        "layer_norm_from_rms",
    )
    assert said(depth_rmsnorm_rope.check, "layer_norm_from_rms", through).startswith("Correct: layer_norm_from_rms")


def test_a_softmax_cast_to_float32_is_refused_for_float64_scores_and_kept_float32_is_not():
    def cast(x):
        x = np.asarray(x, dtype=float)
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)

    lines = said(softmax.check, "softmax", cast).splitlines()
    assert lines[0].startswith("Wrong: softmax - case 1 of"), lines
    assert lines[1].strip() == "the result is float32 where the input was float64: keep the input's precision"

    def kept(x):
        x = np.asarray(x)
        x = x.astype(np.result_type(x, np.float32))
        e = np.exp(x - x.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    assert said(softmax.check, "softmax", kept).startswith("Correct: softmax")


def test_no_sequences_to_train_on_may_come_back_in_any_empty_shape():
    def make_datasets(digits, order, n_train):
        seqs = [[*d, 5, *d[::-1]] for d in np.asarray(digits).tolist()]
        order = list(order)
        return np.array([seqs[i] for i in order[:n_train]]), np.array([seqs[i] for i in order[n_train:]])

    assert said(train_transformer.check, "make_datasets", make_datasets) == "Correct: make_datasets - 8 hidden cases\n"


def test_a_set_returned_for_an_order_is_called_a_set():
    def topological_order(root):
        found, stack = set(), [root]
        while stack:
            v = stack.pop()
            if v not in found:
                found.add(v)
                stack.extend(v.parents)
        return found

    assert said(autodiff_mlp.check, "topological_order", topological_order) == (
        "Wrong: topological_order - case 1 of 8: root = Value(a) (one value, no parents)\n"
        "  it returned a set, not a list of values\n"
    )


def test_a_product_flattened_by_repeat_and_tile_is_called_vectorised_and_uncounted_pairs_are_not_called_unmultiplied():
    def flattened(X, Y):
        X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)
        n, m, p = X.shape[0], X.shape[1], Y.shape[1]
        C, kept = np.zeros(n * p), []  # the copies kept alive, so that their entries' addresses stay their own
        for k in range(m):
            a, b = np.repeat(X[:, k], p), np.tile(Y[k], n)
            kept += [a, b]
            C = C + a * b
        return C.reshape(n, p)

    assert (
        said(matrix_operations.check, "matmul", flattened)
        .splitlines()[1]
        .strip()
        .startswith("it multiplied arrays into a result of shape (4,): every row with every column at once")
    )

    def on_plain_views(X, Y):
        X, Y = np.asarray(X, dtype=float).view(np.ndarray), np.asarray(Y, dtype=float).view(np.ndarray)
        out = np.zeros((X.shape[0], Y.shape[1]))
        for i in range(X.shape[0]):
            for j in range(Y.shape[1]):
                out[i, j] = np.sum(X[i] * Y[:, j])
        return out

    assert (
        said(matrix_operations.check, "matmul", on_plain_views)
        .splitlines()[1]
        .strip()
        .startswith(
            "for a 2 x 2 times 2 x 2 product the check could follow 0 of the 8 pairs X[i][k], Y[k][j] being multiplied"
        )
    )


EPS_HAT_ADAM = """def adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):
    theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))
    m = beta1 * m + (1 - beta1) * g
    v = beta2 * v + (1 - beta2) * g * g
    alpha_t = lr * np.sqrt(1 - beta2**t) / (1 - beta1**t)
    return theta - alpha_t * m / (np.sqrt(v) + eps), m, v


def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):
    theta = np.asarray(theta, dtype=float)
    new, m, v = adam_step(theta, g, m, v, t, lr, beta1, beta2, eps)
    return new - lr * weight_decay * theta, m, v
"""


def test_kingma_and_ba_epsilon_hat_written_independently_is_named_not_called_a_copy():
    namespace = {"__name__": "__main__", "np": np}
    exec(compile(EPS_HAT_ADAM, "<cell>", "exec"), namespace)  # noqa: S102 - a learner's cell
    step = said(adam.check, "adam_step", namespace["adam_step"]).splitlines()
    assert step[0].startswith("Wrong: adam_step - case 1 of"), step
    assert step[-1].strip() == adam.EPS_HAT
    decayed = said(adam.check, "adamw_step", namespace["adamw_step"]).splitlines()
    assert decayed[0].startswith("Wrong: adamw_step - case 1 of"), decayed
    assert decayed[-1].strip() == adam.EPS_HAT_IN_ADAMW


def test_a_looped_backward_pass_without_weights_is_told_to_use_whole_arrays_not_products_of_weights():
    """ce_backward and layer_norm_backward in pure Python, past the step budget: the advice is theirs (whole-array
    operations), not the words for a backward pass with weights (ce_backward and LayerNorm's dx have none)."""
    import math

    def ce_backward(Z, y):
        z, t = np.asarray(Z, dtype=float), np.asarray(y)
        rows = []
        for row, target in zip(z.reshape(-1, z.shape[-1]).tolist(), t.reshape(-1).tolist()):
            top = max(row)
            e = [math.exp(v - top) for v in row]
            total = sum(e)
            rows.append([p / total - (j == target) for j, p in enumerate(e)])
        return np.array(rows).reshape(z.shape) / t.size

    def layer_norm_backward(dy, x, gamma, eps=1e-5):
        dy, x = np.asarray(dy, dtype=float), np.asarray(x, dtype=float)
        d, dx = x.shape[-1], []
        for row, up in zip(x.reshape(-1, x.shape[-1]).tolist(), dy.reshape(-1, x.shape[-1]).tolist()):
            mu = sum(row) / d
            s = math.sqrt(sum((v - mu) ** 2 for v in row) / d + eps)
            xhat, g = [(v - mu) / s for v in row], [u * c for u, c in zip(up, gamma)]
            g_mean, gx_mean = sum(g) / d, sum(a * b for a, b in zip(g, xhat)) / d
            dx.append([(a - g_mean - h * gx_mean) / s for a, h in zip(g, xhat)])
        xhat = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps)
        axes = tuple(range(x.ndim - 1))
        return np.array(dx).reshape(x.shape), (dy * xhat).sum(axis=axes), dy.sum(axis=axes)

    for name, function, advice in [
        ("ce_backward", ce_backward, "Write it with whole-array operations on Z, with no loop"),
        ("layer_norm_backward", layer_norm_backward, "Write it with whole-array operations along the last axis"),
    ]:
        printed = said(backward_passes.check, name, function)
        assert printed.startswith(f"Wrong: {name} - case"), printed
        assert "steps of Python" in printed and advice in printed, printed
        assert "X^T" not in printed and "weight" not in printed, printed


# tanh rebuilt from + * /, inverted at t = out.data by bisection, its slope refined by Richardson: written in t,
# so it follows t; within 1e-12 of 1 - t^2; a hundred thousand Python steps where the rule takes a few.
REBUILT_TANH_RULE = "        def _exp(x):\n            term, total, k = 1.0, 1.0, 1\n            while abs(term) > 1e-18 * abs(total):\n                term, k = term * x / k, k + 1\n                total += term\n            return total\n\n        def _tanh(x):\n            e = _exp(2 * x)\n            return (e - 1) / (e + 1)\n\n        lo, hi = -20.0, 20.0\n        for _ in range(80):\n            mid = (lo + hi) / 2\n            lo, hi = (mid, hi) if _tanh(mid) < out.data else (lo, mid)\n        x0 = (lo + hi) / 2\n        h, table = 0.2 * (1 - abs(out.data)) + 1e-3, []\n        for i in range(6):\n            row = [(_tanh(x0 + h) - _tanh(x0 - h)) / (2 * h)]\n            for j in range(i):\n                row.append(row[j] + (row[j] - table[i - 1][j]) / (3.0, 15.0, 63.0, 255.0, 1023.0)[j])\n            table.append(row)\n            h /= 2\n        self.grad += table[-1][-1] * out.grad\n"


def test_a_tanh_rule_that_rebuilds_and_inverts_tanh_is_refused_by_its_step_budget():
    namespace = {"__name__": "__main__"}
    for cell in solved(jupytext.read(AUTODIFF)).cells:
        if cell.cell_type == "code" and not re.search(r"^check\(", cell.source, re.M):
            exec(compile(cell.source, "<cell>", "exec"), namespace)  # noqa: S102 - the notebook's cells
            if "Value.tanh = tanh" in cell.source:
                break
    rule = (
        "def tanh(self):\n    out = Value(math.tanh(self.data), (self,))\n\n    def _backward():\n"
        + REBUILT_TANH_RULE
        + "\n    out._backward = _backward\n    return out\n\n\nValue.tanh = tanh\n"
    )
    assert said(autodiff_mlp.check, "tanh", namespace["Value"]).startswith("Correct: tanh")
    exec(compile(rule, "<cell>", "exec"), namespace)  # noqa: S102 - the learner's cell
    lines = said(autodiff_mlp.check, "tanh", namespace["Value"]).splitlines()
    assert lines[0].startswith("Wrong: tanh - case 1 of"), lines
    assert "steps of Python" in lines[1] and lines[1].endswith(autodiff_mlp.RULE_ADVICE), lines


def test_a_gradient_near_but_not_exact_is_told_that_a_derived_one_is_exact():
    """A gradient within 0.1% (as a difference measures it), and one far off: only the first hears that a derived
    gradient is exact to rounding."""

    def near(Z, y):
        Z, y = np.asarray(Z, dtype=float), np.asarray(y)
        p = np.exp(Z - Z.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        p[..., 0] *= 1 + 1e-6  # a measured gradient's error, about
        return (p - np.eye(Z.shape[-1])[y]) / y.size

    def far(Z, y):
        return near(Z, y) * 2

    lines = said(backward_passes.check, "ce_backward", near).splitlines()
    assert lines[0].startswith("Wrong: ce_backward - case 1 of"), lines
    assert lines[-1].strip() == measured.NEAR, lines
    assert measured.NEAR not in said(backward_passes.check, "ce_backward", far)


def test_adam_with_epsilon_inside_the_root_is_named_as_that():
    def adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):
        theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))
        m, v = beta1 * m + (1 - beta1) * g, beta2 * v + (1 - beta2) * g * g
        return theta - lr * (m / (1 - beta1**t)) / np.sqrt(v / (1 - beta2**t) + eps), m, v

    lines = said(adam.check, "adam_step", adam_step).splitlines()
    assert lines[0].startswith("Wrong: adam_step - case 1 of"), lines
    assert lines[-1].strip() == adam.EPS_INSIDE, lines
