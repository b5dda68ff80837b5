"""What docs/part-4/block.md says in words about its modular-addition experiment matches the output printed
above it (the page's block test checks that output against a fresh run)."""

from __future__ import annotations

import functools
import re

from tests.pages import prose

PAGE = prose.source("part-4/block.md")


says = functools.partial(prose.says, "part-4/block.md")


def sums_right() -> dict[str, list[int]]:
    """Each printed row of the experiment: the model's name and the sums right for seeds 0, 1, 2."""
    rows = re.findall(r"^(.+?)\s+sums right, seeds 0, 1, 2: \[(.+?)\] of 49$", PAGE, flags=re.M)
    return {name: [int(n) for n in counts.split(",")] for name, counts in rows}


def test_the_three_models_are_described_by_their_counts():
    found = sums_right()
    assert list(found) == ["no FFN", "d_ff = 64, identity", "d_ff = 64, relu"]
    none, linear, relu = found.values()
    assert relu.count(49) == 2 and says("With the ReLU, all 49 sums in two seeds and most in the third")
    assert says("most in the third (chance is 7); the others fewer") and max(none + linear) < min(relu)
    # "the extra parameters buy a few sums, the non-linearity most": the linear FFN's gain over none is the
    # smaller part of the ReLU's, in every seed
    gains = [(lin - no, re_ - no) for no, lin, re_ in zip(none, linear, relu)]
    assert all(0 < a < b - a for a, b in gains)
    assert says("the extra parameters buy a few sums, the non-linearity most")
