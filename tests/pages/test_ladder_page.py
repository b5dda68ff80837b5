"""What docs/part-4/ladder.md says in words about the stored ladder holds for the stored ladder, and the settings
its prose names are the module's: if the run is redone and a verdict moves, this test names the sentence."""

from __future__ import annotations

import functools
import math
import re

import numpy as np
import pytest

from snippets.part_4 import ladder
from tests.pages import prose
from transformer_math.data import split_text, vocabulary


@pytest.fixture(scope="module")
def results():
    return ladder.steps()


says = functools.partial(prose.says, "part-4/ladder.md")


def test_the_settings_the_prose_names_are_the_modules():
    assert says(f"$V = {len(vocabulary(split_text('shakespeare')[0]))}$ characters")
    assert says(f"windows of $n = {ladder.SEQ_LEN}$") and says(f"$d = {ladder.D_MODEL}$")
    assert ladder.RUNGS["four heads"]["n_heads"] == 4 and says(f"$d_{{\\text{{head}}}} = {ladder.D_MODEL // 4}$")
    assert says(f"$d_{{ff}} = 4d = {ladder.D_FF}$") and ladder.D_FF == 4 * ladder.D_MODEL
    assert ladder.RUNGS["three blocks"]["n_layers"] == 3
    assert says(f"{ladder.STEPS:,} AdamW steps of {ladder.BATCH_SIZE} random windows at $\\eta = 10^{{-3}}$")
    assert ladder.WEIGHT_DECAY == 0.01 and says("(weight decay 0.01, no schedule, no clipping)")
    assert ladder.LR == 1e-3 and ladder.SEEDS == (0, 1, 2, 3, 4) and says("A seed (0 to 4)")
    assert says(f"blocks of {ladder.TEXT_BLOCK:,} characters") and says("10,000 times")
    assert ladder.block_bootstrap.__defaults__[0] == 10_000
    assert len(ladder.RUNGS) - 1 == 7 and ladder.LEVEL == 0.05 and says("the clearest step must pass at 5 % / 7")
    read = ladder.STEPS * ladder.BATCH_SIZE * ladder.SEQ_LEN
    assert says(f"read {read / 1e6:.2f} million characters, about one pass")
    assert 0.9 < read / len(ladder.shakespeare()[0]) < 1.1
    assert says("One run on 51,200 random characters") and 200 * 32 * 8 == 51_200  # his eval_iters x batch x block


def test_the_verdicts_in_words_are_the_tables(results):
    verdicts = {name: result["verdict"] for name, result in results.items()}
    assert verdicts == {
        "average of the past": "established",
        "one head": "established",
        "four heads": "established",
        "+ feed-forward": "established",
        "three blocks": "not established",
        "+ residual": "established",
        "+ LayerNorm": "not established",
    }
    losses, _ = ladder.ladder()
    mean = {name: seeds.mean() for name, seeds in losses.items()}
    assert mean["average of the past"] > mean["bigram"] > mean["one head"]  # averaging costs; one head wins it back
    assert all(results[name]["mean"] < 0 for name in ("four heads", "+ feed-forward", "+ residual"))  # they gain
    three = results["three blocks"]["per_seed"]
    assert (three < 0).any() and (three > 0).any()  # "the seeds disagree on the sign"
    norm = results["+ LayerNorm"]
    assert (norm["per_seed"] < 0).sum() == 4 and norm["p"] < 0.05 <= norm["holm"]  # four of five; passes alone
    half = ladder.t_point(0.05, norm["df"]) * math.hypot(norm["seed_se"], norm["text_se"])
    assert norm["mean"] + half < 0  # "LayerNorm's [interval] stays clear of 0"
    assert says(
        "its line in the figure stays clear of 0: tested\nalone it would pass, but as the sixth clearest of seven it must pass at $5\\,\\% / 2$, and falls short."
    )
    rank = sorted(r["p"] for r in results.values()).index(norm["p"])  # 0 for the smallest p
    assert rank == 5 and 0.05 / 2 < norm["p"] < 0.05  # Holm's bar for the sixth smallest of seven is 0.05 / 2
    assert says("its $p$ is the sixth smallest of seven, so Holm's bar for it is $0.05 / 2$")
    assert ladder.LEVEL == 0.05 and says("*any* established step is a fluke below one in twenty")
    # the residual step is tested against the plain stack of three blocks, not against one block
    assert verdicts["three blocks"] == "not established" and verdicts["+ residual"] == "established"
    assert says("three blocks without residual paths gain nothing established, and residual paths then do")


