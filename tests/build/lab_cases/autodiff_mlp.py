"""Autodiff and a small network: the typical mistakes and other right answers."""

from __future__ import annotations

from tests.build.lab_cases import mistake, right

MUL = "def mul(self, other):\n    other = other if isinstance(other, Value) else Value(other)\n    out = Value(self.data * other.data, (self, other))\n\n    def _backward():\n"
MUL_END = "\n    out._backward = _backward\n    return out\n\n\nValue.__mul__ = mul"
TANH = "def tanh(self):\n    t = math.tanh(self.data)\n    out = Value(t, (self,))\n\n    def _backward():\n"
TANH_END = "\n    out._backward = _backward\n    return out\n\n\nValue.tanh = tanh"

MISTAKES = [
    mistake(
        "topological_order",
        "the root first (pre-order)",
        "def topological_order(root):\n    order, seen = [], set()\n\n    def visit(v):\n        if id(v) not in seen:\n            seen.add(id(v))\n            order.append(v)\n            for parent in v.parents:\n                visit(parent)\n\n    visit(root)\n    return order",
    ),
    mistake(
        "topological_order",
        "no set of visited values",
        "def topological_order(root):\n    order = []\n\n    def visit(v):\n        for parent in v.parents:\n            visit(parent)\n        order.append(v)\n\n    visit(root)\n    return order",
    ),
    mistake(
        "topological_order",
        "reversed breadth-first order",
        "def topological_order(root):\n    order, seen, queue = [], {id(root)}, [root]\n    while queue:\n        v = queue.pop(0)\n        order.append(v)\n        for parent in v.parents:\n            if id(parent) not in seen:\n                seen.add(id(parent))\n                queue.append(parent)\n    return order[::-1]",
    ),
    mistake(
        "topological_order",
        "only the leaves and the root",
        "def topological_order(root):\n    leaves, stack, seen = [], [root], set()\n    while stack:\n        v = stack.pop()\n        if id(v) not in seen:\n            seen.add(id(v))\n            stack.extend(v.parents)\n            if not v.parents:\n                leaves.append(v)\n    return leaves + [root]",
    ),
    mistake(
        "topological_order",
        "the library's order",
        "from transformer_math.autograd import Value as LibraryValue\n\n\ndef topological_order(root):\n    probe = LibraryValue(0.0)\n    return [root] if probe is None else _order(root)\n\n\ndef _order(root):\n    order, seen = [], set()\n\n    def visit(v):\n        if id(v) not in seen:\n            seen.add(id(v))\n            for p in v.parents:\n                visit(p)\n            order.append(v)\n\n    visit(root)\n    return order",
    ),
    mistake(
        "mul",
        "each parent times its own value",
        MUL + "        self.grad += self.data * out.grad\n        other.grad += other.data * out.grad\n" + MUL_END,
    ),
    mistake(
        "mul",
        "= instead of += (x * x gets one term)",
        MUL + "        self.grad = other.data * out.grad\n        other.grad = self.data * out.grad\n" + MUL_END,
    ),
    mistake(
        "mul",
        "out.grad left out (right when it is 1)",
        MUL + "        self.grad += other.data\n        other.grad += self.data\n" + MUL_END,
    ),
    mistake(
        "mul",
        "a central difference whose step grows with the factor (exact for a product but for rounding)",
        MUL
        + "        h = 1e-7 * max(1, abs(self.data))\n"
        + "        self.grad += ((self.data + h) * other.data - (self.data - h) * other.data) / (2 * h) * out.grad\n"
        + "        h = 1e-7 * max(1, abs(other.data))\n"
        + "        other.grad += (self.data * (other.data + h) - self.data * (other.data - h)) / (2 * h) * out.grad\n"
        + MUL_END,
    ),
    mistake(
        "mul",
        "out.data for out.grad",
        MUL + "        self.grad += other.data * out.data\n        other.grad += self.data * out.data\n" + MUL_END,
    ),
    mistake(
        "tanh", "1 - z^2 with z the input", TANH + "        self.grad += (1 - self.data**2) * out.grad\n" + TANH_END
    ),
    mistake("tanh", "out.grad left out", TANH + "        self.grad += 1 - t**2\n" + TANH_END),
    mistake(
        "tanh",
        "the slope of math.atanh at t, by Richardson-refined central differences, inverted",
        "def _rich(f, t, h, levels):\n"
        "    R = [[(f(t + h / 2**i) - f(t - h / 2**i)) / (2 * h / 2**i)] for i in range(levels)]\n"
        "    for i in range(1, levels):\n"
        "        for j in range(1, i + 1):\n"
        "            R[i].append(R[i][j - 1] + (R[i][j - 1] - R[i - 1][j - 1]) / (4**j - 1))\n"
        "    return R[-1][-1]\n\n\n"
        + TANH
        + "        self.grad += out.grad / _rich(math.atanh, out.data, 0.45 * (1 - abs(out.data)), 6)\n"
        + TANH_END,
    ),
    mistake("tanh", "= instead of +=", TANH + "        self.grad = (1 - t**2) * out.grad\n" + TANH_END),
    mistake("tanh", "1 - t for 1 - t^2", TANH + "        self.grad += (1 - t) * out.grad\n" + TANH_END),
    mistake(
        "tanh",
        "tanh evaluated again with the ** operator",
        TANH
        + "        q = 2.718281828459045 ** (2 * self.data)\n"
        + "        again = (q - 1) / (q + 1)\n"
        + "        self.grad += (1 - again * again) * out.grad\n"
        + TANH_END,
    ),
    mistake(
        "sgd_step", "up the gradient", "def sgd_step(params, lr):\n    for p in params:\n        p.data += lr * p.grad"
    ),
    mistake(
        "sgd_step",
        "a new local name, nothing changes",
        "def sgd_step(params, lr):\n    for p in params:\n        p = p.data - lr * p.grad",
    ),
    mistake("sgd_step", "lr forgotten", "def sgd_step(params, lr):\n    for p in params:\n        p.data -= p.grad"),
    mistake(
        "sgd_step",
        "the gradient set to 0 first",
        "def sgd_step(params, lr):\n    for p in params:\n        p.grad = 0.0\n        p.data -= lr * p.grad",
    ),
    mistake("prediction", "a number", "prediction = 1.0"),
]

