"""The numbers Part III's prose states about the paths graph, long chains of slopes, Adam's memory and step, and
warm-up, recomputed: if a setting or a formula changes and a sentence goes stale, this test names the sentence."""

from __future__ import annotations

import contextlib
import io
import math
import re

import numpy as np
import pytest

from snippets.part_3 import chain_rule, optimizers_in_depth, schedules
from tests.pages import prose
from transformer_math.schedules import clip_grad_norm


def says(page: str, text: str) -> bool:
    return prose.says(f"part-3/{page}", text)


def steps_above_one(weight: float, beta: float) -> float:
    """How many steps a spike's share ``weight`` of the usual size, decaying by ``beta`` a step, stays above it."""
    return math.log(weight) / math.log(1 / beta)


def test_a_chain_of_slopes_near_a_fifth_vanishes():
    y = 1.5
    for _ in range(50):
        y = math.tanh(2 * y)
    slope = 2 * (1 - y**2)  # one layer's slope at the chain's fixed point
    first = 2 * (1 - math.tanh(2 * 1.5) ** 2)  # the first layer's, at y = 1.5
    assert round(slope, 2) == 0.17 and round(first, 2) == 0.02
    assert f"{0.02 * 0.17**19:.0e}" == "5e-17" and 1 < 0.02 * 0.17**19 / first / slope**19 < 2
    assert says("chain-rule.md", "has slope 0.02, the other 19 settle near 0.17 (exercise 4):")
    assert says("chain-rule.md", "$0.02 \\times 0.17^{19} \\approx 5 \\times 10^{-17}$")
    page = prose.source("part-3/chain-rule.md")
    printed = float(re.search(r"^plain chain: +dy/dx = (\S+)$", page, re.M).group(1))
    assert 1 / 3 < printed / (0.02 * 0.17**19) < 1, "the estimate is of the printed derivative's order"


def test_how_long_a_spike_stays_in_adams_averages():
    in_m = steps_above_one((1 - 0.9) * 100, 0.9)
    in_v = {b2: steps_above_one((1 - b2) * 100**2, b2) for b2 in (0.999, 0.95)}
    assert round(in_m) == 22 and round(in_v[0.999], -2) == 2300 and round(in_v[0.95], -1) == 120
    assert in_v[0.999] > 1000 and round((1 - 0.9) * 100) == 10 and round((1 - 0.999) * 100**2) == 10
    assert says("schedules.md", "at the defaults $\\beta_1 = 0.9$, $\\beta_2 = 0.999$")
    assert says("schedules.md", "leaves $(1 - \\beta_1)\\, 100 = 10$ times the usual gradient in $m$")
    assert says(
        "schedules.md", "for thousands of steps ([the numbers](optimizers-in-depth.md#a-spike-in-adams-memory))"
    )
    assert "for thousands of steps at the default $\\beta_2 = 0.999$" in " ".join(clip_grad_norm.__doc__.split())
    assert says("optimizers-in-depth.md", "$\\ln 10 / \\ln(1/0.9) \\approx 22$ steps")
    assert round(math.sqrt(1 + 10), 1) == 3.3 and says(
        "optimizers-in-depth.md", "$\\sqrt{11} \\approx 3.3$ times too large"
    )
    assert says("optimizers-in-depth.md", "about 2,300 steps at $0.999$ and only about 120 at $0.95$")


def test_the_spike_run_keeps_v_ten_times_the_calm_runs_and_bias_correction_cuts_its_step():
    spiked, calm = optimizers_in_depth.spike_run(), optimizers_in_depth.spike_run(spike=False)
    ratio = spiked[2][100:] / calm[2][100:]  # sqrt(mean(v)) from the spike on
    assert ratio.min() > 10 and says("optimizers-in-depth.md", "stays more than ten times the calm run's")
    v_before, v_at = spiked[2][99] ** 2, spiked[2][100] ** 2  # mean(v) after steps 99 and 100
    spike_rms = math.sqrt((v_at - 0.999 * v_before) / 0.001)  # v = 0.999 v + 0.001 g^2, solved for g
    usual_rms = math.sqrt(v_before / (1 - 0.999**100))  # v hat: the weighted mean of the earlier g^2
    assert round(spike_rms / usual_rms, -1) == 130 and round(1 - 0.999**100, 3) == 0.095
    predicted = math.sqrt(1 + 130**2 * 0.001 / 0.095)
    assert round(predicted) == 13 and abs(spiked[2][100] / calm[2][100] - predicted) < 1
    assert says("optimizers-in-depth.md", "this gradient is about 130 times the root mean square of those before it")
    assert says("optimizers-in-depth.md", "$\\sqrt{1 + 130^2 \\times 0.001 / 0.095} \\approx 13$")
    t = 101  # the loop's step 100, counted from 1 as Adam's t
    factor = math.sqrt(1 - 0.999**t) / (1 - 0.9**t)
    assert round(factor, 2) == 0.31 and round(0.1 / math.sqrt(0.001) * factor) == 1
    assert says(
        "optimizers-in-depth.md", "$\\sqrt{1 - 0.999^{101}} / (1 - 0.9^{101}) = 0.31$, brings 3.16 down to about 1"
    )