def test_the_thresholds_in_words_are_students(results):
    """The 95 % intervals are 2 to 3 standard errors each side; at the close steps' degrees of freedom a step
    needs |t| of about 2.8 alone and 5.1 as the first of Holm's seven."""
    assert all(2 < ladder.t_point(0.05, r["df"]) < 3 for r in results.values())
    assert says("two to three standard errors each side")
    close = [
        r["df"]
        for name, r in results.items()
        if name in ("+ feed-forward", "three blocks", "+ residual", "+ LayerNorm")
    ]
    assert all(4 < df < 4.6 for df in close)
    assert f"{ladder.t_point(0.05, 4):.1f}" == "2.8" and f"{ladder.t_point(0.05 / 7, 4):.1f}" == "5.1"
    assert says("clears 2.8 (at $\\nu \\approx 4$, tested alone) and, as the first of Holm's seven, 5.1")
    assert says("the bar is 2 to 3 standard\nerrors (2.8 for the close steps)")
    assert says(
        "the clearest step must\npass at $5\\,\\% / 7$, the next at $5\\,\\% / 6$, and so on (Holm's correction)"
    )


def test_holms_bars_depend_on_each_steps_degrees_of_freedom(results):
    """The i-th smallest p of seven passes at 5 % / (7 - i + 1); as a bar on |t| that depends on the step's nu:
    about 2.8 where the text's error dominates (nu near 37), 3.5 to 4.1 where the five seeds do (nu near 4)."""
    ranked = sorted(results, key=lambda name: results[name]["p"])
    bar = {name: ladder.t_point(0.05 / (7 - i), results[name]["df"]) for i, name in enumerate(ranked)}
    clearest = ranked[:2]
    assert set(clearest) == {"average of the past", "one head"}
    assert all(results[name]["df"] > 30 and results[name]["text_se"] > results[name]["seed_se"] for name in clearest)
    assert {f"{bar[name]:.1f}" for name in clearest} == {"2.8"}
    close = ["+ feed-forward", "+ residual", "+ LayerNorm"]
    assert all(results[name]["seed_se"] > results[name]["text_se"] for name in close)
    low, high = min(bar[name] for name in close), max(bar[name] for name in close)
    assert says(
        f"2.8 for the two clearest steps, whose text error dominates, and {low:.1f} to {high:.1f} for feed-forward"
    )
    assert says("residual and\nLayerNorm, whose five seeds dominate")
    assert says("as the first of Holm's seven, 5.1 (at $\\nu \\approx 4$)")


def test_no_rung_memorises_as_the_prose_says():
    losses, run = ladder.ladder()
    gaps = np.array([seeds.mean() for seeds in losses.values()]) - run["train_loss"].mean(axis=1)
    held_out, training = ladder.counted_bigram()  # on the stretch the rungs' training loss is read on
    stretch = ladder.training_stretch()
    assert len(stretch) == len(ladder.shakespeare()[1]) and np.all(run["train_loss"] > 0)
    assert held_out - training > 0.05  # the counted bigram: "well above" on the held-out play
    assert np.all(gaps > 0) and np.all(np.abs(gaps - (held_out - training)) < 0.05)  # "mostly the new play"
    assert says(f"by {gaps.min():.2f} to {gaps.max():.2f}, against {held_out - training:.2f} for the counted bigram")
    excess = dict(zip(ladder.RUNGS, gaps - (held_out - training)))
    assert all(f"{excess[name]:.2f}" == "0.03" for name in ("+ residual", "+ LayerNorm"))
    assert all(value < 0.01 for name, value in excess.items() if name not in ("+ residual", "+ LayerNorm"))
    assert says("The residual and LayerNorm rungs exceed the bigram's gap by about 0.03")


def test_the_hardest_stretch_of_the_play_is_its_list_of_persons():
    _, run = ladder.ladder()
    per_block = run["val_block_sums"][-1].mean(axis=0) / run["block_counts"]
    train, validation = split_text("shakespeare")
    persons = validation[: ladder.BLOCK]
    assert per_block.argmax() == 0 and "PERSONS REPRESENTED" in persons
    # some of its names are new to the training plays, some are not
    assert all(re.search(rf"\b{name}\b", persons) for name in ("ENOBARBUS", "EROS", "SCARUS", "ANTONY"))
    assert not any(re.search(rf"\b{name}\b", train, re.I) for name in ("Enobarbus", "Eros", "Scarus"))
    assert re.search(r"\bANTONY\b", train) and says("names several of which the training plays never had")
    assert says("(Enobarbus, Eros, Scarus)")
    # its columns are padded with runs of spaces, which the training plays hardly use
    runs = {text: len(re.findall(" {4,}", text)) / len(text) for text in (persons, train)}
    assert runs[persons] > 50 * runs[train] and says("a column layout padded with runs of spaces")
    best = validation[ladder.BLOCK * per_block.argmin() :][: ladder.BLOCK]
    assert "[" not in best and best.count("\n") > 10  # dialogue in short lines, no stage direction


