"""Your own GPT: gradients measured instead of derived, each refused by its own backward check.

A complex step (``f(x + ih).imag / h``, with h = 1e-30) measures a derivative with no difference of nearly equal
numbers, so the large losses that stop finite differences do not stop it (central differences in np.longdouble
miss the tolerance by little, at their best step). The checks refuse complex and extended-precision numbers in
the learner's code, and
``block_backward`` and ``gpt_backward`` run within a budget of Python steps that a loop over every parameter entry
of their widest case exceeds, whatever it computes there, and within a work budget on that case that a measurement
vectorised over perturbed copies exceeds. ``train`` must take its gradients from the learner's ``gpt_backward``.
"""

from __future__ import annotations

from tests.build.lab_cases import mistake

# A forward pass that runs on complex numbers: the variance as the mean of c * c (np.var takes |c|^2), the
# ReLU by the real part, the causal mask by a large negative score.
COMPLEX_FORWARD = 'def _cln(x, g, b, eps=1e-5):\n    c = x - x.mean(-1, keepdims=True)\n    return g * c / np.sqrt((c * c).mean(-1, keepdims=True) + eps) + b\n\n\ndef _cblock(x, p, n_heads):\n    n = x.shape[-2]\n    mask = np.tril(np.ones((n, n), dtype=bool))\n    a = _cln(x, p["ln1_g"], p["ln1_b"])\n    q, k, v = (split_heads(a @ p[nm], n_heads) for nm in ("W_Q", "W_K", "W_V"))\n    S = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])\n    S = np.where(mask, S, -1e300)\n    S = S - S.real.max(-1, keepdims=True)\n    E = np.exp(S)\n    x = x + merge_heads((E / E.sum(-1, keepdims=True)) @ v) @ p["W_O"]\n    u = _cln(x, p["ln2_g"], p["ln2_b"]) @ p["W_1"] + p["b_1"]\n    return x + np.where(u.real > 0, u, 0) @ p["W_2"] + p["b_2"]\n'

