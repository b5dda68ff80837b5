"""Everything docs/part-2/softmax.md draws or includes."""

from __future__ import annotations

import numpy as np

from tools.explorers import (
    Explorer,
    bars,
    build,
    explorer,
    slider,
    svg,
    text,
)
from transformer_math.softmax import softmax


# --8<-- [start:softmax-at-temperature]
def softmax_at_temperature(temperature):
    """The probabilities of cat, dog, bird and fish at one temperature."""
    logits = np.array([2.0, 1.0, 0.1, -1.0])  # cat, dog, bird, fish
    return softmax(logits, temperature=temperature)


# --8<-- [end:softmax-at-temperature]

TEMPERATURES = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 7.0, 10.0]


@explorer("softmax-temperature")
def softmax_temperature_explorer() -> Explorer:
    def draw(temperature: str) -> str:
        t = float(temperature)
        body = bars(["cat", "dog", "bird", "fish"], softmax_at_temperature(t), 40, 30, 300, 150)
        body.append(text(20, 18, f"logits 2, 1, 0.1, -1 at temperature {t:g}", anchor="start"))
        return svg(360, 216, f"Softmax probabilities at temperature {t:g}", body)

    control = slider("temperature", "Temperature", TEMPERATURES, 1.0, lambda t: f"τ = {t:g}")
    caption = "Softmax of the logits of cat, dog, bird and fish at the temperature you choose."
    return build("softmax-temperature", caption, [control], draw)
