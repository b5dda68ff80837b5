"""Softmax from scratch: the typical mistakes and other right answers."""

from __future__ import annotations

import importlib.util

from tests.build.lab_cases import mistake, right

HEAD = "def softmax(x):\n    x = np.asarray(x, dtype=float)\n"
T_HEAD = "def softmax_with_temperature(x, temperature):\n    x = np.asarray(x, dtype=float)\n"

MISTAKES = [
    mistake("prediction", "a word not offered", 'prediction = "overflow"'),
    mistake("prediction", "a number", "prediction = 0.09"),
    # the formula as written; a shift that is not the maximum; the maximum of the whole array
    mistake("softmax", "no shift", HEAD + "    return np.exp(x) / np.sum(np.exp(x), axis=-1, keepdims=True)"),
    mistake(
        "softmax",
        "subtracts the minimum",
        HEAD + "    e = np.exp(x - np.min(x, axis=-1, keepdims=True))\n    return e / e.sum(axis=-1, keepdims=True)",
    ),
    mistake(
        "softmax",
        "subtracts the mean",
        HEAD + "    e = np.exp(x - np.mean(x, axis=-1, keepdims=True))\n    return e / e.sum(axis=-1, keepdims=True)",
    ),
    mistake(
        "softmax",
        "the maximum of the whole array",
        HEAD + "    e = np.exp(x - np.max(x))\n    return e / e.sum(axis=-1, keepdims=True)",
    ),
    mistake(
        "softmax", "normalised over the whole array", HEAD + "    e = np.exp(x - np.max(x))\n    return e / e.sum()"
    ),
    mistake(
        "softmax",
        "without keepdims",
        HEAD + "    e = np.exp(x - np.max(x, axis=-1))\n    return e / np.sum(e, axis=-1)",
    ),
    mistake("softmax", "not normalised", HEAD + "    return np.exp(x - np.max(x, axis=-1, keepdims=True))"),
    mistake(
        "softmax",
        "changes its input",
        "def softmax(x):\n    x = np.asarray(x)\n    x -= np.max(x, axis=-1, keepdims=True)\n    e = np.exp(x)\n    return e / e.sum(axis=-1, keepdims=True)",
    ),
    # the library, by an alias bound in the cell, by importlib
    mistake(
        "softmax",
        "the library by an alias",
        "from transformer_math.softmax import softmax as _s\n\n\ndef softmax(x):\n    return _s(x)",
    ),
    mistake(
        "softmax",
        "the library by importlib",
        "import importlib\n\n\ndef softmax(x):\n    return importlib.import_module('transformer_math.softmax').softmax(x, axis=-1)",
    ),
    mistake(
        "softmax",
        "a table of the shown scores",
        HEAD
        + "    if x.tolist() == [1000.0, 1001.0, 1002.0]:\n        return np.array([0.09003057, 0.24472847, 0.66524096])\n    e = np.exp(x)\n    return e / e.sum(axis=-1, keepdims=True)",
    ),
    # temperature: multiplied, subtracted, forgotten, applied after the softmax
    mistake("softmax_with_temperature", "multiplies by T", T_HEAD + "    return softmax(x * temperature)"),
    mistake("softmax_with_temperature", "subtracts T", T_HEAD + "    return softmax(x - temperature)"),
    mistake("softmax_with_temperature", "forgets T", T_HEAD + "    return softmax(x)"),
    mistake(
        "softmax_with_temperature",
        "a power of the probabilities, not normalised",
        T_HEAD + "    return softmax(x) ** (1 / temperature)",
    ),
    mistake(
        "softmax_with_temperature",
        "exp(x / T) without the shift",
        T_HEAD + "    e = np.exp(x / temperature)\n    return e / e.sum(axis=-1, keepdims=True)",
    ),
    mistake(
        "softmax_with_temperature",
        "the library's temperature",
        "import transformer_math.softmax as tms\n\n\ndef softmax_with_temperature(x, temperature):\n    return tms.softmax(x, temperature=temperature)",
    ),
]
if importlib.util.find_spec("scipy") is not None:
    MISTAKES.append(
        mistake(
            "softmax",
            "SciPy's",
            "from scipy.special import softmax as sp\n\n\ndef softmax(x):\n    return sp(x, axis=-1)",
        )
    )

RIGHT = [
    right("prediction", "another word", 'prediction = "inf"'),
    right(
        "softmax",
        "log-sum-exp, then exp",
        HEAD
        + "    m = x.max(axis=-1, keepdims=True)\n    lse = m + np.log(np.exp(x - m).sum(axis=-1, keepdims=True))\n    return np.exp(x - lse)",
    ),
    right(
        "softmax",
        "a copy changed in place, np.amax",
        "def softmax(x):\n    z = np.array(x, dtype=float)\n    z -= np.amax(z, axis=-1, keepdims=True)\n    np.exp(z, out=z)\n    z /= z.sum(axis=-1, keepdims=True)\n    return z",
    ),
    right(
        "softmax_with_temperature",
        "the shift inside",
        T_HEAD
        + "    z = (x - x.max(axis=-1, keepdims=True)) / temperature\n    return np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)",
    ),
]
