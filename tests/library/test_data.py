"""The texts shipped with the library: they load from the installed package, unchanged, and go into the wheel;
the split, the vocabulary and the encoding that the pages train with."""

from __future__ import annotations

import bz2
import hashlib
import re
import tomllib
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from transformer_math.data import (
    FILES,
    RUNS,
    TEXTS,
    decode,
    encode,
    load_run,
    load_text,
    split_text,
    vocabulary,
)

ROOT = Path(__file__).resolve().parents[2]
AESOP_SHA256 = "edf874a6ce8cf3c630f8e920a62a5b437372a8f07367da01db0837894b7c9fba"
SHAKESPEARE_SHA256 = "9a6ed4f5df5bae7adb8640ed1fdc69ab3092a253f7d933ba2b0877d68d83d4af"
TRAGEDIES = [  # the title lines, in the First Folio's order
    "THE TRAGEDY OF CORIOLANUS",
    "THE TRAGEDY OF TITUS ANDRONICUS",
    "ROMEO AND JULIET",
    "THE LIFE OF TIMON OF ATHENS",
    "JULIUS CAESAR",
    "MACBETH",
    "HAMLET, PRINCE OF DENMARK",
    "THE TRAGEDY OF KING LEAR",
    "OTHELLO, THE MOOR OF VENICE",
    "ANTONY AND CLEOPATRA",
]
PACKAGE_BUDGET = 500_000  # bytes of the wheel for the texts added with Shakespeare's, and as much for stored runs


def resource(name: str):
    return resources.files("transformer_math.data").joinpath(name)


def test_the_text_loads_through_importlib_resources_unchanged():
    """load_text reads the package's resource (not a path in the repository), and the text is the one the page
    describes: eight fables, 4,509 characters, 57 distinct ones, the same bytes as when it was checked."""
    assert resource("aesop.txt").is_file()
    text = load_text("aesop")
    assert text == resource("aesop.txt").read_text(encoding="utf-8")
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == AESOP_SHA256
    assert (len(text), len(set(text))) == (4509, 57)
    assert text.startswith("The Wolf And The Lamb\n\nWOLF, meeting with a Lamb astray from the fold")
    assert text.endswith("I would rather have one barleycorn than all\nthe jewels in the world.”\n")
    titles = [
        "The Wolf And The Lamb",
        "The Bat And The Weasels",
        "The Ass And The Grasshopper",
        "The Lion And The Mouse",
        "The Charcoal-Burner And The Fuller",
        "The Father And His Sons",
        "The Boy Hunting Locusts",
        "The Cock and the Jewel",
    ]
    positions = [text.index(f"{title}\n\n") for title in titles]
    assert positions == sorted(positions) and positions[0] == 0  # the eight fables, in the e-book's order
    assert load_text() == text  # the default


def test_shakespeare_is_ten_whole_tragedies_over_a_megabyte_compressed_to_under_500_kb():
    """The text the docstring describes: ten of the Folio's tragedies in its order, each starting with its title
    after three blank lines, no mention of Project Gutenberg left, plain ASCII, the bytes that were checked."""
    text = load_text("shakespeare")
    assert text == bz2.decompress(resource("shakespeare.txt.bz2").read_bytes()).decode("utf-8")
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == SHAKESPEARE_SHA256
    assert len(text) == 1_389_787 >= 1_000_000 and text.isascii()
    assert "gutenberg" not in text.lower() and "\r" not in text and "\t" not in text
    starts = [0] + [match.end() for match in re.finditer("\n\n\n\n", text) if text[match.end()] != "\n"]
    titled = [start for start in starts if text[start:].split("\n", 1)[0] in TRAGEDIES]
    assert [text[start:].split("\n", 1)[0] for start in titled] == TRAGEDIES  # each once, in the Folio's order
    for start in titled:
        assert text[start:].split("\n", 3)[2] == "by William Shakespeare"
    assert resource("shakespeare.txt.bz2").stat().st_size <= PACKAGE_BUDGET


def test_the_split_holds_out_the_last_play_whole():
    text = load_text("shakespeare")
    train, validation = split_text("shakespeare")
    assert train + validation == text
    assert validation.startswith("ANTONY AND CLEOPATRA\n\nby William Shakespeare\n")
    assert not any(title in validation for title in TRAGEDIES[:-1])  # no other play's title: one play
    assert train.endswith("[Exeunt, bearing the bodies of Martius.]\n\n\n\n") or train.endswith("\n\n\n\n")
    assert (len(train), len(validation)) == (1_238_316, 151_471)
    aesop_train, aesop_validation = split_text("aesop")
    assert len(aesop_train) == int(0.9 * 4509) == 4058 and aesop_train + aesop_validation == load_text("aesop")
    assert split_text() == (aesop_train, aesop_validation)


