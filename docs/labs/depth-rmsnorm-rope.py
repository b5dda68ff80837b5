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
# # Lab: depth, RMSNorm and RoPE
#
# The [Transformer block lab](https://transformer-math.github.io/mathematics-for-transformers/labs/transformer-block/)
# built the guide's model with one block. Here you give it depth, $L$ blocks on one residual stream as
# in GPT-2, then make two of the changes that lead from GPT-2 to Llama
# ([From GPT-2 to Llama](https://transformer-math.github.io/mathematics-for-transformers/part-4/modern/)):
# RMSNorm in place of LayerNorm, and rotary positions (RoPE) on the queries and keys in place of a
# position vector added to the embeddings. The numbers your code must reach were computed beforehand by
# the guide's library (`transformer_math.model.forward` with two blocks, `transformer_math.modern`'s
# `rms_norm` and `apply_rope`) from the same parameters, and are written into this notebook; the library
# itself is not imported. As in the block lab, a check reads your code and says **Wrong** if a function
# you wrote calls the library.
#
# Write $X^{(l)}$ for the residual stream after $l$ blocks, an $(n, d)$ array. A model of $L$ blocks is
#
# $$
# \begin{aligned}
# X^{(0)} &= W_E[t] + PE, \\
# X^{(l+1)} &= \operatorname{Block}_l(X^{(l)}), \quad l = 0, \dots, L - 1, \\
# Z &= \operatorname{LN}_f(X^{(L)})\, W_U ,
# \end{aligned}
# $$
#
# each block with weights of its own and the pre-LN form of
# [The Transformer block](https://transformer-math.github.io/mathematics-for-transformers/part-4/block/):
# $\operatorname{Block}(X) = X' + \operatorname{FFN}(\operatorname{LN}_2(X'))$ with
# $X' = X + \operatorname{MHA}(\operatorname{LN}_1(X))$.
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
# Given: the pieces you wrote in the block lab, and `block`, one pre-LN block made of them. `p` holds
# one block's arrays under the one-block names (`W_Q`, `ln1_g`, ...). The attention works on all heads
# at once, in arrays of shape $(h, n, d_{\text{head}})$: `split_heads` gives head $\ell$ the $\ell$-th
# block of $d_{\text{head}} = d / h$ columns, and `merge_heads` puts the heads side by side again.


# %%
def positional_encoding(n, d):
    pos = np.arange(n)[:, None]
    angle = pos / 10000 ** (np.arange(0, d, 2) / d)
    pe = np.zeros((n, d))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angle), np.cos(angle)
    return pe


