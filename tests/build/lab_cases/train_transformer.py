"""Train the tiny Transformer: the typical mistakes and other right answers."""

from __future__ import annotations

from tests.build.lab_cases import mistake, right

DS = "def make_datasets(digits, order, n_train):\n"
ORDERED = "    order = np.asarray(order)\n    return seqs[order[:n_train]], seqs[order[n_train:]]"
SEQS = "    seqs = np.array([[*row, SEP, *row[::-1]] for row in map(list, digits)])\n"
IT = "def inputs_and_targets(seqs):\n    seqs = np.asarray(seqs)\n"
ACC = "def answer_accuracy(params, seqs):\n    seqs = np.asarray(seqs)\n    logits, _ = forward(params, seqs[:, :-1], n_heads=2)\n"

MISTAKES = [
    mistake(
        "make_datasets",
        "not reversed",
        DS + "    seqs = np.array([[*row, SEP, *row] for row in map(list, digits)])\n" + ORDERED,
    ),
    mistake(
        "make_datasets",
        "the separator at the end",
        DS + "    seqs = np.array([[*row, *row[::-1], SEP] for row in map(list, digits)])\n" + ORDERED,
    ),
    mistake(
        "make_datasets",
        "separator 4",
        DS + "    seqs = np.array([[*row, 4, *row[::-1]] for row in map(list, digits)])\n" + ORDERED,
    ),
    mistake(
        "make_datasets",
        "the order not used",
        DS + SEQS + "    return seqs[:n_train], seqs[n_train:]",
    ),
    mistake(
        "make_datasets",
        "the order sorted: the rows in their first order",
        DS + SEQS + "    order = np.sort(order)\n    return seqs[order[:n_train]], seqs[order[n_train:]]",
    ),
    mistake(
        "make_datasets",
        "one off at the cut",
        DS + SEQS + "    order = np.asarray(order)\n    return seqs[order[: n_train + 1]], seqs[order[n_train + 1 :]]",
    ),
    mistake(
        "make_datasets",
        "train and test swapped",
        DS + SEQS + "    order = np.asarray(order)\n    return seqs[order[n_train:]], seqs[order[:n_train]]",
    ),
    mistake(
        "make_datasets",
        "its own shuffle",
        DS
        + SEQS
        + "    order = np.random.default_rng(0).permutation(len(seqs))\n    return seqs[order[:n_train]], seqs[order[n_train:]]",
    ),
    mistake(
        "make_datasets",
        "the indices returned, not the sequences",
        DS + "    order = np.asarray(order)\n    return order[:n_train], order[n_train:]",
    ),
    mistake(
        "make_datasets",
        "four digits, always",
        DS
        + "    seqs = np.array([[r[0], r[1], r[2], r[3], SEP, r[3], r[2], r[1], r[0]] for r in np.asarray(digits)])\n"
        + ORDERED,
    ),
    mistake(
        "make_datasets",
        "the caller's rows reversed in place",
        DS
        + "    rows = [r if isinstance(r, list) else list(r) for r in digits]\n    seqs = []\n    for r in (np.asarray(digits) if isinstance(digits, np.ndarray) else rows):\n        first = list(r)\n        r[:] = r[::-1]\n        seqs.append(first + [SEP] + list(r))\n    seqs = np.array(seqs)\n"
        + ORDERED,
    ),
    mistake("loss_at_start", "the five digits only", "loss_at_start = 1.6094\nloss_floor = 0.6035"),
    mistake("loss_at_start", "in bits", "loss_at_start = 2.5850\nloss_floor = 0.6035"),
    mistake("loss_at_start", "the probability, not the loss", "loss_at_start = 1 / 6\nloss_floor = 0.6035"),
    mistake("loss_at_start", "the loss measured at step 0 of a run", "loss_at_start = 2.1565\nloss_floor = 0.6035"),
    mistake("loss_floor", "a perfect model: 0", "loss_at_start = 1.7918\nloss_floor = 0.0"),
    mistake("loss_floor", "token 0 counted as a target", "loss_at_start = 1.7918\nloss_floor = 4 / 8 * np.log(5)"),
    mistake("loss_floor", "six choices for a random digit", "loss_at_start = 1.7918\nloss_floor = 3 / 8 * np.log(6)"),
    mistake("loss_floor", "over nine positions", "loss_at_start = 1.7918\nloss_floor = 3 / 9 * np.log(5)"),
    mistake("loss_floor", "one random digit's cost", "loss_at_start = 1.7918\nloss_floor = np.log(5)"),
    mistake("inputs_and_targets", "inputs and targets swapped", IT + "    return seqs[:, 1:], seqs[:, :-1]"),
    mistake(
        "inputs_and_targets",
        "the suspect called",
        "def inputs_and_targets(seqs):\n    return suspect_inputs_and_targets(seqs)",
    ),
    mistake("inputs_and_targets", "the targets not shifted", IT + "    return seqs[:, :-1], seqs[:, :-1]"),
    mistake("inputs_and_targets", "cut along the batch axis", IT + "    return seqs[:-1], seqs[1:]"),
    mistake(
        "inputs_and_targets", "np.roll: the last target wraps around", IT + "    return seqs, np.roll(seqs, -1, axis=1)"
    ),
    mistake(
        "inputs_and_targets",
        "the last two tokens dropped from the inputs",
        IT + "    return seqs[:, :-2], seqs[:, 1:-1]",
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
        "make_datasets",
        "a loop, and np.take",
        DS
        + "    seqs = []\n    for row in digits:\n        row = [int(d) for d in row]\n        seqs.append(row + [SEP] + list(reversed(row)))\n    order = np.asarray(order, dtype=int)\n    return np.take(np.array(seqs), order[:n_train], axis=0), np.take(np.array(seqs), order[n_train:], axis=0)",
    ),
    right(
        "make_datasets",
        "the order applied to the digits first, then concatenated",
        DS
        + "    d = np.asarray(digits)[np.asarray(order)]\n    seqs = np.concatenate([d, np.full((len(d), 1), SEP), d[:, ::-1]], axis=1)\n    return seqs[:n_train], seqs[n_train:]",
    ),
    right("loss_at_start", "computed with np.log", "loss_at_start = np.log(6)\nloss_floor = 3 * np.log(5) / 8"),
    right("loss_floor", "rounded the other way", "loss_at_start = 1.7917\nloss_floor = 0.6036"),
    right("inputs_and_targets", "np.delete", IT + "    return np.delete(seqs, -1, axis=1), np.delete(seqs, 0, axis=1)"),
    right(
        "inputs_and_targets",
        "a list of pairs, then arrays",
        "def inputs_and_targets(seqs):\n    pairs = [(list(s[:-1]), list(s[1:])) for s in np.asarray(seqs)]\n    return np.array([p[0] for p in pairs]), np.array([p[1] for p in pairs])",
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

# The suspect reads every token and is asked for the one before (np.roll by 1): swapping its two parts is no fix.
MISTAKES += [
    mistake("inputs_and_targets", "the suspect's roll, unchanged", IT + "    return seqs, np.roll(seqs, 1, axis=1)"),
    mistake("inputs_and_targets", "the suspect's two parts swapped", IT + "    return np.roll(seqs, 1, axis=1), seqs"),
    mistake(
        "inputs_and_targets",
        "the roll turned the other way, the last position cut from the targets only",
        IT + "    return seqs, np.roll(seqs, -1, axis=1)[:, :-1]",
    ),
]
RIGHT += [
    right(
        "inputs_and_targets",
        "the roll turned the other way, the wrapped position cut from both",
        IT + "    return seqs[:, :-1], np.roll(seqs, -1, axis=1)[:, :-1]",
    ),
]

# One word where a prediction for each change is asked: the cell after it reads the two by key.
MISTAKES += [
    mistake("prediction", "one word for both", 'prediction = "reverses"'),
    mistake("prediction", "one of the two left out", 'prediction = {"one head": "reverses"}'),
]

# The sequences gathered in a list, then made an array: with nothing to train on, np.array([]) has shape (0,).
RIGHT += [
    right(
        "make_datasets",
        "np.array of a list of sequences, empty in shape (0,) when there is nothing to train on",
        DS + "    seqs = [list(d) + [SEP] + list(d)[::-1] for d in digits]\n"
        "    train = np.array([seqs[i] for i in order[:n_train]])\n"
        "    test = np.array([seqs[i] for i in order[n_train:]])\n"
        "    return train, test",
    ),
]
