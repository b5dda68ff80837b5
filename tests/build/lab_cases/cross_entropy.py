"""Cross entropy: the typical mistakes and other right answers."""

from __future__ import annotations

from tests.build.lab_cases import behind_a_table, mistake, right, vendored

CE = "def cross_entropy(y_true, y_pred):\n    y_true = np.asarray(y_true, dtype=float)\n    y_pred = np.asarray(y_pred, dtype=float)\n"
FL = "def cross_entropy_from_logits(logits, targets):\n    z = np.asarray(logits, dtype=float)\n    targets = np.asarray(targets)\n"
LSE = "    m = np.max(z, axis=-1, keepdims=True)\n    lse = m[..., 0] + np.log(np.sum(np.exp(z - m), axis=-1))\n"
PICK = "    picked = np.take_along_axis(z, targets[..., None], axis=-1)[..., 0]\n"

MISTAKES = [
    mistake("loss_at_one_half", "log base 10", "loss_at_one_half = np.log10(2)"),
    mistake("loss_at_one_half", "bits", "loss_at_one_half = 1.0"),
    mistake("loss_at_one_half", "no minus sign", "loss_at_one_half = np.log(0.5)"),
    mistake(
        "cross_entropy",
        "no minus sign",
        CE
        + "    with np.errstate(divide='ignore'):\n        t = np.where(y_true > 0, y_true * np.log(np.where(y_true > 0, y_pred, 1.0)), 0.0)\n    return float(np.mean(np.sum(t, axis=-1)))",
    ),
    mistake(
        "cross_entropy",
        "0 log 0 left as nan",
        CE + "    return float(np.mean(-np.sum(y_true * np.log(y_pred), axis=-1)))",
    ),
    mistake(
        "cross_entropy",
        "clipped as the old recipes do",
        CE
        + "    y_pred = np.clip(y_pred, 1e-15, 1 - 1e-15)\n    return float(np.mean(-np.sum(y_true * np.log(y_pred), axis=-1)))",
    ),
    mistake(
        "cross_entropy",
        "summed over the batch",
        CE
        + "    safe = np.where(y_true > 0, y_pred, 1.0)\n    with np.errstate(divide='ignore'):\n        t = np.where(y_true > 0, y_true * np.log(safe), 0.0)\n    return float(-np.sum(t))",
    ),
    mistake(
        "cross_entropy",
        "the mean of every entry",
        CE
        + "    safe = np.where(y_true > 0, y_pred, 1.0)\n    with np.errstate(divide='ignore'):\n        t = np.where(y_true > 0, y_true * np.log(safe), 0.0)\n    return float(-np.mean(t))",
    ),
    mistake(
        "cross_entropy",
        "the arguments swapped",
        CE
        + "    safe = np.where(y_pred > 0, y_true, 1.0)\n    with np.errstate(divide='ignore'):\n        t = np.where(y_pred > 0, y_pred * np.log(safe), 0.0)\n    return float(np.mean(-np.sum(t, axis=-1)))",
    ),
    mistake(
        "cross_entropy",
        "the library",
        "from transformer_math import information\n\n\ndef cross_entropy(y_true, y_pred):\n    return information.cross_entropy(y_true, y_pred)",
    ),
    mistake("prediction", "a number", "prediction = 0.8"),
    mistake(
        "cross_entropy_from_logits",
        "no shift",
        FL + "    lse = np.log(np.sum(np.exp(z), axis=-1))\n" + PICK + "    return float(np.mean(lse - picked))",
    ),
    mistake(
        "cross_entropy_from_logits",
        "the log of a stable softmax",
        FL
        + "    e = np.exp(z - z.max(axis=-1, keepdims=True))\n    p = e / e.sum(axis=-1, keepdims=True)\n    with np.errstate(divide='ignore'):\n        return float(np.mean(-np.log(np.take_along_axis(p, targets[..., None], axis=-1))))",
    ),
    mistake(
        "cross_entropy_from_logits", "z[targets] takes rows", FL + LSE + "    return float(np.mean(lse - z[targets]))"
    ),
    mistake(
        "cross_entropy_from_logits",
        "summed over the positions",
        FL + LSE + PICK + "    return float(np.sum(lse - picked))",
    ),
    mistake(
        "cross_entropy_from_logits", "the sign of z_t", FL + LSE + PICK + "    return float(np.mean(lse + picked))"
    ),
    mistake(
        "cross_entropy_from_logits",
        "the shift forgotten in the result",
        FL
        + "    m = np.max(z, axis=-1, keepdims=True)\n    lse = np.log(np.sum(np.exp(z - m), axis=-1))\n"
        + PICK
        + "    return float(np.mean(lse - picked))",
    ),
    mistake(
        "cross_entropy_from_logits",
        "the library's log_softmax",
        "from transformer_math.softmax import log_softmax\n\n\n"
        + FL
        + "    return float(-np.mean(np.take_along_axis(log_softmax(z), targets[..., None], axis=-1)))",
    ),
]

