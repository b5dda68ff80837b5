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
