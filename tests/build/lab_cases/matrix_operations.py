"""Matrix operations: the typical mistakes and other right answers."""

from __future__ import annotations

from tests.build.lab_cases import mistake, right

LOOP_HEAD = "def matmul(X, Y):\n    n, m = np.shape(X)\n    p = np.shape(Y)[1]\n    result = np.zeros((n, p))\n"
LOOPS = "    for i in range(n):\n        for j in range(p):\n"

MISTAKES = [
    mistake("entry_0_1", "row 0 with column 0", "entry_0_1 = 19"),
    mistake("entry_0_1", "the entry of BA", "entry_0_1 = 34"),
    mistake("entry_0_1", "one unit off", "entry_0_1 = 21"),
    mistake("prediction", "a word not offered", 'prediction = "same"'),
    mistake("row_dots", "no transpose", "def row_dots(X, Y):\n    return np.asarray(X) @ np.asarray(Y)"),
    mistake("row_dots", "the transpose on the left", "def row_dots(X, Y):\n    return np.asarray(X).T @ np.asarray(Y)"),
    mistake("row_dots", "the result transposed", "def row_dots(X, Y):\n    return np.asarray(Y) @ np.asarray(X).T"),
    mistake("row_dots", "element by element", "def row_dots(X, Y):\n    return np.asarray(X) * np.asarray(Y)"),
    mistake(
        "row_dots",
        "the sizes of the example written in",
        "def row_dots(X, Y):\n    return (np.asarray(X) @ np.asarray(Y).T).reshape(2, 4)",
    ),
    # the loops exercise: the wrong product, then every shortcut
    mistake("matmul", "element by element", "def matmul(X, Y):\n    return np.asarray(X) * np.asarray(Y)"),
    mistake(
        "matmul",
        "an n x n result",
        "def matmul(X, Y):\n    n, m = np.shape(X)\n    result = np.zeros((n, n))\n    for i in range(n):\n        for j in range(n):\n            for k in range(m):\n                result[i, j] += X[i][k] * Y[k][j]\n    return result",
    ),
    mistake(
        "matmul",
        "the indices of Y swapped",
        LOOP_HEAD
        + LOOPS
        + "            for k in range(m):\n                result[i, j] += X[i][k] * Y[j][k]\n    return result",
    ),
    mistake("matmul", "@", "def matmul(X, Y):\n    return X @ Y"),
    mistake(
        "matmul",
        "every row times every column at once, then one multiplication per entry for the count",
        "def matmul(X, Y):\n    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)\n"
        "    R = (X[:, :, None] * Y[None, :, :]).sum(axis=1)\n    out = np.zeros(R.shape)\n"
        "    for i in range(R.shape[0]):\n        for j in range(R.shape[1]):\n            out[i, j] = R[i, j] * 1.0\n"
        "    return out",
    ),
    mistake(
        "matmul",
        "the same on the check's own arrays, summed by np.sum",
        "def matmul(X, Y):\n    R = np.sum(X[:, :, None] * Y[None, :, :], axis=1)\n    out = np.zeros(R.shape)\n"
        "    for i in range(R.shape[0]):\n        for j in range(R.shape[1]):\n            out[i, j] = R[i, j] * 1.0\n"
        "    return out",
    ),
    mistake("matmul", "@ after np.asarray", "def matmul(X, Y):\n    return np.asarray(X) @ np.asarray(Y)"),
    mistake("matmul", "np.matmul", "def matmul(X, Y):\n    return np.matmul(X, Y)"),
    mistake(
        "matmul",
        "np.dot of a row and a column inside the loops",
        LOOP_HEAD
        + LOOPS
        + "            result[i, j] = np.dot(np.asarray(X)[i], np.asarray(Y)[:, j])\n    return result",
    ),
    mistake("matmul", "np.einsum", "def matmul(X, Y):\n    return np.einsum('ik,kj->ij', X, Y)"),
    mistake(
        "matmul", "an alias bound before the function", "mm = np.matmul\n\n\ndef matmul(X, Y):\n    return mm(X, Y)"
    ),
    mistake(
        "matmul",
        "an alias bound inside",
        "def matmul(X, Y):\n    mm = np.matmul\n    return mm(np.asarray(X), np.asarray(Y))",
    ),
    mistake("matmul", ".dot", "def matmul(X, Y):\n    return np.asarray(X).dot(Y)"),
    mistake("matmul", "np.tensordot", "from numpy import tensordot as t\n\n\ndef matmul(X, Y):\n    return t(X, Y, 1)"),
    mistake(
        "matmul",
        "broadcasting, no loops",
        "def matmul(X, Y):\n    X, Y = np.asarray(X), np.asarray(Y)\n    return (X[:, :, None] * Y[None, :, :]).sum(axis=1)",
    ),
    mistake(
        "matmul",
        "a whole row at a time",
        "def matmul(X, Y):\n    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)\n    return np.array([(X[i][:, None] * Y).sum(axis=0) for i in range(len(X))])",
    ),
    mistake(
        "matmul",
        "rank-one updates, with decoy multiplications for the count",
        LOOP_HEAD
        + "    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)\n"
        + "    for k in range(m):\n        result += X[:, k:k+1] * Y[k:k+1, :]\n"
        + "    for _ in range(n * p):\n        _ = X[0, 0] * Y[0, 0]\n    return result",
    ),
    mistake(
        "matmul",
        "the library's loops",
        "from transformer_math.linalg import matmul_loops\n\n\ndef matmul(X, Y):\n    return matmul_loops(X, Y)",
    ),
]

