"""Depth, RMSNorm and RoPE: the typical mistakes and other right answers."""

from __future__ import annotations

from tests.build.lab_cases import mistake, right, vendored

SIZES = "def stream_sizes(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n"
X0 = "    x = params['W_E'][tokens] + positional_encoding(tokens.shape[-1], params['W_E'].shape[1])\n"
RMS = "def rms_norm(x, gamma, eps=1e-6):\n    x = np.asarray(x, dtype=float)\n"
LNR = "def layer_norm_from_rms(x, gamma, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n"
ROPE = (
    "def apply_rope(x, positions, base=10000.0):\n    x = np.asarray(x, dtype=float)\n    d = x.shape[-1]\n"
    "    omega = base ** (-np.arange(0, d, 2) / d)\n    angle = np.asarray(positions)[:, None] * omega\n"
    "    cos, sin = np.cos(angle), np.sin(angle)\n    even, odd = x[..., 0::2], x[..., 1::2]\n    out = np.empty_like(x)\n"
)
TURN = "    out[..., 0::2] = even * cos - odd * sin\n    out[..., 1::2] = even * sin + odd * cos\n    return out"

RAS = "def rope_attention_scores(X, W_Q, W_K, n_heads):\n    X = np.asarray(X, dtype=float)\n    n, d_head = X.shape[-2], X.shape[-1] // n_heads\n"

