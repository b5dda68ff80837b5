"""Reading the built site in a real Chromium, as a reader would: the pieces shared by the browser tests
(tests/test_browser.py) and the benchmark (benchmarks/bench_reader.py).

The browser is Debian's ``chromium`` package driven by Playwright (never a browser that Playwright
downloads), with a fresh profile, against the site served from 127.0.0.1 by a thread of this process.

Everything the tests judge is first *collected* from a page into plain data (``visit_page``), then
judged by small check functions that return a list of problems, each naming what was wrong. The
self-tests feed a deliberately broken page through the same functions and assert that they complain.
"""

from __future__ import annotations

import functools
import gzip
import http.server
import os
import re
import shutil
import socketserver
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from tools import mkdocs_yml
from tools.docblocks import normalize  # the doc-test harness's own comparison

ROOT = Path(__file__).resolve().parent.parent
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
AXE_URL_PATH = "/__browser-tests__/axe.min.js"  # outside the site's own path, so no page can link to it

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PHONE = {"width": 375, "height": 740}
# Material 9.7+ puts the copy button in a .md-code__nav; older releases used .md-clipboard.
COPY_BUTTON = 'button[data-md-type="copy"], button.md-clipboard'
# Material remembers the last colour scheme in localStorage; every visit here is a first visit, so
# the scheme follows the reader's system preference (prefers-color-scheme).
FORGET_PALETTE_JS = """
try { for (const key of Object.keys(localStorage)) if (key.endsWith("__palette")) localStorage.removeItem(key); } catch (e) {}
"""
DESKTOP = {"width": 1280, "height": 900}


# --- the browser --------------------------------------------------------------------------------


def chromium_path() -> str:
    """Debian's chromium (``python3 dev.py test`` installs it when it is missing: dev.ensure_chromium)."""
    found = shutil.which("chromium")
    if found is None:
        raise RuntimeError(
            "Debian's chromium is missing: run `python3 dev.py test`, which installs it, or apt-get install -y chromium"
        )
    return found


def launch(playwright, user_data_dir: str | Path, extra_args: tuple[str, ...] = (), **context_options):
    """A persistent context (a fresh profile in ``user_data_dir``) of Debian's chromium."""
    context = playwright.chromium.launch_persistent_context(
        str(user_data_dir),
        executable_path=chromium_path(),
        headless=True,
        args=[*CHROMIUM_ARGS, *extra_args],
        **context_options,
    )
    context.add_init_script(FORGET_PALETTE_JS)
    return context


# --- the local server ---------------------------------------------------------------------------


def site_prefix(config_file: Path = ROOT / "mkdocs.yml") -> str:
    """The path under which GitHub Pages serves the site (from ``site_url``), e.g. ``/repo-name/``."""
    path = urlsplit(mkdocs_yml.load(config_file).get("site_url") or "/").path
    return path if path.endswith("/") else path + "/"


class _Handler(http.server.SimpleHTTPRequestHandler):
    prefix = "/"
    use_gzip = False
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".js": "text/javascript",
        ".mjs": "text/javascript",
        ".woff2": "font/woff2",
        ".svg": "image/svg+xml",
        ".json": "application/json",
    }
    COMPRESSIBLE = re.compile(r"^(text/|application/(json|javascript|xml)|image/svg\+xml)")

    def log_message(self, format, *args):  # noqa: A002 - quiet: the tests report what matters
        pass

    def translate_path(self, path):
        clean = unquote(urlsplit(path).path)
        if not clean.startswith(self.prefix):
            return str(Path(self.directory) / "__outside_the_site__")
        return super().translate_path("/" + clean[len(self.prefix) :])

    def send_head(self):
        if self.path == AXE_URL_PATH:  # the tests' own copy of axe-core, cached by the browser between pages
            return self._send_bytes(200, "text/javascript", AXE.read_bytes())
        # 404s get the site's own 404 page, as on GitHub Pages.
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            if not self.path.split("?")[0].endswith("/"):
                return super().send_head()
            path = path / "index.html"
        if not path.is_file():
            page = Path(self.directory) / "404.html"
            body = page.read_bytes() if page.is_file() else b"not found"
            return self._send_bytes(404, "text/html", body)
        ctype = self.guess_type(str(path))
        return self._send_bytes(200, ctype, path.read_bytes())

    def end_headers(self):
        with self.server.count_lock:
            self.server.bytes_sent += sum(len(line) for line in getattr(self, "_headers_buffer", []))
        super().end_headers()

    def _send_bytes(self, status: int, ctype: str, body: bytes):
        import io

        gzipped = self.use_gzip and self.COMPRESSIBLE.match(ctype) and "gzip" in self.headers.get("Accept-Encoding", "")
        if gzipped:
            body = gzip.compress(body, compresslevel=6, mtime=0)
        if self.command != "HEAD":
            with self.server.count_lock:
                self.server.bytes_sent += len(body)
        self.send_response(status)
        self.send_header("Content-Type", ctype + ("; charset=utf-8" if ctype.startswith("text/") else ""))
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "max-age=600")  # what GitHub Pages sends
        if gzipped:
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Vary", "Accept-Encoding")
        self.end_headers()
        return io.BytesIO(body)


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