RIGHT = [
    right("entry_0_1", "a computation", "entry_0_1 = 1 * 6 + 2 * 8"),
    right("entry_0_1", "a float", "entry_0_1 = 22.0"),
    right("prediction", "the other word", 'prediction = "equal"'),
    right("row_dots", "einsum", "def row_dots(X, Y):\n    return np.einsum('id,jd->ij', X, Y)"),
    right(
        "row_dots",
        "broadcasting",
        "def row_dots(X, Y):\n    X, Y = np.asarray(X), np.asarray(Y)\n    return (X[:, None, :] * Y[None, :, :]).sum(axis=-1)",
    ),
    right(
        "matmul",
        "a helper of one's own, named dot",
        "def dot(u, v):\n    total = 0.0\n    for k in range(len(u)):\n        total += u[k] * v[k]\n    return total\n\n\n"
        + LOOP_HEAD
        + LOOPS
        + "            result[i, j] = dot(X[i], [row[j] for row in Y])\n    return result",
    ),
    right(
        "matmul",
        "a row times a column, summed, in two loops",
        LOOP_HEAD
        + "    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)\n"
        + LOOPS
        + "            result[i, j] = np.sum(X[i, :] * Y[:, j])\n    return result",
    ),
    right(
        "matmul",
        "nested lists and a generator",
        "def matmul(X, Y):\n    import numpy as np\n\n    cols = list(zip(*Y))\n    return np.array([[sum(a * b for a, b in zip(row, col)) for col in cols] for row in X])",
    ),
]

