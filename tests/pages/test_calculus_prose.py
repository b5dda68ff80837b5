"""The numbers Part III's prose states about the paths graph, long chains of slopes, Adam's memory and step, and
warm-up, recomputed: if a setting or a formula changes and a sentence goes stale, this test names the sentence."""

from __future__ import annotations

import contextlib
import inspect
import io
import math
import re

import numpy as np
import pytest

from snippets.part_3 import chain_rule, optimizers, optimizers_in_depth, schedules
from tests.pages import prose
from transformer_math import optim
from transformer_math.schedules import clip_grad_norm
from transformer_math.softmax import softmax


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
    assert round(first, 4) == 0.0197 and says("chain-rule.md", "at $y = 1.5$, has slope 0.0197; then $y$ settles")
    assert math.isclose(y, math.tanh(2 * y)) and says("chain-rule.md", f"settles near {y:.4f}, which $\\tanh(2y)$")
    assert says("chain-rule.md", f"where the other 19 have slope $2(1 - y^2) \\approx {slope:.4f}$")
    estimate = 0.0197 * 0.1664**19
    assert f"{estimate:.1e}" == f"{first * slope**19:.1e}" == "3.1e-17", "the rounded product is the exact one's"
    assert says("chain-rule.md", "$0.0197 \\times 0.1664^{19} \\approx 3.1 \\times 10^{-17}$, above the printed")
    page = prose.source("part-3/chain-rule.md")
    printed = float(re.search(r"^plain chain: +dy/dx = (\S+)$", page, re.M).group(1))
    assert printed < estimate and f"{printed:.0e}" == "3e-17", "the printed chain is a little lower than the estimate"
    assert f"{first * slope**19:.3e}" in page, "exercise 4 prints the same product"


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
    calm_shrinks = calm[2][999] < 0.9 * calm[2][100]  # sqrt(mean(v)) of the calm run falls as it converges
    assert calm_shrinks and round(0.999**899, 2) == 0.41 and round(spiked[2][999] / calm[2][999]) == 11
    assert says("optimizers-in-depth.md", "decayed by $0.999^{899} \\approx 0.41$, but the calm run's $v$ shrinks too")
    assert says("optimizers-in-depth.md", "as it converges, so the ratio is still 11.")
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
    assert round((b2 / b1) ** 50, -1) == 180 and says(
        "optimizers-in-depth.md", "a gradient growing 11% a step (180-fold in 50) are enough"
    )


def minibatch_table() -> dict[str, tuple[float, float]]:
    """The optimizers page's printed table: per run, the mean over 20 seeds of the excess loss after step 100 and
    over the last 500 of the 2,000 steps."""
    page = prose.source("part-3/optimizers.md")
    assert "excess loss, mean of 20 seeds" in page and "after step 100   mean of the last 500" in page
    rows = re.findall(r"^(\S.*?)  +(\d\.\d\de-\d\d) +(\d\.\d\de-\d\d)$", page, re.M)
    assert len(rows) == 7
    return {name: (float(a), float(b)) for name, a, b in rows}


def minibatch_alt_text() -> str:
    page = prose.text("part-3/optimizers.md")
    return re.search(r"!\[(Two panels of the excess loss per step[^\]]*)\]\(\.\./figures/minibatch", page)[1]


def test_the_minibatch_runs_are_long_enough_for_the_figure_and_table_to_show_stationary_floors():
    assert inspect.signature(optimizers.minibatch_runs).parameters["steps"].default == 2000
    assert len(optimizers.minibatch_runs("sgd", 0.5, steps=3)) == 20, "20 seeds by default"
    assert minibatch_alt_text().startswith("Two panels of the excess loss per step, the mean of 20 seeds, over 2,000")


@pytest.mark.slow
def test_the_floors_of_the_last_500_of_2000_steps_hold_to_3000():
    for args in [("sgd", 0.2), ("sgd", 0.5), ("sgd", 0.05, 0.9), ("adam", 0.05)]:
        excess = optimizers.minibatch_runs(*args, steps=3000).mean(axis=0)
        read, later = excess[1500:2000].mean(), excess[2000:].mean()
        assert abs(read / later - 1) < 0.05, f"{args}: the floor read at steps 1,501-2,000 is still moving"


