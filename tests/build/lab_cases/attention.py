"""Attention by hand: the typical mistakes and other right answers."""

from __future__ import annotations

from tests.build.lab_cases import as_finalizer, behind_a_table, mistake, right

HEAD = "def attention(Q, K, V, mask=None):\n    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)\n"
MASKED = "    if mask is not None:\n        scores = np.where(mask, scores, -np.inf)\n"
SOFT = "    w = np.exp(scores - scores.max(axis=-1, keepdims=True))\n    w = w / w.sum(axis=-1, keepdims=True)\n"
SCORES = "    scores = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n"


def attention_with(scores=SCORES, masked=MASKED, soft=SOFT, out="    return w @ V"):
    return HEAD + scores + masked + soft + out


MHA = "def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n    X = np.asarray(X, dtype=float)\n    d = X.shape[-1]\n    d_head = d // n_heads\n"

MISTAKES = [
    mistake("causal_mask", "0 and 1, not booleans", "def causal_mask(n):\n    return np.tri(n, dtype=int)"),
    mistake("score_1_0", "q_0 . k_1", "score_1_0 = -2"),
    mistake("score_1_0", "scaled", "score_1_0 = 2 / np.sqrt(2)"),
    mistake("score_1_0", "off by one on both tokens, q_2 . k_1", "score_1_0 = float((X[2] @ W_Q) @ (X[1] @ W_K))"),
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
    right(
        "causal_mask",
        "the complement of the strict upper triangle",
        "def causal_mask(n):\n    return ~np.triu(np.ones((n, n), dtype=bool), 1)",
    ),
    right(
        "attention",
        "einsum and a large negative number",
        HEAD
        + "    scores = np.einsum('...qd,...kd->...qk', Q, K) / np.sqrt(Q.shape[-1])\n    if mask is not None:\n        scores = np.where(np.asarray(mask, dtype=bool), scores, -1e30)\n"
        + SOFT
        + "    return np.einsum('...qk,...kv->...qv', w, V)",
    ),
    right(
        "attention",
        "-1e9 added to the masked scores",
        attention_with(
            masked="    if mask is not None:\n        scores = scores - 1e9 * ~np.asarray(mask, dtype=bool)\n"
        ),
    ),
    right(
        "attention",
        "the maximum over the visible scores, the mask applied after exp",
        attention_with(
            masked="",
            soft="    keep = np.ones(scores.shape, dtype=bool) if mask is None else np.asarray(mask, dtype=bool)\n"
            "    top = np.where(keep, scores, -np.inf).max(axis=-1, keepdims=True)\n"
            "    w = np.where(keep, np.exp(np.where(keep, scores - top, 0.0)), 0.0)\n"
            "    w = w / w.sum(axis=-1, keepdims=True)\n",
        ),
    ),
    right("prediction", "the other answer", 'prediction = "average"'),
    right(
        "multi_head_attention",
        "reshape and transpose",
        MHA
        + "    lead, n = X.shape[:-2], X.shape[-2]\n\n    def split(M):\n        return np.swapaxes(M.reshape(*lead, n, n_heads, d_head), -2, -3)\n\n    heads = attention(split(X @ W_Q), split(X @ W_K), split(X @ W_V), causal_mask(n))\n    return np.swapaxes(heads, -2, -3).reshape(*lead, n, d) @ W_O",
    ),
]

