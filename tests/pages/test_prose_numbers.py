"""Numbers and comparisons that Parts I and II state in prose, recomputed: if a page's claim and its
mathematics part, this test names the sentence."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np

from tests.pages import prose

says = prose.says


def test_gpt2s_first_loss_is_ln_v_plus_half_the_logit_variance():
    s = 0.02 * math.sqrt(768)  # LayerNorm outputs of mean square 1 times 768 tied weights of sigma 0.02
    assert says("part-2/information.md", f"$s \\approx 0.02\\sqrt{{768}} \\approx {s:.2f}$")
    assert says("part-2/information.md", "$768 \\cdot 0.02^2$")  # the fold's variance, s squared
    assert says("part-2/information.md", f"first loss is near {math.log(50_257) + s**2 / 2:.2f}")
    assert says("part-2/information.md", "For GPT-2's 50,257 tokens")


def test_the_first_loss_gap_is_the_target_logits_standard_error():
    """The printed first loss sits below ln V + s^2/2 by about s / sqrt(128): the mean of 128 target logits."""
    s = 0.02 * math.sqrt(768)
    assert says("part-2/information.md", f"$s/\\sqrt{{128}} \\approx {s / math.sqrt(128):.2f}$")
    assert says("part-2/information.md", "s = 0.55: first loss 10.92, ln V + s^2/2 = 10.98")  # a gap of 0.06
    assert abs((10.98 - 10.92) - s / math.sqrt(128)) < s / math.sqrt(128)  # within one standard error


def test_the_coin_likelihood_has_area_1_over_1320():
    area = sum(Fraction(c, 8 + i) for i, c in enumerate([1, -3, 3, -1]))  # theta^7 (1 - theta)^3, expanded
    assert area == Fraction(1, 1320)
    assert says("part-2/likelihood.md", "d\\theta = 1/1320$")


def test_a_thousand_rivals_5_behind_act_like_one_rival_1_9_ahead():
    ahead = math.log(1000) - 5
    assert says("part-2/softmax.md", f"In the code below, 1,000 rivals 5 behind act like one rival {ahead:.1f} *ahead*")
    assert round(1 / (1 + math.exp(ahead)), 4) == round(1 / (1 + 1000 * math.exp(-5)), 4) == 0.1292


def test_random_cosines_times_sqrt_d_approach_sqrt_2_over_pi_and_are_2_sqrt_2_over_pi_in_the_plane():
    large, plane = math.sqrt(2 / math.pi), 2 * math.sqrt(2) / math.pi
    prose = f"about $\\sqrt{{2/\\pi}} \\approx {large:.2f}$ for large $d$, and exactly $2\\sqrt{{2}}/\\pi \\approx {plane:.2f}$"
    assert says("part-1/dot-product.md", prose)
    assert says("part-1/dot-product.md", f"times sqrt(d): {2 * math.sqrt(2) / math.pi:.2f}")  # d = 2, exactly
    assert says("part-1/dot-product.md", f"times sqrt(d): {math.sqrt(2 / math.pi):.2f}")  # d = 768


def test_the_fables_held_out_losses_carry_their_standard_errors():
    from snippets.part_2.practice import fables_setup
    from transformer_math.softmax import softmax

    text, vocab, V, x, y, x_held, y_held, counts = fables_setup()
    n = counts.sum(axis=1, keepdims=True)
    per_char = {k: -np.log(((counts + k) / (n + k * V))[x_held, y_held]) for k in (0.03, 0.1, 0.3)}

    def paired(losses: np.ndarray) -> str:  # mean and standard error of a per-character difference
        d = losses - per_char[0.1]
        return f"${abs(d.mean()):.3f} \\pm {d.std(ddof=1) / math.sqrt(len(d)):.3f}$"

    sd = per_char[0.1].std(ddof=1)
    assert len(x_held) == 450
    assert says("part-2/practice.md", f"deviation of {sd:.2f}, so their mean has a [standard error]")
    assert says("part-2/practice.md", f"$1.40/\\sqrt{{450}} \\approx {sd / math.sqrt(450):.2f}$ nats")
    assert says("part-2/practice.md", "2.47 nats at $k = 0.1$ (optimistic, as above).")
    assert says("part-2/practice.md", f"$k = 0.03$ is {paired(per_char[0.03])} above $k = 0.1$, not distinguishable")
    assert says("part-2/practice.md", f"$k = 0.3$ is {paired(per_char[0.3])} above, about three standard errors")
    d3 = per_char[0.3] - per_char[0.1]
    assert d3.mean() > 2 * d3.std(ddof=1) / math.sqrt(len(d3))  # "about three standard errors"
    assert 2.5 < d3.mean() / (d3.std(ddof=1) / math.sqrt(len(d3))) < 3.5

    W = np.zeros((V, V))  # the logit table of the page's fold, stopped at step 225
    for _ in range(225):
        W -= 50.0 * (n * softmax(W) - counts) / len(x)
    early = -np.log(softmax(W)[x_held, y_held])
    d = early - per_char[0.1]
    assert d.mean() < 0 and abs(d.mean()) < 2 * d.std(ddof=1) / math.sqrt(len(d))  # below, within two s.e.
    assert says(
        "part-2/practice.md",
        f"{paired(early)} below the add-0.1 model's (paired, within two standard errors, so not a clear win)",
    )


def test_a_flag_multiplies_the_odds_of_toxicity_by_the_likelihood_ratio():
    def posterior(prior: float, p_flag_toxic: float, p_flag_harmless: float) -> float:
        odds = prior / (1 - prior) * (p_flag_toxic / p_flag_harmless)  # posterior odds = prior odds × ratio
        return odds / (1 + odds)

    assert round(0.95 / 0.05) == 19 and round(0.95 / 0.005) == 190
    assert says("part-2/conditional.md", "so a flag multiplies the odds by 19")
    assert says("part-2/conditional.md", "multiply the factor by 10, to 190, and the two nearly cancel")
    assert round(posterior(0.001, 0.95, 0.05), 4) == 0.0187  # the exercise's printed values
    assert round(posterior(0.001, 0.95, 0.005), 4) == 0.1598
    assert abs(posterior(0.001, 0.95, 0.005) - posterior(0.01, 0.95, 0.05)) < 0.002  # "nearly cancel"


def test_the_noise_eigenvalues_of_the_pca_example_lie_inside_the_marchenko_pastur_range():
    low, high = (0.3**2 * (1 + sign * math.sqrt(6 / 300)) ** 2 for sign in (-1, 1))
    sentence = f"$0.09\\,(1 \\pm \\sqrt{{6/300}})^2$, from {low:.3f} to {high:.3f}, the large-dimension limit"
    assert says("part-1/eigenvalues.md", sentence)
    printed = re.search(r"eigenvalues \(variance along each axis\): \[([^\]]*)\]", prose.text("part-1/eigenvalues.md"))
    noise = [float(value) for value in printed.group(1).split()][2:]
    assert len(noise) == 6 and low < min(noise) < 0.09 < max(noise) < high  # the largest above, the smallest below
    assert says("part-1/eigenvalues.md", f"(here {min(noise):.3f} to {max(noise):.3f})")  # this draw, inside the limit


def test_the_shears_ellipse_has_the_half_axes_the_svd_page_prints():
    printed = re.search(r"singular values: \[([^\]]*)\]", prose.text("part-1/rank-and-svd.md"))
    longest, shortest = (float(value) for value in printed.group(1).split())
    assert (longest, shortest) == tuple(np.round(np.linalg.svd([[2.0, 1.0], [0.0, 1.0]], compute_uv=False), 4))
    assert says("part-1/eigenvalues.md", f"has half-axes {longest:.2f} and {shortest:.2f}")


def test_random_cosines_need_mean_0_entries():
    rng = np.random.default_rng(0)
    d = 768

    def mean_abs_cos(a, b):
        return np.mean(np.abs(np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))))

    assert abs(mean_abs_cos(*rng.uniform(-1, 1, size=(2, 10_000, d))) * math.sqrt(d) - math.sqrt(2 / math.pi)) < 0.02
    assert mean_abs_cos(*rng.uniform(0, 1, size=(2, 10_000, d))) > 0.7  # entries that all lean one way
    assert says(
        "part-1/dot-product.md",
        "any independent, identically distributed entries of mean 0 and finite variance give the same large-$d$ value; entries from $[0, 1]$ do not",
    )


def test_the_map_counts_the_lines_of_its_forward_pass():
    block = re.search(r"```python\n(.*?)```", prose.source("what-a-gpt-computes.md"), re.S)
    lines = sum(1 for line in block.group(1).splitlines() if line.strip())
    assert says("what-a-gpt-computes.md", f"one picture and {lines} lines of NumPy")


def test_a_copying_score_of_one_can_lower_an_own_logit():
    """reading-a-head's counterexample: eigenvalues 1 and 1 (a score of 1), yet a negative diagonal entry."""
    M = np.array([[-1.0, 4.0], [-1.0, 3.0]])
    assert np.allclose(np.linalg.eigvals(M), [1.0, 1.0]) and M[0, 0] < 0
    assert says("part-1/reading-a-head.md", "$\\begin{pmatrix}-1 & 4\\\\ -1 & 3\\end{pmatrix}$ has")
    assert says("part-1/reading-a-head.md", "eigenvalues 1 and 1 (`np.linalg.eigvals` finds them), so it scores 1")


