"""The texts shipped with the library: they load from the installed package, unchanged, and go into the wheel."""

from __future__ import annotations

import hashlib
import tomllib
from importlib import resources
from pathlib import Path

import pytest

from transformer_math.data import TEXTS, load_text

ROOT = Path(__file__).resolve().parents[2]
AESOP_SHA256 = "edf874a6ce8cf3c630f8e920a62a5b437372a8f07367da01db0837894b7c9fba"


def test_the_text_loads_through_importlib_resources_unchanged():
    """load_text reads the package's resource (not a path in the repository), and the text is the one the page
    describes: eight fables, 4,509 characters, 57 distinct ones, the same bytes as when it was checked."""
    resource = resources.files("transformer_math.data").joinpath("aesop.txt")
    assert resource.is_file()
    text = load_text("aesop")
    assert text == resource.read_text(encoding="utf-8")
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


def test_every_listed_text_is_a_package_resource():
    for name in TEXTS:
        assert resources.files("transformer_math.data").joinpath(f"{name}.txt").is_file(), name
        assert len(load_text(name)) > 1000


def test_the_wheel_includes_the_texts():
    """setuptools puts non-Python files into the wheel only when package-data names them."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["transformer_math.data"]
    for name in TEXTS:
        assert any(Path(f"{name}.txt").match(pattern) for pattern in patterns), (name, patterns)


@pytest.mark.parametrize(
    ("name", "error", "message"),
    [
        ("shakespeare", ValueError, r"unknown text 'shakespeare'; the library ships aesop"),
        ("aesop.txt", ValueError, r"unknown text 'aesop.txt'"),
        ("../checks", ValueError, r"unknown text '../checks'"),
        (None, TypeError, r"name must be a string, one of aesop; got None"),
        (1, TypeError, r"name must be a string, one of aesop; got 1"),
    ],
)
def test_bad_names_are_refused(name, error, message):
    with pytest.raises(error, match=message):
        load_text(name)
