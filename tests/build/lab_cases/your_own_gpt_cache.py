"""Your own GPT: block_forward's cache, which block_backward reads, refused where it is made when it is spoiled.

An x2 can be right while the cache is not: an array written over in place after it was cached, the wrong array
cached under a name, a cache a later call fills anew. A right block_backward fed from it would fail with a message
about its own formulas; block_forward's check says which entry is wrong. A cache of the learner's own design (its
own names, a ReLU done in place on u, an x1 built in place on a copy, an entry reshaped or its heads joined) is
accepted.
"""

from __future__ import annotations

from tests.build.lab_cases import mistake, right

START = (
    "def block_forward(x, p, n_heads):\n    n = x.shape[-2]\n    mask = np.tril(np.ones((n, n), dtype=bool))\n"
    "    a = layer_norm(x, p['ln1_g'], p['ln1_b'])\n"
    "    q, k, v = (split_heads(a @ p[name], n_heads) for name in ('W_Q', 'W_K', 'W_V'))\n"
    "    o = merge_heads(attention(q, k, v, mask))\n"
)
X1 = "    x1 = x + o @ p['W_O']\n"
FFN = "    c = layer_norm(x1, p['ln2_g'], p['ln2_b'])\n    u = c @ p['W_1'] + p['b_1']\n    r = np.maximum(u, 0.0)\n"
CACHE = "{'x': x, 'a': a, 'q': q, 'k': k, 'v': v, 'mask': mask, 'o': o, 'x1': x1, 'c': c, 'u': u, 'r': r}"

CACHE_MISTAKES = [
    mistake(
        "block_forward",
        "the second residual added in place (x1 += ...): the cached x1 becomes x2",
        START + X1 + FFN + f"    cache = {CACHE}\n    x1 += r @ p['W_2'] + p['b_2']\n    return x1, cache",
    ),
    mistake(
        "block_forward",
        "x cached under x1",
        START
        + X1
        + FFN
        + f"    return x1 + r @ p['W_2'] + p['b_2'], {CACHE.replace(chr(39) + 'x1' + chr(39) + ': x1', chr(39) + 'x1' + chr(39) + ': x')}",
    ),
    mistake(
        "block_forward",
        "one cache dict at module level, filled anew by every call",
        "_cache = {}\n\n\n"
        + START
        + X1
        + FFN
        + f"    _cache.update({CACHE})\n    return x1 + r @ p['W_2'] + p['b_2'], _cache",
    ),
]

# The same second residual added in place, in a block of gpt_forward's own: its check looks at each block's cache.
CACHE_MISTAKES.append(
    mistake(
        "gpt_forward",
        "its own block adds the second residual in place: each block's cached x1 becomes its x2",
        START.replace("def block_forward(", "def _block(")
        + X1
        + FFN
        + f"    cache = {CACHE}\n    x1 += r @ p['W_2'] + p['b_2']\n    return x1, cache\n\n\n"
        + "def gpt_forward(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    x, blocks = embed(params, tokens), []\n"
        + "    for layer in range(n_blocks(params)):\n        x, block_cache = _block(x, block_params(params, layer), n_heads)\n"
        + "        blocks.append(block_cache)\n    z = layer_norm(x, params['lnf_g'], params['lnf_b'])\n"
        + "    return z @ params['W_U'], {'tokens': tokens, 'n_heads': n_heads, 'blocks': blocks, 'x': x, 'z': z}",
    )
)

