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

Pages are discovered from the built site, so new chapters are covered as soon as they build. Each test
reports every page and problem it found. ``test_checks_catch_a_broken_page`` feeds a deliberately broken
page through the same code and asserts that each check complains.
"""

from __future__ import annotations

import functools
import os
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from tools import browser as bs
from tools.docblocks import SnippetExpander

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
LIGHT = bs.Mode("light, 1280 px", bs.DESKTOP, "light", axe_rules=None, copy=True)
DARK_PHONE = bs.Mode("dark, 375 px", bs.PHONE, "dark", axe_rules=bs.COLOUR_RULES)
MODES = (LIGHT, DARK_PHONE)
# Two browsers read pages side by side (the machine has 2 cores).
READERS = max(1, min(2, os.cpu_count() or 1))


@dataclass
class Reading:
    """Everything the browsers saw of the site."""

    origin: str
    pages: list[str]
    visits: dict[bs.Mode, dict[str, bs.PageVisit]] = field(default_factory=dict)  # mode -> page -> visit


def read_site(site: Path, pages: list[str], workdir: Path, modes=MODES, readers: int = READERS) -> Reading:
    """Open every page in every mode, ``readers`` browsers side by side."""
    queue = list(pages)
    lock = threading.Lock()
    errors: list[BaseException] = []
    with bs.SiteServer(site, bs.site_prefix()) as server:
        reading = Reading(server.origin, list(pages), {mode: {} for mode in modes})

        def reader(number: int) -> None:
            try:
                with sync_playwright() as playwright:
                    context = bs.launch(playwright, workdir / f"profile-{number}")
                    try:
                        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.origin)
                        bs.block_external_hosts(context, server.origin)
                        while True:
                            with lock:
                                if not queue or errors:
                                    return
                                page = queue.pop(0)
                            for mode in modes:
                                visit = bs.visit_page(context, server.base, page, mode)
                                with lock:
                                    reading.visits[mode][page] = visit
                    finally:
                        context.close()
            except BaseException as error:  # noqa: BLE001 - handed to the main thread
                with lock:
                    errors.append(error)

        threads = [
            threading.Thread(target=reader, args=(number,), name=f"reader-{number}") for number in range(readers)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if errors:
            raise errors[0]
    return reading


def run_copies(visits: list[bs.PageVisit], workdir: Path, sample) -> list[tuple[bs.PageVisit, dict, str, tuple]]:
    """Run the copied text of the blocks ``sample(visit)`` picks, two at a time."""
    chosen = [
        (visit, visit.content["python"][copy["index"]], copy["text"])
        for visit in visits
        for copy in sample(visit)
        if copy["text"] is not None
    ]
    with ThreadPoolExecutor(max_workers=2) as executor:
        results = list(executor.map(lambda job: bs.run_copied(job[2], workdir), chosen))
    return [(visit, block, text, result) for (visit, block, text), result in zip(chosen, results)]


def harness_sources(page: str) -> list[str]:
    """The Python blocks of the Markdown behind a page of the site, snippet-expanded, as the harness runs them."""
    stem = ROOT / "docs" / page.rstrip("/")
    md = next((path for path in (stem.with_suffix(".md"), stem / "index.md") if path.is_file()), None)
    return _expander().python_blocks(md.read_text(encoding="utf-8")) if md else []


@functools.cache
def _expander() -> SnippetExpander:
    return SnippetExpander(ROOT / "mkdocs.yml")


@pytest.fixture(scope="module")
def reading(built_site, tmp_path_factory) -> Reading:
    return read_site(built_site, bs.site_pages(built_site), tmp_path_factory.mktemp("browser"))


def report(problems: list[str]) -> None:
    if problems:
        pytest.fail(f"{len(problems)} problem(s):\n" + "\n".join(problems), pytrace=False)


def visits(reading: Reading, *modes: bs.Mode):
    return [visit for mode in (modes or MODES) for visit in reading.visits[mode].values()]


def test_every_page_is_read(reading):
    assert "" in reading.pages, "the home page is missing from the built site"
    assert len(reading.pages) >= 3
    for mode in MODES:
        assert set(reading.visits[mode]) == set(reading.pages), f"pages not read in mode {mode.name}"


def test_no_console_errors(reading):
    report([problem for visit in visits(reading) for problem in bs.check_console(visit)])


def test_no_request_leaves_the_site(reading):
    report([problem for visit in visits(reading) for problem in bs.check_requests(visit, reading.origin)])


def test_every_formula_is_rendered(reading):
    report([problem for visit in visits(reading, LIGHT) for problem in bs.check_formulas(visit)])


def test_no_page_scrolls_sideways_on_a_phone(reading):
    report([problem for visit in visits(reading, DARK_PHONE) for problem in bs.check_no_sideways_scroll(visit)])


@pytest.mark.parametrize("mode", MODES, ids=["light", "dark"])
def test_scheme_and_figures(reading, mode):
    report([problem for visit in visits(reading, mode) for problem in bs.check_scheme(visit) + bs.check_figures(visit)])


@pytest.mark.parametrize("mode", MODES, ids=["light", "dark"])
def test_accessibility(reading, mode):
    """axe-core finds no serious or critical violation (in dark mode: the colour rules)."""
    report([problem for visit in visits(reading, mode) for problem in bs.check_axe(visit)])


def test_copy_buttons_copy_the_code_the_doc_tests_ran(reading):
    report(
        [problem for visit in visits(reading, LIGHT) for problem in bs.check_copies(visit, harness_sources(visit.page))]
    )


def test_copied_blocks_print_their_output(reading, tmp_path):
    """A sample, the first block of each page: the harness runs every block as the reader's copy runs."""
    runs = run_copies(visits(reading, LIGHT), tmp_path, sample=lambda visit: visit.copies[:1])
    assert len(runs) >= 20, f"only {len(runs)} pages with Python blocks were copied and run"
    report(
        [problem for visit, block, text, result in runs for problem in bs.check_copied_run(visit, block, text, result)]
    )


