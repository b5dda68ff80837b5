"""Adam and AdamW: the typical mistakes and other right answers."""

from __future__ import annotations

from tests.build.lab_cases import behind_a_table, mistake, right

M = "def m_after_steps(g, beta1, t):\n    g = np.asarray(g, dtype=float)\n"
ADAM = "def adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))\n"
MV = "    m = beta1 * m + (1 - beta1) * g\n    v = beta2 * v + (1 - beta2) * g**2\n"
HAT = "    m_hat = m / (1 - beta1**t)\n    v_hat = v / (1 - beta2**t)\n"
STEP = "    return theta - lr * m_hat / (np.sqrt(v_hat) + eps), m, v"
U = "def unbias(m, beta, t):\n    m = np.asarray(m, dtype=float)\n"
W = "def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta = np.asarray(theta, dtype=float)\n"

MISTAKES = [
    mistake("m_after_steps", "g beta^t", M + "    return g * beta1**t"),
    mistake("m_after_steps", "g (1 - beta)^t", M + "    return g * (1 - beta1) ** t"),
    mistake("m_after_steps", "t steps of (1 - beta) g", M + "    return g * (1 - beta1) * t"),
    mistake("m_after_steps", "one step too many", M + "    return g * (1 - beta1 ** (t + 1))"),
    mistake("unbias", "divides by 1 - beta, the first step's factor", U + "    return m / (1 - beta)"),
    mistake("unbias", "multiplies by the factor instead of dividing", U + "    return m * (1 - beta**t)"),
    mistake(
        "unbias", "the factor of step t - 1 (infinite at the first step)", U + "    return m / (1 - beta ** (t - 1))"
    ),
    mistake("unbias", "the factor of step t + 1", U + "    return m / (1 - beta ** (t + 1))"),
    mistake("unbias", "divides by beta^t", U + "    return m / beta**t"),
    mistake("unbias", "beta hard-coded to 0.9", U + "    return m / (1 - 0.9**t)"),
    mistake(
        "unbias",
        "in place on the caller's array",
        "def unbias(m, beta, t):\n    m = np.asarray(m)\n    m /= 1 - beta**t\n    return m",
    ),
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
    mistake(
        "m_after_steps",
        "the geometric sum, vectorised: a sum over the steps, not a closed form",
        M + "    return (1 - beta1) * g * np.sum(beta1 ** np.arange(t))",
    ),
]

