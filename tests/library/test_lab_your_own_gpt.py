"""The capstone's checks as a learner meets them: what a failure line names, and which exercise it blames."""

from __future__ import annotations

import re
import types
from pathlib import Path

import jupytext
import pytest

from tests.build.lab_cases.your_own_gpt_cache import CACHE_MISTAKES
from tools.labs import solved

NOTEBOOK = Path(__file__).resolve().parents[2] / "docs" / "labs" / "your-own-gpt.py"
CHECK_CALL = re.compile(r"^check\(", re.M)


@pytest.fixture(scope="module")
def notebook() -> dict:
    """The solved notebook's namespace, every code cell run up to the training loop's, its checks left out."""
    namespace = {"__name__": "__main__"}
    for cell in solved(jupytext.read(NOTEBOOK)).cells:
        if cell.cell_type == "code" and not CHECK_CALL.search(cell.source):
            exec(compile(cell.source, "<cell>", "exec"), namespace)  # noqa: S102 - the notebook's cells
            if "def train(" in cell.source:
                return namespace
    raise AssertionError("no train exercise in the lab")


def verdict(namespace: dict, source: str, name: str, capsys) -> str:
    """What ``check(name, ...)`` prints after ``source`` ran in a copy of the notebook's namespace."""
    mine = dict(namespace)
    exec(compile(source, "<cell>", "exec"), mine)  # noqa: S102 - the learner's cell
    capsys.readouterr()
    mine["check"](name, mine[name])
    return capsys.readouterr().out


def test_a_block_backward_failure_names_its_own_arguments(notebook, capsys):
    """block_backward takes (dx2, p, cache, n_heads): the case line and a changed input say dx2 and the cache."""
    source = (
        "_right = block_backward\n\n\n"
        "def block_backward(dx2, p, cache, n_heads):\n"
        "    result = _right(dx2, p, cache, n_heads)\n    dx2 *= 0.5\n    return result\n"
    )
    printed = verdict(notebook, source, "block_backward", capsys)
    assert printed.startswith("Wrong: block_backward - case 1 of 8: dx2 of shape (4, 8), float64"), printed
    assert "p: a dict of 12 arrays, cache of x of shape (4, 8), float64" in printed
    assert "your function changed its input dx2:" in printed


IN_PLACE_BLOCK = """
def block_forward(x, p, n_heads):
    n = x.shape[-2]
    mask = np.tril(np.ones((n, n), dtype=bool))
    a = layer_norm(x, p["ln1_g"], p["ln1_b"])
    q, k, v = (split_heads(a @ p[name], n_heads) for name in ("W_Q", "W_K", "W_V"))
    o = merge_heads(attention(q, k, v, mask))
    x1 = x + o @ p["W_O"]
    c = layer_norm(x1, p["ln2_g"], p["ln2_b"])
    u = c @ p["W_1"] + p["b_1"]
    r = np.maximum(u, 0.0)
    cache = {"x": x, "a": a, "q": q, "k": k, "v": v, "mask": mask, "o": o, "x1": x1, "c": c, "u": u, "r": r}
    x1 += r @ p["W_2"] + p["b_2"]
    return x1, cache
"""


def test_a_cache_written_over_in_place_is_blamed_on_block_forward_not_on_a_right_block_backward(notebook, capsys):
    printed = verdict(notebook, IN_PLACE_BLOCK, "block_forward", capsys)
    assert printed.startswith("Wrong: block_forward - case 1 of 6"), printed
    assert "x2 is right, but cache['x1'] is the very array you return as x2" in printed
    mine = dict(notebook)
    exec(compile(IN_PLACE_BLOCK, "<cell>", "exec"), mine)  # noqa: S102 - the learner's cell
    right = types.FunctionType(notebook["block_backward"].__code__, mine)  # the solution's, in this namespace
    mine["check"]("block_backward", right)
    printed = capsys.readouterr().out
    assert printed.startswith("Not yet: block_backward - it needs your block_forward to pass its check first: "), (
        printed
    )
    assert "cache['x1'] is the very array you return as x2" in printed


