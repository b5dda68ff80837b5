"""Backward passes: the typical mistakes and other right answers."""

from __future__ import annotations

from tests.build.lab_cases import as_finalizer, behind_a_table, mistake, right
from tests.build.lab_cases.your_own_gpt_measured import MEASURED

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
        "N counted over two leading axes at most",
        CE
        + "    N = Z.shape[0] * Z.shape[1] if Z.ndim > 2 else (Z.shape[0] if Z.ndim == 2 else 1)\n"
        + "    return (softmax(Z) - np.eye(Z.shape[-1])[y]) / N",
    ),
    mistake(
        "ce_backward",
        "divided by the batch, not the positions",
        CE + "    return (softmax(Z) - np.eye(Z.shape[-1])[y]) / len(Z)",
    ),
    mistake("ce_backward", "the sign flipped", CE + "    return (np.eye(Z.shape[-1])[y] - softmax(Z)) / y.size"),
    mistake(
        "ce_backward",
        "a V×V Jacobian of log-softmax for every position: O(N·V²)",
        CE
        + "    e = np.exp(Z - Z.max(axis=-1, keepdims=True))\n    p = e / e.sum(axis=-1, keepdims=True)\n"
        + "    J = np.eye(Z.shape[-1]) - p[..., None, :]  # d log p_i / d z_j, per position\n"
        + "    return -np.take_along_axis(J, y[..., None, None], axis=-2)[..., 0, :] / y.size",
    ),
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
        "a softmax that does not subtract the maximum",
        ATT.replace("    P = softmax(S)\n", "    P = np.exp(S)\n    P /= P.sum(-1, keepdims=True)\n") + DV + DS + QK,
    ),
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