RIGHT = [
    right(
        "topological_order",
        "the value marked after its parents",
        "def topological_order(root):\n    order, seen = [], set()\n\n    def visit(v):\n        for parent in v.parents:\n            if id(parent) not in seen:\n                visit(parent)\n        seen.add(id(v))\n        order.append(v)\n\n    visit(root)\n    return order",
    ),
    right(
        "topological_order",
        "an explicit stack",
        "def topological_order(root):\n    order, seen, stack = [], set(), [(root, False)]\n    while stack:\n        v, done = stack.pop()\n        if done:\n            order.append(v)\n        elif id(v) not in seen:\n            seen.add(id(v))\n            stack.append((v, True))\n            stack.extend((p, False) for p in v.parents)\n    return order",
    ),
    right(
        "mul",
        "the gradients first, then added",
        MUL
        + "        d_self, d_other = other.data * out.grad, self.data * out.grad\n        self.grad = self.grad + d_self\n        other.grad = other.grad + d_other\n"
        + MUL_END,
    ),
    right("tanh", "1 - out.data^2", TANH + "        self.grad += (1 - out.data**2) * out.grad\n" + TANH_END),
    right(
        "tanh",
        "the local derivative 1 - t^2 worked out in the forward pass, kept for the rule",
        "def tanh(self):\n    t = math.tanh(self.data)\n    out = Value(t, (self,))\n    local = 1 - t * t\n\n"
        "    def _backward():\n        self.grad += local * out.grad\n" + TANH_END,
    ),
    right(
        "tanh",
        "t^2 kept on the output value in the forward pass",
        "def tanh(self):\n    t = math.tanh(self.data)\n    out = Value(t, (self,))\n    out.t_squared = t**2\n\n"
        "    def _backward():\n        self.grad += (1 - out.t_squared) * out.grad\n" + TANH_END,
    ),
    right(
        "tanh",
        "(1 - t)(1 + t), both kept from the forward pass",
        "def tanh(self):\n    t = math.tanh(self.data)\n    out = Value(t, (self,))\n    a, b = 1 - t, 1 + t\n\n"
        "    def _backward():\n        self.grad += a * b * out.grad\n" + TANH_END,
    ),
    right(
        "tanh", "a whole power written as a float", TANH + "        self.grad += (1 - t**2.0) * out.grad\n" + TANH_END
    ),
    right(
        "sgd_step",
        "by index, in a while loop",
        "def sgd_step(params, lr):\n    k = 0\n    while k < len(params):\n        params[k].data = params[k].data - lr * params[k].grad\n        k += 1",
    ),
    right("prediction", "the other word", 'prediction = "no"'),
]

