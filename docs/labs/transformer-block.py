# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lab: the Transformer block, from its formulas
#
# You write the forward pass of the guide's one-block Transformer with NumPy alone: LayerNorm,
# causal multi-head attention, the feed-forward layer, and the whole pass from tokens to logits. The
# numbers your code must reach were computed beforehand by the guide's library, from the same
# parameters, and are written into this notebook; the library itself is not imported. A second kind
# of check reads your code: it says **Wrong** if a function you wrote calls the library's `forward`,
# its attention or any other of its functions (a call that would match the numbers without teaching
# you anything).
#
# The formulas, for the rows $X$ of $n$ tokens ([The Transformer block](https://transformer-math.github.io/mathematics-for-transformers/part-4/block/)):
#
# $$
# \begin{aligned}
# X_0 &= W_E[t] + PE, \\
# X_1 &= X_0 + \operatorname{MHA}(\operatorname{LN}_1(X_0)), \\
# X_2 &= X_1 + \operatorname{FFN}(\operatorname{LN}_2(X_1)), \\
# Z &= \operatorname{LN}_f(X_2)\, W_U .
# \end{aligned}
# $$
#
# **How to work:** each cell tagged `exercise` has a `...` for you to replace. Run the `check` cell
# under it: it prints **Correct**, or what is wrong. Solutions are under "Solution", folded.

# %% [markdown]
# Run this cell first. It defines `check`, which compares your answer with the expected numbers, and
# `library_calls`, which lists the calls of a function of yours (and of the functions of yours it
# calls) that go to the guide's library `transformer_math`.

# %%
import ast
import inspect
import textwrap
import types

import numpy as np


def check(name, answer, expected, tol=1e-6):
    """Print "Correct: name" if answer() equals expected, else what's wrong."""
    try:
        got = answer()
        if got is Ellipsis:
            return print(f"Not yet: {name} - replace the ... in the exercise.")
        if got is None:
            return print(f"Wrong: {name} is None - a missing return?")
        if isinstance(expected, list):  # a list of the library calls found in your code
            if got == expected:
                return print(f"Correct: {name}")
            return print(f"Wrong: {name} - your code calls the library: {', '.join(got)}. Write it with NumPy.")
        got = np.asarray(got, dtype=float)
    except Exception as err:
        if "ellipsis" in str(err):  # an exercise this check needs still holds its ...
            return print(f"Not yet: {name} - replace the ... in the exercise.")
        return print(f"Wrong: {name} raised {type(err).__name__}: {err}")
    expected = np.asarray(expected, dtype=float)
    if got.shape != expected.shape:
        print(f"Wrong: {name} has shape {got.shape}, not {expected.shape}.")
    elif not np.all(np.isfinite(got)):
        print(f"Wrong: {name} contains inf or nan:\n{got}")
    elif not np.allclose(got, expected, rtol=0, atol=tol):
        print(f"Wrong: {name} is\n{np.round(got, 4)}\nbut should be\n{np.round(expected, 4)}")
    else:
        print(f"Correct: {name}")


def library_calls(function, seen=None):
    """The names of the calls to transformer_math in function's code, and in the functions of yours it calls."""
    seen = set() if seen is None else seen
    if function in seen:
        return []
    seen.add(function)
    found = []
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            modules = [alias.name for alias in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            found += [f"import {m}" for m in modules if m.split(".")[0] == "transformer_math"]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute):
            try:  # what the called name means where the function was defined
                target = eval(compile(ast.Expression(node.func), "<call>", "eval"), function.__globals__)
            except Exception:
                continue
            module = getattr(target, "__module__", None) or getattr(target, "__name__", "")
            if str(module).split(".")[0] == "transformer_math":
                found.append(ast.unparse(node.func))
            elif isinstance(target, types.FunctionType) and target.__module__ == function.__module__:
                found += library_calls(target, seen)
    return found


def yours(function, *args):
    """library_calls(function), or ... while function still returns its ..."""
    return ... if function(*args) is Ellipsis else library_calls(function)


# %% [markdown]
# The parameters, with the names and shapes of the library's `init_params` (gains near 1 and small
# shifts, so that a LayerNorm that forgets $\gamma$ or $\beta$ shows), and the sinusoidal positional
# encoding of [Embeddings](https://transformer-math.github.io/mathematics-for-transformers/part-4/embeddings/), given.