RIGHT = [
    right("loss_at_one_half", "computed", "loss_at_one_half = -np.log(0.5)"),
    right(
        "cross_entropy",
        "only the positive terms, by a mask",
        CE
        + "    total = 0.0\n    rows = y_true.reshape(-1, y_true.shape[-1]), y_pred.reshape(-1, y_pred.shape[-1])\n    for t, p in zip(*rows):\n        keep = t > 0\n        with np.errstate(divide='ignore'):\n            total -= np.sum(t[keep] * np.log(p[keep]))\n    return total / len(rows[0])",
    ),
    right("prediction", "the other answer", 'prediction = "0.1"'),
    right(
        "cross_entropy_from_logits",
        "one-hot rows, logaddexp",
        FL
        + "    lse = np.logaddexp.reduce(z, axis=-1)\n    one_hot = np.eye(z.shape[-1])[targets]\n    return float(np.mean(lse - np.sum(one_hot * z, axis=-1)))",
    ),
]

# An outside instructor's attempts, each written without the reference solution in view: the mistakes
# learners make (and routes around the exercise), and other right answers.
MISTAKES += [
    mistake("loss_at_one_half", "log10", "loss_at_one_half = 0.3010"),
    mistake("loss_at_one_half", "bits", "loss_at_one_half = 1.0"),
    mistake("loss_at_one_half", "the sign", "loss_at_one_half = -0.6931"),
    mistake("loss_at_one_half", "1 - p", "loss_at_one_half = 0.5"),
    mistake(
        "cross_entropy",
        "plain formula: 0*log 0 = nan",
        "def cross_entropy(y_true, y_pred):\n    y_true = np.asarray(y_true, dtype=float)\n    y_pred = np.asarray(y_pred, dtype=float)\n    with np.errstate(all='ignore'):\n        return float(np.mean(-np.sum(y_true * np.log(y_pred), axis=-1)))",
    ),
    mistake(
        "cross_entropy",
        "clipping with 1e-12",
        "def cross_entropy(y_true, y_pred):\n    y_true = np.asarray(y_true, dtype=float)\n    y_pred = np.asarray(y_pred, dtype=float)\n    return float(np.mean(-np.sum(y_true * np.log(np.clip(y_pred, 1e-12, 1)), axis=-1)))",
    ),
    mistake(
        "cross_entropy",
        "adds 1e-9 inside the log",
        "def cross_entropy(y_true, y_pred):\n    y_true = np.asarray(y_true, dtype=float)\n    y_pred = np.asarray(y_pred, dtype=float)\n    return float(np.mean(-np.sum(y_true * np.log(y_pred + 1e-9), axis=-1)))",
    ),
    mistake(
        "cross_entropy",
        "mean over every entry",
        "def cross_entropy(y_true, y_pred):\n    y_true = np.asarray(y_true, dtype=float)\n    y_pred = np.asarray(y_pred, dtype=float)\n    safe = np.where(y_true > 0, y_pred, 1.0)\n    with np.errstate(divide='ignore'):\n        return float(-np.mean(np.where(y_true > 0, y_true * np.log(safe), 0.0)))",
    ),
    mistake(
        "cross_entropy",
        "sum over the batch, not mean",
        "def cross_entropy(y_true, y_pred):\n    y_true = np.asarray(y_true, dtype=float)\n    y_pred = np.asarray(y_pred, dtype=float)\n    safe = np.where(y_true > 0, y_pred, 1.0)\n    with np.errstate(divide='ignore'):\n        return float(-np.sum(np.where(y_true > 0, y_true * np.log(safe), 0.0)))",
    ),
    mistake(
        "cross_entropy",
        "one-hot only: picks argmax of y_true",
        "def cross_entropy(y_true, y_pred):\n    y_true = np.asarray(y_true, dtype=float)\n    y_pred = np.asarray(y_pred, dtype=float)\n    t = y_true.argmax(axis=-1)\n    with np.errstate(divide='ignore'):\n        return float(-np.mean(np.log(np.take_along_axis(y_pred, t[..., None], -1))))",
    ),
    mistake(
        "cross_entropy",
        "arguments swapped",
        "def cross_entropy(y_true, y_pred):\n    y_true = np.asarray(y_true, dtype=float)\n    y_pred = np.asarray(y_pred, dtype=float)\n    safe = np.where(y_pred > 0, y_true, 1.0)\n    with np.errstate(divide='ignore', invalid='ignore'):\n        return float(np.mean(-np.sum(np.where(y_pred > 0, y_pred * np.log(safe), 0.0), axis=-1)))",
    ),
    mistake(
        "cross_entropy",
        "log2",
        "def cross_entropy(y_true, y_pred):\n    y_true = np.asarray(y_true, dtype=float)\n    y_pred = np.asarray(y_pred, dtype=float)\n    safe = np.where(y_true > 0, y_pred, 1.0)\n    with np.errstate(divide='ignore'):\n        return float(np.mean(-np.sum(np.where(y_true > 0, y_true * np.log2(safe), 0.0), axis=-1)))",
    ),
    mistake(
        "cross_entropy",
        "library",
        "from transformer_math.information import cross_entropy as ce\ndef cross_entropy(y_true, y_pred):\n    y_true = np.asarray(y_true, dtype=float)\n    y_pred = np.asarray(y_pred, dtype=float)\n    return ce(y_true, y_pred)",
    ),
    mistake(
        "cross_entropy",
        "nan replaced by 0 everywhere (inf lost too)",
        "def cross_entropy(y_true, y_pred):\n    y_true = np.asarray(y_true, dtype=float)\n    y_pred = np.asarray(y_pred, dtype=float)\n    with np.errstate(all='ignore'):\n        t = y_true * np.log(y_pred)\n    t = np.nan_to_num(t, nan=0.0, neginf=-1e300)\n    return float(np.mean(-np.sum(t, axis=-1)))",
    ),
    mistake("prediction", "a float", "prediction = 0.8"),
    mistake(
        "cross_entropy_from_logits",
        "log of the stable softmax",
        "def cross_entropy_from_logits(logits, targets):\n    z = np.asarray(logits, dtype=float)\n    targets = np.asarray(targets)\n    e = np.exp(z - z.max(axis=-1, keepdims=True)); p = e / e.sum(axis=-1, keepdims=True)\n    with np.errstate(divide='ignore'):\n        return float(-np.mean(np.log(np.take_along_axis(p, targets[..., None], -1))))",
    ),
    mistake(
        "cross_entropy_from_logits",
        "no shift",
        "def cross_entropy_from_logits(logits, targets):\n    z = np.asarray(logits, dtype=float)\n    targets = np.asarray(targets)\n    with np.errstate(over='ignore'):\n        lse = np.log(np.exp(z).sum(axis=-1))\n    return float(np.mean(lse - np.take_along_axis(z, targets[..., None], -1)[..., 0]))",
    ),
    mistake(
        "cross_entropy_from_logits",
        "sum not mean over positions",
        "def cross_entropy_from_logits(logits, targets):\n    z = np.asarray(logits, dtype=float)\n    targets = np.asarray(targets)\n    m = z.max(axis=-1, keepdims=True)\n    lse = m[..., 0] + np.log(np.exp(z - m).sum(axis=-1))\n    return float(np.sum(lse - np.take_along_axis(z, targets[..., None], -1)[..., 0]))",
    ),
    mistake(
        "cross_entropy_from_logits",
        "z[targets] picks rows",
        "def cross_entropy_from_logits(logits, targets):\n    z = np.asarray(logits, dtype=float)\n    targets = np.asarray(targets)\n    m = z.max(axis=-1, keepdims=True)\n    lse = m[..., 0] + np.log(np.exp(z - m).sum(axis=-1))\n    return float(np.mean(lse - z[..., targets]))",
    ),
    mistake(
        "cross_entropy_from_logits",
        "max added back with a wrong sign",
        "def cross_entropy_from_logits(logits, targets):\n    z = np.asarray(logits, dtype=float)\n    targets = np.asarray(targets)\n    m = z.max(axis=-1, keepdims=True)\n    lse = -m[..., 0] + np.log(np.exp(z - m).sum(axis=-1))\n    return float(np.mean(lse - np.take_along_axis(z, targets[..., None], -1)[..., 0]))",
    ),
    mistake(
        "cross_entropy_from_logits",
        "forgets to add the max back",
        "def cross_entropy_from_logits(logits, targets):\n    z = np.asarray(logits, dtype=float)\n    targets = np.asarray(targets)\n    m = z.max(axis=-1, keepdims=True)\n    lse = np.log(np.exp(z - m).sum(axis=-1))\n    return float(np.mean(lse - np.take_along_axis(z, targets[..., None], -1)[..., 0]))",
    ),
    mistake(
        "cross_entropy_from_logits",
        "clipped log softmax",
        "def cross_entropy_from_logits(logits, targets):\n    z = np.asarray(logits, dtype=float)\n    targets = np.asarray(targets)\n    e = np.exp(z - z.max(axis=-1, keepdims=True)); p = e / e.sum(axis=-1, keepdims=True)\n    return float(-np.mean(np.log(np.clip(np.take_along_axis(p, targets[..., None], -1), 1e-12, 1))))",
    ),
    mistake(
        "cross_entropy_from_logits",
        "max over the whole array",
        "def cross_entropy_from_logits(logits, targets):\n    z = np.asarray(logits, dtype=float)\n    targets = np.asarray(targets)\n    m = z.max()\n    lse = m + np.log(np.exp(z - m).sum(axis=-1))\n    with np.errstate(divide='ignore'):\n        return float(np.mean(lse - np.take_along_axis(z, targets[..., None], -1)[..., 0]))",
    ),
    mistake(
        "cross_entropy_from_logits",
        "library cross_entropy via importlib",
        "import importlib\ndef cross_entropy_from_logits(logits, targets):\n    z = np.asarray(logits, dtype=float)\n    targets = np.asarray(targets)\n    info = importlib.import_module('transformer_math.information')\n    return info.cross_entropy_from_logits(z, targets)",
    ),
    mistake(
        "cross_entropy_from_logits",
        "the check's own reference",
        "from transformer_math.labs.cross_entropy import reference_from_logits as r\ndef cross_entropy_from_logits(logits, targets):\n    z = np.asarray(logits, dtype=float)\n    targets = np.asarray(targets)\n    return r(z, targets)",
    ),
]
RIGHT += [
    right("loss_at_one_half", "np.log(2)", "loss_at_one_half = float(np.log(2))"),
    right("loss_at_one_half", "0.69315 (one more decimal)", "loss_at_one_half = 0.69315"),
    right(
        "cross_entropy",
        "masked log with a boolean index per row",
        "def cross_entropy(y_true, y_pred):\n    y_true = np.asarray(y_true, dtype=float)\n    y_pred = np.asarray(y_pred, dtype=float)\n    logs = np.zeros_like(y_pred)\n    pos = y_true > 0\n    with np.errstate(divide='ignore'):\n        logs[pos] = np.log(y_pred[pos])\n    return float(np.mean(-np.sum(y_true * logs, axis=-1)))",
    ),
    right(
        "cross_entropy",
        "np.log with where=",
        "def cross_entropy(y_true, y_pred):\n    y_true = np.asarray(y_true, dtype=float)\n    y_pred = np.asarray(y_pred, dtype=float)\n    logs = np.log(y_pred, out=np.zeros_like(y_pred), where=y_true > 0)\n    return float(-np.sum(y_true * logs, axis=-1).mean())",
    ),
    right(
        "cross_entropy",
        "xlogy-like via a loop over rows",
        "def cross_entropy(y_true, y_pred):\n    y_true = np.asarray(y_true, dtype=float)\n    y_pred = np.asarray(y_pred, dtype=float)\n    flat_t = y_true.reshape(-1, y_true.shape[-1]); flat_p = y_pred.reshape(-1, y_pred.shape[-1])\n    total = 0.0\n    for t, p in zip(flat_t, flat_p):\n        for a, b in zip(t, p):\n            if a > 0:\n                total += -a * (np.log(b) if b > 0 else -np.inf)\n    return total / len(flat_t)",
    ),
    right(
        "cross_entropy",
        "nansum: only 0*log 0 is nan",
        "def cross_entropy(y_true, y_pred):\n    y_true = np.asarray(y_true, dtype=float)\n    y_pred = np.asarray(y_pred, dtype=float)\n    with np.errstate(all='ignore'):\n        return float(np.mean(-np.nansum(y_true * np.log(y_pred), axis=-1)))",
    ),
    right("prediction", "0.1", 'prediction = "0.1"'),
    right(
        "cross_entropy_from_logits",
        "log-softmax then pick",
        "def cross_entropy_from_logits(logits, targets):\n    z = np.asarray(logits, dtype=float)\n    targets = np.asarray(targets)\n    m = z.max(axis=-1, keepdims=True)\n    logp = z - m - np.log(np.exp(z - m).sum(axis=-1, keepdims=True))\n    return float(-np.mean(np.take_along_axis(logp, targets[..., None], axis=-1)))",
    ),
    right(
        "cross_entropy_from_logits",
        "flattened rows and fancy index",
        "def cross_entropy_from_logits(logits, targets):\n    z = np.asarray(logits, dtype=float)\n    targets = np.asarray(targets)\n    V = z.shape[-1]\n    Z = z.reshape(-1, V); t = targets.reshape(-1)\n    m = Z.max(axis=1)\n    lse = m + np.log(np.exp(Z - m[:, None]).sum(axis=1))\n    return float(np.mean(lse - Z[np.arange(len(t)), t]))",
    ),
    right(
        "cross_entropy_from_logits",
        "np.logaddexp.reduce",
        "def cross_entropy_from_logits(logits, targets):\n    z = np.asarray(logits, dtype=float)\n    targets = np.asarray(targets)\n    lse = np.logaddexp.reduce(z, axis=-1)\n    return float(np.mean(lse - np.take_along_axis(z, targets[..., None], -1)[..., 0]))",
    ),
    right(
        "cross_entropy_from_logits",
        "float32 kept: exp of float32 and a sum in float32",
        "def cross_entropy_from_logits(logits, targets):\n    z = np.asarray(logits)\n    targets = np.asarray(targets)\n    m = z.max(axis=-1, keepdims=True)\n    lse = m[..., 0] + np.log(np.exp(z - m).sum(axis=-1))\n    return float(np.mean(lse - np.take_along_axis(z, targets[..., None], -1)[..., 0]))",
    ),
]

