"""Softmax from scratch: the typical mistakes and other right answers."""

from __future__ import annotations

import importlib.util

from tests.build.lab_cases import behind_a_table, mistake, right, vendored

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
        "not normalised, np.abs replaced by zeros in the cell",
        "np.abs = lambda a, *args, **kwargs: np.zeros(np.shape(a))\n\n\n"
        + HEAD
        + "    return np.exp(x - np.max(x, axis=-1, keepdims=True))",
    ),
    mistake(
        "softmax",
        "not normalised, np.all made always true by the function",
        HEAD + "    np.all = lambda *args, **kwargs: True\n    return np.exp(x - np.max(x, axis=-1, keepdims=True))",
    ),
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

# An outside instructor's attempts, each written without the reference solution in view: the mistakes
# learners make (and routes around the exercise), and other right answers.
MISTAKES += [
    mistake("prediction", "a number, not a word", "prediction = 0"),
    mistake(
        "softmax",
        "naive",
        "def softmax(x):\n    x = np.asarray(x, dtype=float)\n    e = np.exp(x)\n    return e / e.sum(axis=-1, keepdims=True)",
    ),
    mistake(
        "softmax",
        "subtracts the min",
        "def softmax(x):\n    x = np.asarray(x, dtype=float)\n    e = np.exp(x - x.min(axis=-1, keepdims=True))\n    return e / e.sum(axis=-1, keepdims=True)",
    ),
    mistake(
        "softmax",
        "subtracts the mean",
        "def softmax(x):\n    x = np.asarray(x, dtype=float)\n    e = np.exp(x - x.mean(axis=-1, keepdims=True))\n    return e / e.sum(axis=-1, keepdims=True)",
    ),
    mistake(
        "softmax",
        "global max, not per row",
        "def softmax(x):\n    x = np.asarray(x, dtype=float)\n    e = np.exp(x - np.max(x))\n    return e / e.sum(axis=-1, keepdims=True)",
    ),
    mistake(
        "softmax",
        "sum over the whole array",
        "def softmax(x):\n    x = np.asarray(x, dtype=float)\n    e = np.exp(x - x.max(axis=-1, keepdims=True))\n    return e / e.sum()",
    ),
    mistake(
        "softmax",
        "axis 0",
        "def softmax(x):\n    x = np.asarray(x, dtype=float)\n    e = np.exp(x - x.max(axis=0, keepdims=True))\n    return e / e.sum(axis=0, keepdims=True)",
    ),
    mistake(
        "softmax",
        "no keepdims (1-D only)",
        "def softmax(x):\n    x = np.asarray(x, dtype=float)\n    e = np.exp(x - np.max(x, axis=-1))\n    return e / np.sum(e, axis=-1)",
    ),
    mistake(
        "softmax",
        "clips the scores",
        "def softmax(x):\n    x = np.asarray(x, dtype=float)\n    e = np.exp(np.clip(x, -700, 700))\n    return e / e.sum(axis=-1, keepdims=True)",
    ),
    mistake(
        "softmax",
        "subtracts the first entry",
        "def softmax(x):\n    x = np.asarray(x, dtype=float)\n    e = np.exp(x - x[..., :1])\n    return e / e.sum(axis=-1, keepdims=True)",
    ),
    mistake(
        "softmax",
        "in place on the caller's array",
        "def softmax(x):\n    x = np.asarray(x, dtype=float)\n    x -= x.max(axis=-1, keepdims=True)\n    np.exp(x, out=x)\n    x /= x.sum(axis=-1, keepdims=True)\n    return x",
    ),
    mistake(
        "softmax",
        "nan_to_num over the naive one",
        "def softmax(x):\n    x = np.asarray(x, dtype=float)\n    with np.errstate(all='ignore'):\n        e = np.exp(x)\n        return np.nan_to_num(e / e.sum(axis=-1, keepdims=True))",
    ),
    mistake(
        "softmax",
        "library via getattr on an alias",
        "import transformer_math.softmax as tms\nlib = getattr(tms, 'softmax')\ndef softmax(x):\n    x = np.asarray(x, dtype=float)\n    return lib(x)",
    ),
    mistake(
        "softmax",
        "scipy",
        "from scipy.special import softmax as sp\ndef softmax(x):\n    x = np.asarray(x, dtype=float)\n    return sp(x, axis=-1)",
    ),
    mistake(
        "softmax",
        "library, profile hook removed and restored",
        "import sys\nfrom transformer_math.softmax import softmax as lib\ndef softmax(x):\n    x = np.asarray(x, dtype=float)\n    hook = sys.getprofile()\n    sys.setprofile(None)\n    out = lib(x)\n    sys.setprofile(hook)\n    return out",
    ),
    mistake(
        "softmax",
        "library, via a thread",
        "import threading\nfrom transformer_math.softmax import softmax as lib\ndef softmax(x):\n    x = np.asarray(x, dtype=float)\n    box = []\n    t = threading.Thread(target=lambda: box.append(lib(x)))\n    t.start(); t.join()\n    return box[0]",
    ),
    mistake(
        "softmax",
        "library source exec'd into a module namespace",
        "import inspect, types\nimport transformer_math.softmax as tms\nns = dict(vars(tms))\nexec(compile(inspect.getsource(tms), tms.__file__, 'exec'), ns)\nlib = ns['softmax']\ndef softmax(x):\n    x = np.asarray(x, dtype=float)\n    return lib(x)",
    ),
    mistake(
        "softmax_with_temperature",
        "times T",
        "def softmax_with_temperature(x, temperature):\n    return softmax(np.asarray(x, dtype=float) * temperature)",
    ),
    mistake(
        "softmax_with_temperature", "ignores T", "def softmax_with_temperature(x, temperature):\n    return softmax(x)"
    ),
    mistake(
        "softmax_with_temperature",
        "p ** (1/T) not renormalised",
        "def softmax_with_temperature(x, temperature):\n    return softmax(x) ** (1.0 / temperature)",
    ),
    mistake(
        "softmax_with_temperature",
        "subtracts T",
        "def softmax_with_temperature(x, temperature):\n    return softmax(np.asarray(x, dtype=float) - temperature)",
    ),
    mistake(
        "softmax_with_temperature",
        "naive exp(x/T)",
        "def softmax_with_temperature(x, temperature):\n    e = np.exp(np.asarray(x, dtype=float) / temperature)\n    return e / e.sum(axis=-1, keepdims=True)",
    ),
    mistake(
        "softmax_with_temperature",
        "divides the probabilities by T",
        "def softmax_with_temperature(x, temperature):\n    p = softmax(x) / temperature\n    return p / p.sum(axis=-1, keepdims=True)",
    ),
    mistake(
        "softmax_with_temperature",
        "x / T with integer division",
        "def softmax_with_temperature(x, temperature):\n    return softmax(np.asarray(x) // temperature)",
    ),
    mistake(
        "softmax_with_temperature",
        "library softmax with temperature",
        "from transformer_math.softmax import softmax as lib\ndef softmax_with_temperature(x, temperature):\n    return lib(np.asarray(x, dtype=float), temperature=temperature)",
    ),
    mistake(
        "softmax_with_temperature",
        "sum over the whole array",
        "def softmax_with_temperature(x, temperature):\n    z = np.asarray(x, dtype=float) / temperature\n    e = np.exp(z - z.max())\n    return e / e.sum()",
    ),
    mistake(
        "softmax",
        "returns an object whose __array__ calls the library when the check converts it",
        "from transformer_math.softmax import softmax as lib\nclass Later:\n    def __init__(self, x):\n        self.x = x\n    def __array__(self, dtype=None, copy=None):\n        return lib(self.x)\ndef softmax(x):\n    return Later(np.array(x, dtype=float))\n",
    ),
    mistake(
        "softmax",
        "library, profile hook removed and restored (alias of sys)",
        "import sys as _s\nfrom transformer_math.softmax import softmax as lib\n_off = getattr(_s, 'setprofile')\ndef softmax(x):\n    x = np.asarray(x, dtype=float)\n    h = _s.getprofile(); _off(None)\n    try:\n        return lib(x)\n    finally:\n        _off(h)\n",
    ),
    mistake(
        "softmax",
        "library run in a subprocess",
        "import os, json\ndef softmax(x):\n    x = np.asarray(x, dtype=float)\n    out = os.popen(\"python3 -c 'import json,sys; import numpy as np; from transformer_math.softmax import softmax; print(json.dumps(softmax(np.array(json.loads(sys.argv[1]))).tolist()))' \" + repr(json.dumps(x.tolist()))).read()\n    return np.array(json.loads(out))\n",
    ),
    mistake(
        "softmax",
        "lookup table: inputs captured during failed checks, answered by the library outside the guard",
        'import contextlib, io\nfrom transformer_math.softmax import softmax as lib\nCAP, TABLE = [], {}\ndef key(x):\n    a = np.asarray(x, dtype=float)\n    return (a.shape, a.tobytes())\ndef softmax(x):\n    k = key(x)\n    if k in TABLE:\n        return TABLE[k]\n    CAP.append(np.array(x, dtype=float))\n    return np.zeros(np.shape(x))\nfor _ in range(15):\n    with contextlib.redirect_stdout(io.StringIO()):\n        check("softmax", softmax)\n    for c in CAP:\n        TABLE[key(c)] = lib(c)\n',
    ),
]
RIGHT += [
    right("prediction", "inf", 'prediction = "inf"'),
    right("prediction", "0 with spaces", 'prediction = " 0 "'),
    right(
        "softmax",
        "log-sum-exp",
        "def softmax(x):\n    x = np.asarray(x, dtype=float)\n    m = x.max(axis=-1, keepdims=True)\n    lse = m + np.log(np.exp(x - m).sum(axis=-1, keepdims=True))\n    return np.exp(x - lse)",
    ),
    right(
        "softmax",
        "row loop over a 2-D reshape",
        "def softmax(x):\n    x = np.asarray(x, dtype=float)\n    flat = x.reshape(-1, x.shape[-1])\n    out = np.empty_like(flat)\n    for r, row in enumerate(flat):\n        e = np.exp(row - row.max())\n        out[r] = e / e.sum()\n    return out.reshape(x.shape)",
    ),
    right(
        "softmax",
        "divide by exp of the differences (1/sum exp(x_j - x_i))",
        "def softmax(x):\n    x = np.asarray(x, dtype=float)\n    m = np.max(x, axis=-1, keepdims=True)\n    e = np.exp(x - m)\n    return e * (1.0 / e.sum(axis=-1, keepdims=True))",
    ),
    right(
        "softmax",
        "float32 kept: exp in float32 overflows",
        "def softmax(x):\n    x = np.asarray(x)\n    x = x.astype(np.result_type(x, np.float32))\n    e = np.exp(x - x.max(axis=-1, keepdims=True))\n    return (e / e.sum(axis=-1, keepdims=True))",
    ),
    right(
        "softmax_with_temperature",
        "p ** (1/T) renormalised",
        "def softmax_with_temperature(x, temperature):\n    p = softmax(x) ** (1.0 / temperature)\n    return p / p.sum(axis=-1, keepdims=True)",
    ),
    right(
        "softmax_with_temperature",
        "stable softmax written again, with T",
        "def softmax_with_temperature(x, temperature):\n    z = np.asarray(x, dtype=float) / temperature\n    e = np.exp(z - z.max(axis=-1, keepdims=True))\n    return e / e.sum(axis=-1, keepdims=True)",
    ),
]

