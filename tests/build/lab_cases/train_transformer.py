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

# An outside instructor's attempts, each written without the reference solution in view: the mistakes
# learners make (and routes around the exercise), and other right answers.
MISTAKES += [
    mistake(
        "make_example", "not reversed", "def make_example(digits):\n    return list(digits) + [SEP] + list(digits)"
    ),
    mistake(
        "make_example",
        ".reverse() changes the caller's list",
        "def make_example(digits):\n    d = digits if isinstance(digits, list) else list(digits)\n    first = list(d)\n    d.reverse()\n    return first + [SEP] + d",
    ),
    mistake(
        "make_example",
        "list + for a tuple or an array",
        "def make_example(digits):\n    return digits + [SEP] + digits[::-1]",
    ),
    mistake(
        "make_example",
        "separator at the end",
        "def make_example(digits):\n    d = list(digits)\n    return d + d[::-1] + [SEP]",
    ),
    mistake(
        "make_example",
        "hard-coded four digits",
        "def make_example(digits):\n    d = [int(x) for x in digits][:4]\n    return d + [SEP] + [d[3], d[2], d[1], d[0]] if len(d) == 4 else d + [SEP] + d[::-1]",
    ),
    mistake(
        "make_example",
        "separator 4",
        "def make_example(digits):\n    d = [int(x) for x in digits]\n    return d + [4] + d[::-1]",
    ),
    mistake(
        "split",
        "ignores the order",
        "def split(seqs, order, n_train):\n    seqs = np.asarray(seqs)\n    return seqs[:n_train], seqs[n_train:]",
    ),
    mistake(
        "split",
        "off by one",
        "def split(seqs, order, n_train):\n    seqs = np.asarray(seqs)\n    return seqs[order[:n_train]], seqs[order[n_train + 1:]]",
    ),
    mistake(
        "split",
        "reshuffles with its own generator",
        "def split(seqs, order, n_train):\n    seqs = np.asarray(seqs)\n    o = np.random.default_rng(0).permutation(len(seqs))\n    return seqs[o[:n_train]], seqs[o[n_train:]]",
    ),
    mistake(
        "split",
        "the order's values as a cut (order sorted)",
        "def split(seqs, order, n_train):\n    seqs = np.asarray(seqs)\n    o = np.sort(order)\n    return seqs[o[:n_train]], seqs[o[n_train:]]",
    ),
    mistake(
        "split",
        "returns the indices",
        "def split(seqs, order, n_train):\n    return np.asarray(order[:n_train]), np.asarray(order[n_train:])",
    ),
    mistake(
        "split",
        "test and train swapped",
        "def split(seqs, order, n_train):\n    seqs = np.asarray(seqs)\n    return seqs[order[n_train:]], seqs[order[:n_train]]",
    ),
    mistake(
        "shift", "along the batch axis", "def shift(seqs):\n    seqs = np.asarray(seqs)\n    return seqs[:-1], seqs[1:]"
    ),
    mistake(
        "shift",
        "inputs and targets swapped",
        "def shift(seqs):\n    seqs = np.asarray(seqs)\n    return seqs[:, 1:], seqs[:, :-1]",
    ),
    mistake(
        "shift",
        "np.roll (wraps around)",
        "def shift(seqs):\n    seqs = np.asarray(seqs)\n    return seqs, np.roll(seqs, -1, axis=1)",
    ),
    mistake(
        "shift",
        "targets the same as inputs",
        "def shift(seqs):\n    seqs = np.asarray(seqs)\n    return seqs[:, :-1], seqs[:, :-1]",
    ),
    mistake(
        "answer_accuracy",
        "every position",
        "def answer_accuracy(params, seqs):\n    seqs = np.asarray(seqs)\n    logits, _ = forward(params, seqs[:, :-1], n_heads=2)\n    return np.mean(logits.argmax(-1) == seqs[:, 1:])",
    ),
    mistake(
        "answer_accuracy",
        "off by one: logits[:, 5:] vs seqs[:, 6:]",
        "def answer_accuracy(params, seqs):\n    seqs = np.asarray(seqs)\n    logits, _ = forward(params, seqs[:, :-1], n_heads=2)\n    return np.mean(logits[:, 5:].argmax(-1) == seqs[:, 6:])",
    ),
    mistake(
        "answer_accuracy",
        "off by one the other way: logits[:, 4:] vs seqs[:, 4:8]",
        "def answer_accuracy(params, seqs):\n    seqs = np.asarray(seqs)\n    logits, _ = forward(params, seqs[:, :-1], n_heads=2)\n    return np.mean(logits[:, 4:].argmax(-1) == seqs[:, 4:8])",
    ),
    mistake(
        "answer_accuracy",
        "argmax over the positions",
        "def answer_accuracy(params, seqs):\n    seqs = np.asarray(seqs)\n    logits, _ = forward(params, seqs[:, :-1], n_heads=2)\n    return np.mean(logits[:, 4:].argmax(1)[:, None] == seqs[:, 5:])",
    ),
    mistake(
        "answer_accuracy",
        "whole sequences right, not digits",
        "def answer_accuracy(params, seqs):\n    seqs = np.asarray(seqs)\n    logits, _ = forward(params, seqs[:, :-1], n_heads=2)\n    return np.mean(np.all(logits[:, 4:].argmax(-1) == seqs[:, 5:], axis=1))",
    ),
    mistake(
        "answer_accuracy",
        "the count, not the fraction",
        "def answer_accuracy(params, seqs):\n    seqs = np.asarray(seqs)\n    logits, _ = forward(params, seqs[:, :-1], n_heads=2)\n    return np.sum(logits[:, 4:].argmax(-1) == seqs[:, 5:])",
    ),
    mistake(
        "answer_accuracy",
        "greedy generation with the library",
        "from transformer_math.transformer import generate as gen\ndef answer_accuracy(params, seqs):\n    seqs = np.asarray(seqs)\n    out = np.array([gen(params, list(s[:5]), n_new=4, n_heads=2) for s in seqs])\n    return np.mean(out[:, 5:] == seqs[:, 5:])",
    ),
    mistake("prediction", "a misspelt word", 'prediction = {"one head": "reverse", "no positions": "fails"}'),
    mistake(
        "copy_any_digit",
        "position by position",
        "def copy_any_digit(seqs):\n    seqs = np.asarray(seqs)\n    return np.mean(seqs[:, :4] == seqs[:, 5:])",
    ),
    mistake(
        "copy_any_digit",
        "is the digit in the input at all",
        "def copy_any_digit(seqs):\n    seqs = np.asarray(seqs)\n    return np.mean([[a in s[:4] for a in s[5:]] for s in seqs])",
    ),
    mistake(
        "copy_any_digit",
        "the separator among the inputs",
        "def copy_any_digit(seqs):\n    seqs = np.asarray(seqs)\n    return np.mean(seqs[:, None, :5] == seqs[:, 5:, None])",
    ),
    mistake(
        "copy_any_digit",
        "the reversed position's digit (1 - every time)",
        "def copy_any_digit(seqs):\n    seqs = np.asarray(seqs)\n    return np.mean(seqs[:, 3::-1] == seqs[:, 5:])",
    ),
    mistake("copy_any_digit", "theoretical 0.4, not measured", "def copy_any_digit(seqs):\n    return 0.4"),
]
RIGHT += [
    right(
        "make_example",
        "tuple and reversed()",
        "def make_example(digits):\n    d = tuple(int(x) for x in digits)\n    return list(d) + [SEP] + list(reversed(d))",
    ),
    right(
        "make_example",
        "an array returned",
        "def make_example(digits):\n    d = np.asarray(digits)\n    return np.concatenate([d, [SEP], d[::-1]])",
    ),
    right(
        "split",
        "np.take",
        "def split(seqs, order, n_train):\n    seqs = np.asarray(seqs)\n    order = np.asarray(order)\n    return np.take(seqs, order[:n_train], axis=0), np.take(seqs, order[n_train:], axis=0)",
    ),
    right(
        "shift",
        "np.delete",
        "def shift(seqs):\n    seqs = np.asarray(seqs)\n    return np.delete(seqs, -1, axis=1), np.delete(seqs, 0, axis=1)",
    ),
    right(
        "answer_accuracy",
        "loop over the four answer positions",
        "def answer_accuracy(params, seqs):\n    seqs = np.asarray(seqs)\n    logits, _ = forward(params, seqs[:, :-1], n_heads=2)\n    right = 0\n    for k in range(4):\n        right += np.sum(logits[:, 4 + k].argmax(-1) == seqs[:, 5 + k])\n    return right / (4 * len(seqs))",
    ),
    right(
        "answer_accuracy",
        "softmax first, then argmax",
        "def answer_accuracy(params, seqs):\n    seqs = np.asarray(seqs)\n    logits, _ = forward(params, seqs[:, :-1], n_heads=2)\n    e = np.exp(logits - logits.max(-1, keepdims=True))\n    return float(np.mean((e / e.sum(-1, keepdims=True))[:, 4:8].argmax(-1) == seqs[:, 5:9]))",
    ),
    right("prediction", "both fail", 'prediction = {"one head": "fails", "no positions": "fails"}'),
    right(
        "copy_any_digit",
        "transposed comparison",
        "def copy_any_digit(seqs):\n    seqs = np.asarray(seqs)\n    return np.mean(seqs[:, :4][:, :, None] == seqs[:, 5:][:, None, :])",
    ),
    right(
        "copy_any_digit",
        "counts per answer digit / 4",
        "def copy_any_digit(seqs):\n    seqs = np.asarray(seqs)\n    return np.mean([[np.count_nonzero(s[:4] == a) / 4 for a in s[5:]] for s in seqs])",
    ),
]