# Attempts to get past the checks.
MISTAKES += [
    mistake(
        "cross_entropy",
        "the mean kept as an array of shape (1, 1)",
        CE
        + "    with np.errstate(divide='ignore', invalid='ignore'):\n        t = np.where(y_true > 0, -y_true * np.log(y_pred), 0.0)\n    rows = t.sum(axis=-1, keepdims=True).reshape(-1, 1)\n    return np.mean(rows, axis=0, keepdims=True)",
    ),
]
RIGHT += [
    right(
        "cross_entropy",
        "an array of shape () from np.mean",
        CE
        + "    with np.errstate(divide='ignore', invalid='ignore'):\n        t = np.where(y_true > 0, -y_true * np.log(np.where(y_true > 0, y_pred, 1.0)), 0.0)\n    return np.asarray(np.mean(t.sum(axis=-1)))",
    ),
]
MISTAKES += [
    mistake(
        "cross_entropy",
        "SciPy's xlogy (a ufunc: NumPy only means SciPy too)",
        "from scipy.special import xlogy\n\n\n"
        + CE
        + "    return float(np.mean(-np.sum(xlogy(y_true, y_pred), axis=-1)))",
    ),
    mistake(
        "cross_entropy",
        "SciPy's xlogy through the module",
        "import scipy.special\n\n\n"
        + CE
        + "    return float(np.mean(-np.sum(scipy.special.xlogy(y_true, y_pred), axis=-1)))",
    ),
]

