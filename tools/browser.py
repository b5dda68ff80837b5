"""Reading the built site in a real Chromium, as a reader would: the machinery shared by the browser tests
(tests/site/, tests/test_explorers.py) and the benchmark (benchmarks/bench_reader.py).

The browser is Debian's ``chromium`` package driven by Playwright (never a browser that Playwright
downloads), with a fresh profile, against the site served from 127.0.0.1 by a thread of this process.
What the tests collect from a page and how they judge it is theirs: tests/site/reader.py and checks.py.
"""

from __future__ import annotations

import functools
import gzip
import http.server
import re
import shutil
import socketserver
import threading
from pathlib import Path
from urllib.parse import unquote, urlsplit

from tools import mkdocs_yml

ROOT = Path(__file__).resolve().parent.parent

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


def launch_browser(playwright, extra_args: tuple[str, ...] = ()):
    """Debian's chromium, to share: each check opens a fresh context in it (``new_context``)."""
    return playwright.chromium.launch(
        executable_path=chromium_path(), headless=True, args=[*CHROMIUM_ARGS, *extra_args]
    )


def new_context(browser, **context_options):
    """A fresh context of a running Chromium: a new profile, as on a first visit."""
    context = browser.new_context(**context_options)
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
    extra: dict[str, Path] = {}
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
        if self.path in self.extra:  # a file served beside the site (the tests' axe-core), cached between pages
            extra = self.extra[self.path]
            return self._send_bytes(200, self.guess_type(str(extra)), extra.read_bytes())
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
    """Serve ``directory`` at ``http://127.0.0.1:PORT{prefix}`` from a thread; ``gzip`` like GitHub Pages.
    ``extra`` serves more files, each at a path of its own outside the site's (URL path -> file)."""

    def __init__(self, directory: Path, prefix: str = "/", gzip: bool = False, extra: dict | None = None) -> None:
        handler = type("Handler", (_Handler,), {"prefix": prefix, "use_gzip": gzip, "extra": dict(extra or {})})
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
        if relative.startswith("print_page/"):  # printed to the PDF and removed while the site is read
            continue
        pages.append(relative[: -len("index.html")] if relative.endswith("index.html") else relative)
    return pages


# --- what a reader sees ---------------------------------------------------------------------------

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


def block_external_hosts(context, origin: str) -> None:
    """Let requests to the local server through and stop the others before they leave the machine."""

    def decide(route):
        url = route.request.url
        if url.startswith(origin + "/") or url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            route.abort("blockedbyclient")

    context.route("**/*", decide)