# %%
V, d, d_ff, n_heads = 5, 8, 16, 2
rng = np.random.default_rng(0)
params = {
    "W_E": rng.normal(size=(V, d)),
    "ln1_g": 1 + 0.2 * rng.normal(size=d),
    "ln1_b": 0.1 * rng.normal(size=d),
    "W_Q": rng.normal(size=(d, d)) / np.sqrt(d),
    "W_K": rng.normal(size=(d, d)) / np.sqrt(d),
    "W_V": rng.normal(size=(d, d)) / np.sqrt(d),
    "W_O": rng.normal(size=(d, d)) / np.sqrt(d),
    "ln2_g": 1 + 0.2 * rng.normal(size=d),
    "ln2_b": 0.1 * rng.normal(size=d),
    "W_1": rng.normal(size=(d, d_ff)) / np.sqrt(d),
    "b_1": 0.1 * rng.normal(size=d_ff),
    "W_2": rng.normal(size=(d_ff, d)) / np.sqrt(d_ff),
    "b_2": 0.1 * rng.normal(size=d),
    "lnf_g": 1 + 0.2 * rng.normal(size=d),
    "lnf_b": 0.1 * rng.normal(size=d),
    "W_U": rng.normal(size=(d, V)) / np.sqrt(d),
}
vocab = ["the", "cat", "sat", "on", "mat"]
tokens = np.array([0, 1, 2, 3])  # the cat sat on


def positional_encoding(n, d):
    pos = np.arange(n)[:, None]
    angle = pos / 10000 ** (np.arange(0, d, 2) / d)
    pe = np.zeros((n, d))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angle), np.cos(angle)
    return pe


X0 = params["W_E"][tokens] + positional_encoding(len(tokens), d)
print("X0", X0.shape)

# %% [markdown]
# What the library computed from these parameters (`transformer_math.model.forward` and its parts),
# written here so that nothing below needs the library.

# %%
EXPECTED_A = np.array(
    [
        [-0.56752151, 0.16001434, -0.33374379, 0.28154135, -2.01084171, 0.72282611, 0.67448150, 2.13708865],
        [0.51184785, -0.37210573, -0.20870082, 1.39107114, -2.01750308, 1.06111635, -1.27384347, 0.83068051],
        [-0.01528973, -1.51298191, -0.01188704, 1.32526474, -0.73030889, 1.53159344, -1.67762794, 0.92841667],
        [1.09667073, -1.35171502, -0.71671868, -0.12814940, -0.59870786, 1.41364175, -1.77337485, 1.31448831],
    ]
)
EXPECTED_ATTENTION = np.array(
    [
        [0.38030801, 1.47152072, 0.04323615, -0.45144548, -0.94155713, 0.19611651, 1.96424066, -0.21349860],
        [0.01912540, 1.53518105, -0.97238596, -0.41656911, -1.60984888, 0.28611567, 1.09670790, -0.25350051],
        [-0.03018131, 1.51951858, -1.33866575, -0.53564596, -1.90454339, 0.40011171, 0.82850545, -0.57908294],
        [0.13668197, 1.50425299, -1.23672434, -0.70667936, -2.11750619, 0.42874533, 1.12280592, -0.89702888],
    ]
)
EXPECTED_FFN = np.array(
    [
        [-0.24940249, 1.16774016, -1.18274995, 0.48019290, 0.67600240, -0.37158010, -2.43548348, -0.14891282],
        [0.37601232, 0.47566187, -1.27403887, 0.60877281, -0.04804632, -0.60486636, -1.12155239, -0.64378529],
        [0.53576740, 0.86530220, -1.14869430, 0.53860872, 0.40065171, -0.48047327, -1.08928304, -0.89367934],
        [0.38553088, 0.38191577, -1.04993134, 0.42193342, 0.10127916, -0.56595921, -0.55295833, -0.66516022],
    ]
)
EXPECTED_LOGITS = np.array(
    [
        [1.28455884, 0.56104923, -0.15834762, 2.14402089, -0.57230206],
        [0.69369752, 0.33480770, -0.69838588, 1.45739610, -0.45568824],
        [0.64676029, 0.07459374, -1.00472222, 1.45127184, -0.30631906],
        [0.67677502, -0.11663740, -1.03262470, 1.14501292, -0.56363731],
    ]
)
EXPECTED_LOGITS_2 = np.array(
    [
        [1.28455884, 0.56104923, -0.15834762, 2.14402089, -0.57230206],
        [0.90994087, 0.06774600, -0.39488749, 2.49182063, -0.82984482],
        [1.14972877, 0.81221680, -0.04670545, 1.43460589, -0.95118095],
        [0.83303572, 0.80214681, -0.48406347, 1.33448237, -0.38241612],
        [0.94385146, 0.34498825, -0.80280464, 1.56312971, 0.04420399],
    ]
)


# %% [markdown]
# ## 1. LayerNorm
#
# Each row $x$ (one token) is normalised over its $d$ features, then scaled and shifted:
# $\operatorname{LN}(x) = \gamma \odot (x - \mu) / \sqrt{\sigma^2 + \varepsilon} + \beta$, with $\mu$ and
# $\sigma^2$ the mean and the variance (divided by $d$) of that row, and $\varepsilon = 10^{-5}$.


# %% tags=["exercise"]
def layer_norm(x, gamma, beta, eps=1e-5):
    return ...  # your code: the shape of x


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def layer_norm(x, gamma, beta, eps=1e-5):
#     mu = x.mean(axis=-1, keepdims=True)
#     var = x.var(axis=-1, keepdims=True)
#     return gamma * (x - mu) / np.sqrt(var + eps) + beta
# ```
#
# </details>

