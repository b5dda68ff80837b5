"""What docs/part-2/practice.md includes and draws: a character bigram model of Aesop's fables, 2 figures.

The chapter “Practice: a character model of Aesop's fables”. A function registered with ``@figure`` is drawn by
``hooks/figures.py`` as ``figures/NAME.light.svg`` and ``figures/NAME.dark.svg``. The page shows the sections
between ``--8<--`` markers; every block of the page starts with the section ``setup``.
"""

from __future__ import annotations

import functools

import numpy as np
from matplotlib.figure import Figure

from tools.figures import figure


def fables_setup():
    """The fables as token ids, split into training and held-out text, and the bigram counts of the training part."""
    # --8<-- [start:setup]
    import numpy as np

    from transformer_math.data import load_text

    text = load_text("aesop")
    vocab = sorted(set(text))
    V = len(vocab)
    ids = np.array([vocab.index(c) for c in text])
    cut = int(0.9 * len(ids))
    x, y = ids[: cut - 1], ids[1:cut]
    x_held, y_held = ids[cut:-1], ids[cut + 1 :]

    counts = np.zeros((V, V))
    np.add.at(counts, (x, y), 1)  # counts[a, b]: b follows a
    # --8<-- [end:setup]
    return text, vocab, V, x, y, x_held, y_held, counts


@functools.cache
def logit_table_run(lr=50.0, steps=3000):
    """Gradient descent on the logit table from W = 0; returns W and (step, training loss, held-out loss) rows."""
    from transformer_math.information import cross_entropy_from_logits
    from transformer_math.softmax import softmax

    text, vocab, V, x, y, x_held, y_held, counts = fables_setup()
    record = set(range(0, 20)) | set(range(20, 200, 5)) | set(range(200, steps + 1, 50))  # steps to measure
    history = []
    # --8<-- [start:train]
    N = len(x)
    n = counts.sum(axis=1, keepdims=True)  # n[a]: how many training positions have previous character a
    W = np.zeros((V, V))  # the logit table: row a holds the logits of the character after a
    for step in range(steps + 1):
        if step in record:
            history.append((step, cross_entropy_from_logits(W[x], y), cross_entropy_from_logits(W[x_held], y_held)))
        # the sum over positions of p - onehot(y), row by row: n[a] * softmax(W[a]) - counts[a]
        grad = (n * softmax(W) - counts) / N
        W -= lr * grad
    # --8<-- [end:train]
    return W, np.array(history)


@figure("fables-bigram-training")
def fables_bigram_training() -> Figure:
    """Training and held-out loss of the logit table, against the count model, ln V and the best smoothed model."""
    text, vocab, V, x, y, x_held, y_held, counts = fables_setup()
    W, history = logit_table_run()
    n = counts.sum(axis=1, keepdims=True)
    P = np.divide(counts, n, out=np.zeros_like(counts), where=n > 0)
    count_train = -np.mean(np.log(P[x, y]))
    smoothed = (counts + 0.1) / (n + 0.1 * V)
    smoothed_held = -np.mean(np.log(smoothed[x_held, y_held]))

    fig = Figure(figsize=(6, 4))
    ax = fig.subplots()
    steps, train, held = history.T
    ax.plot(steps, train, color="C0", label="logit table, training text")
    ax.plot(steps, held, color="C1", label="logit table, held-out text")
    ax.axhline(np.log(V), color="C3", linestyle=":", label=f"ln V = {np.log(V):.2f} (uniform)")
    ax.axhline(count_train, color="C0", linestyle="--", linewidth=1, label=f"counts, training ({count_train:.2f})")
    ax.axhline(smoothed_held, color="C2", linestyle="--", linewidth=1, label=f"add-0.1, held-out ({smoothed_held:.2f})")
    ax.set_xscale("symlog", linthresh=10)
    ax.set_xlim(0, steps[-1])
    ax.set_ylim(2.2, 4.2)
    ax.set_xlabel("gradient-descent step (log scale after 10)")
    ax.set_ylabel("loss, nats per character")
    ax.set_title("Learning the bigram table of the fables")
    ax.legend(fontsize=8, loc="upper right")
    return fig


@figure("fables-bigram-table")
def fables_bigram_table() -> Figure:
    """The counted table P(next | previous) beside the table gradient descent learned, for the commonest characters."""
    from matplotlib.colors import PowerNorm

    from transformer_math.softmax import softmax

    text, vocab, V, x, y, x_held, y_held, counts = fables_setup()
    W, _ = logit_table_run()
    n = counts.sum(axis=1, keepdims=True)
    counted = np.divide(counts, n, out=np.zeros_like(counts), where=n > 0)
    learned = softmax(W)
    common = np.argsort(-n[:, 0], kind="stable")[:12]  # the 12 commonest previous characters
    labels = [{" ": "␣", "\n": "⏎"}.get(vocab[a], vocab[a]) for a in common]

    fig = Figure(figsize=(7, 3.9))
    axes = fig.subplots(1, 2)
    for ax, table, title in [(axes[0], counted, "counted"), (axes[1], learned, "learned (3,000 steps)")]:
        image = ax.imshow(table[np.ix_(common, common)], cmap="viridis", norm=PowerNorm(0.5, vmin=0, vmax=1))
        ax.set_xticks(range(len(common)), labels)
        ax.set_yticks(range(len(common)), labels)
        ax.set_title(title, fontsize=11)
        ax.set_xlabel("next character")
        ax.grid(False)
    axes[0].set_ylabel("previous character")
    fig.colorbar(image, ax=list(axes), shrink=0.8, label="P(next | previous)")
    return fig
