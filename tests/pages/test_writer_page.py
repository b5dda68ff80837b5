"""What docs/part-4/a-model-that-writes.md says in words about its stored runs holds for them, and the settings
its prose names are the module's: if the runs are redone and a claim moves, this test names the sentence."""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest

from snippets.part_4 import a_model_that_writes as writer
from snippets.part_4 import ladder
from tests.pages import prose
from transformer_math.data import load_run, split_text
from transformer_math.information import cross_entropy_from_logits
from transformer_math.model import forward

says = functools.partial(prose.says, "part-4/a-model-that-writes.md")


@pytest.fixture(scope="module")
def runs():
    return writer.stored()


def test_the_recipe_the_prose_names_is_the_modules():
    r = writer.RECIPE
    assert says(f"{r['n_layers']} blocks of width {r['d_model']} reading {r['seq_len']} characters")
    assert says(f"{r['n_layers']} blocks of width $d = {r['d_model']}$ with {r['n_heads']} heads")
    assert says(f"a context of $n = {r['seq_len']}$")
    assert says(f"each step reads {r['batch_size']} windows of {r['seq_len']} characters")
    assert r["beta2"] == 0.99 and says("$\\beta_2 = 0.99$") and r["weight_decay"] == 0.1 and says("weight decay 0.1")
    assert r["max_grad_norm"] == 1.0 and says("global norm of 1")
    assert r["lr"] == 1e-3 and r["min_lr"] == r["lr"] / 10 and says(f"over {r['warmup_steps']} steps")
    small = writer.SIZES["2 x 64"]
    assert (small["n_layers"], small["d_model"], small["lr"]) == (2, 64, 4e-3)
    assert says("a 2 x 64 at a learning rate of $4 \\times 10^{-3}$ (set by hand: no run below tunes it)")
    assert all(trial["lr"] != small["lr"] or trial["d_model"] != 64 for trial in writer.TRIALS.values())
    assert writer.BUDGETS == (1, 4, 15) and says("budgets of 1, 4 and 15 minutes of CPU time")


def test_every_run_took_about_its_budget(runs):
    """Steps were set from a timing of 50 steps; each run's CPU time is within a third of its budget."""
    for (size, budget), run in runs.items():
        assert 2 / 3 < run["cpu_seconds"] / 60 / budget < 4 / 3, (size, budget, run["cpu_seconds"] / 60)


def test_the_15_minute_runs_took_the_minutes_the_prose_says(runs):
    small, large = (runs[size, 15]["cpu_seconds"] / 60 for size in ("2 x 64", "4 x 128"))
    assert says(f"the 15-minute runs took {small:.1f} and {large:.1f} minutes as measured")


def test_the_two_sizes_read_their_plays_the_times_the_prose_says(runs):
    def passes(size):
        recipe, run = writer.SIZES[size], runs[size, 15]
        return run["steps"] * recipe["batch_size"] * recipe["seq_len"] / len(writer.shakespeare()[0])

    assert says(f"read its plays {passes('2 x 64'):.0f} times, the large one {passes('4 x 128'):.1f}")


def test_the_gap_between_training_and_held_out_loss_grows(runs):
    step, _, train, val = np.array(runs[writer.CHOSEN]["curve"]).T
    gap = val - train
    assert gap[-1] > 2 * gap[0] and np.all(val > train)
    assert says(f"On the 256 windows the curves read, the training loss ends {gap[-1]:.2f} below")
    assert writer.EVAL_WINDOWS == 256
    n = writer.RECIPE["seq_len"]  # the held-out loss reads consecutive windows: context 0 .. n - 1, mean (n - 1) / 2
    assert says(f"consecutive windows of {n} characters, each character predicted from the 0 to {n - 1} before")
    assert round((n - 1) / 2) == 32 and says("about 32 on average")
    r = writer.RECIPE  # the first evaluation comes a sixth of a pass in
    passes = step[0] * r["batch_size"] * r["seq_len"] / len(writer.shakespeare()[0])
    assert round(6 * passes) == 1 and says("a sixth of a pass in")
    assert says(f"The gap is {gap[0]:.2f} at the first evaluation")
    held_out, training = ladder.counted_bigram()  # the held-out play's own difficulty, with nothing memorised
    assert f"{gap[0]:.2f}" == f"{held_out - training:.2f}" and says("the [ladder](ladder.md#the-experiment)'s")
    assert says(f"stretch gives {held_out - training:.2f})")
    whole = re.search(
        r"held-out play (\d\.\d+), gap (\d\.\d+)", prose.source("part-4/a-model-that-writes.md")
    )  # the fold's bigram on all training plays
    assert abs(float(whole[2]) - gap[0]) < 0.02 and says(
        f"A gap of {float(whole[2]):.2f}, near the model's {gap[0]:.2f}"
    )
    assert says(f"It grows to {gap[-1]:.2f}, so, if the play's extra difficulty stays near {gap[0]:.2f}, about")
    assert says(f"about {gap[-1] - gap[0]:.1f} (one seed, no error bar) is the model fitting the training plays")
    tail = val[int(0.6 * len(val)) :]  # the last 40 % of the run: still falling, more slowly than the training loss
    assert tail[0] - tail[-1] > 0.03 and train[int(0.6 * len(val))] - train[-1] > tail[0] - tail[-1]
    assert says("The held-out loss still falls, more slowly than the training loss.")


