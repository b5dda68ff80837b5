"""The measured case for several heads that docs/part-4/multi-head.md opens with is the ladder's printed result
(docs/part-4/ladder.md, whose block test checks that output against its stored runs)."""

from __future__ import annotations

import functools
import re

from tests.pages import prose

says = functools.partial(prose.says, "part-4/multi-head.md")


def test_one_head_against_four_is_the_ladders_row():
    ladder = prose.source("part-4/ladder.md")
    rows = dict(
        (name, (params, loss))
        for name, params, loss in re.findall(r"^(one head|four heads)\s+([\d,]+)\s+([\d.]+) \(", ladder, flags=re.M)
    )
    (params_one, one), (params_four, four) = rows["one head"], rows["four heads"]
    assert params_one == params_four and float(four) < float(one)
    assert says("For as many parameters, four heads of width 8")
    assert says(f"reach {four} nats per character on a held-out Shakespeare play (mean of five seeds;")
    assert says(f"where one head of width 32 reaches {one}.") and "8 rungs of 5 seeds" in ladder
    assert re.search(r"\*\*Four heads\*\* of \$d_\{\\text\{head\}\} = 8\$", ladder) and "$d = 32$" in ladder
