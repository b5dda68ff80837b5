"""The Transformer block: the typical mistakes and other right answers."""

from __future__ import annotations

from tests.build.lab_cases import mistake, right, vendored

LN = "def layer_norm(x, gamma, beta, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n"
BLOCK = "def transformer_block(x, p, n_heads):\n"
ATT = "multi_head_attention({}, p['W_Q'], p['W_K'], p['W_V'], p['W_O'], n_heads)"
FFN = "feed_forward({}, p['W_1'], p['b_1'], p['W_2'], p['b_2'])"
LN1, LN2 = "layer_norm({}, p['ln1_g'], p['ln1_b'])", "layer_norm({}, p['ln2_g'], p['ln2_b'])"
FWD = "def forward_pass(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    W_E = params['W_E']\n"
X0 = "    x = W_E[tokens] + positional_encoding(tokens.shape[-1], W_E.shape[1])\n"
BLOCKS = "    for layer in range(1 + sum(k.endswith('.W_Q') for k in params)):\n        x = transformer_block(x, block_params(params, layer), n_heads)\n"
SUSPECT_1 = f"    x = x + {ATT.format('x')}\n"
SUSPECT_2 = f"    x = {LN2.format('x')}\n    return x + {FFN.format('x')}"
OUT = "    return layer_norm(x, params['lnf_g'], params['lnf_b']) @ params['W_U']"