# An outside instructor's attempts, each written without the reference solution in view: the mistakes
# learners make (and routes around the exercise), and other right answers.
MISTAKES += [
    mistake("score_1_0", "q0.k1", "score_1_0 = 1"),
    mistake("score_1_0", "scaled by sqrt 2", "score_1_0 = 1.4142"),
    mistake("score_1_0", "x1.x0 (embeddings)", "score_1_0 = 0"),
    mistake("causal_mask", "upper triangle", "def causal_mask(n):\n    return np.triu(np.ones((n, n), dtype=bool))"),
    mistake(
        "causal_mask", "diagonal excluded", "def causal_mask(n):\n    return np.tril(np.ones((n, n), dtype=bool), k=-1)"
    ),
    mistake("causal_mask", "floats, not booleans (np.tri)", "def causal_mask(n):\n    return np.tri(n)"),
    mistake(
        "causal_mask",
        "ints 0/1 (then ~mask is -1/-2)",
        "def causal_mask(n):\n    return np.tril(np.ones((n, n), dtype=int))",
    ),
    mistake(
        "causal_mask",
        "True where masked (inverted)",
        "def causal_mask(n):\n    return np.triu(np.ones((n, n), dtype=bool), k=1)",
    ),
    mistake(
        "causal_mask",
        "additive mask 0/-inf",
        "def causal_mask(n):\n    return np.where(np.tri(n, dtype=bool), 0.0, -np.inf)",
    ),
    mistake(
        "causal_mask",
        "hard-coded 4x4 sliced",
        "def causal_mask(n):\n    return np.tril(np.ones((4, 4), dtype=bool))[:n, :n]",
    ),
    mistake(
        "causal_mask",
        "a slice of a 600x600 table built once",
        "_T = np.tril(np.ones((600, 600), dtype=bool))\n\n\ndef causal_mask(n):\n    return _T[:n, :n]",
    ),
    mistake(
        "attention",
        "the maximum over the masked scores too, the mask applied after exp",
        attention_with(
            masked="",
            soft="    w = np.exp(scores - scores.max(axis=-1, keepdims=True))\n"
            "    if mask is not None:\n        w = w * np.asarray(mask, dtype=bool)\n"
            "    w = w / w.sum(axis=-1, keepdims=True)\n",
        ),
    ),
    mistake(
        "attention",
        "masked scores set to -1e4",
        attention_with(masked="    if mask is not None:\n        scores = np.where(mask, scores, -1e4)\n"),
    ),
    mistake(
        "attention",
        "-1e4 added to the masked scores",
        attention_with(
            masked="    if mask is not None:\n        scores = scores - 1e4 * ~np.asarray(mask, dtype=bool)\n"
        ),
    ),
    mistake(
        "attention",
        "ignores mask, uses a global causal mask",
        "def attention(Q, K, V, mask=None):\n    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)\n    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n    n = s.shape[-1]\n    s = np.where(np.tril(np.ones((s.shape[-2], n), bool)), s, -np.inf)\n    w = np.exp(s - s.max(axis=-1, keepdims=True))\n    w = w / w.sum(axis=-1, keepdims=True)\n    return w @ V",
    ),
    mistake(
        "attention",
        "ignores mask entirely",
        "def attention(Q, K, V, mask=None):\n    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)\n    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n    w = np.exp(s - s.max(axis=-1, keepdims=True))\n    w = w / w.sum(axis=-1, keepdims=True)\n    return w @ V",
    ),
    mistake(
        "attention",
        "mask multiplies the scores (0 not -inf)",
        "def attention(Q, K, V, mask=None):\n    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)\n    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n    if mask is not None:\n        s = s * mask\n    w = np.exp(s - s.max(axis=-1, keepdims=True))\n    w = w / w.sum(axis=-1, keepdims=True)\n    return w @ V",
    ),
    mistake(
        "attention",
        "weights zeroed after softmax, not renormalised",
        "def attention(Q, K, V, mask=None):\n    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)\n    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n    w = np.exp(s - s.max(axis=-1, keepdims=True))\n    w = w / w.sum(axis=-1, keepdims=True)\n    if mask is not None:\n        w = w * mask\n    return w @ V",
    ),
    mistake(
        "attention",
        "mask inverted (-inf where True)",
        "def attention(Q, K, V, mask=None):\n    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)\n    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n    if mask is not None:\n        s = np.where(mask, -np.inf, s)\n    with np.errstate(invalid='ignore'):\n        w = np.exp(s - s.max(axis=-1, keepdims=True))\n        w = w / w.sum(axis=-1, keepdims=True)\n    return w @ V",
    ),
    mistake(
        "attention",
        "scaled by sqrt(d_v)",
        "def attention(Q, K, V, mask=None):\n    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)\n    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(V.shape[-1])\n    if mask is not None:\n        s = np.where(mask, s, -np.inf)\n    w = np.exp(s - s.max(axis=-1, keepdims=True))\n    w = w / w.sum(axis=-1, keepdims=True)\n    return w @ V",
    ),
    mistake(
        "attention",
        "scaled by d_k",
        "def attention(Q, K, V, mask=None):\n    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)\n    s = Q @ np.swapaxes(K, -1, -2) / Q.shape[-1]\n    if mask is not None:\n        s = np.where(mask, s, -np.inf)\n    w = np.exp(s - s.max(axis=-1, keepdims=True))\n    w = w / w.sum(axis=-1, keepdims=True)\n    return w @ V",
    ),
    mistake(
        "attention",
        "no scaling",
        "def attention(Q, K, V, mask=None):\n    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)\n    s = Q @ np.swapaxes(K, -1, -2)\n    if mask is not None:\n        s = np.where(mask, s, -np.inf)\n    w = np.exp(s - s.max(axis=-1, keepdims=True))\n    w = w / w.sum(axis=-1, keepdims=True)\n    return w @ V",
    ),
    mistake(
        "attention",
        "K.T (all axes reversed)",
        "def attention(Q, K, V, mask=None):\n    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)\n    s = Q @ K.T / np.sqrt(Q.shape[-1])\n    if mask is not None:\n        s = np.where(mask, s, -np.inf)\n    w = np.exp(s - s.max(axis=-1, keepdims=True))\n    w = w / w.sum(axis=-1, keepdims=True)\n    return w @ V",
    ),
    mistake(
        "attention",
        "softmax over the queries (axis -2)",
        "def attention(Q, K, V, mask=None):\n    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)\n    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n    if mask is not None:\n        s = np.where(mask, s, -np.inf)\n    w = np.exp(s - s.max(axis=-2, keepdims=True))\n    w = w / w.sum(axis=-2, keepdims=True)\n    return np.nan_to_num(w) @ V",
    ),
    mistake(
        "attention",
        "naive softmax (overflows)",
        "def attention(Q, K, V, mask=None):\n    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)\n    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n    if mask is not None:\n        s = np.where(mask, s, -np.inf)\n    with np.errstate(all='ignore'):\n        w = np.exp(s); w = w / w.sum(axis=-1, keepdims=True)\n    return w @ V",
    ),
    mistake(
        "attention",
        "softmax shifted by the mean",
        "def attention(Q, K, V, mask=None):\n    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)\n    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n    if mask is not None:\n        s = np.where(mask, s, -np.inf)\n    with np.errstate(all='ignore'):\n        mu = np.where(np.isfinite(s), s, 0).mean(axis=-1, keepdims=True)\n        w = np.exp(s - mu); w = w / w.sum(axis=-1, keepdims=True)\n    return w @ V",
    ),
    mistake(
        "attention",
        "returns the weights",
        "def attention(Q, K, V, mask=None):\n    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)\n    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n    if mask is not None:\n        s = np.where(mask, s, -np.inf)\n    w = np.exp(s - s.max(axis=-1, keepdims=True))\n    w = w / w.sum(axis=-1, keepdims=True)\n    return w",
    ),
    mistake(
        "attention",
        "V @ weights order",
        "def attention(Q, K, V, mask=None):\n    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)\n    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n    if mask is not None:\n        s = np.where(mask, s, -np.inf)\n    w = np.exp(s - s.max(axis=-1, keepdims=True))\n    w = w / w.sum(axis=-1, keepdims=True)\n    return np.swapaxes(np.swapaxes(V, -1, -2) @ w, -1, -2)",
    ),
    mistake(
        "attention",
        "library scaled_dot_product_attention",
        "from transformer_math.attention import scaled_dot_product_attention as sdpa\ndef attention(Q, K, V, mask=None):\n    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)\n    return sdpa(Q, K, V, None if mask is None else np.asarray(mask, bool))[0]",
    ),
    mistake(
        "attention",
        "mask == 0 test with a list mask (python list comparison)",
        "def attention(Q, K, V, mask=None):\n    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)\n    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n    if mask is not None:\n        s[..., mask == 0] = -np.inf if not isinstance(mask, list) else s[..., 0]\n    w = np.exp(s - s.max(axis=-1, keepdims=True))\n    w = w / w.sum(axis=-1, keepdims=True)\n    return w @ V",
    ),
    mistake("prediction", "v_0 (not a choice)", 'prediction = "v_0"'),
    mistake(
        "multi_head_attention",
        "reshape without the transpose",
        "def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n    X = np.asarray(X, dtype=float)\n    *lead, n, d = X.shape\n    def split(M):\n        return M.reshape(*lead, n_heads, n, d // n_heads)\n    H = attention(split(X @ W_Q), split(X @ W_K), split(X @ W_V), causal_mask(n))\n    return H.reshape(*lead, n, d) @ W_O",
    ),
    mistake(
        "multi_head_attention",
        "interleaved columns l::h",
        "def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n    X = np.asarray(X, dtype=float)\n    d = X.shape[-1]; dh = d // n_heads\n    Q, K, V = X @ W_Q, X @ W_K, X @ W_V\n    mask = causal_mask(X.shape[-2])\n    heads = [attention(Q[..., l::n_heads], K[..., l::n_heads], V[..., l::n_heads], mask) for l in range(n_heads)]\n    out = np.empty_like(Q)\n    for l in range(n_heads):\n        out[..., l::n_heads] = heads[l]\n    return out @ W_O",
    ),
    mistake(
        "multi_head_attention",
        "no W_O",
        "def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n    X = np.asarray(X, dtype=float)\n    d = X.shape[-1]; dh = d // n_heads\n    Q, K, V = X @ W_Q, X @ W_K, X @ W_V\n    mask = causal_mask(X.shape[-2])\n    return np.concatenate([attention(Q[..., l*dh:(l+1)*dh], K[..., l*dh:(l+1)*dh], V[..., l*dh:(l+1)*dh], mask) for l in range(n_heads)], axis=-1)",
    ),
    mistake(
        "multi_head_attention",
        "no mask",
        "def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n    X = np.asarray(X, dtype=float)\n    d = X.shape[-1]; dh = d // n_heads\n    Q, K, V = X @ W_Q, X @ W_K, X @ W_V\n    mask = causal_mask(X.shape[-2])\n    return np.concatenate([attention(Q[..., l*dh:(l+1)*dh], K[..., l*dh:(l+1)*dh], V[..., l*dh:(l+1)*dh]) for l in range(n_heads)], axis=-1) @ W_O",
    ),
    mistake(
        "multi_head_attention",
        "ignores n_heads: one head of width d",
        "def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n    X = np.asarray(X, dtype=float)\n    d = X.shape[-1]; dh = d // n_heads\n    Q, K, V = X @ W_Q, X @ W_K, X @ W_V\n    mask = causal_mask(X.shape[-2])\n    return attention(Q, K, V, mask) @ W_O",
    ),
    mistake(
        "multi_head_attention",
        "heads scaled by sqrt(d), not sqrt(d_head)",
        "def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n    X = np.asarray(X, dtype=float)\n    d = X.shape[-1]; dh = d // n_heads\n    Q, K, V = X @ W_Q, X @ W_K, X @ W_V\n    mask = causal_mask(X.shape[-2])\n    hs = []\n    for l in range(n_heads):\n        c = slice(l*dh, (l+1)*dh)\n        hs.append(attention(Q[..., c] * np.sqrt(dh / d), K[..., c], V[..., c], mask))\n    return np.concatenate(hs, axis=-1) @ W_O",
    ),
    mistake(
        "multi_head_attention",
        "hard-coded two heads",
        "def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n    X = np.asarray(X, dtype=float)\n    d = X.shape[-1]; dh = d // 2\n    Q, K, V = X @ W_Q, X @ W_K, X @ W_V\n    mask = causal_mask(X.shape[-2])\n    return np.concatenate([attention(Q[..., l*dh:(l+1)*dh], K[..., l*dh:(l+1)*dh], V[..., l*dh:(l+1)*dh], mask) for l in range(2)], axis=-1) @ W_O",
    ),
    mistake(
        "multi_head_attention",
        "mask from X.shape[0] (breaks batches)",
        "def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n    X = np.asarray(X, dtype=float)\n    d = X.shape[-1]; dh = d // n_heads\n    Q, K, V = X @ W_Q, X @ W_K, X @ W_V\n    mask = causal_mask(X.shape[0])\n    return np.concatenate([attention(Q[..., l*dh:(l+1)*dh], K[..., l*dh:(l+1)*dh], V[..., l*dh:(l+1)*dh], mask) for l in range(n_heads)], axis=-1) @ W_O",
    ),
    mistake(
        "multi_head_attention",
        "heads averaged, not concatenated",
        "def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n    X = np.asarray(X, dtype=float)\n    d = X.shape[-1]; dh = d // n_heads\n    Q, K, V = X @ W_Q, X @ W_K, X @ W_V\n    mask = causal_mask(X.shape[-2])\n    return sum(attention(Q[..., l*dh:(l+1)*dh], K[..., l*dh:(l+1)*dh], V[..., l*dh:(l+1)*dh], mask) for l in range(n_heads)) @ W_O[:dh] if n_heads > 1 else attention(Q, K, V, mask) @ W_O",
    ),
    mistake(
        "multi_head_attention",
        "the library's multi-head",
        "import transformer_math.attention as ta\ndef multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n    X = np.asarray(X, dtype=float)\n    return ta.multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads, mask=ta.causal_mask(X.shape[-2]))[0]",
    ),
]
RIGHT += [
    right("score_1_0", "computed 2.0", "score_1_0 = 2.0"),
    right(
        "causal_mask",
        "arange comparison",
        "def causal_mask(n):\n    return np.arange(n)[:, None] >= np.arange(n)[None, :]",
    ),
    right("causal_mask", "~triu(k=1)", "def causal_mask(n):\n    return ~np.triu(np.ones((n, n), dtype=bool), k=1)"),
    right(
        "attention",
        "-1e9 for masked scores",
        "def attention(Q, K, V, mask=None):\n    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)\n    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n    if mask is not None:\n        s = np.where(mask, s, -1e9)\n    w = np.exp(s - s.max(axis=-1, keepdims=True))\n    w = w / w.sum(axis=-1, keepdims=True)\n    return w @ V",
    ),
    right(
        "attention",
        "einsum and weights zeroed after exp",
        "def attention(Q, K, V, mask=None):\n    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)\n    s = np.einsum('...qd,...kd->...qk', Q, K) / np.sqrt(K.shape[-1])\n    if mask is not None:\n        m = np.asarray(mask, bool)\n        s = np.where(m, s, s.min() - 1.0)\n        w = np.exp(s - s.max(axis=-1, keepdims=True)) * m\n    else:\n        w = np.exp(s - s.max(axis=-1, keepdims=True))\n    return np.einsum('...qk,...kv->...qv', w / w.sum(-1, keepdims=True), V)",
    ),
    right(
        "attention",
        "K transposed with moveaxis, mask with masked fill -inf on a copy",
        "def attention(Q, K, V, mask=None):\n    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)\n    s = Q @ np.moveaxis(K, -1, -2) / np.sqrt(Q.shape[-1])\n    if mask is not None:\n        s = s.copy(); s[..., ~np.broadcast_to(np.asarray(mask, bool), s.shape)] = -np.inf\n    w = np.exp(s - s.max(axis=-1, keepdims=True))\n    w = w / w.sum(axis=-1, keepdims=True)\n    return w @ V",
    ),
    right("prediction", "average", 'prediction = "average"'),
    right(
        "multi_head_attention",
        "reshape and transpose",
        "def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n    X = np.asarray(X, dtype=float)\n    *lead, n, d = X.shape\n    def split(M):\n        return np.swapaxes(M.reshape(*lead, n, n_heads, d // n_heads), -2, -3)\n    H = attention(split(X @ W_Q), split(X @ W_K), split(X @ W_V), causal_mask(n))\n    H = np.swapaxes(H, -2, -3).reshape(*lead, n, d)\n    return H @ W_O",
    ),
    right(
        "multi_head_attention",
        "W_O split by rows, heads summed",
        "def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n    X = np.asarray(X, dtype=float)\n    d = X.shape[-1]; dh = d // n_heads\n    Q, K, V = X @ W_Q, X @ W_K, X @ W_V\n    mask = causal_mask(X.shape[-2])\n    out = 0\n    for l in range(n_heads):\n        c = slice(l * dh, (l + 1) * dh)\n        out = out + attention(Q[..., c], K[..., c], V[..., c], mask) @ W_O[c, :]\n    return out",
    ),
]