def test_two_heads_of_width_1_each_send_their_output_through_their_own_row_of_w_o():
    """reading-a-head's block product: the heads' outputs side by side times W_O is the sum over heads of each
    output times its own rows; matrices.md's example, read as two heads of width 1."""
    W_O = np.array([[2.0, 0.0], [1.0, 1.0]])
    heads = [np.array([[3.0]]), np.array([[-2.0]])]
    assert np.array_equal(np.hstack(heads) @ W_O, heads[0] @ W_O[:1] + heads[1] @ W_O[1:])
    assert says(
        "part-1/matrices.md", "(3, -2) \\begin{pmatrix} 2 & 0 \\\\ 1 & 1 \\end{pmatrix} &= 3\\,(2, 0) - 2\\,(1, 1)"
    )
    assert says(
        "part-1/reading-a-head.md",
        "$(3, -2)\\begin{pmatrix} 2 & 0 \\\\ 1 & 1 \\end{pmatrix} = 3\\,(2, 0) - 2\\,(1, 1)$, head 1's part plus head 2's.",
    )


def test_the_exponential_of_a_very_negative_score_is_tiny():
    assert f"{math.exp(-20):.0e}" == "2e-09" and np.exp(-np.inf) == 0.0
    assert says("part-1/practice.md", "($e^{-20} \\approx 2 \\times 10^{-9}$), so $e^{-\\infty} = 0$")
