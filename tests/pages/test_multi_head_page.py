"""The measured case for several heads that docs/part-4/multi-head.md gives under "Why it matters" is the ladder's
printed result (docs/part-4/ladder.md, whose block test checks that output against its stored runs), with the
ladder's settings."""

from __future__ import annotations

import functools
import re

from snippets.part_4 import ladder
from tests.pages import prose

says = functools.partial(prose.says, "part-4/multi-head.md")


def test_one_head_against_four_is_the_ladders_row():
    page = prose.source("part-4/ladder.md")
    rows = {
        name: (params, loss, low, high)
        for name, params, loss, low, high in re.findall(
            r"^(one head|four heads)\s+([\d,]+)\s+([\d.]+) \(([\d.]+) to ([\d.]+)\)", page, flags=re.M
        )
    }
    (params_one, one, low_one, high_one), (params_four, four, low_four, high_four) = rows.values()
    assert params_one == params_four and float(four) < float(one) and len(ladder.SEEDS) == 5
    assert says(f"four heads of width 8 reach {four} nats per character on a held-out play")
    assert says(f"where one head of width 32, with as many parameters, reaches {one}")
    assert says(f"(means of five training runs, which span {low_four} to {high_four} and {low_one} to {high_one}).")
    assert re.search(r"\*\*Four heads\*\* of \$d_\{\\text\{head\}\} = 8\$", page) and ladder.D_MODEL == 32


def test_the_conditions_are_the_ladders():
    for rung in ("one head", "four heads"):
        settings = ladder.RUNGS[rung]
        assert settings["d_ff"] == 0 and not settings["residual"] and settings["n_layers"] == 1
    assert ladder.SEQ_LEN == 8
    assert says("in a character model of attention alone (no residual path, no feed-forward layer, windows of 8)")
