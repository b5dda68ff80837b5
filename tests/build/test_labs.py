"""The Practice labs: run as published, with their reference solutions, and with typical mistakes.

A lab (``docs/labs/*.py``, jupytext percent format) has cells tagged ``exercise`` with a ``...`` for
the learner to replace, each followed by a Markdown cell holding the reference solution (a ``python``
fence in a folded ``<details>`` block), and check cells that call ``check(name, answer, expected)``,
which prints one verdict per call: ``Correct: name``, ``Wrong: name ...`` or ``Not yet: name ...``.

* As published (the notebook a reader downloads), every check says "Not yet".
* With every exercise replaced by its solution, every check says "Correct": the build runs the labs solved,
  and the site's pages must show that (``test_lab_pages_show_the_solved_run...``).
* With one exercise replaced by a typical mistake, that exercise's checks say "Wrong".
"""

from __future__ import annotations

import copy
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import jupytext
import nbformat
import pytest
from nbclient import NotebookClient

from tests.background import background
from tools.kernels import KernelManager
from tools.labs import exercises, solution, solved, with_code

ROOT = Path(__file__).resolve().parents[2]
LABS = sorted(path for path in (ROOT / "docs" / "labs").glob("*.py") if not path.name.startswith("_"))
VERDICT = re.compile(
    r"^(?P<verdict>Correct|Wrong|Not yet): (?P<name>.*?)(?: - | is\b| has\b| raised\b| contains\b|$)", re.M
)