# An outside instructor's attempts, each written without the reference solution in view: the mistakes
# learners make (and routes around the exercise), and other right answers.
MISTAKES += [
    mistake("grad_by_hand", "the probabilities", "grad_by_hand = [0.2, 0.6, 0.2]"),
    mistake("grad_by_hand", "signs flipped", "grad_by_hand = [0.8, -0.6, -0.2]"),
    mistake("grad_by_hand", "1 subtracted at position 1", "grad_by_hand = [0.2, -0.4, 0.2]"),
    mistake("grad_by_hand", "gradient of log softmax only at the target", "grad_by_hand = [-0.8, 0, 0]"),
    mistake("grad_by_hand", "two numbers", "grad_by_hand = [-0.8, 0.6]"),
    mistake(
        "ce_backward",
        "gradient of one position (no /N)",
        "def ce_backward(Z, y):\n    Z, y = np.asarray(Z, dtype=float), np.asarray(y)\n    return softmax(Z) - np.eye(Z.shape[-1])[y]",
    ),
    mistake(
        "ce_backward",
        "divided by the batch (rows of the first axis) only",
        "def ce_backward(Z, y):\n    Z, y = np.asarray(Z, dtype=float), np.asarray(y)\n    return (softmax(Z) - np.eye(Z.shape[-1])[y]) / (Z.shape[0] if Z.ndim > 1 else 1)",
    ),
    mistake(
        "ce_backward",
        "sign flipped",
        "def ce_backward(Z, y):\n    Z, y = np.asarray(Z, dtype=float), np.asarray(y)\n    return (np.eye(Z.shape[-1])[y] - softmax(Z)) / y.size",
    ),
    mistake(
        "ce_backward",
        "divided by Z.size",
        "def ce_backward(Z, y):\n    Z, y = np.asarray(Z, dtype=float), np.asarray(y)\n    return (softmax(Z) - np.eye(Z.shape[-1])[y]) / Z.size",
    ),
    mistake(
        "ce_backward",
        "naive softmax",
        "def ce_backward(Z, y):\n    Z, y = np.asarray(Z, dtype=float), np.asarray(y)\n    with np.errstate(all='ignore'):\n        e = np.exp(Z); p = e / e.sum(-1, keepdims=True)\n    return (p - np.eye(Z.shape[-1])[y]) / y.size",
    ),
    mistake(
        "ce_backward",
        "-1/p at the target (gradient wrt probabilities)",
        "def ce_backward(Z, y):\n    Z, y = np.asarray(Z, dtype=float), np.asarray(y)\n    p = softmax(Z)\n    g = np.zeros_like(p)\n    np.put_along_axis(g, y[..., None], -1 / np.take_along_axis(p, y[..., None], -1), -1)\n    return g / y.size",
    ),
    mistake(
        "ce_backward",
        "the notebook's numerical_gradient",
        "def ce_backward(Z, y):\n    Z, y = np.asarray(Z, dtype=float), np.asarray(y)\n    def loss(Zp):\n        p = softmax(Zp)\n        return -np.mean(np.log(np.take_along_axis(p, y[..., None], -1)))\n    return numerical_gradient(loss, Z)",
    ),
    mistake(
        "ce_backward",
        "own central differences, stable loss",
        "def ce_backward(Z, y):\n    Z, y = np.asarray(Z, dtype=float), np.asarray(y)\n    def loss(Zp):\n        m = Zp.max(-1, keepdims=True)\n        lse = m[..., 0] + np.log(np.exp(Zp - m).sum(-1))\n        return np.mean(lse - np.take_along_axis(Zp, y[..., None], -1)[..., 0])\n    g = np.zeros_like(Z); h = 1e-5\n    for i in np.ndindex(Z.shape):\n        e = np.zeros_like(Z); e[i] = h\n        g[i] = (loss(Z + e) - loss(Z - e)) / (2 * h)\n    return g",
    ),
    mistake(
        "ce_backward",
        "library gradient_check/numerical_gradient",
        "from transformer_math import calculus\ndef ce_backward(Z, y):\n    Z, y = np.asarray(Z, dtype=float), np.asarray(y)\n    return calculus.numerical_gradient(lambda Zp: 0.0, Z)",
    ),
    mistake(
        "ce_backward",
        "library cross_entropy_backward",
        "from transformer_math.model import cross_entropy_backward as cb\ndef ce_backward(Z, y):\n    Z, y = np.asarray(Z, dtype=float), np.asarray(y)\n    return cb(Z, y)",
    ),
    mistake("prediction", "0.0 as a number", "prediction = 0.0"),
    mistake(
        "layer_norm_backward",
        "only the direct term g/s",
        "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n    dy, x = np.asarray(dy, dtype=float), np.asarray(x, dtype=float)\n    mu = x.mean(-1, keepdims=True); s = np.sqrt(x.var(-1, keepdims=True) + eps); xh = (x - mu) / s\n    d = x.shape[-1]\n    g = gamma * dy\n    return g / s, (dy * xh).reshape(-1, d).sum(0), dy.reshape(-1, d).sum(0)",
    ),
    mistake(
        "layer_norm_backward",
        "forgets the xh mean(g xh) term",
        "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n    dy, x = np.asarray(dy, dtype=float), np.asarray(x, dtype=float)\n    mu = x.mean(-1, keepdims=True); s = np.sqrt(x.var(-1, keepdims=True) + eps); xh = (x - mu) / s\n    d = x.shape[-1]\n    g = gamma * dy\n    return (g - g.mean(-1, keepdims=True)) / s, (dy * xh).reshape(-1, d).sum(0), dy.reshape(-1, d).sum(0)",
    ),
    mistake(
        "layer_norm_backward",
        "forgets gamma in dx",
        "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n    dy, x = np.asarray(dy, dtype=float), np.asarray(x, dtype=float)\n    mu = x.mean(-1, keepdims=True); s = np.sqrt(x.var(-1, keepdims=True) + eps); xh = (x - mu) / s\n    d = x.shape[-1]\n    g = dy\n    return (g - g.mean(-1, keepdims=True) - xh * (g * xh).mean(-1, keepdims=True)) / s, (dy * xh).reshape(-1, d).sum(0), dy.reshape(-1, d).sum(0)",
    ),
    mistake(
        "layer_norm_backward",
        "dgamma summed over the first axis only",
        "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n    dy, x = np.asarray(dy, dtype=float), np.asarray(x, dtype=float)\n    mu = x.mean(-1, keepdims=True); s = np.sqrt(x.var(-1, keepdims=True) + eps); xh = (x - mu) / s\n    d = x.shape[-1]\n    g = gamma * dy\n    return (g - g.mean(-1, keepdims=True) - xh * (g * xh).mean(-1, keepdims=True)) / s, (dy * xh).sum(0), dy.sum(0)",
    ),
    mistake(
        "layer_norm_backward",
        "dgamma not summed over tokens",
        "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n    dy, x = np.asarray(dy, dtype=float), np.asarray(x, dtype=float)\n    mu = x.mean(-1, keepdims=True); s = np.sqrt(x.var(-1, keepdims=True) + eps); xh = (x - mu) / s\n    d = x.shape[-1]\n    g = gamma * dy\n    return (g - g.mean(-1, keepdims=True) - xh * (g * xh).mean(-1, keepdims=True)) / s, dy * xh, dy",
    ),
    mistake(
        "layer_norm_backward",
        "dgamma uses x, not x_hat",
        "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n    dy, x = np.asarray(dy, dtype=float), np.asarray(x, dtype=float)\n    mu = x.mean(-1, keepdims=True); s = np.sqrt(x.var(-1, keepdims=True) + eps); xh = (x - mu) / s\n    d = x.shape[-1]\n    g = gamma * dy\n    return (g - g.mean(-1, keepdims=True) - xh * (g * xh).mean(-1, keepdims=True)) / s, (dy * x).reshape(-1, d).sum(0), dy.reshape(-1, d).sum(0)",
    ),
    mistake(
        "layer_norm_backward",
        "eps ignored in s",
        "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n    dy, x = np.asarray(dy, dtype=float), np.asarray(x, dtype=float)\n    mu = x.mean(-1, keepdims=True); s = x.std(-1, keepdims=True); xh = (x - mu) / s\n    d = x.shape[-1]\n    g = gamma * dy\n    return (g - g.mean(-1, keepdims=True) - xh * (g * xh).mean(-1, keepdims=True)) / s, (dy * xh).reshape(-1, d).sum(0), dy.reshape(-1, d).sum(0)",
    ),
    mistake(
        "layer_norm_backward",
        "divides by s twice (s^2)",
        "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n    dy, x = np.asarray(dy, dtype=float), np.asarray(x, dtype=float)\n    mu = x.mean(-1, keepdims=True); s = np.sqrt(x.var(-1, keepdims=True) + eps); xh = (x - mu) / s\n    d = x.shape[-1]\n    g = gamma * dy\n    return (g - g.mean(-1, keepdims=True) - xh * (g * xh).mean(-1, keepdims=True)) / s**2, (dy * xh).reshape(-1, d).sum(0), dy.reshape(-1, d).sum(0)",
    ),
    mistake(
        "layer_norm_backward",
        "the notebook's numerical_gradient for dx",
        "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n    dy, x = np.asarray(dy, dtype=float), np.asarray(x, dtype=float)\n    mu = x.mean(-1, keepdims=True); s = np.sqrt(x.var(-1, keepdims=True) + eps); xh = (x - mu) / s\n    d = x.shape[-1]\n    def f(xp):\n        m = xp.mean(-1, keepdims=True); sp = np.sqrt(xp.var(-1, keepdims=True) + eps)\n        return np.sum(dy * gamma * (xp - m) / sp)\n    return numerical_gradient(f, x), (dy * xh).reshape(-1, d).sum(0), dy.reshape(-1, d).sum(0)",
    ),
    mistake(
        "layer_norm_backward",
        "the library's layer_norm_backward via getattr",
        "import importlib\ndef layer_norm_backward(dy, x, gamma, eps=1e-5):\n    dy, x = np.asarray(dy, dtype=float), np.asarray(x, dtype=float)\n    mod = importlib.import_module('transformer_math.block')\n    return getattr(mod, 'layer_norm_backward')(dy, x, gamma, eps)",
    ),
    mistake(
        "layer_norm_backward",
        "mutates dy (dy *= gamma)",
        "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n    dy, x = np.asarray(dy, dtype=float), np.asarray(x, dtype=float)\n    mu = x.mean(-1, keepdims=True); s = np.sqrt(x.var(-1, keepdims=True) + eps); xh = (x - mu) / s\n    d = x.shape[-1]\n    dbeta = dy.reshape(-1, d).sum(0); dgamma = (dy * xh).reshape(-1, d).sum(0)\n    dy *= gamma\n    return (dy - dy.mean(-1, keepdims=True) - xh * (dy * xh).mean(-1, keepdims=True)) / s, dgamma, dbeta",
    ),
    mistake(
        "attention_backward",
        "forgets the 1/sqrt(d_k)",
        "def attention_backward(dO, Q, K, V, mask):\n    dO, Q, K, V = (np.asarray(a, dtype=float) for a in (dO, Q, K, V))\n    scale = np.sqrt(Q.shape[-1])\n    S = Q @ np.swapaxes(K, -1, -2) / scale\n    if mask is not None:\n        S = np.where(mask, S, -np.inf)\n    P = softmax(S)\n    dV = np.swapaxes(P, -1, -2) @ dO; dP = dO @ np.swapaxes(V, -1, -2)\n    dS = P * (dP - np.sum(P * dP, -1, keepdims=True))\n    return dS @ K, np.swapaxes(dS, -1, -2) @ Q, dV",
    ),
    mistake(
        "attention_backward",
        "softmax backward forgets the row sum",
        "def attention_backward(dO, Q, K, V, mask):\n    dO, Q, K, V = (np.asarray(a, dtype=float) for a in (dO, Q, K, V))\n    scale = np.sqrt(Q.shape[-1])\n    S = Q @ np.swapaxes(K, -1, -2) / scale\n    if mask is not None:\n        S = np.where(mask, S, -np.inf)\n    P = softmax(S)\n    dV = np.swapaxes(P, -1, -2) @ dO; dP = dO @ np.swapaxes(V, -1, -2)\n    dS = P * dP\n    return dS @ K / scale, np.swapaxes(dS, -1, -2) @ Q / scale, dV",
    ),
    mistake(
        "attention_backward",
        "dV = P dO (no transpose) on square cases; dK = dS Q",
        "def attention_backward(dO, Q, K, V, mask):\n    dO, Q, K, V = (np.asarray(a, dtype=float) for a in (dO, Q, K, V))\n    scale = np.sqrt(Q.shape[-1])\n    S = Q @ np.swapaxes(K, -1, -2) / scale\n    if mask is not None:\n        S = np.where(mask, S, -np.inf)\n    P = softmax(S)\n    dV = np.swapaxes(P, -1, -2) @ dO; dP = dO @ np.swapaxes(V, -1, -2)\n    dS = P * (dP - np.sum(P * dP, -1, keepdims=True))\n    return dS @ K / scale, dS @ Q / scale if dS.shape[-1] == dS.shape[-2] else np.swapaxes(dS, -1, -2) @ Q / scale, dV",
    ),
    mistake(
        "attention_backward",
        "ignores the mask",
        "def attention_backward(dO, Q, K, V, mask):\n    dO, Q, K, V = (np.asarray(a, dtype=float) for a in (dO, Q, K, V))\n    scale = np.sqrt(Q.shape[-1])\n    P = softmax(Q @ np.swapaxes(K, -1, -2) / scale)\n    dV = np.swapaxes(P, -1, -2) @ dO; dP = dO @ np.swapaxes(V, -1, -2)\n    dS = P * (dP - np.sum(P * dP, -1, keepdims=True))\n    return dS @ K / scale, np.swapaxes(dS, -1, -2) @ Q / scale, dV",
    ),
    mistake(
        "attention_backward",
        "K.T / Q.T transposes (batches break)",
        "def attention_backward(dO, Q, K, V, mask):\n    dO, Q, K, V = (np.asarray(a, dtype=float) for a in (dO, Q, K, V))\n    scale = np.sqrt(Q.shape[-1])\n    S = Q @ np.swapaxes(K, -1, -2) / scale\n    if mask is not None:\n        S = np.where(mask, S, -np.inf)\n    P = softmax(S)\n    dV = P.T @ dO; dP = dO @ V.T\n    dS = P * (dP - np.sum(P * dP, -1, keepdims=True))\n    return dS @ K / scale, dS.T @ Q / scale, dV",
    ),
    mistake(
        "attention_backward",
        "row sum over the wrong axis",
        "def attention_backward(dO, Q, K, V, mask):\n    dO, Q, K, V = (np.asarray(a, dtype=float) for a in (dO, Q, K, V))\n    scale = np.sqrt(Q.shape[-1])\n    S = Q @ np.swapaxes(K, -1, -2) / scale\n    if mask is not None:\n        S = np.where(mask, S, -np.inf)\n    P = softmax(S)\n    dV = np.swapaxes(P, -1, -2) @ dO; dP = dO @ np.swapaxes(V, -1, -2)\n    dS = P * (dP - np.sum(P * dP, -2, keepdims=True))\n    return dS @ K / scale, np.swapaxes(dS, -1, -2) @ Q / scale, dV",
    ),
    mistake(
        "attention_backward",
        "numerical_gradient of all three",
        "def attention_backward(dO, Q, K, V, mask):\n    dO, Q, K, V = (np.asarray(a, dtype=float) for a in (dO, Q, K, V))\n    def att(Q, K, V):\n        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n        if mask is not None:\n            S = np.where(mask, S, -np.inf)\n        return softmax(S) @ V\n    return (numerical_gradient(lambda q: np.sum(dO * att(q, K, V)), Q), numerical_gradient(lambda k: np.sum(dO * att(Q, k, V)), K), numerical_gradient(lambda v: np.sum(dO * att(Q, K, v)), V))",
    ),
    mistake(
        "attention_backward",
        "own central differences with h = 1e-5",
        "def attention_backward(dO, Q, K, V, mask):\n    dO, Q, K, V = (np.asarray(a, dtype=float) for a in (dO, Q, K, V))\n    def att(Q, K, V):\n        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n        if mask is not None:\n            S = np.where(mask, S, -np.inf)\n        return softmax(S) @ V\n    def ng(f, x, h=1e-5):\n        g = np.zeros_like(x)\n        for i in np.ndindex(x.shape):\n            e = np.zeros_like(x); e[i] = h\n            g[i] = (f(x + e) - f(x - e)) / (2 * h)\n        return g\n    return (ng(lambda q: np.sum(dO * att(q, K, V)), Q), ng(lambda k: np.sum(dO * att(Q, k, V)), K), ng(lambda v: np.sum(dO * att(Q, K, v)), V))",
    ),
    mistake(
        "attention_backward",
        "the check module's reference",
        "from transformer_math.labs.backward_passes import _attention_backward as ref\ndef attention_backward(dO, Q, K, V, mask):\n    return ref(dO, Q, K, V, mask)",
    ),
    mistake(
        "attention_backward",
        "mask applied to dS only (forward unmasked)",
        "def attention_backward(dO, Q, K, V, mask):\n    dO, Q, K, V = (np.asarray(a, dtype=float) for a in (dO, Q, K, V))\n    scale = np.sqrt(Q.shape[-1])\n    P = softmax(Q @ np.swapaxes(K, -1, -2) / scale)\n    dV = np.swapaxes(P, -1, -2) @ dO; dP = dO @ np.swapaxes(V, -1, -2)\n    dS = P * (dP - np.sum(P * dP, -1, keepdims=True))\n    if mask is not None:\n        dS = np.where(mask, dS, 0.0)\n    return dS @ K / scale, np.swapaxes(dS, -1, -2) @ Q / scale, dV",
    ),
]
RIGHT += [
    right("grad_by_hand", "a tuple of fractions", "grad_by_hand = (-4/5, 3/5, 1/5)"),
    right("grad_by_hand", "an array", "grad_by_hand = np.array([-0.8, 0.6, 0.2])"),
    right(
        "ce_backward",
        "one-hot by put_along_axis",
        "def ce_backward(Z, y):\n    Z, y = np.asarray(Z, dtype=float), np.asarray(y)\n    g = softmax(Z)\n    np.put_along_axis(g, y[..., None], np.take_along_axis(g, y[..., None], -1) - 1, axis=-1)\n    return g / y.size",
    ),
    right(
        "ce_backward",
        "flattened rows, fancy index",
        "def ce_backward(Z, y):\n    Z, y = np.asarray(Z, dtype=float), np.asarray(y)\n    V = Z.shape[-1]\n    G = softmax(Z).reshape(-1, V)\n    t = y.reshape(-1)\n    G[np.arange(t.size), t] -= 1\n    return (G / t.size).reshape(Z.shape)",
    ),
    right("prediction", "1/n", 'prediction = "1/n"'),
    right(
        "layer_norm_backward",
        "through mu and var step by step",
        "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n    dy, x = np.asarray(dy, dtype=float), np.asarray(x, dtype=float)\n    mu = x.mean(-1, keepdims=True); xc = x - mu; var = (xc**2).mean(-1, keepdims=True); inv = 1 / np.sqrt(var + eps)\n    xh = xc * inv; d = x.shape[-1]\n    dxh = dy * gamma\n    dvar = np.sum(dxh * xc, -1, keepdims=True) * -0.5 * inv**3\n    dmu = np.sum(-dxh * inv, -1, keepdims=True) + dvar * np.mean(-2 * xc, -1, keepdims=True)\n    dx = dxh * inv + dvar * 2 * xc / d + dmu / d\n    axes = tuple(range(x.ndim - 1))\n    return dx, np.sum(dy * xh, axis=axes), np.sum(dy, axis=axes)",
    ),
    right(
        "attention_backward",
        "einsum throughout",
        "def attention_backward(dO, Q, K, V, mask):\n    dO, Q, K, V = (np.asarray(a, dtype=float) for a in (dO, Q, K, V))\n    scale = np.sqrt(Q.shape[-1])\n    S = Q @ np.swapaxes(K, -1, -2) / scale\n    if mask is not None:\n        S = np.where(mask, S, -np.inf)\n    P = softmax(S)\n    dV = np.einsum('...ij,...ic->...jc', P, dO)\n    dP = np.einsum('...ic,...jc->...ij', dO, V)\n    dS = P * (dP - np.einsum('...ij,...ij->...i', P, dP)[..., None])\n    return np.einsum('...ij,...jc->...ic', dS, K) / scale, np.einsum('...ij,...ic->...jc', dS, Q) / scale, dV",
    ),
    right(
        "attention_backward",
        "the softmax Jacobian per row",
        "def attention_backward(dO, Q, K, V, mask):\n    dO, Q, K, V = (np.asarray(a, dtype=float) for a in (dO, Q, K, V))\n    scale = np.sqrt(Q.shape[-1])\n    S = Q @ np.swapaxes(K, -1, -2) / scale\n    if mask is not None:\n        S = np.where(mask, S, -np.inf)\n    P = softmax(S)\n    dV = np.swapaxes(P, -1, -2) @ dO\n    dP = dO @ np.swapaxes(V, -1, -2)\n    J = P[..., :, None] * np.eye(P.shape[-1]) - P[..., :, None] * P[..., None, :]\n    dS = np.einsum('...ij,...ijk->...ik', dP, J)\n    return dS @ K / scale, np.swapaxes(dS, -1, -2) @ Q / scale, dV",
    ),
]

