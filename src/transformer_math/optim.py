r"""Optimizers from their published update rules: SGD with momentum, Adam and AdamW.

An optimizer owns a list of parameters (NumPy float arrays) and changes them **in place** each time
``step(grads)`` is called with one gradient per parameter, in the same order and of the same shapes.
In place matters: a model that holds these arrays sees the new values without being told.

* ``SGD`` -- $\theta \leftarrow \theta - \eta\, v$ with the velocity $v \leftarrow \mu v + g$
  (PyTorch's form of momentum; $\mu = 0$ is plain gradient descent).
* ``Adam`` -- Kingma & Ba (2015), Algorithm 1: running averages of $g$ and $g^2$, corrected for
  their start at zero, give each entry its own step size.
* ``AdamW`` -- Loshchilov & Hutter (2019), Algorithm 2: Adam plus weight decay applied to the
  parameters directly, not added to the gradient. The decay follows PyTorch's convention,
  $\theta \leftarrow \theta - \eta \lambda \theta$, where $\eta$ is the learning rate.

Two helpers of larger training runs sit beside them: ``clip_grad_norm`` scales all the gradients
together so that their global norm is at most a bound, and ``warmup_cosine`` gives the learning rate
of each step of a linear warm-up followed by a cosine decay.

Example
-------
>>> from transformer_math.optim import SGD
>>> import numpy as np
>>> w = np.array([1.0, -2.0])
>>> SGD([w], lr=0.1).step([np.array([0.5, -1.0])])
>>> w
array([ 0.95, -1.9 ])
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from transformer_math.checks import array_list, check_in_range, check_integer, check_number, wide

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "clip_grad_norm", "warmup_cosine"]


# --8<-- [start:Optimizer]
class Optimizer:
    """What every optimizer here shares: the parameters, the learning rate, the step count, input checks."""

    def __init__(self, params: Sequence[np.ndarray], lr: float) -> None:
        if isinstance(params, np.ndarray):
            raise TypeError("params must be a list of arrays; for a single array write [w]")
        try:
            self.params = list(params)
        except TypeError:
            raise TypeError(f"params must be a list of arrays, got {type(params).__name__}") from None
        if not self.params:
            raise ValueError("params is empty: an optimizer needs at least one array to update")
        for i, p in enumerate(self.params):
            if not (isinstance(p, np.ndarray) and np.issubdtype(p.dtype, np.floating)):
                raise TypeError(
                    f"parameter {i} must be a NumPy float array (it is updated in place), "
                    f"got {type(p).__name__} of dtype {getattr(p, 'dtype', None)}"
                )
            if not p.flags.writeable:
                raise ValueError(f"parameter {i} is read-only, so it cannot be updated in place")
        self.lr = check_in_range(lr, "lr (the learning rate)", 0.0, low_open=True)
        self.t = 0  # number of steps taken

    def _checked(self, grads: Sequence[np.ndarray]) -> list[np.ndarray]:
        """The gradients as finite float arrays, one per parameter, each of its parameter's shape and dtype."""
        grads = array_list(grads, "grads", "gradient")  # no NaN or inf: the parameters are not changed
        if len(grads) != len(self.params):
            raise ValueError(f"expected {len(self.params)} gradients (one per parameter), got {len(grads)}")
        for i, (p, g) in enumerate(zip(self.params, grads)):
            if g.shape != p.shape:
                raise ValueError(f"gradient {i} has shape {g.shape}, but parameter {i} has shape {p.shape}")
            if g.dtype != p.dtype:  # as in PyTorch: a float64 step would be rounded, or overflow, silently
                raise TypeError(f"gradient {i} has dtype {g.dtype}, but parameter {i} has dtype {p.dtype}")
        return grads

    def step(self, grads: Sequence[np.ndarray]) -> None:
        """One update of every parameter, in place, after checking the gradients: a bad call changes nothing."""
        self._step(self._checked(grads))


# --8<-- [end:Optimizer]