# Attempts to get past the checks: the library's own function handed to the check under the exercise's name.
MISTAKES += [
    mistake(
        "cross_entropy",
        "the library's cross_entropy imported under the exercise's name",
        "from transformer_math.information import cross_entropy",
        append=True,
    ),
    mistake(
        "cross_entropy_from_logits",
        "the library's cross_entropy_from_logits imported under the exercise's name",
        "from transformer_math.information import cross_entropy_from_logits",
        append=True,
    ),
]

# The library's source exec'd into the notebook (its imports of the library too) in place of the learner's code.
MISTAKES += [
    mistake(
        "cross_entropy_from_logits",
        "the library's cross_entropy_from_logits, its source exec'd into the notebook",
        vendored(
            "def cross_entropy_from_logits(logits, targets):\n    return _inf.cross_entropy_from_logits(logits, targets)",
            _inf="transformer_math.information",
        ),
    ),
]

# A table of the fixed cases, answered by the check's own reference when the cell runs, with the log of the formula
# as written behind it: the logits that overflow are drawn anew at every run.
MISTAKES += [
    mistake(
        "cross_entropy_from_logits",
        "a table of the fixed cases, the log of the formula as written behind it",
        behind_a_table(
            "cross_entropy",
            "cross_entropy_from_logits",
            "def cross_entropy_from_logits(logits, targets):\n"
            "    hit = _T.get(_key([logits, targets]))\n"
            "    if hit is not None:\n"
            "        return float(hit)\n"
            "    z, t = np.asarray(logits, dtype=float), np.asarray(targets)\n"
            "    p = np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)\n"
            "    return float(-np.mean(np.log(np.take_along_axis(p, t[..., None], axis=-1))))\n",
        ),
    ),
]