MISTAKES = [
    mistake(
        "layer_norm",
        "the mean and variance of the whole array",
        LN + "    return gamma * (x - x.mean()) / np.sqrt(x.var() + eps) + beta",
    ),
    mistake(
        "layer_norm",
        "over the tokens (axis 0)",
        LN + "    return gamma * (x - x.mean(axis=0)) / np.sqrt(x.var(axis=0) + eps) + beta",
    ),
    mistake(
        "layer_norm",
        "eps outside the square root",
        LN + "    return gamma * (x - x.mean(-1, keepdims=True)) / (x.std(-1, keepdims=True) + eps) + beta",
    ),
    mistake(
        "layer_norm",
        "the variance of a sample (ddof=1)",
        LN
        + "    return gamma * (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, ddof=1, keepdims=True) + eps) + beta",
    ),
    mistake(
        "layer_norm",
        "gamma and beta swapped",
        LN + "    return beta * (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps) + gamma",
    ),
    mistake(
        "layer_norm",
        "no eps",
        LN
        + "    with np.errstate(all='ignore'):\n        return gamma * (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True)) + beta",
    ),
    mistake(
        "layer_norm",
        "eps fixed at 1e-5",
        LN + "    return gamma * (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5) + beta",
    ),
    mistake(
        "layer_norm",
        "the library's",
        "from transformer_math.stats import layer_norm as ln\n\n\ndef layer_norm(x, gamma, beta, eps=1e-5):\n    return ln(x, gamma, beta, eps=eps)",
    ),
    mistake(
        "layer_norm",
        "no centring (an RMSNorm): a shift of the token changes the output",
        LN + "    return gamma * x / np.sqrt((x**2).mean(-1, keepdims=True) + eps) + beta",
    ),
    mistake(
        "layer_norm",
        "divided by the range: shift- and scale-free, but not mean square 1",
        LN
        + "    c = x - x.mean(-1, keepdims=True)\n    s = x.max(-1, keepdims=True) - x.min(-1, keepdims=True)\n    return gamma * c / np.sqrt(s**2 + eps) + beta",
    ),
    mistake(
        "feed_forward",
        "the ReLU after W_2",
        "def feed_forward(C, W_1, b_1, W_2, b_2):\n    return np.maximum((C @ W_1 + b_1) @ W_2 + b_2, 0.0)",
    ),
    mistake(
        "feed_forward",
        "W_2 transposed where it is square (the shapes allow it)",
        "def feed_forward(C, W_1, b_1, W_2, b_2):\n    h = np.maximum(C @ W_1 + b_1, 0.0)\n"
        "    return (h @ W_2.T if W_2.shape[0] == W_2.shape[1] else h @ W_2) + b_2",
    ),
    mistake(
        "feed_forward", "no ReLU", "def feed_forward(C, W_1, b_1, W_2, b_2):\n    return (C @ W_1 + b_1) @ W_2 + b_2"
    ),
    mistake(
        "feed_forward",
        "b_1 forgotten",
        "def feed_forward(C, W_1, b_1, W_2, b_2):\n    return np.maximum(C @ W_1, 0.0) @ W_2 + b_2",
    ),
    mistake(
        "feed_forward",
        "tanh for the ReLU",
        "def feed_forward(C, W_1, b_1, W_2, b_2):\n    return np.tanh(C @ W_1 + b_1) @ W_2 + b_2",
    ),
    mistake(
        "feed_forward",
        "the library's ReLU through Value",
        "from transformer_math.autograd import Value\n\n\ndef feed_forward(C, W_1, b_1, W_2, b_2):\n    relu = np.vectorize(lambda u: Value(float(u)).relu().data)\n    return relu(C @ W_1 + b_1) @ W_2 + b_2",
    ),
    mistake(
        "transformer_block",
        "post-LN, the original Transformer's order",
        BLOCK + f"    x = {LN1.format('x + ' + ATT.format('x'))}\n    return {LN2.format('x + ' + FFN.format('x'))}",
    ),
    mistake(
        "transformer_block",
        "the stream normalised",
        BLOCK
        + f"    x = {LN1.format('x')}\n    x = x + {ATT.format('x')}\n    x = {LN2.format('x')}\n    return x + {FFN.format('x')}",
    ),
    mistake(
        "transformer_block",
        "no residual",
        BLOCK + f"    x = {ATT.format(LN1.format('x'))}\n    return {FFN.format(LN2.format('x'))}",
    ),
    mistake(
        "transformer_block",
        "both sub-layers read the block's input",
        BLOCK + f"    return x + {ATT.format(LN1.format('x'))} + {FFN.format(LN2.format('x'))}",
    ),
    mistake(
        "transformer_block",
        "ln1 for both",
        BLOCK + f"    x = x + {ATT.format(LN1.format('x'))}\n    return x + {FFN.format(LN1.format('x'))}",
    ),
    mistake(
        "transformer_block",
        "the library's block",
        "from transformer_math.block import block_forward\n\n\n" + BLOCK + "    return block_forward(p, x, n_heads)[0]",
    ),
    mistake("transformer_block", "the suspect block as it was", BLOCK + SUSPECT_1 + SUSPECT_2),
    mistake(
        "transformer_block",
        "only the stream's LayerNorm fixed: attention still reads the raw stream",
        BLOCK + SUSPECT_1 + f"    return x + {FFN.format(LN2.format('x'))}",
    ),
    mistake(
        "transformer_block",
        "only attention's input fixed: the stream still normalised",
        BLOCK + f"    x = x + {ATT.format(LN1.format('x'))}\n" + SUSPECT_2,
    ),
    mistake(
        "transformer_block",
        "the suspect block called",
        BLOCK + "    return suspect_block(x, p, n_heads)",
    ),
    mistake("prediction", "a word not offered", 'prediction = "yes"'),
    mistake(
        "forward_pass",
        "the prefixed blocks counted, block 0 forgotten in the count",
        FWD
        + X0
        + "    for layer in range(sum(k.endswith('.W_Q') for k in params)):\n        x = transformer_block(x, block_params(params, layer), n_heads)\n"
        + OUT,
    ),
    mistake(
        "forward_pass",
        "block 0 skipped",
        FWD
        + X0
        + "    for layer in range(1, 1 + sum(k.endswith('.W_Q') for k in params)):\n        x = transformer_block(x, block_params(params, layer), n_heads)\n"
        + OUT,
    ),
    mistake("forward_pass", "no final LayerNorm", FWD + X0 + BLOCKS + "    return x @ params['W_U']"),
    mistake("forward_pass", "no positions", FWD + "    x = W_E[tokens]\n" + BLOCKS + OUT),
    mistake(
        "forward_pass",
        "block 0 only",
        FWD + X0 + "    x = transformer_block(x, block_params(params, 0), n_heads)\n" + OUT,
    ),
    mistake(
        "forward_pass",
        "two blocks, always",
        FWD
        + X0
        + "    for layer in range(2):\n        x = transformer_block(x, block_params(params, layer), n_heads)\n"
        + OUT,
    ),
    mistake(
        "forward_pass",
        "block 0's arrays in every block",
        FWD
        + X0
        + "    for layer in range(1 + sum(k.endswith('.W_Q') for k in params)):\n        x = transformer_block(x, block_params(params, 0), n_heads)\n"
        + OUT,
    ),
    mistake(
        "forward_pass",
        "the positions of the batch size",
        FWD + "    x = W_E[tokens] + positional_encoding(len(tokens), W_E.shape[1])\n" + BLOCKS + OUT,
    ),
    mistake(
        "forward_pass",
        "the library's forward",
        "import importlib\n\n\ndef forward_pass(params, tokens, n_heads):\n    return importlib.import_module('transformer_math.model').forward(params, np.asarray(tokens), n_heads)[0]",
    ),
]

