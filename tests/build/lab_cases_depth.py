"""The typical mistakes and other right answers of the depth, RMSNorm and RoPE lab, for tests/build/test_labs.py.

Each entry is (exercise number, code put in place of the reference solution, names of the checks that must say
"Wrong" for a mistake, "Correct" for a right answer). The exercises: 1 block_params, 2 deep_forward,
3 stream_sizes, 4 logit_lens, 5 rms_norm, 6 layer_norm_from_rms, 7 rms_block, 8 apply_rope, 9 rope_scores,
10 rope_block.
"""

from __future__ import annotations

# Lines several answers share: the start of a function as the reference writes it, or its end.
DEEP_HEAD = "def deep_forward(params, tokens, n_heads):\n    x = params['W_E'][tokens] + positional_encoding(len(tokens), params['W_E'].shape[1])\n"
SIZES_HEAD = (
    "def stream_sizes(params, tokens, n_heads):\n"
    "    x = params['W_E'][tokens] + positional_encoding(len(tokens), params['W_E'].shape[1])\n"
)
SIZES_LOOP = "    for layer in range(1 + sum(name.endswith('.W_Q') for name in params)):\n"
LENS_HEAD = (
    "def logit_lens(params, tokens, n_heads):\n"
    "    x = params['W_E'][tokens] + positional_encoding(len(tokens), params['W_E'].shape[1])\n"
    "    readings = []\n    for layer in range(1 + sum(name.endswith('.W_Q') for name in params)):\n"
    "        new = block(x, block_params(params, layer), n_heads)\n"
)
ROPE_HEAD = (
    "def apply_rope(x, positions, base=10000.0):\n    d = x.shape[-1]\n"
    "    angle = np.asarray(positions)[:, None] * base ** (-np.arange(0, d, 2) / d)\n"
    "    cos, sin = np.cos(angle), np.sin(angle)\n    even, odd = x[..., 0::2], x[..., 1::2]\n    out = np.empty_like(x)\n"
)
ROPE_BLOCK_TAIL = (
    "    x = x + merge_heads(causal_attention(q, k, v)) @ p['W_O']\n"
    "    return x + feed_forward(rms_norm(x, p['ln2_g']), p['W_1'], p['b_1'], p['W_2'], p['b_2'])"
)
ROPE_BLOCK_HEAD = (
    "def rope_block(x, p, n_heads, positions):\n    a = rms_norm(x, p['ln1_g'])\n"
    "    q, k, v = (split_heads(a @ p[w], n_heads) for w in ('W_Q', 'W_K', 'W_V'))\n"
)
# The names of the lab's checks.
ONE = "logits of 'the cat sat on'"
ALONE = "logits of block 0 alone"
LENS = ["logit_lens(params, tokens)", "logit_lens of block 0 alone", "lens_losses of the trained model"]
SIZES = ["stream_sizes(params, tokens)", "stream_sizes of 12 blocks", "stream_sizes of 12 scaled blocks"]
LN = ["layer_norm_from_rms(X0, ln1_g)", "layer_norm_from_rms(X0[1] / 10, ln1_g, eps=0.01)"]
LN_SHIFTED = "layer_norm_from_rms(X0 + 1, ln1_g) = that of X0"
RMS = ["rms_norm(X0, ln1_g)", "rms_norm(X0[1] / 10, ln1_g, eps=0.01)"]
ROPE = ["apply_rope(qk[0], [0, 1, 2, 3])", "apply_rope(qk, [3, 7, 11, 20], base=100)"]
ROPE_BLOCK = "rope_block(E, block 1, positions 0 to 3)"

