r"""The checks of the lab "Autodiff and a small network" (``docs/labs/autodiff-mlp.py``).

* ``topological_order`` -- every value a root depends on, each once, each after its parents, on graphs that
  reuse a leaf and an interior node, a chain of 300, a graph where reversed breadth-first order fails.
* ``mul`` and ``tanh`` -- the backward rules, on expressions built with the learner's ``Value`` and run
  backward by the check's own traversal (so that a wrong ``topological_order`` shows in its own check, not
  here), with upstream gradients other than 1 and values used twice. The rules run with ``tanh``, ``exp``,
  ``cosh``, ``log``, ``pow``, their inverses (``atanh``) and complex numbers refused to them (a rule needs only
  ``out.data`` and ``out.grad``: evaluating tanh again measures the derivative), nor raise to a power that is not a whole
  number (``2.718281828459045 ** (2 * z)`` rebuilds tanh without naming it). ``mul`` has a factor 0 (a rule that divides ``out.data``
  by a factor fails there) and a factor near 1e17,
  where a finite difference of a fixed small step measures 0; but a product is bilinear, so a difference whose
  step grows with the factor is exact in exact arithmetic and errs by about one rounding in float64: no
  tolerance tells it from the rule (``docs/labs/index.md`` says so). ``tanh``'s tolerance is 1e-14 (and 1e-14
  of the value): ``(1 - t**2) * out.grad`` errs by 4e-16 at most, a central difference by about 1e-11, and a
  difference refined by Richardson extrapolation comes within the tolerance (of tanh rebuilt from ``+``, ``*``
  and ``/``, or of ``math.tanh`` in the forward pass, the slope kept). So each tanh rule is also run alone with
  its t (``out.data``, and the number the rule closes over) set to another number: a rule written in t gives
  ``1 - t**2`` of that t, a slope measured from the input does not. Both run as a backward pass's check does
  (``guarded(derived=True)``), so no difference is taken in more digits, and within a budget of Python steps
  (``RULE_STEPS``, about ten times the solution's): tanh rebuilt from ``+``, ``*`` and ``/``, inverted at t and
  differenced takes a hundred thousand.
* ``sgd_step`` -- the parameters moved in place, on lists and tuples of values.
* ``prediction`` -- whether six tanh units can separate the four quarters of the toy problem.

The reference gradients come from the library's ``Value``.

Example
-------
>>> from transformer_math.labs.autodiff_mlp import check
>>> def topological_order(root):          # the root first: the reverse of what backward needs
...     order, seen = [], set()
...     def visit(v):
...         if id(v) not in seen:
...             seen.add(id(v))
...             order.append(v)
...             for parent in v.parents:
...                 visit(parent)
...     visit(root)
...     return order
>>> check("topological_order", topological_order)
Wrong: topological_order - case 2 of 8: root = Value(c) (c = a + b)
  it lists c before its parent a
"""

from __future__ import annotations

import numpy as np

from transformer_math.autograd import Value as ReferenceValue
from transformer_math.labs.answers import Choice
from transformer_math.labs.cases import Case
from transformer_math.labs.diagnose import compare
from transformer_math.labs.guard import names_refused
from transformer_math.labs.runner import Checks, FunctionCheck, Verdict
from transformer_math.labs.tanh_rule import RULE_ADVICE, RULE_STEPS, compare_tanh, rule_at_another_t, tanh_values

__all__ = ["check"]

OWN = ("transformer_math.autograd.",)


class Node:
    """A value of a graph for the checks: a label, its parents, ``data`` and ``grad``."""

    def __init__(self, label: str, parents=(), data: float = 0.0, grad: float = 0.0) -> None:
        self.label, self.parents, self.data, self.grad = label, tuple(parents), data, grad
        self._backward = lambda: None

    def __repr__(self) -> str:
        return f"Value({self.label})"

    def __deepcopy__(self, memo: dict) -> Node:
        """A copy of the whole graph below this value, made without recursion (a chain may be 300 long)."""
        order, stack = [], [self]
        while stack:
            v = stack.pop()
            if id(v) not in memo:
                memo[id(v)] = Node(v.label, (), v.data, v.grad)
                order.append(v)
                stack.extend(v.parents)
        for v in order:
            memo[id(v)].parents = tuple(memo[id(p)] for p in v.parents)
        return memo[id(self)]


