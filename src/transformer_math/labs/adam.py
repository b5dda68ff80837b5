r"""The checks of the lab "Adam and AdamW" (``docs/labs/adam.py``).

* ``m_after_steps`` -- the running average $m$ after $t$ steps of one constant gradient, in closed form: the
  learner's code may run at most 200 Python steps a case, and one case has $t$ in the thousands, so a loop does
  not pass; one has $t$ near $10^{12}$, so neither does a sum over an array of the steps, and one
  $\beta_1 \approx 1 - 10^{-9}$ with $t \approx 10^{10}$, where a sum cut short at a length that fits in memory
  misses $m \approx g(1 - e^{-t(1 - \beta_1)})$. These three are drawn anew at every run.
* ``unbias`` -- the bias correction, derived from that closed form: $m / (1 - \beta^t)$, for betas from 0 to
  0.999 and steps from 1 to 5000.
* ``adam_step`` -- one step of Adam from any state: steps 1, 2, 10 and 1000, gradients from $10^{-4}$ to
  $10^{3}$, other learning rates, betas and epsilons, scalars, vectors and matrices, lists and float32; Kingma &
  Ba's $\hat\epsilon$ form (the corrections folded into the learning rate) is named as such.
* ``uncorrected_first_step`` -- Adam's first step without bias correction, by hand (a hash).
* ``adamw_step`` -- one step of AdamW, with gradients that are not 0 and weight decays from 0 to 0.5, entries
  whose gradients are 10^6 apart in scale, and other betas and epsilons (a wrapper of ``adam_step`` that drops
  them fails); a decay added to the gradient (Adam with an L2 term) is named as such, and so is an Adam step
  in the $\hat\epsilon$ form, which ``adam_step`` is the place to mend.
* ``prediction`` -- which of Adam with an L2 term and AdamW shrinks an unused weight more.

The references are the library's ``Adam`` and ``AdamW``,
started from the case's state; the learner's code may not call them.

Example
-------
>>> from transformer_math.labs.adam import check
>>> check("m_after_steps", lambda g, beta1, t: g * beta1**t)
Wrong: m_after_steps - case 1 of 10: g = 2, beta1 = 0.9, t = 1
  it differs from the right value by more than the tolerance (1e-09 + 1e-09 of the value)
"""

from __future__ import annotations

import numpy as np

from transformer_math.labs.answers import Choice
from transformer_math.labs.cases import Case
from transformer_math.labs.diagnose import compare_parts
from transformer_math.labs.hand import HandNumber
from transformer_math.labs.runner import Checks, FunctionCheck
from transformer_math.optim import Adam, AdamW

__all__ = ["check"]

OWN = ("transformer_math.optim.",)
CLOSED_FORM_STEPS = 200  # Python steps a case: a closed form takes a few dozen, a loop to t = 1000 thousands


def m_cases(rng: np.random.Generator) -> list[Case]:
    # The steps a loop or a sum over the steps cannot take, drawn anew at every run.
    many = int(rng.integers(1000, 5000))
    huge = int(rng.integers(10**11, 10**13))
    near_one = float(10 ** -rng.uniform(8.5, 9.5))  # 1 - beta1, with t (1 - beta1) from 5 to 20: m near g
    long = int(rng.uniform(5, 20) / near_one)
    return [
        Case((2.0, 0.9, 1)),
        Case((2.0, 0.9, 5)),
        Case((-0.5, 0.5, 3)),
        Case((rng.normal(size=4), 0.99, 30), about="a vector"),
        Case((1.5, 0.0, 4), about="beta1 = 0: no memory"),
        Case((np.round(rng.normal(size=(2, 2)) * 2, 1), 0.9, many), about="t in the thousands", fresh=True),
        Case((3.0, 0.95, 12)),
        Case(
            (round(float(rng.uniform(0.1, 3)), 2), 0.9, huge),
            about="t near 10**12: a closed form does not grow with t, a sum over the steps does",
            fresh=True,
        ),
        Case(
            (round(float(rng.uniform(0.5, 3)), 2), 1 - near_one, long),
            about="beta1 = 1 - 1e-9 or so, t of 1e10 or so: m is near g, which a sum cut short misses",
            fresh=True,
        ),
    ]


def unbias_cases(rng: np.random.Generator) -> list[Case]:
    return [
        Case((0.2, 0.9, 1), about="the first step"),
        Case((rng.normal(size=3), 0.9, 10)),
        Case((rng.normal(size=(2, 3)) * 1e-3, 0.999, 5000), about="beta 0.999, step 5000"),
        Case((np.array([1.5, -0.5]), 0.0, 3), about="beta = 0: no memory"),
        Case((rng.normal(size=4).tolist(), 0.5, 2), about="a list"),
        Case((rng.normal(size=2).astype(np.float32), 0.99, 7), about="float32", tol=1e-6),
    ]