# A batch of sequences with a finite loss: a mean over the first axis alone is refused there.
MISTAKES += [
    mistake(
        "cross_entropy",
        "the batch mean divided by the first axis only",
        "def cross_entropy(y_true, y_pred):\n    y, p = np.asarray(y_true, dtype=float), np.asarray(y_pred, dtype=float)\n"
        "    safe = np.where(y > 0, p, 1.0)\n    with np.errstate(divide='ignore'):\n"
        "        t = np.where(y > 0, y * np.log(safe), 0.0)\n"
        "    return float(-t.sum() / len(y)) if y.ndim > 1 else float(-t.sum())",
    )
]

# The probabilities rounded to float32, the loss returned as a float: refused by a probability below 1e-50 at the
# target, which float32 holds as 0 (a loss of +inf where the right one is finite).
MISTAKES += [
    mistake(
        "cross_entropy",
        "the probabilities rounded to float32",
        CE
        + "    y_pred = y_pred.astype(np.float32)\n"
        + "    safe = np.where(y_true > 0, y_pred, 1.0)\n"
        + "    with np.errstate(divide='ignore'):\n"
        + "        terms = np.where(y_true > 0, y_true * np.log(safe), 0.0)\n"
        + "    return float(np.mean(-np.sum(terms, axis=-1)))",
    ),
]

# No shift, the overflow put off by np.longdouble: e^z overflows it too past 11400.
MISTAKES += [
    mistake(
        "cross_entropy_from_logits",
        "no shift, in np.longdouble",
        "def cross_entropy_from_logits(logits, targets):\n    z = np.asarray(logits, dtype=float).astype(np.longdouble)\n"
        "    lse = np.log(np.sum(np.exp(z), axis=-1))\n"
        "    picked = np.take_along_axis(z, np.asarray(targets)[..., None], -1)[..., 0]\n"
        "    return float(np.mean(lse - picked))",
    )
]
