"""Everything docs/part-4/training.md draws or includes."""

from __future__ import annotations

import functools

import numpy as np
from matplotlib.figure import Figure

from tools.explorers import (
    Explorer,
    build,
    dot,
    explorer,
    heatmap,
    line,
    num,
    polyline,
    slider,
    svg,
    text,
)
from tools.figures import figure
from transformer_math.train import make_optimizer
from transformer_math.transformer import forward, generate, init_params, loss_and_grads, make_windows


@functools.cache  # both themes draw the same run: train once
# --8<-- [start:fables-run]
def fables_run():
    """Training and validation loss of the character model on Aesop's fables, every 25 of 700 AdamW steps."""
    from transformer_math.data import load_text
    from transformer_math.information import cross_entropy_from_logits
    from transformer_math.train import make_optimizer
    from transformer_math.transformer import forward, init_params, loss_and_grads, make_windows

    text = load_text("aesop")
    chars = sorted(set(text))
    ids = np.array([chars.index(c) for c in text])
    split = int(0.9 * len(ids))
    x_train, y_train = make_windows(ids[:split], seq_len=16)
    x_val, y_val = make_windows(ids[split:], seq_len=16)
    params = init_params(vocab_size=len(chars), d_model=32, d_ff=32, seed=0, output_scale=0.1)
    names = list(params)
    optimizer = make_optimizer(params, lr=0.01, weight_decay=0.01)  # AdamW; only the matrices decay
    rng = np.random.default_rng(0)

    def mean_loss(x, y):
        logits, _ = forward(params, x, n_heads=2)
        return cross_entropy_from_logits(logits, y)

    steps, train_curve, val_curve = [], [], []
    for step in range(701):
        if step % 25 == 0:
            steps.append(step)
            train_curve.append(mean_loss(x_train[::8], y_train[::8]))  # every 8th window: 506
            val_curve.append(mean_loss(x_val, y_val))
        if step == 700:
            break
        rows = rng.integers(0, len(x_train), size=32)
        _, grads = loss_and_grads(params, x_train[rows], y_train[rows], n_heads=2)
        optimizer.step([grads[name] for name in names])
    return steps, train_curve, val_curve, len(chars)


# --8<-- [end:fables-run]


# The chapter's toy set-up, defined once for its figures, its explorer and the tests. The page's blocks type it
# out again on purpose: each of them runs alone, as a reader who copies one would run it.
# --8<-- [start:cat-mat]
VOCAB = ["the", "cat", "sat", "on", "mat"]
STREAM = [VOCAB.index(word) for word in "the cat sat on the mat the cat sat on the mat the cat".split()]
SEQ_LEN, N_HEADS, STEPS, LR = 8, 2, 300, 0.01
SIZES = {"vocab_size": 5, "d_model": 8, "d_ff": 32, "seed": 0}
SNAPSHOTS = [0, 5, 10, 15, 20, 25, 30, 40, 50, 75, 100, 150, 200, 250, 300]


# --8<-- [end:cat-mat]
@functools.cache  # two figures, both themes and the explorer draw the same run: train once per build
# --8<-- [start:training-run]
def training_run():
    """The page's run (the loop of `train`: 300 AdamW steps on the six windows), and at every step of
    ``SNAPSHOTS``: the losses so far, head 2's attention on the first window, and the greedy text from "the".
    Returns the losses of steps 0..300, the snapshots, and the trained parameters."""
    inputs, targets = make_windows(STREAM, seq_len=SEQ_LEN)
    params = init_params(**SIZES)
    names = list(params)
    optimizer = make_optimizer(params, lr=LR, weight_decay=0.01)  # AdamW; only the matrices decay
    losses, seen = [], {}
    for step in range(STEPS + 1):
        loss, grads = loss_and_grads(params, inputs, targets, n_heads=N_HEADS)
        losses.append(loss)  # the loss after `step` updates
        if step in SNAPSHOTS:
            _, cache = forward(params, inputs[0], n_heads=N_HEADS)
            words = generate(params, [0], n_new=11, n_heads=N_HEADS, context=SEQ_LEN)
            seen[step] = (list(losses), cache["weights"][1], words)
        if step < STEPS:
            optimizer.step([grads[name] for name in names])
    return losses, seen, params


# --8<-- [end:training-run]


@figure("training-loss-curve")
# --8<-- [start:training-loss-curve]
def training_loss_curve() -> Figure:
    """The loss of the one-block Transformer during 300 AdamW steps on "the cat sat on the mat"."""
    losses = training_run()[0][:STEPS]  # what `train` returns: the loss before each of the 300 updates
    n_targets = (len(STREAM) - SEQ_LEN) * SEQ_LEN
    floor = 2 * np.log(2) / n_targets  # two unpredictable first tokens

    fig = Figure(figsize=(7, 3.8))
    ax = fig.subplots()
    ax.plot(losses, color="C0", label="cross entropy (nats)")
    ax.axhline(np.log(5), color="C3", ls=":", label="ln 5: uniform guess")
    ax.axhline(floor, color="C2", ls="--", label=f"floor 2 ln 2 / {n_targets} = {floor:.4f}")
    ax.set_yscale("log")
    ax.set_xlabel("AdamW step")
    ax.set_ylabel("loss")
    ax.legend(fontsize=9)
    return fig