def state(rng: np.random.Generator, shape, scale=1.0, t=1):
    """theta, g, m, v, t: a state Adam could be in at step t (m and v from earlier gradients of this scale)."""
    theta, g = rng.normal(size=shape), rng.normal(size=shape) * scale
    if t == 1:
        return theta, g, np.zeros(shape), np.zeros(shape), t
    m = rng.normal(size=shape) * scale * 0.5
    return theta, g, m, (m**2 + np.abs(rng.normal(size=shape)) * scale**2) * 0.5, t


def adam_cases(rng: np.random.Generator) -> list[Case]:
    theta, g, m, v, t = state(rng, (3,), t=1)
    return [
        Case((theta, g, m, v, t), about="the first step"),
        Case(state(rng, (3,), t=2), about="step 2"),
        Case(state(rng, (2, 3), scale=1e3, t=10), about="gradients near 1000, step 10"),
        Case(state(rng, (4,), scale=1e-4, t=1000), about="gradients near 1e-4, step 1000"),
        Case(state(rng, (2,), t=3), {"lr": 0.01, "beta1": 0.8, "beta2": 0.99, "eps": 1e-3}, about="other settings"),
        Case(tuple(a.tolist() if isinstance(a, np.ndarray) else a for a in state(rng, (3,), t=4)), about="lists"),
        Case(tuple(a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in state(rng, (4,), t=5)), tol=1e-5),
        Case((np.array([1.0, -2.0]), np.array([0.5, -100.0]), np.zeros(2), np.zeros(2), 1), about="scales 200 apart"),
    ]


def reference_adam(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):
    """The library's Adam, from this state: theta, m and v after one step."""
    theta, g, m, v = (np.array(a, dtype=float) for a in (theta, g, m, v))
    optimizer = Adam([theta], lr=lr, betas=(beta1, beta2), eps=eps)
    optimizer.m, optimizer.v, optimizer.t = [m], [v], t - 1
    optimizer.step([g])
    return theta, m, v


def adamw_cases(rng: np.random.Generator) -> list[Case]:
    return [
        Case(state(rng, (3,), t=1), {"weight_decay": 0.5}, about="the first step, weight decay 0.5"),
        Case(state(rng, (2, 2), t=4), {"weight_decay": 0.01}),
        Case(state(rng, (3,), t=7), {"lr": 0.3, "weight_decay": 0.2}),
        Case(state(rng, (3,), t=2), {"weight_decay": 0.0}, about="no decay: Adam itself"),
        Case(state(rng, (2,), scale=50.0, t=20), {"weight_decay": 0.1, "beta1": 0.5}, about="other settings"),
        Case(tuple(a.tolist() if isinstance(a, np.ndarray) else a for a in state(rng, (3,), t=3)), about="lists"),
        Case(
            (np.array([2.0, 2.0]), np.array([1e3, 1e-3]), np.zeros(2), np.zeros(2), 1),
            {"weight_decay": 0.5},
            about="two weights alike, their gradients 10^6 apart in scale",
        ),
        Case(
            state(rng, (3,), scale=0.01, t=6),
            {"weight_decay": 0.1, "beta2": 0.99, "eps": 1e-3},
            about="beta2 = 0.99, eps = 1e-3: both reach the step",
        ),
    ]


def reference_adamw(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):
    theta, g, m, v = (np.array(a, dtype=float) for a in (theta, g, m, v))
    optimizer = AdamW([theta], lr=lr, betas=(beta1, beta2), eps=eps, weight_decay=weight_decay)
    optimizer.m, optimizer.v, optimizer.t = [m], [v], t - 1
    optimizer.step([g])
    return theta, m, v


def adam_with_l2(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):
    """Adam with the decay added to the gradient, the mistake AdamW corrects."""
    theta, g = np.array(theta, dtype=float), np.asarray(g, dtype=float)
    return reference_adam(theta, g + weight_decay * theta, m, v, t, lr, beta1, beta2, eps)


def adam_eps_hat(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):
    """Kingma & Ba's step with the corrections folded into the learning rate, where epsilon is added to sqrt(v)
    before the correction (their epsilon-hat): a slightly different step from PyTorch's and the exercise's."""
    theta, g, m, v = (np.array(a, dtype=float) for a in (theta, g, m, v))
    m, v = beta1 * m + (1 - beta1) * g, beta2 * v + (1 - beta2) * g * g
    return theta - lr * np.sqrt(1 - beta2**t) / (1 - beta1**t) * m / (np.sqrt(v) + eps), m, v