def graphs(rng: np.random.Generator) -> list[Case]:
    a, b, x = Node("a"), Node("b"), Node("x")
    c = Node("c", (a, b))
    reused = Node("d", (Node("c", (a, b)), a))
    shared = Node("c", (a, b))
    twice = Node("e", (shared, shared))
    interior = Node("f", (shared, twice))
    c1 = Node("c", (x,))
    d1 = Node("d", (c1,))
    breadth = Node("e", (d1, x))
    chain = Node("v0")
    for k in range(1, 300):
        chain = Node(f"v{k}", (chain,) if k % 7 else (chain, Node(f"leaf{k}")))
    leaves = [Node(f"p{k}") for k in range(6)]
    mids = [Node(f"m{k}", tuple(leaves[j] for j in rng.choice(6, size=3, replace=False))) for k in range(5)]
    wide = Node("out", (*mids, mids[0], leaves[2]))
    w, xx, bias = Node("w"), Node("x"), Node("b")
    neuron = Node("t", (Node("s", (Node("wx", (w, xx)), bias)),))
    return [
        Case((a,), about="one value, no parents"),
        Case((c,), about="c = a + b"),
        Case((reused,), about="d = (a + b) + a: a used twice"),
        Case((interior,), about="f = c + (c + c): an interior value c used three times"),
        Case((breadth,), about="e = d(c(x)) + x: reversed breadth-first order puts c before x"),
        Case((chain,), about="a chain of 300 values"),
        Case((wide,), about="a value with 7 parents sharing 6 leaves"),
        Case((neuron,), about="tanh(w * x + b)"),
    ]


def reachable(root: Node) -> dict[str, tuple[str, ...]]:
    """Every value the root depends on: its label and its parents' labels."""
    found, stack = {}, [root]
    while stack:
        v = stack.pop()
        if v.label not in found:
            found[v.label] = tuple(p.label for p in v.parents)
            stack.extend(v.parents)
    return found


def compare_order(got, expected: dict[str, tuple[str, ...]], tol: float) -> list[str] | None:
    if not isinstance(got, (list, tuple)):
        return [f"it returned a {type(got).__name__}, not a list of values"]
    labels = [getattr(v, "label", None) for v in got]
    if None in labels:
        return ["it returned something that is not a value of the graph"]
    missing = [label for label in expected if label not in labels]
    if missing:
        return [f"it leaves out {len(missing)} of the {len(expected)} values, {missing[0]} first"]
    if len(labels) != len(set(labels)):
        twice = next(label for label in labels if labels.count(label) > 1)
        return [f"it lists {twice} {labels.count(twice)} times: each value once"]
    position = {label: k for k, label in enumerate(labels)}
    for label in labels:
        for parent in expected[label]:
            if position[parent] > position[label]:
                return [f"it lists {label} before its parent {parent}"]
    return None


def run_backward(output, seed: float) -> None:
    """The check's own backward traversal: every value's _backward, the output's first (an order of its own)."""
    order, seen, stack = [], set(), [(output, False)]
    while stack:
        v, done = stack.pop()
        if done:
            order.append(v)
        elif id(v) not in seen:
            seen.add(id(v))
            stack.append((v, True))
            stack.extend((p, False) for p in v.parents)
    for v in order:
        v.grad = 0.0
    output.grad = seed
    for v in reversed(order):
        v._backward()