MEASURED = [
    mistake(
        "ce_backward",
        "a complex step for each logit",
        "def ce_backward(logits, targets):\n    z, t = np.asarray(logits, dtype=float), np.asarray(targets)\n\n    def loss(zc):\n        s = zc - zc.real.max(axis=-1, keepdims=True)\n        lse = np.log(np.exp(s).sum(axis=-1))\n        return np.mean(lse - np.take_along_axis(s, t[..., None], axis=-1)[..., 0])\n\n    g = np.zeros(z.shape)\n    for i in np.ndindex(z.shape):\n        zc = z.astype(complex)\n        zc[i] += 1e-30j\n        g[i] = loss(zc).imag / 1e-30\n    return g\n",
        append=True,
    ),
    mistake(
        "layer_norm_backward",
        "a complex step for each entry of x",
        "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n    dy, x = np.asarray(dy, float), np.asarray(x, float)\n    gamma = np.asarray(gamma, float)\n\n    def ln(xx):\n        mu = xx.mean(-1, keepdims=True)\n        c = xx - mu\n        return gamma * c / np.sqrt((c * c).mean(-1, keepdims=True) + eps)\n\n    dx = np.zeros_like(x)\n    for i in np.ndindex(x.shape):\n        xc = x.astype(complex)\n        xc[i] += 1e-30j\n        dx[i] = np.sum(dy * ln(xc)).imag / 1e-30\n    d = x.shape[-1]\n    xh = ln(x) / gamma\n    return dx, (dy * xh).reshape(-1, d).sum(0), dy.reshape(-1, d).sum(0)\n",
    ),
    mistake(
        "layer_norm_backward",
        "a complex step for every entry at once, no loop",
        "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n    dy, x = np.asarray(dy, float), np.asarray(x, float)\n    gamma = np.asarray(gamma, float)\n    d = x.shape[-1]\n    E = np.eye(x.size).reshape(x.size, *x.shape)  # one perturbed copy of x per entry, all at once\n    c = x + 1e-30j * E - (x + 1e-30j * E).mean(-1, keepdims=True)\n    y = gamma * c / np.sqrt((c * c).mean(-1, keepdims=True) + eps)\n    dx = (dy * y).reshape(x.size, -1).sum(-1).imag.reshape(x.shape) / 1e-30\n    xh = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps)\n    return dx, (dy * xh).reshape(-1, d).sum(0), dy.reshape(-1, d).sum(0)\n",
    ),
    mistake(
        "layer_norm_backward",
        "central differences in extended precision, every entry at once",
        "def layer_norm_backward(dy, x, gamma, eps=1e-5):\n    dy, x, gamma = (np.asarray(a, dtype=np.longdouble) for a in (dy, x, gamma))\n    d, h = x.shape[-1], np.longdouble(1e-6)\n    E = np.eye(x.size, dtype=np.longdouble).reshape(x.size, *x.shape)\n\n    def loss(xx):\n        c = xx - xx.mean(-1, keepdims=True)\n        return (dy * gamma * c / np.sqrt((c * c).mean(-1, keepdims=True) + eps)).reshape(x.size, -1).sum(-1)\n\n    dx = ((loss(x + h * E) - loss(x - h * E)) / (2 * h)).reshape(x.shape)\n    xh = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps)\n    return tuple(np.asarray(a, dtype=float) for a in (dx, (dy * xh).reshape(-1, d).sum(0), dy.reshape(-1, d).sum(0)))\n",
    ),
    mistake(
        "attention_backward",
        "a complex step for each entry of Q, K and V",
        "def attention_backward(dO, Q, K, V, mask):\n    dO, Q, K, V = (np.asarray(a, dtype=float) for a in (dO, Q, K, V))\n\n    def att(Q, K, V):\n        S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])\n        if mask is not None:\n            S = np.where(mask, S, -1e300)\n        S = S - S.real.max(-1, keepdims=True)\n        E = np.exp(S)\n        return (E / E.sum(-1, keepdims=True)) @ V\n\n    out = []\n    for idx, A in enumerate((Q, K, V)):\n        G = np.zeros_like(A)\n        for i in np.ndindex(A.shape):\n            args = [Q.astype(complex), K.astype(complex), V.astype(complex)]\n            args[idx] = args[idx].copy()\n            args[idx][i] += 1e-30j\n            G[i] = np.sum(dO * att(*args)).imag / 1e-30\n        out.append(G)\n    return tuple(out)\n",
    ),
    mistake(
        "block_backward",
        "a complex step for each entry of x and of the twelve arrays",
        COMPLEX_FORWARD
        + "\n\n"
        + 'def block_backward(dx2, p, cache, n_heads):\n    x = np.asarray(cache["x"], dtype=float)\n    grads = {}\n    for name in ["x", *p]:\n        arr = x if name == "x" else p[name]\n        G = np.zeros(arr.shape)\n        for i in np.ndindex(arr.shape):\n            a = arr.astype(complex)\n            a[i] += 1e-30j\n            pc = dict(p)\n            if name != "x":\n                pc[name] = a\n            G[i] = np.sum(dx2 * _cblock(a if name == "x" else x, pc, n_heads)).imag / 1e-30\n        grads[name] = G\n    return grads.pop("x"), grads\n',
    ),
    mistake(
        "gpt_backward",
        "a complex step for each parameter entry",
        COMPLEX_FORWARD
        + "\n\n"
        + 'def _cforward(params, tokens, n_heads):\n    n = tokens.shape[-1]\n    x = params["W_E"][tokens] + params["W_P"][:n]\n    for layer in range(n_blocks(params)):\n        x = _cblock(x, block_params(params, layer), n_heads)\n    return _cln(x, params["lnf_g"], params["lnf_b"]) @ params["W_U"]\n\n\ndef gpt_backward(params, cache, dlogits):\n    tokens, h = np.asarray(cache["tokens"]), cache["n_heads"]\n    grads = {}\n    for name, arr in params.items():\n        G = np.zeros(arr.shape)\n        for i in np.ndindex(arr.shape):\n            pc = dict(params)\n            a = arr.astype(complex)\n            a[i] += 1e-30j\n            pc[name] = a\n            G[i] = np.sum(dlogits * _cforward(pc, tokens, h)).imag / 1e-30\n        grads[name] = G\n    return grads\n',
    ),
    mistake(
        "gpt_backward",
        "a loop over every parameter entry (the shape of any measured gradient, exact or not)",
        "_derived_gpt_backward = gpt_backward\n\n\ndef gpt_backward(params, cache, dlogits):\n    grads = {}\n    for name, G in _derived_gpt_backward(params, cache, dlogits).items():\n        one_by_one = np.zeros(G.shape)\n        for i in np.ndindex(G.shape):\n            one_by_one[i] = G[i]\n        grads[name] = one_by_one\n    return grads\n",
        append=True,
    ),
]

