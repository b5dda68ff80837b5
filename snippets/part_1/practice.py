"""What docs/part-1/practice.md includes: its longer example, shown on the page and run by the page's test."""

from __future__ import annotations


def one_head() -> None:
    """The page's example: one causal attention head on a three-token sentence, from token ids to the head's
    output, every step an operation of Part I. It prints what the page shows; the page's block is this body."""
    # --8<-- [start:one-head]
    import numpy as np

    rng = np.random.default_rng(0)
    vocabulary = ["the", "cat", "sat", "on", "mat"]
    vocab_size, d_model, d_k = len(vocabulary), 4, 2
    W_E = rng.normal(size=(vocab_size, d_model)).round(1)  # embedding table
    W_Q, W_K, W_V = (rng.normal(size=(d_model, d_k)).round(1) for _ in range(3))

    # 1. Token ids to vectors.
    ids = [0, 1, 2]  # "the cat sat"
    one_hot = np.eye(vocab_size)[ids]  # (n, V)
    X = one_hot @ W_E  # (n, V) @ (V, d_model) -> (n, d_model)
    print("X = one_hot @ W_E:", X.shape, " same as the lookup W_E[ids]:", np.array_equal(X, W_E[ids]))

    # 2. Projections: one matrix product each.
    Q, K, V = X @ W_Q, X @ W_K, X @ W_V  # (n, d_k) each
    print("Q, K, V:", Q.shape, K.shape, V.shape)

    # 3. Scores: every query dotted with every key, scaled.
    S = Q @ K.T / np.sqrt(d_k)  # (n, d_k) @ (d_k, n) -> (n, n)
    print("S[2, 0] == Q[2] @ K[0] / sqrt(d_k):", np.isclose(S[2, 0], Q[2] @ K[0] / np.sqrt(d_k)))
    print("S symmetric:", np.allclose(S, S.T))
    print("W_Q W_K^T:", (W_Q @ W_K.T).shape, " rank:", np.linalg.matrix_rank(W_Q @ W_K.T), "<= d_k =", d_k)

    # 4. Causal mask: token i sees tokens 0..i.
    mask = np.tril(np.ones((3, 3), dtype=bool))
    S = np.where(mask, S, -np.inf)

    # 5. Softmax along each row.
    exp_S = np.exp(S)  # scores this small are safe; Part II subtracts each row's max first
    P = exp_S / exp_S.sum(axis=1, keepdims=True)  # (n, n), rows sum to 1
    print("attention weights P:")
    print(np.round(P, 3))

    # 6. Output: each row a mix of the value rows.
    out = P @ V  # (n, n) @ (n, d_k) -> (n, d_k)
    mix = P[2, 0] * V[0] + P[2, 1] * V[1] + P[2, 2] * V[2]
    print("output:", out.shape, " out[2] == sum of P[2, j] V[j]:", np.allclose(out[2], mix))
    print("out[0] == V[0], the first token's own value:", np.allclose(out[0], V[0]))
    # --8<-- [end:one-head]