EXPRESSIONS = {
    "a * b": lambda a, b, c: a * b,
    "x * x: one value, used twice": lambda a, b, c: a * a,
    "(a * b) * c": lambda a, b, c: (a * b) * c,
    "a * b + a * c: a reaches the output twice": lambda a, b, c: a * b + a * c,
    "3 * a * b * a": lambda a, b, c: 3 * a * b * a,
    "(a - b) * (a + c)": lambda a, b, c: (a - b) * (a + c),
}
TANH_EXPRESSIONS = {
    "tanh(a)": lambda a, b, c: a.tanh(),
    "tanh(a * b + c)": lambda a, b, c: (a * b + c).tanh(),
    "tanh(a) * tanh(a): one tanh used twice": lambda a, b, c: a.tanh() * a.tanh(),
    "tanh(tanh(a) + b)": lambda a, b, c: (a.tanh() + b).tanh(),
    "tanh(a) + 2 * tanh(b * c)": lambda a, b, c: a.tanh() + 2 * (b * c).tanh(),
}


def expression_cases(expressions: dict, large: bool = False):
    """One case per expression; with ``large``, two more where one factor is near 1e17: there ``a + h`` rounds
    to ``a`` for any fixed small step h, so a finite difference of the product measures 0; and one with a factor
    0 (these three drawn anew at every run)."""

    def cases(rng: np.random.Generator) -> list[Case]:
        found = []
        for about, expression in expressions.items():
            inputs = [round(float(v), 3) for v in rng.uniform(-1.5, 1.5, size=3)]
            seed = round(float(rng.choice([1.0, 2.5, -0.7, 0.3])), 2)
            found.append(Case((expression, inputs, seed), about=f"{about}, upstream gradient {seed}"))
        if large:
            for k in (0, 1):
                inputs = [round(float(v), 3) for v in rng.uniform(0.5, 1.5, size=3)]
                inputs[k] = round(float(rng.uniform(1, 9)), 3) * 1e17
                seed = round(float(rng.choice([1.0, 2.5, -0.7])), 2)
                name = "ab"[k]
                about = f"a * b with {name} near 1e17 ({name} + h rounds to {name}), upstream gradient {seed}"
                found.append(Case((EXPRESSIONS["a * b"], inputs, seed), about=about, fresh=True))
            inputs = [0.0, *(round(float(v), 3) for v in rng.uniform(0.5, 1.5, size=2))]
            about = "a * b with a = 0"
            found.append(Case((EXPRESSIONS["a * b"], inputs, 1.0), about=about, fresh=True))
        return found

    return cases


# What a backward rule may not use: it needs only what the forward pass kept (t = out.data, the parents' data)
# and out.grad. Calling tanh (or exp, cosh, a complex step) there measures the derivative instead of deriving it.
MEASURING = ("tanh", "cosh", "sinh", "exp", "expm1", "exp2", "e", "log", "log1p", "log2", "log10", "pow")
MEASURING += ("cmath", "complex")
# and their inverses: the slope of atanh at t, inverted, is the slope of tanh measured in t
MEASURING += ("atanh", "asinh", "acosh", "arctanh", "arcsinh", "arccosh")
DERIVE = (
    "a backward rule needs only what the forward pass kept (t = out.data, the parents' data) and out.grad. "
    "Derive the derivative and write it with those; evaluating tanh, cosh or exp again (or building them "
    "from log and powers, or measuring the slope of their inverses) measures it instead; write a whole power "
    "as t ** 2 (pow and np.power, the route to fractional ones, are refused in a rule)"
)


def _empty(): ...


def unwritten_rule(output) -> bool:
    """Whether a value made by an operation (it has parents) has a backward rule whose body is still the
    exercise's ``...``: it compiles as an empty function's does, and would leave every gradient 0."""
    seen, stack = set(), [output]
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        code = getattr(getattr(v, "_backward", None), "__code__", None)
        if v.parents and code is not None and code.co_code == _empty.__code__.co_code:
            return True
        stack.extend(v.parents)
    return False


def gradients(value_class, expression, inputs, seed):
    """The gradients of the expression's inputs, built with ``value_class`` and run backward from ``seed``;
    the backward rules run with tanh, exp and complex numbers refused to them."""
    values, output = built(value_class, expression, inputs)
    with names_refused(MEASURING, DERIVE):
        run_backward(output, seed)
    return [float(v.grad) for v in values]


