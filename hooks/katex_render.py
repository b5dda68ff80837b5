"""Render every formula to KaTeX HTML while the site is built.

pymdownx.arithmatex (generic mode) leaves each formula as ``<span class="arithmatex">\\(...\\)</span>``
or ``<div class="arithmatex">\\[...\\]</div>``. This hook hands the TeX to one long-lived Node process
running the ``katex`` npm package (``tools/katex-server.mjs``) and puts the HTML in its place, so pages
ship no math JavaScript. KaTeX's stylesheet and fonts are copied into the site itself.

Notebook pages (mkdocs-jupyter) are rendered by nbconvert, whose Markdown keeps ``$...$`` as text
for MathJax; :func:`_arithmatex_in_notebooks` makes it emit the same placeholders as arithmatex, so
their formulas go through the same renderer and fail the same way.

Invalid TeX stops the build with the page and the formula named. The hook knows nothing else about
the site, so the same Markdown can move to another generator with a different renderer step.
"""

from __future__ import annotations

import atexit
import hashlib
import html
import json
import re
import shutil
import subprocess
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parent.parent
SERVER = ROOT / "tools" / "katex-server.mjs"
KATEX_DIST = ROOT / "node_modules" / "katex" / "dist"
CSS_PATH = "assets/katex/katex.min.css"
CACHE = ROOT / ".cache" / "katex"

MATH = re.compile(
    r'<(?P<tag>span|div)(?=[^>]*\bclass="arithmatex")[^>]*>\s*(?:\\\((?P<inline>.*?)\\\)|\\\[(?P<block>.*?)\\\])\s*</(?P=tag)>',
    re.S,
)
PLACEHOLDER = re.compile(r'<(span|div) class="arithmatex">')


class KatexRenderer:
    """A KaTeX process that answers one JSON line per formula, started on the first formula not cached.

    Rendered formulas are kept in ``.cache/katex``, keyed by KaTeX's version and the server's source,
    so a rebuild with unchanged formulas does not start Node at all.
    """

    def __init__(self) -> None:
        if not (KATEX_DIST / "katex.mjs").exists():
            raise PluginError("KaTeX is not installed: run `npm ci` in the project root (make serve does it).")
        self.process: subprocess.Popen | None = None
        version = json.loads((KATEX_DIST.parent / "package.json").read_text(encoding="utf-8"))["version"]
        key = hashlib.sha256(SERVER.read_bytes() + version.encode()).hexdigest()[:16]
        self.cache_file = CACHE / f"katex-{version}-{key}.json"
        self.cache: dict[str, str] = {}
        if self.cache_file.exists():
            self.cache = json.loads(self.cache_file.read_text(encoding="utf-8"))
        self.used: set[str] = set()
        self.changed = False
        atexit.register(self.close)

    def render(self, tex: str, display: bool) -> str:
        key = ("D" if display else "I") + tex
        self.used.add(key)
        if key not in self.cache:
            if self.process is None:
                self.process = subprocess.Popen(
                    ["node", str(SERVER)], cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, encoding="utf-8"
                )
            self.process.stdin.write(json.dumps({"tex": tex, "display": display}) + "\n")
            self.process.stdin.flush()
            answer = json.loads(self.process.stdout.readline())
            if "error" in answer:
                raise ValueError(answer["error"])
            self.cache[key] = answer["html"]
            self.changed = True
        return self.cache[key]

    def save(self) -> None:
        """Keep exactly the formulas of this build (edited-away formulas drop out); called per build."""
        if self.changed or self.used != self.cache.keys():
            self.cache = {key: self.cache[key] for key in sorted(self.used)}
            CACHE.mkdir(parents=True, exist_ok=True)
            for stale in CACHE.glob("katex-*.json"):
                stale.unlink()
            partial = self.cache_file.with_suffix(".part")
            partial.write_text(json.dumps(self.cache), encoding="utf-8")
            partial.replace(self.cache_file)  # never a half-written cache, even if the build is killed
        self.used, self.changed = set(), False

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait(timeout=10)


_renderer: KatexRenderer | None = None


def render_math(page_html: str, where: str) -> str:
    """Replace every arithmatex placeholder in ``page_html`` by KaTeX HTML.

    Formulas are kept out of the search index (``data-search-exclude``): KaTeX writes each one three
    times (HTML, MathML, TeX), which made the index that every page downloads several times larger.
    """

    def replace(match: re.Match) -> str:
        global _renderer
        display = match.group("block") is not None
        tex = html.unescape(match.group("block") if display else match.group("inline")).strip()
        if _renderer is None:
            _renderer = KatexRenderer()
        try:
            rendered = _renderer.render(tex, display)
        except ValueError as err:
            raise PluginError(f"{where}: invalid TeX in formula {tex!r}: {err}") from None
        if display:
            return f'<div data-search-exclude class="arithmatex">{rendered}</div>'
        return f'<span data-search-exclude class="arithmatex">{rendered}</span>'

    return MATH.sub(replace, page_html)


def _arithmatex_in_notebooks() -> None:
    """Make nbconvert's Markdown renderer leave arithmatex placeholders instead of MathJax input."""
    try:
        from nbconvert.filters.markdown_mistune import IPythonRenderer
    except ImportError:  # no notebook pages without nbconvert
        return

    def display(self, body: str) -> str:
        return f'<div class="arithmatex">\\[{html.escape(body, quote=False)}\\]</div>'

    IPythonRenderer.block_math = display
    IPythonRenderer.inline_math = lambda self, body: f'<span class="arithmatex">\\({html.escape(body, quote=False)}\\)</span>'
    IPythonRenderer.latex_environment = lambda self, name, body: display(self, f"\\begin{{{name}}}{body}\\end{{{name}}}")


_arithmatex_in_notebooks()


def on_config(config):
    if CSS_PATH not in config.extra_css:
        config.extra_css.insert(0, CSS_PATH)
    return config


INLINE_TEX = re.compile(r"\\\((.+?)\\\)")


def _render_toc(items, where: str) -> None:
    """Headings keep their formulas as raw TeX in the table of contents; typeset those too."""
    for item in items:
        if "\\(" in item.title:
            item.title = INLINE_TEX.sub(
                lambda match: render_math(f'<span class="arithmatex">\\({match.group(1)}\\)</span>', where), item.title
            )
        _render_toc(item.children, where)


def on_page_content(html_text, page, config, files):
    # Formulas stay placeholders until the page is written (on_post_page): the search plugin then
    # parses a few characters per formula instead of KaTeX's hundreds of elements, and skips them.
    _render_toc(page.toc, page.file.src_uri)
    return PLACEHOLDER.sub(r'<\1 data-search-exclude class="arithmatex">', html_text)


def on_post_page(output, page, config):
    return render_math(output, page.file.src_uri)


def on_post_build(config):
    if _renderer is not None:
        _renderer.save()
    target = Path(config.site_dir) / "assets" / "katex"
    (target / "fonts").mkdir(parents=True, exist_ok=True)
    css = (KATEX_DIST / "katex.min.css").read_text(encoding="utf-8")
    # Every browser this guide targets reads woff2, so ship only those fonts and drop the fallbacks.
    css = re.sub(r',url\(fonts/[^)]+\.(?:woff|ttf)\) format\("(?:woff|truetype)"\)', "", css)
    (target / "katex.min.css").write_text(css, encoding="utf-8")
    for font in (KATEX_DIST / "fonts").glob("*.woff2"):
        shutil.copy2(font, target / "fonts" / font.name)