# Central differences in 60-digit decimals, the Decimals held on plain objects (a namespace, lists on it), never in
# a local variable: the arithmetic of a Decimal calls no function a hook could see.
DECIMAL_SETUP = """from decimal import Decimal as D, getcontext
import types

getcontext().prec = 60
getcontext().Emax = 999999999999  # exp(1e10) must not overflow
getcontext().Emin = -999999999999
"""

MEASURED += [
    mistake(
        "ce_backward",
        "central differences in 60-digit decimals, held on an object",
        DECIMAL_SETUP
        + """

def _lse(row, k, sign):
    box = types.SimpleNamespace(s=D(0), h=D(sign) * D("1e-25"))
    for j, v in enumerate(row):
        box.s += (D(float(v)) + (box.h if j == k else D(0))).exp()
    box.r = box.s.ln()
    return box


def ce_backward(logits, targets):
    Z, y = np.asarray(logits, dtype=float), np.asarray(targets)
    Zf, yf = Z.reshape(-1, Z.shape[-1]), y.reshape(-1)
    G = np.zeros_like(Zf)
    for i in range(len(yf)):
        for k in range(Zf.shape[1]):
            up, dn = _lse(Zf[i], k, 1), _lse(Zf[i], k, -1)
            G[i, k] = float((up.r - dn.r) / (2 * up.h)) - (1.0 if k == yf[i] else 0.0)
    return (G / len(yf)).reshape(Z.shape)
""",
        append=True,
    ),
    mistake(
        "layer_norm_backward",
        "central differences in 60-digit decimals, held on an object",
        DECIMAL_SETUP
        + """

def _row_loss(xrow, dyrow, grow, k, sign, eps):
    b = types.SimpleNamespace(h=D(sign) * D("1e-30"), s=D(0), q=D(0), L=D(0), e=D(repr(float(eps))))
    b.x = []
    for j in range(len(xrow)):
        b.x.append(D(repr(float(xrow[j]))) + (b.h if j == k else D(0)))
    for j in range(len(b.x)):
        b.s += b.x[j]
    b.mu = b.s / len(b.x)
    for j in range(len(b.x)):
        b.q += (b.x[j] - b.mu) ** 2
    b.sd = (b.q / len(b.x) + b.e).sqrt()
    for j in range(len(b.x)):
        b.L += D(repr(float(dyrow[j]))) * D(repr(float(grow[j]))) * (b.x[j] - b.mu) / b.sd
    return b


def layer_norm_backward(dy, x, gamma, eps=1e-5):
    dy, x = np.asarray(dy, dtype=float), np.asarray(x, dtype=float)
    d = x.shape[-1]
    X, DY, g = x.reshape(-1, d), dy.reshape(-1, d), np.asarray(gamma, dtype=float)
    DX = np.zeros_like(X)
    for i in range(len(X)):
        for k in range(d):
            up, dn = _row_loss(X[i], DY[i], g, k, 1, eps), _row_loss(X[i], DY[i], g, k, -1, eps)
            DX[i, k] = float((up.L - dn.L) / (2 * up.h))
    xh = (X - X.mean(-1, keepdims=True)) / np.sqrt(X.var(-1, keepdims=True) + eps)
    return DX.reshape(x.shape), (DY * xh).sum(0), DY.sum(0)
""",
    ),
    mistake(
        "attention_backward",
        "central differences in 60-digit decimals for Q and K, held on an object",
        DECIMAL_SETUP
        + """

def _attention_loss(dO, Q, K, V, mask, which, at, sign):
    b = types.SimpleNamespace(h=D(sign) * D("1e-30"), L=D(0), M=[[], []])
    for a in range(2):
        for row in (Q, K)[a]:
            b.M[a].append([])
            for v in row:
                b.M[a][-1].append(D(repr(float(v))))
    b.M[which][at[0]][at[1]] += b.h
    b.scale = D(Q.shape[-1]).sqrt()
    for i in range(Q.shape[0]):
        b.s, b.e, b.z, b.top = [], [], D(0), None
        for j in range(K.shape[0]):
            b.s.append(D(0))
            for c in range(Q.shape[1]):
                b.s[j] += b.M[0][i][c] * b.M[1][j][c]
            b.s[j] /= b.scale
            if (mask is None or mask[i][j]) and (b.top is None or b.s[j] > b.top):
                b.top = b.s[j]
        for j in range(K.shape[0]):
            b.e.append((b.s[j] - b.top).exp() if mask is None or mask[i][j] else D(0))
            b.z += b.e[j]
        for j in range(K.shape[0]):
            for c in range(V.shape[1]):
                b.L += D(repr(float(dO[i][c]))) * b.e[j] / b.z * D(repr(float(V[j][c])))
    return b


def attention_backward(dO, Q, K, V, mask):
    dO, Q, K, V = (np.asarray(a, dtype=float) for a in (dO, Q, K, V))
    m = None if mask is None else np.asarray(mask, dtype=bool)
    dQ, dK = np.zeros_like(Q), np.zeros_like(K)
    for lead in np.ndindex(Q.shape[:-2]):
        for which, G in ((0, dQ), (1, dK)):
            for at in np.ndindex(G.shape[-2:]):
                up = _attention_loss(dO[lead], Q[lead], K[lead], V[lead], m, which, at, 1)
                dn = _attention_loss(dO[lead], Q[lead], K[lead], V[lead], m, which, at, -1)
                G[lead + at] = float((up.L - dn.L) / (2 * up.h))
    S = Q @ np.swapaxes(K, -1, -2) / np.sqrt(Q.shape[-1])
    if m is not None:
        S = np.where(m, S, -np.inf)
    return dQ, dK, np.swapaxes(softmax(S), -1, -2) @ dO
""",
    ),
]

