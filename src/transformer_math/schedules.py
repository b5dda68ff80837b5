r"""Around the optimizer's step: gradient clipping by the global norm, and a learning-rate schedule.

* ``clip_grad_norm`` -- scales all the gradients together so that their global norm is at most a bound,
  as PyTorch's ``torch.nn.utils.clip_grad_norm_`` does.
* ``warmup_cosine`` -- the learning rate of each step: a linear warm-up, then a cosine decay.

Example
-------
>>> import numpy as np
>>> from transformer_math.schedules import clip_grad_norm, warmup_cosine
>>> print(clip_grad_norm([np.array([3.0, 4.0])], max_norm=1.0)[1], warmup_cosine(0, 10, 2, peak_lr=1.0))
5.0 0.5
"""

from __future__ import annotations

import math

import numpy as np

from transformer_math.checks import array_list, check_integer, check_number, wide

__all__ = ["clip_grad_norm", "warmup_cosine"]


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
    >>> from transformer_math.schedules import clip_grad_norm
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
    >>> from transformer_math.schedules import warmup_cosine
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
