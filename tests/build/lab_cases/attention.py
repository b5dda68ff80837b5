"""Attention by hand: the typical mistakes and other right answers."""

from __future__ import annotations

from tests.build.lab_cases import mistake, right

HEAD = "def attention(Q, K, V, mask=None):\n    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)\n"
MASKED = "    if mask is not None:\n        scores = np.where(mask, scores, -np.inf)\n"
SOFT = "    w = np.exp(scores - scores.max(axis=-1, keepdims=True))\n    w = w / w.sum(axis=-1, keepdims=True)\n"
SCORES = "    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n"


def attention_with(scores=SCORES, masked=MASKED, soft=SOFT, out="    return w @ V"):
    return HEAD + scores + masked + soft + out


MHA = "def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n    X = np.asarray(X, dtype=float)\n    d = X.shape[-1]\n    d_head = d // n_heads\n"

MISTAKES = [
    mistake("score_1_0", "q_0 . k_1", "score_1_0 = -2"),
    mistake("score_1_0", "scaled", "score_1_0 = 2 / np.sqrt(2)"),
    mistake(
        "causal_mask", "the upper triangle", "def causal_mask(n):\n    return np.triu(np.ones((n, n), dtype=bool))"
    ),
    mistake(
        "causal_mask",
        "without the diagonal",
        "def causal_mask(n):\n    return np.tril(np.ones((n, n), dtype=bool), k=-1)",
    ),
    mistake(
        "causal_mask", "True where masked", "def causal_mask(n):\n    return ~np.tril(np.ones((n, n), dtype=bool))"
    ),
    mistake("causal_mask", "a fixed size", "def causal_mask(n):\n    return np.tril(np.ones((4, 4), dtype=bool))"),
    mistake(
        "causal_mask",
        "the library's",
        "from transformer_math.attention import causal_mask as library_mask\n\n\ndef causal_mask(n):\n    return library_mask(n)",
    ),
    mistake("attention", "no scaling", attention_with(scores="    scores = Q @ np.swapaxes(K, -1, -2)\n")),
    mistake(
        "attention", "divided by d_k", attention_with(scores="    scores = Q @ np.swapaxes(K, -1, -2) / Q.shape[-1]\n")
    ),
    mistake(
        "attention",
        "scaled by the width of V",
        attention_with(scores="    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(V.shape[-1])\n"),
    ),
    mistake(
        "attention",
        "scaled by the number of tokens",
        attention_with(scores="    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-2])\n"),
    ),
    mistake(
        "attention",
        "the softmax over the queries",
        attention_with(
            soft="    w = np.exp(scores - scores.max(axis=-2, keepdims=True))\n    w = w / w.sum(axis=-2, keepdims=True)\n"
        ),
    ),
    mistake(
        "attention", "K Q^T", attention_with(scores="    scores = K @ np.swapaxes(Q, -1, -2) / np.sqrt(Q.shape[-1])\n")
    ),
    mistake("attention", "weights^T V", attention_with(out="    return np.swapaxes(w, -1, -2) @ V")),
    mistake(
        "attention",
        "ignores its mask and uses a global one",
        "causal = np.tril(np.ones((4, 4), dtype=bool))\n\n\n"
        + attention_with(masked="    scores = np.where(causal, scores, -np.inf)\n"),
    ),
    mistake(
        "attention",
        "masked scores set to 0",
        attention_with(masked="    if mask is not None:\n        scores = np.where(mask, scores, 0.0)\n"),
    ),
    mistake(
        "attention",
        "the mask read the other way",
        attention_with(masked="    if mask is not None:\n        scores = np.where(mask, -np.inf, scores)\n"),
    ),
    mistake("attention", "K.T on a batch", attention_with(scores="    scores = Q @ K.T / np.sqrt(Q.shape[-1])\n")),
    mistake(
        "attention",
        "no shift in the softmax",
        attention_with(soft="    w = np.exp(scores)\n    w = w / w.sum(axis=-1, keepdims=True)\n"),
    ),
    mistake(
        "attention",
        "the library's",
        "import transformer_math.attention as tma\n\n\ndef attention(Q, K, V, mask=None):\n    return tma.scaled_dot_product_attention(Q, K, V, None if mask is None else np.asarray(mask, dtype=bool))[0]",
    ),
    mistake("prediction", "a word not offered", 'prediction = "v_0"'),
    mistake(
        "multi_head_attention",
        "split by a reshape, without moving the head axis",
        MHA
        + "    n = X.shape[-2]\n    Q, K, V = ((X @ W).reshape(n_heads, n, d_head) for W in (W_Q, W_K, W_V))\n    return attention(Q, K, V, causal_mask(n)).reshape(n, d) @ W_O",
    ),
    mistake(
        "multi_head_attention",
        "one head of full width",
        MHA + "    return attention(X @ W_Q, X @ W_K, X @ W_V, causal_mask(X.shape[-2])) @ W_O",
    ),
    mistake(
        "multi_head_attention",
        "no causal mask",
        MHA
        + "    Q, K, V = X @ W_Q, X @ W_K, X @ W_V\n    heads = [attention(Q[..., l * d_head:(l + 1) * d_head], K[..., l * d_head:(l + 1) * d_head], V[..., l * d_head:(l + 1) * d_head]) for l in range(n_heads)]\n    return np.concatenate(heads, axis=-1) @ W_O",
    ),
    mistake(
        "multi_head_attention",
        "no W_O",
        MHA
        + "    Q, K, V = X @ W_Q, X @ W_K, X @ W_V\n    mask = causal_mask(X.shape[-2])\n    return np.concatenate([attention(Q[..., l * d_head:(l + 1) * d_head], K[..., l * d_head:(l + 1) * d_head], V[..., l * d_head:(l + 1) * d_head], mask) for l in range(n_heads)], axis=-1)",
    ),
    mistake(
        "multi_head_attention",
        "two heads, whatever n_heads says",
        MHA.replace("d // n_heads", "d // 2")
        + "    Q, K, V = X @ W_Q, X @ W_K, X @ W_V\n    mask = causal_mask(X.shape[-2])\n    return np.concatenate([attention(Q[..., l * d_head:(l + 1) * d_head], K[..., l * d_head:(l + 1) * d_head], V[..., l * d_head:(l + 1) * d_head], mask) for l in range(2)], axis=-1) @ W_O",
    ),
    mistake(
        "multi_head_attention",
        "the heads joined along the tokens",
        MHA
        + "    Q, K, V = X @ W_Q, X @ W_K, X @ W_V\n    mask = causal_mask(X.shape[-2])\n    heads = [attention(Q[..., l * d_head:(l + 1) * d_head], K[..., l * d_head:(l + 1) * d_head], V[..., l * d_head:(l + 1) * d_head], mask) for l in range(n_heads)]\n    return np.concatenate(heads, axis=-2).reshape(X.shape) @ W_O",
    ),
    mistake(
        "multi_head_attention",
        "the library's",
        "from transformer_math.attention import multi_head_attention as mha\n\n\ndef multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n    return mha(X, W_Q, W_K, W_V, W_O, n_heads, mask=causal_mask(np.shape(X)[-2]))[0]",
    ),
]

