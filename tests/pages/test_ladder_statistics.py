"""The ladder page's statistics (snippets/part_4/ladder.py) against SciPy and against what they claim: Student's t
tail, Holm's adjustment, the block bootstrap's standard error, and the bound that makes the seeds agree."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from snippets.part_4.ladder import block_bootstrap, holm, t_point, t_tail


@pytest.mark.parametrize("df", [1, 2, 3.7, 4, 9.5, 30, 1000])
@pytest.mark.parametrize("t", [0.0, 0.3, 1.0, 2.0, 2.776, 4.5, 10.0, 60.0])
def test_t_tail_is_scipys_two_sided_p(t, df):
    assert t_tail(t, df) == pytest.approx(2 * stats.t.sf(t, df), rel=1e-10, abs=1e-300)
    assert t_tail(-t, df) == t_tail(t, df)


@pytest.mark.parametrize("df", [2, 4, 7.3])
def test_t_point_inverts_the_tail(df):
    assert t_point(0.05, df) == pytest.approx(stats.t.ppf(0.975, df), rel=1e-9)


def test_holm_is_the_step_down_rule():
    p = [0.01, 0.04, 0.03, 0.005, 0.2]
    adjusted = holm(p)
    # by hand: sorted 0.005, 0.01, 0.03, 0.04, 0.2 times 5, 4, 3, 2, 1 -> 0.025, 0.04, 0.09, 0.08 -> 0.09, 0.2
    np.testing.assert_allclose(adjusted, [0.04, 0.09, 0.09, 0.025, 0.2])
    rejected = adjusted < 0.05
    order = np.argsort(p)  # the rule itself: reject while p_(j) <= alpha / (m - j + 1)
    by_rule = np.zeros(5, dtype=bool)
    for j, index in enumerate(order):
        if p[index] > 0.05 / (5 - j):
            break
        by_rule[index] = True
    np.testing.assert_array_equal(rejected, by_rule)


def test_the_block_bootstrap_finds_the_standard_error_of_independent_blocks_and_the_larger_one_of_dependent():
    """Independent characters: the standard error of a mean of N is sigma / sqrt(N) at any block length. Characters
    that move together in stretches of 2,048: blocks of 512 see too little of the scatter, blocks of 4,096 all."""
    from snippets.part_4 import ladder

    rng = np.random.default_rng(0)
    n_blocks, block = 256, ladder.BLOCK
    chars = rng.normal(size=n_blocks * block)
    sums, counts = chars.reshape(n_blocks, block).sum(axis=1), np.full(n_blocks, block)
    expected = 1 / np.sqrt(chars.size)
    for length in (512, 2048):
        se, _ = block_bootstrap(sums, counts, length, draws=4000)
        assert se == pytest.approx(expected, rel=0.1)
    drift = np.repeat(rng.normal(size=n_blocks // 4), 4 * block)  # one shared value per stretch of 2,048
    sums = (chars + drift).reshape(n_blocks, block).sum(axis=1)
    short, _ = block_bootstrap(sums, counts, 512, draws=4000)
    long, _ = block_bootstrap(sums, counts, 4096, draws=4000)
    true = np.sqrt((1 + 2048) / chars.size)  # variance of the mean: (sigma^2 + 2048 sigma_drift^2) / N
    assert long == pytest.approx(true, rel=0.2) and short < 0.75 * long


def test_a_t_above_n_minus_1_forces_every_seed_to_agree():
    """Samuelson's inequality, as the fold states it: no value lies farther than s (n - 1) / sqrt(n) from the mean,
    and the bound is reached (so n - 1 cannot be lowered)."""
    rng = np.random.default_rng(0)
    for n in (3, 5):
        x = rng.standard_t(df=2, size=(100_000, n))
        m, s = x.mean(axis=1), x.std(axis=1, ddof=1)
        assert np.all(np.abs(x - m[:, None]).max(axis=1) <= s * (n - 1) / np.sqrt(n) * (1 + 1e-12))
        t = m / (s / np.sqrt(n))
        above = np.abs(t) > n - 1
        assert above.any() and np.all(np.sign(x[above]) == np.sign(m[above])[:, None])
        extreme = np.array([n - 1.0] + [-1.0] * (n - 1))  # one value far out, the rest equal
        assert np.abs(extreme - extreme.mean()).max() == pytest.approx(extreme.std(ddof=1) * (n - 1) / np.sqrt(n))
