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
