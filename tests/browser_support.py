"""Reading the built site in a real Chromium, as a reader would: the pieces shared by the browser tests
(tests/test_browser.py) and the reader benchmarks (benchmarks/bench_reader.py).

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
import json
import os
import re
import shutil
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from playwright.sync_api import TimeoutError as PlaywrightTimeout

ROOT = Path(__file__).resolve().parent.parent
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
AXE_URL_PATH = "/__browser-tests__/axe.min.js"  # outside the site's own path, so no page can link to it
sys.path.insert(0, str(ROOT))
from tools.docblocks import normalize  # noqa: E402  (the doc-test harness's own comparison)

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
INSTALL_CHROMIUM = "apt-get update && apt-get install -y chromium"
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


def chromium_path(install: bool = True) -> str:
    """Debian's chromium, installed with apt-get when it is missing and we are root."""
    found = shutil.which("chromium")
    if found:
        return found
    if install and hasattr(os, "geteuid") and os.geteuid() == 0 and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=True, env=env, stdout=subprocess.DEVNULL)
        subprocess.run(["apt-get", "install", "-y", "-qq", "chromium"], check=True, env=env, stdout=subprocess.DEVNULL)
        found = shutil.which("chromium")
        if found:
            return found
    raise RuntimeError(f"Debian's chromium is needed for the browser tests; install it with: sudo sh -c '{INSTALL_CHROMIUM}'")


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
    match = re.search(r"^site_url:.*?(https?://[^\s\"'\]]+)", config_file.read_text(encoding="utf-8"), re.M)
    path = urlsplit(match.group(1)).path if match else "/"
    return path if path.endswith("/") else path + "/"


class _Handler(http.server.SimpleHTTPRequestHandler):
    prefix = "/"
    use_gzip = False
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map, ".js": "text/javascript", ".mjs": "text/javascript", ".woff2": "font/woff2", ".svg": "image/svg+xml", ".json": "application/json"}
    COMPRESSIBLE = re.compile(r"^(text/|application/(json|javascript|xml)|image/svg\+xml)")

    def log_message(self, format, *args):  # noqa: A002 - quiet: the tests report what matters
        pass

    def translate_path(self, path):
        clean = unquote(urlsplit(path).path)
        if not clean.startswith(self.prefix):
            return str(Path(self.directory) / "__outside_the_site__")
        return super().translate_path("/" + clean[len(self.prefix):])

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

# Runs in the page. The theme's script starts on the reader's first input (overrides/main.html); a
# page of the theme (it carries the theme's config) is ready once the script runs. Pages without the
# theme (the broken page of the tests) have nothing to wait for.
THEME_STARTED_JS = """
() => document.getElementById("__config") === null || typeof document$ !== "undefined"
"""

# Runs in the page. What the theme's search says of itself: the page ships "Initializing search", and
# the theme replaces it once its worker has loaded the index.
SEARCH_META_JS = """
() => { const meta = document.querySelector(".md-search-result__meta"); return meta ? meta.textContent.trim() : null; }
"""

# Runs in the page. Waits until KaTeX's fonts are in and the browser has been idle once after that: the
# page's own script (overrides/main.html) makes the boxes that scroll sideways reachable by keyboard
# when the browser is idle after the fonts arrive, and idle callbacks run in the order they were asked
# for, so this one runs after it. A page is judged as it stands once it has settled.
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

# Runs in the page. The chunk that ends the article (hooks/first_paint.py; a later heading would stop what
# it reaches), and how tall its contents really are. A chunk the browser has not drawn takes the height
# it reserves, but a tool that asks where its contents are (axe-core) gets where they really are:
# contents taller than the reserve reach into what follows the article, the dark footer, and are judged
# against its colour.
LAST_CHUNK_JS = r"""
() => {
  const chunks = document.querySelectorAll("article .md-chunk");
  if (!chunks.length) return null;
  const chunk = chunks[chunks.length - 1];
  const headings = document.querySelectorAll("article :is(h1, h2, h3, h4, h5, h6)");
  if ([...headings].some(h => chunk.compareDocumentPosition(h) & Node.DOCUMENT_POSITION_FOLLOWING)) return null;
  const box = chunk.getBoundingClientRect();
  let bottom = box.top;
  for (const child of chunk.children) bottom = Math.max(bottom, child.getBoundingClientRect().bottom);
  return {reserved: Math.round(box.height), contents: Math.round(bottom - box.top)};
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

REVEAL_JS = r"""
([index, sentinel]) => {
  // Open what a reader would open to reach the block: collapsed solutions and the block's tab.
  const article = document.querySelector("article.md-content__inner") || document.body;
  const blocks = [...article.querySelectorAll(".language-python")].filter(el => el.matches("div.highlight") && !el.closest(".doc"));
  const block = blocks[index];
  for (let el = block; el; el = el.parentElement) {
    if (el.tagName === "DETAILS") el.open = true;
    if (el.classList && el.classList.contains("tabbed-block")) {
      const set = el.closest(".tabbed-set");
      const position = [...el.parentElement.children].indexOf(el);
      const input = set.querySelectorAll(":scope > input")[position];
      if (input) input.click();
    }
  }
  block.setAttribute("data-browser-test-block", String(index));
  // As a reader does: scroll to the block. Its copy button is added when it comes into view
  // (feature content.lazy); the click below waits for it.
  block.scrollIntoView({block: "center"});
  const code = block.querySelector("code").cloneNode(true);
  code.querySelectorAll(".linenos, .linenodiv, .md-annotation").forEach(e => e.remove());
  return navigator.clipboard.writeText(sentinel).then(() => code.textContent);
}
"""

CLIPBOARD_CHANGED_JS = r"""
async (sentinel) => { const text = await navigator.clipboard.readText(); return text !== sentinel ? {text} : false; }
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
    last_chunk: dict | None = None  # the heights LAST_CHUNK_JS measured, None without chunks
    axe: list[dict] | None = None
    copies: list[dict] = field(default_factory=list)  # one per Python block: what its copy button copied
    timings: dict[str, float] = field(default_factory=dict)  # seconds spent loading, in axe, copying


