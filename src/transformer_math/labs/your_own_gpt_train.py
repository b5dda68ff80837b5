r"""The capstone's check of ``train`` (``your_own_gpt``): a few AdamW steps of a small model, its losses and its
parameters after, against the library's loop with the decay on the matrices only, as nanoGPT decays them.

While the check runs, the learner's ``gpt_backward`` reaches ``train`` with each entry of its gradients times minus
a factor drawn anew at every call, and ``ce_backward`` with dlogits times a positive number drawn anew (AdamW sees
it from its second step on; the signs stay), and the reference steps on the same: a step that takes its gradients from
elsewhere (measured from the loss, or not at all) moves the other way, and is told so, as is one that takes only
their signs from ``gpt_backward``; ``train`` must call ``gpt_backward`` once a batch. A step that decays other
parameters than the matrices is told where its decay went.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from transformer_math.information import cross_entropy_from_logits
from transformer_math.labs.cases import Case
from transformer_math.labs.diagnose import compare, compare_grads
from transformer_math.labs.models import gpt_model
from transformer_math.labs.runner import FunctionCheck
from transformer_math.model import backward, cross_entropy_backward, forward
from transformer_math.optim import AdamW

__all__: list[str] = []


def train_check(own: tuple[str, ...]) -> FunctionCheck:
    """The check of ``train(params, batches, n_heads, lr, weight_decay)``, with the library refused (``own``)."""
    return FunctionCheck(
        ("params", "batches", "n_heads"),
        train_cases,
        reference_train,
        tol=1e-8,
        own=own,
        call=run_train,
        mutates=("params",),
        compare_with=compare_training,
        watch=learners_gpt_backward,
        verify=calls_gpt_backward,
    )


def train_cases(rng: np.random.Generator) -> list[Case]:
    def batches(vocab, count, shape):
        return [tuple(rng.integers(0, vocab, size=shape) for _ in range(2)) for _ in range(count)]

    return [  # the smallest first: a check that stops at its first wrong case runs a slow wrong answer little
        Case((gpt_model(rng, 6, 4, 1), batches(6, 2, (1, 6)), 1), {"weight_decay": 0.0}, about="no decay"),
        Case((gpt_model(rng, 7, 8, 1), batches(7, 3, (2, 5)), 2), about="one block, 3 batches of 2 windows"),
        Case(
            (gpt_model(rng, 5, 8, 2), batches(5, 4, (3, 4)), 2),
            {"lr": 0.01, "weight_decay": 0.5},
            about="two blocks, other lr and decay",
        ),
    ]


# The learner's gpt_backward as train meets it in the check: each entry of its gradients times minus a factor from
# 1/2 to 2, drawn anew at every call (seeded by the call's number and the parameter's place among the sorted names),
# so that the reference's steps (on the same disguised gradients) are reached only by a step that uses what it
# returned, as returned: a gradient taken elsewhere (measured from the loss) descends where the reference climbs,
# and one that borrows only the returned signs misses the factors, which AdamW sees from its second step on (a
# factor fixed across calls it would not see). Compiled outside any module, it runs as the learner's code, whose
# call of the learner's gpt_backward the guard counts; ``disguised`` is the same source, run by the reference.
DISGUISE = (
    "def disguised(call, names, name, grad):\n"
    "    if name not in names:\n"
    "        return -grad\n"
    "    factor = 2.0 ** np.random.default_rng([call, names.index(name)]).uniform(-1.0, 1.0, size=np.shape(grad))\n"
    "    return -factor * grad\n"
    "\n\n"
    "def disguised_dlogits(call, dlogits):\n"
    "    return 2.0 ** np.random.default_rng([call, 1 << 20]).uniform(-1.0, 1.0) * dlogits\n"
)
WRAPPER = compile(
    DISGUISE + "\n\n"
    "def gpt_backward(params, cache, dlogits):\n"
    "    calls.append(1)\n"
    "    grads = mine(params, cache, dlogits)\n"
    "    if not isinstance(grads, dict):\n"
    "        return grads\n"
    "    names = sorted(params)\n"
    "    return {name: disguised(len(calls), names, name, grad) for name, grad in grads.items()}\n"
    "\n\n"
    "def ce_backward(*args, **kwargs):\n"
    "    ce_calls.append(1)\n"
    "    dlogits = mine_ce(*args, **kwargs)\n"
    "    return disguised_dlogits(len(ce_calls), dlogits) if isinstance(dlogits, np.ndarray) else dlogits\n",
    "<the check's gpt_backward>",
    "exec",
)
_REFERENCE = {"np": np}
exec(compile(DISGUISE, "<the check's disguise>", "exec"), _REFERENCE)  # noqa: S102 - the check's own few lines
disguised, disguised_dlogits = _REFERENCE["disguised"], _REFERENCE["disguised_dlogits"]


def run_train(function, params, batches, n_heads, **options):
    """The learner's train, its globals' gpt_backward and ce_backward disguised while it runs (``WRAPPER``): the
    losses, the parameters, and how often the disguised gpt_backward was called."""
    namespace = getattr(function, "__globals__", {})
    mine = {name: namespace.get(name) for name in ("gpt_backward", "ce_backward")}
    wrapper = {"mine": mine["gpt_backward"], "mine_ce": mine["ce_backward"], "calls": [], "ce_calls": [], "np": np}
    exec(WRAPPER, wrapper)  # noqa: S102 - the check's own few lines
    for name, own in mine.items():
        if callable(own):
            namespace[name] = wrapper[name]
    try:
        losses = function(params, iter(batches), n_heads, **options)
    finally:
        for name, own in mine.items():
            if callable(own):
                namespace[name] = own
    if losses is Ellipsis:
        return ...
    return losses, params, len(wrapper["calls"])


def learners_gpt_backward(function):
    """The learner's gpt_backward, whose calls the guard counts while ``train`` runs."""
    mine = getattr(function, "__globals__", {}).get("gpt_backward")
    return (mine.__code__,) if hasattr(mine, "__code__") else ()


