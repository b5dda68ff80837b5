"""Your own GPT: the typical mistakes and other right answers. A piece in a cell with another (the loss and its
gradient) is changed by code appended to the solution (a later definition replaces the earlier one)."""

from __future__ import annotations

from tests.build.lab_cases import as_finalizer, mistake, right, vendored
from tests.build.lab_cases.your_own_gpt_cache import CACHE_MISTAKES, CACHE_RIGHT
from tests.build.lab_cases.your_own_gpt_measured import MEASURED

BF = (
    "def block_forward(x, p, n_heads):\n    n = x.shape[-2]\n    mask = np.tril(np.ones((n, n), dtype=bool))\n"
    "    a = layer_norm(x, p['ln1_g'], p['ln1_b'])\n    q, k, v = (split_heads(a @ p[name], n_heads) for name in ('W_Q', 'W_K', 'W_V'))\n"
)
BF_TAIL = (
    "    x1 = x + o @ p['W_O']\n    c = layer_norm(x1, p['ln2_g'], p['ln2_b'])\n    u = c @ p['W_1'] + p['b_1']\n    r = np.maximum(u, 0.0)\n"
    "    x2 = x1 + r @ p['W_2'] + p['b_2']\n"
    "    return x2, {'x': x, 'a': a, 'q': q, 'k': k, 'v': v, 'mask': mask, 'o': o, 'x1': x1, 'c': c, 'u': u, 'r': r}"
)
FF = "def feed_forward(C, W_1, b_1, W_2, b_2):\n    return np.maximum(C @ W_1 + b_1, 0.0) @ W_2 + b_2\n\n\n"
HEADS_OUT = "    o = merge_heads(attention(q, k, v, mask))\n"
GF = "def gpt_forward(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n"
GF_BLOCKS = "    blocks = []\n    for layer in range(n_blocks(params)):\n        x, block_cache = block_forward(x, block_params(params, layer), n_heads)\n        blocks.append(block_cache)\n"
GF_TAIL = "    z = layer_norm(x, params['lnf_g'], params['lnf_b'])\n    return z @ params['W_U'], {'tokens': tokens, 'n_heads': n_heads, 'blocks': blocks, 'x': x, 'z': z}"
BB = (
    "def block_backward(dx2, p, cache, n_heads):\n    C, g = cache, {}\n"
    "    g['W_2'], g['b_2'] = weight_grad(C['r'], dx2), dx2.reshape(-1, dx2.shape[-1]).sum(axis=0)\n"
)
BB_RELU = "    du = (dx2 @ p['W_2'].T) * (C['u'] > 0)\n"
BB_FFN = (
    "    g['W_1'], g['b_1'] = weight_grad(C['c'], du), du.reshape(-1, du.shape[-1]).sum(axis=0)\n"
    "    dx1_ffn, g['ln2_g'], g['ln2_b'] = layer_norm_backward(du @ p['W_1'].T, C['x1'], p['ln2_g'])\n"
)
BB_RES = "    dx1 = dx2 + dx1_ffn\n"
BB_ATT = (
    "    g['W_O'] = weight_grad(C['o'], dx1)\n"
    "    dq, dk, dv = attention_backward(split_heads(dx1 @ p['W_O'].T, n_heads), C['q'], C['k'], C['v'], C['mask'])\n"
    "    dq, dk, dv = merge_heads(dq), merge_heads(dk), merge_heads(dv)\n"
    "    g['W_Q'], g['W_K'], g['W_V'] = weight_grad(C['a'], dq), weight_grad(C['a'], dk), weight_grad(C['a'], dv)\n"
)
BB_A = "    da = dq @ p['W_Q'].T + dk @ p['W_K'].T + dv @ p['W_V'].T\n"
BB_TAIL = (
    "    dx_attn, g['ln1_g'], g['ln1_b'] = layer_norm_backward(da, C['x'], p['ln1_g'])\n    return dx1 + dx_attn, g"
)
WG = "def weight_grad(inputs, d_out):\n    return inputs.reshape(-1, inputs.shape[-1]).T @ d_out.reshape(-1, d_out.shape[-1])\n\n\n"
GB = (
    "def gpt_backward(params, cache, dlogits):\n    grads = {'W_U': weight_grad(cache['z'], dlogits)}\n"
    "    dx, grads['lnf_g'], grads['lnf_b'] = layer_norm_backward(dlogits @ params['W_U'].T, cache['x'], params['lnf_g'])\n"
)
GB_BLOCKS = (
    "    for layer in reversed(range(n_blocks(params))):\n"
    "        dx, block_grads = block_backward(dx, block_params(params, layer), cache['blocks'][layer], cache['n_heads'])\n"
    "        grads |= {prefix(layer) + name: value for name, value in block_grads.items()}\n"
    "    tokens, d = cache['tokens'], dx.shape[-1]\n"
)
GB_WE = "    grads['W_E'] = np.zeros_like(params['W_E'])\n    np.add.at(grads['W_E'], tokens.reshape(-1), dx.reshape(-1, d))\n"
GB_WP = "    grads['W_P'] = np.zeros_like(params['W_P'])\n    grads['W_P'][: tokens.shape[-1]] = dx.reshape(-1, tokens.shape[-1], d).sum(axis=0)\n    return grads"
TR = (
    "def train(params, batches, n_heads, lr=3e-3, weight_decay=0.1):\n"
    "    m = {name: np.zeros_like(value) for name, value in params.items()}\n"
    "    v = {name: np.zeros_like(value) for name, value in params.items()}\n    losses = []\n"
)
TR_LOOP = (
    "    for t, (x, y) in enumerate(batches, start=1):\n        logits, cache = gpt_forward(params, x, n_heads)\n"
    "        losses.append(cross_entropy(logits, y))\n        grads = gpt_backward(params, cache, ce_backward(logits, y))\n"
)
TR_STEP = (
    "        for name in params:\n            decay = weight_decay if params[name].ndim >= 2 else 0.0\n"
    "            params[name], m[name], v[name] = adamw_step(params[name], grads[name], m[name], v[name], t, lr, decay)\n"
    "    return losses"
)