# An outside instructor's attempts, each written without the reference solution in view: the mistakes
# learners make (and routes around the exercise), and other right answers.
MISTAKES += [
    mistake("entry_0_1", "entry (0,0) = 19", "entry_0_1 = 19"),
    mistake("entry_0_1", "entry (1,0) = 43", "entry_0_1 = 43"),
    mistake("entry_0_1", "row 0 of A times row 1 of B = 1*7+2*8 = 23", "entry_0_1 = 23"),
    mistake("entry_0_1", "(BA)[0,1] = 34", "entry_0_1 = 34"),
    mistake("entry_0_1", "the whole product", "entry_0_1 = [[19, 22], [43, 50]]"),
    mistake("prediction", "not a choice", 'prediction = "maybe"'),
    mistake("prediction", "a bool", "prediction = False"),
    mistake(
        "row_dots",
        "X @ Y, no transpose",
        "def row_dots(X, Y):\n    X, Y = np.asarray(X), np.asarray(Y)\n    return X @ Y",
    ),
    mistake("row_dots", "X.T @ Y", "def row_dots(X, Y):\n    X, Y = np.asarray(X), np.asarray(Y)\n    return X.T @ Y"),
    mistake(
        "row_dots",
        "Y @ X.T: transposed result",
        "def row_dots(X, Y):\n    X, Y = np.asarray(X), np.asarray(Y)\n    return Y @ X.T",
    ),
    mistake(
        "row_dots",
        "elementwise product",
        "def row_dots(X, Y):\n    X, Y = np.asarray(X), np.asarray(Y)\n    return X * Y",
    ),
    mistake(
        "row_dots",
        "outer of row sums",
        "def row_dots(X, Y):\n    X, Y = np.asarray(X), np.asarray(Y)\n    return np.outer(X.sum(1), Y.sum(1))",
    ),
    mistake(
        "row_dots",
        "library via importlib",
        "import importlib\ndef row_dots(X, Y):\n    la = importlib.import_module('transformer_math.linalg')\n    X, Y = np.asarray(X, float), np.asarray(Y, float)\n    return la.matmul_loops(X, Y.T)",
    ),
    mistake("matmul", "@", "def matmul(X, Y):\n    return np.asarray(X) @ np.asarray(Y)"),
    mistake("matmul", "np.dot", "def matmul(X, Y):\n    return np.dot(X, Y)"),
    mistake("matmul", "alias bound before: mm = np.matmul", "mm = np.matmul\ndef matmul(X, Y):\n    return mm(X, Y)"),
    mistake(
        "matmul", "alias + asarray", "mm = np.matmul\ndef matmul(X, Y):\n    return mm(np.asarray(X), np.asarray(Y))"
    ),
    mistake(
        "matmul",
        "from numpy import dot + asarray + dummy multiplications",
        "from numpy import dot\ndef matmul(X, Y):\n    X, Y = np.asarray(X, float), np.asarray(Y, float)\n    for _ in range(X.shape[0] * Y.shape[1]):\n        _ = 1.0 * 1.0\n    return dot(X, Y)",
    ),
    mistake(
        "matmul",
        "loops that run, but the result from an alias",
        "mm = np.matmul\ndef matmul(X, Y):\n    X, Y = np.asarray(X, float), np.asarray(Y, float)\n    n, m = X.shape; p = Y.shape[1]\n    out = np.zeros((n, p))\n    for i in range(n):\n        for j in range(p):\n            out[i, j] = X[i, 0] * Y[0, j]\n    return mm(X, Y)",
    ),
    mistake(
        "matmul",
        "operator.matmul after asarray",
        "import operator\ndef matmul(X, Y):\n    return operator.matmul(np.asarray(X), np.asarray(Y))",
    ),
    mistake(
        "matmul",
        "ndarray.__matmul__",
        "def matmul(X, Y):\n    return np.ndarray.__matmul__(np.asarray(X), np.asarray(Y))",
    ),
    mistake(
        "matmul",
        "einsum via getattr",
        "def matmul(X, Y):\n    return getattr(np, 'ein' + 'sum')('ik,kj->ij', np.asarray(X), np.asarray(Y))",
    ),
    mistake(
        "matmul",
        "broadcast then sum",
        "def matmul(X, Y):\n    X, Y = np.asarray(X, float), np.asarray(Y, float)\n    return (X[:, :, None] * Y[None, :, :]).sum(axis=1)",
    ),
    mistake(
        "matmul",
        "= instead of +=",
        "def matmul(X, Y):\n    n, m = np.shape(X); p = np.shape(Y)[1]\n    r = np.zeros((n, p))\n    for i in range(n):\n        for j in range(p):\n            for k in range(m):\n                r[i, j] = X[i][k] * Y[k][j]\n    return r",
    ),
    mistake(
        "matmul",
        "range(m - 1)",
        "def matmul(X, Y):\n    n, m = np.shape(X); p = np.shape(Y)[1]\n    r = np.zeros((n, p))\n    for i in range(n):\n        for j in range(p):\n            for k in range(m - 1):\n                r[i, j] += X[i][k] * Y[k][j]\n    return r",
    ),
    mistake(
        "matmul",
        "Y indexed [j][k]",
        "def matmul(X, Y):\n    n, m = np.shape(X); p = np.shape(Y)[1]\n    r = np.zeros((n, p))\n    for i in range(n):\n        for j in range(p):\n            for k in range(m):\n                r[i, j] += X[i][k] * np.asarray(Y)[min(j, len(Y)-1)][min(k, p-1)]\n    return r",
    ),
    mistake(
        "matmul",
        "hard-coded 2x2",
        "def matmul(X, Y):\n    r = np.zeros((2, 2))\n    for i in range(2):\n        for j in range(2):\n            for k in range(2):\n                r[i, j] += X[i][k] * Y[k][j]\n    return r",
    ),
    mistake(
        "matmul",
        "X.shape on lists",
        "def matmul(X, Y):\n    n, m = X.shape; p = Y.shape[1]\n    r = np.zeros((n, p))\n    for i in range(n):\n        for j in range(p):\n            for k in range(m):\n                r[i, j] += X[i][k] * Y[k][j]\n    return r",
    ),
    mistake(
        "matmul",
        "library matmul_loops",
        "from transformer_math.linalg import matmul_loops\ndef matmul(X, Y):\n    return matmul_loops(X, Y)",
    ),
    mistake(
        "matmul",
        "setprofile switched off and on again",
        "import sys\nmm = np.matmul\ndef matmul(X, Y):\n    hook = sys.getprofile(); tr = sys.gettrace()\n    sys.setprofile(None); sys.settrace(None)\n    out = mm(np.asarray(X), np.asarray(Y))\n    for _ in range(out.size):\n        _ = 2.0 * 2.0\n    sys.settrace(tr); sys.setprofile(hook)\n    return out",
    ),
    mistake(
        "row_dots",
        "mutates X (doubles it, then halves the result)",
        "def row_dots(X, Y):\n    X, Y = np.asarray(X), np.asarray(Y)\n    X *= 2\n    return X @ Y.T / 2",
    ),
    mistake(
        "row_dots",
        "a table of the hidden cases' sizes",
        "def row_dots(X, Y):\n    X, Y = np.asarray(X, float), np.asarray(Y, float)\n    return X[:, :1] @ Y[:, :1].T",
    ),
    mistake(
        "matmul",
        "dummy multiplications, result from dot",
        "from numpy import dot\ndef matmul(X, Y):\n    X, Y = np.asarray(X, float), np.asarray(Y, float)\n    junk = 0.0\n    for i in range(X.shape[0] * Y.shape[1]):\n        junk = junk * float(i)\n    return dot(X, Y)",
    ),
    mistake(
        "matmul",
        "setprofile off and on, dummy multiplications",
        "import sys\nmm = np.matmul\ndef matmul(X, Y):\n    hook = sys.getprofile(); tr = sys.gettrace()\n    sys.setprofile(None); sys.settrace(None)\n    out = mm(np.asarray(X), np.asarray(Y))\n    sys.settrace(tr); sys.setprofile(hook)\n    junk = 1.0\n    for i in range(out.size):\n        junk = junk * float(i)\n    return out",
    ),
    mistake(
        "matmul",
        "vectorize a product of rows",
        "def matmul(X, Y):\n    X, Y = np.asarray(X, float), np.asarray(Y, float)\n    return np.array([[np.vdot(X[i], Y[:, j]) for j in range(Y.shape[1])] for i in range(X.shape[0])])",
    ),
]
RIGHT += [
    right("entry_0_1", "22.0 as a float", "entry_0_1 = 22.0"),
    right("entry_0_1", "a NumPy integer", "entry_0_1 = np.int64(22)"),
    right("prediction", "capitalised", 'prediction = "Different"'),
    right(
        "row_dots",
        "einsum",
        "def row_dots(X, Y):\n    return np.einsum('id,jd->ij', np.asarray(X, float), np.asarray(Y, float))",
    ),
    right(
        "row_dots",
        "broadcast and sum",
        "def row_dots(X, Y):\n    X, Y = np.asarray(X, float), np.asarray(Y, float)\n    return (X[:, None, :] * Y[None, :, :]).sum(axis=-1)",
    ),
    right(
        "row_dots",
        "list comprehension of dot products",
        "def row_dots(X, Y):\n    return np.array([[np.dot(x, y) for y in np.asarray(Y)] for x in np.asarray(X)])",
    ),
    right(
        "row_dots", "(Y X^T)^T", "def row_dots(X, Y):\n    X, Y = np.asarray(X), np.asarray(Y)\n    return (Y @ X.T).T"
    ),
    right("row_dots", "lists not converted: list @ array works", "def row_dots(X, Y):\n    return X @ np.transpose(Y)"),
    right(
        "matmul",
        "sum of a generator",
        "def matmul(X, Y):\n    n, m = np.shape(X)\n    p = np.shape(Y)[1]\n    return np.array([[sum(X[i][k] * Y[k][j] for k in range(m)) for j in range(p)] for i in range(n)])",
    ),
    right(
        "matmul",
        "zip of rows and columns, lists",
        "def matmul(X, Y):\n    return [[sum(a * b for a, b in zip(row, col)) for col in zip(*Y)] for row in X]",
    ),
    right(
        "matmul",
        "i,j loops with a vector product",
        "def matmul(X, Y):\n    X, Y = np.asarray(X, float), np.asarray(Y, float)\n    out = np.zeros((X.shape[0], Y.shape[1]))\n    for i in range(X.shape[0]):\n        for j in range(Y.shape[1]):\n            out[i, j] = np.sum(X[i, :] * Y[:, j])\n    return out",
    ),
    right(
        "matmul",
        "i,j loops with np.multiply",
        "def matmul(X, Y):\n    X, Y = np.asarray(X, float), np.asarray(Y, float)\n    out = np.zeros((X.shape[0], Y.shape[1]))\n    for i in range(X.shape[0]):\n        for j in range(Y.shape[1]):\n            out[i, j] = np.multiply(X[i, :], Y[:, j]).sum()\n    return out",
    ),
    right(
        "matmul",
        "k-i-j order, outer products of rows",
        "def matmul(X, Y):\n    X, Y = np.asarray(X, float), np.asarray(Y, float)\n    n, m = X.shape; p = Y.shape[1]\n    out = np.zeros((n, p))\n    for k in range(m):\n        for i in range(n):\n            for j in range(p):\n                out[i][j] = out[i][j] + X[i][k] * Y[k][j]\n    return out",
    ),
]