def test_the_xor_net_has_17_parameters():
    assert 4 * (2 + 1) + (4 + 1) == 17  # 4 tanh neurons of 2 weights and a bias, one linear of 4 and a bias
    assert says("autodiff.md", "a linear output neuron (no $\\tanh$; 17 parameters in all)")


def test_adams_bound_is_reached_in_a_few_dozen_steps_and_approached_slowly_through_bias_correction():
    b1, b2 = 0.9, 0.999
    assert round(b1**2 / b2, 2) == 0.81 and round(b2 / b1 - 1, 2) == 0.11
    assert says("optimizers-in-depth.md", "older ones weigh $0.81^j$) to grow by $\\beta_2 / \\beta_1$, 11% a step")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        optimizers_in_depth.adam_bound()
    rows = {
        int(t): (float(raw), float(corrected))
        for t, raw, corrected in re.findall(r"^ *(\d+) +(\S+) +(\S+)$", out.getvalue(), re.M)
    }
    bound = float(re.search(r"bound: (\S+)", out.getvalue()).group(1))
    late = float(re.search(r"growing for 50: (\S+)", out.getvalue()).group(1))
    assert rows[30][0] >= bound - 0.02, "a few dozen growing steps reach the bound without bias correction"
    # below 1 at every step: checked to 20,000, and beyond it beta_2^t / 2 > beta_1^t keeps it so
    factor = [math.sqrt(1 - b2**t) / (1 - b1**t) for t in range(1, 20_001)]
    assert max(factor) < 1 and rows[1000][1] < 0.8 * bound, "the bias correction holds the ratio down for thousands"
    assert (
        factor[999] < 0.81 and factor[2999] > 0.97 and says("optimizers-in-depth.md", "which is below 1 at every step")
    )
    assert round(bound, 1) == 7.3 and says("optimizers-in-depth.md", "at most about $7.3\\eta$")
    assert round(late) == 7 and says("optimizers-in-depth.md", "enough for a move of about $7\\eta$")


def test_four_times_larger_batches_lower_sgds_floor_about_fourfold():
    page = prose.source("part-3/optimizers.md")
    floor = {
        name: float(value) for name, value in re.findall(r"^(SGD, lr 0\.5(?:, batches of 40)?)  .* (\S+)$", page, re.M)
    }
    assert 3 < floor["SGD, lr 0.5"] / floor["SGD, lr 0.5, batches of 40"] < 5
    assert says("optimizers.md", "batches four times larger") and says("optimizers.md", "down about fourfold")


def settled_variance(eta: float, mu: float, a: float) -> float:
    """The variance theta settles to under SGD with momentum (v <- mu v + g, theta <- theta - eta v) on the
    gradient a theta + noise of variance 1: the fixed point of one step's covariance map, solved exactly."""
    A = np.array([[1 - eta * a, -eta * mu], [a, mu]])  # (theta, v) -> the next (theta, v), noise aside
    B = np.array([-eta, 1.0])  # how the noise enters them
    cov = np.linalg.solve(np.eye(4) - np.kron(A, A), np.outer(B, B).ravel()).reshape(2, 2)
    return cov[0, 0]


def test_momentums_floor_is_about_a_quarter_below_sgds_at_the_equivalent_rate():
    eta, mu = 0.05, 0.9
    for a in (1.0, 0.1, 0.01):  # the closed forms the in-depth page states
        momentum = eta * (1 + mu) / (a * (1 - mu) * (2 * (1 + mu) - eta * a))
        sgd = (eta / (1 - mu)) / (a * (2 - eta / (1 - mu) * a))
        assert math.isclose(settled_variance(eta, mu, a), momentum, rel_tol=1e-9)
        assert math.isclose(settled_variance(eta / (1 - mu), 0.0, a), sgd, rel_tol=1e-9)
    ratio = settled_variance(eta, mu, 1.0) / settled_variance(0.5, 0.0, 1.0)
    assert round(ratio, 2) == 0.76 and 0.99 < settled_variance(eta, mu, 0.01) / settled_variance(0.5, 0, 0.01) < 1
    assert says(
        "optimizers-in-depth.md", "That run has $\\eta' a = 0.5$ along its steepest direction, where the ratio is 0.76"
    )
    assert says(
        "optimizers.md", "stalls below SGD's floor at $\\eta / (1 - \\mu) = 0.5$, in theory about a quarter lower"
    )
    page = prose.source("part-3/optimizers.md")
    floor = {
        name: float(value)
        for name, value in re.findall(r"^(SGD, lr 0\.5|momentum 0\.9, lr 0\.05)  .* (\S+)$", page, re.M)
    }
    assert floor["momentum 0.9, lr 0.05"] < floor["SGD, lr 0.5"], "a little below, as the page says"