RIGHT = [
    right("unbias", "the factor as a geometric sum", U + "    return m / ((1 - beta) * np.sum(beta ** np.arange(t)))"),
    right("unbias", "np.power and a reciprocal", U + "    return m * np.reciprocal(1.0 - np.power(beta, t))"),
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

# An outside instructor's attempts, each written without the reference solution in view: the mistakes
# learners make (and routes around the exercise), and other right answers.
MISTAKES += [
    mistake(
        "m_after_steps",
        "a loop (the exercise asks for the closed form)",
        "def m_after_steps(g, beta1, t):\n    g = np.asarray(g, dtype=float)\n    m = np.zeros_like(g)\n    for _ in range(t):\n        m = beta1 * m + (1 - beta1) * g\n    return m",
    ),
    mistake(
        "m_after_steps",
        "a generator expression summing the series",
        "def m_after_steps(g, beta1, t):\n    g = np.asarray(g, dtype=float)\n    return (1 - beta1) * g * sum(beta1**k for k in range(t))",
    ),
    mistake(
        "m_after_steps",
        "g * beta1**t",
        "def m_after_steps(g, beta1, t):\n    return np.asarray(g, dtype=float) * beta1**t",
    ),
    mistake(
        "m_after_steps",
        "(1 - beta1) g t (linear)",
        "def m_after_steps(g, beta1, t):\n    return np.asarray(g, dtype=float) * (1 - beta1) * t",
    ),
    mistake(
        "m_after_steps",
        "one step too many: 1 - beta1^(t+1)",
        "def m_after_steps(g, beta1, t):\n    return np.asarray(g, dtype=float) * (1 - beta1 ** (t + 1))",
    ),
    mistake(
        "m_after_steps",
        "bias-corrected (returns g)",
        "def m_after_steps(g, beta1, t):\n    return np.asarray(g, dtype=float) * 1.0",
    ),
    mistake(
        "m_after_steps",
        "library Adam run t times",
        "from transformer_math.optim import Adam\ndef m_after_steps(g, beta1, t):\n    g = np.asarray(g, dtype=float)\n    th = np.zeros_like(g); o = Adam([th], betas=(beta1, 0.999))\n    for _ in range(t):\n        o.step([g])\n    return o.m[0]",
    ),
    mistake("uncorrected_first_step", "the corrected step", "uncorrected_first_step = 0.1"),
    mistake("uncorrected_first_step", "m / v", "uncorrected_first_step = 0.1 * 0.2 / 0.004"),
    mistake("uncorrected_first_step", "without lr", "uncorrected_first_step = 0.2 / np.sqrt(0.004)"),
    mistake(
        "uncorrected_first_step",
        "(1-beta1)/(1-beta2) confusion: m=0.02",
        "uncorrected_first_step = 0.1 * 0.02 / np.sqrt(0.004)",
    ),
    mistake(
        "uncorrected_first_step", "v = (1-beta2) g, not g^2", "uncorrected_first_step = 0.1 * 0.2 / np.sqrt(0.002)"
    ),
    mistake(
        "adam_step",
        "no bias correction",
        "def adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))\n    m = beta1 * m + (1 - beta1) * g\n    v = beta2 * v + (1 - beta2) * g**2\n    return theta - lr * m / (np.sqrt(v) + eps), m, v",
    ),
    mistake(
        "adam_step",
        "eps inside the sqrt",
        "def adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))\n    m = beta1 * m + (1 - beta1) * g\n    v = beta2 * v + (1 - beta2) * g**2\n    return theta - lr * (m / (1 - beta1**t)) / np.sqrt(v / (1 - beta2**t) + eps), m, v",
    ),
    mistake(
        "adam_step",
        "bias correction with t - 1",
        "def adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))\n    m = beta1 * m + (1 - beta1) * g\n    v = beta2 * v + (1 - beta2) * g**2\n    with np.errstate(all='ignore'):\n        return theta - lr * (m / (1 - beta1**(t-1))) / (np.sqrt(v / (1 - beta2**(t-1))) + eps), m, v",
    ),
    mistake(
        "adam_step",
        "returns the corrected m and v",
        "def adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))\n    m = beta1 * m + (1 - beta1) * g\n    v = beta2 * v + (1 - beta2) * g**2\n    mh, vh = m / (1 - beta1**t), v / (1 - beta2**t)\n    return theta - lr * mh / (np.sqrt(vh) + eps), mh, vh",
    ),
    mistake(
        "adam_step",
        "v from g, not g^2",
        "def adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))\n    m = beta1 * m + (1 - beta1) * g\n    v = beta2 * v + (1 - beta2) * np.abs(g)\n    return theta - lr * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps), m, v",
    ),
    mistake(
        "adam_step",
        "in place: m *= beta1 (changes the caller's m)",
        "def adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))\n    m *= beta1; m += (1 - beta1) * g\n    v *= beta2; v += (1 - beta2) * g**2\n    return theta - lr * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps), m, v",
    ),
    mistake(
        "adam_step",
        "ignores beta arguments (0.9, 0.999 hard-coded)",
        "def adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))\n    m = 0.9 * m + 0.1 * g\n    v = 0.999 * v + 0.001 * g**2\n    return theta - lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + eps), m, v",
    ),
    mistake(
        "adam_step",
        "theta += (uphill)",
        "def adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))\n    m = beta1 * m + (1 - beta1) * g\n    v = beta2 * v + (1 - beta2) * g**2\n    return theta + lr * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps), m, v",
    ),
    mistake(
        "adam_step",
        "updates m and v after the step uses the old ones",
        "def adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))\n    step = lr * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps)\n    return theta - step, beta1 * m + (1 - beta1) * g, beta2 * v + (1 - beta2) * g**2",
    ),
    mistake(
        "adam_step",
        "the library's Adam",
        "from transformer_math import optim\ndef adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))\n    th = theta.copy(); o = optim.Adam([th], lr=lr, betas=(beta1, beta2), eps=eps); o.m, o.v, o.t = [m.copy()], [v.copy()], t - 1\n    o.step([g]); return th, o.m[0], o.v[0]",
    ),
    mistake(
        "adamw_step",
        "L2 in the gradient (Adam + L2)",
        "def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta = np.asarray(theta, dtype=float)\n    return adam_step(theta, np.asarray(g) + weight_decay * theta, m, v, t, lr, beta1, beta2, eps)",
    ),
    mistake(
        "adamw_step",
        "decay without lr",
        "def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta = np.asarray(theta, dtype=float)\n    return adam_step(theta - weight_decay * theta, g, m, v, t, lr, beta1, beta2, eps)",
    ),
    mistake(
        "adamw_step",
        "decay applied to the new theta",
        "def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta = np.asarray(theta, dtype=float)\n    th, m2, v2 = adam_step(theta, g, m, v, t, lr, beta1, beta2, eps)\n    return th - lr * weight_decay * th, m2, v2",
    ),
    mistake(
        "adamw_step",
        "ignores weight_decay (0.01 hard-coded)",
        "def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta = np.asarray(theta, dtype=float)\n    return adam_step(theta - lr * 0.01 * theta, g, m, v, t, lr, beta1, beta2, eps)",
    ),
    mistake(
        "adamw_step",
        "forgets to pass beta1/beta2/eps",
        "def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta = np.asarray(theta, dtype=float)\n    return adam_step(theta - lr * weight_decay * theta, g, m, v, t, lr)",
    ),
    mistake(
        "adamw_step",
        "decay with the sign flipped",
        "def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta = np.asarray(theta, dtype=float)\n    return adam_step(theta + lr * weight_decay * theta, g, m, v, t, lr, beta1, beta2, eps)",
    ),
    mistake(
        "adamw_step",
        "decay by weight_decay * lr**2",
        "def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta = np.asarray(theta, dtype=float)\n    return adam_step(theta - lr * lr * weight_decay * theta, g, m, v, t, lr, beta1, beta2, eps)",
    ),
    mistake(
        "adamw_step",
        "in place decay on the caller's theta",
        "def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta = np.asarray(theta, dtype=float)\n    theta -= lr * weight_decay * theta\n    return adam_step(theta, g, m, v, t, lr, beta1, beta2, eps)",
    ),
    mistake(
        "adamw_step",
        "library AdamW",
        "from transformer_math.optim import AdamW\ndef adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta = np.asarray(theta, dtype=float)\n    th = theta.copy(); o = AdamW([th], lr=lr, betas=(beta1, beta2), eps=eps, weight_decay=weight_decay)\n    o.m, o.v, o.t = [np.array(m, float)], [np.array(v, float)], t - 1\n    o.step([np.asarray(g, float)]); return th, o.m[0], o.v[0]",
    ),
    mistake("prediction", "both", 'prediction = "both"'),
]
RIGHT += [
    right(
        "m_after_steps",
        "the geometric series summed in closed form",
        "def m_after_steps(g, beta1, t):\n    g = np.asarray(g, dtype=float)\n    return (1 - beta1) * g * (1 - beta1**t) / (1 - beta1) if beta1 != 1 else 0 * g",
    ),
    right(
        "m_after_steps",
        "g - g * beta1**t",
        "def m_after_steps(g, beta1, t):\n    g = np.asarray(g, dtype=float)\n    return g - g * np.power(beta1, t)",
    ),
    right("uncorrected_first_step", "computed", "uncorrected_first_step = 0.1 * (0.1 * 2) / np.sqrt(0.001 * 4)"),
    right(
        "adam_step",
        "step size alpha_t folded into lr (Kingma-Ba's efficient form, eps adjusted)",
        "def adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))\n    m = beta1 * m + (1 - beta1) * g\n    v = beta2 * v + (1 - beta2) * g * g\n    mh = m / (1 - beta1 ** t); vh = v / (1 - beta2 ** t)\n    return theta - lr * mh / (np.sqrt(vh) + eps), m, v",
    ),
    right(
        "adam_step",
        "new arrays with np.add / np.multiply",
        "def adam_step(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))\n    m = np.add(np.multiply(beta1, m), np.multiply(1 - beta1, g))\n    v = np.add(np.multiply(beta2, v), np.multiply(1 - beta2, np.square(g)))\n    step = lr * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps)\n    return np.subtract(theta, step), m, v",
    ),
    right(
        "adamw_step",
        "written out, decay applied after Adam's update to the old theta",
        "def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))\n    m = beta1 * m + (1 - beta1) * g\n    v = beta2 * v + (1 - beta2) * g**2\n    step = lr * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps)\n    return theta - step - lr * weight_decay * theta, m, v",
    ),
    right(
        "adamw_step",
        "keyword arguments to adam_step",
        "def adamw_step(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):\n    theta = np.asarray(theta, dtype=float)\n    return adam_step(theta * (1 - lr * weight_decay), g, m, v, t, lr=lr, beta1=beta1, beta2=beta2, eps=eps)",
    ),
    right("prediction", "adamw", 'prediction = "adamw"'),
]

# A prediction written with capitals and spaces, which check accepts, is judged as what it says after the run.
RIGHT.append(
    right(
        "prediction",
        "capitals and spaces, judged after the run as check read it",
        'prediction = " Adam + L2"',
        prints="You predicted ' Adam + L2': it held.",
    )
)

# Attempts to get past the checks: adam_step wrapped with beta2 and eps left behind; a sum over the steps cut short.
MISTAKES += [
    mistake(
        "adamw_step",
        "adam_step wrapped, beta2 and eps not passed on",
        W + "    return adam_step(theta - lr * weight_decay * theta, g, m, v, t, lr, beta1)",
    ),
    mistake(
        "m_after_steps",
        "the geometric sum over at most 10**6 steps",
        M + "    return (1 - beta1) * g * np.sum(beta1 ** np.arange(min(t, 10**6)))",
    ),
]

# Kingma & Ba's Algorithm 1 with the corrections folded into the learning rate (epsilon-hat): not this exercise's
# step, and the failure names the form.
MISTAKES += [
    mistake(
        "adam_step",
        "Kingma & Ba's epsilon-hat form",
        ADAM + MV + "    return theta - lr * np.sqrt(1 - beta2**t) / (1 - beta1**t) * m / (np.sqrt(v) + eps), m, v",
    ),
    mistake(
        "adamw_step",
        "the decay right, the Adam step in Kingma & Ba's epsilon-hat form",
        W
        + "    g, m, v = (np.asarray(a, dtype=float) for a in (g, m, v))\n"
        + MV
        + "    alpha_t = lr * np.sqrt(1 - beta2**t) / (1 - beta1**t)\n"
        + "    return theta - alpha_t * m / (np.sqrt(v) + eps) - lr * weight_decay * theta, m, v",
    ),
]

# A table of the fixed cases, answered by the check's own reference when the cell runs, with a sum over the steps
# behind it: the long runs of steps are drawn anew at every run.
MISTAKES += [
    mistake(
        "m_after_steps",
        "a table of the fixed cases, a sum over the steps behind it",
        behind_a_table(
            "adam",
            "m_after_steps",
            "def m_after_steps(g, beta1, t):\n"
            "    hit = _T.get(_key([g, beta1, t]))\n"
            "    if hit is not None:\n"
            "        return _np.array(hit)\n"
            "    return (1 - beta1) * np.asarray(g, dtype=float) * np.sum(beta1 ** np.arange(t))\n",
        ),
    ),
]