def test_four_times_larger_batches_lower_sgds_floor_about_fourfold():
    table = minibatch_table()
    assert round(table["SGD, lr 0.5"][1] / table["SGD, lr 0.5, batches of 40"][1]) == 4
    assert says("optimizers.md", "batches four times larger") and says("optimizers.md", "down about fourfold")


def test_a_lower_learning_rate_falls_more_slowly_to_a_floor_three_times_lower_as_the_formula_predicts():
    slow, fast = minibatch_table()["SGD, lr 0.2"], minibatch_table()["SGD, lr 0.5"]
    predicted = (0.5 / (2 - 0.5)) / (0.2 / (2 - 0.2))  # eta / (2 - eta a) at the steepest curvature, a = 1
    assert slow[0] > fast[0] and round(fast[1] / slow[1], 1) == round(predicted, 1) == 3.0
    assert says("optimizers.md", "(0.2 against 0.5: slower, but lower)")
    assert "SGD with learning rate 0.2 falls more slowly than with 0.5 but settles at a floor three times lower" in (
        minibatch_alt_text()
    )


def test_adam_is_lowest_early_and_rises_to_its_floor_as_v_hat_forgets_the_early_gradients(monkeypatch):
    table = minibatch_table()
    adam, momentum = table["Adam, lr 0.05"], table["momentum 0.9, lr 0.05"]
    assert adam[0] == min(row[0] for row in table.values()), "lowest at step 100"
    assert adam[0] < 0.8 * adam[1] and adam[1] < momentum[1] < table["SGD, lr 0.5"][1]
    alt = minibatch_alt_text()
    assert "momentum 0.9 at learning rate 0.05 stalls a little below SGD at 0.5" in alt
    assert "then rises to a floor just below momentum's" in alt
    sqrt_v_hat = []

    class Recorded(optim.Adam):
        def _step(self, grads):
            super()._step(grads)
            sqrt_v_hat.append(np.sqrt(self.v[0] / (1 - self.beta2**self.t)))  # a row per seed

    monkeypatch.setattr(optim, "Adam", Recorded)
    excess = optimizers.minibatch_runs("adam", 0.05).mean(axis=0)
    smooth = np.convolve(excess, np.ones(20) / 20, mode="valid")  # as the figure draws it
    assert round(int(smooth.argmin()) + 20, -1) == 170 and "dips to a low near step 170" in alt
    shrink = np.mean(sqrt_v_hat[99] / sqrt_v_hat[-1])  # how much larger sqrt(v hat) was at step 100
    # Adam's steps, eta / sqrt(v hat), grew from step 100 on by more than the loss rose to its floor
    assert shrink > adam[1] / adam[0] > 1.2, "the rise is Adam's step growing as v hat forgets"
    assert says("optimizers.md", "and rises as $\\hat v$ forgets the early, larger gradients")
    step = [np.mean(0.05 / sqrt_v_hat[t][:, 0]) for t in (99, 1999)]  # eta / sqrt(v hat), steepest direction
    assert round(step[1] / step[0], 1) == 1.6 and says("optimizers.md", "it grows about 1.6-fold between step 100")
    assert says("optimizers.md", "forgets the early, larger gradients, which lengthens its steps (the fold below)")


def settled_variance(eta: float, mu: float, a: float) -> float:
    """The variance theta settles to under SGD with momentum (v <- mu v + g, theta <- theta - eta v) on the
    gradient a theta + noise of variance 1: the fixed point of one step's covariance map, solved exactly."""
    A = np.array([[1 - eta * a, -eta * mu], [a, mu]])  # (theta, v) -> the next (theta, v), noise aside
    B = np.array([-eta, 1.0])  # how the noise enters them
    cov = np.linalg.solve(np.eye(4) - np.kron(A, A), np.outer(B, B).ravel()).reshape(2, 2)
    return cov[0, 0]