class SGD(Optimizer):
    r"""Stochastic gradient descent, with optional momentum.

    With learning rate $\eta$ and momentum $\mu$, each step does, for every parameter,

    $$v \leftarrow \mu v + g, \qquad \theta \leftarrow \theta - \eta v,$$

    with $v$ starting at 0 (PyTorch's form, without dampening or Nesterov). With $\mu = 0$ this is
    plain gradient descent, $\theta \leftarrow \theta - \eta g$.

    Parameters
    ----------
    params : list of numpy.ndarray
        The float arrays to optimize; updated in place.
    lr : float
        The learning rate $\eta > 0$.
    momentum : float, default 0.0
        $\mu$ in $[0, 1)$.

    Examples
    --------
    >>> from transformer_math.optim import SGD
    >>> import numpy as np
    >>> w = np.array([1.0])
    >>> opt = SGD([w], lr=0.1, momentum=0.9)
    >>> opt.step([np.array([1.0])]); w      # v = 1
    array([0.9])
    >>> opt.step([np.array([1.0])]); w      # v = 0.9 * 1 + 1 = 1.9
    array([0.71])
    """

    # --8<-- [start:SGD]
    def __init__(self, params, lr, momentum=0.0):
        super().__init__(params, lr)
        self.momentum = check_in_range(momentum, "momentum", 0.0, 1.0)
        self.velocity = [np.zeros_like(p) for p in self.params]

    def _step(self, grads):  # the gradients, as Optimizer.step checked them
        self.t += 1
        for p, g, v in zip(self.params, grads, self.velocity):
            v *= self.momentum
            v += g  # v = mu * v + g
            p -= self.lr * v  # in place: the caller's array changes

    # --8<-- [end:SGD]


class Adam(Optimizer):
    r"""Adam (Kingma & Ba, 2015, Algorithm 1).

    At step $t = 1, 2, \ldots$, for every parameter $\theta$ with gradient $g$:

    $$\begin{aligned}
    m &\leftarrow \beta_1 m + (1 - \beta_1) g, \\
    v &\leftarrow \beta_2 v + (1 - \beta_2) g^2, \\
    \hat m &= \frac{m}{1 - \beta_1^t}, \quad \hat v = \frac{v}{1 - \beta_2^t},
    \end{aligned}$$

    $$\theta \leftarrow \theta - \eta \frac{\hat m}{\sqrt{\hat v} + \epsilon},$$

    with $m$ and $v$ starting at 0 and every operation taken entry by entry. Dividing by
    $1 - \beta^t$ (bias correction) undoes the pull towards 0 of averages that start at 0.

    Parameters
    ----------
    params : list of numpy.ndarray
        The float arrays to optimize; updated in place.
    lr : float, default 1e-3
        The step size $\eta > 0$ (called $\alpha$ in the paper).
    betas : (float, float), default (0.9, 0.999)
        Decay rates $\beta_1, \beta_2$ in $[0, 1)$ of the two running averages.
    eps : float, default 1e-8
        $\epsilon > 0$, keeps the division finite where $\hat v = 0$ (an entry whose gradient has
        always been 0 then gets the step $0 / \epsilon = 0$ instead of $0 / 0$ = nan).

    Notes
    -----
    For float16 parameters, $m$, $v$ and the step are kept in float32 and each parameter is rounded once
    to float16: in float16 itself $\epsilon = 10^{-8}$ rounds to 0 and $(1 - \beta_2) g^2$ underflows for
    any $|g|$ below about 0.005, which would turn the steps into inf and NaN (mixed-precision training keeps
    its optimizer state in float32 for the same reason).

    Examples
    --------
    >>> from transformer_math.optim import Adam
    >>> import numpy as np
    >>> w = np.array([1.0, -2.0])
    >>> Adam([w], lr=0.1).step([np.array([0.5, -100.0])])  # first step: about lr * sign(g)
    >>> np.round(w, 6)
    array([ 0.9, -1.9])
    """

    # --8<-- [start:Adam]
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        super().__init__(params, lr)
        if not (isinstance(betas, (tuple, list)) and len(betas) == 2):
            raise TypeError(f"betas must be a pair (beta1, beta2), got {betas!r}")
        beta1, beta2 = betas
        self.beta1 = check_in_range(beta1, "betas[0]", 0.0, 1.0)
        self.beta2 = check_in_range(beta2, "betas[1]", 0.0, 1.0)
        self.eps = check_in_range(eps, "eps", 0.0, low_open=True)  # eps = 0 would turn 0 / 0 into nan
        state = [np.promote_types(p.dtype, np.float32) for p in self.params]  # float16: eps would round to 0
        self.m = [np.zeros(p.shape, dtype) for p, dtype in zip(self.params, state)]  # running mean of g
        self.v = [np.zeros(p.shape, dtype) for p, dtype in zip(self.params, state)]  # running mean of g**2

    def _step(self, grads):  # the gradients, as Optimizer.step checked them
        self.t += 1
        for p, g, m, v in zip(self.params, grads, self.m, self.v):
            g = g.astype(m.dtype, copy=False)  # float16 in float32, where (1 - beta2) g**2 does not underflow
            m *= self.beta1
            m += (1 - self.beta1) * g  # m = beta1 m + (1 - beta1) g
            v *= self.beta2
            with np.errstate(over="ignore"):  # |g| past 1e154 squares to inf: its step is then 0, as in PyTorch
                v += (1 - self.beta2) * np.square(g)  # v = beta2 v + (1 - beta2) g**2
            m_hat = m / (1 - self.beta1**self.t)  # bias correction
            v_hat = v / (1 - self.beta2**self.t)
            denominator = np.sqrt(v_hat)
            denominator += self.eps  # in place, as below: the step makes no more arrays than it needs
            m_hat *= self.lr  # lr m_hat first, then the division: the rounding of lr * m_hat / (...)
            m_hat /= denominator
            p -= m_hat  # theta - lr m_hat / (sqrt(v_hat) + eps); float16: in float32, rounded once

    # --8<-- [end:Adam]