# --- the theme's own script (loaded as Material ships it) ----------------------------------------

# Records the colour scheme the moment the page's content starts to arrive (the container after the
# header): what the first paint shows.
FIRST_PAINT_SCHEME_JS = """
new MutationObserver((changes, observer) => {
  if (!document.querySelector(".md-container")) return;
  window.__first_paint_scheme = document.body.getAttribute("data-md-color-scheme");
  observer.disconnect();
}).observe(document, {childList: true, subtree: true});
"""
# Code blocks on the screen, and how many of them have no copy button.
COPY_BUTTONS_JS = f"""
() => {{
  const onScreen = [...document.querySelectorAll("article div.language-python")].filter(block => {{
    const box = block.getBoundingClientRect();
    return box.bottom > 0 && box.top < innerHeight && box.height > 0;
  }});
  return {{shown: onScreen.length, without: onScreen.filter(block => !block.querySelector('{bs.COPY_BUTTON}')).length}};
}}
"""


def test_the_theme_works_with_no_input_and_follows_a_dark_system(built_site, tmp_path):
    """A first visit on a dark system is dark from the first paint; with no input at all, the code blocks
    on the screen have their copy buttons (and a block gets one when it comes into view: content.lazy);
    "/" opens search, which finds a chapter; the palette toggle switches and is remembered."""
    with bs.SiteServer(built_site, bs.site_prefix()) as server, sync_playwright() as playwright:
        context = bs.launch(playwright, tmp_path / "profile", viewport=bs.DESKTOP, color_scheme="dark")
        try:
            bs.block_external_hosts(context, server.origin)
            context.add_init_script(FIRST_PAINT_SCHEME_JS)
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
            page.goto(server.base + "part-2/softmax/#the-librarys-softmax", wait_until="load")
            assert page.evaluate("() => window.__first_paint_scheme") == "slate"
            page.evaluate(bs.SETTLED_JS)
            assert page.evaluate("() => document.body.getAttribute('data-md-color-scheme')") == "slate"
            page.wait_for_function(f"() => ({COPY_BUTTONS_JS})().without === 0", timeout=10000)
            assert page.evaluate(COPY_BUTTONS_JS)["shown"] > 0
            page.evaluate("() => document.querySelectorAll('article div.language-python')[6].scrollIntoView()")
            page.wait_for_function(f"() => ({COPY_BUTTONS_JS})().without === 0", timeout=10000)

            page.keyboard.press("/")
            page.wait_for_function(
                "() => document.getElementById('__search').checked && "
                "document.activeElement === document.querySelector('input.md-search__input')"
            )
            page.keyboard.type("temperature", delay=20)  # as a reader types
            page.wait_for_selector(".md-search-result__item", timeout=15000)
            assert "Softmax and temperature" in page.locator(".md-search-result__item").first.inner_text()
            page.keyboard.press("Escape")

            page.locator('[data-md-component="palette"] label:not([hidden])').click()
            page.wait_for_function("() => document.body.getAttribute('data-md-color-scheme') === 'default'")
            assert page.evaluate("() => __md_get('__palette').color.scheme") == "default"  # for the next page
            assert not errors, errors
        finally:
            context.close()