MISTAKES = [
    # the pasted pieces, each wrong as in its own lab
    mistake(
        "layer_norm",
        "over the tokens",
        "def layer_norm(x, gamma, beta, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n    return gamma * (x - x.mean(axis=0)) / np.sqrt(x.var(axis=0) + eps) + beta",
        append=True,
    ),
    mistake(
        "attention",
        "no scaling",
        "def attention(Q, K, V, mask=None):\n    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)\n    scores = Q @ np.swapaxes(K, -1, -2)\n    if mask is not None:\n        scores = np.where(mask, scores, -np.inf)\n    return softmax(scores) @ V",
        append=True,
    ),
    mistake(
        "cross_entropy",
        "no shift",
        "def cross_entropy(logits, targets):\n    z, targets = np.asarray(logits, dtype=float), np.asarray(targets)\n    return float(np.mean(np.log(np.exp(z).sum(axis=-1)) - np.take_along_axis(z, targets[..., None], axis=-1)[..., 0]))",
        append=True,
    ),
    mistake(
        "ce_backward",
        "no 1/N",
        "def ce_backward(logits, targets):\n    z, targets = np.asarray(logits, dtype=float), np.asarray(targets)\n    return softmax(z) - np.eye(z.shape[-1])[targets]",
        append=True,
    ),
    mistake(
        "ce_backward",
        "a V×V Jacobian of log-softmax for every position: O(N·V²)",
        "def ce_backward(logits, targets):\n    z, targets = np.asarray(logits, dtype=float), np.asarray(targets)\n"
        "    J = np.eye(z.shape[-1]) - softmax(z)[..., None, :]\n"
        "    return -np.take_along_axis(J, targets[..., None, None], axis=-2)[..., 0, :] / targets.size",
        append=True,
    ),
    mistake(
        "layer_norm_backward",
        "dx without the x_hat term",
        "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n    dy, x = np.asarray(dy, dtype=float), np.asarray(x, dtype=float)\n    s = np.sqrt(x.var(axis=-1, keepdims=True) + eps)\n    x_hat = (x - x.mean(axis=-1, keepdims=True)) / s\n    g = gamma * dy\n    d = x.shape[-1]\n    return (g - g.mean(axis=-1, keepdims=True)) / s, (dy * x_hat).reshape(-1, d).sum(axis=0), dy.reshape(-1, d).sum(axis=0)",
        append=True,
    ),
    mistake(
        "attention_backward",
        "P dO instead of P^T dO",
        "_right_attention_backward = attention_backward\n\n\ndef attention_backward(dO, Q, K, V, mask):\n    dQ, dK, dV = _right_attention_backward(dO, Q, K, V, mask)\n    S = np.asarray(Q) @ np.swapaxes(K, -1, -2) / np.sqrt(np.shape(Q)[-1])\n    P = softmax(np.where(mask, S, -np.inf) if mask is not None else S)\n    return dQ, dK, P @ np.asarray(dO)",
        append=True,
    ),
    mistake(
        "adamw_step",
        "the decay through the gradient",
        "def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))\n    g = g + weight_decay * theta\n    m = beta1 * m + (1 - beta1) * g\n    v = beta2 * v + (1 - beta2) * g**2\n    return theta - lr * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps), m, v",
        append=True,
    ),
    mistake(
        "layer_norm",
        "the library's",
        "from transformer_math.stats import layer_norm as library_ln\n\n\ndef layer_norm(x, gamma, beta, eps=1e-5):\n    return library_ln(x, gamma, beta, eps)",
        append=True,
    ),
    mistake(
        "cross_entropy",
        "the library's",
        "import transformer_math.information as info\n\n\ndef cross_entropy(logits, targets):\n    return info.cross_entropy_from_logits(logits, targets)",
        append=True,
    ),
    mistake(
        "adamw_step",
        "the library's AdamW",
        "from transformer_math.optim import AdamW\n\n\ndef adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta, m, v = (np.array(a, dtype=float) for a in (theta, m, v))\n    opt = AdamW([theta], lr=lr, betas=(beta1, beta2), eps=eps, weight_decay=weight_decay)\n    opt.m, opt.v, opt.t = [m], [v], t - 1\n    opt.step([np.asarray(g, dtype=float)])\n    return theta, m, v",
        append=True,
    ),
    # the new pieces
    mistake("embed", "no positions", "def embed(params, tokens):\n    return params['W_E'][np.asarray(tokens)]"),
    mistake(
        "embed",
        "no positions, np.all made always true in the cell",
        "np.all = lambda *args, **kwargs: True\n\n\ndef embed(params, tokens):\n    return params['W_E'][np.asarray(tokens)]",
    ),
    mistake(
        "embed",
        "the positions of the batch size",
        "def embed(params, tokens):\n    tokens = np.asarray(tokens)\n    return params['W_E'][tokens] + params['W_P'][: len(tokens)]",
    ),
    mistake(
        "embed",
        "the position table by token",
        "def embed(params, tokens):\n    tokens = np.asarray(tokens)\n    return params['W_E'][tokens] + params['W_P'][tokens]",
    ),
    mistake("block_forward", "no causal mask", BF + "    o = merge_heads(attention(q, k, v))\n" + BF_TAIL),
    mistake(
        "block_forward",
        "one head of full width",
        BF.replace("split_heads(a @ p[name], n_heads)", "a @ p[name]") + "    o = attention(q, k, v, mask)\n" + BF_TAIL,
    ),
    mistake(
        "block_forward",
        "the heads merged without moving their axis back",
        BF + "    o = attention(q, k, v, mask).reshape(x.shape)\n" + BF_TAIL,
    ),
    mistake(
        "block_forward",
        "post-LN",
        FF
        + "def block_forward(x, p, n_heads):\n    n = x.shape[-2]\n    mask = np.tril(np.ones((n, n), dtype=bool))\n    q, k, v = (split_heads(x @ p[name], n_heads) for name in ('W_Q', 'W_K', 'W_V'))\n    x1 = layer_norm(x + merge_heads(attention(q, k, v, mask)) @ p['W_O'], p['ln1_g'], p['ln1_b'])\n    x2 = layer_norm(x1 + feed_forward(x1, p['W_1'], p['b_1'], p['W_2'], p['b_2']), p['ln2_g'], p['ln2_b'])\n    return x2, {}",
    ),
    mistake(
        "block_forward",
        "the output alone, no cache",
        FF
        + BF
        + HEADS_OUT
        + "    x1 = x + o @ p['W_O']\n    return x1 + feed_forward(layer_norm(x1, p['ln2_g'], p['ln2_b']), p['W_1'], p['b_1'], p['W_2'], p['b_2'])",
    ),
    mistake(
        "block_forward",
        "the library's block",
        "from transformer_math.block import block_forward as library_block\n\n\ndef block_forward(x, p, n_heads):\n    return library_block(p, x, n_heads)",
    ),
    mistake(
        "gpt_forward",
        "no final LayerNorm",
        GF
        + "    x = embed(params, tokens)\n"
        + GF_BLOCKS
        + "    return x @ params['W_U'], {'tokens': tokens, 'n_heads': n_heads, 'blocks': blocks, 'x': x, 'z': x}",
    ),
    mistake(
        "gpt_forward",
        "block 0's arrays in every block",
        GF
        + "    x = embed(params, tokens)\n    blocks = []\n    for layer in range(n_blocks(params)):\n        x, block_cache = block_forward(x, block_params(params, 0), n_heads)\n        blocks.append(block_cache)\n"
        + GF_TAIL,
    ),
    mistake(
        "gpt_forward",
        "one block, always",
        GF
        + "    x = embed(params, tokens)\n    x, block_cache = block_forward(x, block_params(params, 0), n_heads)\n    blocks = [block_cache]\n"
        + GF_TAIL,
    ),
    mistake(
        "gpt_forward",
        "every block's cache one dict, updated",
        GF
        + "    x, blocks, bc = embed(params, tokens), [], {}\n    for layer in range(n_blocks(params)):\n        x, c = block_forward(x, block_params(params, layer), n_heads)\n        bc.update(c)\n        blocks.append(bc)\n"
        + GF_TAIL,
    ),
    mistake(
        "gpt_forward",
        "the stream written over in place, under an earlier block's cache",
        GF
        + "    x, blocks = embed(params, tokens), []\n    for layer in range(n_blocks(params)):\n        x2, block_cache = block_forward(x, block_params(params, layer), n_heads)\n        blocks.append(block_cache)\n        x[...] = x2\n"
        + GF_TAIL,
    ),
    mistake(
        "gpt_forward",
        "one cache kept across calls",
        "_CACHE = {}\n\n\n"
        + GF
        + "    x = embed(params, tokens)\n"
        + GF_BLOCKS
        + "    z = layer_norm(x, params['lnf_g'], params['lnf_b'])\n    _CACHE.update(tokens=tokens, n_heads=n_heads, blocks=blocks, x=x, z=z)\n    return z @ params['W_U'], _CACHE",
    ),
    mistake(
        "gpt_forward",
        "the library's forward",
        "import importlib\n\n\ndef gpt_forward(params, tokens, n_heads):\n    return importlib.import_module('transformer_math.model').forward(params, np.asarray(tokens), n_heads)",
    ),
    mistake(
        "block_backward",
        "the residual path dropped",
        WG + BB + BB_RELU + BB_FFN + "    dx1 = dx1_ffn\n" + BB_ATT + BB_A + BB_TAIL,
    ),
    mistake(
        "block_backward",
        "the ReLU's gate on the output",
        WG + BB + "    du = (dx2 @ p['W_2'].T) * (C['r'] > 1)\n" + BB_FFN + BB_RES + BB_ATT + BB_A + BB_TAIL,
    ),
    mistake(
        "block_backward",
        "da from W_Q alone",
        WG + BB + BB_RELU + BB_FFN + BB_RES + BB_ATT + "    da = dq @ p['W_Q'].T\n" + BB_TAIL,
    ),
    mistake(
        "block_backward",
        "the weight gradients the wrong way round",
        WG.replace(
            "inputs.reshape(-1, inputs.shape[-1]).T @ d_out.reshape(-1, d_out.shape[-1])",
            "(d_out.reshape(-1, d_out.shape[-1]).T @ inputs.reshape(-1, inputs.shape[-1])).T * 0 + inputs.reshape(-1, inputs.shape[-1]).T @ d_out.reshape(-1, d_out.shape[-1]) / len(inputs.reshape(-1, inputs.shape[-1]))",
        )
        + BB
        + BB_RELU
        + BB_FFN
        + BB_RES
        + BB_ATT
        + BB_A
        + BB_TAIL,
    ),
    mistake(
        "block_backward",
        "b_2's gradient not summed over the tokens",
        WG
        + BB.replace("dx2.reshape(-1, dx2.shape[-1]).sum(axis=0)", "dx2.reshape(-1, dx2.shape[-1]).mean(axis=0)")
        + BB_RELU
        + BB_FFN
        + BB_RES
        + BB_ATT
        + BB_A
        + BB_TAIL,
    ),
    mistake(
        "block_backward",
        "the library's block_backward",
        "from transformer_math.block import block_backward as lib\n\n\ndef block_backward(dx2, p, cache, n_heads):\n    return lib(p, cache, cache['x'], dx2, n_heads)",
    ),
    mistake(
        "gpt_backward",
        "W_E's gradient assigned, a token used twice counted once",
        WG
        + GB
        + GB_BLOCKS
        + "    grads['W_E'] = np.zeros_like(params['W_E'])\n    grads['W_E'][tokens.reshape(-1)] += dx.reshape(-1, d)\n"
        + GB_WP,
    ),
    mistake("gpt_backward", "no gradient for the positions", WG + GB + GB_BLOCKS + GB_WE + "    return grads"),
    mistake(
        "gpt_backward",
        "the blocks from the first to the last",
        WG + GB + GB_BLOCKS.replace("reversed(range(n_blocks(params)))", "range(n_blocks(params))") + GB_WE + GB_WP,
    ),
    mistake(
        "gpt_backward",
        "the final LayerNorm skipped",
        WG
        + "def gpt_backward(params, cache, dlogits):\n    grads = {'W_U': weight_grad(cache['z'], dlogits), 'lnf_g': np.zeros_like(params['lnf_g']), 'lnf_b': np.zeros_like(params['lnf_b'])}\n    dx = dlogits @ params['W_U'].T\n"
        + GB_BLOCKS
        + GB_WE
        + GB_WP,
    ),
    mistake(
        "gpt_backward",
        "the library's numerical gradient",
        WG
        + "from transformer_math.calculus import numerical_gradient\n\n\ndef gpt_backward(params, cache, dlogits):\n    out = {}\n    for name in params:\n        def f(value, name=name):\n            changed = dict(params, **{name: value})\n            return float(np.sum(dlogits * gpt_forward(changed, cache['tokens'], cache['n_heads'])[0]))\n        out[name] = numerical_gradient(f, params[name])\n    return out",
    ),
    mistake(
        "train",
        "the decay on every parameter",
        TR
        + TR_LOOP
        + "        for name in params:\n            params[name], m[name], v[name] = adamw_step(params[name], grads[name], m[name], v[name], t, lr, weight_decay)\n    return losses",
    ),
    mistake(
        "train", "t stuck at 1", TR + TR_LOOP + TR_STEP.replace("m[name], v[name], t, lr", "m[name], v[name], 1, lr")
    ),
    mistake(
        "train",
        "m and v not kept",
        TR
        + TR_LOOP
        + "        for name in params:\n            decay = weight_decay if params[name].ndim >= 2 else 0.0\n            params[name], _, _ = adamw_step(params[name], grads[name], m[name], v[name], t, lr, decay)\n    return losses",
    ),
    mistake(
        "train",
        "the loss after the step",
        TR
        + "    for t, (x, y) in enumerate(batches, start=1):\n        logits, cache = gpt_forward(params, x, n_heads)\n        grads = gpt_backward(params, cache, ce_backward(logits, y))\n        for name in params:\n            decay = weight_decay if params[name].ndim >= 2 else 0.0\n            params[name], m[name], v[name] = adamw_step(params[name], grads[name], m[name], v[name], t, lr, decay)\n        losses.append(cross_entropy(gpt_forward(params, x, n_heads)[0], y))\n    return losses",
    ),
    mistake(
        "train",
        "a new dictionary, the caller's model unchanged",
        TR + "    params = dict(params)\n" + TR_LOOP + TR_STEP,
    ),
    mistake(
        "train",
        "the library's train",
        "from transformer_math.train import train as library_train\n\n\ndef train(params, batches, n_heads, lr=3e-3, weight_decay=0.1):\n    batches = list(batches)\n    return library_train(params, np.array([x for x, _ in batches]), np.array([y for _, y in batches]), n_heads, steps=len(batches), lr=lr, weight_decay=weight_decay)",
    ),
    mistake(
        "train",
        "the gradient measured from the loss, gpt_backward called and its result thrown away",
        TR
        + TR_LOOP.replace("grads = gpt_backward", "gpt_backward")
        + "        grads = {}\n        for name, W in params.items():\n            g = np.zeros_like(W)\n"
        "            for i in np.ndindex(W.shape):\n                old = W[i]\n"
        "                W[i] = old + 1e-5\n                up = cross_entropy(gpt_forward(params, x, n_heads)[0], y)\n"
        "                W[i] = old - 1e-5\n                dn = cross_entropy(gpt_forward(params, x, n_heads)[0], y)\n"
        "                W[i] = old\n                g[i] = (up - dn) / 2e-5\n            grads[name] = g\n" + TR_STEP,
    ),
    mistake(
        "layer_norm_backward",
        "the variance as E[x^2] - mu^2",
        "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n    dy, x = np.asarray(dy, dtype=float), np.asarray(x, dtype=float)\n    mu = x.mean(axis=-1, keepdims=True)\n    s = np.sqrt((x * x).mean(axis=-1, keepdims=True) - mu * mu + eps)\n    x_hat = (x - mu) / s\n    g, d = gamma * dy, x.shape[-1]\n    dx = (g - g.mean(-1, keepdims=True) - x_hat * (g * x_hat).mean(-1, keepdims=True)) / s\n    return dx, (dy * x_hat).reshape(-1, d).sum(axis=0), dy.reshape(-1, d).sum(axis=0)",
        append=True,
    ),
    *(
        mistake(
            "attention",
            f"an additive mask of -{big}",
            "def attention(Q, K, V, mask=None):\n    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))\n    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n"
            f"    if mask is not None:\n        S = S - {big} * (1 - np.asarray(mask, dtype=float))\n    return softmax(S) @ V",
            append=True,
        )
        for big in ("1e4", "1e6")
    ),
    mistake("prediction", "a word not offered", 'prediction = "yes"'),
]