def test_the_first_loss_is_half_a_nat_above_ln_v_mostly_from_the_logits_spread():
    """Tied to W_E of spread 1/sqrt(d), the logits start with spread about 1: sigma^2/2 is most of the excess over
    ln V, and the own character's logit, which starts high, the last 0.05. nanoGPT's spread 0.02 starts near ln V."""
    recipe = dict(writer.RECIPE, n_layers=2, d_model=64)
    train_ids, _, chars = writer.shakespeare()
    params, log_v = writer.new_model(recipe, len(chars)), np.log(len(chars))

    def first_loss(params, x, y):
        logits, _ = forward(params, x, recipe["n_heads"], recipe["activation"], tie_embeddings=True)
        return logits, cross_entropy_from_logits(logits, y)

    step_1 = first_loss(params, *writer.random_windows(train_ids, 64, 12, np.random.default_rng(recipe["seed"])))[1]
    x, y = writer.random_windows(train_ids, 64, 400, np.random.default_rng(5))
    logits, loss = first_loss(params, x, y)
    sigma = logits.std()
    assert 0.45 < step_1 - log_v < 0.55 and 0.45 < loss - log_v < 0.6 and abs(sigma - 1) < 0.05
    assert says("The first loss is half a nat above $\\ln V$") and says("logits start with spread about 1")
    assert says("$W_E$ has spread $1/\\sqrt d$ and $W_U = W_E^\\top$")
    assert np.allclose(params["W_E"].std(), 1 / np.sqrt(64), rtol=0.05) and "W_U" not in params
    own, target = (np.take_along_axis(logits, ids[..., None], axis=-1).mean() for ids in (x, y))
    assert own > 1 and abs(target) < 0.1 and says("its own character's logit starts high")
    rest = loss - (log_v + sigma**2 / 2)
    assert 0 < rest < sigma**2 / 2 and says("Of the excess over $\\ln V$, most is $\\sigma^2/2$")
    assert says(f"not below it, by the last {rest:.2f} nats")
    rng = np.random.default_rng(0)  # nanoGPT's init: every matrix, the embeddings too, of spread 0.02
    nano = {name: rng.normal(0, 0.02, w.shape).astype(w.dtype) if w.ndim == 2 else w for name, w in params.items()}
    assert first_loss(nano, x, y)[1] - log_v < 0.05
    assert says("(not 0.02; nanoGPT's weights of spread 0.02 start near $\\ln V$)")


def test_the_samples_are_as_described(runs):
    cool, warm = (runs[writer.CHOSEN]["samples"][str(t)][:400] for t in writer.SAMPLE_TEMPERATURES)
    assert writer.SAMPLE_TEMPERATURES == (0.5, 1.0)
    for shown in ("Ham.", "Hor."):
        assert f"\n{shown}\n" in cool and says(f"`{shown}`")
    assert re.search(r"\n\[[^\]\n]+\]\n", cool), "a stage direction in brackets"
    known = set(re.findall(r"[A-Za-z]+", split_text("shakespeare")[0]))
    for invented in ("Veronasure", "discomes"):
        assert invented in warm and invented not in known and says(f"`{invented}`")
    words = {t: re.findall(r"[A-Za-z]+", sample) for t, sample in runs[writer.CHOSEN]["samples"].items()}
    assert all(word in known for word in words["0.5"]), "every word at temperature 0.5 is real"
    unknown = np.mean([word not in known for word in words["1.0"]])
    assert 0.15 < unknown < 0.25 and says("about one in five does not")


def test_the_page_shows_the_samples_of_the_chosen_run():
    assert writer.CHOSEN == ("4 x 128", 15) and says('CHOSEN = ("4 x 128", 15)')


def test_squaring_leaves_a_rare_character_at_most_about_0_007():
    """At tau = 0.5 each probability is squared and renormalised: 0.05 beside 0.6 keeps the most when the other
    0.35 is spread thin, and less when one rival holds it."""
    thin = 0.05**2 / (0.6**2 + 0.05**2)
    one_rival = 0.05**2 / (0.6**2 + 0.05**2 + 0.35**2)
    assert f"{thin:.3f}" == "0.007" and one_rival < thin
    assert says("a character at 0.05 beside a leader at 0.6 falls to at most about 0.007")


def test_the_units_exercise(runs):
    loss = runs[writer.CHOSEN]["val_loss"]
    assert np.exp(loss) < 5 and says("a fair choice among fewer than five")
    assert 0.3 < loss / np.log(len(writer.shakespeare()[2])) < 0.4 and says("about a third of the bits")


