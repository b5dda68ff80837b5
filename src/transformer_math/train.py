r"""Training the one-block Transformer: token windows, then AdamW steps on the gradients of the loss.

A token stream $t_1, t_2, \dots$ becomes training pairs by sliding a window of $n$ tokens along it: window
$i$ is $(t_i, \dots, t_{i+n-1})$, and its targets are the same window shifted by one,
$(t_{i+1}, \dots, t_{i+n})$. Each training step then runs the whole diagram,

$$\begin{aligned}
L(\theta) &= -\frac{1}{N}\sum_{t} \log \operatorname{softmax}(z_t)_{y_t}, \\
\theta &\leftarrow \operatorname{AdamW}(\theta, \nabla_\theta L),
\end{aligned}$$

over the $N$ positions of a batch, with $z$ from ``forward`` and $\nabla_\theta L$ from
``loss_and_grads``, optionally with gradient clipping and a warm-up and
cosine schedule (``transformer_math.schedules``). As in the first GPT and nanoGPT, only the matrices decay
(``make_optimizer``).

Example
-------
>>> from transformer_math.model import init_params
>>> from transformer_math.train import make_windows, train
>>> x, y = make_windows([0, 1, 2] * 4, seq_len=4)
>>> params = init_params(vocab_size=3, d_model=8, d_ff=16)
>>> losses = train(params, x, y, n_heads=2, steps=20)
>>> bool(losses[-1] < losses[0])
True
"""

from __future__ import annotations

import math

import numpy as np

from transformer_math.checks import check_in_range, check_integer, check_number, integer_array, token_ids
from transformer_math.model import _loss_and_grads, check_model_inputs
from transformer_math.optim import AdamW
from transformer_math.schedules import _clip_grad_norm, global_norm, warmup_cosine

__all__ = ["make_windows", "make_optimizer", "train"]


def check_stream(stream, seq_len) -> tuple[np.ndarray, int]:
    """``stream`` as a 1-D array of integer token ids longer than ``seq_len``, and ``seq_len`` as an int."""
    stream = integer_array(stream, "stream")
    if stream.ndim != 1:
        raise ValueError(f"stream must be a 1-D sequence of token ids, got shape {stream.shape}")
    seq_len = check_integer(seq_len, "seq_len", minimum=1)
    if len(stream) <= seq_len:
        raise ValueError(f"need a stream longer than seq_len = {seq_len}, got {len(stream)} tokens")
    return stream, seq_len


def check_training_inputs(
    params, tokens, targets, n_heads, steps, max_grad_norm, warmup_steps, batch_size, seed, options
):
    """Every argument of ``train`` checked before the first forward pass, so a bad one costs no time."""
    tokens, n_heads = check_model_inputs(params, tokens, n_heads, *options)  # every parameter, once
    targets = token_ids(targets, "targets", params["W_E"].shape[0])
    if targets.shape != tokens.shape:
        raise ValueError(f"targets must have the shape of tokens, {tokens.shape}, got {targets.shape}")
    steps = check_integer(steps, "steps")
    if max_grad_norm is not None:
        max_grad_norm = check_number(max_grad_norm, "max_grad_norm", positive=True)
    if warmup_steps is not None and check_integer(warmup_steps, "warmup_steps") >= max(steps, 1):
        raise ValueError(f"warmup_steps must be less than steps = {steps}, got {warmup_steps}")
    rng = None
    if batch_size is not None:
        batch_size = check_integer(batch_size, "batch_size", minimum=1)
        if tokens.ndim != 2:
            raise ValueError(f"batch_size needs tokens of shape (windows, n), got shape {tokens.shape}")
        rng = np.random.default_rng(check_integer(seed, "seed"))
    return tokens, targets, n_heads, steps, rng


def check_finite_step(t, loss, norm) -> None:
    """Stop before step ``t``'s update if its loss or its gradients' norm is not finite: training has diverged."""
    if not math.isfinite(loss) or not math.isfinite(norm):
        raise FloatingPointError(
            f"step {t}: the {'loss' if not math.isfinite(loss) else 'gradient'} is not finite (loss {loss}); "
            "training diverged before this update, which is not applied: try a smaller lr or max_grad_norm"
        )


# --8<-- [start:make_windows]
def make_windows(stream, seq_len):
    r"""Every window of ``seq_len`` tokens of a token stream, with the next token of each as its target.

    Window $i$ is ``stream[i : i + seq_len]``; its targets are the same window shifted by one,
    ``stream[i + 1 : i + seq_len + 1]``.

    Returns
    -------
    inputs, targets : numpy.ndarray
        Both of shape ``(len(stream) - seq_len, seq_len)``.

    Examples
    --------
    >>> from transformer_math.train import make_windows
    >>> x, y = make_windows([0, 1, 2, 3, 4], seq_len=3)
    >>> print(x, y, sep="\n")
    [[0 1 2]
     [1 2 3]]
    [[1 2 3]
     [2 3 4]]
    """
    stream, seq_len = check_stream(stream, seq_len)
    starts = np.arange(len(stream) - seq_len)[:, None]
    offsets = np.arange(seq_len)[None, :]
    return stream[starts + offsets], stream[starts + offsets + 1]


# --8<-- [end:make_windows]


