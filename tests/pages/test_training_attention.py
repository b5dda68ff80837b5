"""What docs/part-4/training.md says about the trained model's attention on its first window: the figure's weights
(snippets/part_4/training.py draws them from the same run)."""

from __future__ import annotations

import numpy as np

from snippets.part_4.training import N_HEADS, SEQ_LEN, STREAM, VOCAB, training_run
from tests.pages import prose
from transformer_math.transformer import forward, make_windows


def test_head_2_reads_the_word_before_the_later_thes_softly():
    window = make_windows(STREAM, seq_len=SEQ_LEN)[0][0]
    _, cache = forward(training_run()[2], window, n_heads=N_HEADS)
    weights = cache["weights"][1]  # head 2
    rows = [i for i in range(1, SEQ_LEN) if VOCAB[window[i]] == "the"]
    assert rows == [4, 6] and prose.says(
        "part-4/training.md", 'At the two later "the"s (positions 4 and 6, the fifth and seventh rows)'
    )
    largest = [int(np.argmax(weights[i])) for i in rows]
    assert largest == [i - 1 for i in rows] and [VOCAB[window[j]] for j in largest] == ["on", "mat"]
    shares = [weights[i, i - 1] for i in rows]
    assert max(shares) < 0.5  # soft: most of each row is elsewhere
    assert prose.says(
        "part-4/training.md",
        f'head 2\'s largest weight, {shares[0]:.2f} and {shares[1]:.2f}, is on the word just before, "on" and "mat"',
    )
    assert prose.says("part-4/training.md", "the rest is spread over the other words")


def test_the_look_back_rises_first_in_row_5_and_becomes_the_largest_first_in_row_7():
    """The slider's snapshots: head 2's weight of row 5 on "on" climbs by step 15, but is the row's largest only
    from step 75 on; row 7's weight on "mat" is the row's largest from step 50 on."""
    seen = training_run()[1]
    steps = sorted(seen)
    row_5, row_7 = ({step: seen[step][1][i] for step in steps} for i in (4, 6))

    def largest_from(row, i):  # the first snapshot from which the word before is the row's largest weight for good
        lead = [int(np.argmax(row[step][: i + 1])) == i - 1 for step in steps]
        return next(step for k, step in enumerate(steps) if all(lead[k:]))

    assert largest_from(row_5, 4) == 75 and largest_from(row_7, 6) == 50
    assert prose.says(
        "part-4/training.md",
        f'Position 4\'s weight on "on" climbs from {row_5[0][3]:.2f} to {row_5[15][3]:.2f} by step 15 and is its largest by '
        'step 75; position 6\'s on "mat" is its largest by step 50.',
    )