def test_train_without_a_call_of_gpt_backward_is_told_so(notebook, capsys):
    """The gradients from a renamed copy of the backward pass: right numbers, but not the learner's gpt_backward."""
    source = (
        "_copy = type(gpt_backward)(gpt_backward.__code__.replace(co_name='_copy'), globals())\n"
        + "def train(params, batches, n_heads, lr=3e-3, weight_decay=0.1):\n"
        + "    m = {name: np.zeros_like(value) for name, value in params.items()}\n"
        + "    v = {name: np.zeros_like(value) for name, value in params.items()}\n"
        + "    losses = []\n"
        + "    for t, (x, y) in enumerate(batches, start=1):\n"
        + "        logits, cache = gpt_forward(params, x, n_heads)\n"
        + "        losses.append(cross_entropy(logits, y))\n"
        + "        grads = _copy(params, cache, ce_backward(logits, y))\n"
        + "        for name in params:\n"
        + "            decay = weight_decay if params[name].ndim >= 2 else 0.0\n"
        + "            params[name], m[name], v[name] = adamw_step(params[name], grads[name], m[name], v[name], t, lr, decay)\n"
        + "    return losses\n"
    )
    printed = verdict(notebook, source, "train", capsys)
    assert printed.startswith("Wrong: train - case 1 of 4"), printed
    assert "it called your gpt_backward 0 times for 2 batches" in printed


MEASURED_TRAIN = (
    "def gpt_backward(params, cache, dlogits):\n    return {k: np.zeros_like(v) for k, v in params.items()}\n\n\n"
    "def train(params, batches, n_heads, lr=3e-3, weight_decay=0.1):\n"
    "    m = {k: np.zeros_like(v) for k, v in params.items()}\n    s = {k: np.zeros_like(v) for k, v in params.items()}\n"
    "    losses = []\n"
    "    for t, (x, y) in enumerate(batches, start=1):\n"
    "        logits, cache = gpt_forward(params, x, n_heads)\n"
    "        losses.append(cross_entropy(logits, y))\n"
    "        gpt_backward(params, cache, ce_backward(logits, y))\n"
    "        grads = {}\n"
    "        for name, W in params.items():\n"
    "            g = grads[name] = np.zeros_like(W)\n"
    "            for i in np.ndindex(W.shape):\n"
    "                old = W[i]\n"
    "                W[i] = old + 1e-5\n"
    "                up = cross_entropy(gpt_forward(params, x, n_heads)[0], y)\n"
    "                W[i] = old - 1e-5\n"
    "                g[i] = (up - cross_entropy(gpt_forward(params, x, n_heads)[0], y)) / 2e-5\n"
    "                W[i] = old\n"
    "        for name in params:\n"
    "            decay = weight_decay if params[name].ndim >= 2 else 0.0\n"
    "            params[name], m[name], s[name] = adamw_step(params[name], grads[name], m[name], s[name], t, lr, decay)\n"
    "    return losses\n"
)


def test_a_train_that_ignores_gpt_backwards_result_is_told_so(notebook, capsys):
    """A gradient measured from the loss, with gpt_backward a stub of zeros called only to be counted: refused at
    train's first case, saying the step does not use what gpt_backward returned."""
    printed = verdict(notebook, MEASURED_TRAIN, "train", capsys)
    assert printed.startswith("Wrong: train - case 1 of 4:"), printed
    assert "the step does not use what your gpt_backward returned" in printed, printed


def test_a_train_that_takes_only_the_signs_from_gpt_backward_is_told_so(notebook, capsys):
    """The gradient measured from the loss, each entry given the sign of what the (right) gpt_backward returned:
    AdamW's first step sees only the signs, its second the sizes, which the check changed at every call."""
    source = MEASURED_TRAIN.split("\n\n\n", 1)[1]
    source = source.replace(
        "        gpt_backward(params, cache, ce_backward(logits, y))\n",
        "        derived = gpt_backward(params, cache, ce_backward(logits, y))\n",
    ).replace(
        "        for name in params:\n            decay",
        "        grads = {name: np.abs(g) * np.sign(derived[name]) for name, g in grads.items()}\n"
        "        for name in params:\n            decay",
    )
    assert "np.sign(derived" in source
    printed = verdict(notebook, source, "train", capsys)
    assert printed.startswith("Wrong: train - case 1 of 4:"), printed
    assert "the step takes only the signs of what your gpt_backward returned" in printed, printed