MISTAKES = [
    mistake("prediction", "a word not offered", 'prediction = "doubles"'),
    mistake(
        "stream_sizes",
        "no X^(0)",
        SIZES
        + X0
        + "    sizes = []\n    for layer in range(n_blocks(params)):\n        x = block(x, block_params(params, layer), n_heads)\n        sizes.append(np.sqrt(np.mean(x**2)))\n    return np.array(sizes)",
    ),
    mistake(
        "stream_sizes",
        "the standard deviation, not the root mean square",
        SIZES
        + X0
        + "    sizes = [np.std(x)]\n    for layer in range(n_blocks(params)):\n        x = block(x, block_params(params, layer), n_heads)\n        sizes.append(np.std(x))\n    return np.array(sizes)",
    ),
    mistake(
        "stream_sizes",
        "two blocks, always",
        SIZES
        + X0
        + "    sizes = [np.sqrt(np.mean(x**2))]\n    for layer in range(2):\n        x = block(x, block_params(params, layer), n_heads)\n        sizes.append(np.sqrt(np.mean(x**2)))\n    return np.array(sizes)",
    ),
    mistake(
        "stream_sizes",
        "each block on X^(0), not on the stream",
        SIZES
        + X0
        + "    sizes = [np.sqrt(np.mean(x**2))]\n    for layer in range(n_blocks(params)):\n        sizes.append(np.sqrt(np.mean(block(x, block_params(params, layer), n_heads) ** 2)))\n    return np.array(sizes)",
    ),
    mistake(
        "stream_sizes",
        "the norm of each token, averaged",
        SIZES
        + X0
        + "    sizes = [np.linalg.norm(x, axis=-1).mean()]\n    for layer in range(n_blocks(params)):\n        x = block(x, block_params(params, layer), n_heads)\n        sizes.append(np.linalg.norm(x, axis=-1).mean())\n    return np.array(sizes)",
    ),
    mistake(
        "stream_sizes",
        "the library's forward",
        "from transformer_math.model import forward\n\n\n"
        + SIZES
        + "    _, cache = forward(params, tokens, n_heads)\n    keys = ['x0'] + [('' if l == 0 else f'h{l}.') + 'x2' for l in range(n_blocks(params))]\n    return np.array([np.sqrt(np.mean(cache[key] ** 2)) for key in keys])",
    ),
    mistake(
        "rms_norm",
        "the spread (LayerNorm without centring)",
        RMS + "    return gamma * x / np.sqrt(np.var(x, axis=-1, keepdims=True) + eps)",
    ),
    mistake(
        "rms_norm",
        "eps outside the square root",
        RMS + "    return gamma * x / (np.sqrt(np.mean(x**2, axis=-1, keepdims=True)) + eps)",
    ),
    mistake("rms_norm", "the mean over the whole array", RMS + "    return gamma * x / np.sqrt(np.mean(x**2) + eps)"),
    mistake(
        "rms_norm",
        "the sum of squares, not the mean",
        RMS + "    return gamma * x / np.sqrt(np.sum(x**2, axis=-1, keepdims=True) + eps)",
    ),
    mistake("rms_norm", "no gain", RMS + "    return x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + eps)"),
    mistake(
        "rms_norm",
        "the library's",
        "from transformer_math import modern\n\n\n" + RMS + "    return modern.rms_norm(x, gamma, eps)",
    ),
    mistake("layer_norm_from_rms", "no centring", LNR + "    return rms_norm(x, gamma, eps)"),
    mistake(
        "layer_norm_from_rms",
        "eps left at RMSNorm's",
        LNR + "    return rms_norm(x - x.mean(axis=-1, keepdims=True), gamma)",
    ),
    mistake(
        "layer_norm_from_rms",
        "the right numbers without rms_norm",
        LNR
        + "    c = x - x.mean(axis=-1, keepdims=True)\n    return gamma * c / np.sqrt(np.mean(c**2, axis=-1, keepdims=True) + eps)",
    ),
    mistake(
        "layer_norm_from_rms",
        "the library's LayerNorm",
        "from transformer_math.stats import layer_norm as ln\n\n\n"
        + LNR
        + "    rms_norm(x, gamma)\n    return ln(x, gamma, None, eps)",
    ),
    mistake(
        "apply_rope",
        "the turn the other way",
        ROPE
        + "    out[..., 0::2] = even * cos + odd * sin\n    out[..., 1::2] = -even * sin + odd * cos\n    return out",
    ),
    mistake(
        "apply_rope",
        "pairs r and r + d/2 (Hugging Face's order)",
        "def apply_rope(x, positions, base=10000.0):\n    x = np.asarray(x, dtype=float)\n    d = x.shape[-1]\n    angle = np.asarray(positions)[:, None] * base ** (-np.arange(0, d, 2) / d)\n    a, b = x[..., : d // 2], x[..., d // 2 :]\n    return np.concatenate([a * np.cos(angle) - b * np.sin(angle), a * np.sin(angle) + b * np.cos(angle)], axis=-1)",
    ),
    mistake(
        "apply_rope",
        "positions 0, 1, 2, ... whatever positions says",
        ROPE.replace("np.asarray(positions)[:, None]", "np.arange(x.shape[-2])[:, None]") + TURN,
    ),
    mistake(
        "apply_rope",
        "the frequency exponent r/d",
        ROPE.replace("-np.arange(0, d, 2) / d", "-np.arange(d // 2) / d") + TURN,
    ),
    mistake(
        "apply_rope", "base 10000 whatever base says", ROPE.replace("omega = base **", "omega = 10000.0 **") + TURN
    ),
    mistake(
        "apply_rope",
        "changes its input",
        "def apply_rope(x, positions, base=10000.0):\n    d = x.shape[-1]\n    angle = np.asarray(positions)[:, None] * base ** (-np.arange(0, d, 2) / d)\n    even, odd = x[..., 0::2].copy(), x[..., 1::2].copy()\n    x[..., 0::2] = even * np.cos(angle) - odd * np.sin(angle)\n    x[..., 1::2] = even * np.sin(angle) + odd * np.cos(angle)\n    return np.asarray(x, dtype=float)",
    ),
    mistake(
        "apply_rope",
        "the library's",
        "import importlib\n\n\ndef apply_rope(x, positions, base=10000.0):\n    return importlib.import_module('transformer_math.modern').apply_rope(x, positions, base)",
    ),
]

RIGHT = [
    right("prediction", "the other word", 'prediction = "stays"'),
    right(
        "stream_sizes",
        "the norm of the whole stream over the square root of its size",
        SIZES
        + X0
        + "    sizes = []\n    for layer in range(n_blocks(params) + 1):\n        sizes.append(np.linalg.norm(x) / np.sqrt(x.size))\n        if layer < n_blocks(params):\n            x = block(x, block_params(params, layer), n_heads)\n    return np.array(sizes)",
    ),
    right(
        "rms_norm",
        "the norm divided by sqrt(d)",
        RMS
        + "    rms = np.sqrt(np.linalg.norm(x, axis=-1, keepdims=True) ** 2 / x.shape[-1] + eps)\n    return x / rms * gamma",
    ),
    right(
        "layer_norm_from_rms",
        "with a space before the parenthesis, by keyword",
        LNR
        + "    centred = x - np.mean(x, axis=-1, keepdims=True)\n    return rms_norm (centred, gamma=gamma, eps=eps)",
    ),
    right(
        "apply_rope",
        "complex numbers, as Meta's code",
        "def apply_rope(x, positions, base=10000.0):\n    x = np.asarray(x, dtype=float)\n    d = x.shape[-1]\n    z = x[..., 0::2] + 1j * x[..., 1::2]\n    turned = z * np.exp(1j * np.asarray(positions)[:, None] * base ** (-np.arange(0, d, 2) / d))\n    return np.stack([turned.real, turned.imag], axis=-1).reshape(x.shape)",
    ),
]