# Attempts to get past the checks: finite differences of the log-sum-exp alone, in max-shifted coordinates (O(1),
# so no large loss stops them: refused by a tolerance of 1e-12 + 1e-10 of the value, which the closed form meets
# by far), and of LayerNorm's loss in fixed point held as Python integers of 300 bits (refused as extra precision,
# and by a budget of Python steps).
MEASURED += [
    mistake(
        "ce_backward",
        "finite differences of the shifted log-sum-exp, minus the one-hot",
        "def ce_backward(logits, targets):\n    Z, y = np.asarray(logits, dtype=float), np.asarray(targets)\n    Zs = Z - Z.max(-1, keepdims=True)\n\n    def lse(A):\n        return np.log(np.exp(A).sum(-1))\n\n    g, h = np.zeros_like(Z), 1e-6\n    for j in range(Z.shape[-1]):\n        e = np.zeros(Z.shape[-1])\n        e[j] = h\n        g[..., j] = (lse(Zs + e) - lse(Zs - e)) / (2 * h)\n    return (g - (np.arange(Z.shape[-1]) == y[..., None])) / y.size\n",
        append=True,
    ),
    mistake(
        "layer_norm_backward",
        "finite differences in fixed point held as Python integers",
        "from math import isqrt\n\n\ndef layer_norm_backward(dy, x, gamma, eps=1e-5):\n    dy, x, gamma = (np.asarray(a, dtype=float) for a in (dy, x, gamma))\n    P, d = 300, x.shape[-1]\n\n    def fix(v):\n        n, q = float(v).as_integer_ratio()\n        return (n << P) // q\n\n    def loss(xs, dys, G):\n        mu = sum(xs) // d\n        c = [xi - mu for xi in xs]\n        s = isqrt((sum(ci * ci >> P for ci in c) // d + fix(eps)) << P)\n        return sum((dyi * gi >> P) * ((ci << P) // s) >> P for dyi, gi, ci in zip(dys, G, c))\n\n    G, H = [fix(g) for g in gamma], 1 << (P - 100)\n    dx, dg = np.zeros_like(x), np.zeros(d)\n    for idx in np.ndindex(x.shape[:-1]):\n        xs, dys = [fix(v) for v in x[idx]], [fix(v) for v in dy[idx]]\n        for j in range(d):\n            up, dn = xs.copy(), xs.copy()\n            up[j] += H\n            dn[j] -= H\n            dx[idx + (j,)] = (loss(up, dys, G) - loss(dn, dys, G)) / (2 * H)\n            gu, gd = G.copy(), G.copy()\n            gu[j] += H\n            gd[j] -= H\n            dg[j] += (loss(xs, dys, gu) - loss(xs, dys, gd)) / (2 * H)\n    return dx, dg, dy.reshape(-1, d).sum(0)\n",
    ),
]

