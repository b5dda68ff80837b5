"""The numbers Part III's prose states about long chains of slopes and Adam's memory and step, recomputed: if a
setting or a formula changes and a sentence goes stale, this test names the sentence."""

from __future__ import annotations

import contextlib
import io
import math
import re
from pathlib import Path

from snippets.part_3 import optimizers_in_depth
from transformer_math.optim import clip_grad_norm

DOCS = Path(__file__).resolve().parents[2] / "docs" / "part-3"


def says(page: str, text: str) -> bool:
    flat = lambda s: re.sub(r"\s+", " ", s)  # noqa: E731 - line breaks do not matter
    return flat(text) in flat((DOCS / page).read_text(encoding="utf-8"))


def steps_above_one(weight: float, beta: float) -> float:
    """How many steps a spike's share ``weight`` of the usual size, decaying by ``beta`` a step, stays above it."""
    return math.log(weight) / math.log(1 / beta)


def test_a_chain_of_slopes_near_a_fifth_vanishes():
    y = 1.5
    for _ in range(50):
        y = math.tanh(2 * y)
    slope = 2 * (1 - y**2)  # one layer's slope at the chain's fixed point
    assert round(slope, 2) == 0.17 and round(math.log10(0.17**19)) == round(math.log10(slope**19)) == -15
    assert says("chain-rule.md", "slopes settle near 0.17 (exercise 4), $0.17^{19} \\approx 10^{-15}$")


def test_how_long_a_spike_stays_in_adams_averages():
    in_m = steps_above_one((1 - 0.9) * 100, 0.9)
    in_v = {b2: steps_above_one((1 - b2) * 100**2, b2) for b2 in (0.999, 0.95)}
    assert round(in_m) == 22 and round(in_v[0.999], -2) == 2300 and round(in_v[0.95], -1) == 120
    assert says("schedules.md", "at the defaults $\\beta_1 = 0.9$, $\\beta_2 = 0.999$")
    assert says("schedules.md", "until $0.9^t$ has shrunk it tenfold, about 22 steps")
    assert says("schedules.md", "$(1 - \\beta_2)\\, 100^2 = 10$ times the usual $g^2$")
    assert says("schedules.md", "which fades as $0.999^t$ and divides every step for about 2,300 steps")
    assert round((1 - 0.95) * 100**2) == 500 and says("schedules.md", "$\\beta_2 = 0.95$ it enters as 500 times $g^2$")
    assert says("schedules.md", "fades as $0.95^t$: about 120 steps")
    assert "about 2,300 steps at the default $\\beta_2 = 0.999$, 120 at $\\beta_2 = 0.95$" in " ".join(
        clip_grad_norm.__doc__.split()
    )


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
    factor = [math.sqrt(1 - b2**t) / (1 - b1**t) for t in range(1, 3001)]
    assert max(factor) < 1 and rows[1000][1] < 0.8 * bound, "the bias correction holds the ratio down for thousands"
    assert round(bound, 1) == 7.3 and says("optimizers-in-depth.md", "at most about $7.3\\eta$")
    assert round(late) == 7 and says("optimizers-in-depth.md", "enough for a move of about $7\\eta$")


def test_four_times_larger_batches_lower_sgds_floor_about_fourfold():
    page = (DOCS / "optimizers.md").read_text(encoding="utf-8")
    floor = {
        name: float(value) for name, value in re.findall(r"^(SGD, lr 0\.5(?:, batches of 40)?)  .* (\S+)$", page, re.M)
    }
    assert 3 < floor["SGD, lr 0.5"] / floor["SGD, lr 0.5, batches of 40"] < 5
    assert says("optimizers.md", "batches four times larger") and says("optimizers.md", "down about fourfold")