# An outside instructor's attempts, each written without the reference solution in view: the mistakes
# learners make (and routes around the exercise), and other right answers.
MISTAKES += [
    mistake(
        "topological_order",
        "reversed breadth-first order",
        "from collections import deque\ndef topological_order(root):\n    order, seen, q = [], {id(root)}, deque([root])\n    while q:\n        v = q.popleft(); order.append(v)\n        for p in v.parents:\n            if id(p) not in seen:\n                seen.add(id(p)); q.append(p)\n    return order[::-1]",
    ),
    mistake(
        "topological_order",
        "pre-order (root first)",
        "def topological_order(root):\n    order, seen = [], set()\n    def visit(v):\n        if id(v) not in seen:\n            seen.add(id(v)); order.append(v)\n            for p in v.parents:\n                visit(p)\n    visit(root)\n    return order",
    ),
    mistake(
        "topological_order",
        "no dedupe",
        "def topological_order(root):\n    order = []\n    def visit(v):\n        for p in v.parents:\n            visit(p)\n        order.append(v)\n    visit(root)\n    return order",
    ),
    mistake(
        "topological_order",
        "dedupe by data (equal numbers collapse)",
        "def topological_order(root):\n    order, seen = [], set()\n    def visit(v):\n        if v.data not in seen:\n            seen.add(v.data)\n            for p in v.parents:\n                visit(p)\n            order.append(v)\n    visit(root)\n    return order",
    ),
    mistake(
        "topological_order",
        "root left out",
        "def topological_order(root):\n    order, seen = [], set()\n    def visit(v):\n        if id(v) not in seen:\n            seen.add(id(v))\n            for p in v.parents:\n                visit(p)\n            order.append(v)\n    for p in root.parents:\n        visit(p)\n    return order",
    ),
    mistake(
        "topological_order",
        "only the direct parents",
        "def topological_order(root):\n    return list(dict.fromkeys(root.parents)) + [root]",
    ),
    mistake(
        "topological_order",
        "library autograd",
        "from transformer_math import autograd\ndef topological_order(root):\n    return autograd.topological_order(root) if hasattr(autograd, 'topological_order') else autograd.Value(0)._topo(root)",
    ),
    mistake(
        "mul",
        "forgets out.grad",
        "def mul(self, other):\n    other = other if isinstance(other, Value) else Value(other)\n    out = Value(self.data * other.data, (self, other))\n\n    def _backward():\n        self.grad += other.data\n        other.grad += self.data\n\n    out._backward = _backward\n    return out\n\n\nValue.__mul__ = mul\n",
    ),
    mistake(
        "mul",
        "swapped: own data",
        "def mul(self, other):\n    other = other if isinstance(other, Value) else Value(other)\n    out = Value(self.data * other.data, (self, other))\n\n    def _backward():\n        self.grad += self.data * out.grad\n        other.grad += other.data * out.grad\n\n    out._backward = _backward\n    return out\n\n\nValue.__mul__ = mul\n",
    ),
    mistake(
        "mul",
        "= instead of += (x * x loses a term)",
        "def mul(self, other):\n    other = other if isinstance(other, Value) else Value(other)\n    out = Value(self.data * other.data, (self, other))\n\n    def _backward():\n        self.grad = other.data * out.grad\n        other.grad = self.data * out.grad\n\n    out._backward = _backward\n    return out\n\n\nValue.__mul__ = mul\n",
    ),
    mistake(
        "mul",
        "uses out.data",
        "def mul(self, other):\n    other = other if isinstance(other, Value) else Value(other)\n    out = Value(self.data * other.data, (self, other))\n\n    def _backward():\n        self.grad += out.data / self.data * out.grad if self.data else 0.0\n        other.grad += out.data * out.grad\n\n    out._backward = _backward\n    return out\n\n\nValue.__mul__ = mul\n",
    ),
    mistake(
        "mul",
        "the product of the grads",
        "def mul(self, other):\n    other = other if isinstance(other, Value) else Value(other)\n    out = Value(self.data * other.data, (self, other))\n\n    def _backward():\n        self.grad += other.grad * out.grad\n        other.grad += self.grad * out.grad\n\n    out._backward = _backward\n    return out\n\n\nValue.__mul__ = mul\n",
    ),
    mistake(
        "tanh",
        "forgets out.grad",
        "def tanh(self):\n    t = math.tanh(self.data)\n    out = Value(t, (self,))\n\n    def _backward():\n        self.grad += 1 - t**2\n\n    out._backward = _backward\n    return out\n\n\nValue.tanh = tanh\n",
    ),
    mistake(
        "tanh",
        "1 - x^2 (the input, not the output)",
        "def tanh(self):\n    t = math.tanh(self.data)\n    out = Value(t, (self,))\n\n    def _backward():\n        self.grad += (1 - self.data**2) * out.grad\n\n    out._backward = _backward\n    return out\n\n\nValue.tanh = tanh\n",
    ),
    mistake(
        "tanh",
        "1 - tanh(t)^2 (tanh applied twice)",
        "def tanh(self):\n    t = math.tanh(self.data)\n    out = Value(t, (self,))\n\n    def _backward():\n        self.grad += (1 - math.tanh(t)**2) * out.grad\n\n    out._backward = _backward\n    return out\n\n\nValue.tanh = tanh\n",
    ),
    mistake(
        "tanh",
        "(1 - t)^2",
        "def tanh(self):\n    t = math.tanh(self.data)\n    out = Value(t, (self,))\n\n    def _backward():\n        self.grad += (1 - t)**2 * out.grad\n\n    out._backward = _backward\n    return out\n\n\nValue.tanh = tanh\n",
    ),
    mistake(
        "tanh",
        "= instead of +=",
        "def tanh(self):\n    t = math.tanh(self.data)\n    out = Value(t, (self,))\n\n    def _backward():\n        self.grad = (1 - t**2) * out.grad\n\n    out._backward = _backward\n    return out\n\n\nValue.tanh = tanh\n",
    ),
    mistake(
        "tanh",
        "cosh^2",
        "def tanh(self):\n    t = math.tanh(self.data)\n    out = Value(t, (self,))\n\n    def _backward():\n        self.grad += math.cosh(self.data) ** 2 * out.grad\n\n    out._backward = _backward\n    return out\n\n\nValue.tanh = tanh\n",
    ),
    mistake("sgd_step", "uphill", "def sgd_step(params, lr):\n    for p in params:\n        p.data += lr * p.grad"),
    mistake("sgd_step", "ignores lr", "def sgd_step(params, lr):\n    for p in params:\n        p.data -= p.grad"),
    mistake(
        "sgd_step",
        "rebinds the loop variable",
        "def sgd_step(params, lr):\n    for p in params:\n        p = Value(p.data - lr * p.grad)",
    ),
    mistake(
        "sgd_step",
        "steps by lr, not lr times the gradient",
        "def sgd_step(params, lr):\n    for p in params:\n        p.data -= lr * np.sign(p.grad)",
    ),
    mistake(
        "sgd_step",
        "returns new values, leaves the parameters",
        "def sgd_step(params, lr):\n    return [p.data - lr * p.grad for p in params]",
    ),
    mistake(
        "sgd_step",
        "only the first parameter (return inside the loop)",
        "def sgd_step(params, lr):\n    for p in params:\n        p.data -= lr * p.grad\n        return",
    ),
    mistake("prediction", "True", "prediction = True"),
]
RIGHT += [
    right(
        "topological_order",
        "iterative DFS with an explicit stack",
        "def topological_order(root):\n    order, seen, stack = [], set(), [(root, False)]\n    while stack:\n        v, done = stack.pop()\n        if done:\n            order.append(v)\n        elif v not in seen:\n            seen.add(v)\n            stack.append((v, True))\n            stack.extend((p, False) for p in v.parents)\n    return order",
    ),
    right(
        "topological_order",
        "Kahn's algorithm",
        "def topological_order(root):\n    nodes, stack = {}, [root]\n    while stack:\n        v = stack.pop()\n        if id(v) not in nodes:\n            nodes[id(v)] = v\n            stack.extend(v.parents)\n    users = {i: 0 for i in nodes}\n    for v in nodes.values():\n        for p in set(map(id, v.parents)):\n            users[p] += 1\n    ready, rev = [root], []\n    while ready:\n        v = ready.pop()\n        rev.append(v)\n        for p in {id(p): p for p in v.parents}.values():\n            users[id(p)] -= 1\n            if users[id(p)] == 0:\n                ready.append(p)\n    return rev[::-1]",
    ),
    right(
        "topological_order",
        "sorted by longest distance from the root, deepest first",
        "def topological_order(root):\n    depth, stack = {}, [(root, 0)]\n    nodes = {}\n    while stack:\n        v, d = stack.pop()\n        if d > depth.get(id(v), -1) or id(v) not in depth:\n            depth[id(v)] = max(d, depth.get(id(v), 0)) if id(v) in depth else d\n            nodes[id(v)] = v\n            stack.extend((p, d + 1) for p in v.parents)\n    return sorted(nodes.values(), key=lambda v: -depth[id(v)])",
    ),
    right(
        "mul",
        "local derivatives named first",
        "def mul(self, other):\n    other = other if isinstance(other, Value) else Value(other)\n    out = Value(self.data * other.data, (self, other))\n\n    def _backward():\n        da, db = other.data, self.data\n        self.grad += da * out.grad\n        other.grad += db * out.grad\n\n    out._backward = _backward\n    return out\n\n\nValue.__mul__ = mul\n",
    ),
    right(
        "tanh",
        "(1 - t)(1 + t)",
        "def tanh(self):\n    t = math.tanh(self.data)\n    out = Value(t, (self,))\n\n    def _backward():\n        self.grad += (1 - t) * (1 + t) * out.grad\n\n    out._backward = _backward\n    return out\n\n\nValue.tanh = tanh\n",
    ),
    right(
        "sgd_step",
        "p.data = p.data - lr * p.grad",
        "def sgd_step(params, lr):\n    for p in params:\n        p.data = p.data - lr * p.grad",
    ),
    right(
        "sgd_step",
        "and zero the gradient after",
        "def sgd_step(params, lr):\n    for p in params:\n        p.data -= lr * p.grad\n        p.grad = 0.0",
    ),
    right("prediction", "no", 'prediction = "no"'),
]