# lab -> [(exercise number, wrong code, names of the checks that must say "Wrong")]
MISTAKES = {
    "matrix-operations": [
        (1, "total = A + B\ndifference = B - A\nelementwise = A @ B", ["difference", "elementwise"]),
        (2, "entry_0_1 = 1 * 5 + 2 * 7  # row 0 times column 0", ["entry_0_1"]),
        (3, "product = A * B\ntransposed = A", ["product", "transposed"]),
        (4, "def matmul(X, Y):\n    return np.asarray(X) * np.asarray(Y)", ["matmul(C, D)"]),
        (
            4,
            "def matmul(X, Y):\n    X, Y = np.asarray(X), np.asarray(Y)\n    n, m = X.shape\n"
            "    result = np.zeros((n, n))\n    for i in range(n):\n        for j in range(n):\n"
            "            for k in range(m):\n                result[i, j] += X[i, k] * Y[k, j]\n    return result",
            ["matmul(C, D)"],
        ),
    ],
    "softmax": [
        (
            1,
            "def softmax(x):\n    exp = np.exp(np.asarray(x, dtype=float))\n    return exp / np.sum(exp)",
            ["softmax([1000, 1001, 1002])"],
        ),
        (
            1,
            "def softmax(x):\n    x = np.asarray(x, dtype=float)\n    return np.exp(x - np.max(x))",
            ["softmax([2.5, 1.2, 0.3, 3.1])", "sum of softmax([1, 2, 3])"],
        ),
        (
            2,
            "def softmax_with_temperature(x, temperature):\n    return softmax(np.asarray(x) * temperature)",
            ["T = 0.5", "T = 10"],
        ),
        (
            3,
            "def softmax_rows(S):\n    exp = np.exp(S - np.max(S))\n    return exp / np.sum(exp)",
            ["softmax_rows(S)", "softmax_rows(huge)"],
        ),
    ],
    "cross-entropy": [
        (1, "loss_at_one_half = np.log10(2)", ["loss_at_one_half"]),
        (
            2,
            "def cross_entropy(y_true, y_pred):\n    return np.sum(np.asarray(y_true) * np.log(np.clip(y_pred, 1e-15, 1)))",
            ["cross_entropy(y, [0.1, 0.8, 0.1])", "a confident wrong answer"],
        ),
        (
            2,
            "def cross_entropy(y_true, y_pred):\n    return -np.sum(np.asarray(y_true) * np.log(np.asarray(y_pred)))",
            ["a confident right answer", "a confident wrong answer"],
        ),
        (
            3,
            "def cross_entropy_from_logits(logits, target):\n    z = np.asarray(logits, dtype=float)\n"
            "    return np.log(np.sum(np.exp(z))) - z[target]",
            ["huge logits"],
        ),
    ],
    "attention": [
        (1, "Q = X @ W_Q\nK = X @ W_Q\nV = X @ W_V", ["K"]),
        (2, "score_1_0 = -2  # q_0 . k_1, the other way round", ["score_1_0"]),
        (3, "d_k = 2\nS = Q @ K.T", ["S"]),
        (4, "exp = np.exp(S)\nweights = exp / np.sum(exp, axis=0, keepdims=True)", ["weights", "row sums of weights"]),
        (5, "out = weights.T @ V", ["out"]),
        (
            6,
            "causal = np.triu(np.ones((4, 4), dtype=bool))\nmasked = np.where(causal, S, -np.inf)\n"
            "exp = np.exp(masked - np.max(masked, axis=-1, keepdims=True))\n"
            "masked_weights = exp / np.sum(exp, axis=-1, keepdims=True)",
            ["causal", "masked_weights"],
        ),
        (
            6,
            "causal = np.tril(np.ones((4, 4), dtype=bool))\nmasked = np.where(causal, S, 0.0)\n"
            "exp = np.exp(masked - np.max(masked, axis=-1, keepdims=True))\n"
            "masked_weights = exp / np.sum(exp, axis=-1, keepdims=True)",
            ["masked_weights"],
        ),
        (
            7,
            "def attend(Q, K, V, mask):\n    scores = np.where(mask, Q @ K.T / np.sqrt(2), -np.inf)\n"
            "    exp = np.exp(scores - np.max(scores, axis=-1, keepdims=True))\n"
            "    return exp / np.sum(exp, axis=-1, keepdims=True) @ V\n\n"
            "two_heads = np.concatenate([attend(Q[:, [h]], K[:, [h]], V[:, [h]], causal) for h in range(2)], axis=1)",
            ["two_heads"],
        ),
    ],
    "autodiff-mlp": [
        (
            1,
            "def topological_order(root):\n    order, seen = [], set()\n\n    def visit(v):\n"
            "        if id(v) not in seen:\n            seen.add(id(v))\n            order.append(v)\n"
            "            for parent in v.parents:\n                visit(parent)\n\n    visit(root)\n    return order",
            ["every value after its parents", "grads of (a + b) + a"],
        ),
        (
            1,
            "def topological_order(root):\n    order = []\n\n    def visit(v):\n"
            "        for parent in v.parents:\n            visit(parent)\n        order.append(v)\n\n"
            "    visit(root)\n    return order",
            ["length of the order"],
        ),
        (
            2,
            "def mul(self, other):\n    other = other if isinstance(other, Value) else Value(other)\n"
            "    out = Value(self.data * other.data, (self, other))\n\n    def _backward():\n"
            "        self.grad += self.data * out.grad\n        other.grad += other.data * out.grad\n\n"
            "    out._backward = _backward\n    return out\n\nValue.__mul__ = mul",
            ["grads of a * b"],
        ),
        (
            2,
            "def mul(self, other):\n    other = other if isinstance(other, Value) else Value(other)\n"
            "    out = Value(self.data * other.data, (self, other))\n\n    def _backward():\n"
            "        self.grad = other.data * out.grad\n        other.grad = self.data * out.grad\n\n"
            "    out._backward = _backward\n    return out\n\nValue.__mul__ = mul",
            ["grad of x * x"],
        ),
        (
            3,
            "def tanh(self):\n    t = math.tanh(self.data)\n    out = Value(t, (self,))\n\n    def _backward():\n"
            "        self.grad += (1 - self.data**2) * out.grad\n\n    out._backward = _backward\n    return out\n\n"
            "Value.tanh = tanh",
            ["grads of tanh(w x + b)"],
        ),
        (
            4,
            "def sgd_step(params, lr):\n    for p in params:\n        p.data += lr * p.grad",
            ["one step from 1.0 with grad 0.5", "loss below 0.1 after 100 steps", "training accuracy"],
        ),
    ],
    "backward-passes": [
        (1, "grad_by_hand = [1 / 3, 2 / 3, 1 / 3]", ["grad_by_hand"]),
        (
            2,
            "def ce_backward(Z, y):\n    return softmax(Z) - np.eye(Z.shape[-1])[y]",
            ["ce_backward(Z, y)", "gradient_check of ce_backward"],
        ),
        (
            2,
            "def ce_backward(Z, y):\n    return (np.eye(Z.shape[-1])[y] - softmax(Z)) / len(y)",
            ["ce_backward(Z, y)", "gradient_check of ce_backward"],
        ),
        (
            3,
            "def ln_param_grads(dy, x, eps=1e-5):\n    return np.sum(dy * x, axis=0), dy",
            ["dgamma", "dbeta", "gradient_check of dgamma"],
        ),
        (
            4,
            "def ln_dx(dy, x, gamma, eps=1e-5):\n    s = np.sqrt(x.var(axis=-1, keepdims=True) + eps)\n"
            "    g = gamma * dy\n    return (g - g.mean(axis=-1, keepdims=True)) / s",
            ["ln_dx", "gradient_check of ln_dx"],
        ),
        (
            4,
            "def ln_dx(dy, x, gamma, eps=1e-5):\n    s = np.sqrt(x.var(axis=-1, keepdims=True) + eps)\n"
            "    x_hat = (x - x.mean(axis=-1, keepdims=True)) / s\n"
            "    return (dy - dy.mean(axis=-1, keepdims=True) - x_hat * (dy * x_hat).mean(axis=-1, keepdims=True)) / s",
            ["ln_dx", "gradient_check of ln_dx"],
        ),
    ],
    "adam": [
        (
            1,
            "beta1, g = 0.9, 2.0\nm_raw, m_hat = [], []\nm = 0.0\nfor t in range(1, 6):\n"
            "    m = beta1 * m + (1 - beta1) * g\n    m_raw.append(m)\n    m_hat.append(m / (1 - beta1))",
            ["m_hat"],
        ),
        (
            2,
            "def adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):\n"
            "    m = beta1 * m + (1 - beta1) * g\n    v = beta2 * v + (1 - beta2) * g**2\n"
            "    return theta - lr * m / (np.sqrt(v) + eps), m, v",
            ["theta after 3 Adam steps"],
        ),
        (
            2,
            "def adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):\n"
            "    m = beta1 * m + (1 - beta1) * g\n    v = beta2 * v + (1 - beta2) * g\n"
            "    m_hat, v_hat = m / (1 - beta1**t), v / (1 - beta2**t)\n"
            "    return theta - lr * m_hat / (np.sqrt(np.abs(v_hat)) + eps), m, v",
            ["theta after 3 Adam steps", "v after 3 Adam steps"],
        ),
        (3, "uncorrected_first_step = 0.1", ["uncorrected_first_step"]),
        (
            4,
            "def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):\n"
            "    return adam_step(theta, g + weight_decay * theta, m, v, t, lr, beta1, beta2, eps)",
            ["theta after 3 AdamW steps", "m after 3 AdamW steps", "AdamW after 10 steps"],
        ),
        (
            4,
            "def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):\n"
            "    theta = theta - weight_decay * theta\n    return adam_step(theta, g, m, v, t, lr, beta1, beta2, eps)",
            ["theta after 3 AdamW steps", "AdamW after 10 steps"],
        ),
        (
            5,
            "def adam_l2_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01):\n"
            "    return adamw_step(theta, g, m, v, t, lr, weight_decay)",
            ["Adam + L2 after 10 steps"],
        ),
    ],
    "train-transformer": [
        (
            1,
            "def make_example(digits):\n    return list(digits) + [SEP] + list(digits)",
            ["make_example([3, 1, 4, 1])", "make_example([0, 1, 2, 3])"],
        ),
        (
            2,
            "seqs = np.array([make_example(d) for d in all_digits])\ntrain_seqs, test_seqs = seqs[:200], seqs[200:]",
            ["first training sequence"],
        ),
        (
            2,
            "seqs = np.array([make_example(all_digits[i]) for i in order])\ntrain_seqs, test_seqs = seqs[:200], seqs",
            ["shape of test_seqs", "held-out sequences seen in training"],
        ),
        (
            3,
            "inputs = train_seqs[:, :-1]\ntargets = train_seqs[:, :-1]",
            ["targets[0]", "held-out accuracy above 0.95"],
        ),
        (
            4,
            "def answer_accuracy(params, seqs):\n    logits, _ = forward(params, seqs[:, :-1], n_heads=2)\n"
            "    return np.mean(np.argmax(logits, axis=-1) == seqs[:, 1:])",
            ["answer_accuracy of the untrained model"],
        ),
        (
            4,
            "def answer_accuracy(params, seqs):\n    logits, _ = forward(params, seqs[:, :-1], n_heads=2)\n"
            "    return np.mean(np.argmax(logits[:, 4:], axis=-1) == seqs[:, 4:8])",
            ["answer_accuracy of the untrained model", "held-out accuracy above 0.95"],
        ),
    ],
}


