"""Everything docs/part-4/depth.md draws or includes."""

from __future__ import annotations

import functools

import numpy as np
from matplotlib.figure import Figure

from tools.explorers import Explorer, build, dot, explorer, line, num, polyline, slider, svg, text
from tools.figures import figure
from transformer_math.attention import causal_mask, merge_heads, scaled_dot_product_attention, split_heads
from transformer_math.softmax import log_softmax
from transformer_math.train import make_optimizer
from transformer_math.transformer import forward, init_params, loss_and_grads

# The chapter's set-up, defined once for its figures, its explorer and the tests.
# --8<-- [start:setup]
V, EVAL_T, TEST = 32, 8, 64  # vocabulary; test period; test sequences
SIZES = {"vocab_size": V, "d_model": 32, "d_ff": 0, "seed": 0, "output_scale": 0.1, "layer_norm": False}
N_HEADS, STEPS, LR, BATCH = 2, 300, 0.02, 64
CHECKPOINTS = list(range(0, STEPS + 1, 25))


# --8<-- [end:setup]
# --8<-- [start:repeated-tokens]
def repeated_tokens(rng, n_sequences, period, vocab_size=32):
    """``n_sequences`` sequences of ``period`` random tokens followed by the same tokens again, cut into
    inputs (every token but the last) and targets (every token but the first): both ``(n, 2 period - 1)``."""
    block = rng.integers(0, vocab_size, size=(n_sequences, period))
    sequences = np.concatenate([block, block], axis=1)
    return sequences[:, :-1], sequences[:, 1:]


# --8<-- [end:repeated-tokens]
# --8<-- [start:copy-losses]
def position_losses(params, inputs, targets, n_heads=2):
    """The cross entropy at every position, averaged over the sequences: shape ``(2 period - 1,)``."""
    logits, _ = forward(params, inputs, n_heads)
    log_p = np.take_along_axis(log_softmax(logits), targets[..., None], axis=-1)[..., 0]
    return -log_p.mean(axis=0)


def copy_losses(params, inputs, targets, n_heads=2):
    """Mean loss on the first copy's targets (positions 0 .. T-1, which predict tokens 1 .. T) and on
    the second copy's (positions T .. 2T-2, each predictable from the first copy)."""
    losses, period = position_losses(params, inputs, targets, n_heads), (inputs.shape[1] + 1) // 2
    return losses[:period].mean(), losses[period:].mean()


# --8<-- [end:copy-losses]
# --8<-- [start:bayes]
def bayes_losses(inputs, targets, periods=range(5, 11), vocab_size=32):
    """The loss at each position of the best predictor that knows how the sequences are made but not their
    period: each period of ``periods`` (equally likely beforehand) weighted by the probability it gives the
    tokens so far, ``vocab_size ** -min(i + 1, period)`` if they repeat with that period and 0 if not.
    Averaged over the sequences: shape ``(2 period - 1,)``."""
    sequences = np.concatenate([inputs, targets[:, -1:]], axis=1)
    losses = np.zeros(inputs.shape)
    for s, seq in enumerate(sequences):
        for i in range(inputs.shape[1]):  # position i has seen seq[: i + 1] and predicts seq[i + 1]
            p, total = np.zeros(vocab_size), 0.0
            for period in periods:
                if i > 2 * period - 2:
                    continue  # a sequence of this period has no position i
                if i >= period and np.any(seq[period : i + 1] != seq[: i + 1 - period]):
                    continue  # a token seen so far contradicts this period
                weight = float(vocab_size) ** -min(i + 1, period)  # the free tokens seen so far
                if i + 1 < period:  # still inside the first copy: any token
                    p, total = p + weight / vocab_size, total + weight
                else:  # the copy has begun: the token one period back
                    p[seq[i + 1 - period]], total = p[seq[i + 1 - period]] + weight, total + weight
            losses[s, i] = -np.log(p[seq[i + 1]] / total)
    return losses.mean(axis=0)