def test_momentums_floor_is_about_a_sixth_below_sgds_at_the_equivalent_rate():
    eta, mu = 0.05, 0.9
    for a in (1.0, 0.1, 0.01):  # the closed forms the in-depth page states
        momentum = eta * (1 + mu) / (a * (1 - mu) * (2 * (1 + mu) - eta * a))
        sgd = (eta / (1 - mu)) / (a * (2 - eta / (1 - mu) * a))
        assert math.isclose(settled_variance(eta, mu, a), momentum, rel_tol=1e-9)
        assert math.isclose(settled_variance(eta / (1 - mu), 0.0, a), sgd, rel_tol=1e-9)
    ratio = settled_variance(eta, mu, 1.0) / settled_variance(0.5, 0.0, 1.0)
    assert round(ratio, 2) == 0.76 and 0.99 < settled_variance(eta, mu, 0.01) / settled_variance(0.5, 0, 0.01) < 1
    assert says("optimizers-in-depth.md", "The mini-batch run has $\\eta' a = 0.5$ along its steepest direction,")
    assert says("optimizers-in-depth.md", "where the ratio is 0.76.") and math.isclose(0.05 / (1 - 0.9) * 1.0**2, 0.5)
    assert says(
        "optimizers-in-depth.md",
        "the constant-noise model of the fold puts momentum's noise floor at 0.76 of SGD's",
    )
    # The whole run: the excess loss sums a V / 2 over its ten curvatures a = s**2 (features of sizes 1 to 0.1),
    # each direction's noise (a feature times the residual) of variance proportional to a.
    curvatures = np.logspace(0, -1, 10) ** 2
    whole_run = sum(a * settled_variance(eta, mu, a) * a for a in curvatures) / sum(
        a * settled_variance(0.5, 0.0, a) * a for a in curvatures
    )
    assert round(whole_run, 2) == 0.84 and says("optimizers-in-depth.md", "the model gives 0.84, beside the measured")
    assert says(
        "optimizers.md",
        "(the last line; [Optimizers in depth](optimizers-in-depth.md#momentum-through-the-eigenvalues) predicts 0.84)",
    )
    table = minibatch_table()
    measured = table["momentum 0.9, lr 0.05"][1] / table["SGD, lr 0.5"][1]  # means over 20 seeds
    assert abs((1 - measured) - 1 / 6) < 0.03 and 0.76 < measured < 1, "between the steepest direction's and no gap"
    assert says("optimizers.md", "stalls about a sixth below SGD's floor at $\\eta/(1-\\mu) = 0.5$")
    page = prose.source("part-3/optimizers.md")
    found = re.search(
        r"^floor of momentum / SGD at 0\.5: (\S+) \(standard error (\S+)\), lower on (\d+) of 20$", page, re.M
    )
    per_seed, error, lower = float(found[1]), float(found[2]), int(found[3])
    assert abs((1 - per_seed) - 1 / 6) < 0.03 and per_seed + 3 * error < 1, "a sixth below, and clear of no gap"
    assert says("optimizers-in-depth.md", f"beside the measured ${per_seed:.2f} \\pm {error:.2f}$")
    assert abs(whole_run - per_seed) < 2 * error, "the whole-run model within two standard errors of the run"
    assert lower >= 15 and coin_tosses_as_lopsided(lower, 20) < 0.05, "lower on more seeds than coin tosses give"


def coin_tosses_as_lopsided(wins: int, n: int) -> float:
    """How often n fair coin tosses split at least as unevenly as ``wins`` to ``n - wins``, either way."""
    return 2 * sum(math.comb(n, k) for k in range(max(wins, n - wins), n + 1)) / 2**n


def warmup_summary() -> dict[float, dict]:
    """The schedules page's printed summary over seeds 0 to 19, per peak: the range of the worst of the first 100
    losses with and without warm-up, and on how many seeds the run without warm-up ends higher."""
    page = prose.source("part-3/schedules.md")
    summary = {}
    for peak in ("0.1 ", "0.01"):
        ranges = re.findall(rf"^peak {peak}, warm-up +(\d+): .* worst of the first 100 (\S+) to (\S+)$", page, re.M)
        higher = re.search(
            rf"^peak {peak}, mean of the last 50: higher without warm-up on (\d+) of 20 seeds, within 0.005 on (\d+),"
            r" median \|gap\| (\S+)$",
            page,
            re.M,
        )
        counts = {"higher": int(higher[1]), "within 0.005": int(higher[2]), "median |gap|": float(higher[3])}
        summary[float(peak)] = {int(w): (float(lo), float(hi)) for w, lo, hi in ranges} | counts
    return summary


