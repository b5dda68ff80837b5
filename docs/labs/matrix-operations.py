# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lab: matrix operations
#
# The operations a Transformer runs most are sums, element-wise products, matrix products and
# transposes. In this lab you write each one for two small matrices, then write the matrix product
# yourself with loops, the way the formula defines it:
#
# $$
# (AB)_{ij} = \sum_{k} A_{ik} B_{kj}.
# $$
#
# **How to work:** each cell tagged `exercise` has a `...` for you to replace. Run the `check` cell
# under it: it prints **Correct**, or what is wrong. Solutions are under "Solution", folded.

# %% [markdown]
# Run this cell first. It defines `check`, which runs your answer, compares it with the expected
# numbers and prints **Correct** or what is wrong, and `loop_problems`, which reads the code of your
# loops exercise (with Python's `ast` module) for shortcuts.

# %%
import ast
import inspect
import textwrap

import numpy as np

VECTORISED = {"dot", "matmul", "einsum", "tensordot", "inner", "vdot", "outer", "multi_dot", "kron", "__matmul__"}


def check(name, answer, expected, tol=1e-4):
    """Print "Correct: name" if answer() equals expected, else what's wrong."""
    try:
        got = answer()
        if got is Ellipsis:
            return print(f"Not yet: {name} - replace the ... in the exercise.")
        if got is None:
            return print(f"Wrong: {name} is None - a missing return?")
        if isinstance(expected, list) and expected == [] and isinstance(got, list):  # problems found in code
            return print(f"Correct: {name}" if not got else f"Wrong: {name} - {'; '.join(got)}.")
        got = np.asarray(got, dtype=float)
    except Exception as err:
        return print(f"Wrong: {name} raised {type(err).__name__}: {err}")
    expected = np.asarray(expected, dtype=float)
    if got.shape != expected.shape:
        print(f"Wrong: {name} has shape {got.shape}, not {expected.shape}.")
    elif not np.all(np.isfinite(got)):
        print(f"Wrong: {name} contains inf or nan:\n{got}")
    elif not np.allclose(got, expected, rtol=0, atol=tol):
        print(f"Wrong: {name} is\n{np.round(got, 4)}\nbut should be\n{np.round(expected, 4)}")
    else:
        print(f"Correct: {name}")


def loop_depth(node, depth=0):
    """How deeply loops (for, while, comprehensions) nest in node."""
    if isinstance(node, ast.For | ast.While):
        inner = depth + 1
    elif isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
        inner = depth + len(node.generators)  # [... for i in ... for j in ...] nests two loops
    else:
        inner = depth
    return max([inner] + [loop_depth(child, inner) for child in ast.iter_child_nodes(node)])


def loop_problems(function):
    """What in function's code is not a product written with loops: @, a vectorised product, the library."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp | ast.AugAssign) and isinstance(node.op, ast.MatMult):
            problems.append("it uses the @ operator")
        elif isinstance(node, ast.Import | ast.ImportFrom):
            problems.append("it imports inside the function")
        elif isinstance(node, ast.Call):
            written = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            try:  # what the called name means where the function was defined (np.dot under another name)
                target = eval(compile(ast.Expression(node.func), "<call>", "eval"), function.__globals__)
            except Exception:
                target = None
            module = str(getattr(target, "__module__", "") or "")
            if written in VECTORISED or getattr(target, "__name__", "") in VECTORISED:
                problems.append(f"it calls {ast.unparse(node.func)}, which multiplies matrices for you")
            elif module.split(".")[0] == "transformer_math":
                problems.append(f"it calls the library's {ast.unparse(node.func)}")
    if loop_depth(tree) < 2:
        problems.append("it has no loop inside a loop (over the rows i and the columns j)")
    return problems


# %%
A = np.array([[1, 2], [3, 4]])
B = np.array([[5, 6], [7, 8]])

# %% [markdown]
# ## 1. Sum, difference and element-wise product
#
# These three work entry by entry: $(A + B)_{ij} = A_{ij} + B_{ij}$, and the element-wise (Hadamard)
# product is $(A \odot B)_{ij} = A_{ij} B_{ij}$. In NumPy, `A * B` is the element-wise product.

# %% tags=["exercise"]
total = ...  # A + B
difference = ...  # A - B
elementwise = ...  # the element-wise product of A and B

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# total = A + B
# difference = A - B
# elementwise = A * B
# ```
#
# </details>

# %%
check("total", lambda: total, [[6, 8], [10, 12]])
check("difference", lambda: difference, [[-4, -4], [-4, -4]])
check("elementwise", lambda: elementwise, [[5, 12], [21, 32]])

# %% [markdown]
# ## 2. One entry of the matrix product, by hand
#
# Entry $(0, 1)$ of $AB$ (row 0, column 1, counting from 0) is the dot product of row 0 of $A$ with
# column 1 of $B$. Work it out on paper and type the number.

# %% tags=["exercise"]
entry_0_1 = ...  # a number you worked out by hand

# %% [markdown]
# <details><summary>Solution</summary>
#
# Row 0 of $A$ is $(1, 2)$, column 1 of $B$ is $(6, 8)$, and $1 \cdot 6 + 2 \cdot 8 = 22$.
#
# ```python
# entry_0_1 = 22
# ```
#
# </details>

# %%
check("entry_0_1", lambda: entry_0_1, 22)

# %% [markdown]
# ## 3. Matrix product and transpose with NumPy
#
# The matrix product is `A @ B`; the transpose $A^\top$, with $(A^\top)_{ij} = A_{ji}$, is `A.T`.

# %% tags=["exercise"]
product = ...  # the matrix product AB
transposed = ...  # the transpose of A

# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# product = A @ B
# transposed = A.T
# ```
#
# </details>

# %%
check("product", lambda: product, [[19, 22], [43, 50]])
check("transposed", lambda: transposed, [[1, 3], [2, 4]])

# %% [markdown]
# ## 4. The matrix product with loops
#
# Write `matmul(X, Y)` with the formula at the top: for an $n \times m$ matrix $X$ and an
# $m \times p$ matrix $Y$ the result is $n \times p$. Use `np.zeros((n, p))` for the result and
# three nested loops. The check also tries matrices that are not square, where the order of the
# shapes matters, and it reads your code: `@`, `np.dot`, `np.matmul`, `np.einsum`, `np.tensordot` (or
# any other call that multiplies matrices for you) and the guide's library are refused, and there must
# be a loop over $j$ inside a loop over $i$.


# %% tags=["exercise"]
def matmul(X, Y):
    X, Y = np.asarray(X), np.asarray(Y)
    return ...  # your loops here


# %% [markdown]
# <details><summary>Solution</summary>
#
# ```python
# def matmul(X, Y):
#     X, Y = np.asarray(X), np.asarray(Y)
#     n, m = X.shape
#     p = Y.shape[1]
#     result = np.zeros((n, p))
#     for i in range(n):
#         for j in range(p):
#             for k in range(m):
#                 result[i, j] += X[i, k] * Y[k, j]
#     return result
# ```
#
# </details>

# %%
check("matmul(A, B)", lambda: matmul(A, B), [[19, 22], [43, 50]])
C = [[1, 2, 3], [4, 5, 6]]  # 2 x 3
D = [[1], [0], [-1]]  # 3 x 1
check("matmul(C, D)", lambda: matmul(C, D), [[-2], [-2]])
check("matmul written with loops", lambda: ... if matmul(A, B) is Ellipsis else loop_problems(matmul), [])
