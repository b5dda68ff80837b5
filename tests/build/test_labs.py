"""The Practice labs: run as published, with their reference solutions, and with typical mistakes.

A lab (``docs/labs/*.py``, jupytext percent format) has cells tagged ``exercise`` with a ``...`` for
the learner to replace, each followed by a Markdown cell holding the reference solution (a ``python``
fence in a folded ``<details>`` block), and check cells that call ``check(name, answer, expected)``,
which prints one verdict per call: ``Correct: name``, ``Wrong: name ...`` or ``Not yet: name ...``.

* As published (the notebook a reader downloads), every check says "Not yet".
* With every exercise replaced by its solution, every check says "Correct": the build runs the labs solved,
  and the site's pages must show that (``test_lab_pages_show_the_solved_run...``).
* With one exercise replaced by a typical mistake, that exercise's checks say "Wrong".
* With one exercise replaced by another right answer than the reference (``RIGHT``), its checks say "Correct".
"""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import jupytext
import nbformat
import pytest
from nbclient import NotebookClient

from tests.background import background
from tests.build import lab_cases_depth
from tools.kernels import KernelManager
from tools.labs import exercises, solution, solved

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
        # right numbers by a shortcut: @, np.dot in the loops, einsum, broadcasting, the library, .dot, an alias
        (4, "def matmul(X, Y):\n    return np.asarray(X) @ np.asarray(Y)", ["matmul written with loops"]),
        (
            4,
            "def matmul(X, Y):\n    X, Y = np.asarray(X), np.asarray(Y)\n    result = np.zeros((X.shape[0], Y.shape[1]))\n"
            "    for i in range(X.shape[0]):\n        for j in range(Y.shape[1]):\n"
            "            result[i, j] = np.dot(X[i], Y[:, j])\n    return result",
            ["matmul written with loops"],
        ),
        (4, "def matmul(X, Y):\n    return np.einsum('ik,kj->ij', X, Y)", ["matmul written with loops"]),
        (
            4,
            "def matmul(X, Y):\n    X, Y = np.asarray(X), np.asarray(Y)\n"
            "    return (X[:, :, None] * Y[None, :, :]).sum(axis=1)",
            ["matmul written with loops"],
        ),
        (
            4,
            "from transformer_math.linalg import matmul_loops\n\n\ndef matmul(X, Y):\n    return matmul_loops(X, Y)",
            ["matmul written with loops"],
        ),
        (4, "def matmul(X, Y):\n    return np.asarray(X).dot(Y)", ["matmul written with loops"]),
        (
            4,
            "def dot(u, v):\n    return np.dot(u, v)\n\n\n"
            "def matmul(X, Y):\n    X, Y = np.asarray(X), np.asarray(Y)\n    result = np.zeros((X.shape[0], Y.shape[1]))\n"
            "    for i in range(X.shape[0]):\n        for j in range(Y.shape[1]):\n"
            "            result[i, j] = dot(X[i], Y[:, j])\n    return result",
            ["matmul written with loops"],
        ),
        (
            4,
            "from numpy import tensordot as t\n\n\ndef matmul(X, Y):\n"
            "    return np.array([[t(X, Y, 1)[i, j] for j in range(2 if len(Y[0]) == 2 else 1)] for i in range(2)])",
            ["matmul written with loops"],
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
    "transformer-block": [
        # LayerNorm over the whole array, or over the tokens, instead of each token's features
        (
            1,
            "def layer_norm(x, gamma, beta, eps=1e-5):\n    return gamma * (x - x.mean()) / np.sqrt(x.var() + eps) + beta",
            ["layer_norm(X0, ln1_g, ln1_b)"],
        ),
        (
            1,
            "def layer_norm(x, gamma, beta, eps=1e-5):\n"
            "    return gamma * (x - x.mean(axis=0)) / np.sqrt(x.var(axis=0) + eps) + beta",
            ["layer_norm(X0, ln1_g, ln1_b)"],
        ),
        # the library's LayerNorm: the numbers match, the code check must not
        (
            1,
            "def layer_norm(x, gamma, beta, eps=1e-5):\n    from transformer_math.stats import layer_norm as ln\n"
            "    return ln(x, gamma, beta, eps=eps)",
            ["own code: layer_norm"],
        ),
        # no causal mask; the scale of the full width; heads cut by a reshape without the transpose
        (
            2,
            "def self_attention(A, W_Q, W_K, W_V, W_O, n_heads):\n    n, d = A.shape\n    d_head = d // n_heads\n"
            "    Q, K, V = A @ W_Q, A @ W_K, A @ W_V\n    heads = []\n    for l in range(n_heads):\n"
            "        c = slice(l * d_head, (l + 1) * d_head)\n        s = Q[:, c] @ K[:, c].T / np.sqrt(d_head)\n"
            "        w = np.exp(s - s.max(axis=-1, keepdims=True))\n"
            "        heads.append(w / w.sum(axis=-1, keepdims=True) @ V[:, c])\n"
            "    return np.concatenate(heads, axis=1) @ W_O",
            ["self_attention(A)"],
        ),
        (
            2,
            "def self_attention(A, W_Q, W_K, W_V, W_O, n_heads):\n    n, d = A.shape\n    d_head = d // n_heads\n"
            "    Q, K, V = A @ W_Q, A @ W_K, A @ W_V\n    causal = np.tril(np.ones((n, n), dtype=bool))\n"
            "    heads = []\n    for l in range(n_heads):\n        c = slice(l * d_head, (l + 1) * d_head)\n"
            "        s = np.where(causal, Q[:, c] @ K[:, c].T / np.sqrt(d), -np.inf)\n"
            "        w = np.exp(s - s.max(axis=-1, keepdims=True))\n"
            "        heads.append(w / w.sum(axis=-1, keepdims=True) @ V[:, c])\n"
            "    return np.concatenate(heads, axis=1) @ W_O",
            ["self_attention(A)"],
        ),
        (
            2,
            "def self_attention(A, W_Q, W_K, W_V, W_O, n_heads):\n    n, d = A.shape\n    d_head = d // n_heads\n"
            "    q, k, v = ((A @ W).reshape(n_heads, n, d_head) for W in (W_Q, W_K, W_V))\n"
            "    s = np.where(np.tril(np.ones((n, n), dtype=bool)), q @ k.transpose(0, 2, 1) / np.sqrt(d_head), -np.inf)\n"
            "    w = np.exp(s - s.max(axis=-1, keepdims=True))\n    o = (w / w.sum(axis=-1, keepdims=True)) @ v\n"
            "    return o.reshape(n, d) @ W_O",
            ["self_attention(A)"],
        ),
        # the library's attention, through a module alias: right numbers, caught by the code check, also in forward_pass
        (
            2,
            "import transformer_math.attention as tma\n\n\n"
            "def self_attention(A, W_Q, W_K, W_V, W_O, n_heads):\n"
            "    return tma.multi_head_attention(A, W_Q, W_K, W_V, W_O, n_heads=n_heads, mask=tma.causal_mask(len(A)))[0]",
            ["own code: self_attention", "own code: forward_pass"],
        ),
        # ReLU after W_2 instead of between the layers
        (
            3,
            "def feed_forward(C, W_1, b_1, W_2, b_2):\n    return np.maximum((C @ W_1 + b_1) @ W_2 + b_2, 0.0)",
            ["feed_forward(A)"],
        ),
        # the library's ReLU (autograd's Value), entry by entry: right numbers, caught by the code check
        (
            3,
            "from transformer_math.autograd import Value\n\n\n"
            "def feed_forward(C, W_1, b_1, W_2, b_2):\n"
            "    relu = np.vectorize(lambda u: Value(float(u)).relu().data)\n"
            "    return relu(C @ W_1 + b_1) @ W_2 + b_2",
            ["own code: feed_forward"],
        ),
        # post-LN (the original's order); no final LayerNorm; the library's forward; the expected values copied
        (
            4,
            "def forward_pass(params, tokens, n_heads=2):\n    p = params\n"
            "    x0 = p['W_E'][tokens] + positional_encoding(len(tokens), p['W_E'].shape[1])\n"
            "    x1 = layer_norm(x0 + self_attention(x0, p['W_Q'], p['W_K'], p['W_V'], p['W_O'], n_heads), p['ln1_g'], p['ln1_b'])\n"
            "    x2 = layer_norm(x1 + feed_forward(x1, p['W_1'], p['b_1'], p['W_2'], p['b_2']), p['ln2_g'], p['ln2_b'])\n"
            "    return layer_norm(x2, p['lnf_g'], p['lnf_b']) @ p['W_U']",
            ["logits of 'the cat sat on'", "logits of 'the mat the cat sat'"],
        ),
        (
            4,
            "def forward_pass(params, tokens, n_heads=2):\n    p = params\n"
            "    x0 = p['W_E'][tokens] + positional_encoding(len(tokens), p['W_E'].shape[1])\n"
            "    x1 = x0 + self_attention(layer_norm(x0, p['ln1_g'], p['ln1_b']), p['W_Q'], p['W_K'], p['W_V'], p['W_O'], n_heads)\n"
            "    x2 = x1 + feed_forward(layer_norm(x1, p['ln2_g'], p['ln2_b']), p['W_1'], p['b_1'], p['W_2'], p['b_2'])\n"
            "    return x2 @ p['W_U']",
            ["logits of 'the cat sat on'", "logits of 'the mat the cat sat'"],
        ),
        (
            4,
            "def forward_pass(params, tokens, n_heads=2):\n    from transformer_math.model import forward\n"
            "    return forward(params, tokens, n_heads)[0]",
            ["own code: forward_pass"],
        ),
        (
            4,
            "def forward_pass(params, tokens, n_heads=2):\n    return EXPECTED_LOGITS",
            ["logits of 'the mat the cat sat'"],
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
        # attention: P dO instead of P^T dO; the softmax rule without its row sum; no 1/sqrt(d_k); dS Q for dK
        (
            5,
            "def attention_backward(dO, Q, K, V, mask):\n    S = np.where(mask, Q @ K.T / np.sqrt(Q.shape[-1]), -np.inf)\n    P = softmax(S)\n"
            "    dS = P * (dO @ V.T - np.sum(P * (dO @ V.T), axis=-1, keepdims=True))\n"
            "    return dS @ K / np.sqrt(3), dS.T @ Q / np.sqrt(3), P @ dO",
            ["gradient_check of dV"],
        ),
        (
            5,
            "def attention_backward(dO, Q, K, V, mask):\n    S = np.where(mask, Q @ K.T / np.sqrt(Q.shape[-1]), -np.inf)\n    P = softmax(S)\n"
            "    dS = P * (dO @ V.T)\n    return dS @ K / np.sqrt(3), dS.T @ Q / np.sqrt(3), P.T @ dO",
            ["gradient_check of dQ", "gradient_check of dK"],
        ),
        (
            5,
            "def attention_backward(dO, Q, K, V, mask):\n    S = np.where(mask, Q @ K.T / np.sqrt(Q.shape[-1]), -np.inf)\n    P = softmax(S)\n"
            "    dS = P * (dO @ V.T - np.sum(P * (dO @ V.T), axis=-1, keepdims=True))\n"
            "    return dS @ K, dS.T @ Q, P.T @ dO",
            ["gradient_check of dQ", "gradient_check of dK"],
        ),
        (
            5,
            "def attention_backward(dO, Q, K, V, mask):\n    S = np.where(mask, Q @ K.T / np.sqrt(Q.shape[-1]), -np.inf)\n    P = softmax(S)\n"
            "    dS = P * (dO @ V.T - np.sum(P * (dO @ V.T), axis=-1, keepdims=True))\n"
            "    return dS @ K / np.sqrt(3), dS @ Q / np.sqrt(3), P.T @ dO",
            ["gradient_check of dK"],
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
        # a measure that is wrong but says 1 when every answer is right: only a check away from 1 catches it
        (
            4,
            "def answer_accuracy(params, seqs):\n    logits, _ = forward(params, seqs[:, :-1], n_heads=2)\n"
            "    return np.mean(np.argmax(logits[:, 4:], axis=-1) == seqs[:, 5:]) ** 0.25",
            ["answer_accuracy of the untrained model", "answer_accuracy on unreversed answers"],
        ),
        # a prediction that is not one of the two words
        (5, 'prediction = {"one head": "yes", "no positions": "fails"}', ["prediction recorded"]),
        # the chance of a guess among five digits, or of the right position only, instead of copying any input digit
        (6, "copy_any_digit = 1 / 5", ["copy_any_digit"]),
        (6, "copy_any_digit = np.mean(test_seqs[:, :4] == test_seqs[:, 5:])", ["copy_any_digit"]),
    ],
    "depth-rmsnorm-rope": lab_cases_depth.MISTAKES,  # the lab's eight exercises, in a file of their own
}

# lab -> [(exercise number, right code other than the reference solution, names of the checks that must say "Correct")]
RIGHT = {
    "matrix-operations": [
        # the learner's own loop helper named like numpy's dot, called inside two loops
        (
            4,
            "def dot(u, v):\n    total = 0.0\n    for k in range(len(u)):\n        total += u[k] * v[k]\n    return total\n\n\n"
            "def matmul(X, Y):\n    X, Y = np.asarray(X), np.asarray(Y)\n    result = np.zeros((X.shape[0], Y.shape[1]))\n"
            "    for i in range(X.shape[0]):\n        for j in range(Y.shape[1]):\n"
            "            result[i, j] = dot(X[i], Y[:, j])\n    return result",
            ["matmul(A, B)", "matmul(C, D)", "matmul written with loops"],
        ),
        # a harmless import of numpy inside the function
        (
            4,
            "def matmul(X, Y):\n    import numpy as np\n\n    X, Y = np.asarray(X), np.asarray(Y)\n"
            "    result = np.zeros((X.shape[0], Y.shape[1]))\n    for i in range(X.shape[0]):\n"
            "        for j in range(Y.shape[1]):\n            result[i, j] = sum(X[i, k] * Y[k, j] for k in range(X.shape[1]))\n"
            "    return result",
            ["matmul(A, B)", "matmul(C, D)", "matmul written with loops"],
        ),
    ],
    "depth-rmsnorm-rope": lab_cases_depth.RIGHT,
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


def variants(lab: str) -> list[tuple[str, int, str]]:
    """The lab's mistakes and other right answers: (case, exercise number, code)."""
    return [(f"mistake {k}", number, code) for k, (number, code, _) in enumerate(MISTAKES.get(lab, []))] + [
        (f"right {k}", number, code) for k, (number, code, _) in enumerate(RIGHT.get(lab, []))
    ]


def run_variants(lab: Path) -> dict[tuple[str, str], list[tuple[str, str]]]:
    """Every mistake and right answer of a lab, each a whole run of the solved lab with one exercise changed
    (tests/build/lab_runner.py runs the cells before the change once, and forks)."""
    notebook = solved(load(lab))
    code = [index for index, cell in enumerate(notebook.cells) if cell.cell_type == "code"]
    position = {number: code.index(index) for number, index in enumerate(exercises(notebook), start=1)}
    request = {
        "cells": [notebook.cells[index].source for index in code],
        "cases": [[case, position[number], source] for case, number, source in variants(lab.stem)],
    }
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "src")]),
        "MPLBACKEND": "Agg",
        "OPENBLAS_NUM_THREADS": "1",
    }
    result = subprocess.run(
        [sys.executable, "-m", "tests.build.lab_runner"],
        input=json.dumps(request),
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
    )
    if result.returncode != 0:
        raise RuntimeError(f"{lab.name}: the lab runner failed:\n{result.stderr}")
    answers = json.loads(result.stdout)
    found = {}
    for case, answer in answers.items():
        if "error" in answer:
            raise RuntimeError(f"{lab.name}, {case}: a cell raised\n{answer['error']}")
        found[(lab.stem, case)] = [(m.group("verdict"), m.group("name")) for m in VERDICT.finditer(answer["printed"])]
    return found


@background
def verdicts():
    """Every lab as published, in a fresh kernel each (as the reader downloads it), and every mistake and right
    answer, in one process per lab."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        published = {lab.stem: pool.submit(run, load(lab)) for lab in LABS}
        changed = [pool.submit(run_variants, lab) for lab in LABS]
        found = {(lab, "published"): future.result() for lab, future in published.items()}
        for future in changed:
            found.update(future.result())
        return found


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


@pytest.mark.parametrize(
    "lab, case, number, expected_right",
    [(lab, k, number, names) for lab, answers in RIGHT.items() for k, (number, _, names) in enumerate(answers)],
)
def test_other_right_answers_pass_their_checks(lab, case, number, expected_right, verdicts):
    found = dict((name, verdict) for verdict, name in verdicts[(lab, f"right {case}")])
    for name in expected_right:
        assert found.get(name) == "Correct", f"{lab}, exercise {number}: check {name!r} said {found.get(name)}"