def adam_eps_inside(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):
    """The step with epsilon inside the square root, sqrt(v_hat + eps): a different step where v_hat is small."""
    theta, g, m, v = (np.array(a, dtype=float) for a in (theta, g, m, v))
    m, v = beta1 * m + (1 - beta1) * g, beta2 * v + (1 - beta2) * g * g
    return theta - lr * (m / (1 - beta1**t)) / np.sqrt(v / (1 - beta2**t) + eps), m, v


def adamw_eps_hat(theta, g, m, v, t, lr=0.1, weight_decay=0.01, beta1=0.9, beta2=0.999, eps=1e-8):
    """AdamW whose Adam step is ``adam_eps_hat``: the decay right, the step in the epsilon-hat form."""
    theta = np.array(theta, dtype=float)
    stepped, m, v = adam_eps_hat(theta, g, m, v, t, lr, beta1, beta2, eps)
    return stepped - lr * weight_decay * theta, m, v


EPS_HAT = (
    "that is the step of Kingma & Ba's Algorithm 1 with the corrections folded into the learning rate, where"
    " epsilon is added to sqrt(v) before v's correction: add epsilon to sqrt(v_hat), after the correction, as"
    " PyTorch does"
)


EPS_INSIDE = "epsilon is inside the square root, sqrt(v_hat + eps): add it to sqrt(v_hat), after the root"


def compare_adam(got, expected, tol):
    """Adam's comparison, which names Kingma & Ba's epsilon-hat form, or epsilon inside the square root, when
    that is what the result is."""
    lines = compare_parts(got, expected[0], ("theta", "m", "v"), tol=tol, rtol=1e-7)
    for form, said in zip(expected[1:], (EPS_HAT, EPS_INSIDE)):
        if lines and not compare_parts(got, form, ("theta", "m", "v"), tol=tol, rtol=1e-7):
            lines.append(said)
            break
    return lines


EPS_HAT_IN_ADAMW = (
    "the decay is right, but the Adam step is Kingma & Ba's epsilon-hat form (epsilon added to sqrt(v) before"
    " v's correction): mend the step in adam_step, whose check names it"
)


def compare_adamw(got, expected, tol):
    """AdamW's comparison, which names the decay added to the gradient when that is what the result is."""
    lines = compare_parts(got, expected[0], ("theta", "m", "v"), tol=tol, rtol=1e-7)
    if lines and not compare_parts(got, expected[1], ("theta", "m", "v"), tol=tol, rtol=1e-7):
        lines.append(
            "that is Adam with the decay added to the gradient: Adam divides it by sqrt(v_hat) with the rest, so"
            " how much a weight shrinks depends on its gradients; keep the decay out of m and v"
        )
    elif lines and not compare_parts(got, expected[2], ("theta", "m", "v"), tol=tol, rtol=1e-7):
        lines.append(EPS_HAT_IN_ADAMW)
    return lines


check = Checks(
    "adam",
    {
        "m_after_steps": FunctionCheck(
            ("g", "beta1", "t"),
            m_cases,
            lambda g, beta1, t: np.asarray(g) * (1 - beta1**t),
            tol=1e-9,
            rtol=1e-9,
            own=OWN,
            budget=CLOSED_FORM_STEPS,
        ),
        "unbias": FunctionCheck(
            ("m", "beta", "t"),
            unbias_cases,
            lambda m, beta, t: np.asarray(m, dtype=float) / (1 - beta**t),
            tol=1e-9,
            rtol=1e-9,
            own=OWN,
        ),
        "uncorrected_first_step": HandNumber(
            "9b00693139404dc16af54613",
            slips={
                "9b3e3bc528bd7c1de6405841": "that is the corrected first step, about the learning rate",
                "16bbcee0e60e7eca9ae5f2c6": "that divides by v; Adam divides by its square root",
                "c3cc04d5a4ca175b90d137a9": "that is m / sqrt(v), not the step",
                "bcaea15f7f924a472af2f5de": "check m: the first moment after one step is not this",
            },
        ),
        "adam_step": FunctionCheck(
            ("theta", "g", "m", "v", "t"),
            adam_cases,
            lambda *args, **kwargs: (
                reference_adam(*args, **kwargs),
                adam_eps_hat(*args, **kwargs),
                adam_eps_inside(*args, **kwargs),
            ),
            tol=1e-9,
            own=OWN,
            compare_with=compare_adam,
        ),
        "adamw_step": FunctionCheck(
            ("theta", "g", "m", "v", "t"),
            adamw_cases,
            lambda *args, **kwargs: (
                reference_adamw(*args, **kwargs),
                adam_with_l2(*args, **kwargs),
                adamw_eps_hat(*args, **kwargs),
            ),
            tol=1e-9,
            own=OWN,
            compare_with=compare_adamw,
        ),
        "prediction": Choice(("adam + l2", "adamw")),
    },
)
