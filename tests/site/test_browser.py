"""Every page of the built site, read in a real Chromium as readers read it.

The site built by the ``built_site`` fixture is served from 127.0.0.1 (under the same path as on GitHub
Pages) and every page is opened twice in Debian's chromium, driven by Playwright (never a downloaded
browser), with a fresh profile:

* 1280 px wide, light scheme: console errors, requests to other hosts, formulas, figures, every axe-core
  rule, and the copy button of every Python block, whose text must be the source the doc-test harness
  ran (which checks its output). A sample of the copied blocks -- the first of each page -- also runs in
  a fresh Python, where only the installed library is importable, and must print the output shown;
* 375 px wide, dark scheme (the reader's system prefers dark): the page never scrolls sideways, figures
  swap to their dark variant, and the colour rules of axe-core hold in the dark palette.

What a page shows is collected by tests/site/reader.py (in the background, from the moment the site is
built) and judged by tests/site/checks.py. Pages are discovered from the built site, so new chapters are covered as soon as they build. Each test
reports every page and problem it found. ``test_checks_catch_a_broken_page`` feeds a deliberately broken
page through the same code and asserts that each check complains.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

from tests.background import background, result, temp_dir
from tests.markdown_harness import needs_missing_torch
from tests.site import checks, reader
from tools import browser as bs
from tools.docblocks import SnippetExpander

ROOT = Path(__file__).resolve().parents[2]
LIGHT, DARK_PHONE, MODES = reader.LIGHT, reader.DARK_PHONE, reader.MODES


def harness_sources(page: str) -> list[str]:
    """The Python blocks of the Markdown behind a page of the site, snippet-expanded, as the harness runs them."""
    stem = ROOT / "docs" / page.rstrip("/")
    md = next((path for path in (stem.with_suffix(".md"), stem / "index.md") if path.is_file()), None)
    return _expander().python_blocks(md.read_text(encoding="utf-8")) if md else []


@functools.cache
def _expander() -> SnippetExpander:
    return SnippetExpander(ROOT / "mkdocs.yml")


@background
def reading() -> reader.Reading:
    """Every page in both modes, read while the tests before these run (tests/background.py)."""
    site = result("built_site")
    return reader.read_site(site, bs.site_pages(site), temp_dir("browser"))


def report(problems: list[str]) -> None:
    if problems:
        pytest.fail(f"{len(problems)} problem(s):\n" + "\n".join(problems), pytrace=False)


def visits(reading: reader.Reading, *modes: reader.Mode):
    return [visit for mode in (modes or MODES) for visit in reading.visits[mode].values()]


def test_every_page_is_read(reading):
    assert "" in reading.pages, "the home page is missing from the built site"
    assert len(reading.pages) >= 3
    for mode in MODES:
        assert set(reading.visits[mode]) == set(reading.pages), f"pages not read in mode {mode.name}"


def test_no_console_errors(reading):
    report([problem for visit in visits(reading) for problem in checks.check_console(visit)])


def test_no_request_leaves_the_site(reading):
    report([problem for visit in visits(reading) for problem in checks.check_requests(visit, reading.origin)])


def test_every_formula_is_rendered(reading):
    report([problem for visit in visits(reading, LIGHT) for problem in checks.check_formulas(visit)])


def test_no_page_scrolls_sideways_on_a_phone(reading):
    report([problem for visit in visits(reading, DARK_PHONE) for problem in checks.check_no_sideways_scroll(visit)])


@pytest.mark.parametrize("mode", MODES, ids=["light", "dark"])
def test_scheme_and_figures(reading, mode):
    report(
        [
            problem
            for visit in visits(reading, mode)
            for problem in checks.check_scheme(visit) + checks.check_figures(visit)
        ]
    )


@pytest.mark.parametrize("mode", MODES, ids=["light", "dark"])
def test_accessibility(reading, mode):
    """axe-core finds no serious or critical violation (in dark mode: the colour rules)."""
    report([problem for visit in visits(reading, mode) for problem in checks.check_axe(visit)])


def test_copy_buttons_copy_the_code_the_doc_tests_ran(reading):
    report(
        [
            problem
            for visit in visits(reading, LIGHT)
            for problem in checks.check_copies(visit, harness_sources(visit.page))
        ]
    )


def test_copied_blocks_print_their_output(reading, tmp_path):
    """A sample, the first block of each page: the harness runs every block as the reader's copy runs. A block
    that imports PyTorch, where it is not installed, is skipped by the harness with its reason, and here too."""

    def first_runnable(visit):
        return [copy for copy in visit.copies if not needs_missing_torch((copy["text"] or "").splitlines())][:1]

    runs = reader.run_copies(visits(reading, LIGHT), tmp_path, sample=first_runnable)
    assert len(runs) >= 20, f"only {len(runs)} pages with Python blocks were copied and run"
    report(
        [
            problem
            for visit, block, text, result in runs
            for problem in checks.check_copied_run(visit, block, text, result)
        ]
    )


# --- the checks would fail ----------------------------------------------------------------------

BROKEN_PAGE = r"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A broken page</title>
<style>
  body { margin: 0; font-family: sans-serif; }
  .wide { width: 900px; background: #eee; }
  .pale { color: #ddd; background: #fff; }
  .pale-formula { color: #ddd; }
</style></head>
<body data-md-color-scheme="default">
<article class="md-content__inner">
  <h1>A broken page</h1>
  <p>Raw TeX that was never rendered: \(x^2 + 1\) and $$\frac{a}{b}$$.</p>
  <p><span class="arithmatex">\(y\)</span></p>
  <img src="http://example.invalid/tracker.png" alt="a tracker">
  <img src="plot.svg#only-dark">
  <div class="wide">a table far wider than a phone</div>
  <p class="pale">Text too pale to read.</p>
  <p>A formula too pale to read: <span class="katex"><span class="katex-html pale-formula" aria-hidden="true"><span
    class="base"><span class="mord mathnormal">x</span><span class="mbin">+</span><span class="mord">1</span></span></span></span>
    and one coloured glyph by glyph: <span class="katex"><span class="katex-html" aria-hidden="true"><span class="base"><span
    class="mord" style="color:#eee">yz</span></span></span></span>.</p>

  <div class="language-python highlight"><pre><button class="md-code__button" data-md-type="copy"></button><code>x = 6
print(x)</code></pre></div>
  <div class="language-output highlight"><pre><code>6</code></pre></div>

  <div class="language-python highlight"><pre><button class="md-code__button" data-md-type="copy" data-text="1  print(1 + 1)"></button><code>print(1 + 1)</code></pre></div>
  <div class="language-output highlight"><pre><code>2</code></pre></div>

  <div class="language-python highlight"><pre><button class="md-code__button" data-md-type="copy"></button><code>print(2 + 2)</code></pre></div>
  <div class="language-output highlight"><pre><code>5</code></pre></div>
</article>
<script>
  for (const button of document.querySelectorAll("button")) {
    button.setAttribute("aria-label", "Copy to clipboard");
    button.addEventListener("click", () =>
      navigator.clipboard.writeText(button.dataset.text || button.parentElement.querySelector("code").textContent));
  }
  console.error("broken on purpose");
</script>
</body></html>
"""


