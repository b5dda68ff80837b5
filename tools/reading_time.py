"""How long a page takes to read, by one rule for every page: the core and the optional part, in seconds.

The rate: 100 words a minute of prose (headings, table cells, admonition titles and the TeX of inline formulas
count as words, as does Markdown a page includes), 15 s per display formula, 30 s per code block plus its
comments read as prose; an output fence is free, and so is a figure (its alt text is for screen readers).
Optional: the ``## Exercises`` section and everything after it, every collapsed ``??? deeper`` block, and a whole
page whose front matter says ``path: deeper``. Everything else is core, whatever its markup: a ``??? note``, an
open ``???+ deeper``, an included file.

>>> from tools.reading_time import reading
>>> text = "# Title\\n\\nFour words of prose.\\n\\n??? deeper \\"Aside\\"\\n\\n    Ten words here in a folded aside that no core reader needs.\\n"
>>> reading(text)
Reading(core=3.0, optional=7.8)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import yaml

WORDS_PER_MINUTE = 100
SECONDS_PER_DISPLAY_FORMULA = 15
SECONDS_PER_CODE_BLOCK = 30

FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.S)
EXERCISES = re.compile(r"^## Exercises\b", re.M)
FOLDED_DEEPER = re.compile(r"^(\s*)\?\?\? deeper\b")  # ???+ is open, so core
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})\s*([\w+-]*)")
DISPLAY = re.compile(r"\$\$.*?\$\$", re.S)
INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)(.+?)(?<![\\$])\$")
IMAGE = re.compile(r"!\[(?:[^\[\]]|\[[^\[\]]*\])*\]\([^)]*\)(\{[^}]*\})?")  # alt text may hold [brackets]
LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
TAG = re.compile(r"<!--.*?-->|</?[A-Za-z][^>]*>", re.S)  # a tag, not a formula's < (η < 2/a)
WORD = re.compile(r"[^\s|]*[A-Za-z0-9\\][^\s|]*")


@dataclass(frozen=True)
class Reading:
    """Seconds of reading: what the path needs, and what a reader may leave (folds, exercises, deeper pages)."""

    core: float
    optional: float

    @property
    def core_minutes(self) -> int:
        return round(self.core / 60)

    @property
    def optional_minutes(self) -> int:
        return round(self.optional / 60)


def front_matter(text: str) -> dict:
    match = FRONT_MATTER.match(text)
    return (yaml.safe_load(match.group(1)) or {}) if match else {}


def is_deeper(text: str) -> bool:
    """Whether the page's front matter puts it off the path (``path: deeper``)."""
    return front_matter(text).get("path") == "deeper"


def split(text: str) -> tuple[list[str], list[str]]:
    """The page's lines, without front matter, as core lines and optional lines."""
    body = FRONT_MATTER.sub("", text, count=1)
    if is_deeper(text):
        return [], body.splitlines()
    exercises = EXERCISES.search(body)
    main, tail = (body[: exercises.start()], body[exercises.start() :]) if exercises else (body, "")
    core, optional = [], tail.splitlines()
    lines, index = main.splitlines(), 0
    while index < len(lines):
        folded = FOLDED_DEEPER.match(lines[index])
        if not folded:
            core.append(lines[index])
            index += 1
            continue
        indent = len(folded.group(1))
        end = index + 1
        while end < len(lines) and (not lines[end].strip() or len(lines[end]) - len(lines[end].lstrip()) > indent):
            end += 1
        optional += lines[index:end]
        index = end
    return core, optional


def seconds(lines: list[str]) -> float:
    """Reading time of Markdown lines by the rate above."""
    prose, total, index = [], 0.0, 0
    while index < len(lines):
        fence = FENCE.match(lines[index])
        if not fence:
            prose.append(lines[index])
            index += 1
            continue
        indent, marker, language = fence.groups()
        end = index + 1
        while end < len(lines) and not re.match(rf"^{re.escape(indent)}{marker[0]}{{{len(marker)},}}\s*$", lines[end]):
            end += 1
        if language != "output":
            comments = [line.split("#", 1)[1] for line in lines[index + 1 : end] if "#" in line]
            total += SECONDS_PER_CODE_BLOCK + 60 * len(WORD.findall(" ".join(comments))) / WORDS_PER_MINUTE
        index = end + 1
    text = "\n".join(prose)
    total += SECONDS_PER_DISPLAY_FORMULA * len(DISPLAY.findall(text))
    text = DISPLAY.sub(" ", text)
    text = INLINE_MATH.sub(lambda match: " " + match.group(1) + " ", text)
    text = LINK.sub(r"\1", IMAGE.sub(" ", TAG.sub(" ", text)))
    text = re.sub(r"^\s*(\?\?\?\+?|!!!)\s+\w+", " ", text, flags=re.M)  # an admonition's type is not read
    return total + 60 * len(WORD.findall(text)) / WORDS_PER_MINUTE


def reading(text: str) -> Reading:
    """Core and optional seconds of a page's Markdown, its snippets already expanded."""
    core, optional = split(text)
    return Reading(core=round(seconds(core), 1), optional=round(seconds(optional), 1))