# A reader's query -> the chapter that teaches it, which must be the first result (above the API reference
# and the labs).
SEARCHES = {
    "softmax": "part-2/softmax/",
    "AdamW": "part-3/optimizers/",
    "KL divergence": "part-2/information/",
    "chain rule": "part-3/chain-rule/",
    "multi-head attention": "part-4/multi-head/",
    "eigenvector": "part-1/eigenvalues/",
    "cross entropy": "part-2/information/",
    "layer norm": "part-2/statistics/",
    "temperature": "part-2/softmax/",
    "perplexity": "part-2/information/",
    "gradient descent": "part-3/optimizers/",
    "positional encoding": "part-4/embeddings/",
    "matrix multiplication": "part-1/matrices/",
    "dot product": "part-1/dot-product/",
    "broadcasting": "part-1/tensors/",
    "derivative": "part-3/derivatives/",
    "entropy": "part-2/information/",
    "variance": "part-2/statistics/",
    "residual": "part-4/block/",
    "automatic differentiation": "part-3/autodiff/",
    "numerical stability": "part-2/numerical-stability/",
    "embedding": "part-4/embeddings/",
    "transformer block": "part-4/block/",
    "scaled dot-product attention": "part-4/attention/",
    "Bayes": "part-2/conditional/",
    "conditional probability": "part-2/conditional/",
    "likelihood": "part-2/likelihood/",
    "covariance": "part-2/statistics/",
    "weight decay": "part-3/optimizers/",
    "causal mask": "part-4/attention/",
    "gradient clipping": "part-3/schedules/",
    "cosine decay": "part-3/schedules/",
    "RMSNorm": "part-4/modern/",
    "KV cache": "part-4/modern/",
}
SEARCH_RESULTS_JS = """() => [...document.querySelectorAll('.md-search-result__item > a')].map(a => ({
    href: a.getAttribute('href'), text: a.innerText}))"""


def test_search_puts_the_chapter_first_and_its_snippets_have_no_holes(built_site, tmp_path):
    """Each query's first result is the chapter that teaches it. A result's snippet reads as a sentence:
    formulas are there as text (hooks/search_index.py), not gaps such as "the average of  over"."""
    problems = []
    with bs.SiteServer(built_site, bs.site_prefix()) as server, sync_playwright() as playwright:
        context = bs.launch(playwright, tmp_path / "profile", viewport=bs.DESKTOP)
        try:
            bs.block_external_hosts(context, server.origin)
            page = context.new_page()
            page.goto(server.base, wait_until="load")
            page.keyboard.press("/")
            for query, chapter in SEARCHES.items():
                page.fill("input.md-search__input", "")
                page.keyboard.type(query, delay=5)
                page.wait_for_function(
                    "(query) => document.querySelector('.md-search-result__item')"
                    " && document.querySelector('input.md-search__input').value === query",
                    arg=query,
                )
                page.wait_for_timeout(300)  # results for the whole query, not its first letters
                results = page.evaluate(SEARCH_RESULTS_JS)
                first = results[0]["href"].split("?")[0] if results else None
                if first != server.base.removeprefix(server.origin) + chapter and not (first or "").endswith(chapter):
                    problems.append(f"{query!r}: first result {first}, expected {chapter}")
                for result in results[:3]:
                    if re.search(r"\w  +\w| [,.;:]", result["text"]):
                        problems.append(
                            f"{query!r}: a hole in the snippet of {result['href']}: {result['text'][:200]!r}"
                        )
        finally:
            context.close()
    report(problems)


