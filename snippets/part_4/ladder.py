"""Everything docs/part-4/ladder.md draws or includes: Karpathy's ladder of models on Shakespeare, each one part
more than the last, trained the same way with five seeds (a stored run), and the statistics of its steps."""

from __future__ import annotations

import functools
import math
import time

import numpy as np
from matplotlib.figure import Figure

from tools.figures import figure
from tools.stored_runs import stored_run
from transformer_math.data import encode, load_run, split_text, vocabulary
from transformer_math.model import forward, init_params, loss_and_grads
from transformer_math.softmax import log_softmax
from transformer_math.train import make_optimizer

# --8<-- [start:ladder-setup]
SEQ_LEN, D_MODEL, D_FF = 8, 32, 128  # Karpathy's small scale: windows of 8 characters, width 32, FFN 4d
STEPS, BATCH_SIZE, LR, WEIGHT_DECAY = 5000, 32, 1e-3, 0.01  # the same AdamW run for every rung
SEEDS = (0, 1, 2, 3, 4)  # each rung trained five times: the seed draws the initial weights and the batches
BLOCK = 512  # the stored run keeps the held-out play's loss summed over blocks of 512 characters
ATTENTION = ("W_Q", "W_K", "W_V", "W_O")
ONE_BLOCK = dict(n_heads=1, d_ff=0, n_layers=1, residual=False, layer_norm=False, frozen=())
RUNGS = {  # each rung adds one thing to the one above it
    "bigram": dict(ONE_BLOCK, residual=True, frozen=ATTENTION),  # the block adds exactly 0
    "average of the past": dict(ONE_BLOCK, frozen=("W_Q", "W_K")),  # every score 0: uniform weights
    "one head": ONE_BLOCK,
    "four heads": dict(ONE_BLOCK, n_heads=4),
    "+ feed-forward": dict(ONE_BLOCK, n_heads=4, d_ff=D_FF),
    "three blocks": dict(ONE_BLOCK, n_heads=4, d_ff=D_FF, n_layers=3),
    "+ residual": dict(ONE_BLOCK, n_heads=4, d_ff=D_FF, n_layers=3, residual=True),
    "+ LayerNorm": dict(ONE_BLOCK, n_heads=4, d_ff=D_FF, n_layers=3, residual=True, layer_norm=True),
}


@functools.cache
def shakespeare():
    """The training plays and the held-out play as character ids, and the vocabulary of the training plays."""
    train, validation = split_text("shakespeare")
    chars = vocabulary(train)
    return encode(train, chars), encode(validation, chars), chars


# --8<-- [end:ladder-setup]


# --8<-- [start:train-rung]
def rung_params(rung, seed, vocab_size):
    """The rung's initial parameters, its frozen arrays set to 0, and how many numbers training changes."""
    # scale_residual=False: W_O and W_2 start at one scale in every rung, so the step to 3 blocks adds depth alone
    sizes = dict(n_layers=rung["n_layers"], layer_norm=rung["layer_norm"], scale_residual=False)
    params = init_params(
        vocab_size, D_MODEL, rung["d_ff"], seed=seed, output_scale=0.1, positions="learned", n_ctx=SEQ_LEN, **sizes
    )
    for name in rung["frozen"]:
        params[name][:] = 0.0
    return params, sum(p.size for name, p in params.items() if name not in rung["frozen"])


def train_rung(rung, seed, steps=STEPS):
    """The rung trained for `steps` AdamW steps of BATCH_SIZE random windows: its parameters and the loss of
    every step."""
    train_ids, _, chars = shakespeare()
    params, _ = rung_params(rung, seed, len(chars))
    names = list(params)
    optimizer = make_optimizer(params, lr=LR, weight_decay=WEIGHT_DECAY)  # AdamW; only the matrices decay
    rng = np.random.default_rng(seed)
    offsets = np.arange(SEQ_LEN + 1)
    losses = []
    for _ in range(steps):
        starts = rng.integers(0, len(train_ids) - SEQ_LEN, size=BATCH_SIZE)
        window = train_ids[starts[:, None] + offsets]  # (32, 9): the inputs and, shifted by one, the targets
        loss, grads = loss_and_grads(params, window[:, :-1], window[:, 1:], rung["n_heads"], residual=rung["residual"])
        for name in rung["frozen"]:
            grads[name][:] = 0.0  # no gradient: Adam's step is 0, and the decay of 0 is 0
        optimizer.step([grads[name] for name in names])
        losses.append(loss)
    return params, np.array(losses)