# A gradient measured by 4-point central differences of the block's two branches, F(x) = x2 - x, broadcast over a
# leading axis of perturbed copies, in chunks large enough that few Python steps run, x centred per row first:
# LayerNorm cannot see a row's shift, so the tokens near 1e6 do not reach the differences, and the residual adds
# the shift back exactly. It meets the tolerance on the small cases; on the widest it needs a forward pass for
# each of 132,000 entries, refused by the work budget (a minute of CPU where the closed form takes a millisecond).
# The block's measurement perturbs one array at a time; the model's all of a block's arrays together (fewer
# chunks: two blocks of one array at a time exceed the budget of Python steps).
BRANCHES = """
def _branches(x, p, n_heads):
    n = x.shape[-2]
    mask = np.tril(np.ones((n, n), dtype=bool))

    def vec(a):  # (B, d) against x of shape (B, ..., n, d)
        return a.reshape(a.shape[0], *([1] * (x.ndim - 2)), a.shape[-1])

    def mat(name):
        return p[name].reshape(p[name].shape[0], *([1] * (x.ndim - 3)), *p[name].shape[1:])

    a = layer_norm(x, vec(p["ln1_g"]), vec(p["ln1_b"]))
    q, k, v = (split_heads(a @ mat(name), n_heads) for name in ("W_Q", "W_K", "W_V"))
    attn = merge_heads(attention(q, k, v, mask)) @ mat("W_O")
    c = layer_norm(x + attn, vec(p["ln2_g"]), vec(p["ln2_b"]))
    return attn + np.maximum(c @ mat("W_1") + vec(p["b_1"]), 0) @ mat("W_2") + vec(p["b_2"])


def _four_point(f, h=1e-4):
    return (8 * (f(h) - f(-h)) - (f(2 * h) - f(-2 * h))) / (12 * h)
"""

ONE_ARRAY_AT_A_TIME = """
def block_backward(dx2, p, cache, n_heads, chunk=2048):
    x = cache["x"] - cache["x"].mean(-1, keepdims=True)

    def measure(name):
        base = x if name == "x" else p[name]
        out = np.empty(base.size)
        for start in range(0, base.size, chunk):
            idx = np.arange(start, min(start + chunk, base.size))
            E = np.zeros((idx.size, base.size))
            E[np.arange(idx.size), idx] = 1.0
            E = E.reshape(idx.size, *base.shape)

            def f(step):
                P = {key: value[None] for key, value in p.items()}
                if name != "x":
                    P[name] = p[name][None] + step * E
                y = _branches(x[None] + step * E if name == "x" else x[None], P, n_heads)
                return (y * dx2).reshape(idx.size, -1).sum(1)

            out[idx] = _four_point(f)
        return out.reshape(base.shape)

    return dx2 + measure("x"), {name: measure(name) for name in BLOCK_NAMES}
"""