def test_checks_catch_a_broken_page(tmp_path):
    site = tmp_path / "site"
    (site / "broken").mkdir(parents=True)
    (site / "broken" / "index.html").write_text(BROKEN_PAGE, encoding="utf-8")
    (site / "broken" / "plot.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>', encoding="utf-8"
    )
    reading = reader.read_site(site, ["broken/"], tmp_path, readers=1)
    light, phone = reading.visits[LIGHT]["broken/"], reading.visits[DARK_PHONE]["broken/"]

    def says(problems: list[str], *fragments: str) -> None:
        assert problems, "the check found nothing wrong"
        assert all("page 'broken/'" in problem for problem in problems), problems
        for fragment in fragments:
            assert any(fragment in problem for problem in problems), f"{fragment!r} not reported in {problems}"

    says(checks.check_console(light), "broken on purpose")
    says(checks.check_requests(light, reading.origin), "http://example.invalid/tracker.png")
    says(
        checks.check_formulas(light),
        "raw TeX is visible: ",
        "\\(x^2 + 1\\)",
        "$$",
        "formula not rendered by KaTeX: «\\(y\\)»",
    )
    says(checks.check_no_sideways_scroll(phone), "scrolls sideways at 375 px", "div.wide")
    says(checks.check_figures(light), "plot.svg#only-dark is shown in light mode", "has no alt text")
    says(checks.check_scheme(phone), "for a reader who prefers dark")
    says(checks.check_axe(light), "color-contrast", "image-alt", ".pale-formula", "contrast of 1.16")
    tested = ["x = 6\nprint(x)", "print(1 + 1)", "print(2 + 2)\nprint('more')"]
    says(
        checks.check_copies(light, tested),
        "Python block 2: the copy button copies text that is not the code shown",
        "Python block 3: the copied text is not the source the doc tests ran",
    )
    says(checks.check_copies(light, tested[:2]), "3 Python blocks on the page, 2 in its Markdown")
    runs = reader.run_copies([light], tmp_path, sample=lambda visit: visit.copies)
    run_problems = [
        problem
        for visit, block, text, result in runs
        for problem in checks.check_copied_run(visit, block, text, result)
    ]
    says(
        run_problems,
        "Python block 2 fails when copied and run alone",
        "Python block 3: copied and run alone it prints\n4\nbut the page shows\n5",
    )
    assert not any("block 1" in problem for problem in run_problems), "a correct block was reported: " + "\n".join(
        run_problems
    )
    assert len(runs) == 3