class SiteServer:
    """Serve ``directory`` at ``http://127.0.0.1:PORT{prefix}`` from a thread; ``gzip`` like GitHub Pages."""

    def __init__(self, directory: Path, prefix: str = "/", gzip: bool = False) -> None:
        handler = type("Handler", (_Handler,), {"prefix": prefix, "use_gzip": gzip})
        self.httpd = _Server(("127.0.0.1", 0), functools.partial(handler, directory=str(directory)))
        self.httpd.bytes_sent, self.httpd.count_lock = 0, threading.Lock()
        self.origin = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.base = self.origin + prefix
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="site-server", daemon=True)

    def take_bytes_sent(self) -> int:
        """Bytes sent (headers and bodies, as on the wire without TLS) since the last call."""
        with self.httpd.count_lock:
            sent, self.httpd.bytes_sent = self.httpd.bytes_sent, 0
        return sent

    def __enter__(self) -> SiteServer:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=10)


def site_pages(site: Path) -> list[str]:
    """Every HTML page of a built site, as paths relative to its root ("" is the home page)."""
    pages = []
    for html in sorted(site.rglob("*.html")):
        relative = html.relative_to(site).as_posix()
        pages.append(relative[: -len("index.html")] if relative.endswith("index.html") else relative)
    return pages


# --- collecting what a reader sees --------------------------------------------------------------

# Runs in the page. Waits until KaTeX's fonts are in and the browser has been idle once after that (the
# page's own script labels the formulas that scroll sideways once the fonts are in, overrides/main.html).
# A page is judged as it stands once it has settled.
SETTLED_JS = """
() => document.fonts.ready.then(() => new Promise(resolve =>
  (window.requestIdleCallback || window.setTimeout)(() => resolve(true))))
"""

# Runs in the page. Figures load lazily, so bring each shown one into view, as a reader scrolling
# down would, and wait until it is decoded (a broken one stays unloaded and is reported).
SCROLL_FIGURES_JS = r"""
async () => {
  const shown = [...document.querySelectorAll('article img[loading="lazy"]')]
    .filter(img => getComputedStyle(img).display !== "none");
  for (const img of shown) {
    img.scrollIntoView({block: "center"});
    try { await img.decode(); } catch (error) { /* reported by check_figures as not loaded */ }
  }
  window.scrollTo(0, 0);
  return shown.length;
}
"""

