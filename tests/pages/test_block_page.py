"""What docs/part-4/block.md says in words about its modular-addition experiment matches the output printed
above it (the page's block test checks that output against a fresh run), the algebra it gives for the linear
feed-forward layer holds, erf is the Phi it defines, rescaled, and the longer runs it quotes are redone here (slow)."""

from __future__ import annotations

import functools
import math
import re

import numpy as np
import pytest

from tests.pages import prose
from transformer_math.train import train
from transformer_math.transformer import forward, init_params

PAGE = prose.source("part-4/block.md")


says = functools.partial(prose.says, "part-4/block.md")

P = 7
A, B = np.divmod(np.arange(P * P), P)
TOKENS = np.stack([A, B], axis=1)
TARGETS = np.stack([B, (A + B) % P], axis=1)
MODELS = [(0, "relu"), (64, "identity"), (64, "relu")]


def sums_right() -> dict[str, list[int]]:
    """Each printed row of the experiment: the model's name and the sums right for seeds 0, 1, 2."""
    rows = re.findall(r"^(.+?)\s+sums right, seeds 0, 1, 2: \[(.+?)\] of 49$", PAGE, flags=re.M)
    return {name: [int(n) for n in counts.split(",")] for name, counts in rows}


def span(counts: list[int]) -> str:
    return f"{min(counts)} to {max(counts)}"


def right_after(d_ff, activation, seed, steps, lr, layer_norm=False):
    """The page's experiment for one model and seed, with another budget."""
    params = init_params(vocab_size=P, d_model=16, d_ff=d_ff, seed=seed, layer_norm=layer_norm)
    train(params, TOKENS, TARGETS, n_heads=1, steps=steps, lr=lr, activation=activation)
    logits, _ = forward(params, TOKENS, n_heads=1, activation=activation)
    return int((logits[:, 1].argmax(axis=-1) == TARGETS[:, 1]).sum())


def test_the_page_states_its_budget_and_runs_without_layer_norm():
    assert "steps=400, lr=0.02" in PAGE and says("repeated 400 times at $\\eta = 0.02$")
    assert "seed=seed, layer_norm=False)" in PAGE and says("No model has LayerNorm (`layer_norm=False`), itself a bend")


def test_the_three_models_are_described_by_their_counts():
    found = sums_right()
    assert list(found) == ["no FFN", "d_ff = 64, identity", "d_ff = 64, relu"]
    none, linear, relu = found.values()
    assert says(f"With the ReLU, {span(relu)} sums right (chance is 7); without it, {span(none + linear)},")
    assert max(none + linear) < min(relu)
    # "the linear FFN no better than none": over the three seeds, within a sum per seed of the model without one
    assert abs(sum(linear) - sum(none)) <= len(none) and says("the linear FFN no better than none")


def test_without_layer_norm_a_linear_ffn_is_a_read_out_w_u_alone_can_be():
    params = init_params(vocab_size=P, d_model=16, d_ff=64, seed=0, layer_norm=False)
    train(params, TOKENS, TARGETS, n_heads=1, steps=20, lr=0.02, activation="identity")
    logits, cache = forward(params, TOKENS, n_heads=1, activation="identity")
    constant = params["b_1"] @ params["W_2"] + params["b_2"]
    merged = cache["x1"] @ (np.eye(16) + params["W_1"] @ params["W_2"]) @ params["W_U"] + constant @ params["W_U"]
    assert np.allclose(logits, merged, atol=1e-12)
    assert says(
        "$(X_1 + X_1 W_1 W_2 + c)\\, W_U = X_1 (I + W_1 W_2)\\, W_U + c\\, W_U$ is a read-out $W_U$ alone can be"
    )


@pytest.mark.slow  # twelve runs of 2,000 steps
def test_the_longer_run_keeps_the_ranking_and_layer_norm_bends_the_linear_model():
    steps, lr = 2000, 0.005
    assert steps // 400 == 5 and says("Five times the steps (2,000 at $\\eta = 0.005$)")
    none, linear, relu = [[right_after(d_ff, act, seed, steps, lr) for seed in range(3)] for d_ff, act in MODELS]
    assert max(none + linear) < min(relu)
    assert says(f"give {span(none)}, {span(linear)} and {span(relu)}.")
    with_norm = [right_after(64, "identity", seed, steps, lr, layer_norm=True) for seed in range(3)]
    assert max(with_norm) > max(linear) + 5 and says(f"and in that long run gets {span(with_norm)}")


def test_erf_is_phi_rescaled_to_run_from_minus_1_to_1():
    """erf(z) = 2 Phi(z sqrt 2) - 1, with Phi the area left of u under the standard normal density, summed here."""
    grid = np.linspace(-12.0, 4.0, 160_001)  # Phi(u) for u up to 4: the density is ~1e-32 below -12
    density = np.exp(-(grid**2) / 2) / math.sqrt(2 * math.pi)
    phi_cdf = np.concatenate([[0.0], np.cumsum((density[1:] + density[:-1]) / 2 * np.diff(grid))])
    for z in (-2.0, -0.5, 0.0, 0.7, 2.5):
        assert 2 * np.interp(z * math.sqrt(2), grid, phi_cdf) - 1 == pytest.approx(math.erf(z), abs=1e-8)
    assert says(
        "the *error function*\n$\\operatorname{erf}(z) = 2\\Phi(z\\sqrt 2) - 1$, $\\Phi$ rescaled to run from $-1$ to $1$"
    )
    assert says(
        "read backwards,\n$\\Phi(u) = \\frac12\\big(1 + \\operatorname{erf}(u / \\sqrt 2)\\big)$, with `math.erf`"
    )