def test_the_held_out_play_prefers_a_temperature_above_1_and_the_training_plays_1():
    params = {name: w.astype(np.float32) for name, w in load_run("shakespeare-gpt")["params"].items()}
    train_ids, val_ids, _ = writer.shakespeare()
    best = {}
    for text, ids in (("held-out", val_ids), ("training", train_ids)):
        starts = np.linspace(0, len(ids) - 65, 295).astype(int)[:, None]
        logits, _ = forward(params, ids[starts + np.arange(64)], n_heads=4, tie_embeddings=True)
        loss = {t: cross_entropy_from_logits(logits / t, ids[starts + np.arange(1, 65)]) for t in (0.7, 1.0, 1.2)}
        best[text] = min(loss, key=loss.get)
        assert loss[0.7] == max(loss.values()), text
    assert best == {"held-out": 1.2, "training": 1.0}
    x = val_ids[:64][None]  # the final LayerNorm's gain and shift over tau divide the logits by tau
    cooler = dict(params, lnf_g=params["lnf_g"] / 2, lnf_b=params["lnf_b"] / 2)
    logits = forward(params, x, n_heads=4, tie_embeddings=True)[0]
    assert np.allclose(forward(cooler, x, n_heads=4, tie_embeddings=True)[0], logits / 2, atol=1e-5)
    assert params["lnf_g"].ndim == params["lnf_b"].ndim == 1  # train_gpt decays the matrices only
    assert says("LayerNorm's gain and shift, divided by $\\tau$, divide every logit by $\\tau$, and neither is decayed")
    assert says("On the training plays $\\tau = 1$ scores best")
    assert says("On the held-out play $\\tau = 1.2$ scores best")


def test_the_frontier_in_words_is_the_stored_runs(runs):
    small, large = ({b: runs[size, b] for b in writer.BUDGETS} for size in ("2 x 64", "4 x 128"))
    assert small[1]["val_loss"] <= 1.80 and says(
        f"met, on one seed, by the 2 x 64 model's 1-minute run ({small[1]['val_loss']:.3f})"
    )
    assert says(f"after 4 minutes its held-out loss is {small[4]['val_loss']:.3f}")
    assert small[1]["val_loss"] < large[1]["val_loss"] and small[4]["val_loss"] < large[4]["val_loss"]
    assert large[15]["val_loss"] < small[15]["val_loss"] and says("The lines cross between 4 and 15 minutes")
    gain = small[4]["val_loss"] - small[15]["val_loss"]
    assert 0 < gain and says(f"the small model gains only {gain:.2f} more")
    assert large[4]["val_loss"] > large[15]["val_loss"] and says(f"is the better, at {large[15]['val_loss']:.3f}")
    margin = small[15]["val_loss"] - large[15]["val_loss"]
    assert says(f"{large[15]['val_loss']:.3f}, by {margin:.2f}.")
    sigma = margin / (3 * np.sqrt(2))  # the seed SD at which the margin is three SDs of a difference of two runs
    assert says(f"{margin:.2f} is three of those only if $s \\le {sigma:.3f}$")


def test_the_passes_over_the_training_plays(runs):
    """The table's passes, and the two the prose names: the small model repeats its text far more often."""
    n = len(writer.shakespeare()[0])
    passes = {key: run["steps"] * writer.SIZES[key[0]]["batch_size"] * writer.SIZES[key[0]]["seq_len"] / n
              for key, run in runs.items() if key[0] in writer.SIZES}  # fmt: skip
    assert says(
        f"the small model read its plays {passes['2 x 64', 15]:.0f} times, the large one {passes['4 x 128', 15]:.1f}"
    )


def test_the_trials_in_words_are_the_stored_runs(runs):
    baseline = runs["4 x 128", 4]
    change = {trial: runs[trial, 4]["val_loss"] - baseline["val_loss"] for trial in writer.TRIALS}
    assert says(f"$2 \\times 10^{{-3}}$ gains {-change['learning rate 2e-3']:.3f}")
    fewer = 1 - runs["GELU for ReLU", 4]["steps"] / baseline["steps"]
    assert says(f"GELU {-change['GELU for ReLU']:.3f} in {100 * fewer:.0f} % fewer steps")
    assert max(abs(change["learning rate 2e-3"]), abs(change["GELU for ReLU"])) < 0.02  # "a hundredth"
    assert abs(runs["context 128", 4]["steps"] / baseline["steps"] - 0.5) < 0.05 and says("half as many steps")
    assert says(f"and loses {change['context 128']:.2f}")
    minutes = runs["context 128", 4]["cpu_seconds"] / 60, baseline["cpu_seconds"] / 60
    assert says(f"in about the same time ({minutes[0]:.1f} against {minutes[1]:.1f} minutes)")