# Attempts to get past the checks: products of whole rows or columns, which the text now names as refused.
MISTAKES += [
    mistake(
        "matmul",
        "a sum over k of np.outer(column k of X, row k of Y)",
        "def matmul(X, Y):\n    X, Y = np.asarray(X, float), np.asarray(Y, float)\n    out = np.zeros((X.shape[0], Y.shape[1]))\n    for k in range(X.shape[1]):\n        out += np.outer(X[:, k], Y[k])\n    return out",
    ),
    mistake(
        "matmul",
        "a sum over k of np.multiply.outer",
        "def matmul(X, Y):\n    X, Y = np.asarray(X, float), np.asarray(Y, float)\n    out = np.zeros((X.shape[0], Y.shape[1]))\n    for k in range(X.shape[1]):\n        out = out + np.multiply.outer(X[:, k], Y[k])\n    return out",
    ),
    mistake(
        "matmul",
        "np.vdot of a row and a column per entry",
        "def matmul(X, Y):\n    X, Y = np.asarray(X, float), np.asarray(Y, float)\n    out = np.zeros((X.shape[0], Y.shape[1]))\n    for i in range(X.shape[0]):\n        for j in range(Y.shape[1]):\n            out[i, j] = np.vdot(X[i], Y[:, j])\n    return out",
    ),
]
RIGHT += [
    right(
        "matmul",
        "a sum over k of products written with * (one per entry)",
        "def matmul(X, Y):\n    X, Y = np.asarray(X, float), np.asarray(Y, float)\n    n, m = X.shape\n    p = Y.shape[1]\n    out = np.zeros((n, p))\n    for i in range(n):\n        for j in range(p):\n            out[i, j] = sum(X[i, k] * Y[k, j] for k in range(m))\n    return out",
    ),
]