# An outside instructor's attempts, each written without the reference solution in view: the mistakes
# learners make (and routes around the exercise), and other right answers.
MISTAKES += [
    mistake("prediction", "shrinks", 'prediction = "shrinks"'),
    mistake(
        "stream_sizes",
        "sizes after each block only (L numbers)",
        "def stream_sizes(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    x = params['W_E'][tokens] + positional_encoding(tokens.shape[-1], params['W_E'].shape[1])\n    out = []\n    for l in range(n_blocks(params)):\n        x = block(x, block_params(params, l), n_heads)\n        out.append(np.sqrt(np.mean(x**2)))\n    return np.array(out)",
    ),
    mistake(
        "stream_sizes",
        "Frobenius norm, not RMS",
        "def stream_sizes(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    x = params['W_E'][tokens] + positional_encoding(tokens.shape[-1], params['W_E'].shape[1])\n    out = [np.linalg.norm(x)]\n    for l in range(n_blocks(params)):\n        x = block(x, block_params(params, l), n_heads)\n        out.append(np.linalg.norm(x))\n    return np.array(out)",
    ),
    mistake(
        "stream_sizes",
        "the std, not the RMS",
        "def stream_sizes(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    x = params['W_E'][tokens] + positional_encoding(tokens.shape[-1], params['W_E'].shape[1])\n    out = [x.std()]\n    for l in range(n_blocks(params)):\n        x = block(x, block_params(params, l), n_heads)\n        out.append(x.std())\n    return np.array(out)",
    ),
    mistake(
        "stream_sizes",
        "mean of per-token RMS",
        "def stream_sizes(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    x = params['W_E'][tokens] + positional_encoding(tokens.shape[-1], params['W_E'].shape[1])\n    f = lambda x: np.sqrt((x**2).mean(-1)).mean()\n    out = [f(x)]\n    for l in range(n_blocks(params)):\n        x = block(x, block_params(params, l), n_heads)\n        out.append(f(x))\n    return np.array(out)",
    ),
    mistake(
        "stream_sizes",
        "no positions",
        "def stream_sizes(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    x = params['W_E'][tokens]\n    out = [np.sqrt(np.mean(x**2))]\n    for l in range(n_blocks(params)):\n        x = block(x, block_params(params, l), n_heads)\n        out.append(np.sqrt(np.mean(x**2)))\n    return np.array(out)",
    ),
    mistake(
        "stream_sizes",
        "hard-coded 12 blocks",
        "def stream_sizes(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    x = params['W_E'][tokens] + positional_encoding(tokens.shape[-1], params['W_E'].shape[1])\n    out = [np.sqrt(np.mean(x**2))]\n    for l in range(12):\n        x = block(x, block_params(params, min(l, n_blocks(params) - 1)), n_heads)\n        out.append(np.sqrt(np.mean(x**2)))\n    return np.array(out)[: n_blocks(params) + 1] if False else np.array(out)",
    ),
    mistake(
        "stream_sizes",
        "final LayerNorm applied to the last size",
        "def stream_sizes(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    x = params['W_E'][tokens] + positional_encoding(tokens.shape[-1], params['W_E'].shape[1])\n    out = [np.sqrt(np.mean(x**2))]\n    L = n_blocks(params)\n    for l in range(L):\n        x = block(x, block_params(params, l), n_heads)\n        if l == L - 1:\n            x = layer_norm(x, params['lnf_g'], params['lnf_b'])\n        out.append(np.sqrt(np.mean(x**2)))\n    return np.array(out)",
    ),
    mistake(
        "stream_sizes",
        "library forward's cache",
        "from transformer_math.model import forward\ndef stream_sizes(params, tokens, n_heads):\n    _, c = forward(params, np.asarray(tokens), n_heads)\n    xs = [c['x0']] + [c[('' if l == 0 else f'h{l}.') + 'x2'] for l in range(n_blocks(params))]\n    return np.array([np.sqrt(np.mean(x**2)) for x in xs])",
    ),
    mistake(
        "rms_norm",
        "spread (var) instead of mean square",
        "def rms_norm(x, gamma, eps=1e-6):\n    x = np.asarray(x, dtype=float)\n    return gamma * x / np.sqrt(x.var(-1, keepdims=True) + eps)",
    ),
    mistake(
        "rms_norm",
        "eps outside the sqrt",
        "def rms_norm(x, gamma, eps=1e-6):\n    x = np.asarray(x, dtype=float)\n    return gamma * x / (np.sqrt(np.mean(x**2, -1, keepdims=True)) + eps)",
    ),
    mistake(
        "rms_norm",
        "sum not mean of squares",
        "def rms_norm(x, gamma, eps=1e-6):\n    x = np.asarray(x, dtype=float)\n    return gamma * x / np.sqrt(np.sum(x**2, -1, keepdims=True) + eps)",
    ),
    mistake(
        "rms_norm",
        "forgets gamma",
        "def rms_norm(x, gamma, eps=1e-6):\n    x = np.asarray(x, dtype=float)\n    return x / np.sqrt(np.mean(x**2, -1, keepdims=True) + eps)",
    ),
    mistake(
        "rms_norm",
        "centred (LayerNorm without beta)",
        "def rms_norm(x, gamma, eps=1e-6):\n    x = np.asarray(x, dtype=float)\n    c = x - x.mean(-1, keepdims=True)\n    return gamma * c / np.sqrt(np.mean(c**2, -1, keepdims=True) + eps)",
    ),
    mistake(
        "rms_norm",
        "ignores the eps argument",
        "def rms_norm(x, gamma, eps=1e-6):\n    x = np.asarray(x, dtype=float)\n    return gamma * x / np.sqrt(np.mean(x**2, -1, keepdims=True) + 1e-6)",
    ),
    mistake(
        "rms_norm",
        "mean over the whole array",
        "def rms_norm(x, gamma, eps=1e-6):\n    x = np.asarray(x, dtype=float)\n    return gamma * x / np.sqrt(np.mean(x**2) + eps)",
    ),
    mistake(
        "rms_norm",
        "library modern.rms_norm",
        "import transformer_math.modern as tm\ndef rms_norm(x, gamma, eps=1e-6):\n    x = np.asarray(x, dtype=float)\n    return tm.rms_norm(x, gamma, eps)",
    ),
    mistake(
        "layer_norm_from_rms",
        "eps not passed on (1e-6 used)",
        "def layer_norm_from_rms(x, gamma, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n    return rms_norm(x - x.mean(-1, keepdims=True), gamma)",
    ),
    mistake(
        "layer_norm_from_rms",
        "not centred",
        "def layer_norm_from_rms(x, gamma, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n    return rms_norm(x, gamma, eps)",
    ),
    mistake(
        "layer_norm_from_rms",
        "centred by the whole array's mean",
        "def layer_norm_from_rms(x, gamma, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n    return rms_norm(x - x.mean(), gamma, eps)",
    ),
    mistake(
        "layer_norm_from_rms",
        "own LayerNorm, no rms_norm",
        "def layer_norm_from_rms(x, gamma, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n    c = x - x.mean(-1, keepdims=True)\n    return gamma * c / np.sqrt(c.var(-1, keepdims=True) + eps)",
    ),
    mistake(
        "layer_norm_from_rms",
        "rms_norm called and its result thrown away",
        "def layer_norm_from_rms(x, gamma, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n    rms_norm(x, gamma, eps)\n    c = x - x.mean(-1, keepdims=True)\n    return gamma * c / np.sqrt(np.mean(c**2, -1, keepdims=True) + eps)",
    ),
    mistake(
        "layer_norm_from_rms",
        "given layer_norm with beta 0",
        "def layer_norm_from_rms(x, gamma, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n    return layer_norm(x, gamma, 0.0, eps)",
    ),
    mistake(
        "apply_rope",
        "clockwise (sign of sin flipped)",
        "def apply_rope(x, positions, base=10000.0):\n    x = np.asarray(x, dtype=float)\n    d = x.shape[-1]\n    a = np.asarray(positions)[:, None] * base ** (-np.arange(0, d, 2) / d)\n    c, s = np.cos(a), np.sin(a)\n    e, o = x[..., 0::2], x[..., 1::2]\n    out = np.empty_like(x)\n    out[..., 0::2] = e * c + o * s\n    out[..., 1::2] = -e * s + o * c\n    return out",
    ),
    mistake(
        "apply_rope",
        "pairs r and r + d/2 (Hugging Face)",
        "def apply_rope(x, positions, base=10000.0):\n    x = np.asarray(x, dtype=float)\n    d = x.shape[-1]\n    a = np.asarray(positions)[:, None] * base ** (-np.arange(0, d, 2) / d)\n    c, s = np.cos(a), np.sin(a)\n    e, o = x[..., : d // 2], x[..., d // 2 :]\n    return np.concatenate([e * c - o * s, e * s + o * c], axis=-1)",
    ),
    mistake(
        "apply_rope",
        "omega = base^(-r/d)",
        "def apply_rope(x, positions, base=10000.0):\n    x = np.asarray(x, dtype=float)\n    d = x.shape[-1]\n    a = np.asarray(positions)[:, None] * base ** (-np.arange(d // 2) / d)\n    c, s = np.cos(a), np.sin(a)\n    e, o = x[..., 0::2], x[..., 1::2]\n    out = np.empty_like(x)\n    out[..., 0::2] = e * c - o * s\n    out[..., 1::2] = e * s + o * c\n    return out",
    ),
    mistake(
        "apply_rope",
        "ignores positions, uses 0..n-1",
        "def apply_rope(x, positions, base=10000.0):\n    x = np.asarray(x, dtype=float)\n    d = x.shape[-1]\n    a = np.arange(x.shape[-2])[:, None] * base ** (-np.arange(0, d, 2) / d)\n    c, s = np.cos(a), np.sin(a)\n    e, o = x[..., 0::2], x[..., 1::2]\n    out = np.empty_like(x)\n    out[..., 0::2] = e * c - o * s\n    out[..., 1::2] = e * s + o * c\n    return out",
    ),
    mistake(
        "apply_rope",
        "ignores base",
        "def apply_rope(x, positions, base=10000.0):\n    x = np.asarray(x, dtype=float)\n    d = x.shape[-1]\n    a = np.asarray(positions)[:, None] * 10000.0 ** (-np.arange(0, d, 2) / d)\n    c, s = np.cos(a), np.sin(a)\n    e, o = x[..., 0::2], x[..., 1::2]\n    out = np.empty_like(x)\n    out[..., 0::2] = e * c - o * s\n    out[..., 1::2] = e * s + o * c\n    return out",
    ),
    mistake(
        "apply_rope",
        "updates the even half in place before the odd half uses it",
        "def apply_rope(x, positions, base=10000.0):\n    x = np.asarray(x, dtype=float)\n    d = x.shape[-1]\n    a = np.asarray(positions)[:, None] * base ** (-np.arange(0, d, 2) / d)\n    c, s = np.cos(a), np.sin(a)\n    out = x.copy()\n    out[..., 0::2] = out[..., 0::2] * c - out[..., 1::2] * s\n    out[..., 1::2] = out[..., 0::2] * s + out[..., 1::2] * c\n    return out",
    ),
    mistake(
        "apply_rope",
        "in place on the caller's x",
        "def apply_rope(x, positions, base=10000.0):\n    x = np.asarray(x, dtype=float)\n    d = x.shape[-1]\n    a = np.asarray(positions)[:, None] * base ** (-np.arange(0, d, 2) / d)\n    c, s = np.cos(a), np.sin(a)\n    e, o = x[..., 0::2].copy(), x[..., 1::2].copy()\n    x[..., 0::2] = e * c - o * s\n    x[..., 1::2] = e * s + o * c\n    return x",
    ),
    mistake(
        "apply_rope",
        "angles m * r (no frequency)",
        "def apply_rope(x, positions, base=10000.0):\n    x = np.asarray(x, dtype=float)\n    d = x.shape[-1]\n    a = np.asarray(positions)[:, None] * np.arange(d // 2)\n    c, s = np.cos(a), np.sin(a)\n    e, o = x[..., 0::2], x[..., 1::2]\n    out = np.empty_like(x)\n    out[..., 0::2] = e * c - o * s\n    out[..., 1::2] = e * s + o * c\n    return out",
    ),
]
RIGHT += [
    right("prediction", "stays", 'prediction = "stays"'),
    right(
        "stream_sizes",
        "norm / sqrt(size)",
        "def stream_sizes(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    x = params['W_E'][tokens] + positional_encoding(tokens.shape[-1], params['W_E'].shape[1])\n    out = [np.linalg.norm(x) / np.sqrt(x.size)]\n    for l in range(n_blocks(params)):\n        x = block(x, block_params(params, l), n_heads)\n        out.append(np.linalg.norm(x) / np.sqrt(x.size))\n    return np.array(out)",
    ),
    right(
        "rms_norm",
        "1/sqrt with np.reciprocal",
        "def rms_norm(x, gamma, eps=1e-6):\n    x = np.asarray(x, dtype=float)\n    ms = np.mean(np.square(x), axis=-1, keepdims=True)\n    return x * np.reciprocal(np.sqrt(ms + eps)) * gamma",
    ),
    right(
        "rms_norm",
        "norm / sqrt(d)",
        "def rms_norm(x, gamma, eps=1e-6):\n    x = np.asarray(x, dtype=float)\n    d = x.shape[-1]\n    r = np.sqrt(np.linalg.norm(x, axis=-1, keepdims=True)**2 / d + eps)\n    return gamma * x / r",
    ),
    right(
        "layer_norm_from_rms",
        "centred with np.subtract, eps passed by name",
        "def layer_norm_from_rms(x, gamma, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n    return rms_norm(np.subtract(x, np.mean(x, axis=-1, keepdims=True)), gamma, eps=eps)",
    ),
    right(
        "apply_rope",
        "complex numbers",
        "def apply_rope(x, positions, base=10000.0):\n    x = np.asarray(x, dtype=float)\n    d = x.shape[-1]\n    z = x[..., 0::2] + 1j * x[..., 1::2]\n    theta = np.outer(np.asarray(positions, float), base ** (-np.arange(d // 2) * 2.0 / d))\n    z = z * np.exp(1j * theta)\n    out = np.empty_like(x)\n    out[..., 0::2], out[..., 1::2] = z.real, z.imag\n    return out",
    ),
    right(
        "apply_rope",
        "2x2 rotation matrices, one per pair and position",
        "def apply_rope(x, positions, base=10000.0):\n    x = np.asarray(x, dtype=float)\n    d = x.shape[-1]\n    n = x.shape[-2]\n    pos = np.asarray(positions, float)\n    out = np.empty_like(x)\n    for i in range(n):\n        for r in range(d // 2):\n            a = pos[i] * base ** (-2 * r / d)\n            R = np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]])\n            out[..., i, 2*r:2*r+2] = x[..., i, 2*r:2*r+2] @ R\n    return out",
    ),
]