def phone_visits(reading: reader.Reading) -> list[reader.PageVisit]:
    return [visit for visit in reading.visits[DARK_PHONE].values() if visit.phone is not None]


def test_display_formulas_fit_a_phone(reading):
    """At 375 px every page's first display formula, and 95 % of all of them, fit without scrolling:
    long ones are written in aligned lines (docs/contributing.md, "Formulas")."""
    problems, total, wide = [], 0, []
    for visit in phone_visits(reading):
        formulas = visit.phone["formulas"]
        total += len(formulas)
        wide += [(visit.page, formula) for formula in formulas if formula["over"] > 1]
        if formulas and formulas[0]["over"] > 1:
            problems.append(
                f"{visit.page}: the first display formula is {formulas[0]['over']} px too wide: {formulas[0]['tex']}"
            )
    if total and len(wide) > 0.05 * total:
        problems.append(f"{len(wide)} of {total} display formulas are wider than a 375 px phone (at most 5 % may be):")
        problems += [f"  {page}: +{formula['over']} px: {formula['tex']}" for page, formula in wide]
    report(problems)


def test_inline_formulas_keep_their_punctuation_on_their_line(reading):
    report(
        [
            f"{visit.page}: a line starts with the punctuation after {text!r}"
            for visit in phone_visits(reading)
            for text in visit.phone["stranded"]
        ]
    )


def test_figures_are_readable_on_a_phone_or_open_full_size(reading, built_site):
    """Text in a figure drawn at 375 px is at least 10 CSS px, or a tap on the figure opens its own
    variant full size (the dark one on its dark ground)."""
    problems = []
    for visit in phone_visits(reading):
        for figure in visit.phone["figures"]:
            svg = (built_site / "figures" / figure["src"].rsplit("/", 1)[-1]).read_text(encoding="utf-8")
            view_width = float(re.search(r'viewBox="0 0 ([\d.]+)', svg).group(1))
            smallest = min(float(size) for size in re.findall(r"font-size: ?([\d.]+)px", svg))
            drawn = smallest * figure["width"] / view_width
            if drawn < 10 and figure["link"] != figure["src"]:
                problems.append(
                    f"{visit.page}: {figure['src']} draws text at {drawn:.1f} px and a tap does not open it"
                )
            if ".dark." in figure["src"] and "#1e2129" not in svg[:3000]:
                problems.append(f"{figure['src']}: opened on its own, the dark variant has no dark ground")
    report(problems)