# Attempts to get past the checks: the result kept in integers, which cuts off the fractions of a float product.
MISTAKES += [
    mistake(
        "matmul",
        "the result in an array of integers",
        "def matmul(X, Y):\n    n, m = np.shape(X)\n    p = np.shape(Y)[1]\n    result = np.zeros((n, p), dtype=int)\n    for i in range(n):\n        for j in range(p):\n            for k in range(m):\n                result[i, j] += X[i][k] * Y[k][j]\n    return result",
    ),
]

# Attempts to get past the checks: a vectorised product padded with multiplications of nothing of the inputs.
MISTAKES += [
    mistake(
        "matmul",
        "broadcasting, padded with one * one for the count",
        "def matmul(X, Y):\n    X, Y = np.asarray(X, float), np.asarray(Y, float)\n    one = 1.0\n    for _ in range(X.shape[0] * Y.shape[1]):\n        one * one\n    return (X[:, :, None] * Y[None, :, :]).sum(axis=1)",
    ),
]

# The product of A and B holds entry (0, 1): the cell after the prediction shows it only once that entry is right.
MISTAKES += [
    mistake("entry_0_1", "entry (0, 0), run to the end", "entry_0_1 = 19", prints="(shown once entry_0_1 is right)"),
]
RIGHT += [
    right("entry_0_1", "22, run to the end", "entry_0_1 = 22", prints="A @ B = [[19, 22], [43, 50]]"),
]