# Attempts to get past the checks: finite differences for dQ and dK on a loss whose values are centred
# (centring undoes the values-near-1e7 case, not the one with weights near one-hot and values 1e8 apart).
FD_LOSS = (
    "    centred = V - V.mean(axis=-2, keepdims=True)\n\n"
    "    def loss(Q, K):\n"
    "        S = Q @ np.swapaxes(K, -1, -2) / scale\n"
    "        if mask is not None:\n"
    "            S = np.where(mask, S, -np.inf)\n"
    "        return np.sum(dO * (softmax(S) @ centred))\n\n"
    "    def measured(which, h=1e-5):\n"
    "        G = np.zeros_like((Q, K)[which])\n"
    "        for i in np.ndindex(G.shape):\n"
    "            up, down = [Q.copy(), K.copy()], [Q.copy(), K.copy()]\n"
    "            up[which][i] += h\n"
    "            down[which][i] -= h\n"
    "            G[i] = (loss(*up) - loss(*down)) / (2 * h)\n"
    "        return G\n\n"
)
MISTAKES += [
    mistake(
        "attention_backward",
        "dV exact, dQ and dK by finite differences on the loss with the values centred",
        ATT + DV + FD_LOSS + "    return measured(0), measured(1), dV",
    ),
    mistake(
        "attention_backward",
        "dQ exact, dK by finite differences with the values centred (step 1e-3)",
        ATT + DV + DS + FD_LOSS + "    return dS @ K / scale, measured(1, 1e-3), dV",
    ),
    mistake(
        "attention_backward",
        "dK exact, dQ by finite differences with the values centred (step 1e-5)",
        ATT + DV + DS + FD_LOSS + "    return measured(0, 1e-5), np.swapaxes(dS, -1, -2) @ Q / scale, dV",
    ),
]
RIGHT += [
    right(
        "attention_backward",
        "dS as P * dP minus P times the row sums",
        ATT
        + DV
        + "    dP = dO @ np.swapaxes(V, -1, -2)\n    dS = P * dP - P * np.sum(P * dP, axis=-1, keepdims=True)\n"
        + QK,
    ),
]

