"""The theme in Chromium, one page at a time, as a reader uses it: dark from the first paint on a dark system,
copy buttons and search with no input, the chapter that teaches a query first in search, a chapter printed from
a dark screen, the navigation drawer on a phone, every formula in the accessibility tree. Each check opens a
fresh context (a first visit) in one Chromium shared by the module; tests/site/test_browser.py reads every page.
"""

from __future__ import annotations

import re
from contextlib import contextmanager

import pytest
from playwright.sync_api import sync_playwright

from tests.site import reader
from tools import browser as bs


@pytest.fixture(scope="module")
def server(built_site):
    with bs.SiteServer(built_site, bs.site_prefix()) as server:
        yield server


@pytest.fixture(scope="module")
def playwright():
    with sync_playwright() as playwright:
        yield playwright


@pytest.fixture(scope="module")
def browser(playwright):
    browser = bs.launch_browser(playwright)
    yield browser
    browser.close()


@contextmanager
def fresh_context(browser, server, **options):
    """A first visit: a new context, nothing external allowed."""
    context = bs.new_context(browser, **options)
    try:
        bs.block_external_hosts(context, server.origin)
        yield context
    finally:
        context.close()


def report(problems: list[str]) -> None:
    if problems:
        pytest.fail(f"{len(problems)} problem(s):\n" + "\n".join(problems), pytrace=False)


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
    // a block folded inside a closed <details> keeps its box in this Chromium, but is not drawn
    return box.bottom > 0 && box.top < innerHeight && box.height > 0 && !block.closest("details:not([open])");
  }});
  return {{shown: onScreen.length, without: onScreen.filter(block => !block.querySelector('{reader.COPY_BUTTON}')).length}};
}}
"""


def test_the_theme_works_with_no_input_and_follows_a_dark_system(browser, server):
    """A first visit on a dark system is dark from the first paint; with no input at all, the code blocks
    on the screen have their copy buttons (and a block gets one when it comes into view: content.lazy);
    "/" opens search, which finds a chapter; the palette toggle switches and is remembered."""
    with fresh_context(browser, server, viewport=bs.DESKTOP, color_scheme="dark") as context:
        context.add_init_script(FIRST_PAINT_SCHEME_JS)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        page.goto(server.base + "part-2/numerical-stability/#masking-with-minus-infinity", wait_until="load")
        assert page.evaluate("() => window.__first_paint_scheme") == "slate"
        page.evaluate(reader.SETTLED_JS)
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
    "residual connection": "part-4/block/",
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
    "KV cache": "part-4/decoding/",
    "singular value": "part-1/rank-and-svd/",
    "bigram": "part-2/practice/",
    "induction head": "part-4/depth/",
    "ladder": "part-4/ladder/",
}
SEARCH_RESULTS_JS = """() => [...document.querySelectorAll('.md-search-result__item > a')].map(a => ({
    href: a.getAttribute('href'), text: a.innerText}))"""


def test_search_puts_the_chapter_first_and_its_snippets_have_no_holes(browser, server):
    """Each query's first result is the chapter that teaches it. A result's snippet reads as a sentence:
    formulas are there as text (hooks/search_index.py), not gaps such as "the average of  over"."""
    problems = []
    with fresh_context(browser, server, viewport=bs.DESKTOP) as context:
        page = context.new_page()
        page.goto(server.base, wait_until="load")
        page.keyboard.press("/")
        for query, chapter in SEARCHES.items():
            page.fill("input.md-search__input", "")
            page.wait_for_function("() => !document.querySelector('.md-search-result__item')")  # none left over
            # The whole query at once, then one key released: the theme searches on keyup, so once, not per letter.
            page.fill("input.md-search__input", query)
            page.keyboard.press("End")
            page.wait_for_function(
                "(query) => document.querySelector('.md-search-result__item')"
                " && document.querySelector('input.md-search__input').value === query",
                arg=query,
            )
            # Results for the whole query, not its first letters: the same twice, 300 ms apart (a busy machine
            # answers the last keystroke late).
            results, previous = page.evaluate(SEARCH_RESULTS_JS), None
            while results != previous:
                page.wait_for_timeout(300)
                results, previous = page.evaluate(SEARCH_RESULTS_JS), results
            first = results[0]["href"].split("?")[0] if results else None
            if first != server.base.removeprefix(server.origin) + chapter and not (first or "").endswith(chapter):
                problems.append(f"{query!r}: first result {first}, expected {chapter}")
            for result in results[:3]:
                if re.search(r"\w  +\w| [,.;:]", result["text"]):
                    problems.append(f"{query!r}: a hole in the snippet of {result['href']}: {result['text'][:200]!r}")
    report(problems)


PRINTED_JS = """() => ({
    scheme: document.body.getAttribute("data-md-color-scheme"),
    cutCode: [...document.querySelectorAll(".md-typeset pre > code")].filter(code => code.scrollWidth > code.clientWidth + 1).length,
    chrome: [".md-header", ".md-sidebar--primary", ".md-footer"].filter(s => document.querySelector(s)?.offsetParent).length,
    darkFigures: [...document.querySelectorAll("img[src*='.dark.svg']")].filter(img => img.offsetParent).length,
    lightFigures: [...document.querySelectorAll("img[src*='.light.svg']")].filter(img => img.offsetParent).length,
})"""


def test_a_chapter_prints_clean_on_paper_from_a_dark_screen(browser, server):
    """Printing a chapter from the browser (print.css, overrides/main.html): light palette and light figures
    though the screen is dark, no header, navigation or footer, and no line of code cut at the margin."""
    with fresh_context(browser, server, viewport={"width": 700, "height": 1000}, color_scheme="dark") as context:
        page = context.new_page()
        page.goto(server.base + "part-1/eigenvalues/", wait_until="load")
        page.evaluate(reader.SETTLED_JS)
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


@contextmanager
def phone_page(browser, server, path: str):
    """``path`` of the built site loaded in a fresh context at a phone's width, nothing external allowed."""
    with fresh_context(browser, server, viewport=bs.PHONE) as context:
        page = context.new_page()
        page.goto(server.base + path, wait_until="load")
        yield page


