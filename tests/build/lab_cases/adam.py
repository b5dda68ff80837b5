"""Adam and AdamW: the typical mistakes and other right answers."""

from __future__ import annotations

from tests.build.lab_cases import mistake, right

M = "def m_after_steps(g, beta1, t):\n    g = np.asarray(g, dtype=float)\n"
ADAM = "def adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))\n"
MV = "    m = beta1 * m + (1 - beta1) * g\n    v = beta2 * v + (1 - beta2) * g**2\n"
HAT = "    m_hat = m / (1 - beta1**t)\n    v_hat = v / (1 - beta2**t)\n"
STEP = "    return theta - lr * m_hat / (np.sqrt(v_hat) + eps), m, v"
W = "def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta = np.asarray(theta, dtype=float)\n"

MISTAKES = [
    mistake("m_after_steps", "g beta^t", M + "    return g * beta1**t"),
    mistake("m_after_steps", "g (1 - beta)^t", M + "    return g * (1 - beta1) ** t"),
    mistake("m_after_steps", "t steps of (1 - beta) g", M + "    return g * (1 - beta1) * t"),
    mistake("m_after_steps", "one step too many", M + "    return g * (1 - beta1 ** (t + 1))"),
    mistake("uncorrected_first_step", "the corrected step", "uncorrected_first_step = 0.1"),
    mistake("uncorrected_first_step", "v without its square root", "uncorrected_first_step = 0.1 * 0.2 / 0.004"),
    mistake("uncorrected_first_step", "without the learning rate", "uncorrected_first_step = 0.2 / np.sqrt(0.004)"),
    mistake("adam_step", "no bias correction", ADAM + MV + "    return theta - lr * m / (np.sqrt(v) + eps), m, v"),
    mistake(
        "adam_step",
        "the correction of step t - 1",
        ADAM
        + MV
        + "    m_hat = m / (1 - beta1 ** max(t - 1, 1))\n    v_hat = v / (1 - beta2 ** max(t - 1, 1))\n"
        + STEP,
    ),
    mistake(
        "adam_step",
        "v from g, not g^2",
        ADAM + "    m = beta1 * m + (1 - beta1) * g\n    v = beta2 * v + (1 - beta2) * np.abs(g)\n" + HAT + STEP,
    ),
    mistake(
        "adam_step",
        "eps inside the square root",
        ADAM + MV + HAT + "    return theta - lr * m_hat / np.sqrt(v_hat + eps), m, v",
    ),
    mistake(
        "adam_step",
        "the corrected m returned as the state",
        ADAM + MV + HAT + "    return theta - lr * m_hat / (np.sqrt(v_hat) + eps), m_hat, v_hat",
    ),
    mistake(
        "adam_step",
        "the caller's arrays changed in place",
        "def adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):\n    g = np.asarray(g, dtype=float)\n    m *= beta1\n    m += (1 - beta1) * g\n    v *= beta2\n    v += (1 - beta2) * g**2\n"
        + HAT
        + STEP,
    ),
    mistake(
        "adam_step",
        "the library's Adam",
        "from transformer_math.optim import Adam\n\n\n"
        + ADAM
        + "    theta, m, v = theta.copy(), m.copy(), v.copy()\n    opt = Adam([theta], lr=lr, betas=(beta1, beta2), eps=eps)\n    opt.m, opt.v, opt.t = [m], [v], t - 1\n    opt.step([g])\n    return theta, m, v",
    ),
    mistake(
        "adamw_step",
        "the decay through the gradient (Adam + L2)",
        W + "    return adam_step(theta, np.asarray(g) + weight_decay * theta, m, v, t, lr, beta1, beta2, eps)",
    ),
    mistake(
        "adamw_step",
        "the decay without the learning rate",
        W + "    return adam_step(theta - weight_decay * theta, g, m, v, t, lr, beta1, beta2, eps)",
    ),
    mistake(
        "adamw_step",
        "the decay after the step",
        W
        + "    theta, m, v = adam_step(theta, g, m, v, t, lr, beta1, beta2, eps)\n    return theta - lr * weight_decay * theta, m, v",
    ),
    mistake("adamw_step", "no decay", W + "    return adam_step(theta, g, m, v, t, lr, beta1, beta2, eps)"),
    mistake(
        "adamw_step",
        "the library's AdamW",
        "import importlib\n\n\n"
        + W
        + "    theta = theta.copy()\n    m, v = np.array(m, dtype=float), np.array(v, dtype=float)\n    opt = importlib.import_module('transformer_math.optim').AdamW([theta], lr=lr, betas=(beta1, beta2), eps=eps, weight_decay=weight_decay)\n    opt.m, opt.v, opt.t = [m], [v], t - 1\n    opt.step([np.asarray(g, dtype=float)])\n    return theta, m, v",
    ),
    mistake("prediction", "a word not offered", 'prediction = "sgd"'),
]

RIGHT = [
    right(
        "m_after_steps",
        "the loop itself",
        M + "    m = np.zeros_like(g)\n    for _ in range(t):\n        m = beta1 * m + (1 - beta1) * g\n    return m",
    ),
    right(
        "uncorrected_first_step", "the general formula", "uncorrected_first_step = 0.1 * (1 - 0.9) / np.sqrt(1 - 0.999)"
    ),
    right(
        "adam_step",
        "the correction folded into the learning rate",
        ADAM
        + MV
        + "    step = lr * np.sqrt(1 - beta2**t) / (1 - beta1**t)\n    return theta - step * m / (np.sqrt(v) + eps * np.sqrt(1 - beta2**t)), m, v",
    ),
    right(
        "adamw_step",
        "the decay as a factor",
        W + "    return adam_step(theta * (1 - lr * weight_decay), g, m, v, t, lr, beta1, beta2, eps)",
    ),
    right("prediction", "the other answer", 'prediction = "adamw"'),
]
