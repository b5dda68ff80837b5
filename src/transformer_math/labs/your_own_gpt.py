r"""The checks of the capstone lab "Your own GPT" (``docs/labs/your-own-gpt.py``).

The learner's pieces, each on hidden cases against the library, with no call to the library allowed:

* the pieces the off-path labs drill too, checked as there: ``layer_norm``, ``attention``, ``cross_entropy``,
  ``ce_backward``, ``layer_norm_backward``, ``attention_backward``, ``adamw_step``, with a case more for
  ``layer_norm_backward`` (tokens near $10^6$) and ``attention`` (masked scores $10^9$ above the allowed ones)
  (``your_own_gpt_pasted``);
* ``embed`` -- token embeddings plus learned positions, one sequence or a batch;
* ``block_forward`` -- one pre-LN block, returning its output and a cache of the learner's own design, which
  ``block_backward`` will read: no entry of it is the returned $x_2$ (an $x_1$ written over by ``x1 += ...``),
  the entries named as in the hint (``x``, ``a``, ``q``, ..., ``mask``, ``x1``, ``c``, ``u``, ``r``) hold those
  arrays (the same values in the same order, in any shape of their size; the mask the causal one), and the next
  call leaves it as it was (``forward_cache``);
* ``gpt_forward`` -- tokens to logits through $L = 1, 2, 3$ blocks, with 1, 2 or 4 heads, and a cache whose
  blocks' caches are each their own, hold under the hint's names what the block's backward pass reads, and are
  not written over later (by a later block, or by the next call); its own ``tokens``, ``x`` and ``z`` hold the
  tokens, the last block's output and its normalised form, and ``n_heads`` is kept;
* ``block_backward`` and ``gpt_backward`` -- every gradient, from upstream gradients that are not a loss's,
  through the learner's own caches (the forward pass must pass its check first; ``gpt_backward``'s tokens come as
  an array, so that a cache that keeps them as given, a list, is no fault of the backward pass). The first case
  of each has a large loss (tokens near $10^6$, a final shift near $10^6$) whose rounding loses a finite
  difference of it; the widest (a block of width 128, a model of width 96) a work budget (``timing``): a
  gradient measured entry by entry runs a forward pass for each of 77,000 entries or more, a minute of CPU
  or hundreds of MB, where the closed form takes milliseconds: no such measurement passes, of any step or
  order, however vectorised, even of the block's branches alone with the shift LayerNorm ignores taken out;
* every backward check (the pasted ones too) runs the learner's code with complex and extended-precision
  numbers refused, ``Decimal`` and ``Fraction`` too, wherever the code keeps them (a complex step, or a
  difference in 60 digits, measures a gradient with no rounding to lose it in: ``measured``), and
  ``block_backward`` and ``gpt_backward`` within a budget of Python steps a case, which a loop over the
  parameter entries of their widest case exceeds many times over, whatever it computes there;
* ``train`` -- the training loop: a few AdamW steps of a small model, its losses and its parameters after, with
  weight decay on the matrices only, as nanoGPT decays them, and the gradients from the learner's
  ``gpt_backward``, called once a batch, each step taken from what it returned: the check flips their signs and
  scales each entry anew at every call on the way (``WRAPPER``), and a step from a gradient measured from the
  loss (or with only its signs from ``gpt_backward``), which AdamW would hardly tell from the derived one, lands
  elsewhere;
* ``prediction`` -- whether the trained model beats a model that ignores the context.

Example
-------
>>> import numpy as np
>>> from transformer_math.labs.your_own_gpt import check
>>> check("embed", lambda params, tokens: params["W_E"][np.asarray(tokens)])   # the positions forgotten
Wrong: embed - case 1 of 6: params: a dict of 17 arrays, tokens = [0, 1, 2, 3] (one sequence)
  the largest error is 2.0e+00, at index (2, 2) (tolerance 1e-09 + 1e-06 of the value)
"""

from __future__ import annotations

import numpy as np

from transformer_math.block import block_backward as reference_block_backward
from transformer_math.block import block_forward as reference_block_forward
from transformer_math.labs import adam, attention, backward_passes, cross_entropy, transformer_block
from transformer_math.labs.answers import Choice
from transformer_math.labs.authorship import Learners
from transformer_math.labs.cases import Case
from transformer_math.labs.diagnose import compare, compare_grads
from transformer_math.labs.forward_cache import (
    block_cache_fault,
    block_expected,
    gpt_cache_fault,
    reference_logits,
    run_block_forward,
    run_gpt_forward,
)
from transformer_math.labs.models import drawn_block, gpt_model
from transformer_math.labs.runner import Checks, FunctionCheck, Verdict
from transformer_math.labs.submitted import refusal
from transformer_math.labs.timing import TimeLimit
from transformer_math.labs.your_own_gpt_pasted import earlier, far_rows, masked_far_above
from transformer_math.labs.your_own_gpt_train import train_check
from transformer_math.model import backward, forward

__all__ = ["check"]

