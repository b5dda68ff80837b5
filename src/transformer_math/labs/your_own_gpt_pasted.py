r"""The capstone's checks of the pieces pasted from earlier labs (``your_own_gpt``): each earlier lab's check, with
a case more where the capstone's use of the piece needs one.

* ``layer_norm_backward`` gets tokens near $10^6$, where the variance as $E[x^2] - \mu^2$ loses its digits (and
  the block's backward pass, not this piece's check, would fail on it);
* ``attention`` gets masked scores $10^9$ above the allowed ones, where a mask added to the scores leaves them
  weight.
"""

from __future__ import annotations

import numpy as np

from transformer_math.labs.attention import far_masked_keys
from transformer_math.labs.cases import Case
from transformer_math.labs.runner import FunctionCheck

__all__: list[str] = []


def earlier(module, name: str, own: tuple[str, ...], derived: bool = False, more=None) -> FunctionCheck:
    """The check of an earlier lab's exercise with this lab's refusals (``own``); for a backward pass, ``derived``
    (no complex or extended-precision numbers); and the case ``more(rng)`` after its own cases, if given."""
    found = module.check.checks[name]
    cases = found.cases if more is None else lambda rng: [*found.cases(rng), more(rng)]
    options = {**found.__dict__, "own": own, "derived": derived, "cases": cases}
    return FunctionCheck(**options)


def far_rows(rng: np.random.Generator) -> Case:
    """LayerNorm's backward pass on tokens of spread 1 at 3e5 to 3e6 from 0: the variance as E[x^2] - mu^2 loses
    its digits to rounding there (x^2 near 1e12), 100 times the tolerance or more; (x - mu)^2 keeps them."""
    x = rng.normal(size=(3, 8)) + 10 ** rng.uniform(5.5, 6.5, size=(3, 1)) * rng.choice([-1, 1], size=(3, 1))
    return Case(
        (rng.normal(size=(3, 8)), x, 1 + 0.3 * rng.normal(size=8)),
        about="tokens of spread 1 near 1e6: E[x^2] - mu^2 loses the variance",
        fresh=True,
    )


def masked_far_above(rng: np.random.Generator) -> Case:
    """Attention where the masked keys' scores are 1e9 to 1e10 above the allowed ones (queries and keys of size
    1e5 along one direction: ``attention.far_masked_keys``)."""
    Q, K, mask = far_masked_keys(rng, (4.8, 5.2), (4.8, 5.2))
    return Case((Q, K, rng.normal(size=(6, 3)), mask), about="masked scores 1e9 above the allowed", fresh=True)
