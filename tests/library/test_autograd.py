"""Value's backward pass against hand derivatives and against central differences on random expressions."""

from __future__ import annotations

import math

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from transformer_math.autograd import Value
from transformer_math.calculus import derivative


def test_chain_rule_example_of_the_seed():
    x = Value(2.0)
    y = (x**2 + 1) ** 3
    y.backward()
    assert y.data == 125.0
    assert x.grad == pytest.approx(6 * 2 * (2**2 + 1) ** 2)  # 300


def test_a_value_used_twice_collects_both_contributions():
    x = Value(3.0)
    y = x * x  # dy/dx = 2x, from two uses of x
    y.backward()
    assert x.grad == 6.0


def test_each_operation_by_hand():
    a, b = Value(2.0), Value(-3.0)
    cases = [
        (lambda: a + b, 1.0, 1.0),
        (lambda: a - b, 1.0, -1.0),
        (lambda: a * b, -3.0, 2.0),
        (lambda: a / b, 1 / -3.0, -2.0 / 9.0),
        (lambda: -a + 0 * b, -1.0, 0.0),
        (lambda: 1 - a * b, 3.0, -2.0),
        (lambda: 3 / a + b, -3 / 4, 1.0),
        (lambda: 2 * a + b * 5, 2.0, 5.0),
        (lambda: a + 4 + b, 1.0, 1.0),
    ]
    for build, da, db in cases:
        out = build()
        out.backward()
        assert (a.grad, b.grad) == pytest.approx((da, db))


@pytest.mark.parametrize(
    "method, x, expected",
    [
        ("exp", 0.5, math.exp(0.5)),
        ("log", 2.0, 0.5),
        ("tanh", 0.3, 1 - math.tanh(0.3) ** 2),
        ("relu", 1.5, 1.0),
        ("relu", -1.5, 0.0),
        ("relu", 0.0, 0.0),
    ],
)
def test_functions_by_hand(method, x, expected):
    v = Value(x)
    getattr(v, method)().backward()
    assert v.grad == pytest.approx(expected)


def test_backward_twice_gives_the_same_grads():
    x = Value(1.5)
    y = (x * x).tanh() + x.exp()
    y.backward()
    first = x.grad
    y.backward()
    assert x.grad == first


def test_errors_and_repr():
    with pytest.raises(TypeError, match="only powers by a plain number are supported, got Value"):
        Value(2.0) ** Value(3.0)
    with pytest.raises(ValueError, match="log needs a positive number, got -1"):
        Value(-1.0).log()
    assert repr(Value(2.5)) == "Value(data=2.5, grad=0)"


# --- random expressions against central differences -----------------------------------------------

UNARY = ["neg", "exp", "log", "tanh", "relu", "pow2", "pow3", "inv", "sqrt"]
BINARY = ["add", "sub", "mul", "div"]


class Invalid(Exception):
    """The expression leaves the region where it is smooth and well conditioned at this point."""


def need(condition):
    if not condition:
        raise Invalid


def evaluate(tree, xs):
    """Build the expression `tree` from Values `xs`, refusing points near a kink, pole or overflow."""
    kind = tree[0]
    if kind == "var":
        return xs[tree[1]]
    if kind == "const":
        return tree[1]
    if kind in UNARY:
        a = evaluate(tree[1], xs)
        a_data = a.data if isinstance(a, Value) else a
        a = a if isinstance(a, Value) else Value(a)
        if kind == "neg":
            out = -a
        elif kind == "exp":
            need(a_data < 5)
            out = a.exp()
        elif kind == "log":
            need(a_data > 0.1)
            out = a.log()
        elif kind == "tanh":
            out = a.tanh()
        elif kind == "relu":
            need(abs(a_data) > 1e-2)
            out = a.relu()
        elif kind == "pow2":
            out = a**2
        elif kind == "pow3":
            out = a**3
        elif kind == "inv":
            need(abs(a_data) > 0.1)
            out = a**-1
        else:  # sqrt
            need(a_data > 0.1)
            out = a**0.5
    else:
        a, b = evaluate(tree[1], xs), evaluate(tree[2], xs)
        b_data = b.data if isinstance(b, Value) else b
        if not isinstance(a, Value) and not isinstance(b, Value):
            a = Value(a)
        if kind == "add":
            out = a + b
        elif kind == "sub":
            out = a - b
        elif kind == "mul":
            out = a * b
        else:
            need(abs(b_data) > 0.1)
            out = a / b
    need(abs(out.data) < 1e3)
    return out


leaves = st.one_of(
    st.tuples(st.just("var"), st.integers(0, 2)),
    st.tuples(st.just("const"), st.floats(-2, 2).map(lambda c: round(c, 2))),
)
trees = st.recursive(
    leaves,
    lambda children: st.one_of(
        st.tuples(st.sampled_from(UNARY), children),
        st.tuples(st.sampled_from(BINARY), children, children),
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(tree=trees, point=st.lists(st.floats(-2, 2), min_size=3, max_size=3))
def test_backward_matches_central_differences(tree, point):
    xs = [Value(x) for x in point]
    try:
        out = evaluate(tree, xs)
        if not isinstance(out, Value):
            out = Value(out)
        out.backward()
        for i in range(3):

            def f(t, i=i):
                moved = [Value(t) if j == i else Value(x) for j, x in enumerate(point)]
                result = evaluate(tree, moved)
                return result.data if isinstance(result, Value) else result

            # the smooth region must contain the whole difference stencil
            f(point[i] + 1e-3), f(point[i] - 1e-3)
            numeric = derivative(f, point[i])
            assert xs[i].grad == pytest.approx(numeric, rel=1e-5, abs=1e-5), (tree, point, i)
    except Invalid:
        assume(False)