# RoPE inside attention: what goes wrong when the heads are split, turned and scaled.
PER_HEAD = (
    "    scores = []\n    for h in range(n_heads):\n        c = slice(h * d_head, (h + 1) * d_head)\n"
    "        q = apply_rope((X @ W_Q)[..., c], {qpos})\n        k = apply_rope((X @ W_K)[..., c], {kpos})\n"
    "        scores.append(q @ np.swapaxes(k, -1, -2) / np.sqrt({scale}))\n    return np.stack(scores, axis=-3)"
)
MISTAKES += [
    mistake(
        "rope_attention_scores",
        "RoPE on the whole row before the split (the frequencies of width d, not d_head)",
        RAS
        + "    Q, K = apply_rope(X @ W_Q, np.arange(n)), apply_rope(X @ W_K, np.arange(n))\n"
        + "    return np.stack([Q[..., h * d_head : (h + 1) * d_head] @ np.swapaxes(K[..., h * d_head : (h + 1) * d_head], -1, -2) / np.sqrt(d_head) for h in range(n_heads)], axis=-3)",
    ),
    mistake(
        "rope_attention_scores",
        "scaled by sqrt(d), not sqrt(d_head)",
        RAS + PER_HEAD.format(qpos="np.arange(n)", kpos="np.arange(n)", scale="X.shape[-1]"),
    ),
    mistake(
        "rope_attention_scores",
        "no scale",
        RAS + PER_HEAD.format(qpos="np.arange(n)", kpos="np.arange(n)", scale="1.0"),
    ),
    mistake(
        "rope_attention_scores",
        "the keys left unturned",
        RAS
        + PER_HEAD.format(qpos="np.arange(n)", kpos="np.arange(n)", scale="d_head").replace(
            "k = apply_rope((X @ W_K)[..., c], np.arange(n))", "k = (X @ W_K)[..., c]"
        ),
    ),
    mistake(
        "rope_attention_scores",
        "the keys at positions 1 to n, the queries at 0 to n - 1",
        RAS + PER_HEAD.format(qpos="np.arange(n)", kpos="np.arange(1, n + 1)", scale="d_head"),
    ),
    mistake(
        "rope_attention_scores",
        "the heads' columns interleaved (h::n_heads)",
        RAS
        + PER_HEAD.format(qpos="np.arange(n)", kpos="np.arange(n)", scale="d_head").replace(
            "c = slice(h * d_head, (h + 1) * d_head)", "c = slice(h, None, n_heads)"
        ),
    ),
    mistake(
        "rope_attention_scores",
        "K.T on a batch",
        RAS
        + PER_HEAD.format(qpos="np.arange(n)", kpos="np.arange(n)", scale="d_head").replace(
            "np.swapaxes(k, -1, -2)", "k.T"
        ),
    ),
    mistake(
        "rope_attention_scores",
        "the library's apply_rope",
        "from transformer_math.modern import apply_rope as library_rope\n\n\n"
        + RAS
        + PER_HEAD.format(qpos="np.arange(n)", kpos="np.arange(n)", scale="d_head").replace(
            "apply_rope(", "library_rope("
        ),
    ),
]
RIGHT += [
    right(
        "rope_attention_scores",
        "the heads split by a reshape, turned together, einsum for the scores",
        RAS
        + "    def heads(M):\n        return np.swapaxes(M.reshape(*M.shape[:-1], n_heads, d_head), -2, -3)\n"
        + "    q, k = apply_rope(heads(X @ W_Q), np.arange(n)), apply_rope(heads(X @ W_K), np.arange(n))\n"
        + "    return np.einsum('...id,...jd->...ij', q, k) / np.sqrt(d_head)",
    ),
    right(
        "rope_attention_scores",
        "positions 1 to n for queries and keys alike (the scores depend only on j - i)",
        RAS + PER_HEAD.format(qpos="np.arange(1, n + 1)", kpos="np.arange(1, n + 1)", scale="d_head"),
    ),
    right(
        "rope_attention_scores",
        "a loop over the heads",
        RAS + PER_HEAD.format(qpos="np.arange(n)", kpos="np.arange(n)", scale="d_head"),
    ),
]

