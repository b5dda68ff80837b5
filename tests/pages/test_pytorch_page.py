"""What docs/part-4/pytorch.md says in words about its two optimizers holds for the code it runs."""

from __future__ import annotations

import numpy as np

from tests.pages import prose
from transformer_math.optim import AdamW

PAGE = "part-4/pytorch.md"


def test_both_optimizers_decay_every_array_the_biases_and_gains_too():
    """torch's AdamW with one parameter group decays every parameter; the library's with one number does too."""
    page = prose.text(PAGE)
    assert "torch.optim.AdamW(gpt.parameters(), lr=1e-2, weight_decay=0.01)" in page  # one group: all decay
    assert "AdamW([params[name] for name in names], lr=1e-2, weight_decay=0.01)" in page
    matrix, bias = np.ones((2, 2)), np.ones(2)
    AdamW([matrix, bias], lr=0.1, weight_decay=0.5).step([np.zeros((2, 2)), np.zeros(2)])  # decay alone
    assert np.allclose(matrix, 0.95) and np.allclose(bias, 0.95)
    assert prose.says(PAGE, "here both decay every array, the LayerNorm gains and the biases too")