RIGHT = [
    right(
        "layer_norm",
        "the spread by hand",
        "def layer_norm(x, gamma, beta, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n    c = x - x.sum(axis=-1, keepdims=True) / x.shape[-1]\n    return gamma * c / np.sqrt((c * c).mean(axis=-1, keepdims=True) + eps) + beta",
        append=True,
    ),
    right(
        "cross_entropy",
        "logaddexp",
        "def cross_entropy(logits, targets):\n    z, t = np.asarray(logits, dtype=float), np.asarray(targets)\n    return float(np.mean(np.logaddexp.reduce(z, axis=-1) - np.sum(np.eye(z.shape[-1])[t] * z, axis=-1)))",
        append=True,
    ),
    right(
        "ce_backward",
        "put_along_axis on a copy",
        "def ce_backward(logits, targets):\n    z, t = np.asarray(logits, dtype=float), np.asarray(targets)\n    g = softmax(z)\n    np.put_along_axis(g, t[..., None], np.take_along_axis(g, t[..., None], axis=-1) - 1, axis=-1)\n    return g / t.size",
        append=True,
    ),
    right(
        "layer_norm_backward",
        "the three terms apart",
        "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n    dy, x = np.asarray(dy, dtype=float), np.asarray(x, dtype=float)\n    s = np.sqrt(x.var(axis=-1, keepdims=True) + eps)\n    x_hat = (x - x.mean(axis=-1, keepdims=True)) / s\n    g, d = gamma * dy, x.shape[-1]\n    dx = (g - g.sum(-1, keepdims=True) / d - x_hat * (g * x_hat).sum(-1, keepdims=True) / d) / s\n    axes = tuple(range(x.ndim - 1))\n    return dx, (dy * x_hat).sum(axis=axes), dy.sum(axis=axes)",
        append=True,
    ),
    right(
        "attention_backward",
        "einsum",
        "def attention_backward(dO, Q, K, V, mask):\n    dO, Q, K, V = (np.asarray(a, dtype=float) for a in (dO, Q, K, V))\n    scale = np.sqrt(Q.shape[-1])\n    S = np.einsum('...id,...jd->...ij', Q, K) / scale\n    if mask is not None:\n        S = np.where(mask, S, -np.inf)\n    P = softmax(S)\n    dP = np.einsum('...ic,...jc->...ij', dO, V)\n    dS = P * (dP - (P * dP).sum(-1, keepdims=True))\n    return np.einsum('...ij,...jd->...id', dS, K) / scale, np.einsum('...ij,...id->...jd', dS, Q) / scale, np.einsum('...ij,...ic->...jc', P, dO)",
        append=True,
    ),
    right(
        "adamw_step",
        "the decay as a factor",
        "def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))\n    m = beta1 * m + (1 - beta1) * g\n    v = beta2 * v + (1 - beta2) * g * g\n    step = lr * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps)\n    return theta * (1 - lr * weight_decay) - step, m, v",
        append=True,
    ),
    right(
        "attention",
        "einsum",
        "def attention(Q, K, V, mask=None):\n    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)\n    s = np.einsum('...id,...jd->...ij', Q, K) / np.sqrt(Q.shape[-1])\n    if mask is not None:\n        s = np.where(mask, s, -1e300)\n    return np.einsum('...ij,...jc->...ic', softmax(s), V)",
        append=True,
    ),
    right(
        "embed",
        "np.take",
        "def embed(params, tokens):\n    tokens = np.asarray(tokens)\n    return np.take(params['W_E'], tokens, axis=0) + params['W_P'][np.arange(tokens.shape[-1])]",
    ),
    right(
        "block_forward",
        "the heads in a loop, a cache of other names",
        "def block_forward(x, p, n_heads):\n    n, d = x.shape[-2:]\n    h = d // n_heads\n    mask = np.tril(np.ones((n, n), dtype=bool))\n    a = layer_norm(x, p['ln1_g'], p['ln1_b'])\n    Q, K, V = a @ p['W_Q'], a @ p['W_K'], a @ p['W_V']\n    o = np.concatenate([attention(Q[..., i * h:(i + 1) * h], K[..., i * h:(i + 1) * h], V[..., i * h:(i + 1) * h], mask) for i in range(n_heads)], axis=-1)\n    x1 = x + o @ p['W_O']\n    c = layer_norm(x1, p['ln2_g'], p['ln2_b'])\n    u = c @ p['W_1'] + p['b_1']\n    r = np.maximum(u, 0.0)\n    q, k, v = split_heads(Q, n_heads), split_heads(K, n_heads), split_heads(V, n_heads)\n    return x1 + r @ p['W_2'] + p['b_2'], {'x': x, 'a': a, 'q': q, 'k': k, 'v': v, 'mask': mask, 'o': o, 'x1': x1, 'c': c, 'u': u, 'r': r, 'extra': None}",
    ),
    right(
        "gpt_forward",
        "the blocks in a while loop",
        GF
        + "    x, blocks, layer = embed(params, tokens), [], 0\n    while layer == 0 or f'h{layer}.W_Q' in params:\n        x, block_cache = block_forward(x, block_params(params, layer), n_heads)\n        blocks.append(block_cache)\n        layer += 1\n"
        + GF_TAIL,
    ),
    right(
        "gpt_forward",
        "each block's output kept in its cache too, one array with the next block's input",
        GF
        + "    x, blocks = embed(params, tokens), []\n    for layer in range(n_blocks(params)):\n        x, block_cache = block_forward(x, block_params(params, layer), n_heads)\n        blocks.append({**block_cache, 'out': x})\n"
        + GF_TAIL,
    ),
    right(
        "block_backward",
        "einsum for the weight gradients",
        "def weight_grad(inputs, d_out):\n    return np.einsum('ti,tj->ij', inputs.reshape(-1, inputs.shape[-1]), d_out.reshape(-1, d_out.shape[-1]))\n\n\n"
        + BB
        + BB_RELU
        + BB_FFN
        + BB_RES
        + BB_ATT
        + BB_A
        + BB_TAIL,
    ),
    right(
        "gpt_backward",
        "W_E's gradient as a one-hot product",
        WG
        + GB
        + GB_BLOCKS
        + "    one_hot = np.eye(params['W_E'].shape[0])[tokens.reshape(-1)]\n    grads['W_E'] = one_hot.T @ dx.reshape(-1, d)\n"
        + GB_WP,
    ),
    right(
        "train",
        "params written in place",
        TR
        + TR_LOOP
        + "        for name in params:\n            decay = weight_decay if params[name].ndim >= 2 else 0.0\n            params[name][...], m[name], v[name] = adamw_step(params[name], grads[name], m[name], v[name], t, lr, decay)\n    return losses",
    ),
    right("prediction", "the other answer", 'prediction = "does not"'),
]