def calls_gpt_backward(result, case, seen) -> list[str] | None:
    """A step's gradients come from the learner's backward pass: at least one call of gpt_backward a batch (a
    gradient measured from the loss passes the comparison, since AdamW's step hardly sees its small errors)."""
    batches, calls = len(case.args[1]), sum(seen.calls.values())
    if calls >= batches:
        return None
    return [
        f"it called your gpt_backward {calls} times for {batches} batches: each step's gradients come from your "
        "backward pass, once a batch (a gradient measured from the loss is not the exercise)"
    ]


class Training(NamedTuple):
    """The reference's loop on the gradients as train gets them in the check, and, for the message of a wrong
    step, the same loop on other gradients: as returned (``plain``), their signs without the factors (``signs``),
    dlogits as ce_backward returns them, undisguised (``measured``), and the decay elsewhere (``decays``, by what
    the check says then). ``steps`` returns its first two fields: ``compare_steps`` reads either."""

    losses: list
    params: dict
    plain: tuple
    decays: dict
    signs: tuple
    measured: tuple


def reference_train(params, batches, n_heads, lr=3e-3, weight_decay=0.1):
    """The loop the lab asks for, with the library, on the disguised gradients train gets in the check
    (``WRAPPER``); then, for the message of a wrong step, the same loop on the gradients as they are, with the
    decay on other parameters than the matrices (``DECAYS``), and on the disguise's signs without its factors."""
    copies = [{name: value.copy() for name, value in params.items()} for _ in range(3 + len(DECAYS))]
    plain = steps(copies[0], batches, n_heads, lr, weight_decay, as_returned, dlogits=as_given)
    signs = steps(copies[1], batches, n_heads, lr, weight_decay, flipped, dlogits=as_given)
    measured = steps(copies[2], batches, n_heads, lr, weight_decay, disguised, dlogits=as_given)
    others = {
        said: steps(copy, batches, n_heads, lr, weight_decay, disguised, decays)
        for (said, decays), copy in zip(DECAYS.items(), copies[3:])
    }
    return Training(*steps(params, batches, n_heads, lr, weight_decay, disguised), plain, others, signs, measured)


def as_returned(call, names, name, grad):
    return grad


def as_given(call, dlogits):
    return dlogits


