"""What a page says in words, for the tests that hold a sentence of prose to a number they recompute: each page
read once, and a sentence found in it whatever its line breaks."""

from __future__ import annotations

import functools
import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


@functools.cache
def source(page: str) -> str:
    """``docs/<page>`` as written."""
    return (DOCS / page).read_text(encoding="utf-8")


def flat(text: str) -> str:
    """Runs of white space as one space: a line break in the Markdown is a space on the page."""
    return re.sub(r"\s+", " ", text)


@functools.cache
def text(page: str) -> str:
    """The page with its line breaks and indents read as single spaces."""
    return flat(source(page))


def says(page: str, sentence: str) -> bool:
    """Whether the page says ``sentence``, line breaks aside."""
    return flat(sentence) in text(page)


NUMBER_WORDS = "zero one two three four five six seven eight nine ten eleven twelve".split()  # as pages spell them
