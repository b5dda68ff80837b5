r"""Reverse-mode automatic differentiation of scalar expressions, from scratch.

A ``Value`` holds a number and remembers how it was computed: which values it came from and the
local derivative of the operation that made it. Calling ``Value.backward`` on a final result
walks that record backwards and applies the chain rule at every step,

$$\frac{\partial L}{\partial a} \mathrel{+}= \frac{\partial L}{\partial c} \cdot \frac{\partial c}{\partial a}$$

for every operation $c = \mathrm{op}(a, \ldots)$,

so each input ends up with its ``grad``, the derivative of the result with respect to it. This is
backpropagation, one number at a time; the design follows Andrej Karpathy's *micrograd*.

Example
-------
>>> from transformer_math.autograd import Value
>>> x = Value(3.0)
>>> y = x * x + 1
>>> y.backward()
>>> x.grad
6.0
"""

from __future__ import annotations

import math
import numbers

from transformer_math.checks import check_number

__all__ = ["Value"]


# --8<-- [start:power]
def _power(a: float, n: float) -> float:
    """``a ** n``, or an infinity of the right sign where Python raises OverflowError instead of returning it."""
    try:
        return a**n
    except OverflowError:
        odd = n.is_integer() and int(n) % 2 == 1
        return -math.inf if a < 0 and odd else math.inf


def _exp(a: float) -> float:
    """``e ** a``, or inf where it exceeds the largest float (past ln(1.8e308) = 709.78...)."""
    try:
        return math.exp(a)
    except OverflowError:
        return math.inf


# --8<-- [end:power]


def _exponent(a: float, exponent) -> float:
    """``exponent`` as a float, checked: a plain real number for which ``a ** exponent`` is a real number."""
    if isinstance(exponent, bool) or not isinstance(exponent, numbers.Real):
        raise TypeError(f"only powers by a plain number are supported, got {type(exponent).__name__}")
    n = float(exponent)
    if a == 0 and n < 0:
        raise ValueError(f"0 ** {n:g} is undefined (a division by zero)")
    if a < 0 and not n.is_integer():
        raise ValueError(f"{a:g} ** {n:g} is not a real number (a negative base needs a whole exponent)")
    return n


def _power_slope(a: float, n: float) -> float:
    """The derivative ``n * a ** (n - 1)`` of ``a ** n``, with PyTorch's values where that formula fails."""
    if n == 0:
        return 0.0  # a^0 = 1 is constant, also at a = 0 (as in PyTorch)
    if a == 0 and n < 1:
        return math.inf  # a vertical tangent, as sqrt(a) has at 0
    return n * _power(a, n - 1)


