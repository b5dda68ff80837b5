"""What docs/part-4/depth.md says in words about its two small runs holds for them: the one-layer model's
positional guess, the periods it never saw, and when the induction heads form across seeds."""

from __future__ import annotations

import functools
import math
import re

import numpy as np
import pytest

from snippets.part_4 import depth
from tests.pages import prose
from transformer_math.softmax import softmax
from transformer_math.transformer import forward

says = functools.partial(prose.says, "part-4/depth.md")


def test_the_one_layer_model_sits_above_the_positional_bound_and_falls_back_on_unseen_periods():
    one, history = depth.induction_run(n_layers=1)
    period = depth.EVAL_T
    # a guess from position alone spreads over the periods D of 5 to 10 whose second copy holds position i: the
    # input i exists (i < 2D - 1) and the token D - 1 back is the first copy's (i >= D - 1)
    bound = np.log([sum(d - 1 <= i < 2 * d - 1 for d in range(5, 11)) for i in range(period, 2 * period - 1)])
    assert f"{bound[0]:.2f}" == f"{np.log(5):.2f}"  # period 10 is still in its first copy at position 8
    assert says("($D - 1 \\le i < 2D - 1$) costs $\\ln$ of their number")
    assert says(
        f"from {bound[0]:.2f} at position {period} to {bound[-1]:.2f} at {2 * period - 2}, mean {bound.mean():.2f}"
    )
    assert says(
        f"mean {bound.mean():.2f}. Seed 0's loss, {history[depth.STEPS][1]:.2f}, the best of five, falls as that cost"
    )
    inputs, targets = depth.repeated_tokens(np.random.default_rng(1), depth.TEST, period)
    curve = depth.position_losses(one, inputs, targets)[period:]
    assert curve.mean() > bound.mean() and np.all(np.diff(curve[:-1]) < 0)  # falling but for the last position
    assert abs(curve[-2] - bound[-2]) < 0.02  # "where it meets it"
    assert says(f"from {curve[0]:.2f} at position {period} to {curve[-2]:.2f} at {2 * period - 3}, where it meets it")
    # the last position: the same periods reach it as the one before, yet the loss rises again
    reach = [{d for d in range(5, 11) if d - 1 <= i < 2 * d - 1} for i in (2 * period - 3, 2 * period - 2)]
    assert reach[0] == reach[1] and curve[-1] > curve[-2] + 0.5
    assert says(f"at {2 * period - 2}, which the same periods reach, it rises again to {curve[-1]:.2f}")
    for unseen in (11, 12, 13):  # "from 11 on the one-layer model is at or above ln 32"
        inputs, targets = depth.repeated_tokens(np.random.default_rng(2), depth.TEST, unseen)
        assert depth.position_losses(one, inputs, targets)[unseen:19].mean() > math.log(depth.V) - 0.01, unseen
    assert says("from 11 on the one-layer model is at or above $\\ln 32$")


def induction(params, inputs):
    """The larger of layer 2's two induction scores on the test sequences."""
    weights = forward(params, inputs, depth.N_HEADS)[1]["h1.weights"]
    return max(depth.induction_score(weights[:, h], depth.EVAL_T).mean() for h in range(depth.N_HEADS))


@pytest.mark.slow
def test_the_token_match_forms_and_the_second_copy_ends_where_the_page_says_over_five_seeds():
    inputs, _ = depth.repeated_tokens(np.random.default_rng(1), depth.TEST, depth.EVAL_T)
    formed, final = [], []
    for seed in range(5):
        _, history = depth.induction_run(n_layers=2, seed=seed)
        formed.append(next(step for step in depth.CHECKPOINTS if induction(history[step][3], inputs) >= 0.5))
        final.append(history[depth.STEPS][1])
    assert depth.CHECKPOINTS[1] == 25 and min(formed) == formed[0]  # "seed 0's the earliest"
    assert says(f"on the stripe at steps {min(formed)} to {max(formed)} (checked every 25), seed 0 first")
    assert min(final) == final[0]  # seed 0's second-copy loss is the best of the five
    assert says(f"(seed 0; {min(final):.1f} to {max(final):.1f} over seeds 0 to 4)")
    one = [depth.induction_run(n_layers=1, seed=seed)[1][depth.STEPS][1] for seed in range(5)]
    assert min(one) == one[0] and says(f"{one[0]:.2f}, the best of five")  # the per-position match is seed 0's
    assert says(f"only to about 2 with one ({min(one):.1f} to {max(one):.1f})")


