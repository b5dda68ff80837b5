"""A backward check's guard (``guarded(derived=True)``) refuses numbers of more precision than float64 however the
learner's code holds them, and leaves float64 code, and the notebook's own decimal context, as they were."""

from __future__ import annotations

import collections
import decimal
import fractions
import types
from decimal import Decimal

import numpy as np
import pytest

from transformer_math.labs.runner import Verdict, call_guarded

STEP = "1e-25"
HELD: dict = {}  # a global of the learner's, which no local variable names


class Slotted:
    __slots__ = ("value",)


def in_a_namespace(x):
    box = types.SimpleNamespace(h=Decimal(STEP))
    box.up = box.h * 3
    return 0.0


def in_slots(x):
    box = Slotted()
    box.value = [Decimal(STEP)]
    return 0.0


def deep_in_containers(x):
    store = {"rows": [collections.deque([types.SimpleNamespace(v=(Decimal(STEP),))])]}
    return float(len(store))


def in_an_object_array(x):
    values = np.array([0.0, 1.0, Decimal(STEP)], dtype=object)
    return float(values[0])


def in_a_global(x):
    HELD["h"] = Decimal(STEP) + Decimal(x)
    return 0.0


def in_one_expression(x):
    return float(((Decimal(x) + Decimal(STEP)) ** 2 - Decimal(x) ** 2) / Decimal(STEP))


def exp_through_map(x):
    return float(next(map(Decimal.exp, [Decimal(x)])))


def a_context_of_its_own(x):
    list(map(decimal.setcontext, [decimal.Context(prec=60)]))
    return 0.0


def a_fraction(x):
    h = fractions.Fraction(1, 10**25)
    return float(((x + h) ** 2 - x**2) / h)


def a_caught_trap(x):
    try:
        return float(Decimal(x) + Decimal(STEP))
    except decimal.DecimalException:
        return 0.0


ROUTES = {
    "a namespace": in_a_namespace,
    "an object's slots": in_slots,
    "a deque in a namespace in a list in a dict": deep_in_containers,
    "an array of objects": in_an_object_array,
    "a global": in_a_global,
    "one expression, no name": in_one_expression,
    "Decimal.exp through map": exp_through_map,
    "a context put in place through map": a_context_of_its_own,
    "a Fraction": a_fraction,
    "a trap caught": a_caught_trap,
}


@pytest.mark.parametrize("route", ROUTES)
def test_extended_precision_is_refused_however_it_is_held(route):
    with pytest.raises(Verdict) as verdict:
        call_guarded(ROUTES[route], (0.5,), {}, derived=True)
    assert verdict.value.verdict == "Wrong"
    assert "it computes with a" in verdict.value.lines[0] and "derive it" in verdict.value.lines[0]


def test_float_code_runs_and_the_notebooks_decimal_context_is_kept():
    decimal.getcontext().prec = 60  # set by the notebook before the check: its own business
    try:
        value, _ = call_guarded(lambda x: float(np.tanh(x)), (0.5,), {}, derived=True)
        assert value == np.tanh(0.5)
        assert decimal.getcontext().prec == 60 and not any(decimal.getcontext().flags.values())
    finally:
        decimal.setcontext(decimal.Context())


def test_decimals_outside_a_backward_check_are_the_learners_business():
    value, _ = call_guarded(in_one_expression, (0.5,), {})
    assert abs(value - 1.0) < 1e-12