# Gradients measured by a complex step (no rounding to lose) or in extended precision, refused in every backward
# exercise as in the capstone, whose cases these are.
MISTAKES += [
    variant._replace(append=False)
    for variant in MEASURED
    if variant.check in ("ce_backward", "layer_norm_backward", "attention_backward")
]

# Attempts to get past the checks: a table of answers to the cases the checks' own code would draw, the fixed ones and
# those of the next 30 runs if the case drawn anew were seeded by the run's number. It is drawn from the operating
# system's randomness (pinned, in these tests, to a seed no run number gives).
MISTAKES.append(
    mistake(
        "attention_backward",
        "a table of the answers to every case the checks' generator would draw",
        """from transformer_math.labs.cases import generator

_check = check.checks["attention_backward"]
_TABLE = {}


def _key(*arrays):
    return b"".join(np.ascontiguousarray(np.asarray(a, dtype=float)).tobytes() for a in arrays if a is not None)


for _seed in ["attention_backward"] + [f"attention_backward, run {r}" for r in range(1, 30)]:
    for _case in _check.cases(generator(_seed)):
        _TABLE[_key(*_case.args)] = tuple(np.array(p) for p in _check.reference(*_case.args, **_case.kwargs))


def attention_backward(dO, Q, K, V, mask):
    return _TABLE[_key(dO, Q, K, V, mask)]
""",
    )
)

