"""The numbers the labs check against, and the numbers their prose states, recomputed.

The expected values live in ``transformer_math.labs``, out of the learner's sight: most are the library's own
functions, run after the learner's code; a number worked out by hand is a hash. Nothing would notice if a hash
went stale, if a reference that is not the library's were wrong, or if a lab's prose said a number its cells
do not compute. This recomputes each: the hand-worked numbers from their definitions (and the folded
solutions' values must pass their checks), the attention backward pass of the backward-passes lab against
finite differences, the matrices a notebook shows against the ones its checks use, and the numbers in prose.
"""

from __future__ import annotations

import contextlib
import io
import math
from pathlib import Path

import jupytext
import numpy as np
import pytest

from tools.labs import exercises, solution
from transformer_math.data import load_run
from transformer_math.labs import adam, attention, backward_passes, cross_entropy, matrix_operations, train_transformer
from transformer_math.labs.runner import Checks
from transformer_math.softmax import softmax

LABS = Path(__file__).resolve().parents[2] / "docs" / "labs"


def given(lab: str) -> dict:
    """The names the lab's cells above its first exercise define (no kernel needed)."""
    notebook = jupytext.read(LABS / f"{lab}.py")
    namespace: dict = {"__name__": "__lab__"}
    with contextlib.redirect_stdout(io.StringIO()):
        for cell in notebook.cells[: exercises(notebook)[0]]:
            if cell.cell_type == "code":
                exec(compile(cell.source, str(LABS / f"{lab}.py"), "exec"), namespace)
    return namespace


def solved_value(lab: str, name: str):
    """The value the folded solution of the exercise that defines ``name`` gives it."""
    notebook = jupytext.read(LABS / f"{lab}.py")
    namespace = given(lab)
    for index in exercises(notebook):
        code = solution(notebook, index)
        if any(line.startswith(f"{name} =") for line in code.splitlines()):
            exec(code, namespace)
            return namespace[name]
    raise LookupError(f"{lab}: no exercise defines {name}")


def verdict(check: Checks, name: str, value) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        check(name, value)
    return out.getvalue().split(":")[0]


X = given("attention")
HAND = [
    ("matrix-operations", matrix_operations.check, "entry_0_1", (matrix_operations.A @ matrix_operations.B)[0, 1]),
    ("cross-entropy", cross_entropy.check, "loss_at_one_half", -math.log(0.5)),
    ("attention", attention.check, "score_1_0", (X["X"] @ X["W_Q"])[1] @ (X["X"] @ X["W_K"])[0]),
    ("backward-passes", backward_passes.check, "grad_by_hand", softmax([0.0, math.log(3), 0.0]) - np.eye(3)[0]),
    ("adam", adam.check, "uncorrected_first_step", 0.1 * (1 - 0.9) * 2 / math.sqrt((1 - 0.999) * 2**2)),
    ("train-transformer", train_transformer.check, "loss_at_start", math.log(6)),
    ("train-transformer", train_transformer.check, "loss_floor", 3 / 8 * math.log(5)),
]


@pytest.mark.parametrize("lab, check, name, value", HAND, ids=[f"{lab}-{name}" for lab, _, name, _ in HAND])
def test_a_hashed_number_is_the_one_its_definition_gives_and_its_solution_writes(lab, check, name, value):
    assert verdict(check, name, value) == "Correct", f"{lab}: the hash of {name} is stale"
    assert verdict(check, name, solved_value(lab, name)) == "Correct", f"{lab}: the solution of {name} fails"
    assert verdict(check, name, np.asarray(value) + 0.01) == "Wrong"


def test_the_matrices_a_notebook_shows_are_the_ones_its_checks_use():
    shown = given("matrix-operations")
    np.testing.assert_array_equal(shown["A"], matrix_operations.A)
    np.testing.assert_array_equal(shown["B"], matrix_operations.B)


def numerical_gradient(f, x, h=1e-6):
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = h
        grad[index] = (f(x + step) - f(x - step)) / (2 * h)
    return grad