RIGHT = [
    right(
        "layer_norm",
        "the standard deviation, computed by hand",
        LN
        + "    centred = x - x.sum(axis=-1, keepdims=True) / x.shape[-1]\n    spread = np.sqrt((centred**2).mean(axis=-1, keepdims=True) + eps)\n    return centred / spread * gamma + beta",
    ),
    right(
        "layer_norm",
        "the spread as the standard deviation, then sqrt(s**2 + eps) as the text puts it",
        LN
        + "    s = x.std(axis=-1, keepdims=True)\n    return gamma * (x - x.mean(axis=-1, keepdims=True)) / np.sqrt(s**2 + eps) + beta",
    ),
    right(
        "feed_forward",
        "the ReLU as a product with a mask",
        "def feed_forward(C, W_1, b_1, W_2, b_2):\n    u = np.asarray(C) @ W_1 + b_1\n    return (u * (u > 0)) @ W_2 + b_2",
    ),
    right(
        "transformer_block",
        "in one expression each",
        BLOCK + f"    x1 = x + {ATT.format(LN1.format('x'))}\n    return x1 + {FFN.format(LN2.format('x1'))}",
    ),
    right("prediction", "the other word", 'prediction = "different"'),
    right(
        "forward_pass",
        "counting the blocks by their keys",
        FWD
        + X0
        + "    layer = 0\n    while layer == 0 or f'h{layer}.W_Q' in params:\n        x = transformer_block(x, block_params(params, layer), n_heads)\n        layer += 1\n"
        + OUT,
    ),
]