# --8<-- [end:bayes]
@functools.cache  # the figures, both themes and the explorer share the runs: each trains once per build
# --8<-- [start:induction-run]
def induction_run(n_layers=2, seed=0):
    """AdamW (only the matrices decay) on BATCH fresh repeated sequences a step, their period drawn anew from
    5 to 10, in float32. Returns the trained parameters and, at every step of CHECKPOINTS, the two copies'
    losses on TEST test sequences of period EVAL_T, the attention weights of every layer on the first of
    them, and a copy of the parameters."""
    params = init_params(n_layers=n_layers, **dict(SIZES, seed=seed))
    params = {name: w.astype(np.float32) for name, w in params.items()}  # float32, as models are trained
    names = list(params)
    optimizer = make_optimizer(params, lr=LR, weight_decay=0.01)
    rng = np.random.default_rng(seed)
    test_x, test_y = repeated_tokens(np.random.default_rng(1), TEST, EVAL_T)
    history = {}
    for step in range(STEPS + 1):
        if step in CHECKPOINTS:
            _, cache = forward(params, test_x[0], N_HEADS)
            weights = [cache["weights"]] + [cache[f"h{layer}.weights"] for layer in range(1, n_layers)]
            history[step] = (*copy_losses(params, test_x, test_y), weights, {k: v.copy() for k, v in params.items()})
        if step == STEPS:
            return params, history
        x, y = repeated_tokens(rng, BATCH, period=rng.integers(5, 11))
        _, grads = loss_and_grads(params, x, y, N_HEADS)
        optimizer.step([grads[name] for name in names])


# --8<-- [end:induction-run]
# --8<-- [start:scores]
def previous_token_score(weights):
    """Mean weight a query puts on the position just before it: weights ``(..., n, n)`` -> ``(...)``."""
    return np.diagonal(weights, offset=-1, axis1=-2, axis2=-1).mean(axis=-1)


def induction_score(weights, period):
    """Mean weight a second-copy query i puts on position i - period + 1, the token that followed the
    earlier occurrence of its own token: the diagonal ``period - 1`` below the main one, from row ``period``."""
    return np.diagonal(weights, offset=1 - period, axis1=-2, axis2=-1)[..., 1:].mean(axis=-1)


# --8<-- [end:scores]
# --8<-- [start:paths]
def logit_paths(params, tokens, n_heads=2):
    """The logits of a two-layer attention-only model without LayerNorm, split into its paths: the direct
    one, one through each head, one through each pair of heads (layer 1's, then layer 2's)."""
    logits, cache = forward(params, tokens, n_heads)
    X0, W_U, d_head = cache["x0"], params["W_U"], params["W_Q"].shape[1] // n_heads
    A = {1: cache["weights"], 2: cache["h1.weights"]}  # (..., heads, n, n): layer 1's and layer 2's

    def ov(layer, head):  # W_OV = W_V W_O of one head, (d, d); layer 2's arrays are named h1.W_V, h1.W_O
        p, cols = "" if layer == 1 else "h1.", slice(head * d_head, (head + 1) * d_head)
        return params[p + "W_V"][:, cols] @ params[p + "W_O"][cols]

    def mix(layer, head, X):  # A X: each position's weighted average of the rows of X
        return A[layer][..., head, :, :] @ X

    paths = {"direct": X0 @ W_U}
    for h in range(n_heads):
        paths[f"1.{h + 1}"] = mix(1, h, X0) @ ov(1, h) @ W_U
    for g in range(n_heads):
        paths[f"2.{g + 1}"] = mix(2, g, X0) @ ov(2, g) @ W_U
    for h in range(n_heads):
        for g in range(n_heads):
            paths[f"1.{h + 1} then 2.{g + 1}"] = mix(2, g, mix(1, h, X0)) @ ov(1, h) @ ov(2, g) @ W_U
    return paths, logits


# --8<-- [end:paths]
# --8<-- [start:composition]
def layer_2_without(params, inputs, sides, head=0, n_heads=2):
    """The logits with head 1.(head + 1)'s write taken out of the stream that layer 2 reads on the given
    ``sides`` ("q", "k", "v": queries, keys, values) and kept everywhere else, the residual included."""
    _, cache = forward(params, inputs, n_heads)
    stream, d_head = cache["x2"], params["W_Q"].shape[1] // n_heads  # the stream after layer 1
    rows = slice(head * d_head, (head + 1) * d_head)
    write = cache["o"][..., rows] @ params["W_O"][rows]  # what that head added to the stream
    q, k, v = (
        split_heads((stream - write if side in sides else stream) @ params["h1.W_" + side.upper()], n_heads)
        for side in "qkv"
    )
    heads, _ = scaled_dot_product_attention(q, k, v, causal_mask(stream.shape[-2]))
    return (stream + merge_heads(heads) @ params["h1.W_O"]) @ params["W_U"]


# --8<-- [end:composition]