@pytest.mark.parametrize("mask", ["causal", "none", "scattered"])
@pytest.mark.parametrize("lead", [(), (2,)])
def test_the_attention_backward_reference_is_the_slope_of_attention(mask, lead):
    """The one reference the library has no function for: checked against finite differences, with heads too."""
    rng = np.random.default_rng(0)
    Q, K = rng.normal(size=(*lead, 3, 4)), rng.normal(size=(*lead, 5, 4))
    V, dO = rng.normal(size=(*lead, 5, 2)), rng.normal(size=(*lead, 3, 2))
    masks = {
        "causal": np.tril(np.ones((3, 5), dtype=bool)),
        "none": None,
        "scattered": attention.scattered_mask(rng, 3, 5),
    }
    m = masks[mask]

    def loss(Q, K, V):
        scores = Q @ np.swapaxes(K, -1, -2) / 2.0
        return float(np.sum(dO * (softmax(np.where(m, scores, -np.inf) if m is not None else scores) @ V)))

    dQ, dK, dV = backward_passes._attention_backward(dO, Q, K, V, m)
    np.testing.assert_allclose(dQ, numerical_gradient(lambda q: loss(q, K, V), Q), atol=1e-7)
    np.testing.assert_allclose(dK, numerical_gradient(lambda k: loss(Q, k, V), K), atol=1e-7)
    np.testing.assert_allclose(dV, numerical_gradient(lambda v: loss(Q, K, v), V), atol=1e-7)


def stored_writer_run(size: str, budget: int) -> str:
    """How the capstone quotes a run of the page "A model that writes": its loss, steps and CPU minutes."""
    run = next(r for r in load_run("shakespeare-gpt")["runs"] if (r["size"], r["budget"]) == (size, budget))
    return f"{run['val_loss']:.3f}", f"{run['steps']:,} steps", f"{run['cpu_seconds'] / 60:.1f} minutes"


def test_the_numbers_the_labs_prose_states():
    """Each number a lab's prose or solution states, recomputed, as it is written there."""
    text = {lab.stem: lab.read_text(encoding="utf-8") for lab in LABS.glob("*.py")}
    probabilities = softmax([1000.0, 1001.0, 1002.0])
    stated = [
        ("softmax", f"about {probabilities[0]:.2f}, {probabilities[1]:.2f} and {probabilities[2]:.2f}"),
        ("cross-entropy", f"$-\\ln 0.9 \\approx {-math.log(0.9):.3f}$"),
        ("cross-entropy", f"$-\\ln 0.001 \\approx {-math.log(0.001):.1f}$"),
        ("cross-entropy", f"\\approx {(9 * -math.log(0.9) - math.log(0.001)) / 10:.2f}$"),
        ("cross-entropy", f"as much as {({66: 'sixty-six'})[round(math.log(0.001) / math.log(0.9))]} right answers"),
        ("adam", f"$0.1g$ after one step and still only ${1 - 0.9**10:.2f}g$ after ten"),
        (
            "adam",
            f"$m / \\sqrt v = {0.2 / math.sqrt(0.004):.3f}$, and the step is ${0.1 * 0.2 / math.sqrt(0.004):.4f}$",
        ),
        (
            "adam",
            f"$1 - 0.9^t$ is within 1 % of 1 after {math.ceil(math.log(0.01) / math.log(0.9))} steps, $1 - 0.999^t$"
            f" only after {math.ceil(math.log(0.01) / math.log(0.999)):,}",
        ),
        ("train-transformer", f"$\\frac{{3}}{{8}} \\ln 5 \\approx {3 / 8 * math.log(5):.4f}$"),
        ("train-transformer", f"$\\frac14 + \\frac34 \\cdot \\frac15 = {1 / 4 + 3 / 4 / 5:.1f}$"),
        ("backward-passes", "$\\operatorname{softmax}(z) = (0.2, 0.6, 0.2)$"),
        ("your-own-gpt", "{} nats per character after {} and {}".format(*stored_writer_run("2 x 64", 4))),
        ("your-own-gpt", "width 128 reach {} after {} and {}".format(*stored_writer_run("4 x 128", 15))),
    ]
    for lab, phrase in stated:
        assert phrase.replace("\n", " ") in " ".join(line.lstrip("# ") for line in text[lab].splitlines()), (
            lab,
            phrase,
        )