# Attempts to get past the checks: derivatives measured instead of derived, and rules that evaluate tanh
# again (right in value, refused: the rule needs only t and out.grad).
MISTAKES += [
    mistake(
        "mul",
        "central differences with h = 1e-6 (exact for a product, up to rounding)",
        MUL
        + "        h = 1e-6\n        self.grad += ((self.data + h) * other.data - (self.data - h) * other.data) / (2 * h) * out.grad\n        other.grad += (self.data * (other.data + h) - self.data * (other.data - h)) / (2 * h) * out.grad\n"
        + MUL_END,
    ),
    mistake(
        "tanh",
        "central differences with h = 1e-5",
        TANH
        + "        h = 1e-5\n        self.grad += (math.tanh(self.data + h) - math.tanh(self.data - h)) / (2 * h) * out.grad\n"
        + TANH_END,
    ),
    mistake(
        "tanh",
        "tanh rebuilt from + * /, inverted at t by bisection, its slope by Richardson-refined differences",
        TANH
        + "        def _exp(x):\n            term, total, k = 1.0, 1.0, 1\n            while abs(term) > 1e-18 * abs(total):\n                term, k = term * x / k, k + 1\n                total += term\n            return total\n\n        def _tanh(x):\n            e = _exp(2 * x)\n            return (e - 1) / (e + 1)\n\n        lo, hi = -20.0, 20.0\n        for _ in range(80):\n            mid = (lo + hi) / 2\n            lo, hi = (mid, hi) if _tanh(mid) < out.data else (lo, mid)\n        x0 = (lo + hi) / 2\n        h, table = 0.2 * (1 - abs(out.data)) + 1e-3, []\n        for i in range(6):\n            row = [(_tanh(x0 + h) - _tanh(x0 - h)) / (2 * h)]\n            for j in range(i):\n                row.append(row[j] + (row[j] - table[i - 1][j]) / (3.0, 15.0, 63.0, 255.0, 1023.0)[j])\n            table.append(row)\n            h /= 2\n        self.grad += table[-1][-1] * out.grad\n"
        + TANH_END,
    ),
    mistake(
        "tanh",
        "a complex-step derivative",
        TANH
        + "        self.grad += cmath.tanh(complex(self.data, 1e-20)).imag / 1e-20 * out.grad\n"
        + TANH_END.replace("Value.tanh = tanh", "import cmath\n\nValue.tanh = tanh"),
    ),
    mistake(
        "tanh",
        "central differences through np.tanh bound under another name",
        "from numpy import tanh as th\n\n\n"
        + TANH
        + "        h = 1e-5\n        self.grad += float(th(self.data + h) - th(self.data - h)) / (2 * h) * out.grad\n"
        + TANH_END,
    ),
    mistake(
        "tanh",
        "central differences through the Value's own forward pass",
        TANH
        + "        h = 1e-5\n        up, down = Value(self.data + h).tanh(), Value(self.data - h).tanh()\n        self.grad += (up.data - down.data) / (2 * h) * out.grad\n"
        + TANH_END,
    ),
    mistake(
        "tanh",
        "1/cosh^2 of the input (right, but tanh's rule needs only t)",
        TANH + "        self.grad += out.grad / math.cosh(self.data) ** 2\n" + TANH_END,
    ),
]
RIGHT += [
    right(
        "mul",
        "the parents' data read into locals first",
        MUL
        + "        a, b = self.data, other.data\n        self.grad += b * out.grad\n        other.grad += a * out.grad\n"
        + MUL_END,
    ),
    right(
        "tanh",
        "t read again from out.data",
        TANH + "        s = out.data\n        self.grad += out.grad * (1.0 - s * s)\n" + TANH_END,
    ),
]

