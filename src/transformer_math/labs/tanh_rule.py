r"""What the autodiff lab's check of ``tanh`` asks of a backward rule beyond its gradients: that it is written in
t = tanh(x), the number the forward pass kept, and not measured from the input.

Each tanh rule of a graph is run again alone with its t set to another number (``rule_at_another_t``): a rule written
in t gives ``1 - t**2`` of that t, a slope measured at the input gives the same as before. What the forward pass
kept in t for the rule (1 - t^2, t^2, 1 - t, 1 + t, in the rule's closure or on the values) moves with it, so a
derivative worked out there and kept is the rule's as much as one written inside it. A rule runs within a budget
of Python steps (``RULE_STEPS``), which tanh rebuilt from ``+``, ``*`` and ``/``, inverted at t and differenced
exceeds a hundred times over.

Example
-------
>>> from transformer_math.labs.tanh_rule import FORMS_OF_T
>>> [round(form(0.5), 2) for form in FORMS_OF_T]
[0.5, 0.25, 0.75, 0.5, 1.5]
"""

from __future__ import annotations

import math

import numpy as np

from transformer_math.labs.diagnose import compare

__all__: list[str] = []


def tanh_values(output) -> list:
    """The values of the graph made by tanh: one parent, and ``data`` its tanh."""
    found, seen, stack = [], set(), [output]
    while stack:
        v = stack.pop()
        if id(v) in seen:
            continue
        seen.add(id(v))
        parents = list({id(p): p for p in v.parents}.values())
        if len(parents) == 1 and abs(v.data - math.tanh(parents[0].data)) <= 1e-12:
            found.append(v)
        stack.extend(v.parents)
    return found


# What a rule may keep from the forward pass, written in t: t itself, or a part of 1 - t^2 worked out there.
FORMS_OF_T = (lambda t: t, lambda t: t * t, lambda t: 1 - t * t, lambda t: 1 - t, lambda t: 1 + t)


def rule_at_another_t(v, upstream: float = 1.5) -> tuple[float, float, float]:
    """``v``'s rule run alone with its t set to another number: that t, the upstream gradient, and what the parent's
    gradient gained. Numbers the rule closes over, or the two values hold, that are t or a part of 1 - t^2 worked
    out in the forward pass (``FORMS_OF_T``) take that other t's. Everything it changed is put back."""
    (parent,) = {id(p): p for p in v.parents}.values()
    t, other = v.data, (0.0 if abs(v.data) > 0.5 else 0.9)  # 1 - t^2 differs by 0.25 at least
    kept = [
        *((cell, "cell_contents") for cell in getattr(v._backward, "__closure__", None) or ()),
        *((owner, name) for owner in (v, parent) for name in _numbers(owner) if name not in ("data", "grad")),
    ]
    changes = [(owner, name, value, _form_at(value, t, other)) for owner, name, value in _held(kept)]
    changes = [change for change in changes if change[3] is not None]
    saved = v.grad, parent.grad
    try:
        v.data, v.grad, parent.grad = other, upstream, 0.0
        for owner, name, _, new in changes:
            setattr(owner, name, new)
        v._backward()
        gained = float(parent.grad)
    finally:
        v.data, (v.grad, parent.grad) = t, saved
        for owner, name, value, _ in changes:
            setattr(owner, name, value)
    return other, upstream, gained


def _numbers(owner) -> list[str]:
    return [name for name, value in vars(owner).items() if isinstance(value, (float, np.floating))]


def _held(kept):
    for owner, name in kept:
        try:
            value = getattr(owner, name)
        except ValueError:  # an empty cell
            continue
        if isinstance(value, (float, np.floating)):
            yield owner, name, value


def _form_at(value: float, t: float, other: float) -> float | None:
    """``value`` as a form of t (within two roundings of 1), that form at ``other``; else None."""
    for form in FORMS_OF_T:
        if abs(value - form(t)) <= 4.5e-16 * max(1.0, abs(value)):
            return form(other)
    return None


# The Python steps of one tanh case: the folded solution's Value takes 130 to 460 (its forward pass, the rules,
# each rule again at another t); tanh rebuilt from + * / and inverted at t takes a hundred thousand.
RULE_STEPS = 4000
RULE_ADVICE = (
    "a backward rule is one line in t and out.grad, a few steps; a rule that computes tanh's slope by series, "
    "inversion or differences takes thousands. Derive the derivative and write it with t"
)

FOLLOW_T = (
    "run again with t (out.data, and the t your rule reads) set to another number, your rule gave the same "
    "gradient: it measures the slope at the input instead of writing it in t. Derive it, and write it with t"
)


def compare_tanh(got, expected, tol: float) -> list[str] | None:
    """The gradients, then each tanh rule at another t: a rule in t follows it."""
    lines = compare(np.array(got["gradients"], dtype=float), np.array(expected, dtype=float), tol=tol, rtol=tol)
    if lines:
        return lines
    for other, upstream, gained in got["rules"]:
        if abs(gained - (1 - other**2) * upstream) > 1e-12:
            return [FOLLOW_T]
    return None