def test_a_looped_ce_backward_is_advised_for_ce_backward(notebook, capsys):
    """A ce_backward in pure Python past the step budget: the advice names whole-array operations on Z, not the
    weights' products of block_backward's advice (ce_backward has no weights)."""
    source = (
        "def ce_backward(logits, targets):\n"
        "    z, t = np.asarray(logits, dtype=float), np.asarray(targets)\n"
        "    rows = []\n"
        "    for row, y in zip(z.reshape(-1, z.shape[-1]).tolist(), t.reshape(-1).tolist()):\n"
        "        top = max(row)\n"
        "        e = [math.exp(v - top) for v in row]\n"
        "        total = sum(e)\n"
        "        rows.append([p / total - (j == y) for j, p in enumerate(e)])\n"
        "    return np.array(rows).reshape(z.shape) / t.size\n"
    )
    printed = verdict(notebook, "import math\n\n\n" + source, "ce_backward", capsys)
    assert printed.startswith("Wrong: ce_backward - case"), printed
    assert "steps of Python" in printed and "Write it with whole-array operations on Z" in printed, printed
    assert "X^T" not in printed and "weight" not in printed, printed


def test_a_train_that_decays_the_wrong_parameters_is_told_which(notebook, capsys):
    """AdamW's decay on every parameter, on none, or on the vectors alone: the failure names where the decay went."""
    head = (
        "def train(params, batches, n_heads, lr=3e-3, weight_decay=0.1):\n"
        "    m = {name: np.zeros_like(value) for name, value in params.items()}\n"
        "    v = {name: np.zeros_like(value) for name, value in params.items()}\n    losses = []\n"
        "    for t, (x, y) in enumerate(batches, start=1):\n        logits, cache = gpt_forward(params, x, n_heads)\n"
        "        losses.append(cross_entropy(logits, y))\n"
        "        grads = gpt_backward(params, cache, ce_backward(logits, y))\n        for name in params:\n"
    )
    step = (
        "            params[name], m[name], v[name] = adamw_step(params[name], grads[name], m[name], v[name], t, lr, "
        "decay)\n    return losses\n"
    )
    for decay, said in [
        ("weight_decay", "the decay reached the vectors too"),
        ("0.0", "no parameter was decayed"),
        ("weight_decay if params[name].ndim < 2 else 0.0", "the decay reached the vectors and not the matrices"),
    ]:
        printed = verdict(notebook, head + f"            decay = {decay}\n" + step, "train", capsys)
        assert printed.startswith("Wrong: train - case 2 of"), printed
        assert said in printed, printed


def test_a_train_that_measures_dlogits_instead_of_calling_ce_backward_is_told_so(notebook, capsys):
    """dlogits by central differences of the loss, fed to the learner's own gpt_backward: AdamW hardly sees the
    differences' errors, but the check scales what ce_backward returns at every call, and the steps miss it."""
    source = (
        "def train(params, batches, n_heads, lr=3e-3, weight_decay=0.1):\n"
        "    m = {k: np.zeros_like(v) for k, v in params.items()}\n    s = {k: np.zeros_like(v) for k, v in params.items()}\n"
        "    losses = []\n"
        "    for t, (x, y) in enumerate(batches, start=1):\n"
        "        logits, cache = gpt_forward(params, x, n_heads)\n"
        "        losses.append(cross_entropy(logits, y))\n"
        "        dl = np.zeros_like(logits)\n"
        "        for i in np.ndindex(logits.shape):\n"
        "            a, b = logits.copy(), logits.copy()\n"
        "            a[i] += 1e-6\n            b[i] -= 1e-6\n"
        "            dl[i] = (cross_entropy(a, y) - cross_entropy(b, y)) / 2e-6\n"
        "        grads = gpt_backward(params, cache, dl)\n"
        "        for name in params:\n"
        "            decay = weight_decay if params[name].ndim >= 2 else 0.0\n"
        "            params[name], m[name], s[name] = adamw_step(params[name], grads[name], m[name], s[name], t, lr, decay)\n"
        "    return losses\n"
    )
    printed = verdict(notebook, source, "train", capsys)
    assert printed.startswith("Wrong: train - case 1 of 4:"), printed
    assert "the step does not use what your ce_backward returned" in printed, printed


def test_blocks_cached_in_reverse_order_are_told_so(notebook, capsys):
    """The lab case's gpt_forward that keeps the blocks' caches last block first: refused, and told that."""
    (source,) = [v.code for v in CACHE_MISTAKES if v.about == "the blocks' caches in reverse order"]
    printed = verdict(notebook, source, "gpt_forward", capsys)
    assert printed.startswith("Wrong: gpt_forward - case"), printed
    assert "the blocks' caches are in reverse order" in printed, printed