def load(lab: Path) -> nbformat.NotebookNode:
    return jupytext.read(lab)


def run(notebook) -> list[tuple[str, str]]:
    """Execute the notebook in a fresh kernel; return the (verdict, check name) of every check call."""
    executed = copy.deepcopy(notebook)
    NotebookClient(
        executed,
        timeout=60,
        kernel_name="python3",
        resources={"metadata": {"path": str(ROOT)}},
        kernel_manager_class=KernelManager,
    ).execute()
    printed = "".join(
        output.get("text", "")
        for cell in executed.cells
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "stream" and output.name == "stdout"
    )
    return [(match.group("verdict"), match.group("name")) for match in VERDICT.finditer(printed)]


def check_calls(notebook) -> int:
    return sum(
        len(re.findall(r"^check\(", cell.source, re.M))
        for cell in notebook.cells
        if cell.cell_type == "code" and "def check(" not in cell.source
    )


CASES = {}
for _lab in LABS:
    CASES[(_lab.stem, "published")] = lambda lab=_lab: load(lab)
    for _k, (_number, _code, _) in enumerate(MISTAKES.get(_lab.stem, [])):
        CASES[(_lab.stem, f"mistake {_k}")] = lambda lab=_lab, n=_number, c=_code: with_code(solved(load(lab)), {n: c})