PRINTED_JS = """() => ({
    scheme: document.body.getAttribute("data-md-color-scheme"),
    cutCode: [...document.querySelectorAll(".md-typeset pre > code")].filter(code => code.scrollWidth > code.clientWidth + 1).length,
    chrome: [".md-header", ".md-sidebar--primary", ".md-footer"].filter(s => document.querySelector(s)?.offsetParent).length,
    darkFigures: [...document.querySelectorAll("img[src*='.dark.svg']")].filter(img => img.offsetParent).length,
    lightFigures: [...document.querySelectorAll("img[src*='.light.svg']")].filter(img => img.offsetParent).length,
})"""


def test_a_chapter_prints_clean_on_paper_from_a_dark_screen(built_site, tmp_path):
    """Printing a chapter from the browser (print.css, overrides/main.html): light palette and light figures
    though the screen is dark, no header, navigation or footer, and no line of code cut at the margin."""
    with bs.SiteServer(built_site, bs.site_prefix()) as server, sync_playwright() as playwright:
        context = bs.launch(
            playwright, tmp_path / "profile", viewport={"width": 700, "height": 1000}, color_scheme="dark"
        )
        try:
            bs.block_external_hosts(context, server.origin)
            page = context.new_page()
            page.goto(server.base + "part-1/eigenvalues/", wait_until="load")
            page.evaluate(bs.SETTLED_JS)
            assert page.evaluate(PRINTED_JS)["scheme"] == "slate"
            page.emulate_media(media="print")
            page.wait_for_function("() => document.body.getAttribute('data-md-color-scheme') === 'default'")
            printed = page.evaluate(PRINTED_JS)
            assert printed == {
                "scheme": "default",
                "cutCode": 0,
                "chrome": 0,
                "darkFigures": 0,
                "lightFigures": printed["lightFigures"],
            }
            assert printed["lightFigures"] > 0
            page.emulate_media(media="screen")
            page.wait_for_function("() => document.body.getAttribute('data-md-color-scheme') === 'slate'")
        finally:
            context.close()


@contextmanager
def phone_page(site: Path, tmp_path: Path, path: str, extra_args: tuple[str, ...] = ()):
    """``path`` of the built site loaded in a fresh Chromium at a phone's width, nothing external allowed."""
    with bs.SiteServer(site, bs.site_prefix()) as server, sync_playwright() as playwright:
        context = bs.launch(playwright, tmp_path / "profile", extra_args, viewport=bs.PHONE)
        try:
            bs.block_external_hosts(context, server.origin)
            page = context.new_page()
            page.goto(server.base + path, wait_until="load")
            yield page
        finally:
            context.close()


def test_the_navigation_drawer_opens_on_a_phone(built_site, tmp_path):
    """On a phone the navigation is a drawer. Opened by its menu button, it shows the chapters of the
    current part, each link drawn where a tap finds it, and a tap goes there."""
    with phone_page(built_site, tmp_path, "part-3/derivatives/") as page:
        nav = "nav.md-nav--primary"
        page.locator('label.md-header__button[for="__drawer"]').click()
        page.wait_for_function("() => document.getElementById('__drawer').checked")
        link = page.locator(nav).get_by_role("link", name="The chain rule", exact=True)
        # Drawn and on top where the reader taps once the drawer has slid in (its transition ends).
        page.wait_for_function(
            """(link) => {
            const box = link.getBoundingClientRect();
            return box.width > 0 && box.height > 0 && box.left >= 0 && box.right <= innerWidth
                && link.contains(document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2));
        }""",
            arg=link.element_handle(),
            timeout=10000,
        )
        link.click()
        page.wait_for_url("**/part-3/chain-rule/")