# %%
check("layer_norm(X0, ln1_g, ln1_b)", lambda: layer_norm(X0, params["ln1_g"], params["ln1_b"]), EXPECTED_A)
check("own code: layer_norm", lambda: yours(layer_norm, X0, params["ln1_g"], params["ln1_b"]), [])

# %% [markdown]
# ## 2. Causal multi-head attention
#
# With $A = \operatorname{LN}_1(X_0)$: $Q = A W_Q$, $K = A W_K$, $V = A W_V$. Head $\ell$ takes the
# $\ell$-th block of $d_{\text{head}} = d / h$ columns of each, computes
# $\operatorname{softmax}(Q_\ell K_\ell^\top / \sqrt{d_{\text{head}}})\, V_\ell$ with the causal mask (query $i$ sees
# keys $j \le i$; the others get a score of $-\infty$), and the heads' outputs, side by side, are
# multiplied by $W_O$. Return that product, of shape $(n, d)$: what attention adds to the residual
# stream.


# %% tags=["exercise"]
def self_attention(A, W_Q, W_K, W_V, W_O, n_heads):
    return ...  # your code: shape (n, d)


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def self_attention(A, W_Q, W_K, W_V, W_O, n_heads):
#     n, d = A.shape
#     d_head = d // n_heads
#     Q, K, V = A @ W_Q, A @ W_K, A @ W_V
#     causal = np.tril(np.ones((n, n), dtype=bool))
#     heads = []
#     for l in range(n_heads):
#         cols = slice(l * d_head, (l + 1) * d_head)
#         scores = np.where(causal, Q[:, cols] @ K[:, cols].T / np.sqrt(d_head), -np.inf)
#         weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
#         weights = weights / weights.sum(axis=-1, keepdims=True)
#         heads.append(weights @ V[:, cols])
#     return np.concatenate(heads, axis=1) @ W_O
# ```
#
# </details>

# %%
attention_args = [params[name] for name in ("W_Q", "W_K", "W_V", "W_O")]
check("self_attention(A)", lambda: self_attention(EXPECTED_A, *attention_args, n_heads), EXPECTED_ATTENTION)
check("own code: self_attention", lambda: yours(self_attention, EXPECTED_A, *attention_args, n_heads), [])

# %% [markdown]
# ## 3. The feed-forward layer
#
# $\operatorname{FFN}(C) = \operatorname{ReLU}(C W_1 + b_1)\, W_2 + b_2$, on each token alone.


# %% tags=["exercise"]
def feed_forward(C, W_1, b_1, W_2, b_2):
    return ...  # your code: shape (n, d)


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def feed_forward(C, W_1, b_1, W_2, b_2):
#     return np.maximum(C @ W_1 + b_1, 0.0) @ W_2 + b_2
# ```
#
# </details>

# %%
ffn_args = [params[name] for name in ("W_1", "b_1", "W_2", "b_2")]
check("feed_forward(A)", lambda: feed_forward(EXPECTED_A, *ffn_args), EXPECTED_FFN)

# %% [markdown]
# ## 4. The whole forward pass
#
# Put it together, pre-LN as in the formulas at the top: embeddings plus positions, the two residual
# sub-layers, the final LayerNorm and $W_U$. Use your three functions.


# %% tags=["exercise"]
def forward_pass(params, tokens, n_heads=2):
    return ...  # your code: the logits, shape (n, V)


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def forward_pass(params, tokens, n_heads=2):
#     p = params
#     x0 = p["W_E"][tokens] + positional_encoding(len(tokens), p["W_E"].shape[1])
#     a = layer_norm(x0, p["ln1_g"], p["ln1_b"])
#     x1 = x0 + self_attention(a, p["W_Q"], p["W_K"], p["W_V"], p["W_O"], n_heads)
#     c = layer_norm(x1, p["ln2_g"], p["ln2_b"])
#     x2 = x1 + feed_forward(c, p["W_1"], p["b_1"], p["W_2"], p["b_2"])
#     return layer_norm(x2, p["lnf_g"], p["lnf_b"]) @ p["W_U"]
# ```
#
# </details>

# %%
check("logits of 'the cat sat on'", lambda: forward_pass(params, tokens), EXPECTED_LOGITS)
check("logits of 'the mat the cat sat'", lambda: forward_pass(params, np.array([0, 4, 0, 1, 2])), EXPECTED_LOGITS_2)
check("own code: forward_pass", lambda: yours(forward_pass, params, tokens), [])

# %% [markdown]
# The first row of the logits is the same in both sentences: both start with "the", and the causal
# mask lets position 0 see nothing else.
#
# ## What you built
#
# The model of Part IV, token ids in and next-token logits out, in some twenty lines of NumPy, equal
# to the library's `forward` to $10^{-6}$. The [backward passes lab](https://transformer-math.github.io/mathematics-for-transformers/labs/backward-passes/) differentiates
# the hardest of its pieces, and [Train the tiny Transformer](https://transformer-math.github.io/mathematics-for-transformers/labs/train-transformer/) trains it.