# Attempts to get past the checks: tanh rebuilt from a float literal of e, from 10 and log, or from a series in integer
# powers alone, then differenced. No refused name is needed for the last, so the tolerance (1e-14) does the work:
# the rule errs by 4e-16, the best stencil of nine points by 4e-14.
SERIES_TANH = """def _series_exp(x):
    halvings = 0
    while abs(x) > 0.5:
        x, halvings = x / 2, halvings + 1
    total, term = 1.0, 1.0
    for k in range(1, 25):
        term = term * x / k
        total += term
    for _ in range(halvings):
        total = total * total
    return total


def _series_tanh(u):
    a = _series_exp(2 * u)
    return (a - 1) / (a + 1)


STENCIL = [1 / 280, -4 / 105, 1 / 5, -4 / 5, 0, 4 / 5, -1 / 5, 4 / 105, -1 / 280]


"""
MISTAKES += [
    mistake(
        "tanh",
        "central differences of tanh written with a float literal of e",
        TANH
        + "        self.grad += (lambda f, z, s: (f(z + s) - f(z - s)) / (2 * s))(\n"
        + "            lambda u: (2.718281828459045 ** (2 * u) - 1) / (2.718281828459045 ** (2 * u) + 1), self.data, 1e-5\n"
        + "        ) * out.grad\n"
        + TANH_END,
    ),
    mistake(
        "tanh",
        "a five-point difference of tanh written with 10 ** (x / log 10)",
        TANH
        + "        self.grad += (lambda f, z, s: (8 * (f(z + s) - f(z - s)) - (f(z + 2 * s) - f(z - 2 * s))) / (12 * s))(\n"
        + "            lambda u: 1 - 2 / (10 ** (2 * u / math.log(10)) + 1), self.data, 1e-3\n"
        + "        ) * out.grad\n"
        + TANH_END,
    ),
    mistake(
        "tanh",
        "a nine-point difference of tanh from a series in integer powers (no refused name)",
        SERIES_TANH
        + TANH
        + "        self.grad += sum(c * _series_tanh(self.data + (k - 4) * 0.01) for k, c in enumerate(STENCIL)) / 0.01 * out.grad\n"
        + TANH_END,
    ),
]
RIGHT += [
    right(
        "tanh",
        "out.grad minus t * t * out.grad",
        TANH + "        self.grad += out.grad - t * t * out.grad\n" + TANH_END,
    ),
]

