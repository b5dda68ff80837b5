"""What a reader sees, collected from the built site in Chromium into plain data that tests/site/checks.py
judges: every page read in each mode (``read_site``, several browsers side by side), and the copied blocks run
in a fresh Python (``run_copies``). The browser and the server are the shared machinery of tools/browser.py.

The self-test (``test_checks_catch_a_broken_page``) feeds a deliberately broken page through the same code.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from playwright.sync_api import sync_playwright

from tools import browser as bs

ROOT = Path(__file__).resolve().parents[2]
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
AXE_URL_PATH = "/__browser-tests__/axe.min.js"  # outside the site's own path, so no page can link to it
# Material 9.7+ puts the copy button in a .md-code__nav; older releases used .md-clipboard.
COPY_BUTTON = 'button[data-md-type="copy"], button.md-clipboard'


# --- collecting what a reader sees --------------------------------------------------------------

# Runs in the page. Waits until KaTeX's fonts are in and the browser has been idle once after that (the
# page's own script labels the formulas that scroll sideways once the fonts are in, overrides/main.html).
# A page is judged as it stands once it has settled.
SETTLED_JS = """
() => document.fonts.ready.then(() => new Promise(resolve =>
  window.requestIdleCallback ? requestIdleCallback(() => resolve(true), {timeout: 3000})
    : setTimeout(() => resolve(true))))
"""

# Part of the functions below: open the closed folds around an element, as a reader does to see it (a figure in
# a closed fold never loads, and its decode() never settles); returns what closes them again.
OPEN_FOLDS_JS = r"""
  const openFolds = el => {
    const closed = [];
    for (let up = el.parentElement; up; up = up.parentElement) {
      if (up.tagName === "DETAILS" && !up.open) { up.open = true; closed.push(up); }
    }
    return () => closed.forEach(up => { up.open = false; });
  };
"""

# Runs in the page. Figures load lazily, so bring each shown one into view, as a reader scrolling
# down (and opening its fold) would, and wait until it is decoded (a broken one stays unloaded and is reported).
SCROLL_FIGURES_JS = (
    r"""
async () => {"""
    + OPEN_FOLDS_JS
    + r"""
  const shown = [...document.querySelectorAll('article img[loading="lazy"]')]
    .filter(img => getComputedStyle(img).display !== "none");
  for (const img of shown) {
    const close = openFolds(img);
    img.scrollIntoView({block: "center"});
    try { await Promise.race([img.decode(), new Promise(resolve => setTimeout(resolve, 10000))]); }
    catch (error) { /* reported by check_figures as not loaded */ }
    close();
  }
  window.scrollTo(0, 0);
  return shown.length;
}
"""
)

# Runs in the page. Text outside code and outside rendered formulas that still looks like TeX.
COLLECT_JS = (
    r"""
