"""Everything docs/part-4/a-model-that-writes.md draws or includes: a GPT trained on Shakespeare's tragedies with
mini-batches, AdamW, clipping and a warm-up and cosine schedule; the frontier of validation loss against CPU
time for two sizes (a stored run), and the chosen recipe's curves and samples."""

from __future__ import annotations

import functools
import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from matplotlib.figure import Figure

from tools.figures import figure
from tools.stored_runs import stored_run
from transformer_math.data import decode, encode, load_run, split_text, vocabulary
from transformer_math.information import cross_entropy_from_logits
from transformer_math.model import forward, init_params, loss_and_grads
from transformer_math.optim import AdamW
from transformer_math.sample import generate
from transformer_math.schedules import clip_grad_norm, warmup_cosine

# --8<-- [start:setup]
RECIPE = dict(  # nanoGPT's CPU recipe for Shakespeare, with ReLU in the feed-forward layer
    n_layers=4, d_model=128, n_heads=4, seq_len=64, batch_size=12, steps=2000,
    lr=1e-3, min_lr=1e-4, warmup_steps=100, weight_decay=0.1, max_grad_norm=1.0, beta2=0.99, seed=0,
    activation="relu",
)  # fmt: skip


@functools.cache
def shakespeare():
    """The nine training plays and the held-out play as character ids, and the training plays' vocabulary."""
    train, validation = split_text("shakespeare")
    chars = vocabulary(train)
    return encode(train, chars), encode(validation, chars), chars


def new_model(recipe, vocab_size):
    """A GPT of the recipe's size in float32: learned positions, W_U tied to W_E, as nanoGPT's."""
    d, n = recipe["d_model"], recipe["seq_len"]
    params = init_params(vocab_size, d, 4 * d, seed=recipe["seed"], n_layers=recipe["n_layers"],
                         positions="learned", n_ctx=n, tie_embeddings=True)  # fmt: skip
    return {name: value.astype(recipe.get("dtype", "float32")) for name, value in params.items()}


# --8<-- [end:setup]


# --8<-- [start:batches]
def random_windows(ids, seq_len, batch_size, rng):
    """`batch_size` windows of `seq_len` characters from random places in `ids`, and their next characters."""
    starts = rng.integers(0, len(ids) - seq_len, size=batch_size)
    window = ids[starts[:, None] + np.arange(seq_len + 1)]  # (batch, n + 1)
    return window[:, :-1], window[:, 1:]