# Attempts to get past the checks: a mask of one size, cut down; a table of the masks of the first lengths.
MISTAKES += [
    mistake(
        "causal_mask",
        "a mask of size 8 written into the code, cut to n",
        "def causal_mask(n):\n    return np.tril(np.ones((8, 8), dtype=bool))[:n, :n]",
    ),
    mistake(
        "causal_mask",
        "a table of the masks for n = 1 to 7",
        "MASKS = {n: np.tril(np.ones((n, n), dtype=bool)) for n in range(1, 8)}\n\n\ndef causal_mask(n):\n    return MASKS[n]",
    ),
]

# Attempts to get past the checks: the library's own function handed to the check under the exercise's name.
MISTAKES += [
    mistake(
        "causal_mask",
        "the library's causal_mask imported under the exercise's name",
        "from transformer_math.attention import causal_mask",
        append=True,
    ),
]

# The library's code run under a finalizer's name: still the library's.
MISTAKES += [
    mistake(
        "attention",
        "the library's attention renamed __del__",
        as_finalizer(
            "_sdpa = _as_finalizer('transformer_math.attention', 'scaled_dot_product_attention')\n"
            "def attention(Q, K, V, mask=None):\n    m = None if mask is None else np.asarray(mask, dtype=bool)\n"
            "    return _sdpa(np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float), m)[0]"
        ),
    ),
    mistake(
        "multi_head_attention",
        "the library's multi-head attention renamed __del__",
        as_finalizer(
            "_mha = _as_finalizer('transformer_math.attention', 'multi_head_attention')\n"
            "def multi_head_attention(X, W_Q, W_K, W_V, W_O, n_heads):\n    X = np.asarray(X, dtype=float)\n"
            "    mask = np.tril(np.ones((X.shape[-2],) * 2, dtype=bool))\n"
            "    return _mha(X, W_Q, W_K, W_V, W_O, n_heads, mask=mask)[0]"
        ),
    ),
]