() => {"""
    + OPEN_FOLDS_JS
    + r"""
  const article = document.querySelector("article.md-content__inner") || document.body;
  const skip = "code, pre, kbd, samp, script, style, .katex, textarea";
  const rawTex = [];
  const walker = document.createTreeWalker(article, NodeFilter.SHOW_TEXT);
  const pattern = /\\[()\[\]]|\$\$|\\(?:frac|sum|sqrt|mathbb|mathrm|text|operatorname|begin|end|left|right|cdot|lVert|alpha|beta|lambda|sigma|mu|top)\b|\$[^$\s][^$]*?[^$\s\\]\$/;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement.closest(skip)) continue;
    const match = node.data.match(pattern);
    if (match) {
      const at = Math.max(0, match.index - 30);
      rawTex.push(node.data.slice(at, match.index + match[0].length + 30).replace(/\s+/g, " ").trim());
    }
  }
  const formulas = [...article.querySelectorAll(".arithmatex")];
  const unrendered = formulas.filter(f => !f.querySelector(".katex")).map(f => f.textContent.trim().slice(0, 80));
  const errors = [...article.querySelectorAll(".katex-error")].map(e => (e.getAttribute("title") || e.textContent).slice(0, 120));
  const visible = el => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.display !== "none" && s.visibility !== "hidden"; };
  const unfolded = (el, measure) => {  // measured as a reader who opened its folds sees it
    const close = openFolds(el), value = measure(el);
    close();
    return value;
  };
  const figures = [...article.querySelectorAll('img[src*="#only-light"], img[src*="#only-dark"]')].map(img => ({
    src: img.getAttribute("src"), variant: img.getAttribute("src").includes("#only-dark") ? "dark" : "light",
    visible: unfolded(img, visible), loaded: img.complete && img.naturalWidth > 0, alt: img.getAttribute("alt") || "",
  }));
  const blocks = [...article.querySelectorAll(".language-python")].filter(el => el.matches("div.highlight") && !el.closest(".doc"));
  const python = blocks.map((block, index) => {
    const title = block.querySelector(":scope > .filename");
    let next = block.nextElementSibling;
    const output = next && next.matches(".language-output") ? next.querySelector("code") : null;
    return {index, title: title ? title.textContent.trim() : "", output: output ? output.textContent : null};
  });
  return {
    title: document.title,
    scheme: document.body.getAttribute("data-md-color-scheme"),
    formulaCount: formulas.length, unrendered, errors, rawTex, figures, python,
  };
}
"""
)

# Runs in the page at phone width: does it scroll sideways, and which elements stick out?
PHONE_JS = r"""
() => {
  const article = document.querySelector("article.md-content__inner") || document.body;
  const tex = box => ((box.querySelector("annotation") || {}).textContent || "").replace(/\s+/g, " ").slice(0, 70);
  const formulas = [...article.querySelectorAll("div.arithmatex")].filter(box => box.offsetParent)
    .map(box => ({over: box.scrollWidth - box.clientWidth, tex: tex(box)}));
  const stranded = [];
  for (const math of article.querySelectorAll("span.arithmatex")) {
    const next = math.nextSibling, rects = math.getClientRects();
    if (!next || next.nodeType !== Node.TEXT_NODE || !/^\u2060?[,.;:!?)]/.test(next.data) || !rects.length) continue;
    const range = document.createRange();
    range.setStart(next, 0);
    range.setEnd(next, Math.min(2, next.data.length));
    const mark = range.getClientRects()[0];
    if (mark && mark.top >= rects[rects.length - 1].bottom - 2) stranded.push(tex(math) + next.data.slice(0, 2));
  }
  const figures = [...article.querySelectorAll("img[src*='figures/']")].filter(img => img.offsetParent).map(img => ({
    src: img.getAttribute("src").split("#")[0], width: img.getBoundingClientRect().width,
    link: img.closest("a") ? img.closest("a").getAttribute("href") : null}));
  return {formulas, stranded, figures};
}
"""

# Runs in the page, once per Python block (each call its own user gesture: a browser lets a page write to the
# clipboard for a few seconds after one, and copying every block of a long page under load takes longer): as a
# reader does, open what hides the block (a collapsed solution, its tab), scroll to it, press its copy button where
# it is drawn, and read the clipboard. Returns null past the last block.
COPY_ONE_JS = r"""
async ([copyButton, index]) => {
  const article = document.querySelector("article.md-content__inner") || document.body;
  const blocks = [...article.querySelectorAll(".language-python")].filter(el => el.matches("div.highlight") && !el.closest(".doc"));
  if (index >= blocks.length) return null;
  const block = blocks[index];
  for (let el = block; el; el = el.parentElement) {
    if (el.tagName === "DETAILS") el.open = true;
    if (el.classList && el.classList.contains("tabbed-block")) {
      const input = el.closest(".tabbed-set").querySelectorAll(":scope > input")[[...el.parentElement.children].indexOf(el)];
      if (input) input.click();
    }
  }
  block.scrollIntoView({block: "center"});
  const code = block.querySelector("code").cloneNode(true);
  code.querySelectorAll(".linenos, .linenodiv, .md-annotation").forEach(e => e.remove());
  const copy = {index, text: null, shown: code.textContent, problem: null};
  let button = null;  // the theme adds it once the block is in view (content.lazy)
  for (const start = performance.now(); !button && performance.now() - start < 5000;) {
    button = block.querySelector(copyButton);
    if (!button) await new Promise(resolve => setTimeout(resolve, 10));
  }
  if (button) button.scrollIntoView({block: "center"});  // a block taller than the screen: its top
  const box = button && button.getBoundingClientRect();
  if (!box || !box.width || !button.contains(document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2))) {
    copy.problem = "has no copy button that a reader can click";
    return copy;
  }
  const sentinel = `<clipboard before block ${index}>`;
  await navigator.clipboard.writeText(sentinel);
  button.click();
  for (const start = performance.now(); copy.text === null && performance.now() - start < 3000;) {
    const text = await navigator.clipboard.readText();
    if (text !== sentinel) copy.text = text; else await new Promise(resolve => setTimeout(resolve, 10));
  }
  if (copy.text === null) copy.problem = "has a copy button that puts nothing on the clipboard";
  return copy;
}
"""

# axe-core sets up every element of the page for each run, and on a chapter page most of them are KaTeX's layout
# spans (8,700 of 12,600 on backprop): struts and boxes, aria-hidden, inheriting one colour, whose accessible twin is
# the formula's MathML. Each formula's visual layer is read as one span of its text in that colour, which halves
# axe's time; a formula that sets its own colours (\color) is left whole, so its contrast is judged glyph by glyph.
# A code block's tokens are judged once per colour.
AXE_JS = r"""
async (rules) => {
  // The theme's passing widgets (the "Copied to clipboard" dialog after a copy, the back-to-top button as it fades
  // in) are judged at rest, not mid-fade, when their colours are neither the start's nor the end's.
  for (const start = performance.now(); document.querySelector(".md-dialog--active") && performance.now() - start < 5000;) {
    await new Promise(resolve => setTimeout(resolve, 50));
  }
  const settled = Promise.all(document.getAnimations().map(animation => animation.finished.catch(() => null)));
  await Promise.race([settled, new Promise(resolve => setTimeout(resolve, 5000))]);
  for (const visual of document.querySelectorAll(".katex-html")) {
    if (visual.querySelector("[style*='color']")) continue;
    const flat = document.createElement("span");
    for (const attribute of visual.attributes) flat.setAttribute(attribute.name, attribute.value);
    flat.textContent = visual.textContent;
    flat.style.whiteSpace = "normal";  // one line of glyphs is wider than the typeset formula: wrap, never scroll
    flat.style.wordBreak = "break-all";
    visual.replaceWith(flat);
  }
  // A code block's syntax colours come from its tokens' classes (Pygments'): each class is judged once per block, and
  // once more on a highlighted line, whose background differs; its other tokens become plain text of the block.
  const repeated = [];
  for (const code of document.querySelectorAll("div.highlight pre > code")) {
    const judged = new Set();
    for (const token of code.querySelectorAll(":scope > span, :scope > .hll > span")) {
      const key = `${token.className} ${token.parentElement === code}`;
      if (judged.has(key)) repeated.push(token); else judged.add(key);
    }
  }
  for (const token of repeated) token.replaceWith(token.textContent);
  const options = {resultTypes: ["violations"]};
  if (rules) options.runOnly = {type: "rule", values: rules};
  const result = await axe.run(document, options);
  return result.violations.filter(v => v.impact === "serious" || v.impact === "critical").map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 5).map(n => ({target: n.target.join(" "), summary: (n.failureSummary || "").replace(/\s+/g, " ").slice(0, 220)})),
    count: v.nodes.length,
  }));
}
"""
# The axe rules whose outcome depends on the colour scheme; the other rules need running in one scheme only.
COLOUR_RULES = ["color-contrast", "link-in-text-block"]


@dataclass(frozen=True, eq=False)  # compared and hashed by identity: one object per mode
class Mode:
    """How a reader reads: window size, colour scheme, and what to check while there."""

    name: str
    viewport: dict
    scheme: str  # "light" or "dark" (the reader's prefers-color-scheme)
    axe_rules: list[str] | None | bool = None  # None: every rule; a list: those rules; False: no axe
    copy: bool = False  # click every copy button


@dataclass
class PageVisit:
    """What one page showed in one mode."""

    page: str
    mode: Mode
    console: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    status: int | None = None
    content: dict = field(default_factory=dict)
    overflow: dict | None = None
    phone: dict | None = None  # PHONE_JS, on a phone
    axe: list[dict] | None = None
    copies: list[dict] = field(default_factory=list)  # one per Python block: what its copy button copied
    timings: dict[str, float] = field(default_factory=dict)  # seconds spent loading, in axe, copying


def _listen(page, visit: PageVisit) -> None:
    page.on(
        "console",
        lambda message: (
            visit.console.append(f"console.{message.type}: {message.text}") if message.type == "error" else None
        ),
    )
    page.on("pageerror", lambda error: visit.console.append(f"uncaught exception: {error}"))
    page.on("request", lambda request: visit.requests.append(request.url))


def visit_page(context, base: str, page_path: str, mode: Mode) -> PageVisit:
    """Load one page in a new tab and collect everything the checks judge."""
    visit = PageVisit(page_path or "/", mode)
    start = time.perf_counter()
    page = context.new_page()
    try:
        page.set_viewport_size(mode.viewport)
        page.emulate_media(color_scheme=mode.scheme)
        _listen(page, visit)
        response = page.goto(base + page_path, wait_until="load")
        visit.status = response.status if response else None
        page.evaluate(SETTLED_JS)
        page.evaluate(SCROLL_FIGURES_JS)
        visit.content = page.evaluate(COLLECT_JS)
        visit.overflow = page.evaluate(bs.OVERFLOW_JS)
        if mode.viewport == bs.PHONE:
            visit.phone = page.evaluate(PHONE_JS)
        visit.timings["load"] = time.perf_counter() - start
        # axe before the copies: each copy shows the theme's "Copied" dialog for 2 s, which axe would wait out.
        # It flattens the formulas (AXE_JS); the copies read only code blocks, which hold none.
        if mode.axe_rules is not False:
            before = time.perf_counter()
            page.add_script_tag(url="{0.scheme}://{0.netloc}{1}".format(urlsplit(base), AXE_URL_PATH))
            visit.axe = page.evaluate(AXE_JS, mode.axe_rules)
            visit.timings["axe"] = time.perf_counter() - before
        if mode.copy:
            before = time.perf_counter()
            while (copy := page.evaluate(COPY_ONE_JS, [COPY_BUTTON, len(visit.copies)])) is not None:
                visit.copies.append(copy)
            visit.timings["copy"] = time.perf_counter() - before
    finally:
        page.close()
    return visit


# --- running copied blocks ----------------------------------------------------------------------


def run_copied(text: str, workdir: Path, timeout: float = 180) -> tuple[int, str, str]:
    """Run copied text alone in a fresh Python, as a reader who pastes it does: only the installed
    library on the path. Returns (exit code, what it printed, stderr)."""
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONHASHSEED": "0", "PYTHONIOENCODING": "utf-8"}
    env.pop("PYTHONPATH", None)
    result = subprocess.run(
        [sys.executable, "-"],
        input=text,
        capture_output=True,
        text=True,
        encoding="utf-8",
        cwd=workdir,
        env=env,
        timeout=timeout,
    )
    return result.returncode, result.stdout, result.stderr


# --- reading the whole site -----------------------------------------------------------------------

LIGHT = Mode("light, 1280 px", bs.DESKTOP, "light", axe_rules=None, copy=True)
DARK_PHONE = Mode("dark, 375 px", bs.PHONE, "dark", axe_rules=COLOUR_RULES)
MODES = (LIGHT, DARK_PHONE)
# Two browsers read pages side by side (the machine has 2 cores).
READERS = max(1, min(2, os.cpu_count() or 1))


@dataclass
class Reading:
    """Everything the browsers saw of the site."""

    origin: str
    pages: list[str]
    visits: dict[Mode, dict[str, PageVisit]] = field(default_factory=dict)  # mode -> page -> visit


def read_site(site: Path, pages: list[str], workdir: Path, modes=MODES, readers: int = READERS) -> Reading:
    """Open every page in every mode, ``readers`` browsers side by side."""
    queue = list(pages)
    lock = threading.Lock()
    errors: list[BaseException] = []
    with bs.SiteServer(site, bs.site_prefix(), extra={AXE_URL_PATH: AXE}) as server:
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
                                visit = visit_page(context, server.base, page, mode)
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


def run_copies(visits: list[PageVisit], workdir: Path, sample) -> list[tuple[PageVisit, dict, str, tuple]]:
    """Run the copied text of the blocks ``sample(visit)`` picks, two at a time."""
    chosen = [
        (visit, visit.content["python"][copy["index"]], copy["text"])
        for visit in visits
        for copy in sample(visit)
        if copy["text"] is not None
    ]
    with ThreadPoolExecutor(max_workers=2) as executor:
        results = list(executor.map(lambda job: run_copied(job[2], workdir), chosen))
    return [(visit, block, text, result) for (visit, block, text), result in zip(chosen, results)]