def char_losses(params, rung, ids):
    """The loss of every character of `ids` but the first, read in consecutive windows of SEQ_LEN characters
    (so each character is predicted once, from the characters before it in its window)."""
    n_windows = (len(ids) - 1) // SEQ_LEN
    x = ids[: n_windows * SEQ_LEN].reshape(n_windows, SEQ_LEN)
    y = ids[1 : n_windows * SEQ_LEN + 1].reshape(n_windows, SEQ_LEN)
    losses = []
    for rows in np.array_split(np.arange(n_windows), max(1, n_windows // 2048)):
        logits, _ = forward(params, x[rows], rung["n_heads"], residual=rung["residual"])
        log_p = log_softmax(logits)
        losses.append(-np.take_along_axis(log_p, y[rows][..., None], axis=-1)[..., 0].ravel())
    return np.concatenate(losses)


# --8<-- [end:train-rung]


# --8<-- [start:counted-bigram]
def training_stretch():
    """The stretch of the training plays, as long as the held-out play, on which each rung's training loss is read."""
    train_ids, val_ids, _ = shakespeare()
    start = np.random.default_rng(12345).integers(0, len(train_ids) - len(val_ids))
    return train_ids[start : start + len(val_ids)]


def counted_bigram(smoothing=0.1):
    """The table of character pairs counted in the training plays (each count + 0.1, so no pair has probability
    0), the best bigram for them up to the 0.1: its loss on the held-out play and on the training stretch, each
    on the characters `char_losses` predicts there, so that it compares with the rungs like for like."""
    train_ids, val_ids, chars = shakespeare()
    counts = np.full((len(chars), len(chars)), smoothing)
    np.add.at(counts, (train_ids[:-1], train_ids[1:]), 1.0)  # each character and the next
    log_p = np.log(counts / counts.sum(axis=1, keepdims=True))

    def loss(ids):
        n = (len(ids) - 1) // SEQ_LEN * SEQ_LEN  # the characters of whole windows of SEQ_LEN
        return float(-log_p[ids[:n], ids[1 : n + 1]].mean())

    return loss(val_ids), loss(training_stretch())


# --8<-- [end:counted-bigram]


def settings() -> dict:
    """What the stored ladder is made from."""
    return dict(
        seq_len=SEQ_LEN, d_model=D_MODEL, d_ff=D_FF, steps=STEPS, batch_size=BATCH_SIZE, lr=LR,
        weight_decay=WEIGHT_DECAY, seeds=list(SEEDS), block=BLOCK, dtype="float64",
        rungs={name: {key: list(value) if isinstance(value, tuple) else value for key, value in rung.items()}
               for name, rung in RUNGS.items()},
    )  # fmt: skip


def replay(steps: int) -> np.ndarray:
    """The losses of the first `steps` steps of every rung, seed 0: what the stored run's fingerprint holds."""
    return np.array([train_rung(rung, seed=0, steps=steps)[1] for rung in RUNGS.values()])


@stored_run("ladder", replay=replay, settings=settings)
def run_ladder() -> dict:
    """Every rung trained with every seed: the loss of each block of the held-out play, the training loss on
    as many characters of the training plays, the mean loss of every 100 steps, the CPU time of each training."""
    train_ids, val_ids, chars = shakespeare()
    train_sample = training_stretch()  # a stretch of the training plays as long as the play
    shape = (len(RUNGS), len(SEEDS))
    blocks = -(-((len(val_ids) - 1) // SEQ_LEN * SEQ_LEN) // BLOCK)
    result = {"val_block_sums": np.zeros((*shape, blocks), np.float32), "train_loss": np.zeros(shape)}
    result |= {"step_loss": np.zeros((*shape, STEPS // 100)), "cpu_seconds": np.zeros(shape)}
    for r, rung in enumerate(RUNGS.values()):
        for s, seed in enumerate(SEEDS):
            start = time.process_time()
            params, losses = train_rung(rung, seed)
            result["cpu_seconds"][r, s] = time.process_time() - start
            val = char_losses(params, rung, val_ids)
            result["val_block_sums"][r, s] = np.add.reduceat(val, np.arange(0, len(val), BLOCK))
            result["train_loss"][r, s] = char_losses(params, rung, train_sample).mean()
            result["step_loss"][r, s] = losses.reshape(-1, 100).mean(axis=1)
            print(f"{list(RUNGS)[r]:20s} seed {seed}: validation {val.mean():.4f}", flush=True)
    val_chars = (len(val_ids) - 1) // SEQ_LEN * SEQ_LEN
    result["block_counts"] = np.diff(np.append(np.arange(0, val_chars, BLOCK), val_chars))
    result["n_trained"] = [rung_params(rung, 0, len(chars))[1] for rung in RUNGS.values()]
    return result | {"text": "shakespeare"}


# --8<-- [start:ladder-results]
@functools.cache
def ladder():
    """The stored run: {rung: its validation loss for each seed}, and the stored arrays."""
    run = load_run("ladder")
    val = run["val_block_sums"].sum(axis=-1) / run["block_counts"].sum()  # (rungs, seeds): mean over the play
    return dict(zip(RUNGS, val)), run


# --8<-- [end:ladder-results]


# --8<-- [start:statistics]
def t_tail(t, df):
    """P(|T| >= |t|) for Student's t with `df` degrees of freedom: the regularized incomplete beta function
    I_x(df / 2, 1 / 2) at x = df / (df + t^2), by its continued fraction (Numerical Recipes, section 6.4)."""
    x, a, b = df / (df + t * t), df / 2.0, 0.5
    if x >= 1.0:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * beta_fraction(a, b, x) / a
    return 1.0 - front * beta_fraction(b, a, 1.0 - x) / b


def beta_fraction(a, b, x, tiny=1e-300):
    """The continued fraction of the incomplete beta function, evaluated by Lentz's method."""
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    value = d
    for m in range(1, 500):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):  # fmt: skip
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            value *= c * d
        if abs(c * d - 1.0) < 1e-15:
            break
    return value


def holm(p_values):
    """Holm's step-down adjustment: the k-th smallest of m p-values times (m - k + 1), never below the one
    before it, at most 1. Reject where the adjusted p is below the level: the family-wise error stays at it."""
    p = np.asarray(p_values, dtype=float)
    order = np.argsort(p)
    scaled = np.minimum(1.0, p[order] * (len(p) - np.arange(len(p))))
    adjusted = np.empty_like(p)
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


def block_bootstrap(block_diffs, counts, length, draws=10_000, seed=0):
    """Standard error of the mean difference over the play when the play is resampled: consecutive stored
    blocks grouped into blocks of `length` characters, drawn with replacement, as many as the play has."""
    group = length // BLOCK
    starts = np.arange(0, len(counts), group)
    diffs, sizes = np.add.reduceat(block_diffs, starts), np.add.reduceat(counts, starts)
    picks = np.random.default_rng(seed).integers(0, len(diffs), size=(draws, len(diffs)))
    return float((diffs[picks].sum(axis=1) / sizes[picks].sum(axis=1)).std(ddof=1)), len(diffs)


def compare(before, after, length):
    """One step of the ladder: the difference of the validation loss (after minus before) seed by seed, their
    mean, the standard error from the seeds and from the text, the combined t, its degrees of freedom
    (Welch-Satterthwaite) and its two-sided p."""
    _, run = ladder()
    names = list(RUNGS)
    sums = run["val_block_sums"][names.index(after)] - run["val_block_sums"][names.index(before)]  # (seeds, blocks)
    per_seed = sums.sum(axis=1) / run["block_counts"].sum()
    n_seeds = len(per_seed)
    seed_var = per_seed.var(ddof=1) / n_seeds
    text_se, n_blocks = block_bootstrap(sums.mean(axis=0), run["block_counts"], length)
    se = math.sqrt(seed_var + text_se**2)
    df = se**4 / (seed_var**2 / (n_seeds - 1) + text_se**4 / (n_blocks - 1))
    t = per_seed.mean() / se
    return dict(per_seed=per_seed, mean=per_seed.mean(), seed_se=math.sqrt(seed_var), text_se=text_se, t=t, df=df,
                p=t_tail(t, df))  # fmt: skip


# --8<-- [end:statistics]


# --8<-- [start:karpathy]
KARPATHY = {  # the validation losses "Let's build GPT" prints for its rungs on Tiny Shakespeare (rounded, one run each)
    "bigram": "2.49",
    "one head": "2.40",
    "four heads": "2.28",
    "+ feed-forward": "2.24",
    "+ residual": "2.08",
    "+ LayerNorm": "2.06",
}
# --8<-- [end:karpathy]


# --8<-- [start:verdicts]
TEXT_BLOCK = 4096  # characters per block when the held-out play is resampled (about a scene's page; see the fold)
LEVEL = 0.05  # family-wise: the chance that any of the seven verdicts "established" is wrong stays below 5 %


def steps():
    """Every step of the ladder, each rung against the one below it, with Holm's adjusted p over the seven."""
    names = list(RUNGS)
    results = {after: compare(before, after, TEXT_BLOCK) for before, after in zip(names, names[1:])}
    for result, adjusted in zip(results.values(), holm([r["p"] for r in results.values()])):
        result["holm"] = adjusted
        result["verdict"] = "established" if adjusted < LEVEL else "not established"
    return results


# --8<-- [end:verdicts]


def t_point(alpha, df):
    """The |t| whose two-sided tail probability is `alpha` (bisection on t_tail)."""
    low, high = 0.0, 1e3
    for _ in range(200):
        middle = (low + high) / 2
        low, high = (middle, high) if t_tail(middle, df) > alpha else (low, middle)
    return (low + high) / 2


@figure("ladder-losses")
# --8<-- [start:ladder-losses]
def ladder_losses() -> Figure:
    """The validation loss of each rung: every seed a dot, the mean a bar, Karpathy's number a diamond."""
    losses, _ = ladder()
    fig = Figure(figsize=(4.2, 3.9))
    ax = fig.subplots()
    for row, (name, seeds) in enumerate(losses.items()):
        ax.plot(seeds, [row] * len(seeds), "o", color="C0", markersize=4, alpha=0.8)
        ax.plot([seeds.mean()] * 2, [row - 0.32, row + 0.32], color="C1", lw=2.5)
        if name in KARPATHY:
            ax.plot(float(KARPATHY[name]), row, "D", color="C2", markersize=5, markerfacecolor="none")
    ax.plot([], [], "o", color="C0", markersize=4, label="a seed")
    ax.plot([], [], color="C1", lw=2.5, label="mean")
    ax.plot([], [], "D", color="C2", markersize=5, markerfacecolor="none", label="Karpathy")
    ax.set_yticks(range(len(losses)), list(losses))
    ax.invert_yaxis()  # the ladder from the top
    ax.set_xlabel("validation loss (nats per character)")
    ax.legend(fontsize=11, loc="lower center", bbox_to_anchor=(0.4, 1.0), ncol=3, frameon=False,
              handletextpad=0.3, columnspacing=1.0)  # fmt: skip
    return fig


# --8<-- [end:ladder-losses]


@figure("ladder-steps")
# --8<-- [start:ladder-steps]
def ladder_steps() -> Figure:
    """Each step of the ladder: the change of the validation loss seed by seed (dots), its mean (bar) and
    95 % interval from seeds and text together, coloured by the verdict after Holm's correction. A step too
    large for the axis is an arrow at its edge, with its mean written beside it."""
    results = steps()
    low, high = -0.2, 0.07
    fig = Figure(figsize=(4.2, 3.6))
    ax = fig.subplots()
    colours = {"established": "C0", "not established": "C1"}
    for row, result in enumerate(results.values()):
        colour, mean = colours[result["verdict"]], result["mean"]
        if not low <= mean <= high:  # off the axis: an arrow at the edge and the mean in words
            edge = low + 0.006 if mean < low else high - 0.006
            ax.plot(edge, row, "<" if mean < low else ">", color=colour, markersize=8)
            shift = 0.01 if mean < low else -0.01
            ax.text(edge + shift, row, f"{mean:+.2f}".replace("-", "\u2212"), va="center",
                    ha="left" if mean < low else "right", color=colour, fontsize=11)  # fmt: skip
            continue
        half = t_point(LEVEL, result["df"]) * math.sqrt(result["seed_se"] ** 2 + result["text_se"] ** 2)
        ax.plot([mean - half, mean + half], [row, row], color=colour, lw=1.5)
        ax.plot(result["per_seed"], [row] * len(result["per_seed"]), "o", color=colour, markersize=3.5)
        ax.plot([mean] * 2, [row - 0.3, row + 0.3], color=colour, lw=2.5)
    for word, colour in colours.items():
        ax.plot([], [], "o-", color=colour, markersize=3.5, label=word)
    ax.axvline(0.0, color="C2", ls="--", lw=1)  # no change
    ax.set_xlim(low, high)
    ax.set_yticks(range(len(results)), list(results))
    ax.invert_yaxis()
    ax.set_xlabel("change of the loss (nats; below 0: better)")
    ax.legend(fontsize=11, loc="lower center", bbox_to_anchor=(0.4, 1.0), ncol=2, frameon=False,
              handletextpad=0.3, columnspacing=1.0)  # fmt: skip
    return fig


# --8<-- [end:ladder-steps]