# An outside instructor's attempts, each written without the reference solution in view: the mistakes
# learners make (and routes around the exercise), and other right answers.
MISTAKES += [
    mistake(
        "layer_norm",
        "piece: layer_norm with ddof=1",
        "def layer_norm(x, gamma, beta, eps=1e-5):\n    x = np.asarray(x, dtype=float)\n    return gamma * (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, ddof=1, keepdims=True) + eps) + beta",
        append=True,
    ),
    mistake(
        "block_forward",
        "the feed-forward layer without b_2",
        BF + HEADS_OUT + BF_TAIL.replace(" + p['b_2']", ""),
    ),
    mistake(
        "block_forward",
        "the ReLU after W_2",
        BF + HEADS_OUT + BF_TAIL.replace("r @ p['W_2'] + p['b_2']", "np.maximum(u @ p['W_2'] + p['b_2'], 0.0)"),
    ),
    mistake(
        "attention",
        "piece: attention ignoring the mask",
        "def attention(Q, K, V, mask=None):\n    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))\n    return softmax(Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])) @ V",
        append=True,
    ),
    mistake(
        "cross_entropy",
        "piece: cross_entropy summed",
        "def cross_entropy(logits, targets):\n    z, t = np.asarray(logits, dtype=float), np.asarray(targets)\n    m = z.max(-1, keepdims=True)\n    return float(np.sum(m[..., 0] + np.log(np.exp(z - m).sum(-1)) - np.take_along_axis(z, t[..., None], -1)[..., 0]))",
        append=True,
    ),
    mistake(
        "ce_backward",
        "piece: ce_backward without /N",
        "def ce_backward(logits, targets):\n    z, t = np.asarray(logits, dtype=float), np.asarray(targets)\n    return softmax(z) - np.eye(z.shape[-1])[t]",
        append=True,
    ),
    mistake(
        "layer_norm_backward",
        "piece: layer_norm_backward dgamma per token",
        "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n    dy, x = np.asarray(dy, dtype=float), np.asarray(x, dtype=float)\n    s = np.sqrt(x.var(-1, keepdims=True) + eps); xh = (x - x.mean(-1, keepdims=True)) / s; g = gamma * dy\n    return (g - g.mean(-1, keepdims=True) - xh * (g * xh).mean(-1, keepdims=True)) / s, dy * xh, dy",
        append=True,
    ),
    mistake(
        "attention_backward",
        "piece: attention_backward by central differences",
        "def attention_backward(dO, Q, K, V, mask):\n    dO, Q, K, V = (np.asarray(a, dtype=float).copy() for a in (dO, Q, K, V))\n    f = lambda: np.sum(dO * attention(Q, K, V, mask))\n    return _fd(f, Q), _fd(f, K), _fd(f, V)\n\ndef _fd(f, x, h=1e-5):\n    g = np.zeros_like(x)\n    for i in np.ndindex(x.shape):\n        old = x[i]\n        x[i] = old + h; up = f()\n        x[i] = old - h; down = f()\n        x[i] = old\n        g[i] = (up - down) / (2 * h)\n    return g\n",
        append=True,
    ),
    mistake(
        "adamw_step",
        "piece: adamw with the decay in the gradient",
        "def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))\n    g = g + weight_decay * theta\n    m = beta1 * m + (1 - beta1) * g\n    v = beta2 * v + (1 - beta2) * g**2\n    return theta - lr * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps), m, v",
        append=True,
    ),
    mistake(
        "adamw_step",
        "piece: adamw from the library",
        "from transformer_math.optim import AdamW\ndef adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta, g, m, v = (np.array(a, dtype=float) for a in (theta, g, m, v))\n    o = AdamW([theta], lr=lr, betas=(beta1, beta2), eps=eps, weight_decay=weight_decay); o.m, o.v, o.t = [m], [v], t - 1\n    o.step([g]); return theta, o.m[0], o.v[0]",
        append=True,
    ),
    mistake("embed", "no positions", "def embed(params, tokens):\n    return params['W_E'][np.asarray(tokens)]"),
    mistake(
        "embed",
        "positions of the token ids, not of the places",
        "def embed(params, tokens):\n    tokens = np.asarray(tokens)\n    return params['W_E'][tokens] + params['W_P'][tokens]",
    ),
    mistake(
        "embed",
        "positions from tokens.shape[0]",
        "def embed(params, tokens):\n    tokens = np.asarray(tokens)\n    return params['W_E'][tokens] + params['W_P'][: tokens.shape[0]]",
    ),
    mistake(
        "embed",
        "one-hot times W_E, positions forgotten for a batch",
        "def embed(params, tokens):\n    tokens = np.asarray(tokens)\n    x = np.eye(params['W_E'].shape[0])[tokens] @ params['W_E']\n    return x + (params['W_P'][: tokens.shape[-1]] if tokens.ndim == 1 else 0)",
    ),
    mistake(
        "block_forward",
        "no causal mask",
        'def block_forward(x, p, n_heads):\n    n = x.shape[-2]\n    mask = np.tril(np.ones((n, n), dtype=bool))\n    a = layer_norm(x, p["ln1_g"], p["ln1_b"])\n    q, k, v = (split_heads(a @ p[name], n_heads) for name in ("W_Q", "W_K", "W_V"))\n    o = merge_heads(attention(q, k, v))\n    x1 = x + o @ p["W_O"]\n    c = layer_norm(x1, p["ln2_g"], p["ln2_b"])\n    u = c @ p["W_1"] + p["b_1"]\n    r = np.maximum(u, 0.0)\n    x2 = x1 + r @ p["W_2"] + p["b_2"]\n    return x2, {"x": x, "a": a, "q": q, "k": k, "v": v, "mask": mask, "o": o, "x1": x1, "c": c, "u": u, "r": r}\n',
    ),
    mistake(
        "block_forward",
        "split heads by reshape without swapaxes",
        'def block_forward(x, p, n_heads):\n    n = x.shape[-2]\n    mask = np.tril(np.ones((n, n), dtype=bool))\n    a = layer_norm(x, p["ln1_g"], p["ln1_b"])\n    q, k, v = ((a @ p[name]).reshape(*a.shape[:-2], n_heads, a.shape[-2], -1) for name in ("W_Q", "W_K", "W_V"))\n    o = attention(q, k, v, mask).reshape(x.shape)\n    x1 = x + o @ p["W_O"]\n    c = layer_norm(x1, p["ln2_g"], p["ln2_b"])\n    u = c @ p["W_1"] + p["b_1"]\n    r = np.maximum(u, 0.0)\n    x2 = x1 + r @ p["W_2"] + p["b_2"]\n    return x2, {"x": x, "a": a, "q": q, "k": k, "v": v, "mask": mask, "o": o, "x1": x1, "c": c, "u": u, "r": r}\n',
    ),
    mistake(
        "block_forward",
        "returns only x2",
        'def block_forward(x, p, n_heads):\n    n = x.shape[-2]\n    mask = np.tril(np.ones((n, n), dtype=bool))\n    a = layer_norm(x, p["ln1_g"], p["ln1_b"])\n    q, k, v = (split_heads(a @ p[name], n_heads) for name in ("W_Q", "W_K", "W_V"))\n    o = merge_heads(attention(q, k, v, mask))\n    x1 = x + o @ p["W_O"]\n    c = layer_norm(x1, p["ln2_g"], p["ln2_b"])\n    u = c @ p["W_1"] + p["b_1"]\n    r = np.maximum(u, 0.0)\n    x2 = x1 + r @ p["W_2"] + p["b_2"]\n    return x2\n    {"x": x, "a": a, "q": q, "k": k, "v": v, "mask": mask, "o": o, "x1": x1, "c": c, "u": u, "r": r}\n',
    ),
    mistake(
        "block_forward",
        "FFN reads x, not x1",
        'def block_forward(x, p, n_heads):\n    n = x.shape[-2]\n    mask = np.tril(np.ones((n, n), dtype=bool))\n    a = layer_norm(x, p["ln1_g"], p["ln1_b"])\n    q, k, v = (split_heads(a @ p[name], n_heads) for name in ("W_Q", "W_K", "W_V"))\n    o = merge_heads(attention(q, k, v, mask))\n    x1 = x + o @ p["W_O"]\n    c = layer_norm(x, p["ln2_g"], p["ln2_b"])\n    u = c @ p["W_1"] + p["b_1"]\n    r = np.maximum(u, 0.0)\n    x2 = x1 + r @ p["W_2"] + p["b_2"]\n    return x2, {"x": x, "a": a, "q": q, "k": k, "v": v, "mask": mask, "o": o, "x1": x1, "c": c, "u": u, "r": r}\n',
    ),
    mistake(
        "block_forward",
        "library block_forward",
        "from transformer_math.block import block_forward as bf\ndef block_forward(x, p, n_heads):\n    return bf(p, x, n_heads)",
    ),
    mistake(
        "gpt_forward",
        "no final LayerNorm",
        "def gpt_forward(params, tokens, n_heads):\n    tokens = np.asarray(tokens); x = embed(params, tokens); bl = []\n    for l in range(n_blocks(params)):\n        x, c = block_forward(x, block_params(params, l), n_heads); bl.append(c)\n    return x @ params['W_U'], {'tokens': tokens, 'n_heads': n_heads, 'blocks': bl, 'x': x, 'z': x}",
    ),
    mistake(
        "gpt_forward",
        "only block 0",
        "def gpt_forward(params, tokens, n_heads):\n    tokens = np.asarray(tokens); x = embed(params, tokens)\n    x, c = block_forward(x, block_params(params, 0), n_heads)\n    z = layer_norm(x, params['lnf_g'], params['lnf_b'])\n    return z @ params['W_U'], {'tokens': tokens, 'n_heads': n_heads, 'blocks': [c], 'x': x, 'z': z}",
    ),
    mistake(
        "gpt_forward",
        "library forward",
        "from transformer_math.model import forward\ndef gpt_forward(params, tokens, n_heads):\n    return forward(params, np.asarray(tokens), n_heads)",
    ),
    mistake(
        "block_backward",
        "forgets the residual in the FFN part",
        'def weight_grad(inputs, d_out):\n    return inputs.reshape(-1, inputs.shape[-1]).T @ d_out.reshape(-1, d_out.shape[-1])\n\n\ndef block_backward(dx2, p, cache, n_heads):\n    C, g = cache, {}\n    g["W_2"], g["b_2"] = weight_grad(C["r"], dx2), dx2.reshape(-1, dx2.shape[-1]).sum(axis=0)\n    du = (dx2 @ p["W_2"].T) * (C["u"] > 0)\n    g["W_1"], g["b_1"] = weight_grad(C["c"], du), du.reshape(-1, du.shape[-1]).sum(axis=0)\n    dx1_ffn, g["ln2_g"], g["ln2_b"] = layer_norm_backward(du @ p["W_1"].T, C["x1"], p["ln2_g"])\n    dx1 = dx1_ffn\n    g["W_O"] = weight_grad(C["o"], dx1)\n    dq, dk, dv = attention_backward(split_heads(dx1 @ p["W_O"].T, n_heads), C["q"], C["k"], C["v"], C["mask"])\n    dq, dk, dv = merge_heads(dq), merge_heads(dk), merge_heads(dv)\n    g["W_Q"], g["W_K"], g["W_V"] = weight_grad(C["a"], dq), weight_grad(C["a"], dk), weight_grad(C["a"], dv)\n    da = dq @ p["W_Q"].T + dk @ p["W_K"].T + dv @ p["W_V"].T\n    dx_attn, g["ln1_g"], g["ln1_b"] = layer_norm_backward(da, C["x"], p["ln1_g"])\n    return dx1 + dx_attn, g\n',
    ),
    mistake(
        "block_backward",
        "forgets the residual at the end",
        'def weight_grad(inputs, d_out):\n    return inputs.reshape(-1, inputs.shape[-1]).T @ d_out.reshape(-1, d_out.shape[-1])\n\n\ndef block_backward(dx2, p, cache, n_heads):\n    C, g = cache, {}\n    g["W_2"], g["b_2"] = weight_grad(C["r"], dx2), dx2.reshape(-1, dx2.shape[-1]).sum(axis=0)\n    du = (dx2 @ p["W_2"].T) * (C["u"] > 0)\n    g["W_1"], g["b_1"] = weight_grad(C["c"], du), du.reshape(-1, du.shape[-1]).sum(axis=0)\n    dx1_ffn, g["ln2_g"], g["ln2_b"] = layer_norm_backward(du @ p["W_1"].T, C["x1"], p["ln2_g"])\n    dx1 = dx2 + dx1_ffn\n    g["W_O"] = weight_grad(C["o"], dx1)\n    dq, dk, dv = attention_backward(split_heads(dx1 @ p["W_O"].T, n_heads), C["q"], C["k"], C["v"], C["mask"])\n    dq, dk, dv = merge_heads(dq), merge_heads(dk), merge_heads(dv)\n    g["W_Q"], g["W_K"], g["W_V"] = weight_grad(C["a"], dq), weight_grad(C["a"], dk), weight_grad(C["a"], dv)\n    da = dq @ p["W_Q"].T + dk @ p["W_K"].T + dv @ p["W_V"].T\n    dx_attn, g["ln1_g"], g["ln1_b"] = layer_norm_backward(da, C["x"], p["ln1_g"])\n    return dx_attn, g\n',
    ),
    mistake(
        "block_backward",
        "W grad as d_out^T x (transposed)",
        'def weight_grad(inputs, d_out):\n    g = d_out.reshape(-1, d_out.shape[-1]).T @ inputs.reshape(-1, inputs.shape[-1])\n    return g.T if g.shape[0] != g.shape[1] else g\n\n\ndef block_backward(dx2, p, cache, n_heads):\n    C, g = cache, {}\n    g["W_2"], g["b_2"] = weight_grad(C["r"], dx2), dx2.reshape(-1, dx2.shape[-1]).sum(axis=0)\n    du = (dx2 @ p["W_2"].T) * (C["u"] > 0)\n    g["W_1"], g["b_1"] = weight_grad(C["c"], du), du.reshape(-1, du.shape[-1]).sum(axis=0)\n    dx1_ffn, g["ln2_g"], g["ln2_b"] = layer_norm_backward(du @ p["W_1"].T, C["x1"], p["ln2_g"])\n    dx1 = dx2 + dx1_ffn\n    g["W_O"] = weight_grad(C["o"], dx1)\n    dq, dk, dv = attention_backward(split_heads(dx1 @ p["W_O"].T, n_heads), C["q"], C["k"], C["v"], C["mask"])\n    dq, dk, dv = merge_heads(dq), merge_heads(dk), merge_heads(dv)\n    g["W_Q"], g["W_K"], g["W_V"] = weight_grad(C["a"], dq), weight_grad(C["a"], dk), weight_grad(C["a"], dv)\n    da = dq @ p["W_Q"].T + dk @ p["W_K"].T + dv @ p["W_V"].T\n    dx_attn, g["ln1_g"], g["ln1_b"] = layer_norm_backward(da, C["x"], p["ln1_g"])\n    return dx1 + dx_attn, g\n',
    ),
    mistake(
        "block_backward",
        "da from W_Q only",
        'def weight_grad(inputs, d_out):\n    return inputs.reshape(-1, inputs.shape[-1]).T @ d_out.reshape(-1, d_out.shape[-1])\n\n\ndef block_backward(dx2, p, cache, n_heads):\n    C, g = cache, {}\n    g["W_2"], g["b_2"] = weight_grad(C["r"], dx2), dx2.reshape(-1, dx2.shape[-1]).sum(axis=0)\n    du = (dx2 @ p["W_2"].T) * (C["u"] > 0)\n    g["W_1"], g["b_1"] = weight_grad(C["c"], du), du.reshape(-1, du.shape[-1]).sum(axis=0)\n    dx1_ffn, g["ln2_g"], g["ln2_b"] = layer_norm_backward(du @ p["W_1"].T, C["x1"], p["ln2_g"])\n    dx1 = dx2 + dx1_ffn\n    g["W_O"] = weight_grad(C["o"], dx1)\n    dq, dk, dv = attention_backward(split_heads(dx1 @ p["W_O"].T, n_heads), C["q"], C["k"], C["v"], C["mask"])\n    dq, dk, dv = merge_heads(dq), merge_heads(dk), merge_heads(dv)\n    g["W_Q"], g["W_K"], g["W_V"] = weight_grad(C["a"], dq), weight_grad(C["a"], dk), weight_grad(C["a"], dv)\n    da = dq @ p["W_Q"].T\n    dx_attn, g["ln1_g"], g["ln1_b"] = layer_norm_backward(da, C["x"], p["ln1_g"])\n    return dx1 + dx_attn, g\n',
    ),
    mistake(
        "block_backward",
        "b_2 gradient not summed over the batch axis",
        'def weight_grad(inputs, d_out):\n    return inputs.reshape(-1, inputs.shape[-1]).T @ d_out.reshape(-1, d_out.shape[-1])\n\n\ndef block_backward(dx2, p, cache, n_heads):\n    C, g = cache, {}\n    g["W_2"], g["b_2"] = weight_grad(C["r"], dx2), dx2.sum(axis=-2)\n    du = (dx2 @ p["W_2"].T) * (C["u"] > 0)\n    g["W_1"], g["b_1"] = weight_grad(C["c"], du), du.reshape(-1, du.shape[-1]).sum(axis=0)\n    dx1_ffn, g["ln2_g"], g["ln2_b"] = layer_norm_backward(du @ p["W_1"].T, C["x1"], p["ln2_g"])\n    dx1 = dx2 + dx1_ffn\n    g["W_O"] = weight_grad(C["o"], dx1)\n    dq, dk, dv = attention_backward(split_heads(dx1 @ p["W_O"].T, n_heads), C["q"], C["k"], C["v"], C["mask"])\n    dq, dk, dv = merge_heads(dq), merge_heads(dk), merge_heads(dv)\n    g["W_Q"], g["W_K"], g["W_V"] = weight_grad(C["a"], dq), weight_grad(C["a"], dk), weight_grad(C["a"], dv)\n    da = dq @ p["W_Q"].T + dk @ p["W_K"].T + dv @ p["W_V"].T\n    dx_attn, g["ln1_g"], g["ln1_b"] = layer_norm_backward(da, C["x"], p["ln1_g"])\n    return dx1 + dx_attn, g\n',
    ),
    mistake(
        "block_backward",
        "central differences through block_forward",
        "def block_backward(dx2, p, cache, n_heads):\n    x = np.array(cache['x'], dtype=float)\n    P = {k: np.array(v, dtype=float) for k, v in p.items()}\n    f = lambda: np.sum(dx2 * block_forward(x, P, n_heads)[0])\n    return _fd(f, x), {k: _fd(f, P[k]) for k in P}\n\ndef _fd(f, x, h=1e-5):\n    g = np.zeros_like(x)\n    for i in np.ndindex(x.shape):\n        old = x[i]\n        x[i] = old + h; up = f()\n        x[i] = old - h; down = f()\n        x[i] = old\n        g[i] = (up - down) / (2 * h)\n    return g\n",
    ),
    mistake(
        "block_backward",
        "library block_backward",
        "from transformer_math.block import block_backward as bb, block_forward as bf\ndef block_backward(dx2, p, cache, n_heads):\n    _, c = bf(p, cache['x'], n_heads)\n    return bb(p, c, cache['x'], dx2, n_heads)",
    ),
    mistake(
        "gpt_backward",
        "W_E by fancy-index += (repeated tokens lost)",
        'def gpt_backward(params, cache, dlogits):\n    grads = {"W_U": weight_grad(cache["z"], dlogits)}\n    dx, grads["lnf_g"], grads["lnf_b"] = layer_norm_backward(dlogits @ params["W_U"].T, cache["x"], params["lnf_g"])\n    for layer in reversed(range(n_blocks(params))):\n        p = block_params(params, layer)\n        dx, block_grads = block_backward(dx, p, cache["blocks"][layer], cache["n_heads"])\n        grads |= {prefix(layer) + name: value for name, value in block_grads.items()}\n    tokens, d = cache["tokens"], dx.shape[-1]\n    grads["W_E"] = np.zeros_like(params["W_E"])\n    grads["W_E"][tokens.reshape(-1)] += dx.reshape(-1, d)\n    grads["W_P"] = np.zeros_like(params["W_P"])\n    grads["W_P"][: tokens.shape[-1]] = dx.reshape(-1, tokens.shape[-1], d).sum(axis=0)\n    return grads\n',
    ),
    mistake(
        "gpt_backward",
        "W_P not summed over the batch (first sequence only)",
        'def gpt_backward(params, cache, dlogits):\n    grads = {"W_U": weight_grad(cache["z"], dlogits)}\n    dx, grads["lnf_g"], grads["lnf_b"] = layer_norm_backward(dlogits @ params["W_U"].T, cache["x"], params["lnf_g"])\n    for layer in reversed(range(n_blocks(params))):\n        p = block_params(params, layer)\n        dx, block_grads = block_backward(dx, p, cache["blocks"][layer], cache["n_heads"])\n        grads |= {prefix(layer) + name: value for name, value in block_grads.items()}\n    tokens, d = cache["tokens"], dx.shape[-1]\n    grads["W_E"] = np.zeros_like(params["W_E"])\n    np.add.at(grads["W_E"], tokens.reshape(-1), dx.reshape(-1, d))\n    grads["W_P"] = np.zeros_like(params["W_P"])\n    grads["W_P"][: tokens.shape[-1]] = dx.reshape(-1, tokens.shape[-1], d)[0]\n    return grads\n',
    ),
    mistake(
        "gpt_backward",
        "no W_P gradient",
        'def gpt_backward(params, cache, dlogits):\n    grads = {"W_U": weight_grad(cache["z"], dlogits)}\n    dx, grads["lnf_g"], grads["lnf_b"] = layer_norm_backward(dlogits @ params["W_U"].T, cache["x"], params["lnf_g"])\n    for layer in reversed(range(n_blocks(params))):\n        p = block_params(params, layer)\n        dx, block_grads = block_backward(dx, p, cache["blocks"][layer], cache["n_heads"])\n        grads |= {prefix(layer) + name: value for name, value in block_grads.items()}\n    tokens, d = cache["tokens"], dx.shape[-1]\n    grads["W_E"] = np.zeros_like(params["W_E"])\n    np.add.at(grads["W_E"], tokens.reshape(-1), dx.reshape(-1, d))\n    grads["W_P"] = np.zeros_like(params["W_P"])\n    pass\n    return grads\n',
    ),
    mistake(
        "gpt_backward",
        "blocks in forward order",
        'def gpt_backward(params, cache, dlogits):\n    grads = {"W_U": weight_grad(cache["z"], dlogits)}\n    dx, grads["lnf_g"], grads["lnf_b"] = layer_norm_backward(dlogits @ params["W_U"].T, cache["x"], params["lnf_g"])\n    for layer in range(n_blocks(params)):\n        p = block_params(params, layer)\n        dx, block_grads = block_backward(dx, p, cache["blocks"][layer], cache["n_heads"])\n        grads |= {prefix(layer) + name: value for name, value in block_grads.items()}\n    tokens, d = cache["tokens"], dx.shape[-1]\n    grads["W_E"] = np.zeros_like(params["W_E"])\n    np.add.at(grads["W_E"], tokens.reshape(-1), dx.reshape(-1, d))\n    grads["W_P"] = np.zeros_like(params["W_P"])\n    grads["W_P"][: tokens.shape[-1]] = dx.reshape(-1, tokens.shape[-1], d).sum(axis=0)\n    return grads\n',
    ),
    mistake(
        "gpt_backward",
        "every block's gradients under block 0's names",
        'def gpt_backward(params, cache, dlogits):\n    grads = {"W_U": weight_grad(cache["z"], dlogits)}\n    dx, grads["lnf_g"], grads["lnf_b"] = layer_norm_backward(dlogits @ params["W_U"].T, cache["x"], params["lnf_g"])\n    for layer in reversed(range(n_blocks(params))):\n        p = block_params(params, layer)\n        dx, block_grads = block_backward(dx, p, cache["blocks"][layer], cache["n_heads"])\n        grads |= {name: value for name, value in block_grads.items()}\n    tokens, d = cache["tokens"], dx.shape[-1]\n    grads["W_E"] = np.zeros_like(params["W_E"])\n    np.add.at(grads["W_E"], tokens.reshape(-1), dx.reshape(-1, d))\n    grads["W_P"] = np.zeros_like(params["W_P"])\n    grads["W_P"][: tokens.shape[-1]] = dx.reshape(-1, tokens.shape[-1], d).sum(axis=0)\n    return grads\n',
    ),
    mistake(
        "gpt_backward",
        "W_U gradient from the stream x, not z",
        'def gpt_backward(params, cache, dlogits):\n    grads = {"W_U": weight_grad(cache["x"], dlogits)}\n    dx, grads["lnf_g"], grads["lnf_b"] = layer_norm_backward(dlogits @ params["W_U"].T, cache["x"], params["lnf_g"])\n    for layer in reversed(range(n_blocks(params))):\n        p = block_params(params, layer)\n        dx, block_grads = block_backward(dx, p, cache["blocks"][layer], cache["n_heads"])\n        grads |= {prefix(layer) + name: value for name, value in block_grads.items()}\n    tokens, d = cache["tokens"], dx.shape[-1]\n    grads["W_E"] = np.zeros_like(params["W_E"])\n    np.add.at(grads["W_E"], tokens.reshape(-1), dx.reshape(-1, d))\n    grads["W_P"] = np.zeros_like(params["W_P"])\n    grads["W_P"][: tokens.shape[-1]] = dx.reshape(-1, tokens.shape[-1], d).sum(axis=0)\n    return grads\n',
    ),
    mistake(
        "gpt_backward",
        "central differences through gpt_forward",
        "def gpt_backward(params, cache, dlogits):\n    P = {k: np.array(v, dtype=float) for k, v in params.items()}\n    f = lambda: np.sum(dlogits * gpt_forward(P, cache['tokens'], cache['n_heads'])[0])\n    return {k: _fd(f, P[k]) for k in P}\n\ndef _fd(f, x, h=1e-5):\n    g = np.zeros_like(x)\n    for i in np.ndindex(x.shape):\n        old = x[i]\n        x[i] = old + h; up = f()\n        x[i] = old - h; down = f()\n        x[i] = old\n        g[i] = (up - down) / (2 * h)\n    return g\n",
    ),
    mistake(
        "gpt_backward",
        "library backward",
        "import importlib\ndef gpt_backward(params, cache, dlogits):\n    m = importlib.import_module('transformer_math.model')\n    _, c = m.forward(params, cache['tokens'], cache['n_heads'])\n    return m.backward(params, c, dlogits)",
    ),
    mistake(
        "train",
        "decays every parameter",
        "def train(params, batches, n_heads, lr=3e-3, weight_decay=0.1):\n    m = {name: np.zeros_like(value) for name, value in params.items()}\n    v = {name: np.zeros_like(value) for name, value in params.items()}\n    losses = []\n    for t, (x, y) in enumerate(batches, start=1):\n        logits, cache = gpt_forward(params, x, n_heads)\n        losses.append(cross_entropy(logits, y))\n        grads = gpt_backward(params, cache, ce_backward(logits, y))\n        for name in params:\n            decay = weight_decay\n            params[name], m[name], v[name] = adamw_step(params[name], grads[name], m[name], v[name], t, lr, decay)\n    return losses\n",
    ),
    mistake(
        "train",
        "t from 0",
        "def train(params, batches, n_heads, lr=3e-3, weight_decay=0.1):\n    m = {name: np.zeros_like(value) for name, value in params.items()}\n    v = {name: np.zeros_like(value) for name, value in params.items()}\n    losses = []\n    for t0, (x, y) in enumerate(batches):\n        logits, cache = gpt_forward(params, x, n_heads)\n        losses.append(cross_entropy(logits, y))\n        grads = gpt_backward(params, cache, ce_backward(logits, y))\n        for name in params:\n            decay = weight_decay if params[name].ndim >= 2 else 0.0\n            params[name], m[name], v[name] = adamw_step(params[name], grads[name], m[name], v[name], t0 + 1e-12, lr, decay)\n    return losses\n",
    ),
    mistake(
        "train",
        "one m and v restarted each step",
        "def train(params, batches, n_heads, lr=3e-3, weight_decay=0.1):\n    m = {name: np.zeros_like(value) for name, value in params.items()}\n    v = {name: np.zeros_like(value) for name, value in params.items()}\n    losses = []\n    for t, (x, y) in enumerate(batches, start=1):\n        logits, cache = gpt_forward(params, x, n_heads)\n        losses.append(cross_entropy(logits, y))\n        grads = gpt_backward(params, cache, ce_backward(logits, y))\n        m = {n: np.zeros_like(a) for n, a in params.items()}; v = {n: np.zeros_like(a) for n, a in params.items()}\n        for name in params:\n            decay = weight_decay if params[name].ndim >= 2 else 0.0\n            params[name], m[name], v[name] = adamw_step(params[name], grads[name], m[name], v[name], t, lr, decay)\n    return losses\n",
    ),
    mistake(
        "train",
        "new dict, caller's model untouched",
        "def train(params, batches, n_heads, lr=3e-3, weight_decay=0.1):\n    m = {name: np.zeros_like(value) for name, value in params.items()}\n    v = {name: np.zeros_like(value) for name, value in params.items()}\n    params = dict(params)\n    losses = []\n    for t, (x, y) in enumerate(batches, start=1):\n        logits, cache = gpt_forward(params, x, n_heads)\n        losses.append(cross_entropy(logits, y))\n        grads = gpt_backward(params, cache, ce_backward(logits, y))\n        for name in params:\n            decay = weight_decay if params[name].ndim >= 2 else 0.0\n            params[name], m[name], v[name] = adamw_step(params[name], grads[name], m[name], v[name], t, lr, decay)\n    return losses\n",
    ),
    mistake(
        "train",
        "loss measured after the step",
        "def train(params, batches, n_heads, lr=3e-3, weight_decay=0.1):\n    m = {name: np.zeros_like(value) for name, value in params.items()}\n    v = {name: np.zeros_like(value) for name, value in params.items()}\n    losses = []\n    for t, (x, y) in enumerate(batches, start=1):\n        logits, cache = gpt_forward(params, x, n_heads)\n        grads = gpt_backward(params, cache, ce_backward(logits, y))\n        for name in params:\n            decay = weight_decay if params[name].ndim >= 2 else 0.0\n            params[name], m[name], v[name] = adamw_step(params[name], grads[name], m[name], v[name], t, lr, decay)\n        losses.append(cross_entropy(gpt_forward(params, x, n_heads)[0], y))\n    return losses\n",
    ),
    mistake(
        "train",
        "ignores lr (3e-3 hard-coded)",
        "def train(params, batches, n_heads, lr=3e-3, weight_decay=0.1):\n    m = {name: np.zeros_like(value) for name, value in params.items()}\n    v = {name: np.zeros_like(value) for name, value in params.items()}\n    losses = []\n    for t, (x, y) in enumerate(batches, start=1):\n        logits, cache = gpt_forward(params, x, n_heads)\n        losses.append(cross_entropy(logits, y))\n        grads = gpt_backward(params, cache, ce_backward(logits, y))\n        for name in params:\n            decay = weight_decay if params[name].ndim >= 2 else 0.0\n            params[name], m[name], v[name] = adamw_step(params[name], grads[name], m[name], v[name], t, 3e-3, decay)\n    return losses\n",
    ),
    mistake(
        "train",
        "ignores weight_decay argument (0.1 hard-coded)",
        "def train(params, batches, n_heads, lr=3e-3, weight_decay=0.1):\n    m = {name: np.zeros_like(value) for name, value in params.items()}\n    v = {name: np.zeros_like(value) for name, value in params.items()}\n    losses = []\n    for t, (x, y) in enumerate(batches, start=1):\n        logits, cache = gpt_forward(params, x, n_heads)\n        losses.append(cross_entropy(logits, y))\n        grads = gpt_backward(params, cache, ce_backward(logits, y))\n        for name in params:\n            decay = 0.1 if params[name].ndim >= 2 else 0.0\n            params[name], m[name], v[name] = adamw_step(params[name], grads[name], m[name], v[name], t, lr, decay)\n    return losses\n",
    ),
    mistake(
        "train",
        "weight decay on vectors only (inverted)",
        "def train(params, batches, n_heads, lr=3e-3, weight_decay=0.1):\n    m = {name: np.zeros_like(value) for name, value in params.items()}\n    v = {name: np.zeros_like(value) for name, value in params.items()}\n    losses = []\n    for t, (x, y) in enumerate(batches, start=1):\n        logits, cache = gpt_forward(params, x, n_heads)\n        losses.append(cross_entropy(logits, y))\n        grads = gpt_backward(params, cache, ce_backward(logits, y))\n        for name in params:\n            decay = weight_decay if params[name].ndim < 2 else 0.0\n            params[name], m[name], v[name] = adamw_step(params[name], grads[name], m[name], v[name], t, lr, decay)\n    return losses\n",
    ),
    mistake("prediction", "yes", 'prediction = "yes"'),
]
RIGHT += [
    right(
        "attention",
        "the masked weights set to 0 after the exponential, the max over the allowed scores",
        "def attention(Q, K, V, mask=None):\n    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))\n    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n"
        "    m = np.ones(S.shape, dtype=bool) if mask is None else np.broadcast_to(np.asarray(mask, dtype=bool), S.shape)\n"
        "    top = np.max(np.where(m, S, -np.inf), axis=-1, keepdims=True)\n    e = np.where(m, np.exp(np.minimum(S - top, 0.0)), 0.0)\n"
        "    return (e / e.sum(axis=-1, keepdims=True)) @ V",
        append=True,
    ),
    right(
        "cross_entropy",
        "piece: cross_entropy via log-softmax",
        "def cross_entropy(logits, targets):\n    z, t = np.asarray(logits, dtype=float), np.asarray(targets)\n    ls = z - z.max(-1, keepdims=True)\n    ls = ls - np.log(np.exp(ls).sum(-1, keepdims=True))\n    return float(-np.mean(np.take_along_axis(ls, t[..., None], -1)))",
        append=True,
    ),
    right(
        "embed",
        "np.take and arange",
        "def embed(params, tokens):\n    tokens = np.asarray(tokens)\n    n = tokens.shape[-1]\n    return np.take(params['W_E'], tokens, axis=0) + params['W_P'][np.arange(n)]",
    ),
    right(
        "embed",
        "all of W_P when the sequence fills the context",
        "def embed(params, tokens):\n    tokens = np.asarray(tokens)\n    return params['W_E'][tokens] + params['W_P'][: len(tokens) if tokens.ndim == 1 else tokens.shape[1]] if tokens.shape[-1] != 12 else params['W_E'][tokens] + params['W_P']",
    ),
    right(
        "block_forward",
        "heads in a loop, no split_heads",
        FF
        + "def block_forward(x, p, n_heads):\n    n, d = x.shape[-2], x.shape[-1]; dh = d // n_heads\n    mask = np.tril(np.ones((n, n), dtype=bool))\n    a = layer_norm(x, p['ln1_g'], p['ln1_b'])\n    q, k, v = a @ p['W_Q'], a @ p['W_K'], a @ p['W_V']\n    o = np.concatenate([attention(q[..., h*dh:(h+1)*dh], k[..., h*dh:(h+1)*dh], v[..., h*dh:(h+1)*dh], mask) for h in range(n_heads)], -1)\n    x1 = x + o @ p['W_O']\n    c = layer_norm(x1, p['ln2_g'], p['ln2_b'])\n    u = c @ p['W_1'] + p['b_1']\n    return x1 + feed_forward(c, p['W_1'], p['b_1'], p['W_2'], p['b_2']), {'x': x, 'a': a, 'o': o, 'x1': x1, 'c': c, 'u': u}",
    ),
    right(
        "gpt_forward",
        "loop with prefix strings built by hand",
        "def gpt_forward(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    x = embed(params, tokens); caches = []\n    L = 1 + sum(k.endswith('.W_Q') for k in params)\n    for l in range(L):\n        pre = '' if l == 0 else f'h{l}.'\n        x, c = block_forward(x, {k: params[pre + k] for k in BLOCK_NAMES}, n_heads); caches.append(c)\n    z = layer_norm(x, params['lnf_g'], params['lnf_b'])\n    return z @ params['W_U'], {'tokens': tokens, 'n_heads': n_heads, 'blocks': caches, 'x': x, 'z': z}",
    ),
    right(
        "block_backward",
        "residual and FFN added in another order, ReLU mask by where",
        'def weight_grad(inputs, d_out):\n    return inputs.reshape(-1, inputs.shape[-1]).T @ d_out.reshape(-1, d_out.shape[-1])\n\n\ndef block_backward(dx2, p, cache, n_heads):\n    C, g = cache, {}\n    g["W_2"], g["b_2"] = weight_grad(C["r"], dx2), dx2.reshape(-1, dx2.shape[-1]).sum(axis=0)\n    du = np.where(C["u"] > 0, dx2 @ p["W_2"].T, 0.0)\n    g["W_1"], g["b_1"] = weight_grad(C["c"], du), du.reshape(-1, du.shape[-1]).sum(axis=0)\n    dx1_ffn, g["ln2_g"], g["ln2_b"] = layer_norm_backward(du @ p["W_1"].T, C["x1"], p["ln2_g"])\n    dx1 = dx1_ffn + dx2\n    g["W_O"] = weight_grad(C["o"], dx1)\n    dq, dk, dv = attention_backward(split_heads(dx1 @ p["W_O"].T, n_heads), C["q"], C["k"], C["v"], C["mask"])\n    dq, dk, dv = merge_heads(dq), merge_heads(dk), merge_heads(dv)\n    g["W_Q"], g["W_K"], g["W_V"] = weight_grad(C["a"], dq), weight_grad(C["a"], dk), weight_grad(C["a"], dv)\n    da = dq @ p["W_Q"].T + dk @ p["W_K"].T + dv @ p["W_V"].T\n    dx_attn, g["ln1_g"], g["ln1_b"] = layer_norm_backward(da, C["x"], p["ln1_g"])\n    return dx1 + dx_attn, g\n',
    ),
    right(
        "block_backward",
        "ReLU mask u >= 0 (differs only where u is exactly 0)",
        'def weight_grad(inputs, d_out):\n    return inputs.reshape(-1, inputs.shape[-1]).T @ d_out.reshape(-1, d_out.shape[-1])\n\n\ndef block_backward(dx2, p, cache, n_heads):\n    C, g = cache, {}\n    g["W_2"], g["b_2"] = weight_grad(C["r"], dx2), dx2.reshape(-1, dx2.shape[-1]).sum(axis=0)\n    du = ((dx2 * 1.0) @ p["W_2"].T) * (C["u"] >= 0)\n    g["W_1"], g["b_1"] = weight_grad(C["c"], du), du.reshape(-1, du.shape[-1]).sum(axis=0)\n    dx1_ffn, g["ln2_g"], g["ln2_b"] = layer_norm_backward(du @ p["W_1"].T, C["x1"], p["ln2_g"])\n    dx1 = dx2 + dx1_ffn\n    g["W_O"] = weight_grad(C["o"], dx1)\n    dq, dk, dv = attention_backward(split_heads(dx1 @ p["W_O"].T, n_heads), C["q"], C["k"], C["v"], C["mask"])\n    dq, dk, dv = merge_heads(dq), merge_heads(dk), merge_heads(dv)\n    g["W_Q"], g["W_K"], g["W_V"] = weight_grad(C["a"], dq), weight_grad(C["a"], dk), weight_grad(C["a"], dv)\n    da = dq @ p["W_Q"].T + dk @ p["W_K"].T + dv @ p["W_V"].T\n    dx_attn, g["ln1_g"], g["ln1_b"] = layer_norm_backward(da, C["x"], p["ln1_g"])\n    return dx1 + dx_attn, g\n',
    ),
    right(
        "gpt_backward",
        "W_E by a one-hot product",
        'def gpt_backward(params, cache, dlogits):\n    grads = {"W_U": weight_grad(cache["z"], dlogits)}\n    dx, grads["lnf_g"], grads["lnf_b"] = layer_norm_backward(dlogits @ params["W_U"].T, cache["x"], params["lnf_g"])\n    for layer in reversed(range(n_blocks(params))):\n        p = block_params(params, layer)\n        dx, block_grads = block_backward(dx, p, cache["blocks"][layer], cache["n_heads"])\n        grads |= {prefix(layer) + name: value for name, value in block_grads.items()}\n    tokens, d = cache["tokens"], dx.shape[-1]\n    grads["W_E"] = np.zeros_like(params["W_E"])\n    grads["W_E"] = np.eye(params["W_E"].shape[0])[tokens.reshape(-1)].T @ dx.reshape(-1, d)\n    grads["W_P"] = np.zeros_like(params["W_P"])\n    grads["W_P"][: tokens.shape[-1]] = dx.reshape(-1, tokens.shape[-1], d).sum(axis=0)\n    return grads\n',
    ),
    right(
        "train",
        "Adam state in lists in params order, t counted by hand",
        "def train(params, batches, n_heads, lr=3e-3, weight_decay=0.1):\n    names = list(params)\n    ms = [np.zeros_like(params[k]) for k in names]; vs = [np.zeros_like(params[k]) for k in names]\n    losses, t = [], 0\n    for x, y in batches:\n        t += 1\n        logits, cache = gpt_forward(params, x, n_heads)\n        losses.append(cross_entropy(logits, y))\n        g = gpt_backward(params, cache, ce_backward(logits, y))\n        for i, k in enumerate(names):\n            new, ms[i], vs[i] = adamw_step(params[k], g[k], ms[i], vs[i], t, lr, weight_decay if params[k].ndim == 2 else 0.0)\n            params[k][...] = new\n    return losses",
    ),
    right("prediction", "does not", 'prediction = "does not"'),
]
MISTAKES += MEASURED + CACHE_MISTAKES
RIGHT += CACHE_RIGHT