# An outside instructor's attempts, each written without the reference solution in view: the mistakes
# learners make (and routes around the exercise), and other right answers.
MISTAKES += [
    mistake(
        "layer_norm",
        "whole-array mean and var",
        "def layer_norm(x, gamma, beta, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n    return gamma * (x - x.mean()) / np.sqrt(x.var() + eps) + beta",
    ),
    mistake(
        "layer_norm",
        "eps outside the sqrt",
        "def layer_norm(x, gamma, beta, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n    return gamma * (x - x.mean(-1, keepdims=True)) / (x.std(-1, keepdims=True) + eps) + beta",
    ),
    mistake(
        "layer_norm",
        "ddof=1 variance",
        "def layer_norm(x, gamma, beta, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n    return gamma * (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, ddof=1, keepdims=True) + eps) + beta",
    ),
    mistake(
        "layer_norm",
        "forgets gamma",
        "def layer_norm(x, gamma, beta, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n    return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps) + beta",
    ),
    mistake(
        "layer_norm",
        "forgets beta",
        "def layer_norm(x, gamma, beta, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n    return gamma * (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps)",
    ),
    mistake(
        "layer_norm",
        "ignores the eps argument",
        "def layer_norm(x, gamma, beta, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n    return gamma * (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5) + beta",
    ),
    mistake(
        "layer_norm",
        "axis 0",
        "def layer_norm(x, gamma, beta, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n    return gamma * (x - x.mean(0, keepdims=True)) / np.sqrt(x.var(0, keepdims=True) + eps) + beta",
    ),
    mistake(
        "layer_norm",
        "in place on x",
        "def layer_norm(x, gamma, beta, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n    x -= x.mean(-1, keepdims=True)\n    x /= np.sqrt((x**2).mean(-1, keepdims=True) + eps)\n    return gamma * x + beta",
    ),
    mistake(
        "layer_norm",
        "no eps at all",
        "def layer_norm(x, gamma, beta, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n    with np.errstate(all='ignore'):\n        return gamma * (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True)) + beta",
    ),
    mistake(
        "layer_norm",
        "library stats.layer_norm",
        "from transformer_math.stats import layer_norm as ln\ndef layer_norm(x, gamma, beta, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n    return ln(x, gamma, beta, eps=eps)",
    ),
    mistake(
        "feed_forward",
        "ReLU after the second layer",
        "def feed_forward(C, W_1, b_1, W_2, b_2):\n    return np.maximum(np.maximum(C @ W_1 + b_1, 0) @ W_2 + b_2, 0)",
    ),
    mistake(
        "feed_forward", "no ReLU", "def feed_forward(C, W_1, b_1, W_2, b_2):\n    return (C @ W_1 + b_1) @ W_2 + b_2"
    ),
    mistake(
        "feed_forward",
        "forgets b_1",
        "def feed_forward(C, W_1, b_1, W_2, b_2):\n    return np.maximum(C @ W_1, 0) @ W_2 + b_2",
    ),
    mistake(
        "feed_forward",
        "bias inside ReLU of layer 2 order: ReLU(C W1) + b1",
        "def feed_forward(C, W_1, b_1, W_2, b_2):\n    return (np.maximum(C @ W_1, 0) + b_1) @ W_2 + b_2",
    ),
    mistake(
        "feed_forward",
        "tanh-GELU instead of ReLU",
        "def feed_forward(C, W_1, b_1, W_2, b_2):\n    u = C @ W_1 + b_1\n    return 0.5 * u * (1 + np.tanh(0.79788456 * (u + 0.044715 * u**3))) @ W_2 + b_2",
    ),
    mistake(
        "feed_forward",
        "np.max instead of np.maximum",
        "def feed_forward(C, W_1, b_1, W_2, b_2):\n    u = C @ W_1 + b_1\n    return np.max(u, 0) @ W_2 + b_2 if u.ndim > 1 else np.maximum(u, 0) @ W_2 + b_2",
    ),
    mistake(
        "transformer_block",
        "post-LN",
        "def transformer_block(x, p, n_heads):\n    x = layer_norm(x + multi_head_attention(x, p['W_Q'], p['W_K'], p['W_V'], p['W_O'], n_heads), p['ln1_g'], p['ln1_b'])\n    return layer_norm(x + feed_forward(x, p['W_1'], p['b_1'], p['W_2'], p['b_2']), p['ln2_g'], p['ln2_b'])",
    ),
    mistake(
        "transformer_block",
        "FFN reads LN2 of x, not of x1",
        "def transformer_block(x, p, n_heads):\n    x1 = x + multi_head_attention(layer_norm(x, p['ln1_g'], p['ln1_b']), p['W_Q'], p['W_K'], p['W_V'], p['W_O'], n_heads)\n    return x1 + feed_forward(layer_norm(x, p['ln2_g'], p['ln2_b']), p['W_1'], p['b_1'], p['W_2'], p['b_2'])",
    ),
    mistake(
        "transformer_block",
        "no residual around attention",
        "def transformer_block(x, p, n_heads):\n    x1 = multi_head_attention(layer_norm(x, p['ln1_g'], p['ln1_b']), p['W_Q'], p['W_K'], p['W_V'], p['W_O'], n_heads)\n    return x1 + feed_forward(layer_norm(x1, p['ln2_g'], p['ln2_b']), p['W_1'], p['b_1'], p['W_2'], p['b_2'])",
    ),
    mistake(
        "transformer_block",
        "residual adds the normalised stream",
        "def transformer_block(x, p, n_heads):\n    a = layer_norm(x, p['ln1_g'], p['ln1_b'])\n    x1 = a + multi_head_attention(a, p['W_Q'], p['W_K'], p['W_V'], p['W_O'], n_heads)\n    c = layer_norm(x1, p['ln2_g'], p['ln2_b'])\n    return c + feed_forward(c, p['W_1'], p['b_1'], p['W_2'], p['b_2'])",
    ),
    mistake(
        "transformer_block",
        "ln1 and ln2 swapped",
        "def transformer_block(x, p, n_heads):\n    x1 = x + multi_head_attention(layer_norm(x, p['ln2_g'], p['ln2_b']), p['W_Q'], p['W_K'], p['W_V'], p['W_O'], n_heads)\n    return x1 + feed_forward(layer_norm(x1, p['ln1_g'], p['ln1_b']), p['W_1'], p['b_1'], p['W_2'], p['b_2'])",
    ),
    mistake(
        "transformer_block",
        "parallel block (GPT-J style)",
        "def transformer_block(x, p, n_heads):\n    return x + multi_head_attention(layer_norm(x, p['ln1_g'], p['ln1_b']), p['W_Q'], p['W_K'], p['W_V'], p['W_O'], n_heads) + feed_forward(layer_norm(x, p['ln2_g'], p['ln2_b']), p['W_1'], p['b_1'], p['W_2'], p['b_2'])",
    ),
    mistake(
        "transformer_block",
        "hard-coded two heads",
        "def transformer_block(x, p, n_heads):\n    x1 = x + multi_head_attention(layer_norm(x, p['ln1_g'], p['ln1_b']), p['W_Q'], p['W_K'], p['W_V'], p['W_O'], 2)\n    return x1 + feed_forward(layer_norm(x1, p['ln2_g'], p['ln2_b']), p['W_1'], p['b_1'], p['W_2'], p['b_2'])",
    ),
    mistake(
        "transformer_block",
        "in place += on the caller's x",
        "def transformer_block(x, p, n_heads):\n    x += multi_head_attention(layer_norm(x, p['ln1_g'], p['ln1_b']), p['W_Q'], p['W_K'], p['W_V'], p['W_O'], n_heads)\n    x += feed_forward(layer_norm(x, p['ln2_g'], p['ln2_b']), p['W_1'], p['b_1'], p['W_2'], p['b_2'])\n    return x",
    ),
    mistake(
        "transformer_block",
        "library block_forward",
        "from transformer_math.block import block_forward\ndef transformer_block(x, p, n_heads):\n    return block_forward(p, x, n_heads)[0]",
    ),
    mistake("prediction", "yes", 'prediction = "yes"'),
    mistake(
        "forward_pass",
        "no positions",
        "def forward_pass(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    W_E = params['W_E']\n    x = W_E[tokens]\n    for l in range(1 + sum(k.endswith('.W_Q') for k in params)):\n        x = transformer_block(x, block_params(params, l), n_heads)\n    return layer_norm(x, params['lnf_g'], params['lnf_b']) @ params['W_U']",
    ),
    mistake(
        "forward_pass",
        "one block only",
        "def forward_pass(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    W_E = params['W_E']\n    x = W_E[tokens] + positional_encoding(tokens.shape[-1], W_E.shape[1])\n    x = transformer_block(x, block_params(params, 0), n_heads)\n    return layer_norm(x, params['lnf_g'], params['lnf_b']) @ params['W_U']",
    ),
    mistake(
        "forward_pass",
        "every layer uses block 0's arrays",
        "def forward_pass(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    W_E = params['W_E']\n    x = W_E[tokens] + positional_encoding(tokens.shape[-1], W_E.shape[1])\n    for l in range(1 + sum(k.endswith('.W_Q') for k in params)):\n        x = transformer_block(x, block_params(params, 0), n_heads)\n    return layer_norm(x, params['lnf_g'], params['lnf_b']) @ params['W_U']",
    ),
    mistake(
        "forward_pass",
        "no final LayerNorm",
        "def forward_pass(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    W_E = params['W_E']\n    x = W_E[tokens] + positional_encoding(tokens.shape[-1], W_E.shape[1])\n    for l in range(1 + sum(k.endswith('.W_Q') for k in params)):\n        x = transformer_block(x, block_params(params, l), n_heads)\n    return x @ params['W_U']",
    ),
    mistake(
        "forward_pass",
        "tied unembedding W_E.T",
        "def forward_pass(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    W_E = params['W_E']\n    x = W_E[tokens] + positional_encoding(tokens.shape[-1], W_E.shape[1])\n    for l in range(1 + sum(k.endswith('.W_Q') for k in params)):\n        x = transformer_block(x, block_params(params, l), n_heads)\n    return layer_norm(x, params['lnf_g'], params['lnf_b']) @ W_E.T",
    ),
    mistake(
        "forward_pass",
        "positions of length tokens.shape[0] (a batch breaks)",
        "def forward_pass(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    W_E = params['W_E']\n    x = W_E[tokens] + positional_encoding(tokens.shape[0], W_E.shape[1])\n    for l in range(1 + sum(k.endswith('.W_Q') for k in params)):\n        x = transformer_block(x, block_params(params, l), n_heads)\n    return layer_norm(x, params['lnf_g'], params['lnf_b']) @ params['W_U']",
    ),
    mistake(
        "forward_pass",
        "blocks in reverse order",
        "def forward_pass(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    W_E = params['W_E']\n    x = W_E[tokens] + positional_encoding(tokens.shape[-1], W_E.shape[1])\n    for l in reversed(range(1 + sum(k.endswith('.W_Q') for k in params))):\n        x = transformer_block(x, block_params(params, l), n_heads)\n    return layer_norm(x, params['lnf_g'], params['lnf_b']) @ params['W_U']",
    ),
    mistake(
        "forward_pass",
        "library forward via importlib",
        "import importlib\ndef forward_pass(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    W_E = params['W_E']\n    return importlib.import_module('transformer_math.model').forward(params, tokens, n_heads)[0]",
    ),
    mistake(
        "forward_pass",
        "softmax of the logits returned",
        "def forward_pass(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    W_E = params['W_E']\n    x = W_E[tokens] + positional_encoding(tokens.shape[-1], W_E.shape[1])\n    for l in range(1 + sum(k.endswith('.W_Q') for k in params)):\n        x = transformer_block(x, block_params(params, l), n_heads)\n    z = layer_norm(x, params['lnf_g'], params['lnf_b']) @ params['W_U']\n    e = np.exp(z - z.max(-1, keepdims=True)); return e / e.sum(-1, keepdims=True)",
    ),
]
RIGHT += [
    right(
        "layer_norm",
        "standardise with std and a sqrt of var+eps",
        "def layer_norm(x, gamma, beta, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n    c = x - x.mean(axis=-1, keepdims=True)\n    return c / np.sqrt((c**2).mean(axis=-1, keepdims=True) + eps) * gamma + beta",
    ),
    right(
        "layer_norm",
        "rows loop over a 2-D reshape",
        "def layer_norm(x, gamma, beta, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n    d = x.shape[-1]; flat = x.reshape(-1, d); out = np.empty_like(flat)\n    for i, r in enumerate(flat):\n        out[i] = gamma * (r - r.mean()) / np.sqrt(r.var() + eps) + beta\n    return out.reshape(x.shape)",
    ),
    right(
        "feed_forward",
        "einsum and where",
        "def feed_forward(C, W_1, b_1, W_2, b_2):\n    u = np.einsum('...i,ij->...j', np.asarray(C, float), W_1) + b_1\n    return np.where(u > 0, u, 0.0) @ W_2 + b_2",
    ),
    right(
        "feed_forward",
        "clip",
        "def feed_forward(C, W_1, b_1, W_2, b_2):\n    return np.clip(C @ W_1 + b_1, 0, None) @ W_2 + b_2",
    ),
    right(
        "transformer_block",
        "named steps, residuals with +=",
        "def transformer_block(x, p, n_heads):\n    h = np.array(x, dtype=float)\n    h += multi_head_attention(layer_norm(h, p['ln1_g'], p['ln1_b']), p['W_Q'], p['W_K'], p['W_V'], p['W_O'], n_heads)\n    h += feed_forward(layer_norm(h, p['ln2_g'], p['ln2_b']), p['W_1'], p['b_1'], p['W_2'], p['b_2'])\n    return h",
    ),
    right("prediction", "different", 'prediction = "different"'),
    right(
        "forward_pass",
        "positions via a loop of blocks, with np.take",
        "def forward_pass(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    W_E = params['W_E']\n    x = np.take(W_E, tokens, axis=0) + positional_encoding(tokens.shape[-1], W_E.shape[-1])\n    L = len(params) // 12  # 12 arrays a block, and 4 more\n    for l in range(L):\n        x = transformer_block(x, block_params(params, l), n_heads)\n    return layer_norm(x, params['lnf_g'], params['lnf_b']) @ params['W_U']",
    ),
]