def test_the_vocabulary_of_the_training_part_covers_the_held_out_play():
    """The unknown-character rule never fires on the library's own split: the held-out play uses no character
    that the nine training plays lack."""
    train, validation = split_text("shakespeare")
    chars = vocabulary(train)
    assert len(chars) == 73 and chars == "".join(sorted(set(train)))
    assert set(validation) <= set(chars)


def test_encode_and_decode_are_inverse_and_match_the_dictionary_lookup():
    train, validation = split_text("shakespeare")
    chars = vocabulary(train)
    ids = encode(validation, chars)
    assert ids.dtype == np.int64 and ids.shape == (len(validation),)
    stoi = {c: i for i, c in enumerate(chars)}  # nanoGPT's encoder
    assert ids.tolist() == [stoi[c] for c in validation]
    assert decode(ids, chars) == validation
    assert decode(encode("", chars), chars) == ""
    beyond_ascii = "héllo wörld, ça va? 東京"  # code points past 255 and past 65,535's half
    assert vocabulary(beyond_ascii)[-2:] == "京東" and vocabulary(beyond_ascii)[0] == " "
    assert [vocabulary(beyond_ascii)[i] for i in encode(beyond_ascii, vocabulary(beyond_ascii))] == list(beyond_ascii)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda c: encode("Tö be", c), ValueError, r"character 'ö' at position 1 of text is not in the vocabulary"),
        (lambda c: encode("¿Qué?", c), ValueError, r"character '¿' at position 0 .* \(2 such characters in all\)"),
        (lambda c: encode(b"To be", c), TypeError, r"text must be a string, got bytes"),
        (lambda c: encode("To be", "aab"), ValueError, r"chars must hold each character once"),
        (lambda c: encode("To be", ""), TypeError, r"chars must be a non-empty string"),
        (lambda c: decode([0, 73], c), ValueError, r"id 73 at position 1 of ids is not in 0 .. 72"),
        (lambda c: decode([0, -1], c), ValueError, r"id -1 at position 1"),
        (lambda c: decode([0.0, 1.0], c), TypeError, r"ids must be integer token ids"),
        (lambda c: decode([[0, 1]], c), ValueError, r"ids must be a 1-D sequence"),
        (lambda c: vocabulary(""), TypeError, r"text must be a non-empty string"),
        (lambda c: vocabulary(["a", "b"]), TypeError, r"text must be a non-empty string"),
    ],
)
def test_bad_encodings_are_refused(call, error, message):
    with pytest.raises(error, match=message):
        call(vocabulary(split_text("shakespeare")[0]))


def test_every_listed_text_is_a_package_resource():
    for name in TEXTS:
        assert resource(FILES[name]).is_file(), name
        assert len(load_text(name)) > 1000


def test_the_wheel_includes_the_texts_and_runs_within_budget():
    """setuptools puts non-Python files into the wheel only when package-data names them; the texts added for
    Shakespeare and the stored runs each stay within 500 KB of the wheel."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["transformer_math.data"]
    stored = [*FILES.values(), *(f"{name}.npz" for name in RUNS)]
    for name in stored:
        assert any(Path(name).match(pattern) for pattern in patterns), (name, patterns)
    folder = ROOT / "src" / "transformer_math" / "data"
    shipped = {path.name for path in folder.iterdir() if path.is_file() and path.suffix != ".py"}
    assert shipped == set(stored), f"files in the package that no name loads, or names without a file: {shipped}"
    runs = sum((folder / f"{name}.npz").stat().st_size for name in RUNS)
    assert runs <= PACKAGE_BUDGET, f"the stored runs take {runs:,} bytes"


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: load_text("hamlet"), ValueError, r"unknown text 'hamlet'; the library ships aesop, shakespeare"),
        (lambda: load_text("aesop.txt"), ValueError, r"unknown text 'aesop.txt'"),
        (lambda: load_text("../checks"), ValueError, r"unknown text '../checks'"),
        (lambda: load_text(None), TypeError, r"name must be a string, one of aesop, shakespeare; got None"),
        (lambda: load_text(1), TypeError, r"name must be a string, one of aesop, shakespeare; got 1"),
        (lambda: split_text("hamlet"), ValueError, r"unknown text 'hamlet'"),
        (lambda: load_run("nope"), ValueError, r"unknown run 'nope'; the library stores"),
        (lambda: load_run(3), TypeError, r"name must be a string"),
    ],
)
def test_bad_names_are_refused(call, error, message):
    with pytest.raises(error, match=message):
        call()