def test_on_the_first_copy_the_models_bet_on_tokens_already_seen_where_the_floor_does_not():
    inputs, targets = depth.repeated_tokens(np.random.default_rng(1), depth.TEST, depth.EVAL_T)
    floor = depth.bayes_losses(inputs, targets)
    assert np.allclose(floor[:4], math.log(depth.V)) and floor[4] > math.log(depth.V) + 0.1
    seen = [[np.unique(row[: i + 1]) for row in inputs] for i in range(4)]
    share = max(np.mean([len(u) / depth.V for u in seen[i]]) for i in range(4))
    masses = []
    for n_layers in (2, 1):
        params = depth.induction_run(n_layers)[0]
        assert np.all(depth.position_losses(params, inputs, targets)[:4] > math.log(depth.V))
        p = softmax(forward(params, inputs, depth.N_HEADS)[0])
        masses += [np.mean([p[s, i, seen[i][s]].sum() for s in range(len(inputs))]) for i in range(4)]
    assert min(masses) > share
    assert says(f"the models put {min(masses):.2f} to {max(masses):.2f} of their")
    assert says(f"against a uniform share of at most {share:.2f}")


def test_the_early_stripe_is_mostly_position_in_one_head_and_half_in_the_other():
    _, history = depth.induction_run(n_layers=2)
    inputs, _ = depth.repeated_tokens(np.random.default_rng(1), depth.TEST, depth.EVAL_T)
    fresh = np.random.default_rng(3).integers(0, depth.V, size=inputs.shape)

    def scores(step, tokens):
        weights = forward(history[step][3], tokens, depth.N_HEADS)[1]["h1.weights"]
        return np.array([depth.induction_score(weights[:, h], depth.EVAL_T).mean() for h in range(depth.N_HEADS)])

    base, match, chance = scores(0, fresh), scores(75, inputs), scores(75, fresh)
    positional, token = chance - base, match - chance
    assert np.all(np.round(base, 2) == 0.09) and says("above the 0.09 of step 0 where nothing repeats")
    assert positional[0] > 2 * token[0] and 0.5 < positional[1] / token[1] < 2
    assert says("mostly position in head 2.1 and about half position in head 2.2")


def test_head_1_1s_direct_effect_is_the_one_its_path_row_prints():
    """The prose's "path 1.1: -0.03" is the page's printed path table: anti-copying, and tiny."""
    row = re.search(r"^1\.1 +(-?\d\.\d\d) +(-?\d\.\d\d)$", prose.source("part-4/depth.md"), flags=re.M)
    first, second = float(row[1]), float(row[2])
    assert -0.05 < second < 0 and abs(first) < 0.05
    assert says(f"which is tiny (path 1.1: \N{MINUS SIGN}{abs(second):.2f} on the second copy)")


def test_the_first_copy_is_measured_against_its_floor_3_25_not_ln_32():
    inputs, targets = depth.repeated_tokens(np.random.default_rng(1), depth.TEST, depth.EVAL_T)
    floor = depth.bayes_losses(inputs, targets)[: depth.EVAL_T]
    assert np.allclose(floor[:4], math.log(depth.V)) and floor[7] < 1.2  # at position 7 period 8 may repeat
    assert says(f"is {floor.mean():.2f} averaged over the first copy ($\\ln 32$ at its first four positions)")
    first = {n: [depth.induction_run(n)[1][step][0] for step in depth.CHECKPOINTS] for n in (2, 1)}
    alt = (
        f"while the first copy's stays between {min(first[2]):.1f} and {max(first[2]):.1f}, up to "
        f"{max(first[2]) - floor.mean():.2f} above the dotted line, {floor.mean():.2f}, the best possible first-copy "
        f"loss. One layer, dashed: the second copy's loss falls only to about 2, the first copy's stays between "
        f"ln 32 and {max(first[1]):.2f}."
    )
    assert f"{min(first[1]):.2f}" == f"{math.log(depth.V):.2f}" and says(alt)