# Attempts to get past the checks.
MISTAKES += [
    mistake(
        "layer_norm",
        "the variance as E[x^2] - mean^2 (it cancels far from 0)",
        LN
        + "    mu = x.mean(axis=-1, keepdims=True)\n    var = (x * x).mean(axis=-1, keepdims=True) - mu * mu\n    return gamma * (x - mu) / np.sqrt(np.maximum(var, 0.0) + eps) + beta",
        prints="cancels to nothing here, subtract the mean first",  # the case says why, not only where
    ),
]
RIGHT += [
    right(
        "layer_norm",
        "the variance as the mean square of the centred token",
        LN
        + "    c = x - x.mean(axis=-1, keepdims=True)\n    return gamma * c / np.sqrt((c * c).mean(axis=-1, keepdims=True) + eps) + beta",
    ),
]

# Attempts to get past the checks: the library's own function handed to the check under the exercise's name.
MISTAKES += [
    mistake(
        "layer_norm",
        "the library's layer_norm imported under the exercise's name",
        "from transformer_math.stats import layer_norm",
        append=True,
    ),
]

# The library's source exec'd into the notebook (its imports of the library too) in place of the learner's code.
MISTAKES += [
    mistake(
        "forward_pass",
        "the library's model.forward, its source exec'd into the notebook",
        vendored(
            "def forward_pass(params, tokens, n_heads):\n    return _m3.forward(params, np.asarray(tokens), n_heads)[0]",
            _m3="transformer_math.model",
        ),
    ),
]