def layer_norm(x, gamma, beta, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    return gamma * (x - mu) / np.sqrt(x.var(axis=-1, keepdims=True) + eps) + beta


def split_heads(X, n_heads):
    """(n, d) -> (h, n, d_head)."""
    n, d = X.shape
    return X.reshape(n, n_heads, d // n_heads).transpose(1, 0, 2)


def merge_heads(H):
    """(h, n, d_head) -> (n, d)."""
    h, n, d_head = H.shape
    return H.transpose(1, 0, 2).reshape(n, h * d_head)


def causal_attention(q, k, v):
    """softmax(q k^T / sqrt(d_head)) v for each head, query i seeing the keys j <= i."""
    n, d_head = q.shape[-2:]
    causal = np.tril(np.ones((n, n), dtype=bool))
    scores = np.where(causal, q @ k.swapaxes(-1, -2) / np.sqrt(d_head), -np.inf)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    return weights / weights.sum(axis=-1, keepdims=True) @ v


def feed_forward(C, W_1, b_1, W_2, b_2):
    return np.maximum(C @ W_1 + b_1, 0.0) @ W_2 + b_2


def block(x, p, n_heads):
    """One pre-LN block: x + MHA(LN_1(x)), then that plus FFN(LN_2(that))."""
    a = layer_norm(x, p["ln1_g"], p["ln1_b"])
    q, k, v = (split_heads(a @ p[w], n_heads) for w in ("W_Q", "W_K", "W_V"))  # (h, n, d_head) each
    x = x + merge_heads(causal_attention(q, k, v)) @ p["W_O"]
    c = layer_norm(x, p["ln2_g"], p["ln2_b"])
    return x + feed_forward(c, p["W_1"], p["b_1"], p["W_2"], p["b_2"])


# %% [markdown]
# The parameters of a model of $L = 2$ blocks, named as the library's `init_params(..., n_layers=2)`
# names them: block 0 keeps the one-block names (`W_Q`, `ln1_g`, ...), block $l \geq 1$ has the same
# names with the prefix `h{l}.` (`h1.W_Q`, `h1.ln1_g`, ...), as nanoGPT's `transformer.h.1`. The gains are
# near 1 and the shifts small, so that a norm that drops $\gamma$ or keeps $\beta$ shows. Then the inputs
# of the checks below.

# %%
V, d, d_ff, n_heads, n_layers = 5, 8, 16, 2, 2
BLOCK_NAMES = ["ln1_g", "ln1_b", "W_Q", "W_K", "W_V", "W_O", "ln2_g", "ln2_b", "W_1", "b_1", "W_2", "b_2"]
SHAPES = {"W_1": (d, d_ff), "b_1": (d_ff,), "W_2": (d_ff, d)}
rng = np.random.default_rng(0)


def draw(name):
    if name.endswith("_g"):  # a gain
        return 1 + 0.2 * rng.normal(size=d)
    if name.endswith("_b") or name.startswith("b_"):  # a shift or a bias
        return 0.1 * rng.normal(size=SHAPES.get(name, (d,)))
    shape = SHAPES.get(name, (d, d))
    return rng.normal(size=shape) / np.sqrt(shape[0])


params = {"W_E": rng.normal(size=(V, d))}
for layer in range(n_layers):
    prefix = "" if layer == 0 else f"h{layer}."
    params |= {prefix + name: draw(name) for name in BLOCK_NAMES}
params |= {"lnf_g": draw("lnf_g"), "lnf_b": draw("lnf_b"), "W_U": rng.normal(size=(d, V)) / np.sqrt(d)}

vocab = ["the", "cat", "sat", "on", "mat"]
tokens = np.array([0, 1, 2, 3])  # the cat sat on
X0 = params["W_E"][tokens] + positional_encoding(len(tokens), d)  # the stream before the first block
E = params["W_E"][tokens]  # the embeddings alone, for RoPE
block_1 = {name: params["h1." + name] for name in BLOCK_NAMES}  # block 1's arrays, one-block names
R = np.random.default_rng(1).normal(size=(n_heads, len(tokens), d // n_heads))  # queries of 2 heads
query, key = R[0, 0], R[1, 0]  # one query and one key, of width d_head = 4
print(len(params), "arrays; block 1's:", [name for name in params if name.startswith("h1.W")])

# %% [markdown]
# What the library computed from these parameters and inputs, written here so that nothing below needs
# the library.

# %%
EXPECTED_LOGITS = np.array(
    [
        [-0.98607091, -0.22344161, 1.28617138, 0.52831071, 0.78733720],
        [-0.75386818, -0.18476759, 0.88524950, 0.75207119, 0.65333915],
        [-0.77246763, 0.07650847, 0.97720021, 0.70654767, 0.47981363],
        [-1.44452682, -0.51157249, 1.00897640, 1.08266365, 0.70087411],
    ]
)
EXPECTED_LOGITS_ONE_BLOCK = np.array(
    [
        [0.24937196, 0.76755343, 0.66723448, -1.00728237, -0.05338424],
        [0.18288044, 0.68724993, -0.00251137, -0.43454777, -0.12833019],
        [0.34662965, 1.00718744, -0.05535608, -0.48517285, -0.30496485],
        [-0.71016289, 0.31097233, 0.38047220, 0.06857702, 0.15533457],
    ]
)
EXPECTED_RMS = np.array(
    [
        [0.08400242, 1.00967574, 0.72582215, 1.14083116, -0.50364239, 1.13953953, 1.50400414, 2.42036777],
        [0.09464777, -0.86763221, -0.61015887, 1.10054576, -2.23868960, 0.67240684, -1.47679880, 0.34230204],
        [0.21416478, -0.74825256, 0.60738513, 1.83383983, -0.08961003, 1.73900920, -0.67169142, 1.47527622],
        [0.95081485, -1.42007406, -0.69170219, 0.04728018, -0.54789006, 1.39074803, -1.58173643, 1.33928459],
    ]
)
EXPECTED_RMS_EPS = np.array(
    [0.06970820, -0.63901217, -0.44938274, 0.81055328, -1.64879759, 0.49522845, -1.08766409, 0.25210587]
)
EXPECTED_RMS_BLOCK = np.array(
    [
        [1.20129741, 1.10956378, -1.10225495, 0.56102506, -0.55500088, 2.62868981, 2.26450306, 3.07318730],
        [1.43268812, -0.96065985, -2.83260344, 1.02084293, -3.00090695, 0.50184964, -0.19448984, 1.65404737],
        [0.75261378, -1.22316128, -0.56460480, 1.00950644, -0.24589897, 2.95136227, -0.16922298, 1.87539479],
        [1.54788555, -1.17377725, -2.27481126, -0.81318783, -0.84433697, 1.46267071, -0.19597150, 1.19233842],
    ]
)
EXPECTED_ROPE = np.array(
    [
        [0.34558419, 0.82161814, 0.33043708, -1.30315723],
        [0.11355461, 1.00300790, -0.54273747, 0.57571961],
        [-0.41916957, 0.20910243, 0.01748303, 0.54717205],
        [0.75207387, 0.05735122, -0.49986507, 0.58411534],
    ]
)
EXPECTED_ROPE_2 = np.array(
    [
        [
            [-0.45807252, -0.76462695, 0.70078789, -1.14730282],
            [0.38928772, 0.93132947, -0.78505105, 0.09854887],
            [0.29574310, -0.36326708, -0.47434242, 0.27331700],
            [-0.15180584, -0.73882289, -0.34389689, -0.68759781],
        ],
        [
            [0.00194691, 0.29513557, -0.67098018, -0.47677488],
            [0.18720582, -0.20242835, 0.34120499, 1.60364402],
            [-1.90099353, 2.70277573, 0.29698326, -0.34726211],
            [-0.11121915, 0.28372954, 0.12982572, 2.38850925],
        ],
    ]
)
EXPECTED_SCORES = np.array(
    [
        [-0.14977006, 0.07792332, 0.31471214, 0.35303049, 0.16777624],
        [-0.16917250, -0.14977006, 0.07792332, 0.31471214, 0.35303049],
        [0.02740273, -0.16917250, -0.14977006, 0.07792332, 0.31471214],
        [0.24906744, 0.02740273, -0.16917250, -0.14977006, 0.07792332],
        [0.28186125, 0.24906744, 0.02740273, -0.16917250, -0.14977006],
    ]
)
EXPECTED_ROPE_BLOCK = np.array(
    [
        [0.67983323, 0.68599472, -1.10983355, 0.70184974, -1.02737213, 0.81498030, 1.91103245, 1.85855732],
        [-0.96260083, -0.91274971, -2.42413493, 0.97465087, -3.74901496, -1.63475937, -0.66860109, 0.82541357],
        [-0.54150736, -0.11729716, -0.82751315, 1.12542747, -0.65794008, 1.17962108, -0.38428853, 1.00174936],
        [1.13786629, 0.18608513, -2.82755411, -1.28530228, -1.29383334, -0.63216444, -0.23890024, -0.13319130],
    ]
)
EXPECTED_ROPE_BLOCK_SPREAD = np.array(
    [
        [0.67983323, 0.68599472, -1.10983355, 0.70184974, -1.02737213, 0.81498030, 1.91103245, 1.85855732],
        [-0.96641028, -0.90746534, -2.44162713, 0.98596409, -3.76889030, -1.61040446, -0.66859983, 0.84916853],
        [-0.36227006, -0.35284098, -0.07372544, 0.43450439, -0.06810287, 1.29718564, -0.70353239, 0.30730603],
        [1.04430911, 0.24652390, -3.02021121, -1.34438030, -1.30708058, -0.37545321, -0.18323536, -0.09803827],
    ]
)


# %% [markdown]
# ## 1. One residual stream, many blocks
#
# A block reads the stream and adds to it; it never replaces it. Whatever attention and the
# feed-forward layer of block $l$ compute, $\Delta^{\text{attn}}_l$ and $\Delta^{\text{ffn}}_l$, is
# added, so after $L$ blocks
#
# $$X^{(L)} = X^{(0)} + \sum_{l=0}^{L-1} \left(\Delta^{\text{attn}}_l + \Delta^{\text{ffn}}_l\right):$$
#
# the embeddings plus $2L$ terms, all of shape $(n, d)$. That is what lets blocks stack at all (each
# takes and returns an $(n, d)$ array), what lets block $l$ read everything every earlier block wrote,
# and what gives the gradient a path from the loss to every block that goes through no other block
# (the derivative of $X + F(X)$ is the identity plus that of $F$).
#
# Write `block_params(params, layer)`: the arrays of block `layer` under the one-block names, a
# dictionary that `block` takes.


# %% tags=["exercise"]
def block_params(params, layer):
    return ...  # your code: {"ln1_g": ..., "W_Q": ..., ...} for that block


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def block_params(params, layer):
#     prefix = "" if layer == 0 else f"h{layer}."
#     return {name: params[prefix + name] for name in BLOCK_NAMES}
# ```
#
# </details>

# %%
check("block_params(params, 0)['W_Q']", lambda: block_params(params, 0)["W_Q"], params["W_Q"])
check("block_params(params, 1)['W_Q']", lambda: block_params(params, 1)["W_Q"], params["h1.W_Q"])
check("block_params(params, 1)['ln2_b']", lambda: block_params(params, 1)["ln2_b"], params["h1.ln2_b"])
check("own code: block_params", lambda: yours(block_params, params, 1), [])

# %% [markdown]
# ## 2. The forward pass of $L$ blocks
#
# Embeddings plus positions, then every block in turn on the same stream, then the final LayerNorm and
# $W_U$. Count the blocks rather than fix $L = 2$: block $l \geq 1$ is there when `f"h{l}.W_Q"` is a
# key of `params`, and the same function must run a model of one block.


# %% tags=["exercise"]
def deep_forward(params, tokens, n_heads):
    return ...  # your code: the logits, shape (n, V)


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def deep_forward(params, tokens, n_heads):
#     n_blocks = 1
#     while f"h{n_blocks}.W_Q" in params:
#         n_blocks += 1
#     x = params["W_E"][tokens] + positional_encoding(len(tokens), params["W_E"].shape[1])
#     for layer in range(n_blocks):
#         x = block(x, block_params(params, layer), n_heads)  # each block adds to the same stream
#     return layer_norm(x, params["lnf_g"], params["lnf_b"]) @ params["W_U"]
# ```
#
# </details>

# %%
one_block = {name: value for name, value in params.items() if not name.startswith("h1.")}
check("logits of 'the cat sat on'", lambda: deep_forward(params, tokens, n_heads), EXPECTED_LOGITS)
check("logits of block 0 alone", lambda: deep_forward(one_block, tokens, n_heads), EXPECTED_LOGITS_ONE_BLOCK)
check("own code: deep_forward", lambda: yours(deep_forward, params, tokens, n_heads), [])

# %% [markdown]
# ## 3. Reading the stream after each block
#
# Every block writes into the same $d$ features, in the same basis, so the final LayerNorm and $W_U$
# can read the stream after *any* block, not only the last: $\operatorname{LN}_f(X^{(l)})\, W_U$ is
# what the model would predict if it stopped after $l$ blocks (the "logit lens", nostalgebraist, 2020;
# in GPT-2 these early readings were found to come closer to the final prediction block by block).
# Write `logit_lens(params, tokens, n_heads)`: the logits read after each of the $L$ blocks, shape
# $(L, n, V)$. The last reading is the model's output, and the first is the output of block 0 alone
# (exercise 2) to the last digit: what a later block does never changes what an earlier one wrote.


# %% tags=["exercise"]
def logit_lens(params, tokens, n_heads):
    return ...  # your code: shape (L, n, V)


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def logit_lens(params, tokens, n_heads):
#     x = params["W_E"][tokens] + positional_encoding(len(tokens), params["W_E"].shape[1])
#     readings, layer = [], 0
#     while layer == 0 or f"h{layer}.W_Q" in params:
#         x = block(x, block_params(params, layer), n_heads)
#         readings.append(layer_norm(x, params["lnf_g"], params["lnf_b"]) @ params["W_U"])
#         layer += 1
#     return np.stack(readings)
# ```
#
# </details>

# %%
check(
    "logit_lens(params, tokens)",
    lambda: logit_lens(params, tokens, n_heads),
    np.stack([EXPECTED_LOGITS_ONE_BLOCK, EXPECTED_LOGITS]),
)
check("logit_lens of block 0 alone", lambda: logit_lens(one_block, tokens, n_heads), EXPECTED_LOGITS_ONE_BLOCK[None])
check("own code: logit_lens", lambda: yours(logit_lens, params, tokens, n_heads), [])

# %% [markdown]
# ## 4. RMSNorm
#
# LayerNorm does two things to a token's features: it subtracts their mean $\mu$ (it re-centres them)
# and divides by their spread (it re-scales them). RMSNorm (Zhang and Sennrich, 2019), in Llama and most
# models since, keeps only the division, by the root mean square, and has no shift $\beta$:
#
# $$\operatorname{RMSNorm}(x) = \gamma \odot \frac{x}{\sqrt{\frac1d \sum_r x_r^2 + \varepsilon}}, \qquad \varepsilon = 10^{-6}.$$
#
# Write it for `x` of shape $(\dots, d)$, each row on its own.


# %% tags=["exercise"]
def rms_norm(x, gamma, eps=1e-6):
    return ...  # your code: the shape of x


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def rms_norm(x, gamma, eps=1e-6):
#     return gamma * x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps)
# ```
#
# </details>

# %%
g = params["ln1_g"]
check("rms_norm(X0, ln1_g)", lambda: rms_norm(X0, g), EXPECTED_RMS)
check("rms_norm(X0[1] / 10, ln1_g, eps=0.01)", lambda: rms_norm(X0[1] / 10, g, eps=0.01), EXPECTED_RMS_EPS)
check("own code: rms_norm", lambda: yours(rms_norm, X0, g), [])

# %% [markdown]
# What RMSNorm keeps is what a deep stack needs: the stream grows as blocks add to it, and each
# sub-layer should see inputs of a steady size whatever the size of the stream. Both norms give that:
# multiply a token by any $c > 0$ and the output does not move. What RMSNorm drops is the centring: add
# the same amount to every feature of a token and LayerNorm does not notice, RMSNorm does. Zhang and
# Sennrich found the centring dispensable: RMSNorm trained as well as LayerNorm in their experiments,
# 7 % to 64 % faster, with one reduction over the features fewer per token. The next cell measures both,
# with your `rms_norm`.

# %%
if rms_norm(X0, g) is Ellipsis:
    print("Waiting for exercise 4.")
else:
    b = params["ln1_b"]
    for what, moved in [("scaled by 10", 10 * X0), ("shifted by 1", X0 + 1)]:
        rms = np.abs(rms_norm(moved, g) - rms_norm(X0, g)).max()
        ln = np.abs(layer_norm(moved, g, b) - layer_norm(X0, g, b)).max()
        print(f"{what}: RMSNorm moves by {rms:.4f}, LayerNorm by {ln:.4f}")

# %% [markdown]
# ## 5. A block with RMSNorm
#
# The block of this lab with both LayerNorms replaced by your RMSNorm, with the gains `ln1_g` and
# `ln2_g` (`ln1_b` and `ln2_b` are not used). Keep each norm *before* its sub-layer, inside the branch:
# the stream itself is never normalised, only what each sub-layer reads of it.


# %% tags=["exercise"]
def rms_block(x, p, n_heads):
    return ...  # your code: shape (n, d)


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def rms_block(x, p, n_heads):
#     a = rms_norm(x, p["ln1_g"])
#     q, k, v = (split_heads(a @ p[w], n_heads) for w in ("W_Q", "W_K", "W_V"))
#     x = x + merge_heads(causal_attention(q, k, v)) @ p["W_O"]
#     c = rms_norm(x, p["ln2_g"])
#     return x + feed_forward(c, p["W_1"], p["b_1"], p["W_2"], p["b_2"])
# ```
#
# </details>

# %%
check("rms_block(X0, block 1)", lambda: rms_block(X0, block_1, n_heads), EXPECTED_RMS_BLOCK)
check("own code: rms_block", lambda: yours(rms_block, X0, block_1, n_heads), [])

# %% [markdown]
# ## 6. Rotary positions
#
# GPT-2 adds a position vector to each embedding before the first block. RoPE (Su et al., 2021) adds
# nothing: inside attention, it turns each query and each key by angles that grow with its position.
# Take the features of a row at position $i$ in pairs $(x_{2r}, x_{2r+1})$, $r = 0, \dots, d/2 - 1$, and
# turn pair $r$ by the angle $i\theta_r$, with $\theta_r = \text{base}^{-2r/d}$ and base $= 10000$:
#
# $$\begin{pmatrix} x'_{2r} \\ x'_{2r+1} \end{pmatrix} = \begin{pmatrix} \cos i\theta_r & -\sin i\theta_r \\ \sin i\theta_r & \cos i\theta_r \end{pmatrix} \begin{pmatrix} x_{2r} \\ x_{2r+1} \end{pmatrix}.$$
#
# The pairs are neighbouring features, as in the RoPE paper, Meta's Llama code and the guide's library.
# Hugging Face's Llama pairs feature $r$ with feature $r + d/2$ instead: the same idea on the features in
# another order, with other numbers, so the checks here expect neighbours. Write `apply_rope` for `x` of
# shape $(\dots, n, d)$: row $m$ of the last two axes is at position `positions[m]`.


# %% tags=["exercise"]
def apply_rope(x, positions, base=10000.0):
    return ...  # your code: the shape of x


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def apply_rope(x, positions, base=10000.0):
#     d = x.shape[-1]
#     theta = base ** (-np.arange(0, d, 2) / d)  # (d/2,): one speed per pair
#     angle = np.asarray(positions)[:, None] * theta  # (n, d/2)
#     cos, sin = np.cos(angle), np.sin(angle)
#     even, odd = x[..., 0::2], x[..., 1::2]
#     out = np.empty_like(x)
#     out[..., 0::2] = even * cos - odd * sin  # the 2 x 2 rotation, pair by pair
#     out[..., 1::2] = even * sin + odd * cos
#     return out
# ```
#
# </details>

# %%
check("apply_rope(R[0], [0, 1, 2, 3])", lambda: apply_rope(R[0], np.arange(4)), EXPECTED_ROPE)
check(
    "apply_rope(R, [3, 7, 11, 20], base=100)", lambda: apply_rope(R, np.array([3, 7, 11, 20]), 100.0), EXPECTED_ROPE_2
)
check("own code: apply_rope", lambda: yours(apply_rope, R, np.arange(4)), [])

# %% [markdown]
# ## 7. Why the score depends only on the distance
#
# A rotation keeps lengths, turning back is its transpose, $R(\alpha)^\top = R(-\alpha)$, and two
# rotations add their angles. So a query $q$ turned for position $i$ and a key $k$ turned for position
# $j$ meet, pair by pair, in
#
# $$\left(R(i\theta)\, q\right)^\top R(j\theta)\, k = q^\top R(-i\theta)\, R(j\theta)\, k = q^\top R\big((j - i)\theta\big)\, k:$$
#
# the positions enter the score only through the distance $j - i$. See it in numbers: write
# `rope_scores(q, k, n)`, the $n \times n$ matrix whose entry $(i, j)$ is the score of `q` at position
# $i$ with `k` at position $j$, both turned by your `apply_rope`. Every diagonal of it (one distance
# $j - i$) should hold one number.


# %% tags=["exercise"]
def rope_scores(q, k, n):
    return ...  # your code: shape (n, n)


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def rope_scores(q, k, n):
#     positions = np.arange(n)
#     Q = apply_rope(np.tile(q, (n, 1)), positions)  # the same query at positions 0, ..., n - 1
#     K = apply_rope(np.tile(k, (n, 1)), positions)
#     return Q @ K.T
# ```
#
# </details>


# %%
def diagonal_spread(S):
    """The largest difference between two entries of one diagonal of S (one distance j - i)."""
    if S is Ellipsis:
        return ...
    return max(np.ptp(np.diagonal(S, offset)) for offset in range(1 - len(S), len(S)))


check("rope_scores(query, key, 5)", lambda: rope_scores(query, key, 5), EXPECTED_SCORES)
check("one score per distance", lambda: diagonal_spread(rope_scores(query, key, 5)), 0.0, tol=1e-12)

# %% [markdown]
# With GPT-2's positions the same query and key would first get a position vector added, and their
# score $(q + PE_i) \cdot (k + PE_j)$ depends on $i$ and $j$, not only on $j - i$:

# %%
PE = positional_encoding(5, len(query))
print("largest spread along a diagonal, positions added:", round(diagonal_spread((query + PE) @ (key + PE).T), 4))

# %% [markdown]
# ## 8. A block with RMSNorm and RoPE
#
# Put the two together, as Llama's blocks do: your `rms_block`, with the queries and keys turned by
# `apply_rope` *after* they are split into heads (so each head turns its own $d_{\text{head}} = 4$
# features, at the same speeds as every other head), and the values left alone: they are what a query
# reads, not how it finds it. The input is the embeddings alone, `E`: with RoPE there is no position
# vector to add. `positions` gives each row's position.


# %% tags=["exercise"]
def rope_block(x, p, n_heads, positions):
    return ...  # your code: shape (n, d)


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def rope_block(x, p, n_heads, positions):
#     a = rms_norm(x, p["ln1_g"])
#     q, k, v = (split_heads(a @ p[w], n_heads) for w in ("W_Q", "W_K", "W_V"))  # (h, n, d_head)
#     q, k = apply_rope(q, positions), apply_rope(k, positions)  # every head's queries and keys; not v
#     x = x + merge_heads(causal_attention(q, k, v)) @ p["W_O"]
#     c = rms_norm(x, p["ln2_g"])
#     return x + feed_forward(c, p["W_1"], p["b_1"], p["W_2"], p["b_2"])
# ```
#
# </details>

# %%
check(
    "rope_block(E, block 1, positions 0 to 3)",
    lambda: rope_block(E, block_1, n_heads, np.arange(4)),
    EXPECTED_ROPE_BLOCK,
)
check(
    "rope_block(E, block 1, positions 0, 2, 4, 6)",
    lambda: rope_block(E, block_1, n_heads, np.arange(0, 8, 2)),
    EXPECTED_ROPE_BLOCK_SPREAD,
)
check(
    "rope_block(E, block 1, positions 100 to 103)",
    lambda: rope_block(E, block_1, n_heads, np.arange(100, 104)),
    EXPECTED_ROPE_BLOCK,
)
check("own code: rope_block", lambda: yours(rope_block, E, block_1, n_heads, np.arange(4)), [])

# %% [markdown]
# The third check is the distance property at work in a whole block: moved 100 places along, the four
# tokens give the same output, because every score depends on $j - i$ alone (the causal mask, $j \le i$,
# does too) and every other step treats each token on its own. Spread the same tokens out (the second
# check) and the output changes: the distances changed. Turn the values as well and the moved sentence
# no longer gives the same output: each value would carry its absolute position into what the query
# reads. With a position vector added to the embeddings, moving the sentence would change every number.
#
# ## What you built
#
# A stack of blocks on one residual stream, read by the unembedding after any block, and the two
# changes of Llama's block that concern positions and normalisation, equal to the library's numbers to
# $10^{-6}$. Your `deep_forward` with `rope_block` in place of `block`, no position vector added to the
# embeddings and an RMSNorm in place of the final LayerNorm is a model of Llama's shape; its
# feed-forward layer, SwiGLU, is the last difference, in
# [From GPT-2 to Llama](https://transformer-math.github.io/mathematics-for-transformers/part-4/modern/).