def check_weight_decay(weight_decay, n_params: int) -> list[float]:
    r"""``weight_decay`` as one $\lambda \geq 0$ per parameter: a number for all of them, or a list of ``n_params``."""
    if isinstance(weight_decay, (list, tuple, np.ndarray)):
        if len(weight_decay) != n_params:
            raise ValueError(
                f"weight_decay must be a number or a list of one per parameter ({n_params}), "
                f"got a list of {len(weight_decay)}"
            )
        return [check_in_range(decay, f"weight_decay[{i}]", 0.0) for i, decay in enumerate(weight_decay)]
    return [check_in_range(weight_decay, "weight_decay", 0.0)] * n_params


class AdamW(Adam):
    r"""AdamW: Adam with decoupled weight decay (Loshchilov & Hutter, 2019, Algorithm 2).

    Each step first shrinks every parameter towards 0, then takes Adam's step computed from the
    gradient of the loss alone:

    $$\theta \leftarrow \theta - \eta \lambda \theta, \qquad
    \theta \leftarrow \theta - \eta \frac{\hat m}{\sqrt{\hat v} + \epsilon}.$$

    This is PyTorch's convention: the decay is multiplied by the learning rate $\eta$. The paper writes
    $\theta \leftarrow \theta - \eta_t \left(\alpha \frac{\hat m}{\sqrt{\hat v} + \epsilon}
    + \lambda \theta\right)$ with a schedule multiplier $\eta_t$; the two agree with
    $\eta = \eta_t \alpha$ and ``weight_decay`` $= \lambda / \alpha$. Either way the decay never passes
    through $m$ and $v$, which is what separates AdamW from Adam with an L2 term in the loss.

    Parameters
    ----------
    params : list of numpy.ndarray
        The float arrays to optimize; updated in place.
    lr : float, default 1e-3
        The learning rate $\eta > 0$.
    betas : (float, float), default (0.9, 0.999)
        $\beta_1, \beta_2$ in $[0, 1)$.
    eps : float, default 1e-8
        $\epsilon > 0$.
    weight_decay : float or list of float, default 0.01
        $\lambda \geq 0$: one number for every parameter, or a list of one per parameter, in the order of
        ``params`` (PyTorch's parameter groups: a 0 leaves that parameter undecayed, as the first GPT and
        nanoGPT do for biases and LayerNorm gains; see ``make_optimizer``).

    Examples
    --------
    >>> from transformer_math.optim import AdamW
    >>> import numpy as np
    >>> w = np.array([10.0])
    >>> AdamW([w], lr=0.1, weight_decay=0.5).step([np.array([0.0])])  # zero gradient: decay only
    >>> w                                                             # 10 - 0.1 * 0.5 * 10
    array([9.5])
    >>> w, b = np.array([[10.0]]), np.array([10.0])
    >>> AdamW([w, b], lr=0.1, weight_decay=[0.5, 0.0]).step([np.zeros((1, 1)), np.zeros(1)])
    >>> print(w, b)                                                   # only w decays
    [[9.5]] [10.]
    """

    # --8<-- [start:AdamW]
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.01):
        super().__init__(params, lr, betas, eps)
        self.weight_decay = check_weight_decay(weight_decay, len(self.params))  # one lambda per parameter

    def _step(self, grads):  # the gradients, as Optimizer.step checked them: a bad call decays nothing
        for p, decay in zip(self.params, self.weight_decay):
            p -= self.lr * decay * p  # decoupled: not part of the gradient
        super()._step(grads)  # Adam's step from the loss gradient alone

    # --8<-- [end:AdamW]


