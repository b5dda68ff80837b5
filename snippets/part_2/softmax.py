"""Everything docs/part-2/softmax.md draws or includes."""

from __future__ import annotations

import numpy as np
from matplotlib.figure import Figure

from tools.explorers import (
    Explorer,
    bars,
    build,
    explorer,
    num,
    slider,
    svg,
    text,
)
from tools.figures import figure
from transformer_math.information import entropy
from transformer_math.softmax import softmax


@figure("softmax-temperature")
# --8<-- [start:softmax-temperature]
def softmax_temperature() -> Figure:
    """One logit vector through softmax at three temperatures: a low one sharpens, a high one flattens."""
    from transformer_math.softmax import softmax

    tokens = ["cat", "dog", "bird", "fish"]
    logits = np.array([2.0, 1.0, 0.1, -1.0])
    temperatures = [0.5, 1.0, 2.0]
    width = 0.26

    fig = Figure(figsize=(7, 3.8))
    ax = fig.subplots()
    positions = np.arange(len(tokens))
    for k, t in enumerate(temperatures):
        p = softmax(logits, temperature=t)
        bars = ax.bar(positions + (k - 1) * width, p, width, color=f"C{k}", label=rf"$\tau$ = {t:g}")
        ax.bar_label(bars, fmt="%.2f", fontsize=8)
    ax.set_xticks(positions, [f"{tok}\nlogit {z:g}" for tok, z in zip(tokens, logits)])
    ax.set_ylabel("probability")
    ax.set_ylim(0, 1)
    ax.set_title(r"softmax(logits / $\tau$): the same logits at three temperatures")
    ax.legend(fontsize=9)
    return fig


# --8<-- [end:softmax-temperature]


# --8<-- [start:softmax-at-temperature]
def softmax_at_temperature(temperature):
    """The probabilities of cat, dog, bird and fish at one temperature, and their entropy in nats."""
    logits = np.array([2.0, 1.0, 0.1, -1.0])  # cat, dog, bird, fish
    probs = softmax(logits, temperature=temperature)
    return probs, entropy(probs)


# --8<-- [end:softmax-at-temperature]

TEMPERATURES = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 7.0, 10.0]


@explorer("softmax-temperature")
def softmax_temperature_explorer() -> Explorer:
    def draw(temperature: str) -> str:
        t = float(temperature)
        probs, h = softmax_at_temperature(t)
        body = bars(["cat", "dog", "bird", "fish"], probs, 40, 30, 300, 150)
        body.append(text(20, 18, f"logits 2, 1, 0.1, -1 at temperature {t:g}", anchor="start"))
        # the entropy as a bar from 0 to its largest possible value, ln 4 (uniform over four tokens)
        width = 300 * float(h) / np.log(4)
        body.append('<rect class="xp-track" x="40" y="216" width="300" height="12"/>')
        body.append(
            f'<rect class="xp-2" x="40" y="216" width="{width:.1f}" height="12" data-value="{num(h)}">'
            f"<title>entropy {num(h)} nats</title></rect>"
        )
        body.append(text(40, 246, f"entropy {num(h)} nats (at most ln 4 = {num(np.log(4))})", anchor="start"))
        return svg(360, 256, f"Softmax probabilities at temperature {t:g}", body)

    control = slider("temperature", "Temperature", TEMPERATURES, 1.0, lambda t: f"τ = {t:g}")
    caption = "Softmax of the logits of cat, dog, bird and fish, and the entropy of the result."
    return build("softmax-temperature", caption, [control], draw)