# --8<-- [start:Value]
class Value:
    r"""A number that records the operations applied to it, so that its derivatives can be computed.

    Parameters
    ----------
    data : float
        The number.
    parents : tuple of Value, optional
        The values this one was computed from (set by the operations, not by hand).
    op : str, optional
        The name of the operation that produced it, for display.

    Attributes
    ----------
    grad : float
        $\partial L / \partial \text{self}$ once ``L.backward()`` has run; 0 before.

    Examples
    --------
    >>> from transformer_math.autograd import Value
    >>> a, b = Value(2.0), Value(-3.0)
    >>> c = a * b + a.exp()
    >>> c.backward()
    >>> round(a.grad, 6), b.grad        # dc/da = b + e^a, dc/db = a
    (4.389056, 2.0)
    """

    def __init__(self, data, parents=(), op=""):
        where = f"data (from {op!r})" if op else "data"
        self.data = check_number(data, where, finite=False)  # a real number; inf is allowed, NaN is not
        self.grad = 0.0
        self.parents = parents
        self.op = op
        self._backward = lambda: None  # passes self.grad on to the parents; set by each operation

    def __repr__(self):
        return f"Value(data={self.data:.6g}, grad={self.grad:.6g})"

    # --8<-- [end:Value]

    # --8<-- [start:operations]
    # methods of the class Value, continued
    def __add__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data + other.data, (self, other), "+")

        def _backward():  # d(a + b)/da = 1, d(a + b)/db = 1
            self.grad += out.grad
            other.grad += out.grad

        out._backward = _backward
        return out

    def __mul__(self, other):
        other = other if isinstance(other, Value) else Value(other)
        out = Value(self.data * other.data, (self, other), "*")

        def _backward():  # d(a b)/da = b, d(a b)/db = a
            self.grad += other.data * out.grad
            other.grad += self.data * out.grad

        out._backward = _backward
        return out

    def __pow__(self, exponent):
        a, n = self.data, _exponent(self.data, exponent)  # a plain number, and a ** n a real number
        out = Value(_power(a, n), (self,), f"**{n:g}")  # a ** n, inf on overflow
        slope = _power_slope(a, n)  # d(a^n)/da = n a^(n-1)

        def _backward():
            self.grad += slope * out.grad

        out._backward = _backward
        return out

    # --8<-- [end:operations]

    # --8<-- [start:functions]
    def exp(self):
        out = Value(_exp(self.data), (self,), "exp")  # e^a, inf on overflow

        def _backward():  # d(e^a)/da = e^a, which is out.data
            self.grad += out.data * out.grad

        out._backward = _backward
        return out

    def log(self):
        if self.data <= 0:
            raise ValueError(f"log needs a positive number, got {self.data:g}")
        out = Value(math.log(self.data), (self,), "log")

        def _backward():  # d(ln a)/da = 1/a
            self.grad += out.grad / self.data

        out._backward = _backward
        return out

    def tanh(self):
        out = Value(math.tanh(self.data), (self,), "tanh")

        def _backward():  # d(tanh a)/da = 1 - tanh(a)^2
            self.grad += (1 - out.data**2) * out.grad

        out._backward = _backward
        return out

    def relu(self):
        out = Value(max(self.data, 0.0), (self,), "relu")

        def _backward():  # 1 where a > 0, else 0 (the convention at a = 0)
            self.grad += (self.data > 0) * out.grad

        out._backward = _backward
        return out

    # --8<-- [end:functions]

    # --8<-- [start:derived]
    # built from the operations above: no backward rules of their own
    def __neg__(self):  # -a
        return self * -1

    def __sub__(self, other):  # a - b
        return self + (-other)

    def __truediv__(self, other):  # a / b = a * b^(-1)
        other = other if isinstance(other, Value) else Value(other)
        if other.data == 0:
            raise ValueError(f"division by zero: {self!r} / {other!r}")
        return self * other**-1

    def __radd__(self, other):  # 2 + a
        return self + other

    def __rsub__(self, other):  # 2 - a
        return (-self) + other

    def __rmul__(self, other):  # 2 * a
        return self * other

    def __rtruediv__(self, other):  # 2 / a
        return Value(other) / self

    # --8<-- [end:derived]

    # --8<-- [start:backward]
    def backward(self):
        r"""Set ``v.grad`` $= \partial\,\text{self} / \partial v$ for every value ``v`` this one depends on.

        It first sets every such ``grad`` to 0, so calling it twice gives the same gradients; micrograd and
        PyTorch instead add to the gradients already there, and their training loops zero them by hand.
        The graph is walked with an explicit stack rather than recursion, so a chain of any length
        works (Python stops recursion after about a thousand nested calls).

        Examples
        --------
        >>> from transformer_math.autograd import Value
        >>> x = Value(1.0)
        >>> y = sum(x * i for i in range(2000))  # a chain of 4000 operations
        >>> y.backward()
        >>> x.grad                                # 0 + 1 + ... + 1999
        1999000.0
        """
        # topological order: every value after the values it was computed from
        order, seen = [], set()
        stack = [(self, False)]
        while stack:
            v, parents_listed = stack.pop()
            if parents_listed:
                order.append(v)  # its parents are all listed
            elif id(v) not in seen:
                seen.add(id(v))
                stack.append((v, True))  # back to v once its parents are done
                stack.extend((parent, False) for parent in v.parents)

        for v in order:
            v.grad = 0.0  # so that a second call gives the same grads
        self.grad = 1.0  # d self / d self
        for v in reversed(order):  # each grad complete before it is passed on
            v._backward()

    # --8<-- [end:backward]