# Attempts to get past the checks: the library itself, or the checks' own reference, under the exercise's name.
MISTAKES += [
    mistake(
        "ce_backward",
        "the library's function imported under the exercise's name",
        "from transformer_math.model import cross_entropy_backward as ce_backward",
    ),
    mistake(
        "layer_norm_backward",
        "the library's function imported under the exercise's name",
        "from transformer_math.block import layer_norm_backward",
    ),
    mistake(
        "attention_backward",
        "the checks' reference imported under the exercise's name",
        "from transformer_math.labs.backward_passes import _attention_backward as attention_backward",
    ),
    mistake(
        "layer_norm_backward",
        "a wrapper of the library's compiled under a standard-library file name",
        "import functools\n\nimport transformer_math.block as B\n\n"
        'exec(compile("def layer_norm_backward(dy, x, gamma, eps=1e-5):\\n    return B.layer_norm_backward('
        'np.asarray(dy, float), np.asarray(x, float), gamma, eps)\\n", functools.__file__, "exec"), globals())',
    ),
]

# The library's source exec'd into the notebook (its imports of the library too) in place of the learner's code.
ATTENTION_COPIED = """import inspect as _insp, transformer_math.labs.backward_passes as _bp, transformer_math.softmax as _sm
_g3 = {"__name__": "__main__"}
exec(compile(_insp.getsource(_sm), "s.py", "exec"), _g3)
for _k, _v in list(_g3.items()):  # the library's checks it imported: made no-ops
    if callable(_v) and getattr(_v, "__module__", "").startswith("transformer_math") and _k != "softmax" and not isinstance(_v, type):
        _g3[_k] = lambda *a, **k: (a[0] if a else None)
exec(compile(_insp.getsource(_bp._attention_backward), "a.py", "exec"), _g3)
_ab = _g3["_attention_backward"]
def attention_backward(dO, Q, K, V, mask):
    return _ab(dO, Q, K, V, mask)
"""
MISTAKES += [
    mistake(
        "attention_backward",
        "the check's own reference, its source exec'd with softmax's and the input checks made no-ops",
        ATTENTION_COPIED,
    ),
]