SMALLEST_SUM = float(np.finfo(np.float32).tiny / np.finfo(np.float32).eps)  # below: float32 squares lost digits


def global_norm(arrays: list[np.ndarray]) -> float:
    r"""$\sqrt{\sum_i \lVert a_i \rVert^2}$ of finite arrays: by one dot product per array when no square
    overflows or underflows, else in float64 and scaled by a power of 2, as ``np.linalg.norm`` is."""
    if all(a.dtype.itemsize >= 4 for a in arrays):  # float32 and float64: one pass each, with BLAS
        total = sum(float(np.vdot(a, a)) for a in arrays)
        if SMALLEST_SUM < total < math.inf:
            return math.sqrt(total)
    largest = max((float(np.max(np.abs(a), initial=0.0)) for a in arrays), default=0.0)
    if largest == 0:
        return 0.0
    k = math.frexp(largest)[1]  # largest = m * 2**k with 0.5 <= m < 1
    total = sum(float(np.sum(np.square(np.ldexp(wide(a), -k)))) for a in arrays)  # each entry in [-1, 1]
    return math.ldexp(math.sqrt(total), k)


# --8<-- [start:clip_grad_norm]
def clip_grad_norm(grads, max_norm):
    r"""Scale all the gradients together so that their global norm is at most ``max_norm``.

    The global norm treats every gradient of every parameter as one long vector,

    $$\begin{aligned}
    \lVert g \rVert &= \sqrt{\textstyle\sum_i \lVert g_i \rVert^2}, \\
    g_i &\leftarrow g_i \cdot \min\!\left(1, \frac{c}{\lVert g \rVert + 10^{-6}}\right),
    \end{aligned}$$

    with $c$ = ``max_norm``, exactly as PyTorch's ``torch.nn.utils.clip_grad_norm_``: the $10^{-6}$ keeps
    the division finite when every gradient is 0, and leaves a clipped norm a hair below $c$ (short by the
    fraction $10^{-6} / \lVert g \rVert$, which matters only for norms near $10^{-6}$ or below). Every
    gradient is scaled by the same factor, so the direction is kept and only the length is capped. Call it
    after the backward pass and before the optimizer's step: one unlucky batch then can neither throw the
    parameters far (plain SGD's step grows with the gradient) nor flood Adam's running averages $m$ and
    $v$ (Adam's step is already bounded by a few $\eta$, but one huge gradient inflates $v$, and so slows
    every later step, for thousands of steps at the default $\beta_2 = 0.999$).

    Parameters
    ----------
    grads : list of array_like
        One gradient per parameter. Not modified.
    max_norm : float
        The largest global norm $c > 0$ allowed.

    Returns
    -------
    clipped : list of numpy.ndarray
        The scaled gradients (new arrays, the inputs' shapes).
    norm : float
        The global norm *before* clipping, worth logging: a norm that keeps growing is a warning.

    Examples
    --------
    >>> import numpy as np
    >>> from transformer_math.optim import clip_grad_norm
    >>> clipped, norm = clip_grad_norm([np.array([3.0]), np.array([[4.0]])], max_norm=1.0)
    >>> print(norm, clipped[0].round(6), clipped[1].round(6))  # the norm was 5: everything is divided by 5
    5.0 [0.6] [[0.8]]
    """
    grads = array_list(grads, "grads", "gradient")  # finite float arrays: clipping cannot repair NaN or inf
    max_norm = check_number(max_norm, "max_norm", positive=True)
    return _clip_grad_norm(grads, max_norm)


