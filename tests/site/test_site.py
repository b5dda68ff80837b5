"""The built site: strict build, formulas rendered to KaTeX at build time, no math JavaScript, no
request to another host, and the code on each page is exactly the code the doc tests ran."""

from __future__ import annotations

import gzip
import html
import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from hooks import no_external
from tools.docblocks import SnippetExpander

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


@pytest.fixture(autouse=True)
def _build_ended(built_pdf) -> None:
    """The build has ended: the print page, which the PDF step prints and then removes, is gone from the site."""


class CodeBlocks(HTMLParser):
    """Text of every highlighted code block of one language, in page order (what a copy button copies)."""

    def __init__(self, language: str) -> None:
        super().__init__(convert_charrefs=True)
        self.language = language
        self.blocks: list[str] = []
        self.depth = 0  # >0 while inside a matching block's <code>
        self.in_block = False

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if tag == "div" and f"language-{self.language}" in classes and "highlight" in classes:
            self.in_block = True
        elif tag == "code" and self.in_block:
            self.depth = 1
            self.blocks.append("")
        elif self.depth:
            self.depth += 1 if tag not in {"br"} else 0

    def handle_endtag(self, tag):
        if self.depth:
            if tag == "code" and self.depth == 1:
                self.depth = 0
                self.in_block = False
            elif tag != "code":
                self.depth -= 1

    def handle_data(self, data):
        if self.depth:
            self.blocks[-1] += data


RAW_TEX = re.compile(r"\\\(|\\\[|\$\$|\$\\[a-zA-Z]")
NOT_PROSE = re.compile(r"<(pre|code|annotation|script|style)\b.*?</\1>", re.S)


def test_every_formula_is_katex_markup(built_site):
    checked = 0
    for page in pages(built_site):
        text = page.read_text(encoding="utf-8")
        placeholders = text.count('class="arithmatex"')
        rendered = len(re.findall(r'class="arithmatex"[^>]*><span class="katex', text))
        assert placeholders == rendered, (
            f"{page.relative_to(built_site)}: {placeholders - rendered} formula(s) not rendered"
        )
        prose = html.unescape(NOT_PROSE.sub("", text))
        raw = RAW_TEX.search(prose)
        assert raw is None, (
            f"{page.relative_to(built_site)}: raw TeX left on the page near {prose[raw.start() - 40 : raw.end() + 40]!r}"
        )
        checked += rendered
    assert checked > 0, "no formula found in the built site"


def test_a_successful_build_is_quiet(built_site):
    """Only MkDocs' INFO lines: no traceback, no kernel warning, no note about formatting signatures."""
    log = built_site.with_suffix(".log").read_text(encoding="utf-8")
    noise = [line for line in log.splitlines() if line.strip() and not line.startswith("INFO")]
    assert not noise, "the build printed:\n" + "\n".join(noise[:20])


def test_no_math_javascript_is_shipped(built_site):
    for page in pages(built_site):
        text = page.read_text(encoding="utf-8").lower()
        for marker in ("katex.min.js", "katex.js", "auto-render", "mathjax", "tex-mml-chtml", "polyfill.io"):
            assert marker not in text, f"{page.relative_to(built_site)} loads {marker}"
    assert not list(built_site.rglob("katex*.js")), "KaTeX JavaScript was copied into the site"


def test_katex_stylesheet_and_fonts_are_served_by_the_site(built_site):
    css = built_site / "assets" / "katex" / "katex.min.css"
    assert css.exists()
    assert "url(fonts/KaTeX_Main-Regular.woff2)" in css.read_text()
    assert (built_site / "assets" / "katex" / "fonts" / "KaTeX_Main-Regular.woff2").exists()


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _DrawnText(HTMLParser):
    """The text inside KaTeX's HTML output (``.katex-html``), which its fonts draw; not the MathML."""

    def __init__(self) -> None:
        super().__init__()
        self.depth = 0  # >0 inside a .katex-html element
        self.characters: set[str] = set()

    def handle_starttag(self, tag, attrs):
        if self.depth:
            self.depth += tag not in VOID
        elif "katex-html" in (dict(attrs).get("class") or "").split():
            self.depth = 1

    def handle_endtag(self, tag):
        if self.depth and tag not in VOID:
            self.depth -= 1

    def handle_data(self, data):
        if self.depth:
            self.characters |= set(data)