MISTAKES = [
    # block 0's weights in every block; block 0 under "h0."
    (
        1,
        "def block_params(params, layer):\n    return {name: params[name] for name in BLOCK_NAMES}",
        ["block_params(params, 1)['W_Q']", "block_params(params, 1)['ln2_b']"],
    ),
    (
        1,
        "def block_params(params, layer):\n    return {name: params[f'h{layer}.' + name] for name in BLOCK_NAMES}",
        ["block_params(params, 0)['W_Q']"],
    ),
    # the library's own block_params (transformer_math.block): right arrays, caught by the code check
    (
        1,
        "def block_params(params, layer):\n    from transformer_math.block import block_params as library\n\n"
        "    return library(params, layer)",
        ["own code: block_params"],
    ),
    # L fixed at the notebook's 2; positions added again before every block; the block's output added to
    # the stream (it already holds the stream); no final LayerNorm; the library's forward
    (
        2,
        DEEP_HEAD + "    for layer in range(n_layers):\n        x = block(x, block_params(params, layer), n_heads)\n"
        "    return layer_norm(x, params['lnf_g'], params['lnf_b']) @ params['W_U']",
        [ALONE],
    ),
    (
        2,
        "def deep_forward(params, tokens, n_heads):\n    x = params['W_E'][tokens]\n"
        "    for layer in range(1 + sum(name.endswith('.W_Q') for name in params)):\n"
        "        x = block(x + positional_encoding(len(tokens), x.shape[1]), block_params(params, layer), n_heads)\n"
        "    return layer_norm(x, params['lnf_g'], params['lnf_b']) @ params['W_U']",
        [ONE],
    ),
    (
        2,
        DEEP_HEAD + "    for layer in range(1 + sum(name.endswith('.W_Q') for name in params)):\n"
        "        x = x + block(x, block_params(params, layer), n_heads)\n"
        "    return layer_norm(x, params['lnf_g'], params['lnf_b']) @ params['W_U']",
        [ONE, ALONE],
    ),
    (
        2,
        DEEP_HEAD + "    for layer in range(1 + sum(name.endswith('.W_Q') for name in params)):\n"
        "        x = block(x, block_params(params, layer), n_heads)\n    return x @ params['W_U']",
        [ONE, ALONE],
    ),
    (
        2,
        "def deep_forward(params, tokens, n_heads):\n    from transformer_math.model import forward\n"
        "    return forward(params, tokens, n_heads)[0]",
        ["own code: deep_forward"],
    ),
    # the sizes without X^(0); the norm of the whole array, not its root mean square; the size of what each block
    # adds, not of the stream; the library's stream
    (
        3,
        SIZES_HEAD + "    sizes = []\n" + SIZES_LOOP + "        x = block(x, block_params(params, layer), n_heads)\n"
        "        sizes.append(np.sqrt(np.mean(x**2)))\n    return np.array(sizes)",
        SIZES,
    ),
    (
        3,
        SIZES_HEAD
        + "    sizes = [np.linalg.norm(x)]\n"
        + SIZES_LOOP
        + "        x = block(x, block_params(params, layer), n_heads)\n"
        "        sizes.append(np.linalg.norm(x))\n    return np.array(sizes)",
        SIZES,
    ),
    (
        3,
        SIZES_HEAD
        + "    sizes = [np.sqrt(np.mean(x**2))]\n"
        + SIZES_LOOP
        + "        new = block(x, block_params(params, layer), n_heads)\n"
        "        sizes.append(np.sqrt(np.mean((new - x) ** 2)))\n        x = new\n    return np.array(sizes)",
        SIZES,
    ),
    (
        3,
        "def stream_sizes(params, tokens, n_heads):\n    from transformer_math.model import forward\n\n"
        "    _, cache = forward(params, tokens, n_heads)\n"
        "    streams = [cache['x0']] + [cache[('' if l == 0 else f'h{l}.') + 'x2'] for l in range(len(params) // 12)]\n"
        "    return np.array([np.sqrt(np.mean(x**2)) for x in streams])",
        ["own code: stream_sizes"],
    ),
    # the lens reads what each block added, not the stream; or skips the final LayerNorm
    (
        4,
        LENS_HEAD + "        readings.append(layer_norm(new - x, params['lnf_g'], params['lnf_b']) @ params['W_U'])\n"
        "        x = new\n    return np.stack(readings)",
        LENS,
    ),
    (
        4,
        LENS_HEAD + "        readings.append(new @ params['W_U'])\n        x = new\n    return np.stack(readings)",
        LENS,
    ),
    # the mean subtracted (LayerNorm); eps outside the root; one mean over the whole array; the spread about the
    # mean; the library's RMSNorm
    (
        5,
        "def rms_norm(x, gamma, eps=1e-6):\n    x = x - x.mean(axis=-1, keepdims=True)\n"
        "    return gamma * x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps)",
        RMS,
    ),
    (
        5,
        "def rms_norm(x, gamma, eps=1e-6):\n    return gamma * x / (np.sqrt(np.mean(x**2, axis=-1, keepdims=True)) + eps)",
        RMS,
    ),
    (5, "def rms_norm(x, gamma, eps=1e-6):\n    return gamma * x / np.sqrt(np.mean(x**2) + eps)", RMS[:1]),
    (5, "def rms_norm(x, gamma, eps=1e-6):\n    return gamma * x / np.sqrt(x.var(axis=-1, keepdims=True) + eps)", RMS),
    (
        5,
        "from transformer_math.modern import rms_norm as library_rms\n\n\n"
        "def rms_norm(x, gamma, eps=1e-6):\n    return library_rms(x, gamma, eps)",
        ["own code: rms_norm"],
    ),
    # no centring (RMSNorm itself); the mean of the whole array; rms_norm's own eps; the centring after the
    # division; the given layer_norm, not rms_norm
    (6, "def layer_norm_from_rms(x, gamma, eps=1e-5):\n    return rms_norm(x, gamma, eps)", [*LN, LN_SHIFTED]),
    (6, "def layer_norm_from_rms(x, gamma, eps=1e-5):\n    return rms_norm(x - x.mean(), gamma, eps)", LN[:1]),
    (
        6,
        "def layer_norm_from_rms(x, gamma, eps=1e-5):\n    return rms_norm(x - x.mean(axis=-1, keepdims=True), gamma)",
        LN,
    ),
    (
        6,
        "def layer_norm_from_rms(x, gamma, eps=1e-5):\n    y = rms_norm(x, gamma, eps)\n"
        "    return y - y.mean(axis=-1, keepdims=True)",
        LN,
    ),
    (
        6,
        "def layer_norm_from_rms(x, gamma, eps=1e-5):\n    return layer_norm(x, gamma, 0.0, eps)",
        ["layer_norm_from_rms calls your rms_norm"],
    ),
    # post-norm (the stream normalised); LayerNorm's shift kept; the LayerNorm block itself
    (
        7,
        "def rms_block(x, p, n_heads):\n    q, k, v = (split_heads(x @ p[w], n_heads) for w in ('W_Q', 'W_K', 'W_V'))\n"
        "    x = rms_norm(x + merge_heads(causal_attention(q, k, v)) @ p['W_O'], p['ln1_g'])\n"
        "    return rms_norm(x + feed_forward(x, p['W_1'], p['b_1'], p['W_2'], p['b_2']), p['ln2_g'])",
        ["rms_block(X0, block 1)"],
    ),
    (
        7,
        "def rms_block(x, p, n_heads):\n    a = rms_norm(x, p['ln1_g']) + p['ln1_b']\n"
        "    q, k, v = (split_heads(a @ p[w], n_heads) for w in ('W_Q', 'W_K', 'W_V'))\n"
        "    x = x + merge_heads(causal_attention(q, k, v)) @ p['W_O']\n"
        "    c = rms_norm(x, p['ln2_g']) + p['ln2_b']\n"
        "    return x + feed_forward(c, p['W_1'], p['b_1'], p['W_2'], p['b_2'])",
        ["rms_block(X0, block 1)"],
    ),
    (7, "def rms_block(x, p, n_heads):\n    return block(x, p, n_heads)", ["rms_block(X0, block 1)"]),
    # RoPE: feature r paired with r + d/2 (Hugging Face's order); turned the other way; the speeds without
    # the 2; the positions ignored; the library's apply_rope
    (
        8,
        ROPE_HEAD.replace("    even, odd = x[..., 0::2], x[..., 1::2]\n    out = np.empty_like(x)\n", "")
        + "    first, second = x[..., : d // 2], x[..., d // 2 :]\n"
        "    return np.concatenate([first * cos - second * sin, first * sin + second * cos], axis=-1)",
        ROPE,
    ),
    (
        8,
        ROPE_HEAD
        + "    out[..., 0::2] = even * cos + odd * sin\n    out[..., 1::2] = -even * sin + odd * cos\n    return out",
        ROPE,
    ),
    (
        8,
        ROPE_HEAD.replace("np.arange(0, d, 2) / d", "np.arange(d // 2) / d")
        + "    out[..., 0::2] = even * cos - odd * sin\n    out[..., 1::2] = even * sin + odd * cos\n    return out",
        ROPE,
    ),
    (
        8,
        ROPE_HEAD.replace("np.asarray(positions)", "np.arange(x.shape[-2])")
        + "    out[..., 0::2] = even * cos - odd * sin\n    out[..., 1::2] = even * sin + odd * cos\n    return out",
        ROPE[1:],
    ),
    (
        8,
        "def apply_rope(x, positions, base=10000.0):\n    from transformer_math.modern import apply_rope as rope\n\n"
        "    return rope(x, positions, base)",
        ["own code: apply_rope"],
    ),
    # only the query turned; the transpose (key at i, query at j)
    (
        9,
        "def rope_scores(q, k, n):\n    return apply_rope(np.tile(q, (n, 1)), np.arange(n)) @ np.tile(k, (n, 1)).T",
        ["rope_scores(query, key, 5)", "one score per distance"],
    ),
    (
        9,
        "def rope_scores(q, k, n):\n    Q = apply_rope(np.tile(q, (n, 1)), np.arange(n))\n"
        "    return apply_rope(np.tile(k, (n, 1)), np.arange(n)) @ Q.T",
        ["rope_scores(query, key, 5)"],
    ),
    # the values turned too; RoPE over all d features before the heads are split, or on the normalised input;
    # the positions ignored; LayerNorm kept
    (
        10,
        ROPE_BLOCK_HEAD + "    q, k, v = (apply_rope(u, positions) for u in (q, k, v))\n" + ROPE_BLOCK_TAIL,
        [ROPE_BLOCK],
    ),
    (
        10,
        "def rope_block(x, p, n_heads, positions):\n    a = rms_norm(x, p['ln1_g'])\n"
        "    q = split_heads(apply_rope(a @ p['W_Q'], positions), n_heads)\n"
        "    k = split_heads(apply_rope(a @ p['W_K'], positions), n_heads)\n"
        "    v = split_heads(a @ p['W_V'], n_heads)\n" + ROPE_BLOCK_TAIL,
        [ROPE_BLOCK],
    ),
    (
        10,
        "def rope_block(x, p, n_heads, positions):\n    a = apply_rope(rms_norm(x, p['ln1_g']), positions)\n"
        "    q, k, v = (split_heads(a @ p[w], n_heads) for w in ('W_Q', 'W_K', 'W_V'))\n" + ROPE_BLOCK_TAIL,
        [ROPE_BLOCK],
    ),
    (
        10,
        ROPE_BLOCK_HEAD
        + "    q, k = apply_rope(q, np.arange(len(x))), apply_rope(k, np.arange(len(x)))\n"
        + ROPE_BLOCK_TAIL,
        ["rope_block(E, block 1, positions 0, 2, 4, 6)"],
    ),
    (
        10,
        ROPE_BLOCK_HEAD.replace("rms_norm(x, p['ln1_g'])", "layer_norm(x, p['ln1_g'], p['ln1_b'])")
        + "    q, k = apply_rope(q, positions), apply_rope(k, positions)\n"
        + ROPE_BLOCK_TAIL,
        [ROPE_BLOCK],
    ),
]