def built(value_class, expression, inputs):
    """The inputs as ``value_class`` values and the expression's output made from them, every rule written."""
    values = [value_class(v) for v in inputs]
    output = expression(*values)
    if unwritten_rule(output):
        raise Verdict("Not yet", "a backward rule (_backward) still holds its ...: write its body")
    return values, output


def tanh_gradients(value_class, expression, inputs, seed):
    """``gradients``, and what each tanh rule of the graph gives when run again with its ``t`` (``out.data``, and
    the number the rule closes over) set to another number: a rule written in t follows it; a derivative measured
    from the input (tanh rebuilt from ``+``, ``*`` and ``/``, differences refined by Richardson, a table) does not."""
    values, output = built(value_class, expression, inputs)
    with names_refused(MEASURING, DERIVE):
        run_backward(output, seed)
        found = [float(v.grad) for v in values]
        rules = [rule_at_another_t(v) for v in tanh_values(output)]
    return {"gradients": found, "rules": rules}


def reference_gradients(expression, inputs, seed):
    values = [ReferenceValue(v) for v in inputs]
    output = expression(*values)
    output.backward()
    return [seed * v.grad for v in values]


def sgd_cases(rng: np.random.Generator) -> list[Case]:
    def params(n):
        return [
            Node(f"p{k}", data=round(float(d), 3), grad=round(float(g), 3))
            for k, (d, g) in enumerate(rng.normal(size=(n, 2)))
        ]

    return [
        Case(([Node("p", data=1.0, grad=0.5)], 0.1), about="one parameter"),
        Case((params(5), 0.05)),
        Case((tuple(params(3)), 1.0), about="a tuple"),
        Case(([Node("p", data=2.0, grad=-3.0), Node("q", data=-1.0, grad=0.0)], 0.5), about="a zero gradient"),
        Case(([], 0.1), about="no parameters"),
    ]


def data_after_step(sgd_step, params, lr):
    result = sgd_step(params, lr)
    if result is Ellipsis:
        return ...
    return [p.data for p in params]


def compare_data(got, expected, tol):
    if not expected:
        return None
    return compare(np.array(got, dtype=float), np.array(expected), tol=tol)


def reference_step(params, lr):
    return [p.data - lr * p.grad for p in params]


def value_class_call(value_class, expression, inputs, seed, run=gradients):
    if not isinstance(value_class, type):
        raise Verdict("Wrong", f"check the class Value, with your rule set on it; got a {type(value_class).__name__}")
    return run(value_class, expression, inputs, seed)


def tanh_call(value_class, expression, inputs, seed):
    return value_class_call(value_class, expression, inputs, seed, run=tanh_gradients)


check = Checks(
    "autodiff-mlp",
    {
        # graphlib.TopologicalSorter is the sort this exercise asks for, as the library's would be
        "topological_order": FunctionCheck(
            ("root",), graphs, reachable, own=(*OWN, "graphlib."), compare_with=compare_order
        ),
        "mul": FunctionCheck(
            ("expression", "inputs", "upstream"),
            expression_cases(EXPRESSIONS, large=True),
            reference_gradients,
            tol=1e-12,
            rtol=1e-12,  # the rule is exact to rounding (and so is a difference of a product: it cannot be refused)
            own=OWN,
            call=value_class_call,
            derived=True,
        ),
        "tanh": FunctionCheck(
            ("expression", "inputs", "upstream"),
            expression_cases(TANH_EXPRESSIONS),
            reference_gradients,
            tol=1e-14,
            rtol=1e-14,  # the rule errs by 4e-16 at most, a central difference by about 1e-11
            own=OWN,
            call=tanh_call,
            compare_with=compare_tanh,
            derived=True,  # and none in more digits: no Decimal, Fraction or complex step
            budget=RULE_STEPS,
            advice=RULE_ADVICE,
        ),
        "sgd_step": FunctionCheck(
            ("params", "lr"),
            sgd_cases,
            reference_step,
            tol=1e-12,
            own=OWN,
            call=data_after_step,
            mutates=("params",),
            compare_with=compare_data,
        ),
        "prediction": Choice(("yes", "no")),
    },
)