def _listen(page, visit: PageVisit) -> None:
    page.on("console", lambda message: visit.console.append(f"console.{message.type}: {message.text}") if message.type == "error" else None)
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
        # A reader scrolls, which starts the theme's script. (Not a pointer move: after one, headless
        # Chromium may never again call a page's idle callbacks, which SETTLED_JS waits for.)
        page.mouse.wheel(0, 1)
        page.wait_for_function(THEME_STARTED_JS, timeout=30000)
        page.evaluate(SETTLED_JS)
        page.evaluate(SCROLL_FIGURES_JS)
        visit.content = page.evaluate(COLLECT_JS)
        visit.overflow = page.evaluate(OVERFLOW_JS)
        visit.last_chunk = page.evaluate(LAST_CHUNK_JS)
        visit.timings["load"] = time.perf_counter() - start
        if mode.axe_rules is not False:
            page.add_script_tag(url="{0.scheme}://{0.netloc}{1}".format(urlsplit(base), AXE_URL_PATH))
            visit.axe = page.evaluate(AXE_JS, mode.axe_rules)
            visit.timings["axe"] = time.perf_counter() - start - visit.timings["load"]
        if mode.copy:
            before = time.perf_counter()
            visit.copies = copy_python_blocks(page, len(visit.content["python"]))
            visit.timings["copy"] = time.perf_counter() - before
    finally:
        page.close()
    return visit


def copy_python_blocks(page, count: int) -> list[dict]:
    """Click the copy button of every Python block, as a reader does, and read what it copied."""
    copies = []
    for index in range(count):
        sentinel = f"<clipboard before block {index}>"
        shown = page.evaluate(REVEAL_JS, [index, sentinel])
        button = page.locator(f'[data-browser-test-block="{index}"]').locator(COPY_BUTTON).first
        try:
            button.click(timeout=5000)
        except PlaywrightTimeout:
            copies.append({"index": index, "text": None, "shown": shown, "problem": "has no copy button that a reader can click"})
            continue
        try:
            text = page.wait_for_function(CLIPBOARD_CHANGED_JS, arg=sentinel, timeout=5000, polling=20).json_value()["text"]
        except PlaywrightTimeout:
            copies.append({"index": index, "text": None, "shown": shown, "problem": "has a copy button that puts nothing on the clipboard"})
            continue
        copies.append({"index": index, "text": text, "shown": shown, "problem": None})
    return copies


# --- running copied blocks ----------------------------------------------------------------------

_CHAIN_DRIVER = r"""
import builtins, json, sys
blocks = json.loads(sys.stdin.read())
namespace = {"__name__": "__main__", "__builtins__": builtins}
for position, text in enumerate(blocks):
    if position == len(blocks) - 1:
        sys.stdout.flush()
        sys.stdout.write("\0LAST BLOCK\0\n")
        sys.stdout.flush()
    exec(compile(text, f"<copied block {position + 1} of {len(blocks)}>", "exec"), namespace)
"""


def run_copied(texts: list[str], workdir: Path, timeout: float = 180) -> tuple[int, str, str]:
    """Run copied text in a fresh Python: one block alone as a script on stdin; a "Continued" block after
    the blocks it continues, in one namespace. Returns (exit code, what the last block printed, stderr)."""
    env = {**os.environ, "MPLBACKEND": "Agg", "PYTHONHASHSEED": "0", "PYTHONIOENCODING": "utf-8"}
    env.pop("PYTHONPATH", None)
    if len(texts) == 1:
        command, stdin = [sys.executable, "-"], texts[0]
    else:
        command, stdin = [sys.executable, "-c", _CHAIN_DRIVER], json.dumps(texts)
    result = subprocess.run(command, input=stdin, capture_output=True, text=True, encoding="utf-8",
                            cwd=workdir, env=env, timeout=timeout)
    stdout = result.stdout
    if len(texts) > 1:
        stdout = stdout.split("\0LAST BLOCK\0\n", 1)[-1] if "\0LAST BLOCK\0\n" in stdout else ""
    return result.returncode, stdout, result.stderr