# Attempts to get past the checks: the library's own function handed to the check under the exercise's name.
MISTAKES += [
    mistake(
        "rms_norm",
        "the library's rms_norm imported under the exercise's name",
        "from transformer_math.modern import rms_norm",
        append=True,
    ),
    mistake(
        "apply_rope",
        "the library's apply_rope imported under the exercise's name",
        "from transformer_math.modern import apply_rope",
        append=True,
    ),
]

# The library's source exec'd into the notebook (its imports of the library too) in place of the learner's code.
MISTAKES += [
    mistake(
        "apply_rope",
        "the library's apply_rope, its source exec'd into the notebook",
        vendored(
            "def apply_rope(x, positions, base=10000.0):\n    return _mo.apply_rope(np.asarray(x, dtype=float), positions, base)",
            _mo="transformer_math.modern",
        ),
        append=True,
    ),
    mistake(
        "rms_norm",
        "the library's rms_norm, its source exec'd into the notebook",
        vendored(
            "def rms_norm(x, gamma, eps=1e-6):\n    return _mo.rms_norm(np.asarray(x, dtype=float), gamma, eps)",
            _mo="transformer_math.modern",
        ),
        append=True,
    ),
]

# LayerNorm computed beside rms_norm, scaled by rms_norm of ones: rms_norm is called, but on something else.
MISTAKES += [
    mistake(
        "layer_norm_from_rms",
        "its own LayerNorm times rms_norm of ones",
        "def layer_norm_from_rms(x, gamma, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n"
        "    c = x - x.mean(axis=-1, keepdims=True)\n"
        "    scale = rms_norm(np.ones_like(c), np.ones_like(gamma), 0.0)\n"
        "    return gamma * c / np.sqrt(np.mean(c**2, axis=-1, keepdims=True) + eps) * scale",
    ),
]
RIGHT += [
    right(
        "layer_norm_from_rms",
        "rms_norm token by token, its arguments by name",
        "def layer_norm_from_rms(x, gamma, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n"
        "    flat = x.reshape(-1, x.shape[-1])\n"
        "    rows = [rms_norm(row - row.mean(), gamma=gamma, eps=eps) for row in flat]\n"
        "    return np.stack(rows).reshape(x.shape)",
    ),
]