def flipped(call, names, name, grad):
    """The disguise's signs, without its factors: where a step that borrows only the signs lands."""
    return -grad


def is_matrix(value: np.ndarray) -> bool:
    return value.ndim >= 2


# Where else a learner's loop puts the decay, and what the check says then.
DECAYS = {
    "the decay reached the vectors too (LayerNorm's gains and shifts, the biases): decay the matrices only": (
        lambda value: True
    ),
    "no parameter was decayed: decay the matrices (weight_decay on every array of two or more axes)": (
        lambda value: False
    ),
    "the decay reached the vectors and not the matrices: decay the matrices only": (lambda value: value.ndim < 2),
}


def steps(params, batches, n_heads, lr, weight_decay, change, decays=is_matrix, dlogits=disguised_dlogits):
    """AdamW, its decay on the parameters ``decays`` picks (the matrices), on the gradients as ``change`` makes
    them from dlogits as ``dlogits`` makes them (``disguised`` and ``disguised_dlogits``: as train gets them in
    the check): the losses and the parameters."""
    decayed_names = [name for name in params if decays(params[name])]
    kept_names = [name for name in params if not decays(params[name])]
    decayed = (
        AdamW([params[name] for name in decayed_names], lr=lr, weight_decay=weight_decay) if decayed_names else None
    )
    kept = AdamW([params[name] for name in kept_names], lr=lr, weight_decay=0.0) if kept_names else None
    losses, names = [], sorted(params)
    for call, (x, y) in enumerate(batches, start=1):
        logits, cache = forward(params, x, n_heads)
        losses.append(cross_entropy_from_logits(logits, y))
        grads = backward(params, cache, dlogits(call, cross_entropy_backward(logits, y)))
        grads = {name: change(call, names, name, grad) for name, grad in grads.items()}
        if decayed:
            decayed.step([grads[name] for name in decayed_names])
        if kept:
            kept.step([grads[name] for name in kept_names])
    return losses, params


def compare_training(got, expected, tol):
    if not (isinstance(got, tuple) and len(got) == 3):
        return ["it should return the list of losses, one per batch"]
    losses, params, calls = got
    if calls < len(expected.losses):  # a gradient from elsewhere, or gpt_backward under another name: say so
        return [
            f"it called your gpt_backward {calls} times for {len(expected.losses)} batches (by that name, which the "
            "check follows): each step's gradients come from your backward pass, called as gpt_backward once a "
            "batch (a gradient measured from the loss is not the exercise)"
        ]
    lines = compare_steps(losses, params, expected, tol)
    if lines and not compare_steps(losses, params, expected.plain, 1e-6):
        return [
            "the step does not use what your gpt_backward returned: the check changed its gradients, and your "
            "parameters moved as if it had not (take each step's gradients from that call's result)"
        ]
    if lines and not compare_steps(losses, params, expected.measured, 1e-6):
        return [
            "the step does not use what your ce_backward returned: the check changed dlogits, and your parameters "
            "moved as if it had not (give gpt_backward the dlogits your ce_backward returns, measured nowhere)"
        ]
    if lines and not compare_steps(losses, params, expected.signs, 1e-6):
        return [
            "the step takes only the signs of what your gpt_backward returned: the check changed the size of each "
            "entry too, and your parameters moved as if it had not (step on that call's result as it is)"
        ]
    if lines and calls > len(expected.losses):
        lines = [
            *lines,
            f"  (it called your gpt_backward {calls} times for {len(expected.losses)} batches: once a batch)",
        ]
    for said, other in expected.decays.items():
        if lines and not compare_steps(losses, params, other, tol):
            return [*lines, said]
    return lines


def compare_steps(losses, params, expected, tol):
    lines = compare(
        np.asarray(losses, dtype=float) if isinstance(losses, (list, tuple, np.ndarray)) else losses,
        expected[0],
        tol=tol,
        rtol=1e-6,
    )
    if lines:
        return [f"the losses: {lines[0]}", *lines[1:]]
    lines = compare_grads(params, expected[1], tol)
    return [line.replace("grads[", "params[", 1) for line in lines] + ["  (after the steps)"] if lines else None