# A prediction written with capitals and spaces, which check accepts, is judged as what it says after the run.
RIGHT.append(
    right(
        "prediction",
        "capitals and spaces, judged after the run as check read it",
        'prediction = "Beats it "',
        prints="You predicted 'Beats it ': it held.",
    )
)

# Attempts to get past the checks: AdamW with beta2 and eps written in as numbers, not taken from the arguments.
MISTAKES.append(
    mistake(
        "adamw_step",
        "beta2 and eps written in as 0.999 and 1e-8",
        "def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))\n    m = beta1 * m + (1 - beta1) * g\n    v = 0.999 * v + 0.001 * g * g\n    step = lr * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)\n    return theta * (1 - lr * weight_decay) - step, m, v",
    )
)

# Attempts to get past the checks: the library's own function handed to the check under the exercise's name.
MISTAKES += [
    mistake(
        "layer_norm",
        "the library's layer_norm imported under the exercise's name",
        "from transformer_math.stats import layer_norm",
        append=True,
    ),
    mistake(
        "cross_entropy",
        "the library's cross_entropy imported under the exercise's name",
        "from transformer_math.information import cross_entropy_from_logits as cross_entropy",
        append=True,
    ),
    mistake(
        "ce_backward",
        "the library's ce_backward imported under the exercise's name",
        "from transformer_math.model import cross_entropy_backward as ce_backward",
        append=True,
    ),
    mistake(
        "layer_norm_backward",
        "the library's layer_norm_backward imported under the exercise's name",
        "from transformer_math.block import layer_norm_backward",
        append=True,
    ),
    mistake(
        "gpt_forward",
        "the library's gpt_forward imported under the exercise's name",
        "from transformer_math.model import forward as gpt_forward",
        append=True,
    ),
    mistake(
        "gpt_backward",
        "the library's backward, with its gpt_forward set on the library's module",
        "import transformer_math.model as M\n\nM.gpt_forward = M.forward\ngpt_backward = M.backward",
        append=True,
    ),
    mistake(
        "block_forward",
        "a wrapper of the library's compiled under a standard-library file name",
        "import functools\n\nimport transformer_math.block as B\n\n"
        'exec(compile("def block_forward(x, p, n_heads):\\n    return B.block_forward(p, np.asarray(x, dtype=float), '
        'n_heads)\\n", functools.__file__, "exec"), globals())',
        append=True,
    ),
]