@background
def verdicts():
    """Every case of every lab, run in parallel kernels (one kernel per run)."""
    with ThreadPoolExecutor(max_workers=4) as pool:
        futures = {key: pool.submit(lambda make=make: run(make())) for key, make in CASES.items()}
        return {key: future.result() for key, future in futures.items()}


def test_every_lab_is_in_the_nav_and_has_exercises_with_solutions():
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert LABS, "no labs in docs/labs/"
    for lab in LABS:
        assert f"labs/{lab.name}" in nav, f"{lab.name} is not in the nav of mkdocs.yml"
        notebook = load(lab)
        assert exercises(notebook), f"{lab.name} has no cell tagged exercise"
        for index in exercises(notebook):
            assert "..." in notebook.cells[index].source, f"{lab.name}: exercise cell {index} has no ... to replace"
            solution(notebook, index)
        assert lab.stem in MISTAKES, f"{lab.name}: add typical mistakes to MISTAKES"


@pytest.mark.parametrize("lab", [lab.stem for lab in LABS])
def test_published_lab_says_not_yet_to_every_check(lab, verdicts):
    found = verdicts[(lab, "published")]
    assert len(found) == check_calls(load(ROOT / "docs" / "labs" / f"{lab}.py"))
    assert all(verdict == "Not yet" for verdict, _ in found), found


@pytest.mark.parametrize(
    "lab, case, number, expected_wrong",
    [(lab, k, number, names) for lab, mistakes in MISTAKES.items() for k, (number, _, names) in enumerate(mistakes)],
)
def test_typical_mistakes_fail_their_checks(lab, case, number, expected_wrong, verdicts):
    found = dict((name, verdict) for verdict, name in verdicts[(lab, f"mistake {case}")])
    for name in expected_wrong:
        assert found.get(name) == "Wrong", f"{lab}, exercise {number}: check {name!r} said {found.get(name)}"
