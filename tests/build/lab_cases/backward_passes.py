"""Backward passes: the typical mistakes and other right answers."""

from __future__ import annotations

from tests.build.lab_cases import mistake, right

CE = "def ce_backward(Z, y):\n    Z, y = np.asarray(Z, dtype=float), np.asarray(y)\n"
LN = "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n    dy, x = np.asarray(dy, dtype=float), np.asarray(x, dtype=float)\n"
XHAT = "    s = np.sqrt(x.var(axis=-1, keepdims=True) + eps)\n    x_hat = (x - x.mean(axis=-1, keepdims=True)) / s\n    g = gamma * dy\n    d = x.shape[-1]\n"
DX = "    dx = (g - g.mean(axis=-1, keepdims=True) - x_hat * (g * x_hat).mean(axis=-1, keepdims=True)) / s\n"
DG = "    dgamma = (dy * x_hat).reshape(-1, d).sum(axis=0)\n"
DB = "    dbeta = dy.reshape(-1, d).sum(axis=0)\n"
ATT = (
    "def attention_backward(dO, Q, K, V, mask):\n    dO, Q, K, V = (np.asarray(a, dtype=float) for a in (dO, Q, K, V))\n"
    "    scale = np.sqrt(Q.shape[-1])\n    S = Q @ np.swapaxes(K, -1, -2) / scale\n"
    "    if mask is not None:\n        S = np.where(mask, S, -np.inf)\n    P = softmax(S)\n"
)
DV = "    dV = np.swapaxes(P, -1, -2) @ dO\n"
DS = "    dP = dO @ np.swapaxes(V, -1, -2)\n    dS = P * (dP - np.sum(P * dP, axis=-1, keepdims=True))\n"
QK = "    return dS @ K / scale, np.swapaxes(dS, -1, -2) @ Q / scale, dV"