# The model's own entries, spoiled with the logits right: the stream before the final LayerNorm cached as z, z
# written over after the logits are computed, n_heads left out. gpt_backward, fed from them, would be blamed.
GPT = (
    "def gpt_forward(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    x, blocks = embed(params, tokens), []\n"
    "    for layer in range(n_blocks(params)):\n        x, block_cache = block_forward(x, block_params(params, layer), n_heads)\n"
    "        blocks.append(block_cache)\n    z = layer_norm(x, params['lnf_g'], params['lnf_b'])\n"
)
CACHE_MISTAKES += [
    mistake(
        "gpt_forward",
        "the stream before the final LayerNorm cached as z",
        GPT + "    return z @ params['W_U'], {'tokens': tokens, 'n_heads': n_heads, 'blocks': blocks, 'x': x, 'z': x}",
    ),
    mistake(
        "gpt_forward",
        "z written over after the logits are computed (z -= lnf_b)",
        GPT
        + "    logits = z @ params['W_U']\n    z -= params['lnf_b']\n"
        + "    return logits, {'tokens': tokens, 'n_heads': n_heads, 'blocks': blocks, 'x': x, 'z': z}",
    ),
    mistake(
        "gpt_forward",
        "n_heads left out of the cache",
        GPT + "    return z @ params['W_U'], {'tokens': tokens, 'blocks': blocks, 'x': x, 'z': z}",
    ),
]

# A cached entry the check must refuse: a mask that is not the causal one, a z of another shape or order.
CACHE_MISTAKES += [
    mistake(
        "block_forward",
        "the mask cached all True (np.ones_like(mask)), not the causal mask attention used",
        START
        + X1
        + FFN
        + f"    return x1 + r @ p['W_2'] + p['b_2'], {CACHE.replace(': mask', ': np.ones_like(mask)')}",
    ),
    mistake(
        "gpt_forward",
        "the logits cached as z, an array of another shape",
        GPT
        + "    return z @ params['W_U'], {'tokens': tokens, 'n_heads': n_heads, 'blocks': blocks, 'x': x,"
        + " 'z': z @ params['W_U']}",
    ),
    mistake(
        "gpt_forward",
        "z cached transposed (np.swapaxes(z, -1, -2))",
        GPT
        + "    return z @ params['W_U'], {'tokens': tokens, 'n_heads': n_heads, 'blocks': blocks, 'x': x,"
        + " 'z': np.swapaxes(z, -1, -2)}",
    ),
]

CACHE_RIGHT = [
    right(
        "block_forward",
        "the ReLU done in place on u after caching it (u's signs are r's)",
        START
        + X1
        + "    c = layer_norm(x1, p['ln2_g'], p['ln2_b'])\n    u = c @ p['W_1'] + p['b_1']\n"
        + f"    r = u\n    cache = {CACHE}\n    np.maximum(u, 0.0, out=u)\n    return x1 + r @ p['W_2'] + p['b_2'], cache",
    ),
    right(
        "block_forward",
        "x1 built in place on a copy of x, x2 a new array",
        START
        + "    x1 = x.copy()\n    x1 += o @ p['W_O']\n"
        + FFN
        + f"    return x1 + r @ p['W_2'] + p['b_2'], {CACHE}",
    ),
    right(
        "block_forward",
        "LayerNorm 2's statistics cached under names of its own, no x1",
        START
        + X1
        + FFN
        + "    mu, sd = x1.mean(-1, keepdims=True), np.sqrt(x1.var(-1, keepdims=True) + 1e-5)\n"
        + "    return x1 + r @ p['W_2'] + p['b_2'], {'x': x, 'a': a, 'q': q, 'k': k, 'v': v, 'mask': mask, 'o': o,"
        + " 'x1_hat': (x1 - mu) / sd, 'x1_sd': sd, 'c': c, 'u': u, 'r': r}",
    ),
    right(
        "gpt_forward",
        "a cache of its own names and more entries, n_heads inside a tuple, the tokens as given, z as (tokens, d)",
        GPT.replace("tokens = np.asarray(tokens)", "ids = np.asarray(tokens)").replace(
            "embed(params, tokens)", "embed(params, ids)"
        )
        + "    return z @ params['W_U'], {'tokens': tokens, 'shape': (n_heads, ids.shape), 'x0': embed(params, ids),"
        + " 'blocks': blocks, 'stream': x, 'normed': z, 'x': x, 'z': z.reshape(-1, z.shape[-1])}",
    ),
    right(
        "block_forward",
        "its own layouts: q joined, o split, a as a list, x as (tokens, d), the mask as 0/1 of shape (1, n, n)",
        START
        + X1
        + FFN
        + "    return x1 + r @ p['W_2'] + p['b_2'], {'x': x.reshape(-1, x.shape[-1]), 'a': a.tolist(),"
        + " 'q': merge_heads(q), 'k': k, 'v': v, 'mask': mask[None].astype(int), 'o': split_heads(o, n_heads),"
        + " 'x1': x1, 'c': c, 'u': u, 'r': r}",
    ),
]

