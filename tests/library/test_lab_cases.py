"""The hidden cases of the labs' checks: the same for a name at every run, different between names, and one more
drawn anew from the system's randomness at each run, so that no table of answers made before the run holds it."""

from __future__ import annotations

import contextlib
import io

import numpy as np

from transformer_math.labs import cases
from transformer_math.labs.cases import Case, changed, fresh_generator, generator
from transformer_math.labs.runner import Checks, FunctionCheck


def double_cases(rng):
    return [Case((rng.normal(size=n),)) for n in (2, 5)]


def check_of_doubles():
    return Checks("demo", {"double": FunctionCheck(("x",), double_cases, lambda x: 2 * x, tol=1e-9)})


def verdict_of(check, name, value) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        check(name, value)
    return out.getvalue()


def test_the_last_case_is_drawn_anew_at_every_run_so_a_table_of_answers_fails(monkeypatch):
    monkeypatch.setattr(cases, "PINNED", None)  # as in a notebook: the operating system's randomness
    check = check_of_doubles()
    first = verdict_of(check, "double", lambda x: 2 * x)
    assert first == "Correct: double - 3 hidden cases\n"
    seen, table = [], {}

    def from_the_table(x):  # answers the cases it met before; notes the others
        key = np.asarray(x).tobytes()
        if key not in table:
            seen.append(np.array(x))
        return table.get(key, np.zeros_like(x))

    for _ in range(4):
        said = verdict_of(check, "double", from_the_table)
        table.update({x.tobytes(): 2 * x for x in seen})
    assert said.startswith("Wrong: double - case 3 of 3") and "drawn anew at this run" in said
    again = check_of_doubles()  # a new session draws the same cases as the first
    assert verdict_of(again, "double", lambda x: 2 * x) == first


def test_no_seed_a_notebook_can_know_gives_the_case_drawn_anew(monkeypatch):
    """A table of the answers to every case the checks' generator draws from a seed that can be written down (the
    check's name, its name and a run's number) misses the case drawn anew: its seed is the system's randomness."""
    monkeypatch.setattr(cases, "PINNED", None)
    check = check_of_doubles()
    double = check.checks["double"]
    seeds = ["double", *(f"double, run {r}" for r in range(1, 50)), *(f"double, run {r}, pinned to" for r in (1, 2))]
    table = {c.args[0].tobytes(): double.reference(*c.args) for seed in seeds for c in double.cases(generator(seed))}
    said = [verdict_of(check, "double", lambda x: table.get(np.asarray(x).tobytes(), x)) for _ in range(3)]
    assert all(s.startswith("Wrong: double - case 3 of 3") for s in said), said
    drawn = [fresh_generator("double", 1).normal() for _ in range(2)]
    assert drawn[0] != drawn[1]


def test_a_pinned_seed_repeats_the_case_drawn_anew_for_the_tests(monkeypatch):
    monkeypatch.setattr(cases, "PINNED", "a test")
    assert fresh_generator("double", 1).normal() == fresh_generator("double", 1).normal()
    assert fresh_generator("double", 1).normal() != fresh_generator("double", 2).normal()


def test_cases_repeat_for_a_name_and_differ_between_names():
    assert generator("softmax").normal() == generator("softmax").normal() != generator("attention").normal()


def test_changed_sees_a_change_of_value_dtype_or_kind():
    a = np.array([1.0, 2.0])
    assert not changed(a.copy(), a) and changed(a.copy(), a * 2) and changed(a.copy(), a.astype(np.float32))
    assert changed([1, 2], (1, 2)) and not changed({"w": a.copy()}, {"w": a}) and changed({"w": a.copy()}, {"w": -a})
    assert not changed(np.array([np.nan]), np.array([np.nan]))


def test_adams_epsilon_hat_form_is_refused_and_named():
    from transformer_math.labs.adam import check as adam_check

    def eps_hat(theta, g, m, v, t, lr=0.1, beta1=0.9, beta2=0.999, eps=1e-8):
        theta, g, m, v = (np.asarray(a, dtype=float) for a in (theta, g, m, v))
        m, v = beta1 * m + (1 - beta1) * g, beta2 * v + (1 - beta2) * g * g
        return theta - lr * np.sqrt(1 - beta2**t) / (1 - beta1**t) * m / (np.sqrt(v) + eps), m, v

    said = verdict_of(adam_check, "adam_step", eps_hat)
    assert said.startswith("Wrong: adam_step") and "Kingma & Ba's Algorithm 1" in said, said