ALL_ARRAYS_TOGETHER = """
def _measured_block_backward(dx2, p, cache, n_heads, chunk=1024):
    x = cache["x"] - cache["x"].mean(-1, keepdims=True)
    names = [*BLOCK_NAMES, "x"]
    base = {**p, "x": x}
    starts = np.cumsum([0] + [base[name].size for name in names])
    out = np.empty(starts[-1])
    for start in range(0, starts[-1], chunk):
        idx = np.arange(start, min(start + chunk, starts[-1]))
        E = {}
        for j, name in enumerate(names):
            e = np.zeros((idx.size, base[name].size))
            inside = (idx >= starts[j]) & (idx < starts[j + 1])
            e[np.nonzero(inside)[0], idx[inside] - starts[j]] = 1.0
            E[name] = e.reshape(idx.size, *base[name].shape)

        def f(step):
            P = {name: p[name][None] + step * E[name] for name in BLOCK_NAMES}
            return (_branches(x[None] + step * E["x"], P, n_heads) * dx2).reshape(idx.size, -1).sum(1)

        out[idx] = _four_point(f, h=1e-5)
    grads = {name: out[starts[j] : starts[j + 1]].reshape(base[name].shape) for j, name in enumerate(names)}
    return dx2 + grads.pop("x"), grads


def gpt_backward(params, cache, dlogits):
    grads = {"W_U": weight_grad(cache["z"], dlogits)}
    dx, grads["lnf_g"], grads["lnf_b"] = layer_norm_backward(dlogits @ params["W_U"].T, cache["x"], params["lnf_g"])
    for layer in reversed(range(n_blocks(params))):
        p = block_params(params, layer)
        dx, block_grads = _measured_block_backward(dx, p, cache["blocks"][layer], cache["n_heads"])
        grads |= {prefix(layer) + name: value for name, value in block_grads.items()}
    tokens, d = cache["tokens"], dx.shape[-1]
    grads["W_E"] = np.zeros_like(params["W_E"])
    np.add.at(grads["W_E"], tokens.reshape(-1), dx.reshape(-1, d))
    grads["W_P"] = np.zeros_like(params["W_P"])
    grads["W_P"][: tokens.shape[-1]] = dx.reshape(-1, tokens.shape[-1], d).sum(axis=0)
    return grads
"""

MEASURED += [
    mistake(
        "block_backward",
        "4-point differences of the branches, x centred per row, vectorised over perturbed copies",
        BRANCHES + ONE_ARRAY_AT_A_TIME,
    ),
    mistake(
        "gpt_backward",
        "derived around the blocks, each block's gradients measured by 4-point differences, all arrays together",
        BRANCHES + ALL_ARRAYS_TOGETHER,
    ),
    mistake(
        "train",
        "no backward pass: central differences of the loss, one entry at a time, then adamw_step",
        """def train(params, batches, n_heads, lr=3e-3, weight_decay=0.1):
    m = {k: np.zeros_like(a) for k, a in params.items()}
    v = {k: np.zeros_like(a) for k, a in params.items()}
    losses = []
    for t, (x, y) in enumerate(batches, start=1):
        losses.append(cross_entropy(gpt_forward(params, x, n_heads)[0], y))
        grads = {}
        for name, val in params.items():
            g = np.zeros_like(val)
            for idx in np.ndindex(*val.shape):
                old, h = val[idx], 1e-5
                val[idx] = old + h
                up = cross_entropy(gpt_forward(params, x, n_heads)[0], y)
                val[idx] = old - h
                down = cross_entropy(gpt_forward(params, x, n_heads)[0], y)
                val[idx] = old
                g[idx] = (up - down) / (2 * h)
            grads[name] = g
        for name in params:
            decay = weight_decay if params[name].ndim >= 2 else 0.0
            params[name][...], m[name], v[name] = adamw_step(params[name], grads[name], m[name], v[name], t, lr, decay)
    return losses
""",
    ),
]