# A gradient measured one entry at a time costs a forward pass per entry, however careful and however vectorised:
# refused by the wide case's work budget, as is a d×d Jacobian per token. Honest closed forms, written in any of the
# usual ways, stay far within it.
CE_RICHARDSON = (
    CE + "    s = Z - Z.max(axis=-1, keepdims=True)\n    E, h = np.eye(Z.shape[-1]), 1e-2\n\n"
    "    def lse(k):  # the log-sum-exp of every row, each entry moved by k h, all at once\n"
    "        return np.log(np.exp(s[..., None, :] + k * h * E).sum(axis=-1))\n\n"
    "    dlse = (45 * (lse(1) - lse(-1)) - 9 * (lse(2) - lse(-2)) + (lse(3) - lse(-3))) / (60 * h)\n"
    "    return (dlse - E[y]) / y.size"
)
LN_RICHARDSON = (
    LN + XHAT + "    E, h = np.eye(d), 1e-2 * s[..., None]\n\n"
    "    def normalised(k):  # x_hat of every token, each entry moved by k h, all at once\n"
    "        w = x[..., None, :] + k * h * E\n"
    "        return (w - w.mean(axis=-1, keepdims=True)) / np.sqrt(w.var(axis=-1, keepdims=True) + eps)\n\n"
    "    J = (45 * (normalised(1) - normalised(-1)) - 9 * (normalised(2) - normalised(-2))"
    " + (normalised(3) - normalised(-3))) / (60 * h)\n"
    "    dx = np.einsum('...jr,...r->...j', J, g)\n" + DG + DB + "    return dx, dgamma, dbeta"
)
MISTAKES += [
    mistake(
        "ce_backward", "a 6th-order Richardson difference of the log-sum-exp, vectorised over np.eye", CE_RICHARDSON
    ),
    mistake("layer_norm_backward", "a 6th-order Richardson difference of x_hat, vectorised over np.eye", LN_RICHARDSON),
    mistake(
        "layer_norm_backward",
        "the Jacobian per token (d x d), explicit",
        "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n    dy, x = np.asarray(dy, dtype=float), np.asarray(x, dtype=float)\n    mu = x.mean(-1, keepdims=True); s = np.sqrt(x.var(-1, keepdims=True) + eps); xh = (x - mu) / s\n    d = x.shape[-1]\n    g = gamma * dy\n    J = (np.eye(d) - 1.0 / d - xh[..., :, None] * xh[..., None, :] / d) / s[..., None]\n    dx = np.einsum('...r,...rq->...q', g, J)\n    return dx, (dy * xh).reshape(-1, d).sum(0), dy.reshape(-1, d).sum(0)",
    ),
    mistake(
        "layer_norm_backward",
        "the Jacobian of one token at a time (d x d), in a loop",
        LN
        + XHAT
        + "    X, G, dx = x.reshape(-1, d), g.reshape(-1, d), np.empty(x.size).reshape(-1, d)\n"
        + "    for t in range(len(X)):\n"
        + "        J = (np.eye(d) - 1 / d - np.outer(x_hat.reshape(-1, d)[t], x_hat.reshape(-1, d)[t]) / d) / s.reshape(-1)[t]\n"
        + "        dx[t] = G[t] @ J\n"
        + "    dx = dx.reshape(x.shape)\n"
        + DG
        + DB
        + "    return dx, dgamma, dbeta",
    ),
]
RIGHT += [
    right(
        "ce_backward",
        "a Python loop over the positions",
        CE
        + "    rows, targets = Z.reshape(-1, Z.shape[-1]), y.reshape(-1)\n    G = np.empty_like(rows)\n"
        + "    for t in range(len(targets)):\n"
        + "        e = np.exp(rows[t] - rows[t].max())\n        G[t] = e / e.sum()\n        G[t, targets[t]] -= 1\n"
        + "    return (G / targets.size).reshape(Z.shape)",
    ),
    right(
        "ce_backward",
        "float32 kept as float32",
        "def ce_backward(Z, y):\n    Z, y = np.asarray(Z), np.asarray(y)\n"
        + "    Z = Z if Z.dtype == np.float32 else Z.astype(float)\n"
        + "    return (softmax(Z) - np.eye(Z.shape[-1], dtype=Z.dtype)[y]) / y.size",
    ),
    right(
        "layer_norm_backward",
        "einsum for every sum",
        LN
        + XHAT
        + "    G, H, Y = g.reshape(-1, d), x_hat.reshape(-1, d), dy.reshape(-1, d)\n"
        + "    dx = (G - np.einsum('tr->t', G)[:, None] / d - H * np.einsum('tr,tr->t', G, H)[:, None] / d)\n"
        + "    return (dx / s.reshape(-1, 1)).reshape(x.shape), np.einsum('tr,tr->r', Y, H), np.einsum('tr->r', Y)",
    ),
    right(
        "layer_norm_backward",
        "a Python loop over the tokens",
        LN
        + "    d = x.shape[-1]\n    X, Y = x.reshape(-1, d), dy.reshape(-1, d)\n"
        + "    dx, x_hat = np.empty_like(X), np.empty_like(X)\n"
        + "    for t in range(len(X)):\n"
        + "        s = np.sqrt(X[t].var() + eps)\n        x_hat[t] = (X[t] - X[t].mean()) / s\n"
        + "        g = gamma * Y[t]\n        dx[t] = (g - g.mean() - x_hat[t] * (g * x_hat[t]).mean()) / s\n"
        + "    return dx.reshape(x.shape), (Y * x_hat).sum(axis=0), Y.sum(axis=0)",
    ),
]

