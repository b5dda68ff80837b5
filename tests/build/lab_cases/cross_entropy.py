"""Cross entropy: the typical mistakes and other right answers."""

from __future__ import annotations

from tests.build.lab_cases import mistake, right

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