# The learner's own LayerNorm rescaled, token by token, by a ratio from rms_norm of the right input: it moves with
# rms_norm when rms_norm is scaled, but not entry by entry.
MISTAKES += [
    mistake(
        "layer_norm_from_rms",
        "its own LayerNorm rescaled by a ratio from rms_norm",
        LNR + "    r = rms_norm(x - x.mean(axis=-1, keepdims=True), gamma, eps)\n"
        "    own = gamma * (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(x.var(axis=-1, keepdims=True) + eps)\n"
        "    return own * (r[..., :1] / own[..., :1])",
    ),
]

# Float64 inputs computed in float32: a float32 result is refused by its dtype, a float64 one cast back by a case where
# float32 rounding errs past the tolerance (squares past its range, angles in the thousands).
MISTAKES += [
    mistake(
        "rms_norm",
        "float32 throughout, float32 returned",
        "def rms_norm(x, gamma, eps=1e-6):\n"
        "    x, g = np.asarray(x, dtype=np.float32), np.asarray(gamma, dtype=np.float32)\n"
        "    return g * x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + np.float32(eps))",
    ),
    mistake(
        "rms_norm",
        "x in float32, gamma left in float64",
        "def rms_norm(x, gamma, eps=1e-6):\n    x = np.asarray(x, dtype=np.float32)\n"
        "    return gamma * x / np.sqrt(np.mean(x**2, axis=-1, keepdims=True) + np.float32(eps))",
    ),
    mistake(
        "apply_rope",
        "the angles rounded to float32",
        ROPE.replace("    cos, sin", "    angle = angle.astype(np.float32)\n    cos, sin") + TURN,
    ),
    mistake(
        "rope_attention_scores",
        "float32 throughout, float32 returned",
        "def rope_attention_scores(X, W_Q, W_K, n_heads):\n"
        "    X = np.asarray(X, dtype=np.float32)\n"
        "    n, d = X.shape[-2], X.shape[-1]\n    d_head = d // n_heads\n"
        "    omega = (10000.0 ** (-np.arange(0, d_head, 2) / d_head)).astype(np.float32)\n"
        "    angle = np.arange(n, dtype=np.float32)[:, None] * omega\n"
        "    cos, sin = np.cos(angle), np.sin(angle)\n"
        "    def turned(M):\n"
        "        out = np.empty_like(M)\n"
        "        out[..., 0::2] = M[..., 0::2] * cos - M[..., 1::2] * sin\n"
        "        out[..., 1::2] = M[..., 0::2] * sin + M[..., 1::2] * cos\n"
        "        return out\n"
        "    Q, K = X @ np.asarray(W_Q, dtype=np.float32), X @ np.asarray(W_K, dtype=np.float32)\n"
        "    heads = []\n"
        "    for h in range(n_heads):\n"
        "        q, k = turned(Q[..., h * d_head : (h + 1) * d_head]), turned(K[..., h * d_head : (h + 1) * d_head])\n"
        "        heads.append(q @ np.swapaxes(k, -1, -2) / np.float32(np.sqrt(d_head)))\n"
        "    return np.stack(heads, axis=-3)",
    ),
]
MISTAKES += [
    mistake(
        "stream_sizes",
        "the parameters rounded to float32",
        SIZES
        + "    params = {name: np.asarray(value, dtype=np.float32) for name, value in params.items()}\n"
        + X0
        + "    sizes = [np.sqrt(np.mean(x**2))]\n    for layer in range(n_blocks(params)):\n"
        + "        x = block(x, block_params(params, layer), n_heads)\n        sizes.append(np.sqrt(np.mean(x**2)))\n"
        + "    return np.array(sizes)",
    ),
]

# q and k computed in float32 and turned by the learner's apply_rope (float64 out): refused by tokens that share an
# offset W_Q and W_K do not see, where float32 keeps q and k to about 1e-2.
MISTAKES += [
    mistake(
        "rope_attention_scores",
        "q and k from X and the weights in float32",
        "def rope_attention_scores(X, W_Q, W_K, n_heads):\n"
        "    X = np.asarray(X, dtype=np.float32)\n"
        "    n, d_head = X.shape[-2], X.shape[-1] // n_heads\n"
        "    Q, K = X @ np.asarray(W_Q, dtype=np.float32), X @ np.asarray(W_K, dtype=np.float32)\n"
        "    heads = []\n"
        "    for h in range(n_heads):\n"
        "        cols = slice(h * d_head, (h + 1) * d_head)\n"
        "        q, k = apply_rope(Q[..., cols], np.arange(n)), apply_rope(K[..., cols], np.arange(n))\n"
        "        heads.append(q @ np.swapaxes(k, -1, -2) / np.sqrt(d_head))\n"
        "    return np.stack(heads, axis=-3)",
    ),
]