# The library's (or the checks' own) code run under a finalizer's name: still the library's.
MISTAKES += [
    mistake(
        "ce_backward",
        "the library's gradient renamed __del__",
        as_finalizer(
            "_ceb = _as_finalizer('transformer_math.model', 'cross_entropy_backward')\n"
            "def ce_backward(Z, y):\n    return _ceb(np.asarray(Z, dtype=float), np.asarray(y))"
        ),
    ),
    mistake(
        "layer_norm_backward",
        "the library's LayerNorm backward renamed __del__",
        as_finalizer(
            "_lnb = _as_finalizer('transformer_math.block', 'layer_norm_backward')\n"
            "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n"
            "    return _lnb(np.asarray(dy, dtype=float), np.asarray(x, dtype=float), np.asarray(gamma), eps)"
        ),
    ),
    mistake(
        "attention_backward",
        "the checks' reference renamed __del__",
        as_finalizer(
            "_ab = _as_finalizer('transformer_math.labs.backward_passes', '_attention_backward')\n"
            "def attention_backward(dO, Q, K, V, mask):\n    return _ab(dO, Q, K, V, mask)"
        ),
    ),
]

# The check's reference copied and edited a little (a line that does nothing, a keyword left out), so that it
# compiles to other bytecode, with what it uses imported: still a copy.
EDITED_REFERENCE = """import inspect, re
from transformer_math.attention import scaled_dot_product_attention
from transformer_math.labs import backward_passes as _bp
_source = inspect.getsource(_bp._attention_backward).replace("_attention_backward", "attention_backward")
exec(re.sub(r'(\\"\\"\\"\\n)', r"\\1    _unused = 0\\n", _source, count=1).replace(", axis=-1)", ")"))
"""
MISTAKES += [
    mistake("attention_backward", "the check's reference copied, with a line that does nothing", EDITED_REFERENCE)
]