# The same series in 40-digit decimals, where a difference loses nothing: the rules run as a backward pass's check.
DECIMAL_TANH = """from decimal import Decimal as D, getcontext

getcontext().prec = 40


def _decimal_exp(x):
    halvings = 0
    while abs(x) > D("0.5"):
        x, halvings = x / 2, halvings + 1
    total = term = D(1)
    for k in range(1, 60):
        term = term * x / k
        total += term
    for _ in range(halvings):
        total = total * total
    return total


def _decimal_tanh(u):
    a = _decimal_exp(2 * u)
    return (a - 1) / (a + 1)


"""
MISTAKES.append(
    mistake(
        "tanh",
        "central differences of a series in 40-digit decimals",
        DECIMAL_TANH
        + TANH
        + '        up, down = _decimal_tanh(D(self.data) + D("1e-15")), _decimal_tanh(D(self.data) - D("1e-15"))\n'
        + '        self.grad += float((up - down) / D("2e-15")) * out.grad\n'
        + TANH_END,
    )
)

# Attempts to get past the checks: the library's own function handed to the check under the exercise's name.
MISTAKES += [
    mistake(
        "mul",
        "the library's Value imported in place of one's own",
        "from transformer_math.autograd import Value",
        append=True,
    ),
    mistake(
        "mul",
        "the library's rule set on one's own Value",
        "from transformer_math.autograd import Value as _L\n\nValue.__mul__ = _L.__mul__\nValue.__rmul__ = _L.__rmul__",
        append=True,
    ),
    mistake(
        "tanh",
        "the library's rule set on one's own Value",
        "from transformer_math.autograd import Value as _L\n\nValue.tanh = _L.tanh",
        append=True,
    ),
    mistake(
        "mul",
        "one's own Value built on the library's",
        "from transformer_math.autograd import Value as _L\n\n\nclass Value(_L):\n    pass",
        append=True,
    ),
]