OWN = ("transformer_math.",)
TOL = {"tol": 1e-9, "rtol": 1e-6}
# Python steps a case of block_backward or gpt_backward may run, the forward pass the check runs first included:
# the reference solution takes 1,300 to 8,100, a loop over the heads or the tokens a few times that. The widest
# case of each has 77,000 to 132,000 parameter entries: a loop over them takes 5 steps an entry to do nothing,
# and one that measures each entry's gradient runs a forward pass for each, hundreds of steps.
MODEL_STEPS = 100_000
# The CPU time and memory of the widest case: a closed form takes 10 to 30 ms there under the guard's trace of its
# steps, and up to a second near MODEL_STEPS; a gradient measured entry by entry, vectorised over batches of
# perturbed copies so that it runs few steps, runs a forward pass for every parameter entry: a minute of CPU,
# or hundreds of MB at once, whatever its step and its order (and with the shift LayerNorm ignores taken out).
WORK = TimeLimit(
    "derive each gradient and write it as a few products of arrays; a gradient measured entry by entry runs a "
    "forward pass for every entry",
    floor=2.0,
)


def embed_cases(rng: np.random.Generator) -> list[Case]:
    return [
        Case((gpt_model(rng, 7, 8, 1), np.array([0, 1, 2, 3])), about="one sequence"),
        Case((gpt_model(rng, 5, 8, 1), rng.integers(0, 5, size=(3, 6))), about="a batch of 3"),
        Case((gpt_model(rng, 9, 4, 1), [8]), about="one token, a list"),
        Case((gpt_model(rng, 6, 8, 1), rng.integers(0, 6, size=12)), about="as long as the positions go"),
        Case((gpt_model(rng, 6, 8, 1), np.array([2, 2, 2])), about="one token three times"),
    ]


def reference_embed(params, tokens):
    tokens = np.asarray(tokens)
    return params["W_E"][tokens] + params["W_P"][: tokens.shape[-1]]


def block_cases(rng: np.random.Generator) -> list[Case]:
    return [
        Case((rng.normal(size=(5, 8)), drawn_block(rng, 8, 16), 2), about="two heads"),
        Case((rng.normal(size=(4, 8)), drawn_block(rng, 8, 16), 1), about="one head"),
        Case((rng.normal(size=(3, 12)), drawn_block(rng, 12, 24), 4), about="four heads"),
        Case((rng.normal(size=(2, 4, 8)), drawn_block(rng, 8, 16), 2), about="a batch of 2"),
        Case((rng.normal(size=(1, 4)), drawn_block(rng, 4, 8), 2), about="one token"),
    ]


def gpt_cases(rng: np.random.Generator) -> list[Case]:
    return [
        Case((gpt_model(rng, 7, 8, 1), np.array([0, 1, 2, 3]), 2), about="one block"),
        Case((gpt_model(rng, 9, 8, 2), rng.integers(0, 9, size=(2, 5)), 2), about="two blocks, a batch of 2"),
        Case((gpt_model(rng, 6, 12, 3), rng.integers(0, 6, size=7), 4), about="three blocks, four heads"),
        Case((gpt_model(rng, 5, 8, 2), [3], 1), about="one token, one head"),
    ]


def forward_first(name: str, function, args, reference, cache_fault=None):
    """Run the learner's forward function (from the notebook of ``function``) and say Not yet if it is not right:
    its output, and what ``cache_fault(output, cache)`` finds in its cache, so that a right backward pass is not
    blamed for a cache its forward pass spoiled."""
    mine = getattr(function, "__globals__", {}).get(name)
    if not callable(mine):
        raise Verdict("Not yet", f"it needs your {name}, which is not defined yet")
    refused = refusal(mine, OWN)
    if refused:
        raise Verdict("Wrong", f"its {name} {refused.removeprefix('it ')}")
    result = Learners(mine)(*args)  # the library's, reached through it, is refused as the learner's call
    if not (isinstance(result, tuple) and len(result) == 2) or result[0] is Ellipsis:
        raise Verdict("Not yet", f"it needs your {name} to pass its check first")
    if compare(result[0], reference, **TOL):
        raise Verdict("Not yet", f"it needs your {name} to pass its check first")
    fault = cache_fault and cache_fault(*result)
    if fault:
        raise Verdict("Not yet", f"it needs your {name} to pass its check first: {fault}")
    return result[1]


def block_backward_cases(rng: np.random.Generator) -> list[Case]:
    """The arguments in the order of ``block_backward(dx2, p, cache, n_heads)``, the block's input x in the cache's
    place: the check runs the learner's ``block_forward`` on it for the cache."""
    x = rng.normal(size=(4, 8)) + 1e6 * rng.normal(size=(4, 1))
    far = Case(
        (x, drawn_block(rng, 8, 16), 2),
        about="tokens near 1e6, which LayerNorm removes: a loss too large to difference",
    )
    wide = Case((rng.normal(size=(3, 128)), drawn_block(rng, 128, 256), 2), about=f"width 128: {ENTRIES}")
    return [
        Case(
            (rng.normal(size=np.shape(case.args[0])), case.args[1], case.args[0], case.args[2]),
            about=case.about,
            time_limit=WORK if case is wide else None,
        )
        for case in [far, *block_cases(rng), wide]
    ]