# Runs in the page. Text outside code and outside rendered formulas that still looks like TeX.
COLLECT_JS = r"""
() => {
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
  const figures = [...article.querySelectorAll('img[src*="#only-light"], img[src*="#only-dark"]')].map(img => ({
    src: img.getAttribute("src"), variant: img.getAttribute("src").includes("#only-dark") ? "dark" : "light",
    visible: visible(img), loaded: img.complete && img.naturalWidth > 0, alt: img.getAttribute("alt") || "",
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

# Runs in the page at phone width: does it scroll sideways, and which elements stick out?
OVERFLOW_JS = r"""
() => {
  const width = document.documentElement.clientWidth;
  const scrollWidth = Math.max(document.documentElement.scrollWidth, document.body.scrollWidth);
  const culprits = [];
  if (scrollWidth > width + 1) {
    const scrolls = el => { for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      const s = getComputedStyle(a); if (/(auto|scroll|hidden|clip)/.test(s.overflowX)) return true; } return false; };
    const describe = el => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
      (el.className && typeof el.className === "string" ? "." + el.className.trim().split(/\s+/).join(".") : "");
    for (const el of document.body.querySelectorAll("*")) {
      const r = el.getBoundingClientRect();
      if (r.right > width + 1 && r.width > 0 && !scrolls(el)) {
        const text = (el.textContent || "").replace(/\s+/g, " ").trim().slice(0, 60);
        culprits.push(`${describe(el)} reaches ${Math.round(r.right)} px ("${text}")`);
      }
    }
  }
  return {width, scrollWidth, culprits: culprits.slice(-5)};
}
"""

# Runs in the page, on a phone: how far each display formula is wider than its box, inline formulas whose
# punctuation went to the next line (a line that starts with ","), and how each figure is drawn.
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

# Runs in the page. For every Python block, as a reader does: open what hides it (a collapsed solution,
# its tab), scroll to it, and press its copy button where it is drawn; then read the clipboard.
COPY_ALL_JS = r"""
async (copyButton) => {
  const article = document.querySelector("article.md-content__inner") || document.body;
  const blocks = [...article.querySelectorAll(".language-python")].filter(el => el.matches("div.highlight") && !el.closest(".doc"));
  const copies = [];
  for (const [index, block] of blocks.entries()) {
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
    copies.push(copy);
    let button = null;  // the theme adds it once the block is in view (content.lazy)
    for (let wait = 0; wait < 500 && !button; wait++) {
      button = block.querySelector(copyButton);
      if (!button) await new Promise(resolve => setTimeout(resolve, 10));
    }
    if (button) button.scrollIntoView({block: "center"});  // a block taller than the screen: its top
    const box = button && button.getBoundingClientRect();
    if (!box || !box.width || !button.contains(document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2))) {
      copy.problem = "has no copy button that a reader can click";
      continue;
    }
    const sentinel = `<clipboard before block ${index}>`;
    await navigator.clipboard.writeText(sentinel);
    button.click();
    for (let wait = 0; wait < 100 && copy.text === null; wait++) {
      const text = await navigator.clipboard.readText();
      if (text !== sentinel) copy.text = text; else await new Promise(resolve => setTimeout(resolve, 10));
    }
    if (copy.text === null) copy.problem = "has a copy button that puts nothing on the clipboard";
  }
  return copies;
}
"""

AXE_JS = r"""
async (rules) => {
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


def block_external_hosts(context, origin: str) -> None:
    """Let requests to the local server through and stop the others before they leave the machine."""

    def decide(route):
        url = route.request.url
        if url.startswith(origin + "/") or url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            route.abort("blockedbyclient")

    context.route("**/*", decide)


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
        visit.overflow = page.evaluate(OVERFLOW_JS)
        if mode.viewport == PHONE:
            visit.phone = page.evaluate(PHONE_JS)
        visit.timings["load"] = time.perf_counter() - start
        if mode.axe_rules is not False:
            page.add_script_tag(url="{0.scheme}://{0.netloc}{1}".format(urlsplit(base), AXE_URL_PATH))
            visit.axe = page.evaluate(AXE_JS, mode.axe_rules)
            visit.timings["axe"] = time.perf_counter() - start - visit.timings["load"]
        if mode.copy:
            before = time.perf_counter()
            visit.copies = page.evaluate(COPY_ALL_JS, COPY_BUTTON)
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


# --- the checks: each returns a list of problems, empty when all is well -------------------------


def _where(visit: PageVisit) -> str:
    return f"page {visit.page!r} ({visit.mode.name})"


def check_console(visit: PageVisit) -> list[str]:
    problems = [f"{_where(visit)}: {line}" for line in visit.console]
    if visit.status is not None and visit.status >= 400 and not visit.page.startswith("404"):
        problems.append(f"{_where(visit)}: the page answered HTTP {visit.status}")
    return problems


def check_requests(visit: PageVisit, origin: str) -> list[str]:
    return [
        f"{_where(visit)}: requested {url}, which is not on the site's own server"
        for url in visit.requests
        if not (url.startswith(origin + "/") or url.startswith(("data:", "blob:")))
    ]


def check_formulas(visit: PageVisit) -> list[str]:
    content = visit.content
    problems = [f"{_where(visit)}: raw TeX is visible: «{snippet}»" for snippet in content["rawTex"]]
    problems += [f"{_where(visit)}: formula not rendered by KaTeX: «{tex}»" for tex in content["unrendered"]]
    problems += [f"{_where(visit)}: KaTeX error: «{error}»" for error in content["errors"]]
    return problems


def check_no_sideways_scroll(visit: PageVisit) -> list[str]:
    overflow = visit.overflow
    if overflow["scrollWidth"] <= overflow["width"] + 1:
        return []
    culprits = "; ".join(overflow["culprits"]) or "no single element found"
    return [
        f"{_where(visit)}: the page scrolls sideways at {overflow['width']} px "
        f"(content is {overflow['scrollWidth']} px wide): {culprits}"
    ]


def check_figures(visit: PageVisit) -> list[str]:
    """The figure variant of the reader's scheme shows (and loads), the other one is hidden."""
    scheme = visit.mode.scheme
    problems = []
    for image in visit.content["figures"]:
        should_show = image["variant"] == scheme
        if image["visible"] != should_show:
            problems.append(
                f"{_where(visit)}: figure {image['src']} is {'shown' if image['visible'] else 'hidden'} in {scheme} mode"
            )
        if should_show and not image["loaded"]:
            problems.append(f"{_where(visit)}: figure {image['src']} did not load")
        if not image["alt"].strip():
            problems.append(f"{_where(visit)}: figure {image['src']} has no alt text")
    return problems


def check_scheme(visit: PageVisit) -> list[str]:
    """The theme follows the reader's preferred colour scheme."""
    scheme = visit.mode.scheme
    wanted = {"light": "default", "dark": "slate"}[scheme]
    got = visit.content["scheme"]
    return (
        []
        if got == wanted
        else [
            f"{_where(visit)}: the theme shows colour scheme {got!r}, not {wanted!r}, for a reader who prefers {scheme}"
        ]
    )


def check_axe(visit: PageVisit) -> list[str]:
    problems = []
    for violation in visit.axe or []:
        nodes = "; ".join(f"{node['target']} ({node['summary']})" for node in violation["nodes"])
        problems.append(
            f"{_where(visit)}: axe {violation['impact']} {violation['id']} ({violation['help']}) "
            f"on {violation['count']} element(s): {nodes}"
        )
    return problems


def check_copies(visit: PageVisit, tested: list[str]) -> list[str]:
    """Each copy button copies the code shown, and that is the source the doc-test harness ran
    (``tested``: the page's Python blocks, snippet-expanded, in page order)."""
    problems = []
    if len(visit.copies) != len(tested):
        problems.append(
            f"{_where(visit)}: {len(visit.copies)} Python blocks on the page, {len(tested)} in its Markdown"
        )
    for copy, source in zip(visit.copies, tested):
        number = copy["index"] + 1
        if copy["problem"]:
            problems.append(f"{_where(visit)}: Python block {number} {copy['problem']}")
        elif normalize(copy["text"]) != normalize(copy["shown"]):
            problems.append(
                f"{_where(visit)}: Python block {number}: the copy button copies text that is not the code shown "
                f"(copied {copy['text'][:80]!r}, shown {copy['shown'][:80]!r})"
            )
        elif normalize(copy["text"]) != normalize(source):
            problems.append(
                f"{_where(visit)}: Python block {number}: the copied text is not the source the doc tests ran "
                f"(copied {copy['text'][:80]!r}, tested {source[:80]!r})"
            )
    return problems


def check_copied_run(visit: PageVisit, block: dict, text: str, result: tuple[int, str, str]) -> list[str]:
    """The copied block, run alone in a fresh Python, prints what the output block under it shows."""
    code, stdout, stderr = result
    label = f"{_where(visit)}: Python block {block['index'] + 1}"
    if code != 0:
        tail = "\n".join(stderr.strip().splitlines()[-6:])
        return [f"{label} fails when copied and run alone (exit {code}):\n{tail}"]
    expected, got = normalize(block["output"] or ""), normalize(stdout)
    if got != expected:
        return [f"{label}: copied and run alone it prints\n{got}\nbut the page shows\n{expected}"]
    return []
