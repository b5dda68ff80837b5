"""What docs/part-4/training.md says in words about its runs holds for them: the initial losses against their
bounds, the standard error of the validation loss, each seed's climb (averaged over neighbouring evaluations, and
from the lowest) against its own standard error, Part II's baselines it cites, the windows drawn by step 100, the
paired leads of exercise 6 and its scoring by position (its wording derived from the numbers), and the mean ablation.
Each run is the page's loop (AdamW, mini-batches of 32, evaluated every 25 steps as in its figure), redone here for seeds 0, 1
and 2; if a change moves a number, the test names the sentence that states it."""

from __future__ import annotations

import functools
import re

import numpy as np
import pytest

from tests.pages import prose
from transformer_math.data import load_text
from transformer_math.schedules import warmup_cosine
from transformer_math.softmax import log_softmax, softmax
from transformer_math.stats import layer_norm
from transformer_math.train import make_optimizer
from transformer_math.transformer import forward, init_params, loss_and_grads, make_windows, train

pytestmark = pytest.mark.slow  # three seeds of the page's loop, 700 steps each

PAGE = prose.source("part-4/training.md")


says = functools.partial(prose.says, "part-4/training.md")


def standard_error(x, run=1):
    means = x[: len(x) // run * run].reshape(-1, run).mean(axis=1)
    return means.std(ddof=1) / np.sqrt(len(means))


@pytest.fixture(scope="module")
def fables():
    text = load_text("aesop")
    chars = sorted(set(text))
    ids = np.array([chars.index(c) for c in text])
    split = int(0.9 * len(ids))
    return ids[:split], ids[split:], len(chars)


@pytest.fixture(scope="module")
def runs(fables):
    """For seeds 0, 1, 2: the training loss on every 8th window and the loss of every validation prediction,
    (435, 16), after 0, 25, ..., 700 steps (the page's loop evaluates every 100, its figure every 25)."""
    seen, held_out, V = fables
    x_train, y_train = make_windows(seen, seq_len=16)
    x_val, y_val = make_windows(held_out, seq_len=16)

    def losses(params, x, y):
        logits, _ = forward(params, x, n_heads=2)
        return -np.take_along_axis(log_softmax(logits), y[..., None], axis=-1)[..., 0]

    found = {}
    for seed in range(3):
        params = init_params(vocab_size=V, d_model=32, d_ff=32, seed=seed, output_scale=0.1)
        names = list(params)
        optimizer = make_optimizer(params, lr=0.01, weight_decay=0.01)
        rng = np.random.default_rng(seed)
        for step in range(701):
            if step % 25 == 0:
                found[seed, step] = (losses(params, x_train[::8], y_train[::8]).mean(), losses(params, x_val, y_val))
            if step == 700:
                break
            rows = rng.integers(0, len(x_train), size=32)
            _, grads = loss_and_grads(params, x_train[rows], y_train[rows], n_heads=2)
            optimizer.step([grads[name] for name in names])
    return found


def per_character(loss):
    """Each validation character's loss averaged over the windows that predict it, as the page's fold does."""
    scored = (np.arange(loss.shape[0])[:, None] + np.arange(loss.shape[1])).ravel()
    return np.bincount(scored, weights=loss.ravel()) / np.bincount(scored)


def bigram_windows(fables):
    seen, held_out, V = fables
    pairs = np.full((V, V), 0.1)
    np.add.at(pairs, (seen[:-1], seen[1:]), 1)
    p_next = pairs / pairs.sum(axis=1, keepdims=True)
    bigram = -np.log(p_next[held_out[:-1], held_out[1:]])
    return bigram[np.arange(len(held_out) - 16)[:, None] + np.arange(16)]


def test_the_page_loop_is_the_run_redone_here(runs):
    assert round(float(runs[0, 300][1].mean()), 4) == 2.2898 and round(float(runs[0, 700][1].mean()), 4) == 2.5634
    assert says("step 300  train 1.8414  validation 2.2898")


def test_the_validation_part_and_its_standard_error(fables, runs):
    held_out = fables[1]
    assert len(held_out) == 451 and says("cut at the same place: 451 characters from two fables")
    text = load_text("aesop")
    assert text[int(0.9 * len(text)) :].count("\n\n\n\n\n") == 1  # one fable's end, one title, the next fable
    at_300 = per_character(runs[0, 300][1])
    errors = [standard_error(at_300, run) for run in (1, 10, 50)]
    assert len(at_300) == 450 and all(0.08 <= e < 0.095 for e in errors)
    assert round(float(at_300.mean()), 2) == 2.29 and says("On them the model scores 2.29 ± 0.09 at step 300")
    assert round(float(errors[0]), 2) == 0.09 and says("the 450 predicted\ncharacters' losses over $\\sqrt{450}$")
    assert says("give about what single characters give, about 0.09 for the loss")
    climb = per_character(runs[0, 700][1]) - at_300
    assert round(float(climb.mean()), 2) == 0.27  # seed 0's row of the fold's table, checked over seeds below
    assert says("on other text like these two fables; new fables would vary more")
    assert says("its ± covers which text was sampled, not that choice") and says("Neither ± covers the run")


def averaged(runs, seed, first, last):
    """Each validation character's loss averaged over the evaluations of steps first, first + 25, ..., last."""
    return np.mean([per_character(runs[seed, step][1]) for step in range(first, last + 1, 25)], axis=0)


def test_the_climb_averaged_over_neighbouring_evaluations(runs):
    """The text's climb: the figure's curve averaged over steps 150 to 375 and 600 to 700, and per character
    against its standard errors, as the fold prints it."""
    early = np.mean([runs[0, step][1].mean() for step in range(150, 376, 25)])
    late = np.mean([runs[0, step][1].mean() for step in range(600, 701, 25)])
    assert says(f"the validation loss climbs from {early:.2f} (steps 150 to 375) to {late:.2f} (steps 600 to")
    climb = averaged(runs, 0, 600, 700) - averaged(runs, 0, 150, 375)
    errors = [standard_error(climb, run) for run in (1, 10, 50)]
    assert 2.5 < (late - early) / max(errors) and (late - early) / min(errors) < 4.5
    assert 2.5 < climb.mean() / max(errors) and climb.mean() / min(errors) < 4  # about three, whichever run length
    assert max(errors) < 0.09 and says("2.29 ± 0.09 at step 300")  # "smaller than ± 0.09": paired characters
    assert says(
        "That climb is the mean of the 450 characters' own changes,\nwhose standard error is smaller than ± 0.09"
    )
    assert says(
        "the climb is about\nthree of them for this seed and fewer for the others (the fold computes both; a first span"
    )
    assert says("placed around the\nminima makes the climb slightly optimistic")
    assert round(late - early, 2) == 0.17 and says("whose averages climb 0.17, counts the middle characters 16 times")
    assert says(f"climb, averaged    {climb.mean():.4f}  " + "  ".join(f"{e:.3f}" for e in errors))
    # the curve the averages smooth moves by up to 0.1 between evaluations where it is lowest (as the alt text says)
    curve = [runs[0, step][1].mean() for step in range(150, 376, 25)]
    assert round(max(abs(np.diff(curve))), 1) == 0.1 and says("the curve moves by up to 0.1 from one")


def test_the_climb_over_seeds(runs):
    """Each seed's climb against its own standard errors: averaged, and from its lowest evaluation of the page's
    loop (every 100 steps) to step 700 (the fold's `seed, lowest`)."""
    lowest, from_lowest, from_errors, climbs, errors, ratios = [], [], [], [], [], []
    for seed in range(3):
        best = min(range(0, 701, 100), key=lambda step: runs[seed, step][1].mean())
        lowest.append(best)
        change = per_character(runs[seed, 700][1]) - per_character(runs[seed, best][1])
        from_lowest.append(change.mean())
        from_errors.append([standard_error(change, run) for run in (1, 10, 50)])
        climb = averaged(runs, seed, 600, 700) - averaged(runs, seed, 150, 375)
        climbs.append(climb.mean())
        errors.append([standard_error(climb, run) for run in (1, 10, 50)])
        ratios.append([climb.mean() / e for e in errors[-1]])
    assert lowest == [300, 200, 300] and says("seed, lowest = 0, 300") and says("seeds 1 and 2: 1, 200 and 2, 300")
    assert np.all(np.array(ratios[0]) > np.array(ratios[1:])) and says("fewer for\nthe others")  # run for run
    assert from_lowest[0] > max(from_lowest[1:]) > min(from_lowest[1:]) > 0
    for seed in range(3):  # the fold's table, one row per seed
        e, r, f = errors[seed], ratios[seed], from_errors[seed]
        row = (
            f"| {seed} | {lowest[seed]} | {from_lowest[seed]:.2f} ± {min(f):.2f}–{max(f):.2f} | "
            f"{climbs[seed]:.2f} ± {min(e):.2f}–{max(e):.2f} | {min(r):.1f}–{max(r):.1f} |"
        )
        assert row in PAGE, row


def test_by_step_100_the_batches_have_drawn_about_as_many_windows_as_there_are(fables):
    """The page's loop draws its batches with default_rng(0) and draws nothing else from it."""
    x_train, _ = make_windows(fables[0], seq_len=16)
    rng = np.random.default_rng(0)
    rows = np.concatenate([rng.integers(0, len(x_train), size=32) for _ in range(100)])
    assert len(np.unique(rows)) < len(rows)  # with repeats
    assert says(f"the batches have drawn {len(rows):,} windows, with repeats, from the {len(x_train):,};")
    # windows overlap by 15 of 16 characters, so far more of the text than of the windows has been a target
    targets = np.zeros(len(fables[0]), dtype=int)
    np.add.at(targets, (rows[:, None] + np.arange(1, 17)).ravel(), 1)
    assert targets[1:].min() >= 1 and says("every training character has been a target")
    assert says(f"a target, {targets[1:].mean():.1f} times on average")


def test_the_schedule_adds_up_to_half_the_constant_learning_rate():
    """Exercise 5: warm-up 30 then cosine over 300 steps sums to about 150 steps of the peak rate."""
    total = sum(warmup_cosine(t, 300, 30, 1.0) for t in range(300))
    assert round(total) in (150, 151) and says("270 = 150$ steps' worth of $\\eta$ against 300")


def test_the_gap_is_there_before_the_overfitting(runs):
    train_100, val_100 = runs[0, 100][0], runs[0, 100][1].mean()
    assert round(float(val_100 - train_100), 2) == 0.16 and says("is already 0.16 at step 100, while both still fall")
    # both losses still fall at step 100
    assert runs[0, 200][0] < train_100 and runs[0, 200][1].mean() < val_100


def test_part_2s_baselines_on_the_same_characters(fables):
    """The held-out part is Part II's, and the two baselines the page cites are Part II's printed numbers."""
    seen, held_out, V = fables
    practice = prose.source("part-2/practice.md")
    assert "held-out: 450" in practice and len(held_out) - 1 == 450
    pairs = np.full((V, V), 0.1)
    np.add.at(pairs, (seen[:-1], seen[1:]), 1)
    loss = -np.log((pairs / pairs.sum(axis=1, keepdims=True))[held_out[:-1], held_out[1:]])
    assert "bigram   loss 2.4724" in practice and round(float(loss.mean()), 4) == 2.4724
    assert "unigram  loss 3.1720" in practice and says("character frequencies, 3.17, and the add-0.1 bigram")
    assert re.search(r"standard error 0\.066\n.*?: 0\.071", practice, flags=re.S)
    assert round(standard_error(loss), 2) == 0.07
    assert says("previous character, 2.47 ± 0.07.")


def test_exercise_6_verdict_on_three_seeds_and_by_position(fables, runs):
    bigram = bigram_windows(fables)
    at_300 = [runs[seed, 300][1] for seed in range(3)]
    leads = [per_character(bigram - loss) for loss in at_300]  # paired, character by character
    errors = [[standard_error(lead, run) for run in (1, 10)] for lead in leads]
    assert all(round(e, 2) == 0.05 for e in errors[0]) and leads[0].mean() / max(errors[0]) > 3
    assert says(f"seed 0 beats the bigram clearly: over all positions by {leads[0].mean():.2f} ± 0.05 nats")
    assert all(1 < lead.mean() / max(e) and lead.mean() / min(e) < 2 for lead, e in zip(leads[1:], errors[1:]))
    assert says(f"Seeds 1 and 2 lead by {leads[1].mean():.2f} and {leads[2].mean():.2f}, under two standard errors")

    best = {seed: min(range(0, 701, 100), key=lambda step: runs[seed, step][1].mean()) for seed in range(3)}
    assert best[0] == 300 and says("Step 300 is seed 0's best evaluation")
    last = [runs[seed, 700][1].mean() for seed in range(3)]
    assert says(f"by step 700 the three runs score {last[0]:.2f}, {last[1]:.2f} and {last[2]:.2f}")
    assert min(last) > bigram.mean() - 0.05  # level with the bigram or worse

    one = [loss[:, 0].mean() - bigram[:, 0].mean() for loss in at_300]
    assert says(f"the Transformer is {min(one):.2f} to {max(one):.2f} nats worse than counting pairs")
    # each column paired on its characters, with the larger standard error of runs of 1 and 10 windows
    column = [[bigram[:, j] - loss[:, j] for j in range(16)] for loss in at_300]
    lead = np.array([[d.mean() for d in seed] for seed in column])
    error = np.array([[max(standard_error(d, 1), standard_error(d, 10)) for d in seed] for seed in column])
    assert lead[0, 1] / error[0, 1] > 3 and says(
        f"Seed 0 leads by the second character, {lead[0, 1]:.2f} ± {error[0, 1]:.2f}"
    )
    assert says(f"and by {lead[0, 2:].min():.2f} to\n{lead[0, 2:].max():.2f} in every column after it")
    assert np.all(np.abs(lead[1:, 1]) < error[1:, 1])  # level: under one standard error
    assert says(f"level at the second character ({lead[1, 1]:.2f} and {lead[2, 1]:.2f})".replace("-", "\N{MINUS SIGN}"))
    later = lead[1:, 2:]
    assert np.all(later > 0) and says(f"ahead from the third on, by {later.min():.2f} to {later.max():.2f}")
    ratio = later / error[1:, 2:]
    assert ratio.max() < 3 and says(
        f"by {later.min():.2f} to {later.max():.2f}, {ratio.min():.1f} to {ratio.max():.1f} standard"
    )
    assert says(f"(a column is about\n± {error[1:, 2:].min():.2f} to {error[1:, 2:].max():.2f})")
    # 16 characters of context against 8, paired on the character both predict: window i's last against i + 8's 8th
    gain = [loss[:-8, 15] - loss[8:, 7] for loss in at_300]
    assert len(gain[0]) == 427 and says("both predicting character $i + 16$, 427 pairs")
    worse = np.array([g.mean() for g in gain])
    spread = np.array([max(standard_error(g, 1), standard_error(g, 10)) for g in gain])
    ratio = worse / spread
    assert np.all(worse > 0) and says(
        f"score worse than 8 in every seed, by {worse[0]:.3f}, {worse[1]:.3f} and {worse[2]:.3f}"
        f" (± {spread.min():.3f} to {spread.max():.3f}): {ratio[0]:.1f}, {ratio[1]:.1f} and {ratio[2]:.1f} standard"
    )
    assert ratio[0] > 2 and ratio[2] > 2 and ratio[1] < 1  # "measurably worse" in seeds 0 and 2 only
    assert says("In seeds 0 and 2 the 16th position is measurably worse than the 8th on the same characters")


def test_initial_losses_against_their_bounds():
    """The bounds are for the average over initialisations; the printed extremes cross them."""
    block = PAGE[PAGE.index("ln V = 4.0431") :]
    ln_v = float(re.search(r"ln V = ([\d.]+)", block)[1])
    scales = re.findall(r"ln V \+ sigma\^2/2 = ([\d.]+), step-0 loss ([\d.]+) \(([\d.]+) to ([\d.]+)\)", block)
    (upper_1, mean_1, _, high_1), (upper_01, mean_01, low_01, _) = [[float(x) for x in row] for row in scales[:2]]
    trained = float(re.search(r"loss at step 0 of the model trained below: ([\d.]+)", block)[1])
    assert ln_v < mean_1 < upper_1 < high_1 and ln_v < mean_01 < upper_01 and low_01 < ln_v and trained < ln_v
    assert says("the bounds hold for the average; single initialisations cross them")
    # how many of the page's ten initialisations cross them
    text = load_text("aesop")
    chars = sorted(set(text))
    x_train, y_train = make_windows([chars.index(c) for c in text[: int(0.9 * len(text))]], seq_len=16)
    losses = {}
    for scale in (1.0, 0.1):
        for seed in range(10):
            params = init_params(vocab_size=len(chars), d_model=32, d_ff=32, seed=seed, output_scale=scale)
            logits, _ = forward(params, x_train[::8], n_heads=2)
            losses[scale, seed] = -np.take_along_axis(log_softmax(logits), y_train[::8, :, None], axis=-1).mean()
    above = sum(losses[1.0, seed] > upper_1 for seed in range(10))
    below = sum(losses[0.1, seed] < ln_v for seed in range(10))
    words = {3: "three", 6: "six"}
    assert says(f"at scale 1 {words[above]} land above the upper, and at 0.1 {words[below]} land below $\\ln V$")


def test_mean_ablation_numbers_in_the_prose():
    vocab = ["the", "cat", "sat", "on", "mat"]
    stream = [vocab.index(word) for word in "the cat sat on the mat the cat sat on the mat the cat".split()]
    inputs, targets = make_windows(stream, seq_len=8)
    p = init_params(vocab_size=5, d_model=8, d_ff=32, seed=0)
    train(p, inputs, targets, n_heads=2, steps=300, lr=0.01)
    _, cache = forward(p, inputs, n_heads=2)
    later_the = (inputs == 0) & (np.arange(8) > 0)
    found = []
    for head in range(2):
        o = cache["o"].copy()
        o[..., 4 * head : 4 * head + 4] = o[..., 4 * head : 4 * head + 4].mean(axis=(0, 1))
        x1 = cache["x0"] + o @ p["W_O"]
        x2 = x1 + np.maximum(layer_norm(x1, p["ln2_g"], p["ln2_b"]) @ p["W_1"] + p["b_1"], 0.0) @ p["W_2"] + p["b_2"]
        probs = softmax(layer_norm(x2, p["lnf_g"], p["lnf_b"]) @ p["W_U"])
        found.append(np.take_along_axis(probs, targets[..., None], axis=-1)[..., 0][later_the].mean())
    assert says(f"keeps {found[0]:.3f} without head 1 and {found[1]:.3f} without head 2")
    assert found[1] < 0.6 < found[0] and says(
        "head 2's share holds too with its output set to its average, not 0 (**mean ablation**"
    )


def test_the_closing_sentence_counts_the_models_parameters():
    small = init_params(vocab_size=5, d_model=8, d_ff=32, seed=0)
    fables = init_params(vocab_size=57, d_model=32, d_ff=32, seed=0)
    sizes = [sum(a.size for a in params.values()) for params in (small, fables)]
    assert sizes == [936, 10048] and says("with thousands of parameters instead of billions")
