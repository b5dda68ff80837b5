"""The work budget of a wide case (transformer_math.labs.timing): a call is timed against the reference, in the same
process, and refused when it takes far longer; the trace stops it between its lines once its time is up."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tests.pages import prose
from transformer_math.labs import backward_passes, timing
from transformer_math.labs.cases import Case, generator
from transformer_math.labs.runner import Checks, FunctionCheck, Verdict, call_guarded
from transformer_math.labs.timing import FLOOR, TimeLimit

ADVICE = "write it in O(d) work per row"


def wide_cases(rng: np.random.Generator) -> list[Case]:
    return [
        Case((rng.normal(size=3),)),
        Case((rng.normal(size=(2, 4)),)),
        Case((rng.normal(size=(4, 2048)),), about="wide", time_limit=TimeLimit(ADVICE)),
    ]


def double(x):
    return 2 * np.asarray(x)


def busy_lines(x):  # a thousand short lines for each entry: the trace stops it on the wide case
    total = 0
    for k in range(1000 * np.size(x)):
        total += k
    return 2 * np.asarray(x)


def busy_call(x):  # one long call on the last line, which the trace cannot enter: refused after it
    return 2 * np.asarray(x) + 0 * sum(range(300 * np.size(x)))


@pytest.fixture
def check():
    return Checks("demo", {"double": FunctionCheck(("x",), wide_cases, double)})


def test_a_closed_form_passes_the_wide_case(check, capsys):
    check("double", double)
    assert capsys.readouterr().out.strip() == "Correct: double - 4 hidden cases"


@pytest.mark.parametrize(("function", "took"), [(busy_lines, "was stopped after"), (busy_call, "took")])
def test_work_far_beyond_the_references_is_refused_on_the_wide_case_only(check, capsys, function, took):
    started = time.process_time()
    check("double", function)
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Wrong: double - case 3 of 4: x of shape (4, 2048)")
    assert lines[1].startswith(f"  on this 4×2048 case your function {took} ")
    assert lines[1].endswith(f" ms: {ADVICE}")
    if function is busy_lines:  # stopped soon after its time was up, not after its 8 million steps
        assert time.process_time() - started < 1.0
    assert sys.gettrace() is None and sys.getprofile() is None


def test_the_limit_is_the_floor_or_a_multiple_of_the_reference_whichever_is_larger():
    limit = TimeLimit(ADVICE)
    case = Case((np.zeros((4, 2048)),))
    assert limit.allowed(0.0) == FLOOR and limit.allowed(1.0) > 10
    assert limit.refusal(FLOOR / 2, 0.0, case) is None
    said = limit.refusal(0.6, 0.0004, case)
    assert said == f"on this 4×2048 case your function took 0.6 s of CPU where the closed form takes 0.4 ms: {ADVICE}"


def test_a_deadline_is_timed_over_the_guarded_call_only():
    case = Case((np.zeros((4, 2048)),))
    deadline = TimeLimit(ADVICE).deadline(double, case)
    assert 0 < deadline.reference_seconds < FLOOR
    result, _ = call_guarded(double, case.args, {}, deadline=deadline)
    sum(range(5_000_000))  # after the call: not counted
    assert deadline.late() is None and np.array_equal(result, 2 * case.args[0])
    with pytest.raises(Verdict) as verdict:
        call_guarded(busy_lines, case.args, {}, deadline=TimeLimit(ADVICE).deadline(double, case))
    assert "was stopped after" in verdict.value.lines[0]


def jacobian_ce_backward(Z, y):  # a V×V Jacobian of log-softmax per position: N·V² entries held at once
    e = np.exp(Z - Z.max(axis=-1, keepdims=True))
    J = np.eye(Z.shape[-1]) - (e / e.sum(axis=-1, keepdims=True))[..., None, :]
    return -np.take_along_axis(J, y[..., None, None], axis=-2)[..., 0, :] / y.size


def test_a_call_that_holds_far_more_memory_than_the_reference_is_refused_however_fast():
    rng = np.random.default_rng(0)
    n, v = backward_passes.WIDE_CE
    case = Case((rng.normal(size=(n, v)), rng.integers(0, v, size=n)))
    deadline = TimeLimit(ADVICE).deadline(backward_passes.reference_ce, case)
    deadline.reference_seconds = 1.0  # no time limit here: the memory alone refuses it
    result, _ = call_guarded(jacobian_ce_backward, case.args, {}, deadline=deadline)
    assert np.allclose(result, backward_passes.reference_ce(*case.args), atol=1e-12)
    said = deadline.late()
    assert said and said.startswith(f"on this {n}×{v} case your function held ") and said.endswith(ADVICE)
    assert deadline.peak.bytes > 10 * deadline.reference_bytes > 0
    right, _ = call_guarded(backward_passes.reference_ce, case.args, {}, deadline=deadline)
    assert deadline.late() is None


def test_the_case_drawn_anew_is_never_the_wide_one():
    checked = FunctionCheck(("x",), wide_cases, double)
    fixed = wide_cases(generator("double"))
    for _ in range(5):
        *_, drawn = checked.this_run("double", fixed)
        assert drawn.time_limit is None and np.shape(drawn.args[0]) != (4, 2048)


def test_the_practice_page_states_the_wide_cases_and_the_budget_the_checks_use():
    page = " ".join((Path(__file__).resolve().parents[2] / "docs" / "labs" / "index.md").read_text().split())
    (n, v), (tokens, d) = backward_passes.WIDE_CE, backward_passes.WIDE_LN
    numbers = prose.NUMBER_WORDS
    assert f"({numbers[n]} positions of {v} logits; {numbers[tokens]} tokens of {d})" in page
    assert f"refused past {timing.FLOOR * 1e3:g} ms of CPU or {timing.TIMES} times the closed form's" in page
    memory = (
        f"more than {timing.MEMORY_TIMES} times the closed form's memory at once ({timing.MEMORY_FLOOR // 2**20} MB"
    )
    assert memory in page
