"""Every page of the built site, read in a real Chromium as readers read it.

The site built by the ``built_site`` fixture is served from 127.0.0.1 (under the same path as on GitHub
Pages) and every page is opened twice in Debian's chromium, driven by Playwright (never a downloaded
browser), with a fresh profile:

* 1280 px wide, light scheme: console errors, requests to other hosts, formulas, figures, every axe-core
  rule, and the copy button of every Python block. The copied text then runs alone in a fresh Python
  (``sys.executable``, where the package is installed) and must print the output block under it;
* 375 px wide, dark scheme (the reader's system prefers dark): the page never scrolls sideways, figures
  swap to their dark variant, and the colour rules of axe-core hold in the dark palette.

Pages are discovered from the built site, so new chapters are covered as soon as they build. Each test
reports every page and problem it found. ``test_checks_catch_a_broken_page`` feeds a deliberately broken
page through the same code and asserts that each check complains.
"""

from __future__ import annotations

import os
import re
import threading
from contextlib import contextmanager
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

from tests import browser_support as bs

LIGHT = bs.Mode("light, 1280 px", bs.DESKTOP, "light", axe_rules=None, copy=True)
DARK_PHONE = bs.Mode("dark, 375 px", bs.PHONE, "dark", axe_rules=bs.COLOUR_RULES)
MODES = (LIGHT, DARK_PHONE)
# Two browsers read pages side by side (the machine has 2 cores); copied blocks run meanwhile.
READERS = max(1, min(2, os.cpu_count() or 1))


@dataclass
class Reading:
    """Everything the browsers saw of the site, and what running the copied blocks gave."""

    origin: str
    pages: list[str]
    visits: dict[bs.Mode, dict[str, bs.PageVisit]] = field(default_factory=dict)  # mode -> page -> visit
    runs: list[tuple[bs.PageVisit, dict, tuple | None]] = field(default_factory=list)


