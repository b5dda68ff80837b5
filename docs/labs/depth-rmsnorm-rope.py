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
# `rms_norm` and `apply_rope`) from the same parameters, and are written into this notebook. The library
# is imported once, in the set-up, only to train a small model for section 4 (without it, that part of
# section 4 waits: `pip install git+https://github.com/transformer-math/mathematics-for-transformers`).
# As in the block lab, a check reads your code and says **Wrong** if a function you wrote calls the
# library.
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
# of the checks below, and `random_model`, deeper models drawn as a model is before training (gains 1,
# shifts and biases 0), for section 3.

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
qk = np.random.default_rng(1).normal(size=(n_heads, len(tokens), d // n_heads))  # rows of 2 heads, for RoPE
query, key = qk[0, 0], qk[1, 0]  # one query and one key, of width d_head = 4
print(len(params), "arrays; block 1's:", [name for name in params if name.startswith("h1.W")])


def random_model(n_layers, scale, seed=2):
    """A model of n_layers blocks before training: weights N(0, 1/fan-in), gains 1, shifts and biases 0, and the
    two matrices that write into the stream, W_O and W_2, multiplied by scale."""
    r = np.random.default_rng(seed)
    model = {"W_E": r.normal(size=(V, d)), "lnf_g": np.ones(d), "lnf_b": np.zeros(d)}
    model["W_U"] = r.normal(size=(d, V)) / np.sqrt(d)
    for layer in range(n_layers):
        prefix = "" if layer == 0 else f"h{layer}."
        for name in BLOCK_NAMES:
            shape = SHAPES.get(name, (d, d) if name.startswith("W") else (d,))
            if name.startswith("W"):
                factor = scale if name in ("W_O", "W_2") else 1.0
                model[prefix + name] = factor * r.normal(size=shape) / np.sqrt(shape[0])
            else:
                model[prefix + name] = np.ones(shape) if name.endswith("_g") else np.zeros(shape)
    return model


deep = random_model(12, scale=1.0)  # 12 blocks as drawn
deep_scaled = random_model(12, scale=1 / np.sqrt(2 * 12))  # the same, W_O and W_2 times 1/sqrt(2L), as GPT-2

# %% [markdown]
# A trained model, for section 4: three blocks of width 16 (two heads) trained by the library for 60
# AdamW steps, about a second, to predict the next character of the first 3,000 characters of Aesop's
# fables (windows of 8 characters). Its parameters have the names above, so your functions read it as
# they read `params`. `untrained` is the same model before its first step.


# %%
def train_small_model():
    """The library's training loop on characters: the model before and after 60 steps, and 50 of its windows."""
    from transformer_math.data import load_text
    from transformer_math.model import init_params
    from transformer_math.train import make_windows, train

    text = load_text("aesop")[:3000]
    chars = sorted(set(text))
    windows, next_chars = make_windows([chars.index(c) for c in text], seq_len=8)
    before = init_params(len(chars), d_model=16, d_ff=32, n_layers=3, seed=0)
    after = {name: value.copy() for name, value in before.items()}
    losses = train(after, windows[::4], next_chars[::4], n_heads=2, steps=60, lr=0.02, batch_size=16)
    print(f"{len(chars)} characters; training loss {losses[0]:.2f} at step 0, {losses[-1]:.2f} at step 59")
    return before, after, windows[1::60], next_chars[1::60]


try:
    untrained, trained, lens_windows, lens_targets = train_small_model()
except ImportError:  # the library is not installed: section 4's trained model waits
    untrained = trained = lens_windows = lens_targets = None
    print("No library: the trained model of section 4 is skipped.")

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
EXPECTED_SIZES = np.array([1.08874644, 1.76312318, 2.46847223])
EXPECTED_SIZES_DEEP = np.array(
    [
        1.07694014,
        1.61135120,
        2.16484598,
        2.05069536,
        2.31353835,
        2.51585807,
        2.34070694,
        2.51768437,
        3.36585879,
        3.05542205,
        3.14617847,
        2.87680252,
        3.02471627,
    ]
)
EXPECTED_SIZES_SCALED = np.array(
    [
        1.07694014,
        1.10779775,
        1.09894321,
        1.03460218,
        1.02776909,
        1.09344653,
        1.09628776,
        1.09463375,
        1.19626830,
        1.17541473,
        1.25755124,
        1.19830334,
        1.20484445,
    ]
)
EXPECTED_LENS_TRAINED = np.array([2.64890610, 2.51504080, 2.49574665])
EXPECTED_RMS = np.array(
    [
        [0.08400242, 1.00967574, 0.72582215, 1.14083116, -0.50364239, 1.13953953, 1.50400414, 2.42036777],
        [0.09464777, -0.86763221, -0.61015887, 1.10054576, -2.23868960, 0.67240684, -1.47679880, 0.34230204],
        [0.21416478, -0.74825256, 0.60738513, 1.83383983, -0.08961003, 1.73900920, -0.67169142, 1.47527622],
        [0.95081485, -1.42007406, -0.69170219, 0.04728018, -0.54789006, 1.39074803, -1.58173643, 1.33928459],
    ]
)
EXPECTED_LN = np.array(
    [
        [-0.74768500, 0.02850396, -0.36948183, 0.40237321, -2.01039630, 0.65717862, 0.80331765, 2.09757645],
        [0.33168436, -0.50361611, -0.24443886, 1.51190300, -2.01705767, 0.99546885, -1.14500733, 0.79116830],
        [-0.19545322, -1.64449229, -0.04762508, 1.44609661, -0.72986348, 1.46594594, -1.54879180, 0.88890446],
        [0.91650725, -1.48322539, -0.75245672, -0.00731754, -0.59826245, 1.34799426, -1.64453870, 1.27497610],
    ]
)
EXPECTED_LN_EPS = np.array(
    [0.23905941, -0.36297814, -0.17617777, 1.08969457, -1.45378162, 0.71747791, -0.82525682, 0.57022957]
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
# the embeddings plus positions, $X^{(0)} = W_E[t] + PE$, and $2L$ terms, all of shape $(n, d)$. Every
# sub-layer maps $(n, d)$ to $(n, d)$, so blocks would chain with or without the residual sum; what the sum
# gives is that block $l$ reads everything every earlier block wrote, and that the gradient has a path
# from the loss to every block that goes through no other block (the derivative of $X + F(X)$ is the
# identity plus that of $F$). That path is what lets a deep stack train.
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
# ## 3. How big the stream gets
#
# Each block adds two terms to the stream and takes nothing away, so unless the terms cancel, the stream
# grows with depth. Measure it: write `stream_sizes(params, tokens, n_heads)`, the root mean square of the
# stream's entries, $\sqrt{\operatorname{mean}\big((X^{(l)})^2\big)}$ over all $n \times d$ of them, for
# $l = 0, \dots, L$: shape $(L + 1,)$, the size of $X^{(0)}$ first.


# %% tags=["exercise"]
def stream_sizes(params, tokens, n_heads):
    return ...  # your code: shape (L + 1,)


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def stream_sizes(params, tokens, n_heads):
#     x = params["W_E"][tokens] + positional_encoding(len(tokens), params["W_E"].shape[1])
#     sizes, layer = [np.sqrt(np.mean(x**2))], 0
#     while layer == 0 or f"h{layer}.W_Q" in params:
#         x = block(x, block_params(params, layer), n_heads)
#         sizes.append(np.sqrt(np.mean(x**2)))
#         layer += 1
#     return np.array(sizes)
# ```
#
# </details>

# %%
check("stream_sizes(params, tokens)", lambda: stream_sizes(params, tokens, n_heads), EXPECTED_SIZES)
check("stream_sizes of 12 blocks", lambda: stream_sizes(deep, tokens, n_heads), EXPECTED_SIZES_DEEP)
check("stream_sizes of 12 scaled blocks", lambda: stream_sizes(deep_scaled, tokens, n_heads), EXPECTED_SIZES_SCALED)
check("own code: stream_sizes", lambda: yours(stream_sizes, params, tokens, n_heads), [])

# %% [markdown]
# The two models of 12 blocks differ only in $W_O$ and $W_2$, the two matrices that write into the stream.
# As drawn, each of the 24 terms has the size those matrices give it whatever the depth, and the stream
# grows with the number of terms. GPT-2 (Radford et al., 2019) multiplies these matrices by $1/\sqrt{2L}$
# at initialisation, so that the $2L$ terms together have about the size of one, and the stream stays near
# its starting size. Training then changes the weights, and the stream of a trained model can still grow
# with depth; a norm before each sub-layer (section 5) is what keeps what the sub-layer reads at a steady
# size either way.

# %%
try:
    drawn, scaled = stream_sizes(deep, tokens, n_heads), stream_sizes(deep_scaled, tokens, n_heads)
except Exception:  # the checks above say what went wrong
    drawn = scaled = ...
if drawn is Ellipsis:
    print("Waiting for exercise 3.")
else:
    for what, sizes in [("as drawn", drawn), ("1/sqrt(2L)", scaled)]:
        print(f"{what:>10}: size of the stream after 0, 3, 6, 9, 12 blocks:", np.round(np.asarray(sizes)[::3], 2))

# %% [markdown]
# ## 4. Reading the stream after each block
#
# Every block writes into the same $d$ features, in the same basis, so the final LayerNorm and $W_U$ can
# read the stream after *any* block, not only the last: $\operatorname{LN}_f(X^{(l)})\, W_U$ is what the
# model would predict if it stopped after $l$ blocks (the "logit lens", nostalgebraist, 2020). In GPT-2
# these early readings come closer to the final prediction block by block; in some other models (BLOOM,
# GPT-Neo) the plain lens reads the early blocks poorly, and Belrose et al. (2023) train a small map per
# block first (the "tuned lens"). Write `logit_lens(params, tokens, n_heads)`: the logits read after each
# of the $L$ blocks, shape $(L, n, V)$. The last reading is the model's output, and the first is the
# output of block 0 alone (exercise 2) to the last digit: what a later block does never changes what an
# earlier one wrote.


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
# On random weights the readings say nothing: no block has learned anything to read. On the trained
# model of the set-up they do. The next cell scores each reading of your `logit_lens` on 50 windows of
# the fables, as the loss is scored: the mean cross entropy of the true next character.


# %%
def lens_losses(model, windows, targets):
    """The mean cross entropy of each block's reading by logit_lens, over the windows: shape (L,)."""
    readings = [logit_lens(model, window, n_heads) for window in windows] if model is not None else [...]
    if readings[0] is Ellipsis:  # logit_lens still returns its ..., or no trained model (no library)
        return ...
    Z = np.stack(readings, axis=1)  # (L, windows, n, V)
    top = Z.max(axis=-1, keepdims=True)
    log_p = Z - top - np.log(np.exp(Z - top).sum(axis=-1, keepdims=True))
    return -np.take_along_axis(log_p, targets[None, :, :, None], axis=-1).mean(axis=(1, 2, 3))


check(
    "lens_losses of the trained model",
    lambda: lens_losses(trained, lens_windows, lens_targets),
    EXPECTED_LENS_TRAINED,
    tol=1e-4,
)
try:
    both = [lens_losses(model, lens_windows, lens_targets) for model in (untrained, trained)]
except Exception:  # the check above says what went wrong
    both = [...]
if both[0] is not Ellipsis:
    for what, losses in zip(("untrained", "trained"), both):
        print(f"{what:>9}: loss of the reading after blocks 0, 1, 2:", np.round(losses, 3))

# %% [markdown]
# Trained, each block's reading predicts the next character better than the one before, and the last
# reading is the model's own output; untrained, every reading costs more than the uniform guess over the
# 54 characters, $\ln 54 \approx 3.99$ nats. Three blocks and 60 steps make a small model; the same
# readings of GPT-2 were what nostalgebraist (2020) looked at.

# %% [markdown]
# ## 5. RMSNorm
#
# LayerNorm does two things to a token's features: it subtracts their mean $\mu$ (it re-centres them)
# and divides by their spread (it re-scales them). RMSNorm (Zhang and Sennrich, 2019), in Llama and most
# open LLMs since (T5 used a norm that only re-scales before that), keeps only the division, by the root
# mean square, and has no shift $\beta$:
#
# $$\operatorname{RMSNorm}(x) = \gamma \odot \frac{x}{\sqrt{\frac1d \sum_r x_r^2 + \varepsilon}},$$
#
# with $\varepsilon = 10^{-6}$.
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
# What RMSNorm keeps is what a deep stack needs: the stream can grow as blocks add to it (section 3),
# and each sub-layer should see inputs of a steady size whatever the size of the stream. Both norms give
# that, up to $\varepsilon$: multiplying a token by $c > 0$ gives
# $\operatorname{RMSNorm}(cx) = \gamma \odot x / \sqrt{\operatorname{mean}(x^2) + \varepsilon / c^2}$, so the
# output does not move at all when $\varepsilon = 0$, and barely moves while
# $\operatorname{mean}(x^2) \gg \varepsilon$. The second check above is a token small enough for
# $\varepsilon = 0.01$ to matter. What
# RMSNorm drops is the centring: add the same amount to every feature of a token and LayerNorm does not
# notice, RMSNorm does. Zhang and Sennrich found the centring dispensable: in their experiments RMSNorm
# matched LayerNorm's quality and cut the running time by 7 % to 64 % (depending on the model and their
# implementation of it), the mean being the computation saved. The next cell measures both norms, with your
# `rms_norm`: scaling the tokens of `X0` (whose features have a mean square near 1) moves either norm's
# output by about its $\varepsilon$; scaling the small token of the second check moves it a lot.

# %%
if rms_norm(X0, g) is Ellipsis:
    print("Waiting for exercise 5.")
else:
    b = params["ln1_b"]
    for what, moved in [("scaled by 10", 10 * X0), ("shifted by 1", X0 + 1)]:
        rms = np.abs(rms_norm(moved, g) - rms_norm(X0, g)).max()
        ln = np.abs(layer_norm(moved, g, b) - layer_norm(X0, g, b)).max()
        print(f"X0 {what}: RMSNorm moves by {rms:.1e}, LayerNorm by {ln:.1e}")
    small = X0[1] / 10
    moved = np.abs(rms_norm(10 * small, g, eps=0.01) - rms_norm(small, g, eps=0.01)).max()
    print(f"X0[1] / 10 scaled by 10, eps = 0.01: RMSNorm moves by {moved:.1e}")

# %% [markdown]
# ## 6. LayerNorm is RMSNorm of the centred token
#
# Take the centring back and RMSNorm becomes LayerNorm: the root mean square of $x - \mu$ is the
# standard deviation $\sigma$ of $x$, so
#
# $$\operatorname{LN}(x) = \operatorname{RMSNorm}(x - \mu) + \beta,$$
#
# with the same $\gamma$, and the same $\varepsilon$ in both ($10^{-5}$, LayerNorm's). Write
# `layer_norm_from_rms(x, gamma, eps=1e-5)`, LayerNorm with $\beta = 0$, with your `rms_norm` doing the
# dividing.


# %% tags=["exercise"]
def layer_norm_from_rms(x, gamma, eps=1e-5):
    return ...  # your code: the shape of x, with rms_norm


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def layer_norm_from_rms(x, gamma, eps=1e-5):
#     return rms_norm(x - x.mean(axis=-1, keepdims=True), gamma, eps)
# ```
#
# </details>

# %%
check("layer_norm_from_rms(X0, ln1_g)", lambda: layer_norm_from_rms(X0, g), EXPECTED_LN)
check(
    "layer_norm_from_rms(X0[1] / 10, ln1_g, eps=0.01)",
    lambda: layer_norm_from_rms(X0[1] / 10, g, eps=0.01),
    EXPECTED_LN_EPS,
)
check(
    "layer_norm_from_rms(X0 + 1, ln1_g) = that of X0",
    lambda: layer_norm_from_rms(X0 + 1, g),
    EXPECTED_LN,
)
check(
    "layer_norm_from_rms calls your rms_norm",
    lambda: (
        ... if layer_norm_from_rms(X0, g) is Ellipsis else float("rms_norm(" in inspect.getsource(layer_norm_from_rms))
    ),
    1.0,
)
check("own code: layer_norm_from_rms", lambda: yours(layer_norm_from_rms, X0, g), [])

# %% [markdown]
# ## 7. A block with RMSNorm
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
# ## 8. Rotary positions
#
# GPT-2 adds a position vector to each embedding before the first block: a learned one, row $i$ of a
# table $W_P$ (the original Transformer of Vaswani et al., 2017, adds the sinusoids $PE$ that this lab's
# $X^{(0)}$ has). RoPE (Su et al., 2021) adds nothing: inside attention, it turns each query and each key
# by angles that grow with its position. Take the features of a row $x$ at position $i$ in pairs
# $(x_{2r}, x_{2r+1})$, $r = 0, \dots, d_{\text{head}}/2 - 1$, with $d_{\text{head}}$ the width of $x$, and
# turn pair $r$ by the angle $i\omega_r$, at the angular frequency $\omega_r = \text{base}^{-2r/d_{\text{head}}}$
# with base $= 10000$. With $R_\alpha$ the rotation by the angle $\alpha$, and rows as everywhere in the
# model ($x \mapsto x R^\top$ is the column vector's $x \mapsto R x$):
#
# $$\begin{pmatrix} x'_{2r} & x'_{2r+1} \end{pmatrix} = \begin{pmatrix} x_{2r} & x_{2r+1} \end{pmatrix} R_{i\omega_r}^\top,$$
#
# $$R_\alpha = \begin{pmatrix} \cos \alpha & -\sin \alpha \\ \sin \alpha & \cos \alpha \end{pmatrix},$$
#
# that is $x'_{2r} = x_{2r} \cos i\omega_r - x_{2r+1} \sin i\omega_r$ and
# $x'_{2r+1} = x_{2r} \sin i\omega_r + x_{2r+1} \cos i\omega_r$. Su et al. write the same turn with
# complex numbers ([Rotations: complex eigenvalues](https://transformer-math.github.io/mathematics-for-transformers/part-1/eigenvalues/#rotations-complex-eigenvalues)):
# the pair is $z_r = x_{2r} + \mathrm{i}\, x_{2r+1}$, and turning it is multiplying,
# $z'_r = z_r\, e^{\mathrm{i}\, i\omega_r}$ (upright $\mathrm{i}$ the imaginary unit, slanted $i$ the
# position), as Meta's Llama code computes it.
#
# The pairs are neighbouring features, as in the RoPE paper, Meta's Llama code and the guide's library.
# Hugging Face's Llama pairs feature $r$ with feature $r + d_{\text{head}}/2$ instead: the same idea on the features in
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
#     omega = base ** (-np.arange(0, d, 2) / d)  # (d/2,): one angular frequency per pair, d = d_head
#     angle = np.asarray(positions)[:, None] * omega  # (n, d/2)
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
check("apply_rope(qk[0], [0, 1, 2, 3])", lambda: apply_rope(qk[0], np.arange(4)), EXPECTED_ROPE)
check(
    "apply_rope(qk, [3, 7, 11, 20], base=100)", lambda: apply_rope(qk, np.array([3, 7, 11, 20]), 100.0), EXPECTED_ROPE_2
)
check("own code: apply_rope", lambda: yours(apply_rope, qk, np.arange(4)), [])

# %% [markdown]
# ## 9. Why the score depends only on the distance
#
# A rotation keeps lengths, turning back is its transpose, $R_\alpha^\top = R_{-\alpha}$, and two
# rotations add their angles, $R_\alpha R_\beta = R_{\alpha + \beta}$. So a query $q$ turned for position
# $i$ and a key $k$ turned for position $j$ meet, pair by pair (each of $q$, $k$ here one pair, a row of
# two features, and $\omega$ that pair's frequency), in
#
# $$\begin{aligned} \left(q R_{i\omega}^\top\right) \left(k R_{j\omega}^\top\right)^\top &= q\, R_{-i\omega} R_{j\omega}\, k^\top \\ &= q\, R_{(j - i)\omega}\, k^\top, \end{aligned}$$
#
# and the score is the sum of these over the pairs: the positions enter the score only through the
# distance $j - i$. See it in numbers: write `rope_scores(q, k, n)`, the $n \times n$ matrix whose entry
# $(i, j)$ is the score of `q` at position $i$ with `k` at position $j$, both turned by your `apply_rope`.
# Every diagonal of it (one distance $j - i$) should hold one number.


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
# With positions added to the embeddings, learned as in GPT-2 or the sinusoids $PE$ of Vaswani et al.,
# the position is in the stream before $\operatorname{LN}_1$ and the projections $W_Q$, $W_K$ make the
# query and the key of it. Leave those out, as the toy score below does, and add $PE$ to the same query
# and key: their score $(q + PE_i) \cdot (k + PE_j)$ depends on $i$ and $j$, not only on $j - i$ (the
# same holds with learned rows in place of $PE$):

# %%
PE = positional_encoding(5, len(query))
print("largest spread along a diagonal, positions added:", round(diagonal_spread((query + PE) @ (key + PE).T), 4))

# %% [markdown]
# ## 10. A block with RMSNorm and RoPE
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
# embeddings and an RMSNorm in place of the final LayerNorm is a model of Llama's shape. The main
# remaining difference is the feed-forward layer, SwiGLU, in
# [From GPT-2 to Llama](https://transformer-math.github.io/mathematics-for-transformers/part-4/modern/).
# Two more: Llama's linear layers have no biases (this lab keeps $b_1$ and $b_2$), and Llama 2's largest
# model (70B) and Llama 3 let several query heads share one key head and one value head (grouped-query
# attention, Ainslie et al., 2023).