def coin_tosses_as_lopsided(wins: int, n: int) -> float:
    """How often n fair coin tosses split at least as unevenly as ``wins`` to ``n - wins``, either way."""
    return 2 * sum(math.comb(n, k) for k in range(max(wins, n - wins), n + 1)) / 2**n


@pytest.mark.slow
def test_without_warm_up_the_high_peak_ends_worse_on_most_of_twenty_seeds():
    ends = {
        seed: (schedules.warmup_run(0, seed)[-50:].mean(), schedules.warmup_run(30, seed)[-50:].mean())
        for seed in range(20)
    }
    worse = sum(cold > warm for cold, warm in ends.values())
    assert worse == 16 and round(1 / coin_tosses_as_lopsided(worse, 20)) == 85
    assert says("schedules.md", "ends higher on 16. Were warm-up irrelevant, each seed would be a coin toss")
    assert says("schedules.md", "16 or more of 20 the same way comes up about once in 85 tries")
    ties = {seed: cold > warm for seed, (cold, warm) in ends.items() if abs(cold - warm) < 0.005}
    gaps = sorted(abs(cold - warm) for cold, warm in ends.values())
    assert ties == {16: True, 19: False} and gaps[2] > 0.01, "two near-ties, the next difference well clear"
    kept = [cold > warm for seed, (cold, warm) in ends.items() if seed not in ties]
    assert (sum(kept), len(kept)) == (15, 18) and round(1 / coin_tosses_as_lopsided(15, 18), -1) == 130
    assert says("schedules.md", "seed 16, where the run without warm-up ends higher, and seed 19, where it ends lower")
    assert says("schedules.md", "is 15 of 18, which coin tosses give about once in 130 tries")
    variance = {}
    for seed in range(20):  # the target's variance, from the same generator warmup_run draws it from
        rng = np.random.default_rng(seed)
        X = rng.normal(size=(2048, 8))
        variance[seed] = np.sin(X @ rng.normal(size=(8, 1))).var()
    assert all(0.48 < v < 0.52 for v in variance.values())
    failed = [[seed for seed in range(20) if ends[seed][kind] > 0.9 * variance[seed]] for kind in (0, 1)]
    assert failed == [[1, 4, 6, 10, 11, 13, 16], [6, 12, 13, 16]]
    ratios = sorted(end / variance[seed] for seed, pair in ends.items() for end in pair)
    assert ratios[-12] < 0.7, "the runs that learned nothing stand apart from the rest"
    assert says("schedules.md", "7 without warm-up (seeds 1, 4, 6, 10, 11, 13, 16) and 4 with it (seeds 6, 12, 13, 16)")
    assert 12 in set(failed[1]) - set(failed[0]) and says("schedules.md", "On seed 12 only the run with warm-up fails")
    low = [schedules.warmup_run(warm, 1, peak_lr=0.01)[-50:].mean() / variance[1] for warm in (0, 30)]
    assert min(low) > 0.9 and says("schedules.md", "(seed 1 at 0.01, with or without warm-up)")


def test_the_paths_graph_alt_text_states_the_values_the_library_computes():
    data, grads, slopes = chain_rule.paths_graph_values()
    values = (
        f"a = {data['a']:g} and b = {data['b']:g} on the left, c = a + b = {data['c']:g} and d = b + 1 = {data['d']:g}"
    )
    assert says("chain-rule.md", values) and says("chain-rule.md", f"e = c·d = {data['e']:g} on the right")
    assert {slopes["a", "c"], slopes["b", "c"], slopes["b", "d"]} == {1.0}
    arrows = f"carry the slope 1, c to e carries {slopes['c', 'e']:g} and d to e carries {slopes['d', 'e']:g}"
    assert says("chain-rule.md", arrows)
    derivatives = ", ".join(f"∂e/∂{name} = {grads[name]:g}" for name in "abcd")
    assert says("chain-rule.md", f"Under each value its derivative: {derivatives}.")
    paths = f"{slopes['b', 'c']:g}·{slopes['c', 'e']:g} + {slopes['b', 'd']:g}·{slopes['d', 'e']:g}"
    assert says("chain-rule.md", f"The title: ∂e/∂b = {paths} = {grads['b']:g}, a product per path")