def test_katex_fonts_are_cut_down_but_keep_every_character_a_page_draws(built_site):
    from fontTools.ttLib import TTFont

    reader = _DrawnText()
    for page in pages(built_site):
        reader.feed(page.read_text(encoding="utf-8"))
    assert len(reader.characters) > 50  # letters, digits, Greek, operators
    shipped_bytes = original_bytes = 0
    for shipped in sorted((built_site / "assets" / "katex" / "fonts").glob("*.woff2")):
        original = ROOT / "node_modules" / "katex" / "dist" / "fonts" / shipped.name
        had, has = TTFont(original).getBestCmap(), TTFont(shipped).getBestCmap()
        lost = sorted(
            character for character in reader.characters if ord(character) in had and ord(character) not in has
        )
        assert not lost, f"{shipped.name} lost characters the pages draw: {lost}"
        assert set(has) <= set(had)
        shipped_bytes += shipped.stat().st_size
        original_bytes += original.stat().st_size
    assert shipped_bytes < 0.75 * original_bytes, (shipped_bytes, original_bytes)


def test_no_page_loads_from_another_host(built_site):
    for page in pages(built_site):
        assert no_external.external_requests(page.read_text(encoding="utf-8")) == [], page.relative_to(built_site)


def test_figures_are_built_in_both_themes(built_site):
    light = {p.name.removesuffix(".light.svg") for p in (built_site / "figures").glob("*.light.svg")}
    dark = {p.name.removesuffix(".dark.svg") for p in (built_site / "figures").glob("*.dark.svg")}
    assert light and light == dark


def _html_for(md: Path, site: Path) -> Path:
    relative = md.relative_to(ROOT / "docs").with_suffix("")
    return site / (relative.parent if relative.name == "index" else relative) / "index.html"


def test_code_on_each_page_is_the_code_the_doc_tests_run(built_site):
    """Byte for byte: the text a reader copies is the snippet-expanded block the harness executes."""
    expander = SnippetExpander(ROOT / "mkdocs.yml")
    compared = 0
    for md in sorted((ROOT / "docs").rglob("*.md")):
        tested = [block.rstrip("\n") for block in expander.python_blocks(md.read_text(encoding="utf-8"))]
        if not tested:
            continue
        parser = CodeBlocks("python")
        parser.feed(_html_for(md, built_site).read_text(encoding="utf-8"))
        shown = [block.rstrip("\n") for block in parser.blocks]
        assert shown[: len(tested)] == tested, f"{md.relative_to(ROOT)}: page code differs from tested code"
        compared += len(tested)
    assert compared > 0


def test_figures_reserve_their_space_and_load_lazily(built_site):
    images = 0
    for page in pages(built_site):
        for tag in re.findall(r"<img [^>]*figures/[^>]*>", page.read_text(encoding="utf-8")):
            images += 1
            assert re.search(r'width="\d+" height="\d+"', tag), (
                f"{page.relative_to(built_site)}: no size on {tag[:120]}"
            )
            assert 'loading="lazy"' in tag, f"{page.relative_to(built_site)}: eager figure {tag[:120]}"
    assert images > 0


def test_code_outputs_formulas_and_reference_source_stay_out_of_the_search_index(built_site):
    index = (built_site / "search" / "search_index.json").read_text(encoding="utf-8")
    assert 'class="katex' not in index and "katex-mathml" not in index
    assert "[0.659  0.2424 0.0986]" not in index  # an output on the softmax page
    assert "def check(name, answer, expected" not in index  # a lab's code cell
    assert "&gt;&gt;&gt;" not in index  # a docstring's example
    assert "softmax" in index
    assert "naive_softmax(x, axis=-1)" in index  # the reference's signatures stay
    assert "Name Type Description" not in index  # its tables of parameters, which repeat the signature
    assert "the cross entropy H(P, Q) = -" in index  # a formula, as text: no hole in the snippet
    assert "min of reading on the path" not in index  # the reading time under each title
    assert "\\frac" not in index and "\\(" not in index
    assert 'class="search-text"' not in (built_site / "part-2" / "information" / "index.html").read_text("utf-8")
    locations = {doc["location"].split("#")[0] for doc in json.loads(index)["docs"]}
    assert "labs/" in locations and not any(where.startswith("labs/") and where != "labs/" for where in locations)
    assert "the squared deviations are 9, 1, 1, 1" not in index  # an exercise's folded solution (statistics)


