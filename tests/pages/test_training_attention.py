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
    assert [i + 1 for i in rows] == [5, 7] and prose.says(
        "part-4/training.md", 'At the two later "the"s (rows 5 and 7)'
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


def test_the_look_back_forms_in_row_5_first_and_in_row_7_later():
    """The slider's snapshots: head 2's weight of row 5 on "on" has risen most of its way by step 15 (from 0.09 to
    0.25 of 0.40), row 7's on "mat" is still near a uniform seventh at step 30 and near its final value at 75."""
    seen = training_run()[1]
    row_5, row_7 = ({step: float(seen[step][1][i, i - 1]) for step in seen} for i in (4, 6))
    assert row_5[15] - row_5[0] > 0.5 * (row_5[300] - row_5[0]) and row_5[15] > 1 / 5 + 0.04
    assert row_7[30] < 1 / 7 + 0.03 and row_7[75] > 0.9 * row_7[300]
    assert prose.says(
        "part-4/training.md", "The look-back forms in row 5 by step 15, in row 7 between steps 30 and 75."
    )