# The library's source exec'd into the notebook (its imports of the library too) in place of the learner's code.
COPIED = {"_blk": "transformer_math.block", "_mdl": "transformer_math.model"}
MISTAKES += [
    mistake(
        "block_forward",
        "the library's block_forward, its source exec'd into the notebook",
        vendored(
            "def block_forward(x, p, n_heads):\n    return _blk.block_forward(p, np.asarray(x, dtype=float), n_heads)",
            **COPIED,
        ),
        append=True,
    ),
    mistake(
        "gpt_forward",
        "the library's model.forward, its source exec'd into the notebook",
        vendored(
            "def gpt_forward(params, tokens, n_heads):\n    return _mdl.forward(params, np.asarray(tokens), n_heads)",
            **COPIED,
        ),
        append=True,
    ),
    mistake(
        "block_backward",
        "the library's block_backward, its source exec'd into the notebook",
        vendored(
            "def block_backward(dx2, p, cache, n_heads):\n    return _blk.block_backward(p, cache, dx2, n_heads)",
            **COPIED,
        ),
        append=True,
    ),
    mistake(
        "gpt_backward",
        "the library's model.backward, its source exec'd into the notebook",
        vendored(
            "def gpt_backward(params, cache, dlogits):\n    return _mdl.backward(params, cache, dlogits)", **COPIED
        ),
        append=True,
    ),
]

