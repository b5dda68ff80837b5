"""What docs/part-4/decoding.md says in words about its timed model holds for it."""

from __future__ import annotations

import functools
import inspect
import re

from snippets.part_4 import decoding
from tests.pages import prose


def test_the_scores_take_over_where_the_page_says_for_the_timed_model():
    sizes = re.search(r"d_model=(\d+), d_ff=(\d+)", inspect.getsource(decoding.decoding_times))
    d, d_ff = int(sizes[1]), int(sizes[2])
    n = 2 * d + d_ff  # 2 n^2 d > n (4 d^2 + 2 d d_ff) exactly when n > 2 d + d_ff
    assert 2 * (n + 1) ** 2 * d > (n + 1) * (4 * d**2 + 2 * d * d_ff) and not 2 * n**2 * d > n * (
        4 * d**2 + 2 * d * d_ff
    )
    says = functools.partial(prose.says, "part-4/decoding.md")
    assert says(f"once $n > 2d + d_{{ff}}$ ({n} for this model's $d = {d}$, $d_{{ff}} = {d_ff}$)")
    assert says(f"a two-block model of width {d} and d_ff = {d_ff}")  # the figure's alt text
    assert f"d = {d}, d_ff = {d_ff}," in inspect.getsource(decoding.kv_cache_times)  # and its title


def test_past_the_training_length_the_loss_is_above_the_frequencies_on_the_same_targets():
    """The prose's numbers are the printed output's: positions 16 to 31 and 32 to 63 against the frequency loss
    on the targets of positions 16 to 63."""
    page = prose.source("part-4/decoding.md")
    loss = {start: float(value) for start, value in re.findall(r"positions (\d+) to \d+: loss (\d\.\d+)", page)}
    frequencies = float(re.search(r"character frequencies alone, positions 16 to 63: (\d\.\d+)", page)[1])
    assert min(loss["16"], loss["32"]) > frequencies
    assert prose.says(
        "part-4/decoding.md",
        f"From position 16 on the loss jumps to {loss['16']:.2f} and {loss['32']:.2f}, on these characters worse "
        f"than predicting from character frequencies alone, {frequencies:.2f}.",
    )
