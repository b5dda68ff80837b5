"""Train the tiny Transformer: the typical mistakes and other right answers."""

from __future__ import annotations

from tests.build.lab_cases import mistake, right

ACC = "def answer_accuracy(params, seqs):\n    seqs = np.asarray(seqs)\n    logits, _ = forward(params, seqs[:, :-1], n_heads=2)\n"

MISTAKES = [
    mistake(
        "make_example", "not reversed", "def make_example(digits):\n    return list(digits) + [SEP] + list(digits)"
    ),
    mistake("make_example", "no separator", "def make_example(digits):\n    return list(digits) + list(digits)[::-1]"),
    mistake(
        "make_example",
        "reversed in place",
        "def make_example(digits):\n    first = list(digits)\n    digits.reverse()\n    return first + [SEP] + list(digits)",
    ),
    mistake(
        "make_example",
        "four digits, always",
        "def make_example(digits):\n    d = list(digits)\n    return d[:4] + [SEP] + [d[3], d[2], d[1], d[0]]",
    ),
    mistake(
        "split",
        "the order not used",
        "def split(seqs, order, n_train):\n    seqs = np.asarray(seqs)\n    return seqs[:n_train], seqs[n_train:]",
    ),
    mistake(
        "split",
        "every sequence held out",
        "def split(seqs, order, n_train):\n    seqs = np.asarray(seqs)\n    return seqs[order[:n_train]], seqs[order]",
    ),
    mistake(
        "split",
        "one off",
        "def split(seqs, order, n_train):\n    seqs = np.asarray(seqs)\n    return seqs[order[: n_train + 1]], seqs[order[n_train + 1 :]]",
    ),
    mistake(
        "split",
        "the order applied after the cut",
        "def split(seqs, order, n_train):\n    seqs = np.asarray(seqs)\n    return seqs[:n_train][order[:n_train] % max(n_train, 1)], seqs[n_train:]",
    ),
    mistake(
        "shift",
        "the targets not shifted",
        "def shift(seqs):\n    seqs = np.asarray(seqs)\n    return seqs[:, :-1], seqs[:, :-1]",
    ),
    mistake(
        "shift",
        "inputs and targets swapped",
        "def shift(seqs):\n    seqs = np.asarray(seqs)\n    return seqs[:, 1:], seqs[:, :-1]",
    ),
    mistake(
        "shift",
        "rows cut, not columns",
        "def shift(seqs):\n    seqs = np.asarray(seqs)\n    return seqs[:-1], seqs[1:]",
    ),
    mistake(
        "answer_accuracy",
        "every position counted",
        ACC + "    return np.mean(np.argmax(logits, axis=-1) == seqs[:, 1:])",
    ),
    mistake(
        "answer_accuracy",
        "one position off",
        ACC + "    return np.mean(np.argmax(logits[:, 4:], axis=-1) == seqs[:, 4:8])",
    ),
    mistake(
        "answer_accuracy",
        "right when every answer is right, wrong otherwise",
        ACC + "    return np.mean(np.argmax(logits[:, 4:], axis=-1) == seqs[:, 5:]) ** 0.25",
    ),
    mistake(
        "answer_accuracy",
        "a sequence counted right only when all four are",
        ACC + "    return np.mean(np.all(np.argmax(logits[:, 4:], axis=-1) == seqs[:, 5:], axis=-1))",
    ),
    mistake(
        "answer_accuracy",
        "the argmax over the positions",
        ACC + "    return np.mean(np.argmax(logits[:, 4:], axis=1) == seqs[:, 5:9].max())",
    ),
    mistake(
        "answer_accuracy",
        "the library's training loss for it",
        "from transformer_math.model import loss_and_grads\n\n\n"
        + ACC
        + "    loss, _ = loss_and_grads(params, seqs[:, :-1], seqs[:, 1:], 2)\n    return float(np.exp(-loss))",
    ),
    mistake("prediction", "a word not offered", 'prediction = {"one head": "yes", "no positions": "fails"}'),
    mistake("copy_any_digit", "the chance of a guess", "def copy_any_digit(seqs):\n    return 1 / 5"),
    mistake(
        "copy_any_digit",
        "the right position only",
        "def copy_any_digit(seqs):\n    seqs = np.asarray(seqs)\n    return np.mean(seqs[:, :4] == seqs[:, 5:])",
    ),
    mistake(
        "copy_any_digit",
        "any input digit at all, not the fraction",
        "def copy_any_digit(seqs):\n    seqs = np.asarray(seqs)\n    return np.mean(np.any(seqs[:, None, :4] == seqs[:, 5:, None], axis=-1))",
    ),
]

RIGHT = [
    right(
        "make_example",
        "a loop",
        "def make_example(digits):\n    tokens = [int(d) for d in digits] + [SEP]\n    for d in reversed(list(digits)):\n        tokens.append(int(d))\n    return tokens",
    ),
    right(
        "split",
        "np.take",
        "def split(seqs, order, n_train):\n    return np.take(seqs, order[:n_train], axis=0), np.take(seqs, order[n_train:], axis=0)",
    ),
    right(
        "shift",
        "np.delete",
        "def shift(seqs):\n    seqs = np.asarray(seqs)\n    return np.delete(seqs, -1, axis=1), np.delete(seqs, 0, axis=1)",
    ),
    right(
        "answer_accuracy",
        "counted, then divided",
        ACC + "    right = (logits[:, 4:].argmax(-1) == seqs[:, 5:]).sum()\n    return right / seqs[:, 5:].size",
    ),
    right("prediction", "other words", 'prediction = {"one head": "fails", "no positions": "reverses"}'),
    right(
        "copy_any_digit",
        "two loops",
        "def copy_any_digit(seqs):\n    fractions = [np.mean(np.asarray(s[:4]) == s[5 + k]) for s in np.asarray(seqs) for k in range(4)]\n    return float(np.mean(fractions))",
    ),
]