def mean_loss(params, ids, recipe, windows=None):
    """The mean loss of `ids` read in consecutive windows of the context length (every character predicted
    once, from those before it in its window); with `windows`, of those windows only."""
    n = recipe["seq_len"]
    count = (len(ids) - 1) // n
    x, y = ids[: count * n].reshape(count, n), ids[1 : count * n + 1].reshape(count, n)
    if windows is not None:
        x, y = x[windows], y[windows]
    total = 0.0
    for rows in np.array_split(np.arange(len(x)), max(1, len(x) // 256)):
        logits, _ = forward(params, x[rows], recipe["n_heads"], recipe["activation"], tie_embeddings=True)
        total += cross_entropy_from_logits(logits, y[rows]) * y[rows].size
    return total / y.size


# --8<-- [end:batches]


# --8<-- [start:train-gpt]
def train_gpt(recipe, evaluate=None, every=250, stop=None):
    """The recipe's run: AdamW on random windows, the gradients clipped, the learning rate warmed up and then
    decayed on a cosine. Weight decay only on the matrices (2-D arrays), as nanoGPT. Returns the model, the loss
    of every step, `evaluate(params)` with the CPU seconds of training so far every `every` steps, and the CPU
    seconds of the whole training. `stop` ends the run early, on the same schedule."""
    train_ids, _, chars = shakespeare()
    params = new_model(recipe, len(chars))
    names = list(params)
    decay = [recipe["weight_decay"] if params[name].ndim >= 2 else 0.0 for name in names]  # only the matrices
    optimizer = AdamW([params[name] for name in names], recipe["lr"], (0.9, recipe["beta2"]), weight_decay=decay)
    rng = np.random.default_rng(recipe["seed"])
    losses, evaluations, cpu = [], [], 0.0
    for step in range(recipe["steps"] if stop is None else stop):
        start = time.process_time()
        optimizer.lr = warmup_cosine(step, recipe["steps"], recipe["warmup_steps"], recipe["lr"], recipe["min_lr"])
        x, y = random_windows(train_ids, recipe["seq_len"], recipe["batch_size"], rng)
        loss, grads = loss_and_grads(params, x, y, recipe["n_heads"], recipe["activation"], tie_embeddings=True)
        clipped, _ = clip_grad_norm([grads[name] for name in names], recipe["max_grad_norm"])
        optimizer.step(clipped)
        cpu += time.process_time() - start
        losses.append(loss)
        if evaluate is not None and ((step + 1) % every == 0 or step + 1 == recipe["steps"]):
            evaluations.append((step + 1, cpu, *evaluate(params)))
    return params, np.array(losses), evaluations, cpu


# --8<-- [end:train-gpt]


# --8<-- [start:frontier-settings]
SIZES = {  # each trained for about 1, 4 and 15 minutes of one core: its number of steps
    "2 x 64": dict(RECIPE, n_layers=2, d_model=64, lr=4e-3, min_lr=4e-4, steps=(3900, 15600, 58500)),
    "4 x 128": dict(RECIPE, steps=(840, 3350, 12600)),
}
BUDGETS = (1, 4, 15)  # minutes of one core
CHOSEN = ("4 x 128", 15)  # the run whose samples the page shows
# --8<-- [end:frontier-settings]
# --8<-- [start:trials]
TRIALS = {  # variants of the 4 x 128 recipe, each trained for about 4 minutes of one core (its number of steps)
    "learning rate 2e-3": dict(SIZES["4 x 128"], lr=2e-3, min_lr=2e-4, steps=3350),
    "GELU for ReLU": dict(SIZES["4 x 128"], activation="gelu", steps=3050),
    "context 128": dict(SIZES["4 x 128"], seq_len=128, steps=1575),
}
# --8<-- [end:trials]
WEIGHTS = ("2 x 64", 15)  # the run whose weights the library stores, in float16, for the reader to sample
SAMPLE_TEMPERATURES = (0.5, 1.0)
EVAL_WINDOWS = 256  # the curves read the loss of 256 windows of each part (16,384 characters); the end, all


def frontier_runs() -> list[tuple[str, int, dict]]:
    """(size or trial, budget in minutes, recipe) of every run the stored result holds."""
    runs = [(size, budget, dict(recipe, steps=recipe["steps"][i])) for size, recipe in SIZES.items()
            for i, budget in enumerate(BUDGETS)]  # fmt: skip
    return runs + [(trial, 4, recipe) for trial, recipe in TRIALS.items()]


def sample_windows(ids, recipe, seed):
    """A fixed choice of EVAL_WINDOWS of the consecutive windows of `ids`, for the curves."""
    count = (len(ids) - 1) // recipe["seq_len"]
    return np.sort(np.random.default_rng(seed).choice(count, size=EVAL_WINDOWS, replace=False))


def one_run(job) -> dict:
    """One size trained for one budget: the curves, the CPU time, the validation loss on the whole play and, for
    the chosen recipe, samples at two temperatures."""
    size, budget, recipe = job
    train_ids, val_ids, chars = shakespeare()
    train_windows, val_windows = sample_windows(train_ids, recipe, 1), sample_windows(val_ids, recipe, 2)

    def evaluate(params):
        return mean_loss(params, train_ids, recipe, train_windows), mean_loss(params, val_ids, recipe, val_windows)

    curve = (size, budget) == CHOSEN  # the page draws this run's curves; the others need only their end
    params, losses, evaluations, cpu = train_gpt(recipe, evaluate if curve else None, max(recipe["steps"] // 50, 1))
    result = dict(size=size, budget=budget, steps=recipe["steps"], cpu_seconds=cpu)
    result |= dict(val_loss=mean_loss(params, val_ids, recipe), curve=[list(point) for point in evaluations])
    result["first_losses"] = losses[:50].tolist()
    if (size, budget) == WEIGHTS:
        result["params"] = params
    if (size, budget) == CHOSEN:
        prompt = encode("\n", chars).tolist()
        result["samples"] = {  # the generated text, without the prompt
            str(t): decode(generate(params, prompt, 600, recipe["n_heads"], temperature=t, seed=0,
                                    activation=recipe["activation"], tie_embeddings=True)[1:], chars)
            for t in SAMPLE_TEMPERATURES
        }  # fmt: skip
    return result


def frontier_settings() -> dict:
    return dict(sizes=SIZES, trials=TRIALS, budgets=list(BUDGETS), chosen=list(CHOSEN), weights=list(WEIGHTS),
                temperatures=list(SAMPLE_TEMPERATURES), eval_windows=EVAL_WINDOWS)  # fmt: skip


def frontier_replay(steps: int) -> np.ndarray:
    """The float64 losses of the first `steps` steps of each size: its three budgets share them (the warm-up
    outlasts them, so the learning rate does not yet depend on the number of steps), and the trials run the
    same code on settings the stored run keeps."""
    recipes = [dict(recipe, steps=recipe["steps"][0], dtype="float64") for recipe in SIZES.values()]
    return np.array([train_gpt(recipe, stop=steps)[1] for recipe in recipes])


@stored_run("shakespeare-gpt", replay=frontier_replay, settings=frontier_settings)
def run_frontier() -> dict:
    """Every size for every budget, two at a time (one core each)."""
    context = multiprocessing.get_context("spawn")
    jobs = frontier_runs()
    longest_first = sorted(range(len(jobs)), key=lambda i: -jobs[i][1])  # by budget, so the two cores end together
    with ProcessPoolExecutor(max_workers=2, mp_context=context) as pool:
        done = dict(zip(longest_first, pool.map(one_run, [jobs[i] for i in longest_first])))
    runs = [done[i] for i in range(len(jobs))]  # in the order of frontier_runs, as the page prints them
    params = next(run.pop("params") for run in runs if "params" in run)
    return {"runs": runs, "params": params, "text": "shakespeare"}


# --8<-- [start:stored]
@functools.cache
def stored():
    """The stored runs: {(size, budget): its result}."""
    return {(run["size"], run["budget"]): run for run in load_run("shakespeare-gpt")["runs"]}


# --8<-- [end:stored]


@figure("writer-frontier")
# --8<-- [start:writer-frontier]
def writer_frontier() -> Figure:
    """Validation loss against CPU minutes: each size trained for about 1, 4 and 15 minutes, each run with its own
    schedule; the goal of 1.80 dashed."""
    runs = stored()
    fig = Figure(figsize=(4.6, 3.4))
    ax = fig.subplots()
    for colour, size in zip(("C0", "C1"), SIZES):
        points = [runs[size, budget] for budget in BUDGETS]
        minutes = [run["cpu_seconds"] / 60 for run in points]
        ax.plot(minutes, [run["val_loss"] for run in points], "o-", color=colour, label=size, markersize=5)
    ax.axhline(1.80, color="C2", ls="--", lw=1, label="goal 1.80")
    ax.set_xscale("log")
    ax.set_xticks([1, 4, 15], ["1", "4", "15"])
    ax.set_xlabel("CPU minutes of one core")
    ax.set_ylabel("validation loss")
    ax.legend(fontsize=10, title="layers x width", title_fontsize=10)
    return fig


# --8<-- [end:writer-frontier]


@figure("writer-curves")
# --8<-- [start:writer-curves]
def writer_curves() -> Figure:
    """The chosen run's loss on the training plays and on the held-out play, every fiftieth of the run."""
    run = stored()[CHOSEN]
    step, _, train, val = np.array(run["curve"]).T
    fig = Figure(figsize=(4.6, 3.2))
    ax = fig.subplots()
    ax.plot(step, train, color="C0", label="training plays")
    ax.plot(step, val, color="C1", label="held-out play")
    ax.set_xlabel("step")
    ax.set_ylabel("loss (nats per character)")
    ax.set_ylim(1.0, 3.0)
    ax.legend(fontsize=10)
    return fig


# --8<-- [end:writer-curves]