# The blocks taken in the sorted order of their key prefixes: as text, h10. sorts before h2., wrong past ten blocks.
MISTAKES += [
    mistake(
        "forward_pass",
        "the blocks in the keys' sorted order",
        FWD + X0 + "    prefixes = [''] + sorted({k.split('.')[0] + '.' for k in params if '.' in k})\n"
        "    for pr in prefixes:\n        x = transformer_block(x, {n: params[pr + n] for n in BLOCK_NAMES}, n_heads)\n"
        + OUT,
    ),
]

# Float64 inputs computed in float32 and cast back: refused by tokens near 1e4 whose offset b_1 cancels.
MISTAKES += [
    mistake(
        "feed_forward",
        "computed in float32, cast back to float64",
        "def feed_forward(C, W_1, b_1, W_2, b_2):\n    C = np.asarray(C, dtype=np.float32)\n"
        "    H = np.maximum(C @ W_1.astype(np.float32) + b_1, 0)\n"
        "    return (H @ W_2.astype(np.float32) + b_2).astype(float)",
    ),
]

# The block's and the model's parameters rounded to float32: refused by LN_2's shift near 1e4 that b_1 cancels.
ROUNDED = "{0} = {{name: np.asarray(value, dtype=np.float32) for name, value in {0}.items()}}\n"
MISTAKES += [
    mistake(
        "transformer_block",
        "the parameters rounded to float32",
        BLOCK
        + "    "
        + ROUNDED.format("p")
        + f"    x = x + {ATT.format(LN1.format('x'))}\n    return x + {FFN.format(LN2.format('x'))}",
    ),
    mistake(
        "forward_pass",
        "the parameters rounded to float32",
        FWD.replace("    tokens =", "    " + ROUNDED.format("params") + "    tokens =") + X0 + BLOCKS + OUT,
    ),
]