MISTAKES = [
    mistake("grad_by_hand", "the probabilities alone", "grad_by_hand = [0.2, 0.6, 0.2]"),
    mistake("grad_by_hand", "the signs flipped", "grad_by_hand = [0.8, -0.6, -0.2]"),
    mistake("grad_by_hand", "the 1 at the wrong token", "grad_by_hand = [0.2, -0.4, 0.2]"),
    mistake("grad_by_hand", "two numbers", "grad_by_hand = [-0.8, 0.6]"),
    mistake("ce_backward", "no 1/N", CE + "    return softmax(Z) - np.eye(Z.shape[-1])[y]"),
    mistake("ce_backward", "divided by V", CE + "    return (softmax(Z) - np.eye(Z.shape[-1])[y]) / Z.shape[-1]"),
    mistake(
        "ce_backward",
        "divided by the batch, not the positions",
        CE + "    return (softmax(Z) - np.eye(Z.shape[-1])[y]) / len(Z)",
    ),
    mistake("ce_backward", "the sign flipped", CE + "    return (np.eye(Z.shape[-1])[y] - softmax(Z)) / y.size"),
    mistake(
        "ce_backward",
        "a softmax without the shift",
        CE + "    e = np.exp(Z)\n    return (e / e.sum(axis=-1, keepdims=True) - np.eye(Z.shape[-1])[y]) / y.size",
    ),
    mistake(
        "ce_backward",
        "the library's numerical gradient",
        "from transformer_math.calculus import numerical_gradient as ng\n\n\n"
        + CE
        + "    return ng(lambda z: float(-np.mean(np.log(np.take_along_axis(softmax(z), y[..., None], axis=-1)))), Z)",
    ),
    mistake(
        "ce_backward",
        "the library's cross_entropy_backward",
        "import transformer_math.model as tm\n\n\n" + CE + "    return tm.cross_entropy_backward(Z, y)",
    ),
    mistake("prediction", "a number", "prediction = 0"),
    mistake(
        "layer_norm_backward",
        "dgamma as a mean",
        LN
        + XHAT
        + DX
        + "    dgamma = (dy * x_hat).reshape(-1, d).mean(axis=0)\n"
        + DB
        + "    return dx, dgamma, dbeta",
    ),
    mistake("layer_norm_backward", "dbeta = dy", LN + XHAT + DX + DG + "    return dx, dgamma, dy"),
    mistake(
        "layer_norm_backward",
        "dx without the x_hat term",
        LN + XHAT + "    dx = (g - g.mean(axis=-1, keepdims=True)) / s\n" + DG + DB + "    return dx, dgamma, dbeta",
    ),
    mistake(
        "layer_norm_backward",
        "dx without gamma",
        LN + XHAT + "    g = dy\n" + DX + DG + DB + "    return dx, dgamma, dbeta",
    ),
    mistake(
        "layer_norm_backward",
        "dx divided by the spread without eps",
        LN + XHAT + "    s = np.sqrt(x.var(axis=-1, keepdims=True))\n" + DX + DG + DB + "    return dx, dgamma, dbeta",
    ),
    mistake(
        "layer_norm_backward",
        "the gains summed over the features",
        LN
        + XHAT
        + DX
        + "    dgamma = (dy * x_hat).sum(axis=-1)\n    dbeta = dy.sum(axis=-1)\n    return dx, dgamma, dbeta",
    ),
    mistake(
        "layer_norm_backward",
        "the gains summed over axis 0 only",
        LN + XHAT + DX + "    return dx, (dy * x_hat).sum(axis=0), dy.sum(axis=0)",
    ),
    mistake(
        "layer_norm_backward",
        "the library's",
        "from transformer_math.block import layer_norm_backward as lnb\n\n\n"
        + LN
        + "    return lnb(dy, x, gamma, eps)",
    ),
    mistake("attention_backward", "P dO instead of P^T dO", ATT + "    dV = P @ dO\n" + DS + QK),
    mistake(
        "attention_backward",
        "the softmax rule without its row sum",
        ATT + DV + "    dS = P * (dO @ np.swapaxes(V, -1, -2))\n" + QK,
    ),
    mistake(
        "attention_backward", "no 1/sqrt(d_k)", ATT + DV + DS + "    return dS @ K, np.swapaxes(dS, -1, -2) @ Q, dV"
    ),
    mistake("attention_backward", "dS Q for dK", ATT + DV + DS + "    return dS @ K / scale, dS @ Q / scale, dV"),
    mistake(
        "attention_backward",
        "the mask ignored",
        ATT.replace("    if mask is not None:\n        S = np.where(mask, S, -np.inf)\n", "") + DV + DS + QK,
    ),
    mistake(
        "attention_backward",
        "a causal mask whatever mask says",
        ATT.replace("np.where(mask, S, -np.inf)", "np.where(np.tril(np.ones(S.shape[-2:], dtype=bool)), S, -np.inf)")
        + DV
        + DS
        + QK,
    ),
    mistake("attention_backward", ".T on a batch", ATT + "    dV = P.T @ dO\n" + DS + QK),
    mistake(
        "attention_backward",
        "numerical gradients of the library",
        "from transformer_math import calculus\n\n\n"
        + ATT
        + "    def out(Q_):\n        s = Q_ @ np.swapaxes(K, -1, -2) / scale\n        return float(np.sum(dO * (softmax(np.where(mask, s, -np.inf) if mask is not None else s) @ V)))\n\n    return calculus.numerical_gradient(out, Q), None, None",
    ),
]

RIGHT = [
    right("grad_by_hand", "fractions", "grad_by_hand = (-4 / 5, 3 / 5, 1 / 5)"),
    right(
        "ce_backward",
        "take_along_axis and a copy",
        CE
        + "    g = softmax(Z)\n    np.put_along_axis(g, y[..., None], np.take_along_axis(g, y[..., None], axis=-1) - 1, axis=-1)\n    return g / y.size",
    ),
    right("prediction", "another answer", 'prediction = "1/n"'),
    right(
        "layer_norm_backward",
        "the three terms apart, sums over all leading axes",
        LN
        + XHAT
        + "    term1 = g\n    term2 = g.sum(axis=-1, keepdims=True) / d\n    term3 = x_hat * (g * x_hat).sum(axis=-1, keepdims=True) / d\n    axes = tuple(range(x.ndim - 1))\n    return (term1 - term2 - term3) / s, (dy * x_hat).sum(axis=axes), dy.sum(axis=axes)",
    ),
    right(
        "attention_backward",
        "einsum",
        ATT
        + "    dV = np.einsum('...ij,...ic->...jc', P, dO)\n    dP = np.einsum('...ic,...jc->...ij', dO, V)\n    dS = P * (dP - (P * dP).sum(-1, keepdims=True))\n    return np.einsum('...ij,...jc->...ic', dS, K) / scale, np.einsum('...ij,...ic->...jc', dS, Q) / scale, dV",
    ),
]