def test_the_navigation_drawer_opens_on_a_phone(browser, server):
    """On a phone the navigation is a drawer. Opened by its menu button, it shows the chapters of the
    current part, each link drawn where a tap finds it, and a tap goes there."""
    with phone_page(browser, server, "part-3/derivatives/") as page:
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


def test_a_screen_reader_gets_every_formula(playwright, server):
    """KaTeX writes each formula twice: the HTML one sees, and MathML for screen readers. The
    accessibility tree that Chromium builds when a screen reader runs (--force-renderer-accessibility)
    holds each formula's MathML, with the letters of the source and not its TeX (KaTeX's annotation)."""
    screen_reader = bs.launch_browser(playwright, ("--force-renderer-accessibility",))  # a browser of its own
    with phone_page(screen_reader, server, "part-3/derivatives/") as page:
        seen = page.evaluate("""() => {
            const mathml = [...document.querySelectorAll(".katex-mathml math")];
            const shown = math => {  // a closed fold hides all but its title (a formula in the title is read)
                const fold = math.closest("details:not([open])");
                return !fold || math.closest("summary")?.parentElement === fold;
            };
            return {formulas: mathml.length, readable: mathml.filter(shown).length};
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
        # All but those inside a collapsed fold's body, which a reader opens first.
        assert len(formulas) == seen["readable"], (
            f"{len(formulas)} of {seen['readable']} formulas in the accessibility tree"
        )
        read = {name for formula in formulas for name in text(formula)}
        assert "f" in read and "\U0001d453" not in read  # the letter f, not MATHEMATICAL ITALIC SMALL F
        assert not [name for name in read if "\\" in name], f"TeX source read in a formula: {sorted(read)[:20]}"
    screen_reader.close()
