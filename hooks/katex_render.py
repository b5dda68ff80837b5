"""Render every formula to KaTeX HTML while the site is built, so pages ship no math JavaScript.

pymdownx.arithmatex (generic mode) leaves each formula as ``<span class="arithmatex">\\(...\\)</span>``
or ``<div class="arithmatex">\\[...\\]</div>``; one long-lived Node process running the ``katex`` npm
package (``tools/katex-server.mjs``) turns the TeX into HTML, cached in ``.cache/katex``. Invalid TeX stops
the build, naming the page and the formula. The labs' pages hold the same placeholders: hooks/notebooks.py
writes them.

KaTeX's stylesheet and fonts are served by the site. The fonts a page's formulas use are preloaded, so
formulas are laid out once, in their own font, and do not move when it arrives; and the fonts are cut
down to the characters the guide's formulas draw (:func:`subset_fonts`), a third fewer bytes.
"""

from __future__ import annotations

import atexit
import base64
import functools
import hashlib
import html
import io
import json
import re
import subprocess
from collections.abc import Iterable
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import AnchorLink
from mkdocs.utils import get_relative_url

from tools.cache import Cache

ROOT = Path(__file__).resolve().parent.parent
SERVER = ROOT / "tools" / "katex-server.mjs"
KATEX_DIST = ROOT / "node_modules" / "katex" / "dist"
CSS_PATH = "assets/katex/katex.min.css"
FONTS_DIR = "assets/katex/fonts"

MATH = re.compile(
    r'(?P<open><(?P<tag>span|div)(?=[^>]*\bclass="arithmatex")[^>]*>)\s*(?:\\\((?P<inline>.*?)\\\)|\\\[(?P<block>.*?)\\\])\s*</(?P=tag)>'
    r"(?P<punct>[,.;:!?)])?",
    re.S,
)
INLINE_TEX = re.compile(r"\\\((.+?)\\\)")
MATHML = re.compile(r'<span class="katex-mathml">.*?</math></span>', re.S)
TAG = re.compile(r"<[^>]*>")
CLASSES = re.compile(r'class="([^"]*)"')
CSS_RULE = re.compile(r"([^{}@]+)\{([^{}]*)\}")


# --- MkDocs events ------------------------------------------------------------------------------


def on_config(config: MkDocsConfig) -> MkDocsConfig | None:
    if CSS_PATH not in config.extra_css:
        config.extra_css.insert(0, CSS_PATH)
    return config


def on_files(files: Files, *, config: MkDocsConfig) -> Files | None:
    """KaTeX's stylesheet and woff2 fonts become files of the site."""
    css = (KATEX_DIST / "katex.min.css").read_text(encoding="utf-8")
    # Every browser this guide targets reads woff2, so ship only those fonts and drop the fallbacks.
    css = re.sub(r',url\(fonts/[^)]+\.(?:woff|ttf)\) format\("(?:woff|truetype)"\)', "", css)
    files.append(File.generated(config, CSS_PATH, content=css))
    for font in sorted((KATEX_DIST / "fonts").glob("*.woff2")):
        files.append(File.generated(config, f"{FONTS_DIR}/{font.name}", abs_src_path=str(font)))
    return files


def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str | None:
    """Headings keep their formulas as raw TeX in the table of contents; typeset those. The page's own
    formulas stay placeholders until it is written (on_post_page), after the search plugin has read it."""
    _render_toc(page.toc, page.file.src_uri)
    return html


def on_post_page(output: str, *, page: Page, config: MkDocsConfig) -> str | None:
    """Typeset the page's formulas, and preload the KaTeX fonts they use."""
    output, formulas = _render_math(output, page.file.src_uri)
    links = "".join(
        f'<link rel="preload" href="{get_relative_url(f"{FONTS_DIR}/{font}", page.url)}" as="font" '
        f'type="font/woff2" crossorigin>'
        for font in fonts_used(formulas)
    )
    return output.replace("</head>", links + "</head>", 1) if links else output


def on_post_build(*, config: MkDocsConfig) -> None:
    """Typeset the print page (print-site writes it after every page), cut the fonts, keep the cache."""
    print_page = Path(config.site_dir) / "print_page" / "index.html"
    if print_page.exists():
        print_page.write_text(render_math(print_page.read_text(encoding="utf-8"), "print_page"), encoding="utf-8")
    if _renderer is not None:
        subset_fonts(Path(config.site_dir) / FONTS_DIR, _renderer.characters())
        _renderer.save()


# --- typesetting --------------------------------------------------------------------------------


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
        self.store = Cache("katex", salt=f"katex {version}")  # and tools/katex-server.mjs, the file it reads
        self.cache: dict[str, str] = self.store.get("formulas") or {}
        self.used: set[str] = set()
        self.changed = False
        atexit.register(self.close)

    def render(self, tex: str, display: bool) -> str:
        key = ("D" if display else "I") + tex
        self.used.add(key)
        if key not in self.cache:
            if self.process is None:
                self.process = subprocess.Popen(
                    ["node", str(SERVER)],
                    cwd=ROOT,
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    text=True,
                    encoding="utf-8",
                )
            self.process.stdin.write(json.dumps({"tex": tex, "display": display}) + "\n")
            self.process.stdin.flush()
            answer = json.loads(self.process.stdout.readline())
            if "error" in answer:
                raise ValueError(answer["error"])
            self.cache[key] = answer["html"]
            self.changed = True
        return self.cache[key]

    def characters(self) -> set[str]:
        """Every character the formulas of this build draw with KaTeX's fonts (their HTML, not MathML)."""
        drawn: set[str] = set()
        for key in self.used:
            drawn |= drawn_characters(self.cache[key])
        return drawn

    def save(self) -> None:
        """Keep exactly the formulas of this build (edited-away formulas drop out); called per build."""
        if self.changed or self.used != self.cache.keys():
            self.cache = {key: self.cache[key] for key in sorted(self.used)}
            self.store.put("formulas", self.cache, [SERVER])
        self.used, self.changed = set(), False

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait(timeout=10)
            self.process.stdout.close()