# The blocks' caches kept in a dict by layer, or flat beside the model's entries: each is checked as in a list.
SECOND_CALL = "        x, _ = block_forward(x, block_params(params, layer), n_heads)\n"
CACHE_MISTAKES += [
    mistake(
        "gpt_forward",
        "the blocks' caches in a dict by layer, each from a second call on the block's output",
        "def gpt_forward(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    x, blocks = embed(params, tokens), {}\n"
        "    for layer in range(n_blocks(params)):\n"
        + SECOND_CALL
        + "        blocks[layer] = block_forward(x, block_params(params, layer), n_heads)[1]\n"
        "    z = layer_norm(x, params['lnf_g'], params['lnf_b'])\n"
        "    return z @ params['W_U'], {'tokens': tokens, 'n_heads': n_heads, 'blocks': blocks, 'x': x, 'z': z}",
    ),
    mistake(
        "gpt_forward",
        "the blocks' caches flat as cache['block0'], each from a second call on the block's output",
        "def gpt_forward(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    x = embed(params, tokens)\n"
        "    cache = {'tokens': tokens, 'n_heads': n_heads}\n    for layer in range(n_blocks(params)):\n"
        + SECOND_CALL
        + "        cache[f'block{layer}'] = block_forward(x, block_params(params, layer), n_heads)[1]\n"
        "    z = layer_norm(x, params['lnf_g'], params['lnf_b'])\n    cache.update(x=x, z=z)\n"
        "    return z @ params['W_U'], cache",
    ),
]
CACHE_RIGHT += [
    right(
        "gpt_forward",
        "the blocks' caches flat as cache['block0'] ... cache['block11']",
        "def gpt_forward(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    x = embed(params, tokens)\n"
        "    cache = {'tokens': tokens, 'n_heads': n_heads}\n    for layer in range(n_blocks(params)):\n"
        "        x, cache[f'block{layer}'] = block_forward(x, block_params(params, layer), n_heads)\n"
        "    z = layer_norm(x, params['lnf_g'], params['lnf_b'])\n    cache.update(x=x, z=z)\n"
        "    return z @ params['W_U'], cache",
    ),
]

# The blocks' caches kept last block first: refused at gpt_forward, which says so (gpt_backward reads them by layer).
CACHE_MISTAKES += [
    mistake(
        "gpt_forward",
        "the blocks' caches in reverse order",
        "def gpt_forward(params, tokens, n_heads):\n    tokens = np.asarray(tokens)\n    x, blocks = embed(params, tokens), []\n"
        "    for layer in range(n_blocks(params)):\n        x, block_cache = block_forward(x, block_params(params, layer), n_heads)\n"
        "        blocks.insert(0, block_cache)\n    z = layer_norm(x, params['lnf_g'], params['lnf_b'])\n"
        "    return z @ params['W_U'], {'tokens': tokens, 'n_heads': n_heads, 'blocks': blocks, 'x': x, 'z': z}",
    )
]

# A cache kept in float32 where the forward pass computed float64: within the tolerance of the values, but the
# backward pass fed from it errs on tokens near 1e6; refused in the forward exercise.
CACHE_MISTAKES += [
    mistake(
        "gpt_forward",
        "x and z cached as float32",
        GPT
        + "    return z @ params['W_U'], {'tokens': tokens, 'n_heads': n_heads, 'blocks': blocks,"
        + " 'x': x.astype(np.float32), 'z': z.astype(np.float32)}",
    )
]
CACHE_MISTAKES += [
    mistake(
        "block_forward",
        "the cache kept in float32",
        START
        + X1
        + FFN
        + "    cache = {key: value.astype(np.float32) if value.dtype.kind == 'f' else value for key, value in "
        + f"{CACHE}.items()}}\n    return x1 + r @ p['W_2'] + p['b_2'], cache",
    )
]