# The real product on plain copies of X and Y (no loops arrays), the count padded with multiplications of numbers
# that are no entries of X or Y.
PLAIN = (
    "def matmul(X, Y):\n"
    "    A = np.array(np.asarray(X, dtype=float).tolist())\n    B = np.array(np.asarray(Y, dtype=float).tolist())\n"
    "    for i in range(A.shape[0]):\n        for j in range(B.shape[1]):\n            junk = i * j\n"
)
VIEWS = (
    "def matmul(X, Y):\n"
    "    A = np.asarray(X, dtype=float).view(np.ndarray)\n    B = np.asarray(Y, dtype=float).view(np.ndarray)\n"
    "    for i in range(A.shape[0]):\n        for j in range(B.shape[1]):\n            for k in range(A.shape[1]):\n"
    "                junk = float(i) * float(j) * float(k)\n"
)
MISTAKES += [
    mistake("matmul", "type(A).__matmul__ on copies made by tolist", PLAIN + "    return type(A).__matmul__(A, B)"),
    mistake("matmul", "getattr with the name put together", PLAIN + "    return getattr(A, '__mat' + 'mul__')(B)"),
    mistake(
        "matmul",
        "np.matmul.__call__ bound before the check, on plain views",
        "mm = np.matmul.__call__\n\n\n" + VIEWS + "    return mm(A, B)",
    ),
    mistake(
        "matmul",
        "np.add.reduce of every row times every column, on copies",
        PLAIN + "    return np.add.reduce(A[:, :, None] * B[None], axis=1)",
    ),
    mistake(
        "matmul",
        "np.add.reduce of every row times every column, on plain views",
        VIEWS + "    return np.add.reduce(A[:, :, None] * B[None], axis=1)",
    ),
    mistake(
        "matmul",
        "rank-one updates on copies, padded",
        PLAIN + "    out = np.zeros((A.shape[0], B.shape[1]))\n    for k in range(A.shape[1]):\n"
        "        out = out + A[:, k:k+1] * B[k:k+1, :]\n    return out",
    ),
    mistake(
        "matmul",
        "rank-one updates on plain views, padded",
        VIEWS + "    out = np.zeros((A.shape[0], B.shape[1]))\n    for k in range(A.shape[1]):\n"
        "        out = out + A[:, k:k+1] * B[k:k+1, :]\n    return out",
    ),
    mistake(
        "matmul",
        "one pair of entries multiplied again and again, the loops on plain views",
        "def matmul(X, Y):\n    A = np.asarray(X, dtype=float).view(np.ndarray)\n"
        "    B = np.asarray(Y, dtype=float).view(np.ndarray)\n    n, m = A.shape\n    p = B.shape[1]\n"
        "    out = np.zeros((n, p))\n    for i in range(n):\n        for j in range(p):\n"
        "            for k in range(m):\n                _ = X[0][0] * Y[0][0]\n"
        "                out[i, j] += A[i, k] * B[k, j]\n    return out",
    ),
]
RIGHT += [
    right(
        "matmul",
        "the entries as lists by tolist, then loops",
        "def matmul(X, Y):\n    A, B = np.asarray(X, dtype=float).tolist(), np.asarray(Y, dtype=float).tolist()\n"
        "    return [[sum(A[i][k] * B[k][j] for k in range(len(B))) for j in range(len(B[0]))] for i in range(len(A))]",
    ),
    right(
        "matmul",
        "np.array of the nested lists, then loops",
        "def matmul(X, Y):\n    A, B = np.array(X, dtype=float), np.array(Y, dtype=float)\n"
        "    out = np.zeros((A.shape[0], B.shape[1]))\n    for i in range(A.shape[0]):\n"
        "        for j in range(B.shape[1]):\n            for k in range(A.shape[1]):\n"
        "                out[i, j] = out[i, j] + A[i, k] * B[k, j]\n    return out",
    ),
]

