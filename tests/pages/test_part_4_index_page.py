"""What docs/part-4/index.md says about how long its models train: the longest is the Shakespeare model's
largest budget, in CPU minutes of one core."""

from __future__ import annotations

from snippets.part_4 import a_model_that_writes as writer
from tests.pages import prose


def test_the_longest_training_is_a_quarter_of_an_hour_of_one_core():
    assert max(writer.BUDGETS) == 15
    assert prose.says(
        "part-4/index.md", "to train on one CPU core, in seconds (the first chapters) to a quarter of an hour"
    )