_renderer: KatexRenderer | None = None


def render_math(page_html: str, where: str) -> str:
    """Replace every arithmatex placeholder in ``page_html`` by KaTeX HTML; each keeps its own attributes."""
    return _render_math(page_html, where)[0]


def _render_math(page_html: str, where: str) -> tuple[str, list[str]]:
    """:func:`render_math`, and the KaTeX HTML of each formula of the page."""
    global _renderer
    if "arithmatex" not in page_html:
        return page_html, []
    if _renderer is None:
        _renderer = KatexRenderer()
    renderer, formulas = _renderer, []

    def replace(match: re.Match) -> str:
        display = match.group("block") is not None
        tex = html.unescape(match.group("block") if display else match.group("inline")).strip()
        try:
            rendered = renderer.render(tex, display)
        except ValueError as err:
            raise PluginError(f"{where}: invalid TeX in formula {tex!r}: {err}") from None
        formulas.append(rendered)
        formula = f"{match.group('open')}{rendered}</{match.group('tag')}>"
        # Punctuation after an inline formula stays on its line (extra.css: no line starts with ","), for a
        # formula short enough to move whole to the next line; a longer one must keep its own line breaks.
        if match.group("punct") and not display and len(drawn_text(rendered)) <= 22:
            return f'<span class="formula-punct">{formula}{match.group("punct")}</span>'
        return formula + (match.group("punct") or "")

    return MATH.sub(replace, page_html), formulas


def _render_toc(items: list[AnchorLink], where: str) -> None:
    for item in items:
        if "\\(" in item.title:
            item.title = INLINE_TEX.sub(
                lambda match: render_math(f'<span class="arithmatex">\\({match.group(1)}\\)</span>', where), item.title
            )
        _render_toc(item.children, where)


@functools.cache
def drawn_text(rendered: str) -> str:
    """The text a rendered formula shows: that of its HTML part (the MathML part is read by screen readers,
    not drawn)."""
    return html.unescape(TAG.sub("", MATHML.sub("", rendered)))


def drawn_characters(rendered: str) -> frozenset[str]:
    """The characters a rendered formula draws with KaTeX's fonts."""
    return frozenset(drawn_text(rendered))


# --- fonts --------------------------------------------------------------------------------------


def fonts_used(formulas: Iterable[str]) -> list[str]:
    """KaTeX's fonts that ``formulas`` (KaTeX HTML) need, to be preloaded with their page."""
    present = frozenset().union(*map(_classes, set(formulas)))
    return sorted({font for classes, font in _font_rules() if classes <= present})


@functools.cache
def _classes(rendered: str) -> frozenset[str]:
    # Each distinct class attribute split once: a formula repeats KaTeX's few dozen values.
    return frozenset(token for value in set(CLASSES.findall(rendered)) for token in value.split())


@functools.cache
def _font_rules() -> tuple[tuple[frozenset[str], str], ...]:
    """(classes, font file) for every rule of KaTeX's stylesheet that picks one of its fonts."""
    rules = []
    for selectors, body in CSS_RULE.findall((KATEX_DIST / "katex.min.css").read_text(encoding="utf-8")):
        family = re.search(r"font(?:-family)?:[^;]*?KaTeX_(\w+)", body)
        bold, italic = "font-weight:700" in body or "bold" in body, "font-style:italic" in body
        if not family and not (bold or italic):
            continue
        variant = "BoldItalic" if bold and italic else "Bold" if bold else "Italic" if italic else "Regular"
        font = f"KaTeX_{family.group(1) if family else 'Main'}-{variant}.woff2"
        if not (KATEX_DIST / "fonts" / font).exists():
            continue
        for selector in selectors.split(","):
            classes = frozenset(re.findall(r"\.([\w-]+)", selector))
            if classes:  # not an @font-face block
                rules.append((classes, font))
    return tuple(rules)


def subset_fonts(fonts_dir: Path, characters: set[str]) -> None:
    """Cut KaTeX's woff2 fonts down to ``characters`` and write them over those in ``fonts_dir``.

    Always from KaTeX's own files (a site folder left from an earlier build, ``mkdocs serve --dirty``,
    may hold earlier cuts). Each cut is cached (``tools/cache.py``) by the font's bytes and the
    characters, so a build whose formulas draw no new character does not import fontTools. A
    character a font lacks is ignored.
    """
    wanted = "".join(sorted(characters))
    for font in sorted(fonts_dir.glob("*.woff2")):
        source = KATEX_DIST / "fonts" / font.name
        cache = Cache("katex-fonts", salt=hashlib.sha256(source.read_bytes() + wanted.encode("utf-8")).hexdigest())
        cut = cache.get(font.stem)
        if cut is None:
            from fontTools import subset  # only when a cut is missing: the import alone takes 0.1 s

            options = subset.Options()
            options.flavor = "woff2"
            options.layout_features = ["*"]
            options.name_IDs = ["*"]
            options.notdef_outline = True
            tables = subset.load_font(str(source), options)
            subsetter = subset.Subsetter(options)
            subsetter.populate(unicodes=[ord(character) for character in wanted])
            subsetter.subset(tables)
            buffer = io.BytesIO()
            subset.save_font(tables, buffer, options)
            cut = base64.b64encode(buffer.getvalue()).decode("ascii")
            cache.put(font.stem, cut, [])
        font.write_bytes(base64.b64decode(cut))