def run_block_backward(function, dx2, p, x, n_heads):
    reference, intermediates = reference_block_forward(p, np.asarray(x, dtype=float), n_heads)
    expected = block_expected(intermediates, x)
    cache = forward_first(
        "block_forward", function, (x, p, n_heads), reference, lambda x2, cache: block_cache_fault(cache, x2, expected)
    )
    result = function(dx2, p, cache, n_heads)
    if result is Ellipsis:
        return ...
    if not (isinstance(result, tuple) and len(result) == 2):
        raise Verdict("Wrong", "it should return the pair (dx, grads)")
    return result


def reference_block_grads(dx2, p, x, n_heads):
    x = np.asarray(x, dtype=float)
    _, cache = reference_block_forward(p, x, n_heads)
    return reference_block_backward(p, cache, dx2, n_heads)


def compare_block_grads(got, expected, tol):
    """The weights' gradients in backward order, then dx, the last thing the backward pass computes."""
    lines = compare_grads(got[1], expected[1], tol)
    if lines:
        return lines
    lines = compare(got[0], expected[0], tol=tol, rtol=1e-6)
    return [f"dx: {lines[0]}", *lines[1:]] if lines else None


def gpt_backward_cases(rng: np.random.Generator) -> list[Case]:
    params = gpt_model(rng, 7, 8, 1)
    params["lnf_b"] = params["lnf_b"] + 1e6 * rng.normal(size=8)
    far = Case((params, np.array([0, 1, 2, 3, 1]), 2), about="a final shift near 1e6: a loss too large to difference")
    wide = Case((gpt_model(rng, 7, 96, 1), rng.integers(0, 7, size=(2, 6)), 4), about=f"width 96: {ENTRIES}")
    cases = []
    for case in [far, *gpt_cases(rng), wide]:
        params, tokens, n_heads = case.args
        vocab = params["W_E"].shape[0]
        tokens = np.asarray(tokens)  # the forward pass's cache is the learner's gpt_forward's: a list there is its own
        dlogits = rng.normal(size=(*np.shape(tokens), vocab))
        cases.append(
            Case((params, tokens, n_heads, dlogits), about=case.about, time_limit=WORK if case is wide else None)
        )
    return cases


def run_gpt_backward(function, params, tokens, n_heads, dlogits):
    logits = reference_logits(params, tokens, n_heads)
    cache = forward_first(
        "gpt_forward",
        function,
        (params, tokens, n_heads),
        logits,
        lambda _, c: gpt_cache_fault(c, params, tokens, n_heads),
    )
    return function(params, cache, dlogits)


def reference_gpt_grads(params, tokens, n_heads, dlogits):
    _, cache = forward(params, np.asarray(tokens), n_heads)
    return backward(params, cache, dlogits)


ENTRIES = "a gradient measured entry by entry exceeds the work budget"


check = Checks(
    "your-own-gpt",
    {
        "layer_norm": earlier(transformer_block, "layer_norm", OWN),
        "attention": earlier(attention, "attention", OWN, more=masked_far_above),
        "cross_entropy": earlier(cross_entropy, "cross_entropy_from_logits", OWN),
        "ce_backward": earlier(backward_passes, "ce_backward", OWN, derived=True),
        "layer_norm_backward": earlier(backward_passes, "layer_norm_backward", OWN, derived=True, more=far_rows),
        "attention_backward": earlier(backward_passes, "attention_backward", OWN, derived=True),
        "adamw_step": earlier(adam, "adamw_step", OWN),
        "embed": FunctionCheck(("params", "tokens"), embed_cases, reference_embed, **TOL, own=OWN),
        "block_forward": FunctionCheck(
            ("x", "p", "n_heads"),
            block_cases,
            lambda x, p, h: reference_block_forward(p, np.asarray(x, dtype=float), h)[0],
            **TOL,
            own=OWN,
            call=run_block_forward,
        ),
        "gpt_forward": FunctionCheck(
            ("params", "tokens", "n_heads"), gpt_cases, reference_logits, **TOL, own=OWN, call=run_gpt_forward
        ),
        "block_backward": FunctionCheck(
            ("dx2", "p", "cache of x", "n_heads"),
            block_backward_cases,
            reference_block_grads,
            **TOL,
            own=OWN,
            call=run_block_backward,
            compare_with=compare_block_grads,
            budget=MODEL_STEPS,
            derived=True,
        ),
        "gpt_backward": FunctionCheck(
            ("params", "cache of tokens", "n_heads", "dlogits"),
            gpt_backward_cases,
            reference_gpt_grads,
            **TOL,
            own=OWN,
            call=run_gpt_backward,
            compare_with=compare_grads,
            budget=MODEL_STEPS,
            derived=True,
        ),
        "train": train_check(OWN),
        "prediction": Choice(("beats it", "does not")),
    },
)