def read_site(site: Path, pages: list[str], workdir: Path, modes=MODES, readers: int = READERS) -> Reading:
    """Open every page in every mode; run every copied Python block while the browsers go on."""
    run_dir = workdir / "run"
    run_dir.mkdir(parents=True)
    queue = list(pages)
    lock = threading.Lock()
    jobs: list = []
    errors: list[BaseException] = []
    with bs.SiteServer(site, bs.site_prefix()) as server, ThreadPoolExecutor(max_workers=2) as executor:
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
                                    if mode.copy:
                                        jobs.extend((visit, job) for job in bs.submit_copied_blocks(executor, visit, run_dir))
                    finally:
                        context.close()
            except BaseException as error:  # noqa: BLE001 - handed to the main thread
                with lock:
                    errors.append(error)

        threads = [threading.Thread(target=reader, args=(number,), name=f"reader-{number}") for number in range(readers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if errors:
            raise errors[0]
        for visit, (info, future) in jobs:
            reading.runs.append((visit, info["block"], future.result() if future else None))
    return reading


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


def test_the_last_chunk_holds_its_contents(reading):
    report([problem for visit in visits(reading) for problem in bs.check_last_chunk(visit)])


@pytest.mark.parametrize("mode", MODES, ids=["light", "dark"])
def test_scheme_and_figures(reading, mode):
    report([problem for visit in visits(reading, mode) for problem in bs.check_scheme(visit) + bs.check_figures(visit)])


@pytest.mark.parametrize("mode", MODES, ids=["light", "dark"])
def test_accessibility(reading, mode):
    """axe-core finds no serious or critical violation (in dark mode: the colour rules)."""
    report([problem for visit in visits(reading, mode) for problem in bs.check_axe(visit)])


def test_copy_buttons_copy_the_code_shown(reading):
    report([problem for visit in visits(reading, LIGHT) for problem in bs.check_copy_matches_shown(visit)])


def test_copied_blocks_print_their_output(reading):
    blocks = sum(len(visit.content["python"]) for visit in visits(reading, LIGHT))
    assert len(reading.runs) == blocks, "not every Python block was copied and run"
    report([problem for visit, block, result in reading.runs for problem in bs.check_copied_run(visit, block, result)])


# --- the theme's script, which starts on the reader's first input (overrides/main.html) ----------

THEME_STATE_JS = """
() => ({started: typeof document$ !== "undefined", scripts: document.querySelectorAll('script[src*="bundle."]').length,
        scheme: document.body.getAttribute("data-md-color-scheme"),
        meta: document.querySelector('meta[name="color-scheme"]').content,
        toggles: [...document.querySelectorAll('[data-md-component="palette"] label')].map(label => !label.hidden)})
"""
# The same, once the page is parsed (the theme's script is told it again later: overrides/main.html).
FIRST_PARSE_JS = f"""
document.addEventListener("DOMContentLoaded", () => {{ if (!window.__parsed) window.__parsed = ({THEME_STATE_JS})(); }});
"""


def test_the_theme_script_starts_on_the_first_input_and_everything_it_does_works(built_site, tmp_path):
    """What the theme's script does, checked as a reader would see it: before any input the page is
    complete and dark for a dark system, and the theme's script has not been fetched; a tap on the
    palette toggle as the first input switches the palette at once and starts the script, which keeps
    it; "/" as the first input opens search; search, the palette toggle, instant navigation and copy
    buttons then work."""
    page_path = "part-2/softmax/"
    with bs.SiteServer(built_site, bs.site_prefix()) as server, sync_playwright() as playwright:
        context = bs.launch(playwright, tmp_path / "profile", viewport=bs.DESKTOP, color_scheme="dark")
        try:
            bs.block_external_hosts(context, server.origin)
            # Instant navigation follows only links listed in the sitemap, whose addresses are the
            # published site's; the theme maps their host, not their port, to where it is served.
            # So the sitemap is served as it is when published: with the addresses of the server.
            published = re.search(r"<loc>(https?://[^/<]+)", (built_site / "sitemap.xml").read_text(encoding="utf-8")).group(1)

            def sitemap_as_published(route):
                response = route.fetch()
                route.fulfill(response=response, body=response.text().replace(published, server.origin))

            context.route("**/sitemap.xml", sitemap_as_published)
            context.add_init_script(FIRST_PARSE_JS)
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
            page.goto(server.base + page_path, wait_until="load")
            parsed = page.evaluate("() => window.__parsed")
            # A first visit by a reader whose system is dark is dark from the first paint on, before
            # the theme's script runs; the browser's own parts are dark too, and one toggle shows.
            assert parsed == {"started": False, "scripts": 0, "scheme": "slate", "meta": "dark", "toggles": [False, True]}, parsed
            page.evaluate(bs.SETTLED_JS)  # loaded, fonts ready, the browser idle: still no theme script
            assert page.evaluate(THEME_STATE_JS) == {"started": False, "scripts": 0, "scheme": "slate", "meta": "dark",
                                                     "toggles": [False, True]}

            # The first input is a click on the palette toggle: the page switches to light at once,
            # and the theme's script, started by that click, keeps the reader's choice.
            page.locator('[data-md-component="palette"] label:not([hidden])').click()
            page.wait_for_function("() => document.body.getAttribute('data-md-color-scheme') === 'default'")
            page.wait_for_function(bs.THEME_STARTED_JS)
            page.evaluate(bs.SETTLED_JS)
            assert page.evaluate(THEME_STATE_JS) == {"started": True, "scripts": 1, "scheme": "default", "meta": "light",
                                                     "toggles": [True, False]}
            # Stored where the theme keeps it, for the next page.
            assert page.evaluate("() => __md_get('__palette')") == {
                "index": 0, "color": {"media": "(prefers-color-scheme: light)", "scheme": "default", "primary": "indigo", "accent": "indigo"}}

            # Loaded again (every load here is a first visit: bs.FORGET_PALETTE_JS), "/" pressed as the
            # first input opens search, with the caret in the search field.
            page.reload(wait_until="load")
            page.evaluate(bs.SETTLED_JS)
            assert page.evaluate(THEME_STATE_JS)["started"] is False
            page.keyboard.press("/")
            page.wait_for_function(bs.THEME_STARTED_JS)
            page.wait_for_function("() => document.getElementById('__search').checked && "
                                   "document.activeElement === document.querySelector('input.md-search__input')")
            assert page.evaluate(THEME_STATE_JS)["scheme"] == "slate"
            # A query typed while the search worker still builds its index is not searched again once
            # it is ready, so type once the theme has replaced the text the page ships ("Initializing
            # search"). That text comes from the built page: the worker may well be ready already.
            shipped = re.search(r'class="md-search-result__meta">\s*([^<]*?)\s*<',
                                (built_site / page_path / "index.html").read_text(encoding="utf-8")).group(1)
            page.wait_for_function(f"(shipped) => ({bs.SEARCH_META_JS})() !== shipped", arg=shipped, timeout=30000)
            page.keyboard.type("temperature", delay=20)  # as a reader types
            page.wait_for_selector(".md-search-result__item", timeout=15000)
            page.keyboard.press("Escape")

            def code_gets_a_copy_button() -> None:  # the theme mounts them once it knows the page is parsed
                code = page.locator("article div.language-python").first
                code.scroll_into_view_if_needed()
                code.locator(bs.COPY_BUTTON).first.wait_for(state="attached", timeout=10000)

            code_gets_a_copy_button()

            # The palette toggle, now the theme's, switches to light, and the browser's colour scheme follows.
            page.locator('[data-md-component="palette"] label:not([hidden])').click()
            page.wait_for_function("() => document.body.getAttribute('data-md-color-scheme') === 'default'")
            assert page.evaluate("() => document.querySelector('meta[name=\"color-scheme\"]').content") == "light"

            # Instant navigation: the next page arrives without a reload, and its code gets copy buttons.
            page.evaluate("() => { window.__same_document = true; }")
            title = page.title()
            page.locator("a.md-footer__link--next").click()
            page.wait_for_function("(title) => document.title !== title", arg=title)
            assert page.evaluate("() => window.__same_document === true"), "following a link reloaded the page"
            code_gets_a_copy_button()
            assert page.evaluate("() => document.body.getAttribute('data-md-color-scheme')") == "default"
            assert not errors, errors
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
    """On a phone the navigation is a drawer whose contents the browser leaves unstyled and unlaid-out
    until it is opened (extra.css). Opened by its menu button, with no script yet, it shows the
    chapters of the current part, each link drawn where a tap finds it, and a tap goes there."""
    with phone_page(built_site, tmp_path, "part-3/derivatives/") as page:
        nav = "nav.md-nav--primary"
        assert page.evaluate(f"() => getComputedStyle(document.querySelector('{nav}')).contentVisibility") == "auto"
        page.locator('label.md-header__button[for="__drawer"]').click()
        page.wait_for_function("() => document.getElementById('__drawer').checked")
        link = page.locator(nav).get_by_role("link", name="The chain rule", exact=True)
        # Drawn and on top where the reader taps once the drawer has slid in (its transition ends).
        page.wait_for_function("""(link) => {
            const box = link.getBoundingClientRect();
            return box.width > 0 && box.height > 0 && box.left >= 0 && box.right <= innerWidth
                && link.contains(document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2));
        }""", arg=link.element_handle(), timeout=10000)
        link.click()
        page.wait_for_url("**/part-3/chain-rule/")


def test_the_hidden_mathml_is_not_laid_out_and_still_read(built_site, tmp_path):
    """The MathML that KaTeX writes for screen readers is never styled or laid out (extra.css: it is
    clipped to nothing, and content-visibility skips it), yet a screen reader gets every formula: the
    accessibility tree that Chromium builds when one is running (--force-renderer-accessibility) holds
    each formula's MathML with the letters of the source, and no TeX (tools/katex-server.mjs drops
    KaTeX's annotation; unstyled, it would be read after each formula). Were it laid out, it would be
    in KaTeX's own font with letters as written: no search for a system font per math-alphabet letter."""
    with phone_page(built_site, tmp_path, "part-3/derivatives/", ("--force-renderer-accessibility",)) as page:
        seen = page.evaluate("""() => {
            const mathml = [...document.querySelectorAll(".katex-mathml math")];
            const styles = (selector, property) => [...new Set([...document.querySelectorAll(selector)]
                .map(node => getComputedStyle(node)[property]))];
            return {formulas: mathml.length, readable: mathml.filter(math => !math.closest("details:not([open])")).length,
                    annotations: document.querySelectorAll("annotation").length,
                    laidOut: mathml.filter(math => math.checkVisibility({contentVisibilityAuto: true})).length,
                    katex: styles(".katex", "fontFamily"), math: styles(".katex-mathml math", "fontFamily"),
                    mi: styles(".katex-mathml mi", "textTransform")};
        }""")
        assert seen["formulas"] > 20 and seen["annotations"] == 0 and seen["laidOut"] == 0, seen
        assert len(seen["katex"]) == 1 and seen["katex"][0].startswith("KaTeX_Main"), seen
        assert seen["math"] == seen["katex"] and seen["mi"] == ["none"], seen
        tree = page.context.new_cdp_session(page).send("Accessibility.getFullAXTree")["nodes"]
        by_id = {node["nodeId"]: node for node in tree}

        def text(node):  # the names of a node and all below it, as a screen reader gets them
            yield node.get("name", {}).get("value") or ""
            for child in node.get("childIds", []):
                if child in by_id:
                    yield from text(by_id[child])

        formulas = [node for node in tree if node.get("role", {}).get("value") in ("math", "MathMLMath")]
        # All but those in a collapsed solution, which a reader opens first.
        assert len(formulas) == seen["readable"], f"{len(formulas)} of {seen['readable']} formulas in the accessibility tree"
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
  .md-chunk { content-visibility: auto; contain-intrinsic-size: auto 40px; }
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

  <div class="language-python highlight"><span class="filename">Continued from the block above</span><pre><button class="md-code__button" data-md-type="copy"></button><code>print(x * 7)</code></pre></div>
  <div class="language-output highlight"><pre><code>42</code></pre></div>

  <div class="language-python highlight"><pre><button class="md-code__button" data-md-type="copy" data-text="1  print(1 + 1)"></button><code>print(1 + 1)</code></pre></div>
  <div class="language-output highlight"><pre><code>2</code></pre></div>

  <div class="language-python highlight"><pre><button class="md-code__button" data-md-type="copy"></button><code>print(2 + 2)</code></pre></div>
  <div class="language-output highlight"><pre><code>5</code></pre></div>

  <div style="height: 3000px"></div>
  <div class="md-chunk"><p style="height: 400px; margin: 0">A last chunk that reserves less than it holds.</p></div>
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
    (site / "broken" / "plot.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>', encoding="utf-8")
    reading = read_site(site, ["broken/"], tmp_path, readers=1)
    light, phone = reading.visits[LIGHT]["broken/"], reading.visits[DARK_PHONE]["broken/"]

    def says(problems: list[str], *fragments: str) -> None:
        assert problems, "the check found nothing wrong"
        assert all("page 'broken/'" in problem for problem in problems), problems
        for fragment in fragments:
            assert any(fragment in problem for problem in problems), f"{fragment!r} not reported in {problems}"

    says(bs.check_console(light), "broken on purpose")
    says(bs.check_requests(light, reading.origin), "http://example.invalid/tracker.png")
    says(bs.check_formulas(light), "raw TeX is visible: ", "\\(x^2 + 1\\)", "$$", "formula not rendered by KaTeX: «\\(y\\)»")
    says(bs.check_no_sideways_scroll(phone), "scrolls sideways at 375 px", "div.wide")
    says(bs.check_last_chunk(phone), "the last chunk reserves 40 px but its contents are 400 px tall")
    says(bs.check_figures(light), "plot.svg#only-dark is shown in light mode", "has no alt text")
    says(bs.check_scheme(phone), "for a reader who prefers dark")
    says(bs.check_axe(light), "color-contrast", "image-alt")
    says(bs.check_copy_matches_shown(light), "Python block 3: the copy button copies text that is not the code shown")
    run_problems = [problem for visit, block, result in reading.runs for problem in bs.check_copied_run(visit, block, result)]
    says(run_problems, "Python block 3 fails when copied and run alone", "Python block 4: copied and run alone it prints\n4\nbut the page shows\n5")
    assert not any("block 1" in problem or "block 2" in problem for problem in run_problems), (
        "a correct block, or a correct 'Continued' block, was reported: " + "\n".join(run_problems))
    assert len(reading.runs) == 4