# Right answers that convert the entries on the way: float() keeps an entry an entry for the count, and so do
# NumPy's copies and NumPy's own scalar methods.
RIGHT += [
    right(
        "matmul",
        "lists of floats by map(float, row)",
        "def matmul(X, Y):\n    X = [list(map(float, r)) for r in X]\n    Y = [list(map(float, r)) for r in Y]\n"
        "    return np.array([[sum(a * b for a, b in zip(row, col)) for col in zip(*Y)] for row in X])",
    ),
    right(
        "matmul",
        "float() of each entry, a copy by np.copy, .item()",
        "def matmul(X, Y):\n    A, B = np.copy(np.asarray(X, dtype=float)), np.asarray(Y, dtype=np.float64)\n"
        "    out = np.zeros((A.shape[0], B.shape[1]), dtype=float)\n    for i in range(A.shape[0]):\n"
        "        for j in range(B.shape[1]):\n            total = 0.0\n            for k in range(A.shape[1]):\n"
        "                total += float(A[i, k]) * B[k, j].item()\n            out[i, j] = total\n    return out",
    ),
]

# The rank-one update flattened: every row with every column at once, as 1-D arrays made by np.repeat and np.tile
# (kept alive, so that the count of their entries' pairs could reach n m p).
MISTAKES += [
    mistake(
        "matmul",
        "a loop over k only, each rank-one update flattened by np.repeat and np.tile",
        "def matmul(X, Y):\n    X, Y = np.asarray(X, dtype=float), np.asarray(Y, dtype=float)\n"
        "    n, m, p = X.shape[0], X.shape[1], Y.shape[1]\n    C, kept = np.zeros(n * p), []\n"
        "    for k in range(m):\n        a, b = np.repeat(X[:, k], p), np.tile(Y[k], n)\n"
        "        kept += [a, b]\n        C = C + a * b\n    return C.reshape(n, p)\n",
    ),
]

# X @ Y whenever the shapes allow it, else X @ Y.T: right only while Y is not square (m = d).
MISTAKES += [
    mistake(
        "row_dots",
        "X @ Y where the shapes allow it, else X @ Y.T",
        "def row_dots(X, Y):\n    X, Y = np.asarray(X), np.asarray(Y)\n"
        "    return X @ Y if X.shape[1] == Y.shape[0] else X @ Y.T",
    ),
]

# Every X of whole numbers but one: an X cast to integers is refused on the X of fractions.
MISTAKES += [
    mistake(
        "row_dots",
        "X cast to integers",
        "def row_dots(X, Y):\n    X, Y = np.asarray(X, dtype=int), np.asarray(Y)\n    return X @ Y.T",
    )
]