SEARCH_INDEX_BUDGET = 150 * 1024  # bytes, gzipped as a server sends it: every page loads the index


def test_the_search_index_every_page_loads_is_within_its_budget(built_site):
    index = (built_site / "search" / "search_index.json").read_bytes()
    size = len(gzip.compress(index, compresslevel=6))
    assert size <= SEARCH_INDEX_BUDGET, f"the search index is {size / 1024:.1f} KB gzipped; the budget is 150 KB"


def test_the_404_page_leads_back_to_the_home_page_each_part_and_search(built_site):
    from tools.browser import site_prefix

    page = (built_site / "404.html").read_text(encoding="utf-8")
    article = page[page.index("<article") : page.index("</article>")]
    assert "Search the guide" in article
    targets = re.findall(r'<a href="([^"]+)"', article)
    prefix = site_prefix()
    for wanted in ["", "part-1/", "part-2/", "part-3/", "part-4/", "labs/"]:
        assert any(target.rstrip(".") == prefix + wanted for target in targets), f"404 page: no link to /{wanted}"
    for target in targets:  # absolute: GitHub Pages serves this page at any depth
        assert target.startswith(prefix), target
        assert (built_site / target[len(prefix) :].rstrip(".") / "index.html").is_file(), (
            f"404 page: {target} is broken"
        )


INSTALL_LINE = "pip install git+https://github.com/transformer-math/mathematics-for-transformers"


@pytest.mark.parametrize(
    "page", ["index.html", "part-1/index.html", "part-2/index.html", "part-3/index.html", "part-4/index.html"]
)
def test_the_home_page_and_each_part_say_how_to_install_the_library_and_where_to_start(built_site, page):
    text = html.unescape(re.sub(r"<[^>]+>", "", (built_site / page).read_text(encoding="utf-8")))
    assert INSTALL_LINE in text, f"{page}: no install line"
    assert "Start with" in text, f"{page}: does not say where to start"


def _outline_titles(outline):
    for item in outline:
        yield from _outline_titles(item) if isinstance(item, list) else [item.title]


def test_the_whole_guide_is_one_pdf_with_contents_page_numbers_and_every_chapter(built_site, built_pdf):
    """tools/pdf.py printed the print page (every chapter) with Chromium, then removed that page."""
    import pypdf

    from tools.pdf import PDF_NAME

    pdf = built_pdf
    assert pdf == built_site / PDF_NAME and pdf.is_file(), f"no {PDF_NAME}: is Chromium installed?"
    assert not (built_site / "print_page").exists(), "the print page is over the page budget; only the PDF ships"
    assert f'href="{PDF_NAME}"' in (built_site / "index.html").read_text(encoding="utf-8"), "the home page links it"
    reader = pypdf.PdfReader(pdf)
    titles = set(_outline_titles(reader.outline))
    chapters = sorted(DOCS.glob("part-*/*.md"))
    for chapter in chapters:
        title = re.search(r"^# (.+)$", chapter.read_text(encoding="utf-8"), re.M).group(1)
        assert title in titles, f"{chapter.relative_to(DOCS)}: '{title}' is not in the PDF's outline"
    assert len(reader.pages) > len(chapters)
    first, later = reader.pages[0].extract_text(), reader.pages[len(reader.pages) // 2].extract_text()
    assert first.startswith("Mathematics for Transformers"), first[:300]  # the title page (tests/site/test_pdf.py)
    assert str(len(reader.pages) // 2 + 1) in later.split(), "the page number in the footer"
    assert "Skip to content" not in first + later and "Initializing search" not in first + later