# The library's code run under a finalizer's name: still the library's.
MISTAKES += [
    mistake(
        "gpt_forward",
        "the library's forward pass renamed __del__",
        as_finalizer(
            "_fwd = _as_finalizer('transformer_math.model', 'forward')\n"
            "def gpt_forward(params, tokens, n_heads):\n    return _fwd(params, np.asarray(tokens), n_heads)"
        ),
    ),
    mistake(
        "ce_backward",
        "the library's gradient renamed __del__",
        as_finalizer(
            "_ceb = _as_finalizer('transformer_math.model', 'cross_entropy_backward')\n"
            "def ce_backward(logits, targets):\n    return _ceb(np.asarray(logits, dtype=float), np.asarray(targets))"
        ),
        append=True,
    ),
]

# A mask added to the scores, finite, in the recomputed forward pass: refused as the forward attention refuses it.
MISTAKES.append(
    mistake(
        "attention_backward",
        "a mask of -1e9 added to the recomputed scores",
        "def attention_backward(dO, Q, K, V, mask):\n    dO, Q, K, V = (np.asarray(a, dtype=float) for a in (dO, Q, K, V))\n"
        "    scale = np.sqrt(Q.shape[-1])\n    S = Q @ np.swapaxes(K, -1, -2) / scale\n"
        "    if mask is not None:\n        S = S + np.where(mask, 0.0, -1e9)\n    P = softmax(S)\n"
        "    dP = dO @ np.swapaxes(V, -1, -2)\n    dS = P * (dP - np.sum(P * dP, axis=-1, keepdims=True))\n"
        "    return dS @ K / scale, np.swapaxes(dS, -1, -2) @ Q / scale, np.swapaxes(P, -1, -2) @ dO",
    )
)