@figure("depth-copy-losses")
# --8<-- [start:depth-copy-losses]
def depth_copy_losses() -> Figure:
    """The loss on each copy during training, for the two-layer and the one-layer model."""
    fig = Figure(figsize=(7, 3.8))
    ax = fig.subplots()
    for n_layers, style in ((2, "-"), (1, "--")):
        history = induction_run(n_layers)[1]
        first = [history[step][0] for step in CHECKPOINTS]
        second = [history[step][1] for step in CHECKPOINTS]
        ax.plot(CHECKPOINTS, first, style, color="C0", label=f"{n_layers} layer{'s' * (n_layers > 1)}: first copy")
        ax.plot(CHECKPOINTS, second, style, color="C1", label=f"{n_layers} layer{'s' * (n_layers > 1)}: second copy")
    floor = bayes_losses(*repeated_tokens(np.random.default_rng(1), TEST, EVAL_T))[:EVAL_T].mean()
    ax.axhline(floor, color="C3", ls=":", label=f"best possible on the first copy, {floor:.2f}")
    ax.set_ylim(0, 4.5)
    ax.set_xlabel("AdamW step")
    ax.set_ylabel("loss (nats per token)")
    ax.legend(fontsize=8, ncol=2, loc="lower left")
    return fig


# --8<-- [end:depth-copy-losses]


@figure("depth-position-loss")
# --8<-- [start:depth-position-loss]
def depth_position_loss() -> Figure:
    """The trained models' loss at each position of the 64 test sequences of period 8, and the floor."""
    inputs, targets = repeated_tokens(np.random.default_rng(1), TEST, EVAL_T)
    positions = np.arange(inputs.shape[1])
    fig = Figure(figsize=(7, 3.6))
    ax = fig.subplots()
    for n_layers, colour, shift in ((2, "C0", -0.2), (1, "C2", 0.2)):
        losses = position_losses(induction_run(n_layers)[0], inputs, targets)
        ax.bar(positions + shift, losses, width=0.4, color=colour, label=f"{n_layers} layer{'s' * (n_layers > 1)}")
    ax.axhline(np.log(V), color="C3", ls=":", label=f"ln {V}")
    best = bayes_losses(inputs, targets)  # the floor: the best predictor that does not know the period
    ax.plot(positions, best, ls="none", marker="_", markersize=16, mew=2, color="C4", label="best possible")
    ax.axvline(EVAL_T - 0.5, color="C5", lw=1)
    ax.text(EVAL_T / 2 - 0.5, 4.3, "first copy", ha="center", fontsize=9)
    ax.text(EVAL_T + EVAL_T / 2 - 1, 4.3, "second copy", ha="center", fontsize=9)
    ax.set_xticks(positions)
    ax.set_ylim(0, 4.6)
    ax.set_xlabel("position of the prediction")
    ax.set_ylabel("loss (nats)")
    ax.legend(fontsize=9, loc="center left")
    return fig


# --8<-- [end:depth-position-loss]


@figure("depth-attention-maps")
# --8<-- [start:depth-attention-maps]
def depth_attention_maps() -> Figure:
    """The four heads of the trained two-layer model on one test sequence, with their two scores."""
    params = induction_run(2)[0]
    inputs, _ = repeated_tokens(np.random.default_rng(1), TEST, EVAL_T)
    _, cache = forward(params, inputs[0], N_HEADS)
    fig = Figure(figsize=(9, 8.4))
    axes = fig.subplots(2, 2)
    for layer, key in enumerate(("weights", "h1.weights")):
        for head in range(N_HEADS):
            ax, weights = axes[layer, head], cache[key][head]
            image = ax.imshow(weights, cmap="viridis", vmin=0, vmax=1)
            ax.set_title(
                f"layer {layer + 1}, head {head + 1}\nprevious-token {previous_token_score(weights):.2f}, "
                f"induction {induction_score(weights, EVAL_T):.2f}",
                fontsize=9,
            )
            ticks = range(len(weights))
            ax.set_xticks(ticks, [str(t) for t in inputs[0]], fontsize=7)
            ax.set_yticks(ticks, [str(t) for t in inputs[0]], fontsize=7)
            ax.grid(False)
        axes[layer, 0].set_ylabel("query (token id)")
    for ax in axes[1]:
        ax.set_xlabel("key (token id)")
    fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.6)
    return fig


# --8<-- [end:depth-attention-maps]


