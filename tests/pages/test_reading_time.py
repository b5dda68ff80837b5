"""The reading-time rule (tools/reading_time.py), the one way optional material is marked, and the path's budgets:
Home and the map 15 minutes, Part I 60, Part II 70, Part III 65, Part IV 150 — six hours — and the path's labs
within a working day of eight."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tools import mkdocs_yml, reading_path
from tools.reading_time import SECONDS_PER_CODE_BLOCK, SECONDS_PER_DISPLAY_FORMULA, reading, split

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
BUDGETS = {"Start": 15, "Part I": 60, "Part II": 70, "Part III": 65, "Part IV": 150}
PATH_MINUTES, DAY_MINUTES = 360, 480
# Parts whose restructuring into a core path and deeper folds is still to come: their budget is expected to fail
# until then (strict: the day a part comes within its budget, this test says to take it off the list).
NOT_YET_WITHIN: set[str] = set()


@pytest.fixture(scope="module")
def path() -> reading_path.Path:
    return reading_path.compute(ROOT / "mkdocs.yml", mkdocs_yml.load()["nav"])


# --- the rule ---------------------------------------------------------------------------------------------------


def test_prose_reads_at_100_words_a_minute_and_inline_math_counts_as_words():
    assert reading("# Ten words\n\nOne two three four five six seven $x$.").core == pytest.approx(6.0)
    assert reading("A table | with | cells\n| --- | --- | --- |\n| one | two | three |").core == pytest.approx(4.2)


def test_a_formula_with_a_less_than_sign_is_read_whole():
    assert reading("It converges when $\\eta < 2/a$ and diverges when $\\eta > 2/a$, always.").core == pytest.approx(
        6.6
    )


def test_a_figure_is_free_even_when_its_alt_text_holds_brackets():
    assert reading("![The embedding W_E[t] of token t, drawn](fig.svg#only-light)\n\nTwo words.").core == pytest.approx(
        1.2
    )


def test_a_display_formula_takes_15_seconds_and_its_tex_is_not_read_as_words():
    text = "$$\n\\operatorname{softmax}(x)_i = \\frac{e^{x_i}}{\\sum_j e^{x_j}}\n$$\n"
    assert reading(text).core == SECONDS_PER_DISPLAY_FORMULA


def test_a_code_block_takes_30_seconds_plus_its_comments_and_an_output_is_free():
    code = "```python\nx = 1  # five words in a comment\nprint(x)\n```\n\n```output\n1 2 3 4 5 6 7 8\n```\n"
    assert reading(code).core == pytest.approx(SECONDS_PER_CODE_BLOCK + 3.0)


def test_exercises_and_folded_deeper_blocks_are_optional_and_everything_else_core():
    text = (
        "Core words here.\n\n"
        '??? deeper "An aside"\n\n    Folded words, off the path.\n\n'
        '???+ deeper "Open"\n\n    Open words count.\n\n'
        '??? note "A note"\n\n    Note words count.\n\n'
        "## Exercises\n\n1. An exercise.\n"
    )
    core, optional = split(text)
    assert "    Folded words, off the path." in optional and "1. An exercise." in optional
    assert "    Open words count." in core and "    Note words count." in core
    assert reading(text).core == pytest.approx(60 * 12 / 100)  # the titles "Open" and "A note" count, their types not


def test_a_deeper_page_is_optional_as_a_whole():
    result = reading("---\npath: deeper\n---\n\n# A deeper page\n\nFour more words here.")
    assert result.core == 0 and result.optional == pytest.approx(4.2)


def test_included_markdown_counts(path):
    home = path.pages["index.md"].reading.core
    bare = reading((DOCS / "index.md").read_text(encoding="utf-8")).core  # its --8<-- include unexpanded
    assert home > bare + 15


# --- one way to mark what is optional ---------------------------------------------------------------------------


ADMONITION = re.compile(r"^\s*(\?\?\?\+?|!!!)\s+(\w+)(?:\s+\"([^\"]*)\")?", re.M)


def test_optional_material_is_marked_only_as_deeper_folds_or_deeper_pages(path):
    """Going-deeper pages are exactly those in a "Going deeper" nav section (``compute`` refuses a mismatch); no other
    admonition claims to be optional."""
    assert any(entry.deeper for entry in path.pages.values())
    for page in sorted(DOCS.rglob("*.md")):
        for match in ADMONITION.finditer(page.read_text(encoding="utf-8")):
            kind, title = match.group(2), (match.group(3) or "").lower()
            if kind != "deeper":
                assert not re.search(r"\b(optional|skip|going deeper|aside)\b", title), (
                    f"{page.relative_to(DOCS)}: '{match.group(0).strip()}' marks optional material; use ??? deeper"
                )


# --- the budgets ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("part", BUDGETS)
def test_each_part_of_the_path_reads_within_its_budget(path, part, request):
    if part in NOT_YET_WITHIN:
        request.applymarker(
            pytest.mark.xfail(strict=True, reason=f"{part} is not yet restructured into core and deeper")
        )
    minutes = path.core_minutes(part)
    pages = ", ".join(
        f"{e.src} {e.reading.core_minutes}" for e in path.pages.values() if e.part == part and not e.deeper
    )
    assert minutes <= BUDGETS[part], f"{part}: {minutes:.0f} min on the path, budget {BUDGETS[part]} ({pages})"


def test_the_path_reads_in_six_hours(path, request):
    if NOT_YET_WITHIN and path.core_minutes() > PATH_MINUTES:  # parts over budget may still leave the total within
        request.applymarker(pytest.mark.xfail(strict=True, reason="parts not yet within their budgets"))
    assert path.core_minutes() <= PATH_MINUTES


@pytest.mark.xfail(strict=True, reason="writing every piece of the capstone takes 4 hours after 5 h 45 of reading")
def test_the_paths_reading_and_labs_fit_a_working_day(path):
    assert path.core_minutes() + sum(lab.minutes for lab in path.path_labs()) <= DAY_MINUTES


def test_the_home_page_lists_every_page_and_lab_of_the_path_with_its_minutes(path):
    table = reading_path.as_markdown(path, "index.md")
    for entry in path.pages.values():
        if not entry.deeper:
            assert f"[{entry.title}]({entry.src}) {round(entry.reading.core / 60)}" in table
    for lab in path.path_labs():
        assert f"[{lab.title}]({lab.src}) {lab.minutes}" in table
    assert f"**{reading_path._minutes(path.core_minutes() * 60)}**" in table
    assert "<!-- reading-path -->" in (DOCS / "index.md").read_text(encoding="utf-8")
