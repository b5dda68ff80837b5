"""Everything docs/part-4/ladder.md draws or includes: the ladder of models, each one part more than the last,
trained the same way on Aesop's fables and scored on the same held-out text."""

from __future__ import annotations

import functools

import numpy as np
from matplotlib.figure import Figure

from tools.figures import figure
from transformer_math.data import load_text
from transformer_math.information import cross_entropy_from_logits
from transformer_math.model import forward, init_params, loss_and_grads
from transformer_math.optim import AdamW
from transformer_math.train import make_windows

# --8<-- [start:ladder-setup]
SEQ_LEN, D_MODEL, D_FF = 16, 32, 32  # windows of 16 characters, the training page's model widths
STEPS, BATCH_SIZE, LR = 250, 16, 0.02  # the same AdamW run for every rung
SEEDS = (0, 1, 2)  # each rung trained three times: the seed draws the initial weights and the batches
ATTENTION = ("W_Q", "W_K", "W_V", "W_O")
RUNGS = {  # each rung adds one thing to the one above it
    "bigram": dict(n_heads=1, d_ff=0, residual=True, layer_norm=False, n_layers=1, frozen=ATTENTION),
    "average of the past": dict(n_heads=1, d_ff=0, residual=False, layer_norm=False, n_layers=1, frozen=("W_Q", "W_K")),
    "one head": dict(n_heads=1, d_ff=0, residual=False, layer_norm=False, n_layers=1, frozen=()),
    "two heads": dict(n_heads=2, d_ff=0, residual=False, layer_norm=False, n_layers=1, frozen=()),
    "+ feed-forward": dict(n_heads=2, d_ff=D_FF, residual=False, layer_norm=False, n_layers=1, frozen=()),
    "+ residual": dict(n_heads=2, d_ff=D_FF, residual=True, layer_norm=False, n_layers=1, frozen=()),
    "+ LayerNorm": dict(n_heads=2, d_ff=D_FF, residual=True, layer_norm=True, n_layers=1, frozen=()),
    "+ second block": dict(n_heads=2, d_ff=D_FF, residual=True, layer_norm=True, n_layers=2, frozen=()),
}


def fables():
    """The fables as character ids, cut at 90 %: training windows, validation windows, and V."""
    text = load_text("aesop")
    chars = sorted(set(text))
    ids = np.array([chars.index(c) for c in text])
    split = int(0.9 * len(ids))
    return make_windows(ids[:split], SEQ_LEN), make_windows(ids[split:], SEQ_LEN), len(chars)


# --8<-- [end:ladder-setup]


# --8<-- [start:train-rung]
def rung_params(rung, seed, vocab_size):
    """The rung's initial parameters, its frozen arrays set to 0, and how many numbers training changes."""
    sizes = {"n_layers": rung["n_layers"], "layer_norm": rung["layer_norm"]}
    params = init_params(vocab_size, D_MODEL, rung["d_ff"], seed=seed, output_scale=0.1, **sizes)
    for name in rung["frozen"]:
        params[name][:] = 0.0
    return params, sum(p.size for name, p in params.items() if name not in rung["frozen"])


def train_rung(rung, seed):
    """One rung trained for STEPS AdamW steps: its validation loss, its trained parameters, its model."""
    (x_train, y_train), (x_val, y_val), vocab_size = fables()
    params, n_trained = rung_params(rung, seed, vocab_size)
    names = list(params)
    optimizer = AdamW([params[name] for name in names], lr=LR, weight_decay=0.01)
    rng = np.random.default_rng(seed)
    options = {"n_heads": rung["n_heads"], "residual": rung["residual"]}
    for _ in range(STEPS):
        rows = rng.integers(0, len(x_train), size=BATCH_SIZE)  # a random mini-batch of windows
        _, grads = loss_and_grads(params, x_train[rows], y_train[rows], **options)
        for name in rung["frozen"]:
            grads[name][:] = 0.0  # no gradient: Adam's step is 0, and the decay of 0 is 0
        optimizer.step([grads[name] for name in names])
    logits, _ = forward(params, x_val, **options)
    return cross_entropy_from_logits(logits, y_val), n_trained, params


# --8<-- [end:train-rung]


# --8<-- [start:counted-bigram]
def counted_bigram(smoothing=0.1):
    """Validation loss of the table of character-pair counts of the training part (each count + 0.1)."""
    _, (x_val, y_val), vocab_size = fables()
    text = load_text("aesop")
    chars = sorted(set(text))
    ids = np.array([chars.index(c) for c in text[: int(0.9 * len(text))]])  # the training part
    counts = np.full((vocab_size, vocab_size), smoothing)
    np.add.at(counts, (ids[:-1], ids[1:]), 1.0)  # each character and the next
    log_p = np.log(counts / counts.sum(axis=1, keepdims=True))
    return cross_entropy_from_logits(log_p[x_val], y_val)  # log-probabilities are logits


# --8<-- [end:counted-bigram]


@functools.cache  # the figure's two themes, and the page's table through them, share one run of the ladder
# --8<-- [start:ladder]
def ladder():
    """Every rung trained once per seed: {name: (validation losses, trained parameters)}."""
    results = {}
    for name, rung in RUNGS.items():
        runs = [train_rung(rung, seed)[:2] for seed in SEEDS]
        results[name] = ([loss for loss, _ in runs], runs[0][1])
    return results


def label(losses) -> str:
    """A rung's mean and its loss for each seed, in the order of SEEDS, as the figure writes them."""
    return f"mean {np.mean(losses):.3f} (" + ", ".join(f"{loss:.3f}" for loss in losses) + ")"


# --8<-- [end:ladder]


@figure("ladder-losses")
# --8<-- [start:ladder-losses]
def ladder_losses() -> Figure:
    """Validation loss of each rung: every seed as a dot, the mean as a bar, the counted bigram as a line."""
    results, reference = ladder(), counted_bigram()
    fig = Figure(figsize=(8, 4.6))
    ax = fig.subplots()
    for row, (losses, _) in enumerate(results.values()):
        ax.plot([min(losses), max(losses)], [row, row], color="C0", lw=1.5)  # the range over the seeds
        ax.plot(losses, [row] * len(losses), "o", color="C0", markersize=4)
        ax.plot([np.mean(losses)] * 2, [row - 0.3, row + 0.3], color="C1", lw=2.5)  # the mean
        ax.annotate(label(losses), (1.02, row), xycoords=("axes fraction", "data"), va="center", fontsize=9)
    ax.axvline(reference, color="C2", ls="--", label=f"counted bigram {reference:.3f}")
    ax.set_yticks(range(len(results)), [f"{name} ({n:,})" for name, (_, n) in results.items()])
    ax.invert_yaxis()  # the ladder from the top
    ax.set_xlim(2.25, 3.0)
    ax.set_xlabel(f"validation loss after {STEPS} AdamW steps (nats per character); {len(SEEDS)} seeds each")
    ax.legend(fontsize=9, loc="lower right")
    return fig


# --8<-- [end:ladder-losses]