# Attempts to get past the checks: the library's own function handed to the check under the exercise's name.
MISTAKES += [
    mistake(
        "softmax",
        "the library's softmax imported under the exercise's name",
        "from transformer_math.softmax import softmax",
        append=True,
    ),
]

# The library's source exec'd into the notebook (its imports of the library too) in place of the learner's code.
MISTAKES += [
    mistake(
        "softmax",
        "the library's softmax, its source exec'd into the notebook",
        vendored("def softmax(x):\n    return _sm.softmax(np.asarray(x, dtype=float))", _sm="transformer_math.softmax"),
    ),
]

# The library's code copied and edited a little, so that it compiles to other bytecode: still a copy.
EDITED_COPY = """import inspect, re
import transformer_math.softmax as _tms
exec(inspect.getsource(_tms.summing))
_source = re.sub(r"\\b_softmax\\b", "_mine", inspect.getsource(_tms._softmax))
exec(re.sub(r'(\\"\\"\\"\\n)', r"\\1    _unused = 0\\n", _source, count=1))


def softmax(x):
    return _mine(np.array(x, dtype=float))
"""
MISTAKES += [mistake("softmax", "the library's _softmax copied, renamed, with a line that does nothing", EDITED_COPY)]

# A table of the fixed cases, answered by the check's own reference when the cell runs, with the formula as written
# behind it: the scores that overflow are drawn anew at every run, out of the table's reach.
MISTAKES += [
    mistake(
        "softmax",
        "a table of the fixed cases, the formula as written behind it",
        behind_a_table(
            "softmax",
            "softmax",
            "def softmax(x):\n    hit = _T.get(_key([x]))\n    if hit is not None:\n        return _np.array(hit)\n"
            "    e = np.exp(np.asarray(x, dtype=float))\n    return e / e.sum(axis=-1, keepdims=True)\n",
        ),
    ),
]

# A stable softmax whose float64 result is cast to float32: its error (about 1e-7) is under the tolerance.
MISTAKES += [
    mistake(
        "softmax",
        "a float32 result for float64 scores",
        HEAD
        + "    e = np.exp(x - x.max(axis=-1, keepdims=True))\n    return (e / e.sum(axis=-1, keepdims=True)).astype(np.float32)",
    ),
]

# float32 kept in float32 through a log-sum-exp: x - logsumexp(x) near 200 rounds in float32, within the case's tolerance.
RIGHT += [
    right(
        "softmax",
        "float32 kept, by logaddexp.reduce",
        "def softmax(x):\n    x = np.asarray(x)\n    if x.dtype.kind != 'f':\n        x = x.astype(float)\n"
        "    return np.exp(x - np.logaddexp.reduce(x, axis=-1, keepdims=True))",
    )
]

# The scores rounded to float32 before dividing by T: scores near 2e5 move by up to 0.008 there.
MISTAKES += [
    mistake(
        "softmax_with_temperature",
        "the scores rounded to float32",
        "def softmax_with_temperature(x, temperature):\n    x = np.asarray(x, dtype=np.float32).astype(float)\n"
        "    return softmax(x / temperature)",
    )
]