# The check's own copy of a case, reached up the call stack and changed so that the reference agrees with a wrong
# answer: gamma zeroed (a layer_norm that returns beta), the upstream gradient zeroed (a gpt_backward of zeros).
REACH = (
    "import sys as _sys\n\n\ndef _zero(a):\n    if isinstance(a, np.ndarray) and a.dtype.kind == 'f':\n        a[...] = 0.0\n"
    "    elif isinstance(a, list):\n        for i in range(len(a)):\n"
    "            if isinstance(a[i], list):\n                _zero(a[i])\n            else:\n                a[i] = 0.0\n\n\n"
    "def _cases_up_the_stack(edit):\n    f = _sys._getframe(2)\n    while f is not None:\n"
    "        for value in list(f.f_locals.values()):\n            if hasattr(value, 'args') and isinstance(value.args, tuple):\n"
    "                edit(value.args)\n        f = f.f_back\n\n\n"
)
MISTAKES += [
    mistake(
        "layer_norm",
        "gamma zeroed in the check's copies of the case, reached up the stack; beta returned",
        REACH + "def layer_norm(x, gamma, beta, eps=1e-5):\n    _cases_up_the_stack(lambda args: _zero(args[1]))\n"
        "    return np.broadcast_to(np.asarray(beta, float), np.shape(x)) + 0.0",
    ),
    mistake(
        "gpt_backward",
        "the upstream gradient zeroed in the check's copies of the case, reached up the stack; zeros returned",
        REACH + "def gpt_backward(params, cache, dlogits):\n"
        "    _cases_up_the_stack(lambda args: [_zero(a) for a in args if np.shape(a) == np.shape(dlogits)])\n"
        "    return {k: np.zeros_like(v) for k, v in params.items()}",
    ),
]
