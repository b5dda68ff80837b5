r"""Optimizers from their published update rules: SGD with momentum, Adam and AdamW.

An optimizer owns a list of parameters (NumPy float arrays) and changes them **in place** each time
``step(grads)`` is called with one gradient per parameter, in the same order and of the same shapes.
In place matters: a model that holds these arrays sees the new values without being told.

* ``SGD`` -- $\theta \leftarrow \theta - \eta\, m$ with the velocity $m \leftarrow \mu m + g$
  (PyTorch's form of momentum; $\mu = 0$ is plain gradient descent).
* ``Adam`` -- Kingma & Ba (2015), Algorithm 1: running averages of $g$ and $g^2$, corrected for
  their start at zero, give each entry its own step size.
* ``AdamW`` -- Loshchilov & Hutter (2019), Algorithm 2: Adam plus weight decay applied to the
  parameters directly, not added to the gradient. The decay follows PyTorch's convention,
  $\theta \leftarrow \theta - \eta \lambda \theta$, where $\eta$ is the learning rate.

What a training loop does around the step, clipping the gradients and scheduling the learning rate, is in
``transformer_math.schedules``.

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

from collections.abc import Sequence

import numpy as np

from transformer_math.checks import array_list, check_in_range

__all__ = ["Optimizer", "SGD", "Adam", "AdamW"]


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

    $$m \leftarrow \mu m + g, \qquad \theta \leftarrow \theta - \eta m,$$

    with the velocity $m$ (the attribute ``velocity``) starting at 0 (PyTorch's form, without dampening or
    Nesterov). With $\mu = 0$ this is plain gradient descent, $\theta \leftarrow \theta - \eta g$.

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
    >>> opt.step([np.array([1.0])]); w      # m = 1
    array([0.9])
    >>> opt.step([np.array([1.0])]); w      # m = 0.9 * 1 + 1 = 1.9
    array([0.71])
    """

    # --8<-- [start:SGD]
    def __init__(self, params, lr, momentum=0.0):
        super().__init__(params, lr)
        self.momentum = check_in_range(momentum, "momentum", 0.0, 1.0)
        self.velocity = [np.zeros_like(p) for p in self.params]

    def _step(self, grads):  # the gradients, as Optimizer.step checked them
        self.t += 1
        for p, g, m in zip(self.params, grads, self.velocity):
            m *= self.momentum
            m += g  # m = mu * m + g
            p -= self.lr * m  # in place: the caller's array changes

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