def test_a_screen_reader_gets_every_formula(built_site, tmp_path):
    """KaTeX writes each formula twice: the HTML one sees, and MathML for screen readers. The
    accessibility tree that Chromium builds when a screen reader runs (--force-renderer-accessibility)
    holds each formula's MathML, with the letters of the source and not its TeX (KaTeX's annotation)."""
    with phone_page(built_site, tmp_path, "part-3/derivatives/", ("--force-renderer-accessibility",)) as page:
        seen = page.evaluate("""() => {
            const mathml = [...document.querySelectorAll(".katex-mathml math")];
            return {formulas: mathml.length, readable: mathml.filter(math => !math.closest("details:not([open])")).length};
        }""")
        assert seen["formulas"] > 20, seen
        tree = page.context.new_cdp_session(page).send("Accessibility.getFullAXTree")["nodes"]
        by_id = {node["nodeId"]: node for node in tree}

        def text(node):  # the names of a node and all below it, as a screen reader gets them
            yield node.get("name", {}).get("value") or ""
            for child in node.get("childIds", []):
                if child in by_id:
                    yield from text(by_id[child])

        formulas = [node for node in tree if node.get("role", {}).get("value") in ("math", "MathMLMath")]
        # All but those in a collapsed solution, which a reader opens first.
        assert len(formulas) == seen["readable"], (
            f"{len(formulas)} of {seen['readable']} formulas in the accessibility tree"
        )
        read = {name for formula in formulas for name in text(formula)}
        assert "f" in read and "\U0001d453" not in read  # the letter f, not MATHEMATICAL ITALIC SMALL F
        assert not [name for name in read if "\\" in name], f"TeX source read in a formula: {sorted(read)[:20]}"


# --- the checks would fail ----------------------------------------------------------------------

BROKEN_PAGE = r"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A broken page</title>
<style>
  body { margin: 0; font-family: sans-serif; }
  .wide { width: 900px; background: #eee; }
  .pale { color: #ddd; background: #fff; }
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
    reading = read_site(site, ["broken/"], tmp_path, readers=1)
    light, phone = reading.visits[LIGHT]["broken/"], reading.visits[DARK_PHONE]["broken/"]

    def says(problems: list[str], *fragments: str) -> None:
        assert problems, "the check found nothing wrong"
        assert all("page 'broken/'" in problem for problem in problems), problems
        for fragment in fragments:
            assert any(fragment in problem for problem in problems), f"{fragment!r} not reported in {problems}"

    says(bs.check_console(light), "broken on purpose")
    says(bs.check_requests(light, reading.origin), "http://example.invalid/tracker.png")
    says(
        bs.check_formulas(light),
        "raw TeX is visible: ",
        "\\(x^2 + 1\\)",
        "$$",
        "formula not rendered by KaTeX: «\\(y\\)»",
    )
    says(bs.check_no_sideways_scroll(phone), "scrolls sideways at 375 px", "div.wide")
    says(bs.check_figures(light), "plot.svg#only-dark is shown in light mode", "has no alt text")
    says(bs.check_scheme(phone), "for a reader who prefers dark")
    says(bs.check_axe(light), "color-contrast", "image-alt")
    tested = ["x = 6\nprint(x)", "print(1 + 1)", "print(2 + 2)\nprint('more')"]
    says(
        bs.check_copies(light, tested),
        "Python block 2: the copy button copies text that is not the code shown",
        "Python block 3: the copied text is not the source the doc tests ran",
    )
    says(bs.check_copies(light, tested[:2]), "3 Python blocks on the page, 2 in its Markdown")
    runs = run_copies([light], tmp_path, sample=lambda visit: visit.copies)
    run_problems = [
        problem for visit, block, text, result in runs for problem in bs.check_copied_run(visit, block, text, result)
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


def phone_visits(reading: Reading) -> list[bs.PageVisit]:
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