RIGHT = [
    right("score_1_0", "computed", "score_1_0 = (X[1] @ W_Q) @ (X[0] @ W_K)"),
    right(
        "causal_mask",
        "a comparison of indices",
        "def causal_mask(n):\n    i = np.arange(n)\n    return i[:, None] >= i[None, :]",
    ),
    right("causal_mask", "0 and 1", "def causal_mask(n):\n    return np.tri(n, dtype=int)"),
    right(
        "attention",
        "einsum and a large negative number",
        HEAD
        + "    scores = np.einsum('...qd,...kd->...qk', Q, K) / np.sqrt(Q.shape[-1])\n    if mask is not None:\n        scores = np.where(np.asarray(mask, dtype=bool), scores, -1e30)\n"
        + SOFT
        + "    return np.einsum('...qk,...kv->...qv', w, V)",
    ),
    right("prediction", "the other answer", 'prediction = "average"'),
    right(
        "multi_head_attention",
        "reshape and transpose",
        MHA
        + "    lead, n = X.shape[:-2], X.shape[-2]\n\n    def split(M):\n        return np.swapaxes(M.reshape(*lead, n, n_heads, d_head), -2, -3)\n\n    heads = attention(split(X @ W_Q), split(X @ W_K), split(X @ W_V), causal_mask(n))\n    return np.swapaxes(heads, -2, -3).reshape(*lead, n, d) @ W_O",
    ),
]