def test_why_the_steps_gain_the_training_loss_the_prose_cites():
    losses, run = ladder.ladder()
    train = dict(zip(losses, run["train_loss"].mean(axis=1)))
    assert says(f"on the training plays too ({train['four heads']:.3f} to {train['+ feed-forward']:.3f})")
    params = dict(zip(losses, run["n_trained"]))
    assert says(f"doubles the parameters ({params['four heads']:,} to {params['+ feed-forward']:,})")
    assert 1.8 < params["+ feed-forward"] / params["four heads"] < 2.2
    assert says(f"barely moves either ({train['+ feed-forward']:.3f} to {train['three blocks']:.3f})")
    assert train["+ feed-forward"] - train["three blocks"] < 0.25 * (train["four heads"] - train["+ feed-forward"])
    assert says(f"on the training plays too ({train['+ residual']:.3f})")


def _pair(before, after):
    losses, _ = ladder.ladder()
    a, b = losses[before], losses[after]
    return a, b, b - a


def test_the_pairing_exercise():
    """Pairing shrinks the SE by the shared part, yet Welch's p is the smaller: compare SE and p, not t."""
    a, b, diffs = _pair("one head", "four heads")
    n = len(a)
    paired_se = diffs.std(ddof=1) / np.sqrt(n)
    va, vb = a.var(ddof=1) / n, b.var(ddof=1) / n
    welch_se, welch_df = np.sqrt(va + vb), (va + vb) ** 2 / (va**2 / (n - 1) + vb**2 / (n - 1))
    r = np.corrcoef(a, b)[0, 1]
    assert r > 0.5 and says(
        f"the five pairs happen to correlate ($r = {r:.2f}$, which five pairs estimate only roughly)"
    )
    assert says(f"falls by {100 * (1 - paired_se / welch_se):.0f} %")
    p_paired = ladder.t_tail(diffs.mean() / paired_se, n - 1)
    p_welch = ladder.t_tail(diffs.mean() / welch_se, welch_df)
    assert p_welch < p_paired < 1.2 * p_welch and welch_df > n - 1 and says("Welch's is even a little smaller")
    assert a.std(ddof=1) < b.std(ddof=1) / 4 and says("as one head's do")


def test_the_one_seed_exercise():
    names = list(ladder.RUNGS)
    r, s_diff, unrelated, ratio = {}, {}, {}, {}
    for before, after in zip(names, names[1:]):
        a, b, diffs = _pair(before, after)
        r[after], s_diff[after] = np.corrcoef(a, b)[0, 1], diffs.std(ddof=1)
        unrelated[after], ratio[after] = np.hypot(a.std(ddof=1), b.std(ddof=1)), abs(diffs.mean()) / diffs.std(ddof=1)
    first, later = names[1:4], names[4:]
    assert min(r[name] for name in first) > 0.75 and says("the first three steps, and three blocks")
    assert r["three blocks"] > 0.5 and s_diff["three blocks"] < 0.7 * unrelated["three blocks"]
    assert says(f"({s_diff['three blocks']:.3f} against {unrelated['three blocks']:.3f})")
    others = ["+ feed-forward", "+ residual", "+ LayerNorm"]
    assert all(r[name] <= 0 for name in others) and says("and LayerNorm, $r \\le 0$ and")
    assert s_diff["+ residual"] > unrelated["+ residual"]
    assert says(f"it costs, {s_diff['+ residual']:.3f} against {unrelated['+ residual']:.3f})")
    assert all(0.01 <= round(s_diff[name], 2) <= 0.03 for name in later) and says("0.01 to 0.03 from the feed-forward")
    assert max(round(s_diff[name], 2) for name in names[1:]) == 0.03 and says("scatters by up to 0.03")
    assert all(f"{unrelated[name]:.2f}" == "0.02" for name in later) and says("two unrelated runs' 0.02")
    shown = {name for name in names[1:] if ratio[name] >= 3}
    assert shown == set(names[1:]) - {"three blocks", "+ LayerNorm"}
    assert ratio["three blocks"] < 2 and ratio["+ LayerNorm"] < 2 and says("within two of them")
    assert says("would likely come out with the right sign") and says("could come out either way")