# The rule written as a division by the parent's own value: right for every factor but 0.
MISTAKES += [
    mistake(
        "mul",
        "out.data divided by the parent's own value",
        MUL
        + "        self.grad += out.data / self.data * out.grad\n"
        + "        other.grad += out.data / other.data * out.grad\n"
        + MUL_END,
    ),
]

# A derivative measured as carefully as float64 allows: central differences refined by Richardson extrapolation, of
# tanh rebuilt as a continued fraction (only +, * and /) in the rule, or of math.tanh in the forward pass, the slope
# kept for the rule. Either comes within 1e-14; neither follows t when the check runs the rule with t changed.
RICHARDSON = """
def _richardson(f, z, h, levels):
    table = [[(f(z + h / 2**i) - f(z - h / 2**i)) / (2 * h / 2**i)] for i in range(levels)]
    for j in range(1, levels):
        for i in range(j, levels):
            table[i].append(table[i][j - 1] + (table[i][j - 1] - table[i - 1][j - 1]) / (4**j - 1))
    return table[-1][-1]


def _continued_fraction_tanh(z):
    a = 0.0
    for k in range(40, 0, -1):
        a = z * z / ((2 * k + 1) + a)
    return z / (1 + a)


"""
MISTAKES += [
    mistake(
        "tanh",
        "Richardson-refined differences of tanh rebuilt as a continued fraction",
        RICHARDSON
        + TANH
        + "        self.grad += _richardson(_continued_fraction_tanh, self.data, 0.4, 6) * out.grad\n"
        + TANH_END,
    ),
    mistake(
        "tanh",
        "Richardson-refined differences of math.tanh in the forward pass, the slope kept for the rule",
        RICHARDSON
        + "def tanh(self):\n    t = math.tanh(self.data)\n    slope = _richardson(math.tanh, self.data, 0.4, 6)\n"
        + "    out = Value(t, (self,))\n\n    def _backward():\n        self.grad += slope * out.grad\n"
        + TANH_END,
    ),
]

# The standard library's topological sort is the sort the exercise asks for: refused as the guide's own library is.
MISTAKES += [
    mistake(
        "topological_order",
        "graphlib.TopologicalSorter",
        "import graphlib\n\n\ndef topological_order(root):\n    sorter, values, stack = graphlib.TopologicalSorter(), {}, [root]\n"
        "    while stack:\n        v = stack.pop()\n        if id(v) in values:\n            continue\n"
        "        values[id(v)] = v\n        sorter.add(id(v), *(id(p) for p in v.parents))\n"
        "        stack.extend(v.parents)\n    return [values[i] for i in sorter.static_order()]",
    )
]
