r"""The checks of the lab "Train the tiny Transformer" (``docs/labs/train-transformer.py``).

* ``make_example`` -- digits, the separator, the digits reversed: 1 to 6 digits, lists, tuples, arrays.
* ``split`` -- a held-out split by a shuffled order: other sizes, other orders.
* ``shift`` -- the inputs and the next-token targets of a batch of sequences.
* ``answer_accuracy`` -- the fraction of answer digits predicted right, on untrained models (about one in
  five right) and on sequences whose answers are the model's own greedy ones (all right) with some changed.
* ``prediction`` -- what one head, and no positional encoding, do to the held-out accuracy.
* ``copy_any_digit`` -- how often copying a random input digit would be right.

The model is the library's (the lab trains it with ``train``): ``answer_accuracy``
may call ``forward``, and nothing else of the library.

Example
-------
>>> from transformer_math.labs.train_transformer import check
>>> check("make_example", lambda digits: list(digits) + [5] + list(digits))
Wrong: make_example - case 1 of 8: digits = [3, 1, 4, 1]
  the largest error is 3.0e+00, at index [6] (tolerance 0e+00)
"""

from __future__ import annotations

import numpy as np

from transformer_math.labs.cases import Case
from transformer_math.labs.runner import Checks, Choice, FunctionCheck
from transformer_math.model import forward, init_params
from transformer_math.sample import generate

__all__ = ["check"]

SEP, VOCAB, N_HEADS = 5, 6, 2
OWN = ("transformer_math.",)


def example_cases(rng: np.random.Generator) -> list[Case]:
    return [
        Case(([3, 1, 4, 1],)),
        Case(([0, 1, 2, 3],)),
        Case(((4, 4, 0, 2),), about="a tuple"),
        Case((rng.integers(0, 5, size=4),), about="an array"),
        Case(([2],), about="one digit"),
        Case((list(rng.integers(0, 5, size=6)),), about="six digits"),
        Case(([1, 2, 3],), about="three digits"),
    ]


def reference_example(digits):
    digits = [int(d) for d in digits]
    return digits + [SEP] + digits[::-1]


def split_cases(rng: np.random.Generator) -> list[Case]:
    def seqs(n):
        return np.array([reference_example(rng.integers(0, 5, size=4)) for _ in range(n)])

    return [
        Case((seqs(10), rng.permutation(10), 4)),
        Case((seqs(7), rng.permutation(7), 6)),
        Case((seqs(5), np.arange(5)[::-1].copy(), 2), about="the order reversed"),
        Case((seqs(12), rng.permutation(12), 0), about="nothing to train on"),
    ]


def reference_split(seqs, order, n_train):
    seqs = np.asarray(seqs)
    return seqs[order[:n_train]], seqs[order[n_train:]]


def shift_cases(rng: np.random.Generator) -> list[Case]:
    return [
        Case((rng.integers(0, 6, size=(3, 9)),)),
        Case((rng.integers(0, 6, size=(1, 5)),), about="one sequence"),
        Case((rng.integers(0, 6, size=(4, 2)),), about="sequences of two tokens"),
    ]


def reference_shift(seqs):
    seqs = np.asarray(seqs)
    return seqs[:, :-1], seqs[:, 1:]


def model(seed: int):
    return init_params(VOCAB, d_model=16, d_ff=32, seed=seed)


def greedy_answers(params, digits: np.ndarray) -> np.ndarray:
    """Sequences whose answer digits are the model's own greedy continuation: its accuracy on them is 1."""
    return np.array([generate(params, [*d, SEP], n_new=4, n_heads=N_HEADS) for d in digits])


def accuracy_cases(rng: np.random.Generator) -> list[Case]:
    digits = rng.integers(0, 5, size=(40, 4))
    random_seqs = np.array([reference_example(d) for d in digits])
    own = model(7)
    greedy = greedy_answers(own, digits[:20])
    changed = greedy.copy()
    changed[:10, 6] = (changed[:10, 6] + 1) % 5  # the second answer digit of half of them changed
    return [
        Case((model(0), random_seqs), about="an untrained model"),
        Case((model(3), random_seqs[:7]), about="another untrained model, 7 sequences"),
        Case((own, greedy), about="answers the model itself would write"),
        Case((own, changed), about="the same, one answer digit changed in half of them"),
    ]


def reference_accuracy(params, seqs):
    seqs = np.asarray(seqs)
    logits, _ = forward(params, seqs[:, :-1], N_HEADS)
    return np.mean(np.argmax(logits[:, 4:], axis=-1) == seqs[:, 5:])


def compare_accuracy(got, expected, tol):
    try:
        value = float(np.asarray(got, dtype=float).reshape(()))
    except (TypeError, ValueError):
        return [f"it returned {type(got).__name__} of shape {np.shape(got)}, not one number"]
    if abs(value - expected) > tol:
        return [f"it measured {value:.4f}; the accuracy of these predictions is off by {abs(value - expected):.1e}"]
    return None


def copy_cases(rng: np.random.Generator) -> list[Case]:
    def seqs(n):
        return np.array([reference_example(rng.integers(0, 5, size=4)) for _ in range(n)])

    repeated = np.array([reference_example([2, 2, 2, 2]), reference_example([1, 2, 1, 2])])
    return [Case((seqs(30),)), Case((repeated,), about="repeated digits"), Case((seqs(3).tolist(),), about="a list")]


def reference_copy(seqs):
    seqs = np.asarray(seqs)
    return np.mean(seqs[:, None, :4] == seqs[:, 5:, None])


check = Checks(
    "train-transformer",
    {
        "make_example": FunctionCheck(("digits",), example_cases, reference_example, tol=0.0, own=OWN),
        "split": FunctionCheck(
            ("seqs", "order", "n_train"),
            split_cases,
            reference_split,
            tol=0.0,
            parts=("train_seqs", "test_seqs"),
            own=OWN,
        ),
        "shift": FunctionCheck(("seqs",), shift_cases, reference_shift, tol=0.0, parts=("inputs", "targets"), own=OWN),
        "answer_accuracy": FunctionCheck(
            ("params", "seqs"),
            accuracy_cases,
            reference_accuracy,
            tol=1e-9,
            own=OWN,
            allowed=("transformer_math.model.forward",),
            compare_with=compare_accuracy,
        ),
        "prediction": Choice(("reverses", "fails")),
        "copy_any_digit": FunctionCheck(("seqs",), copy_cases, reference_copy, tol=1e-9, own=OWN),
    },
)