def _clip_grad_norm(grads, max_norm):
    """``clip_grad_norm`` without the checks: ``grads`` finite float arrays, ``max_norm > 0``."""
    norm = global_norm(grads)
    scale = min(1.0, max_norm / (norm + 1e-6))  # PyTorch's 1e-6: finite at norm 0
    return [g * scale for g in grads], norm  # a Python float scale keeps each gradient's dtype


# --8<-- [end:clip_grad_norm]


# --8<-- [start:warmup_cosine]
def warmup_cosine(step, total_steps, warmup_steps, peak_lr, min_lr=0.0):
    r"""The learning rate of step ``step`` (counted from 0): a linear warm-up, then a cosine decay.

    With $t$ = ``step``, $t_{\text{warm}}$ = ``warmup_steps``, $t_{\text{total}}$ = ``total_steps``:

    $$\eta_t = \eta_{\max} \frac{t + 1}{t_{\text{warm}}} \quad (t < t_{\text{warm}}),$$

    $$\eta_t = \eta_{\min} + \frac{\eta_{\max} - \eta_{\min}}{2} \bigl(1 + \cos \pi \phi\bigr),$$

    otherwise, with $\phi = (t - t_{\text{warm}}) / (t_{\text{total}} - t_{\text{warm}} - 1)$ going from 0 at
    the first step after the warm-up to 1 at the last step. The warm-up keeps the first steps small. Why that
    helps is argued: one hypothesis is that Adam's running averages of few gradients are unreliable, another
    that its first step, $\eta$ times the sign of the gradient, moves every weight at once (see the schedules
    chapter). The decay makes the last steps small, so training settles instead of bouncing.

    Parameters
    ----------
    step : int
        The step, ``0 <= step < total_steps``.
    total_steps : int
        Number of steps of the whole run, >= 1.
    warmup_steps : int
        Number of warm-up steps, ``0 <= warmup_steps < total_steps``.
    peak_lr : float
        $\eta_{\max} > 0$, reached at the end of the warm-up.
    min_lr : float, default 0.0
        $\eta_{\min}$ in $[0, \eta_{\max}]$, reached at the last step.

    Examples
    --------
    >>> from transformer_math.optim import warmup_cosine
    >>> [round(warmup_cosine(t, 6, 2, peak_lr=1.0), 4) for t in range(6)]
    [0.5, 1.0, 1.0, 0.75, 0.25, 0.0]
    """
    total_steps = check_integer(total_steps, "total_steps", minimum=1)
    for name, value in [("warmup_steps", warmup_steps), ("step", step)]:
        if check_integer(value, name) >= total_steps:
            raise ValueError(f"{name} must be less than total_steps = {total_steps}, got {value}")
    peak_lr = check_number(peak_lr, "peak_lr", positive=True)
    min_lr = check_number(min_lr, "min_lr")
    if not 0 <= min_lr <= peak_lr:
        raise ValueError(f"min_lr must be in [0, peak_lr = {peak_lr:g}], got {min_lr:g}")
    if step < warmup_steps:
        return peak_lr * (step + 1) / warmup_steps  # linear: peak_lr / W, 2 peak_lr / W, ..., peak_lr
    decay_steps = total_steps - warmup_steps - 1
    phi = (step - warmup_steps) / decay_steps if decay_steps > 0 else 0.0  # progress of the decay, 0 .. 1
    return min_lr + 0.5 * (peak_lr - min_lr) * (1 + math.cos(math.pi * phi))


# --8<-- [end:warmup_cosine]