def test_over_twenty_seeds_warm_up_helps_at_the_high_peak_and_is_a_coin_toss_at_the_low_one():
    high, low = warmup_summary()[0.1], warmup_summary()[0.01]
    assert high[0][0] > high[30][1], "every seed's worst early loss is higher without warm-up"
    assert high["higher"] == 16 and round(1 / coin_tosses_as_lopsided(16, 20)) == 85
    lopsided = 2 * sum(math.comb(20, k) for k in range(16, 21))
    assert f"{lopsided:,} of the 2**20 outcomes, 1 in 85" in prose.source("part-3/schedules.md")
    assert says("schedules.md", "and ends higher on 16 of 20. Were warm-up irrelevant, each seed would be a coin toss")
    assert says("schedules.md", "16 or more of 20 the same way comes up about once in 85 tries (the last line).")
    assert low["higher"] == 11 and coin_tosses_as_lopsided(11, 20) > 0.5, "a split coin tosses give most of the time"
    assert low["within 0.005"] == 14 and high["within 0.005"] == 2, "the fold's two near-ties at 0.1"
    assert low["median |gap|"] < high["median |gap|"] / 10
    assert says("schedules.md", "At 0.01 no difference shows: 14 of 20 seeds end within 0.005, consistent with")
    assert says(
        "optimizers-in-depth.md",
        "shows no detectable difference over 20 seeds (on 14, the runs with and without warm-up end within 0.005)",
    )


