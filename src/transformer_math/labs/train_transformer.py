r"""The checks of the lab "Train the tiny Transformer" (``docs/labs/train-transformer.py``).

* ``make_datasets`` -- each row of digits made a sequence (the digits, the separator, the digits reversed), and
  the sequences split by a shuffled order: 1 to 6 digits, lists of tuples, other orders, nothing to train on
  (an empty part may have any empty shape).
* ``loss_at_start`` -- by hand: the loss of a model that gives every token the same probability.
* ``loss_floor`` -- by hand: the lowest mean loss on sequences never seen, three of eight targets being random.
* ``inputs_and_targets`` -- the inputs and the next-token targets of a batch of sequences, written after
  diagnosing a training run whose loss falls below that floor.
* ``answer_accuracy`` -- the fraction of answer digits predicted right, on untrained models (about one in
  five right) and on sequences whose answers are the model's own greedy ones (all right) with some changed.
* ``prediction`` -- what one head, and no positional encoding, do to the held-out accuracy: a dict of the two.
* ``copy_any_digit`` -- how often copying a random input digit would be right.

The model is the library's (the lab trains it with ``train``): ``answer_accuracy``
may call ``forward``, and nothing else of the library.

Example
-------
>>> from transformer_math.labs.train_transformer import check
>>> check("loss_floor", 0.0)
Wrong: loss_floor - 0.0000 is not it (to 4 decimals): a perfect model still cannot predict a digit drawn at random
"""

from __future__ import annotations

import numpy as np

from transformer_math.labs.answers import Choice
from transformer_math.labs.cases import Case
from transformer_math.labs.diagnose import compare_parts
from transformer_math.labs.hand import HandNumber
from transformer_math.labs.runner import Checks, FunctionCheck
from transformer_math.model import forward, init_params
from transformer_math.sample import generate

__all__ = ["check"]

SEP, VOCAB, N_HEADS = 5, 6, 2
OWN = ("transformer_math.",)


def sequence(digits) -> list[int]:
    digits = [int(d) for d in digits]
    return digits + [SEP] + digits[::-1]


def datasets_cases(rng: np.random.Generator) -> list[Case]:
    def digits(n, k):
        return rng.integers(0, 5, size=(n, k))

    return [
        Case((digits(10, 4), rng.permutation(10), 4)),
        Case((digits(7, 1), rng.permutation(7), 3), about="one digit each"),
        Case((digits(6, 6), rng.permutation(6), 5), about="six digits each"),
        Case(([(3, 1, 4, 1), (0, 1, 2, 3), (4, 4, 0, 2)], [2, 0, 1], 2), about="a list of tuples"),
        Case((digits(5, 3), np.arange(5)[::-1].copy(), 2), about="the order reversed"),
        Case((digits(8, 4), rng.permutation(8), 0), about="nothing to train on"),
        Case((digits(4, 2).tolist(), rng.permutation(4).tolist(), 4), about="lists, everything to train on"),
    ]


def reference_datasets(digits, order, n_train):
    seqs = np.array([sequence(d) for d in digits]).reshape(len(digits), -1)
    order = np.asarray(order, dtype=int)
    return seqs[order[:n_train]], seqs[order[n_train:]]


def compare_datasets(got, expected, tol: float) -> list[str] | None:
    """The two parts, each compared with its reference; an empty part may be empty in any shape (``np.array([])``
    for no sequences, not only shape (0, 9))."""
    if isinstance(got, (tuple, list)) and len(got) == len(expected):
        got = [want if np.size(want) == 0 and np.size(part) == 0 else part for part, want in zip(got, expected)]
    return compare_parts(got, expected, ("train_seqs", "test_seqs"), tol=tol)


def shift_cases(rng: np.random.Generator) -> list[Case]:
    return [
        Case((rng.integers(0, 6, size=(3, 9)),)),
        Case((rng.integers(0, 6, size=(1, 5)),), about="one sequence"),
        Case((rng.integers(0, 6, size=(4, 2)),), about="sequences of two tokens"),
        Case((rng.integers(0, 6, size=(2, 7)).tolist(),), about="a list"),
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
    random_seqs = np.array([sequence(d) for d in digits])
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
        return [f"that is not the accuracy of these predictions (tolerance {tol:.0e})"]
    return None


def copy_cases(rng: np.random.Generator) -> list[Case]:
    def seqs(n):
        return np.array([sequence(rng.integers(0, 5, size=4)) for _ in range(n)])

    repeated = np.array([sequence([2, 2, 2, 2]), sequence([1, 2, 1, 2])])
    return [Case((seqs(30),)), Case((repeated,), about="repeated digits"), Case((seqs(3).tolist(),), about="a list")]


def reference_copy(seqs):
    seqs = np.asarray(seqs)
    return np.mean(seqs[:, None, :4] == seqs[:, 5:, None])


check = Checks(
    "train-transformer",
    {
        "make_datasets": FunctionCheck(
            ("digits", "order", "n_train"),
            datasets_cases,
            reference_datasets,
            tol=0.0,
            own=OWN,
            compare_with=compare_datasets,
        ),
        "loss_at_start": HandNumber(
            "94c563c598cf6da69d2b2493",
            slips={
                "b366d6b54261da4fa4e5cdc6": "the separator is a token too: count every token the model can give a probability to",
                "e41bf8c20b181b49d4c11872": "that is in bits, the logarithm to base 2; the loss uses nats",
                "525df21916b027b6af34eacd": "that is the logarithm to base 10; the loss uses the natural one",
                "63f7f78d3c7748df0d7c08d1": "that is the probability; the loss is minus its logarithm",
                "4a7dca7a5b4964c7b2feff18": "the loss is minus the logarithm: a positive number",
            },
        ),
        "loss_floor": HandNumber(
            "0b16c8ec631a526b49f197a8",
            slips={
                "27fa07357e1d58e91af84ef8": "a perfect model still cannot predict a digit drawn at random",
                "b35f63cd2d0eb84d4a5d186d": "token 0 is no target: count what is predicted",
                "04c9639fa549375a0fa270bf": "a model that has learned can rule out the separator where a digit comes",
                "12b101b64636b37fc3655c09": "a sequence of nine tokens gives eight predictions",
                "06bcdb3ffaa678381140c0ef": "that is the cost of one random digit, not the loss",
                "b2c0e3aec1d51ce908870518": "that is in bits; the loss uses nats",
            },
        ),
        "inputs_and_targets": FunctionCheck(
            ("seqs",), shift_cases, reference_shift, tol=0.0, parts=("inputs", "targets"), own=OWN
        ),
        "answer_accuracy": FunctionCheck(
            ("params", "seqs"),
            accuracy_cases,
            reference_accuracy,
            tol=1e-9,
            own=OWN,
            allowed=("transformer_math.model.forward",),
            compare_with=compare_accuracy,
        ),
        "prediction": Choice(("reverses", "fails"), keys=("one head", "no positions")),
        "copy_any_digit": FunctionCheck(("seqs",), copy_cases, reference_copy, tol=1e-9, own=OWN),
    },
)