# A size written into the code: the length drawn for the check is far past it.
MISTAKES += [
    mistake(
        "causal_mask",
        "a mask of 40 cut to n",
        "def causal_mask(n):\n    return np.tril(np.ones((40, 40), dtype=bool))[:n, :n]",
    ),
    mistake(
        "causal_mask",
        "a table of masks up to 64",
        "_MASKS = {k: np.tril(np.ones((k, k), dtype=bool)) for k in range(1, 65)}\n\n\n"
        "def causal_mask(n):\n    return _MASKS[n]",
    ),
]

# A table of the fixed cases, answered by the check's own reference when the cell runs, with no maximum subtracted
# behind it and the mask applied by multiplying the weights: the scores past 700 are drawn anew at every run.
MISTAKES += [
    mistake(
        "attention",
        "a table of the fixed cases, no maximum subtracted behind it",
        behind_a_table(
            "attention",
            "attention",
            "def attention(Q, K, V, mask=None):\n"
            "    hit = _T.get(_key([Q, K, V, mask]))\n"
            "    if hit is not None:\n"
            "        return _np.array(hit)\n"
            "    Q, K, V = (np.asarray(a, dtype=float) for a in (Q, K, V))\n"
            "    W = np.exp(Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1]))\n"
            "    if mask is not None:\n"
            "        W = W * np.asarray(mask, dtype=bool)\n"
            "    return W / W.sum(axis=-1, keepdims=True) @ V\n",
        ),
    ),
]

# The mask as the template leaves it (an array, whatever came): ~mask works on a mask given as a list.
RIGHT += [
    right(
        "attention",
        "the masked scores set with ~mask",
        "def attention(Q, K, V, mask=None):\n"
        "    Q, K, V = np.asarray(Q, dtype=float), np.asarray(K, dtype=float), np.asarray(V, dtype=float)\n"
        "    mask = None if mask is None else np.asarray(mask, dtype=bool)\n"
        "    s = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n"
        "    if mask is not None:\n        s = np.where(~mask, -np.inf, s)\n"
        "    w = np.exp(s - s.max(axis=-1, keepdims=True))\n"
        "    return (w / w.sum(axis=-1, keepdims=True)) @ V",
    )
]
