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
from transformer_math.train import make_optimizer, make_windows

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
WITHOUT_FFN = {  # exercise 1's two models: a rung of the ladder with its feed-forward layer taken out
    "two heads + residual": dict(RUNGS["+ residual"], d_ff=0),
    "+ LayerNorm, no feed-forward": dict(RUNGS["+ LayerNorm"], d_ff=0),
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
    optimizer = make_optimizer(params, lr=LR, weight_decay=0.01)  # AdamW; only the matrices decay
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


@functools.cache  # the two figures' themes, and the page's tables through them, share one run of the ladder
# --8<-- [start:ladder]
def ladder():
    """Every rung, and exercise 1's two models, trained once per seed: {name: (validation losses, parameters)}."""
    results = {}
    for name, rung in {**RUNGS, **WITHOUT_FFN}.items():
        runs = [train_rung(rung, seed)[:2] for seed in SEEDS]
        results[name] = ([loss for loss, _ in runs], runs[0][1])
    return results


def label(losses) -> str:
    """A rung's mean and its loss for each seed, in the order of SEEDS, as the figure writes them."""
    return f"mean {np.mean(losses):.3f} (" + ", ".join(f"{loss:.3f}" for loss in losses) + ")"


# --8<-- [end:ladder]


# --8<-- [start:comparisons]
COMPARISONS = [  # (before, after): each step of the ladder, exercise 1's steps, and the heads against the bigram
    *zip(RUNGS, list(RUNGS)[1:]),
    ("two heads", "two heads + residual"),
    ("two heads + residual", "+ residual"),
    ("+ LayerNorm, no feed-forward", "+ LayerNorm"),
    ("bigram", "one head"),
    ("bigram", "two heads"),
]


# --8<-- [end:comparisons]


# --8<-- [start:paired]
def t_point(alpha):
    """The two-sided `alpha` point of Student's t with 2 degrees of freedom (3 seeds), where the t distribution
    has a closed form: P(|t| <= c) = c / sqrt(2 + c**2), so c = (1 - alpha) sqrt(2 / (1 - (1 - alpha)**2))."""
    inside = 1.0 - alpha
    return inside * np.sqrt(2.0 / (1.0 - inside**2))


T_5, T_10 = t_point(0.05), t_point(0.10)  # 4.303 and 2.920


def paired(before, after):
    """Seed by seed, the loss of `after` minus that of `before` (the same seed: the same batches), their mean,
    their standard deviation (ddof=1) and the paired t statistic, mean / (sd / sqrt(number of seeds))."""
    diffs = np.array(after) - np.array(before)
    mean, sd = diffs.mean(), diffs.std(ddof=1)
    return diffs, mean, sd, mean / (sd / np.sqrt(len(diffs)))


def verdict(diffs, t) -> str:
    """Established: every seed moves the same way and |t| clears the 5 % point; borderline: the 10 % point."""
    agree = bool(np.all(np.sign(diffs) == np.sign(t)))
    if agree and abs(t) >= T_5:
        return "established"
    return "borderline" if agree and abs(t) >= T_10 else "not established"


def signed(x, digits=3) -> str:
    """A difference with its sign, and a true minus sign."""
    return f"{x:+.{digits}f}".replace("-", "\u2212")


def paired_label(diffs, mean, sd, t) -> str:
    """What the figure writes beside a comparison: mean ± sd, t, and the difference for each seed."""
    return f"{signed(mean)} ± {sd:.3f}, t = {signed(t, 1)} (" + ", ".join(signed(x) for x in diffs) + ")"


# --8<-- [end:paired]


@figure("ladder-losses")
# --8<-- [start:ladder-losses]
def ladder_losses() -> Figure:
    """Validation loss of each rung: every seed as a dot, the mean as a bar, the counted bigram as a line."""
    results, reference = ladder(), counted_bigram()
    fig = Figure(figsize=(8, 5.4))
    ax = fig.subplots()
    for row, (name, (losses, _)) in enumerate(results.items()):
        colour = "C0" if name in RUNGS else "C4"  # the ladder, then exercise 1's two models
        ax.plot([min(losses), max(losses)], [row, row], color=colour, lw=1.5)  # the range over the seeds
        ax.plot(losses, [row] * len(losses), "o", color=colour, markersize=4)
        ax.plot([np.mean(losses)] * 2, [row - 0.3, row + 0.3], color="C1", lw=2.5)  # the mean
        ax.annotate(label(losses), (1.02, row), xycoords=("axes fraction", "data"), va="center", fontsize=9)
    ax.axhline(len(RUNGS) - 0.5, color="C4", lw=0.8)  # below it: exercise 1's models, not rungs of the ladder
    ax.axvline(reference, color="C2", ls="--", label=f"counted bigram {reference:.3f}")
    ax.set_yticks(range(len(results)), [f"{name} ({n:,})" for name, (_, n) in results.items()])
    ax.invert_yaxis()  # the ladder from the top
    ax.set_xlim(2.25, 3.0)
    ax.set_xlabel(f"validation loss after {STEPS} AdamW steps (nats per character); {len(SEEDS)} seeds each")
    ax.legend(fontsize=9, loc="lower right")
    return fig


# --8<-- [end:ladder-losses]


@figure("ladder-differences")
# --8<-- [start:ladder-differences]
def ladder_differences() -> Figure:
    """Each comparison seed by seed: the later model's loss minus the earlier's, every seed a dot, the mean a bar."""
    results = ladder()
    fig = Figure(figsize=(8, 5.8))
    ax = fig.subplots()
    for row, (before, after) in enumerate(COMPARISONS):
        diffs, mean, sd, t = paired(results[before][0], results[after][0])
        colour = {"established": "C0", "borderline": "C3", "not established": "C1"}[verdict(diffs, t)]
        ax.plot([diffs.min(), diffs.max()], [row, row], color=colour, lw=1.5)  # the range over the seeds
        ax.plot(diffs, [row] * len(diffs), "o", color=colour, markersize=4)
        ax.plot([mean] * 2, [row - 0.3, row + 0.3], color=colour, lw=2.5)  # the mean
        ax.annotate(
            paired_label(diffs, mean, sd, t), (1.02, row), xycoords=("axes fraction", "data"), va="center", fontsize=9
        )
    for word, colour in (("established", "C0"), ("borderline", "C3"), ("not established", "C1")):
        ax.plot([], [], "o-", color=colour, markersize=4, label=word)  # the legend's entries
    ax.axvline(0.0, color="C2", ls="--")  # no difference
    ax.legend(fontsize=9, loc="lower left")
    ax.set_yticks(range(len(COMPARISONS)), [f"{before} \u2192 {after}" for before, after in COMPARISONS])
    ax.invert_yaxis()
    ax.set_xlim(-0.45, 0.45)
    ax.set_xlabel("loss after the step minus loss before it, seed by seed (nats per character; below 0: better)")
    return fig


# --8<-- [end:ladder-differences]