# --8<-- [start:make_optimizer]
def make_optimizer(params, lr=1e-2, weight_decay=0.01):
    r"""AdamW over every array of the model ``params``, in the order of ``list(params)``, decaying only matrices.

    As nanoGPT's ``configure_optimizers`` and the first GPT (Radford et al., 2018: decay "on all non bias or
    gain weights"): every array of two or more dimensions, the embeddings and the weight matrices, decays by
    ``weight_decay``; the vectors, biases and LayerNorm gains and shifts, do not: they are few, adding little
    capacity for decay to restrain, and decaying a LayerNorm gain would pull it towards 0, not towards its
    neutral 1 (Part III's optimizers page).

    Examples
    --------
    >>> from transformer_math.model import init_params
    >>> from transformer_math.train import make_optimizer
    >>> params = init_params(vocab_size=3, d_model=4, d_ff=8)
    >>> optimizer = make_optimizer(params, lr=1e-2, weight_decay=0.1)
    >>> [name for name, decay in zip(params, optimizer.weight_decay) if decay == 0]
    ['ln1_g', 'ln1_b', 'ln2_g', 'ln2_b', 'b_1', 'b_2', 'lnf_g', 'lnf_b']
    """
    if not isinstance(params, dict):
        raise TypeError(f"params must be a dict of arrays (from init_params), got {type(params).__name__}")
    weight_decay = check_in_range(weight_decay, "weight_decay", 0.0)
    arrays = list(params.values())
    decays = [weight_decay if np.ndim(p) >= 2 else 0.0 for p in arrays]  # matrices decay, vectors do not
    return AdamW(arrays, lr=lr, weight_decay=decays)


# --8<-- [end:make_optimizer]


# --8<-- [start:train]
def train(
    params,
    tokens,
    targets,
    n_heads,
    steps,
    lr=1e-2,
    weight_decay=0.01,
    max_grad_norm=None,
    warmup_steps=None,
    batch_size=None,
    seed=0,
    activation="relu",
    tie_embeddings=False,
    residual=True,
):
    r"""Training with AdamW; ``params`` is updated in place. Returns the loss before each step.

    Each step is the whole diagram: forward to the logits, cross entropy, backward to every gradient,
    and one AdamW update of every parameter, in which only the matrices decay (``make_optimizer``).
    Two options of larger training runs are available: ``max_grad_norm`` clips the global norm of the
    gradients (``clip_grad_norm``) and ``warmup_steps`` replaces the constant
    ``lr`` by a warm-up to ``lr`` followed by a cosine decay to 0
    (``warmup_cosine``). Both are off by default.

    By default every step uses every window (full batch). With ``batch_size`` each step uses that many
    windows, drawn at random (with replacement) by ``np.random.default_rng(seed)``, and the losses
    returned are those of these mini-batches. ``activation``, ``tie_embeddings`` and ``residual`` are passed to
    ``loss_and_grads``; the model's depth is that of ``params``.

    Examples
    --------
    >>> from transformer_math.model import init_params
    >>> from transformer_math.train import make_windows, train
    >>> params = init_params(vocab_size=3, d_model=8, d_ff=16)
    >>> x, y = make_windows([0, 1, 2] * 4, seq_len=4)
    >>> losses = train(params, x, y, n_heads=2, steps=30)
    >>> bool(losses[-1] < losses[0] / 10)
    True
    >>> params = init_params(vocab_size=3, d_model=8, d_ff=16)   # again, clipped and scheduled
    >>> losses = train(params, x, y, n_heads=2, steps=30, lr=0.03, max_grad_norm=1.0, warmup_steps=5)
    >>> bool(losses[-1] < losses[0] / 10)
    True
    >>> params = init_params(vocab_size=3, d_model=8, d_ff=16)   # again, 4 random windows a step
    >>> losses = train(params, x, y, n_heads=2, steps=30, batch_size=4, seed=0)
    >>> bool(losses[-1] < losses[0] / 10)
    True
    """
    options = (activation, tie_embeddings, residual)  # the model's options, for every forward pass
    tokens, targets, n_heads, steps, rng = check_training_inputs(
        params, tokens, targets, n_heads, steps, max_grad_norm, warmup_steps, batch_size, seed, options
    )
    names = list(params)
    optimizer = make_optimizer(params, lr=lr, weight_decay=weight_decay)  # the arrays of names, in order
    losses = []
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # a step that diverges is caught below
        for t in range(steps):  # everything was checked above: the steps run the unchecked kernels
            if batch_size is None:
                loss, grads = _loss_and_grads(params, tokens, targets, n_heads, *options)
            else:
                rows = rng.integers(0, len(tokens), size=batch_size)  # a random mini-batch of windows
                loss, grads = _loss_and_grads(params, tokens[rows], targets[rows], n_heads, *options)
            grads = [grads[name] for name in names]
            if max_grad_norm is not None:
                grads, norm = _clip_grad_norm(grads, max_grad_norm)
            else:
                norm = global_norm(grads)
            check_finite_step(t, loss, norm)
            if warmup_steps is not None:
                optimizer.lr = warmup_cosine(t, steps, warmup_steps, peak_lr=lr)
            optimizer._step(grads)
            losses.append(loss)
    if not all(np.all(np.isfinite(params[name])) for name in names):  # the last update overflowed
        raise FloatingPointError(f"step {steps - 1}: the update made a parameter inf or NaN: try a smaller lr")
    return losses


# --8<-- [end:train]