# --8<-- [end:training-loss-curve]


@figure("trained-attention")
# --8<-- [start:trained-attention]
def trained_attention() -> Figure:
    """The attention weights of both heads of the trained model on one training window."""
    params = training_run()[2]
    window = make_windows(STREAM, seq_len=SEQ_LEN)[0][0]
    _, cache = forward(params, window, n_heads=N_HEADS)
    words = [VOCAB[t] for t in window]

    fig = Figure(figsize=(9, 4.2))
    axes = fig.subplots(1, 2)
    for head, ax in enumerate(axes):
        image = ax.imshow(cache["weights"][head], cmap="viridis", vmin=0, vmax=1)
        ax.set_xticks(range(8), words, rotation=60)
        ax.set_yticks(range(8), words)
        ax.set_title(f"head {head + 1}", fontsize=11)
        ax.set_xlabel("key")
        ax.grid(False)
    axes[0].set_ylabel("query")
    fig.colorbar(image, ax=list(axes), shrink=0.8)
    return fig


# --8<-- [end:trained-attention]


@figure("train-validation-loss")
# --8<-- [start:train-validation-loss]
def train_validation_loss() -> Figure:
    """The two loss curves of `fables_run`, the lowest validation loss marked."""
    steps, train_curve, val_curve, n_chars = fables_run()
    best = int(np.argmin(val_curve))
    fig = Figure(figsize=(7, 3.8))
    ax = fig.subplots()
    ax.plot(steps, train_curve, color="C0", marker=".", label="training part (90 %)")
    ax.plot(steps, val_curve, color="C1", marker=".", label="validation part (10 %)")
    ax.axhline(np.log(n_chars), color="C3", ls=":", label=f"ln {n_chars}: uniform guess")
    ax.plot([steps[best]], [val_curve[best]], "o", color="C1", fillstyle="none", markersize=10)
    ax.annotate(
        f"lowest validation loss {val_curve[best]:.2f} at step {steps[best]}",
        (steps[best], val_curve[best]),
        xytext=(0, 28),
        textcoords="offset points",
        ha="center",
        fontsize=9,
    )
    ax.set_xlabel("AdamW step")
    ax.set_ylabel("loss (nats per character)")
    ax.legend(fontsize=9, loc="upper right", bbox_to_anchor=(1.0, 0.92))  # below the ln V line
    return fig


# --8<-- [end:train-validation-loss]


@explorer("training-run")
def training_explorer() -> Explorer:
    run = training_run()[1]
    x0, y0, w, h = 40, 30, 300, 110  # the loss curve: steps 0..300, log10 loss from -2 to 0.5
    at = lambda step, loss: (x0 + w * step / 300, y0 + h * (0.5 - np.log10(loss)) / 2.5)  # noqa: E731
    window = [VOCAB[t] for t in STREAM[:SEQ_LEN]]  # the first window of the stream

    def draw(step: str) -> str:
        k = int(float(step))
        losses, weights, tokens = run[k]
        body = [line(x0, y0, x0, y0 + h), line(x0, y0 + h, x0 + w, y0 + h)]
        for value in (0.01, 0.1, 1):
            body.append(text(x0 - 4, at(0, value)[1] + 4, f"{value:g}", anchor="end", size=11))
        body.append(text(x0 + w, y0 + h + 14, "step 300", anchor="end", size=11))
        body.append(text(x0 + 4, y0 - 8, "training loss (log scale)", anchor="start"))
        body.append(polyline([at(i, loss) for i, loss in enumerate(losses)]))
        cx, cy = at(k, losses[-1])
        body.append(dot(cx, cy, num(losses[-1]), f"loss at step {k}: {num(losses[-1])}", cls="xp-2", r=4))
        label = f"step {k}: loss {num(losses[-1])}"
        body.append(text(cx + 6 if cx < 200 else cx - 6, cy - 8, label, anchor="start" if cx < 200 else "end"))
        top, cell, left = 182, 22, 80
        body.append(text(20, top - 14, "head 2 on the first window (rows attend to columns)", anchor="start"))
        body += heatmap(weights, left, top, cell, lambda r, c: f"{window[r]} ({r + 1}) to {window[c]} ({c + 1})")
        for n, word in enumerate(window):
            body.append(text(left - 4, top + n * cell + cell / 2 + 4, word, anchor="end", size=11))
            body.append(text(left + n * cell + cell / 2, top + 8 * cell + 12, word, size=9))
        words = "".join(f'<tspan data-value="{t}">{VOCAB[t]} </tspan>' for t in tokens)
        body.append(text(20, top + 8 * cell + 34, 'greedy text from "the":', anchor="start"))
        body.append(f'<text class="xp-ink" x="20" y="{top + 8 * cell + 52}" font-size="12">{words}</text>')
        return svg(360, top + 8 * cell + 62, f"The training run at step {k}", body)

    control = slider("step", "Training step", SNAPSHOTS, 300, lambda s: f"step {s:g} of 300")
    caption = "One run of 300 AdamW steps: the loss so far, one head's attention, and the text it writes greedily."
    return build("training-run", caption, [control], draw)