# A table of the fixed cases, answered by the check's own reference when the cell runs, with a naive answer behind
# it: the spread of 2000, the large losses, eps's case and the wide cases are drawn anew at every run.
LN_TABLE_HIT = (
    "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n"
    "    hit = _T.get(_key([dy, x, gamma] + ([eps] if eps != 1e-5 else [])))\n"
    "    if hit is not None:\n"
    "        return tuple(_np.array(h) for h in hit)\n"
    "    dy, x, gamma = (np.asarray(a, dtype=float) for a in (dy, x, gamma))\n"
    "    ax = tuple(range(x.ndim - 1))\n"
)
MISTAKES += [
    mistake(
        "ce_backward",
        "a table of the fixed cases, softmax without its shift behind it",
        behind_a_table(
            "backward_passes",
            "ce_backward",
            "def ce_backward(Z, y):\n"
            "    hit = _T.get(_key([Z, y]))\n"
            "    if hit is not None:\n"
            "        return _np.array(hit)\n"
            "    Z, y = np.asarray(Z, dtype=float), np.asarray(y)\n"
            "    e = np.exp(Z)\n"
            "    return (e / e.sum(axis=-1, keepdims=True) - np.eye(Z.shape[-1])[y]) / y.size\n",
        ),
    ),
    mistake(
        "layer_norm_backward",
        "a table of the fixed cases, eps left out behind it",
        behind_a_table(
            "backward_passes",
            "layer_norm_backward",
            LN_TABLE_HIT + "    s = x.std(axis=-1, keepdims=True)\n"
            "    xh, g = (x - x.mean(axis=-1, keepdims=True)) / s, dy * gamma\n"
            "    dx = (g - g.mean(axis=-1, keepdims=True) - xh * (g * xh).mean(axis=-1, keepdims=True)) / s\n"
            "    return dx, (dy * xh).sum(ax), dy.sum(ax)\n",
        ),
    ),
    mistake(
        "layer_norm_backward",
        "a table of the fixed cases, vectorised central differences behind it",
        behind_a_table(
            "backward_passes",
            "layer_norm_backward",
            LN_TABLE_HIT + "    def normed(X):\n"
            "        return (X - X.mean(axis=-1, keepdims=True)) / np.sqrt(X.var(axis=-1, keepdims=True) + eps)\n"
            "    def f(X):\n"
            "        return (dy * gamma * normed(X)).reshape(len(X), -1).sum(axis=1)\n"
            "    E = np.eye(x.size).reshape(x.size, *x.shape) * 1e-4\n"
            "    dx = ((f(x + E) - f(x - E)) / 2e-4).reshape(x.shape)\n"
            "    return dx, (dy * normed(x)).sum(ax), dy.sum(ax)\n",
        ),
    ),
]

# A mask added to the scores, finite: the masked keys keep weight where their scores are far above the allowed ones.
# A score put in their place, however finite, leaves them none.
MISTAKES += [
    mistake(
        "attention_backward",
        "a mask of -1e9 added to the scores",
        ATT.replace("np.where(mask, S, -np.inf)", "S + np.where(mask, 0.0, -1e9)") + DV + DS + QK,
    ),
    mistake(
        "attention_backward",
        "a mask of -30 added to the scores",
        ATT.replace("np.where(mask, S, -np.inf)", "S + np.where(mask, 0.0, -30.0)") + DV + DS + QK,
    ),
]
RIGHT += [
    right(
        "attention_backward",
        "the masked scores replaced by -1e9",
        ATT.replace("np.where(mask, S, -np.inf)", "np.where(mask, S, -1e9)") + DV + DS + QK,
    ),
]

# dgamma and dbeta summed over the first axis of a 2-D input, the first two of a 3-D one: a 4-D input (a batch of
# heads) is summed over every axis but the features.
MISTAKES += [
    mistake(
        "layer_norm_backward",
        "dgamma and dbeta summed over axis 0, or axes (0, 1): up to 3-D only",
        LN
        + XHAT
        + DX
        + "    axes = 0 if x.ndim == 2 else (0, 1)\n"
        + "    return dx, (dy * x_hat).sum(axis=axes), dy.sum(axis=axes)",
    ),
]

# Large logits a few apart: clipping them (to stop e^z overflowing) makes them equal; the row maximum does not.
MISTAKES += [
    mistake(
        "ce_backward",
        f"the logits clipped to {bound} instead of shifted by the row maximum",
        CE
        + f"    e = np.exp(np.clip(Z, -{bound}, {bound}))\n"
        + "    return (e / e.sum(axis=-1, keepdims=True) - np.eye(Z.shape[-1])[y]) / y.size",
    )
    for bound in (80, 700)
]