RIGHT = [
    # the blocks counted from the names
    (
        2,
        DEEP_HEAD + "    for layer in range(1 + sum(name.endswith('.W_Q') for name in params)):\n"
        "        x = block(x, block_params(params, layer), n_heads)\n"
        "    return layer_norm(x, params['lnf_g'], params['lnf_b']) @ params['W_U']",
        [ONE, ALONE, "own code: deep_forward"],
    ),
    # the root mean square from the norm of the whole array
    (
        3,
        SIZES_HEAD
        + "    sizes = [np.linalg.norm(x) / np.sqrt(x.size)]\n"
        + SIZES_LOOP
        + "        x = block(x, block_params(params, layer), n_heads)\n"
        "        sizes.append(np.linalg.norm(x) / np.sqrt(x.size))\n    return sizes",
        [*SIZES, "own code: stream_sizes"],
    ),
    # the root mean square from the norm
    (
        5,
        "def rms_norm(x, gamma, eps=1e-6):\n    d = x.shape[-1]\n"
        "    return gamma * x / np.sqrt(np.linalg.norm(x, axis=-1, keepdims=True) ** 2 / d + eps)",
        [*RMS, "own code: rms_norm"],
    ),
    # the mean taken off with a broadcast of its own
    (
        6,
        "def layer_norm_from_rms(x, gamma, eps=1e-5):\n    centred = x - np.mean(x, axis=-1)[..., None]\n"
        "    return rms_norm(centred, gamma, eps=eps)",
        [*LN, LN_SHIFTED, "layer_norm_from_rms calls your rms_norm", "own code: layer_norm_from_rms"],
    ),
    # each pair a complex number times e^{i m theta}, as Meta's code does
    (
        8,
        "def apply_rope(x, positions, base=10000.0):\n    d = x.shape[-1]\n"
        "    z = (x[..., 0::2] + 1j * x[..., 1::2]) * np.exp(1j * np.outer(positions, base ** (-np.arange(0, d, 2) / d)))\n"
        "    return np.stack([z.real, z.imag], axis=-1).reshape(x.shape)",
        [*ROPE, "own code: apply_rope"],
    ),
    # each entry its own pair of rotated vectors
    (
        9,
        "def rope_scores(q, k, n):\n"
        "    return np.array([[apply_rope(q[None], [i])[0] @ apply_rope(k[None], [j])[0] for j in range(n)] for i in range(n)])",
        ["rope_scores(query, key, 5)", "one score per distance"],
    ),
    # a loop over the heads, each head's columns turned on their own
    (
        10,
        "def rope_block(x, p, n_heads, positions):\n    a = rms_norm(x, p['ln1_g'])\n    d_head = x.shape[1] // n_heads\n"
        "    Q, K, V = a @ p['W_Q'], a @ p['W_K'], a @ p['W_V']\n    heads = []\n    for l in range(n_heads):\n"
        "        c = slice(l * d_head, (l + 1) * d_head)\n"
        "        q, k = apply_rope(Q[:, c], positions), apply_rope(K[:, c], positions)\n"
        "        heads.append(causal_attention(q, k, V[:, c]))\n"
        "    x = x + np.concatenate(heads, axis=1) @ p['W_O']\n"
        "    return x + feed_forward(rms_norm(x, p['ln2_g']), p['W_1'], p['b_1'], p['W_2'], p['b_2'])",
        [
            ROPE_BLOCK,
            "rope_block(E, block 1, positions 0, 2, 4, 6)",
            "rope_block(E, block 1, positions 100 to 103)",
            "own code: rope_block",
        ],
    ),
]