# --8<-- [start:formation]
def formation(step):
    """What the explorer draws at checkpoint ``step`` of the two-layer run.

    Returns the checkpoints so far, the two copies' losses at them, layer 2's head 2 on the first test
    sequence (its attention weights and its induction score), and the previous-token score of layer 1's
    head 1 on the same sequence."""
    history = induction_run(2)[1]
    seen = [s for s in CHECKPOINTS if s <= step]
    first = [history[s][0] for s in seen]
    second = [history[s][1] for s in seen]
    weights = history[step][2][1][1]  # layer 2, head 2
    previous = previous_token_score(history[step][2][0][0])  # layer 1, head 1
    return seen, first, second, weights, induction_score(weights, EVAL_T), previous


# --8<-- [end:formation]


@explorer("induction-formation")
def formation_explorer() -> Explorer:
    inputs, _ = repeated_tokens(np.random.default_rng(1), TEST, EVAL_T)
    tokens = inputs[0]
    n = len(tokens)
    x0, y0, w, h, top = 40, 50, 270, 110, 4.5  # the loss curves: steps 0..STEPS, loss 0..4.5
    at = lambda step, loss: (x0 + w * step / STEPS, y0 + h * (1 - loss / top))  # noqa: E731

    def draw(step: str) -> str:
        k = int(float(step))
        seen, first, second, weights, score, previous = formation(k)
        body = [text(10, 16, f"loss on each copy (nats), step {k} of {STEPS}", anchor="start")]
        body += [line(x0, y0, x0, y0 + h), line(x0, y0 + h, x0 + w, y0 + h)]
        for value in (0, 1, 2, 3, 4):
            body.append(text(x0 - 4, at(0, value)[1] + 4, f"{value}", anchor="end", size=11))
        body.append(text(x0, y0 + h + 14, "0", size=11))
        body.append(text(x0 + w, y0 + h + 14, f"{STEPS}", size=11))
        uniform = at(0, np.log(V))[1]
        body.append(line(x0, uniform, x0 + w, uniform, dashed=True))
        body.append(text(x0 + w + 4, uniform + 4, f"ln {V}", anchor="start", size=10))
        legend = ((first, "xp-1", "first copy", 10), (second, "xp-2", "second copy", 180))
        for losses, cls, name, x in legend:
            body.append(polyline([at(s, loss) for s, loss in zip(seen, losses)], cls=f"xp-line {cls}"))
            cx, cy = at(k, losses[-1])
            body.append(dot(cx, cy, num(losses[-1]), f"{name} at step {k}: {num(losses[-1])}", cls=cls, r=4))
            body.append(line(x, 33, x + 16, 33, cls=f"xp-line {cls}"))
            body.append(text(x + 20, 37, f"{name} {num(losses[-1], 2)}", anchor="start", size=11))
        top_y, cell, left = 226, 14, 70
        body.append(text(10, top_y - 24, "layer 2, head 2 on a test sequence of period 8", anchor="start"))
        body.append(text(10, top_y - 10, "(row: query, column: key; tokens are ids)", anchor="start", size=10))
        for i in range(n):
            for j in range(i + 1):  # the causal mask leaves the upper triangle at 0
                value, x, y = num(weights[i, j]), left + j * cell, top_y + i * cell
                body.append(
                    f'<rect class="xp-1" x="{x}" y="{y}" width="{cell - 1}" height="{cell - 1}" '
                    f'fill-opacity="{max(float(weights[i, j]), 0.06):.3f}" stroke-opacity="0" data-value="{value}">'
                    f"<title>query {i} (token {tokens[i]}) to key {j} (token {tokens[j]}): {value}</title></rect>"
                )
            body.append(text(left - 4, top_y + i * cell + cell - 3, str(tokens[i]), anchor="end", size=9))
            body.append(text(left + i * cell + cell / 2, top_y + n * cell + 10, str(tokens[i]), size=8))
        body.append(
            text(10, top_y + n * cell + 32, f"induction score {num(score, 2)}", anchor="start", value=num(score))
        )
        body.append(
            text(
                10,
                top_y + n * cell + 50,
                f"layer 1, head 1: previous-token score {num(previous, 2)}",
                anchor="start",
                value=num(previous),
            )
        )
        return svg(360, top_y + n * cell + 60, f"The two-layer run at step {k}", body)

    control = slider("step", "Training step", CHECKPOINTS, STEPS, lambda s: f"step {s:g} of {STEPS}")
    caption = (
        "One run of the two-layer attention-only model: the loss on each copy so far, layer 2's head 2, "
        "whose stripe below the diagonal is the induction pattern, and how sharp layer 1's previous-token head is."
    )
    return build("induction-formation", caption, [control], draw)