def target_variance(seed: int) -> float:
    """The variance of the target ``warmup_run`` fits, drawn from the same generator in the same order."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(2048, 8))
    return float(np.sin(X @ rng.normal(size=(8, 1))).var())


@pytest.mark.slow
def test_without_warm_up_the_high_peak_ends_worse_on_most_of_twenty_seeds():
    runs = {
        (peak, warm, seed): schedules.warmup_run(warm, seed, peak_lr=peak)
        for peak in (0.1, 0.01)
        for warm in (0, 30)
        for seed in range(20)
    }
    worst = {key: losses[:100].max() for key, losses in runs.items()}
    assert all(worst[0.1, 0, seed] > 2 * worst[0.1, 30, seed] for seed in range(20)), "far higher on every seed"
    ends = {
        peak: {seed: (runs[peak, 0, seed][-50:].mean(), runs[peak, 30, seed][-50:].mean()) for seed in range(20)}
        for peak in (0.1, 0.01)
    }
    ties = {seed: cold > warm for seed, (cold, warm) in ends[0.1].items() if abs(cold - warm) < 0.005}
    gaps = sorted(abs(cold - warm) for cold, warm in ends[0.1].values())
    assert ties == {16: True, 19: False} and gaps[2] > 0.01, "two near-ties, the next difference well clear"
    kept = [cold > warm for seed, (cold, warm) in ends[0.1].items() if seed not in ties]
    assert (sum(kept), len(kept)) == (15, 18) and round(1 / coin_tosses_as_lopsided(15, 18), -1) == 130
    assert says("schedules.md", "seed 16, where the run without warm-up ends higher, and seed 19, where it ends lower")
    assert says("schedules.md", "the split is 15 of 18, which coin tosses give about once in 130 tries")
    variance = {seed: target_variance(seed) for seed in range(20)}
    assert all(0.48 < v < 0.52 for v in variance.values())
    assert says("schedules.md", "the mean of (target − mean)², the target's variance: about 0.5 for every seed")
    failed = {
        (peak, kind): [seed for seed in range(20) if ends[peak][seed][kind] > 0.9 * variance[seed]]
        for peak in (0.1, 0.01)
        for kind in (0, 1)
    }
    assert failed[0.1, 0] == [1, 4, 6, 10, 11, 13, 16] and failed[0.1, 1] == [6, 12, 13, 16]
    ratios = sorted(end / variance[seed] for seed, cold_warm in ends[0.1].items() for end in cold_warm)
    assert ratios[-12] < 0.7, "at 0.1 the runs that learned nothing stand apart from the rest"
    assert says("schedules.md", "7 without warm-up (seeds 1, 4, 6, 10, 11, 13, 16) and 4 with it (seeds 6, 12, 13, 16)")
    assert 12 in set(failed[0.1, 1]) - set(failed[0.1, 0]) and says("schedules.md", "on seed 12 only the run with")
    one_fails = {kind: set(failed[0.01, kind]) - set(failed[0.01, 1 - kind]) for kind in (0, 1)}
    assert one_fails == {0: {4, 13, 16}, 1: {12}}
    assert says("schedules.md", "and the other below it: seeds 4, 13 and 16 without warm-up, seed 12 with it")
    gap = {seed: ends[0.01][seed][0] - ends[0.01][seed][1] for seed in range(20)}
    assert sum(abs(g) < 0.005 for g in gap.values()) == 14, "at 0.01 most seeds end within 0.005"
    largest = sorted(gap, key=lambda seed: -abs(gap[seed]))[:4]
    assert set(largest) == one_fails[0] | one_fails[1] and {gap[seed] > 0 for seed in largest} == {True, False}
    sizes = [abs(gap[seed]) for seed in largest]
    assert (round(min(sizes), 2), round(max(sizes), 2)) == (0.06, 0.24)
    assert says("schedules.md", "At 0.01 the four largest gaps, 0.06 to 0.24, either way, are seeds on which one run")


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


def test_adamw_with_exact_gradients_settles_where_the_gradient_is_negligible_but_at_the_box_faces():
    eps, lam = 1e-8, 0.1
    for share in (0.1, 0.5, 0.9, 1 - 1e-6):  # lambda |theta|
        theta = share / lam
        grad = -eps * lam * theta / (1 - lam * theta)  # the page's solution, of the sign opposite to theta's
        assert math.isclose(grad / (abs(grad) + eps), -lam * theta, rel_tol=1e-12)
    assert round(0.9 / (1 - 0.9)) == 9, "9 epsilon at lambda |theta| = 0.9: not bounded by epsilon"
    assert says(
        "optimizers-in-depth.md",
        "holds only where $|\\nabla L| = \\epsilon\\lambda|\\theta| / (1 - \\lambda|\\theta|)$, with the sign opposite",
    )
    assert says(
        "optimizers-in-depth.md",
        "except within a hair of $|\\theta| = 1/\\lambda$, where a gradient of any size is balanced",
    )


def test_adamws_noisy_fixed_point_misses_by_more_than_the_runs_noise():
    eta, lam, a, sigma = 0.01, 0.1, 0.05, 0.5
    rate = eta * (a / sigma + lam)  # the slope of the mean step at the fixed point, noise averaged out
    assert math.isclose(rate, 0.002) and math.isclose((1 - rate) ** 4000, math.exp(-8), rel_tol=0.01)
    assert says("optimizers-in-depth.md", "by about $\\eta(a/\\sigma + \\lambda) = 0.002$ of")
    assert says("optimizers-in-depth.md", "the first 4,000 steps, after which $e^{-8}$ of it is left, are dropped")
    page = prose.source("part-3/optimizers-in-depth.md")
    mean, error, predicted = map(float, re.search(r"^ *(\S+) \+- (\S+) +predicted (\S+)$", page, re.M).groups())
    assert predicted == 1.0 and round((predicted - mean) / error) == 6
    assert says("optimizers-in-depth.md", "the gap is about six standard errors (the number after `+-`)")
    assert f"${100 * (predicted - mean):.2f}\\% \\pm {100 * error:.2f}\\%$" == "$0.35\\% \\pm 0.06\\%$"
    assert says("optimizers-in-depth.md", "is off by $0.35\\% \\pm 0.06\\%$")

    def imbalance(theta: float) -> float:  # the fixed-point equation with sqrt(sigma^2 + grad^2) for sigma
        grad = a * (theta - 2)
        return grad + lam * theta * math.sqrt(sigma**2 + grad**2)

    lo, hi = 0.9, 1.0
    for _ in range(60):
        lo, hi = ((lo + hi) / 2, hi) if imbalance((lo + hi) / 2) < 0 else (lo, (lo + hi) / 2)
    refined = math.sqrt(sigma**2 + (a * (lo - 2)) ** 2)
    assert round(refined, 4) == 0.5025 and round(lo, 4) == 0.9975
    assert abs(lo - mean) < 2 * error < predicted - mean, "the refined point explains the gap, within noise"
    assert says("optimizers-in-depth.md", "with $\\sqrt{\\sigma^2 + (\\nabla L)^2} = 0.5025$ in place of $\\sigma$")
    assert says("optimizers-in-depth.md", "the equation gives $\\theta = 0.9975$.")


def test_the_autograd_helpers_the_page_names_are_all_of_them():
    import inspect

    from transformer_math import autograd

    helpers = [name for name, f in inspect.getmembers(autograd, inspect.isfunction) if name.startswith("_")]
    assert sorted(helpers) == ["_exp", "_exponent", "_power", "_power_slope"]
    fold = (
        "`_power` and `_exp` are `a ** n` and `math.exp`",
        "`_exponent` checks that",
        "`_power_slope` is $n a^{n-1}$",
    )
    assert all(says("autodiff.md", sentence) for sentence in fold), "the helpers' fold names each one"


def test_momentum_builds_a_steady_gradient_tenfold_and_keeps_an_alternating_one_near_half():
    mu, m_steady, m_flip = 0.9, 0.0, 0.0
    for t in range(200):
        m_steady = mu * m_steady + 1.0
        m_flip = mu * m_flip + (-1.0) ** t
    assert math.isclose(m_steady, 1 / (1 - mu), rel_tol=1e-8) and round(m_steady) == 10
    assert math.isclose(abs(m_flip), 1 / (1 + mu), rel_tol=1e-8) and round(abs(m_flip), 1) == 0.5
    assert says("optimizers.md", "keep $m$ at about $\\pm g/(1+\\mu) \\approx \\pm g/2$, by the same argument")


def test_on_the_valley_tuned_momentum_reaches_1e_12_where_the_best_plain_run_reaches_0_0075():
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        optimizers.valley()
    losses = {
        (name, float(lr)): float(loss)
        for name, lr, loss in re.findall(
            r"^(\w+(?: \w+)?) +lr = (\S+) +loss after +50 steps: (\S+)$", out.getvalue(), re.M
        )
    }
    plain = {lr: loss for (name, lr), loss in losses.items() if name == "descent"}
    assert min(plain.values()) == plain[0.075] and f"{plain[0.075]:.2g}" == "0.0075"
    heavy_ball = losses[("heavy ball", 0.111)]
    assert round(math.log10(heavy_ball)) == -12 and heavy_ball < losses[("momentum", 0.01)] / 1e10
    tuned_lr, tuned_mu = 4 / (1 + 5) ** 2, ((5 - 1) / (5 + 1)) ** 2  # Polyak's rule for curvatures 1 and 25
    assert math.isclose(tuned_lr, 1 / 9) and math.isclose(tuned_mu, 4 / 9)
    assert says("optimizers.md", "its steps up to ten times longer; the *heavy ball*, momentum tuned to the valley")
    assert says("optimizers.md", "$\\mu = 4/9$, derived [in depth]")
    assert says("optimizers.md", "reaches about $10^{-12}$, against 0.0075 for the best plain run")


def test_the_best_step_balances_the_errors_for_the_forward_difference_and_halves_them_for_the_central():
    eps, f, f2, f3 = 2.2e-16, math.sin(1.0), math.sin(1.0), math.cos(1.0)  # |f|, |f''|, |f'''| for sin at 1
    h = np.geomspace(1e-12, 1e-1, 200_001)
    forward, central = h / 2 * f2 + eps * f / h, h**2 / 6 * f3 + eps * f / h
    best_forward, best_central = h[forward.argmin()], h[central.argmin()]
    assert math.isclose(best_forward, math.sqrt(2 * eps * f / f2), rel_tol=1e-3)
    assert math.isclose(best_central, (3 * eps * f / f3) ** (1 / 3), rel_tol=1e-3)
    assert math.isclose(best_forward / 2 * f2, eps * f / best_forward, rel_tol=1e-3), "equal at the best h"
    assert math.isclose(best_central**2 / 6 * f3, eps * f / best_central / 2, rel_tol=1e-3), "half at the best h"
    assert says("derivatives.md", "for the forward difference, where the two are equal")
    assert says("derivatives.md", "for the central one, where truncation is half the rounding error")
    sizes_one = (math.sqrt(2 * eps), (3 * eps) ** (1 / 3))  # f and its derivatives of size 1
    assert [round(math.log10(h)) for h in sizes_one] == [-8, -5]
    assert says("derivatives.md", "That is near $10^{-8}$ and $10^{-5}$ when $f$ and its derivatives are of size 1")


def test_a_weight_matrix_jacobian_would_hold_4096_cubed_entries_per_token():
    entries = 4096 * 4096**2  # outputs times the entries of W
    assert f"{entries:.0e}" == "7e+10"
    assert says("gradients.md", "weight matrix, flattened into a vector of $4096^2$ inputs")
    assert says("gradients.md", "$J$ would have $4096^3 \\approx 7 \\times 10^{10}$ entries per token")


def test_a_thousandfold_gradient_pushes_sgd_past_its_limit_on_the_valley():
    assert math.isclose(0.075 * 25, 1.875) and math.isclose(0.075 * 25 * 1000, 1875) and 1875 > 2
    assert says("optimizers.md", "steep curvature 25 goes from 1.875 to 1,875, far past 2")


def test_p_y_rounds_to_0_past_a_logit_gap_of_745_in_float64_and_104_in_float32():
    for dtype, gap in ((np.float64, 745), (np.float32, 104)):
        gaps = np.arange(gap - 3, gap + 3, 0.01)
        p_y = np.array([softmax(np.array([-g, 0.0], dtype=dtype))[0] for g in gaps])
        first_zero = gaps[np.argmax(p_y == 0)]
        assert p_y[0] > 0 and p_y[-1] == 0 and round(first_zero) == gap, dtype
    assert says(
        "softmax-cross-entropy.md", "$p_y$ rounds to 0 past a logit gap of about 745 (float64) or 104 (float32)"
    )


def test_clipping_at_kerass_eps_kills_the_gradient_at_a_logit_gap_of_20():
    p_y = softmax(np.array([-10.0, 0.0, 10.0]))[0]
    assert p_y < 1e-7 / 10, "below eps even after the finite difference's nudge"
    assert says("softmax-cross-entropy.md", "kills the gradient, even at ordinary logits")
    assert "np.maximum(softmax(z)[y], 1e-7))  # Keras's default" in prose.source("part-3/softmax-cross-entropy.md")


def test_a_tight_clip_shrinks_sgds_steps_but_not_adams():
    curvature, minimum = np.array([1.0, 25.0]), np.array([2.0, 1.0])

    def run(make, clip, steps):
        p = np.array([-4.0, -1.0])
        opt, lengths = make(p), []
        for _ in range(steps):
            g = [curvature * (p - minimum)]
            if clip:
                g, _ = clip_grad_norm(g, clip)
            before = p.copy()
            opt.step(g)
            lengths.append(np.abs(p - before))
        return 0.5 * np.sum(curvature * (p - minimum) ** 2), lengths

    adam = lambda p: optim.Adam([p], lr=0.3)  # noqa: E731
    free, clipped = run(adam, None, 200), run(adam, 1e-3, 200)
    assert free[0] < 1e-7 and clipped[0] > 1e-3, "clipped to 1e-3, Adam stalls far from the minimum"
    steps_free, steps_clipped = np.mean(free[1][-50:], axis=0), np.mean(clipped[1][-50:], axis=0)
    assert steps_clipped[1] > 100 * steps_free[1], "on the steep axis the clipped run's steps stopped shrinking"
    sgd_free, sgd_clipped = (
        run(lambda p: optim.SGD([p], lr=0.03), None, 5),
        run(lambda p: optim.SGD([p], lr=0.03), 1e-3, 5),
    )
    assert np.max(sgd_clipped[1]) < 0.03 * 1e-3 * 1.0001 < np.min(np.sum(sgd_free[1], axis=1)), (
        "SGD's steps are eta times the clipped norm"
    )
    assert says("schedules.md", "A $c$ below the usual norm does not shrink Adam's steps: every gradient arrives")
    assert says("schedules.md", "cannot see the gradient shrink near a minimum, and Adam hovers instead of settling.")