def submit_copied_blocks(executor: ThreadPoolExecutor, visit: PageVisit, workdir: Path) -> list[tuple[dict, Future | None]]:
    """Start running every copied block of a visit; "Continued" blocks run after their predecessors."""
    jobs = []
    texts: list[str | None] = []
    for block, copy in zip(visit.content["python"], visit.copies):
        chain = [copy["text"]]
        if block["title"].lower().startswith("continued"):
            chain = []
            for earlier in range(block["index"], -1, -1):
                chain.insert(0, visit.copies[earlier]["text"])
                if not visit.content["python"][earlier]["title"].lower().startswith("continued"):
                    break
        texts.append(copy["text"])
        if any(text is None for text in chain):
            jobs.append(({"block": block, "copy": copy}, None))
            continue
        jobs.append(({"block": block, "copy": copy}, executor.submit(run_copied, chain, workdir)))
    return jobs


# --- the checks: each returns a list of problems, empty when all is well -------------------------


def _where(visit: PageVisit) -> str:
    return f"page {visit.page!r} ({visit.mode.name})"


def check_console(visit: PageVisit) -> list[str]:
    problems = [f"{_where(visit)}: {line}" for line in visit.console]
    if visit.status is not None and visit.status >= 400 and not visit.page.startswith("404"):
        problems.append(f"{_where(visit)}: the page answered HTTP {visit.status}")
    return problems


def check_requests(visit: PageVisit, origin: str) -> list[str]:
    return [f"{_where(visit)}: requested {url}, which is not on the site's own server"
            for url in visit.requests if not (url.startswith(origin + "/") or url.startswith(("data:", "blob:")))]


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
    return [f"{_where(visit)}: the page scrolls sideways at {overflow['width']} px "
            f"(content is {overflow['scrollWidth']} px wide): {culprits}"]


def check_last_chunk(visit: PageVisit) -> list[str]:
    chunk = visit.last_chunk
    if chunk is None or chunk["contents"] <= chunk["reserved"] + 1:
        return []
    return [f"{_where(visit)}: the last chunk reserves {chunk['reserved']} px but its contents are {chunk['contents']} px "
            f"tall, so until it is drawn they reach into the footer (first_paint.LAST_CHUNK_MARGIN)"]


def check_figures(visit: PageVisit) -> list[str]:
    """The figure variant of the reader's scheme shows (and loads), the other one is hidden."""
    scheme = visit.mode.scheme
    problems = []
    for image in visit.content["figures"]:
        should_show = image["variant"] == scheme
        if image["visible"] != should_show:
            problems.append(f"{_where(visit)}: figure {image['src']} is {'shown' if image['visible'] else 'hidden'} in {scheme} mode")
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
    return [] if got == wanted else [f"{_where(visit)}: the theme shows colour scheme {got!r}, not {wanted!r}, for a reader who prefers {scheme}"]


def check_axe(visit: PageVisit) -> list[str]:
    problems = []
    for violation in visit.axe or []:
        nodes = "; ".join(f"{node['target']} ({node['summary']})" for node in violation["nodes"])
        problems.append(f"{_where(visit)}: axe {violation['impact']} {violation['id']} ({violation['help']}) "
                        f"on {violation['count']} element(s): {nodes}")
    return problems


def check_copy_matches_shown(visit: PageVisit) -> list[str]:
    problems = []
    for copy in visit.copies:
        number = copy["index"] + 1
        if copy["problem"]:
            problems.append(f"{_where(visit)}: Python block {number} {copy['problem']}")
        elif normalize(copy["text"]) != normalize(copy["shown"]):
            problems.append(f"{_where(visit)}: Python block {number}: the copy button copies text that is not the code shown "
                            f"(copied {copy['text'][:80]!r}, shown {copy['shown'][:80]!r})")
    return problems


def check_copied_run(visit: PageVisit, block: dict, result: tuple[int, str, str] | None) -> list[str]:
    """The copied block, run alone in a fresh Python, prints what the output block under it shows."""
    if result is None:
        return []  # no copied text: check_copy_matches_shown reports it
    code, stdout, stderr = result
    number = block["index"] + 1
    label = f"{_where(visit)}: Python block {number}" + (f" ({block['title']})" if block["title"] else "")
    if code != 0:
        tail = "\n".join(stderr.strip().splitlines()[-6:])
        return [f"{label} fails when copied and run alone (exit {code}):\n{tail}"]
    expected = normalize(block["output"] or "")
    got = normalize(stdout)
    if got != expected:
        return [f"{label}: copied and run alone it prints\n{got}\nbut the page shows\n{expected}"]
    return []


def screenshot(context, base: str, page_path: str, target: Path, *, viewport: dict | None = None,
               color_scheme: str = "light", full_page: bool = False) -> Path:
    page = context.new_page()
    try:
        page.set_viewport_size(viewport or DESKTOP)
        page.emulate_media(color_scheme=color_scheme)
        page.goto(base + page_path, wait_until="load")
        page.evaluate(SETTLED_JS)
        page.screenshot(path=str(target), full_page=full_page)
    finally:
        page.close()
    return target


def tempdir(prefix: str) -> Path:
    return Path(tempfile.mkdtemp(prefix=prefix))
