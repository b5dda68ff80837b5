"""hooks/first_paint.py and the font preloads of hooks/katex_render.py: one stylesheet, tables drawn
whole, chunks laid out near the screen, and the fonts a page's formulas use asked for with the page."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "hooks"))
import first_paint  # noqa: E402
import katex_render  # noqa: E402


def site_file(page: Path, href: str) -> Path:
    """The file a page-relative link of a built page points at."""
    return (page.parent / href.split("#")[0].split("?")[0]).resolve()


def joined_stylesheet(site: Path) -> str:
    (sheet,) = (site / "assets" / "stylesheets").glob("site.*.css")
    return sheet.read_text(encoding="utf-8")


def test_urls_are_rebased_for_the_joined_stylesheet():
    css = 'a{background:url(fonts/A.woff2)} b{src:url("../img/b.png")} c{x:url(data:image/svg+xml;x)} d{x:url(https://e.org/f)}'
    assert first_paint.rebase_urls(css, "assets/katex/katex.min.css") == (
        'a{background:url(../katex/fonts/A.woff2)} b{src:url("../img/b.png")} '
        "c{x:url(data:image/svg+xml;x)} d{x:url(https://e.org/f)}"
    )


def test_every_page_links_one_stylesheet_whose_urls_exist(built_site):
    sheets = set()
    for page in sorted(built_site.rglob("index.html")):
        links = re.findall(r'<link rel="stylesheet" href="([^"]+)"', page.read_text(encoding="utf-8"))
        assert len(links) == 1, f"{page.relative_to(built_site)}: {links}"
        sheets.add(site_file(page, links[0]))
    (sheet,) = sheets
    css = sheet.read_text(encoding="utf-8")
    for part in ("main.", "palette.", "katex.min.css", "_mkdocstrings.css", "extra.css", "a11y.css", "notebooks.css"):
        assert part in css, f"{part} is not in {sheet.name}"
    urls = [url for _, url in first_paint.URL.findall(css) if not url.startswith("data:")]
    assert any("KaTeX_Main-Regular.woff2" in url for url in urls)
    for url in urls:
        assert (sheet.parent / url).resolve().is_file(), f"{sheet.name} points at a missing {url}"


def test_tables_come_wrapped_and_followed_by_their_end_marker(built_site):
    html = (built_site / "part-1" / "index.html").read_text(encoding="utf-8")
    assert re.search(
        r'<div class="md-typeset__scrollwrap whole-table"><div class="md-typeset__table"><table class="md-table">.*?</table>'
        r'</div></div><span class="table-end" hidden></span>', html, re.S)
    # A table without a class would be taken out and wrapped again by the theme's script.
    assert "<table>" not in html


def test_the_theme_styles_wrapped_tables_as_its_own(built_site):
    css = joined_stylesheet(built_site)
    assert first_paint.THEME_TABLE not in css.replace("table:is(:not([class]),.md-table)", "")
    assert css.count("table:is(:not([class]),.md-table)") >= 10  # the theme's table rules, all of them


def test_top_level_blocks_and_what_is_not_cut():
    assert first_paint.top_level_blocks('<p>a <em>b</em></p>\n<div><div>c</div></div><hr>') == [
        "<p>a <em>b</em></p>", "\n<div><div>c</div></div>", "<hr>", ""]
    assert first_paint.top_level_blocks("<p>a</p> stray text <p>b</p>") is None
    assert first_paint.top_level_blocks("<p>a</p></div>") is None
    assert first_paint.top_level_blocks("<div><p>a</p>") is None
    assert first_paint.top_level_blocks("<p>a</p><script>if (a < b) {}</script>") is None
    # A <pre> is read whole, its highlighted tokens included; a comment's tags are not counted.
    code = '<pre><span></span><code><span class="n">a</span> &lt; <b>b</b>\n</code></pre>'
    assert first_paint.top_level_blocks(f'<div class="highlight">{code}<!-- <p> --></div>{code}<p>c</p>') == [
        f'<div class="highlight">{code}<!-- <p> --></div>', code, "<p>c</p>", ""]
    assert first_paint.top_level_blocks("<p>a</p><pre><code>never closed</code>") is None


def test_code_lines_and_collapsed_solutions_in_the_height_estimate():
    code = '<div class="highlight"><pre><code><span>a</span>\n<span>b</span>\n</code></pre></div>'
    assert first_paint.estimated_height(code) == 3 * 19 + 24  # two newlines: three lines
    solution = '<details class="tip"><summary>S</summary><pre><code>' + "x\n" * 50 + "</code></pre></details>"
    assert first_paint.estimated_height(solution) == 48 + 24


def test_chunks_leave_the_top_and_the_headings_out():
    paragraph = "<p>" + "word " * 400 + "</p>"  # about 900 px on a phone
    short = "<p>" + "word " * 150 + "</p>"  # about 350 px
    html = ("<h1>T</h1>" + paragraph * 2 + '<h2 id="a">A</h2>' + short * 2 + '<h2 id="b">B</h2>' + short
            + '<h2 id="c">C</h2>' + short)
    out = first_paint.chunked(html)
    assert re.search(r'<h2 id="a">A</h2><div class="md-chunk" style="contain-intrinsic-size: auto \d+px"><p>', out)
    assert re.search(r'<h2 id="b">B</h2><div class="md-chunk"', out)
    assert '<div class="md-chunk"' not in out[: out.index('<h2 id="a">')]  # the first screens are drawn at once
    assert out.count('class="md-chunk"') == 3
    # The end of the page reserves more than its estimate: contents taller than the reserve would reach
    # into the footer (checked in a browser by test_browser.test_the_last_chunk_holds_its_contents).
    sizes = [int(size) for size in re.findall(r"contain-intrinsic-size: auto (\d+)px", out)]
    assert sizes[2] == pytest.approx(first_paint.LAST_CHUNK_MARGIN * sizes[1], rel=0.01)
    assert re.search(r'<h2 id="c">C</h2><div class="md-chunk"[^>]*><p>word', out)
    assert re.sub(r'<div class="md-chunk"[^>]*>|</div>', "", out) == html


def test_a_long_first_section_is_chunked_below_the_top():
    paragraph = "<p>" + "word " * 400 + "</p>"  # about 900 px on a phone
    html = "<h1>T</h1>" + paragraph * 5 + '<h2 id="a">A</h2>' + paragraph
    out = first_paint.chunked(html)
    top = out[: out.index('<div class="md-chunk"')]
    # What starts in the top stays out of chunks; the rest of the section is one chunk.
    tops = [first_paint.estimated_height("<h1>T</h1>") + n * first_paint.estimated_height(paragraph) for n in range(5)]
    eager = sum(1 for start in tops if start < first_paint.EAGER_PX)
    assert top.count("<p>") == eager >= 1
    # Each paragraph left is taller than a chunk may grow, so each is a chunk; then section A's.
    assert out.count('class="md-chunk"') == 5 - eager + 1
    assert re.sub(r'<div class="md-chunk"[^>]*>|</div>', "", out) == html
    # Never between a code block and its output (the copy-button test pairs them as siblings).
    code = '<div class="language-python highlight"><pre><code>' + "x = 1\n" * 80 + "</code></pre></div>"
    output = '<div class="language-output highlight"><pre><code>1</code></pre></div>'
    out = first_paint.chunked("<h1>T</h1>" + code + output + paragraph * 2)
    assert code + output in out and out.count('class="md-chunk"') == 1  # the last section: not cut


def test_a_long_section_is_cut_into_chunks_of_about_a_screen():
    """Chromium draws a whole chunk once part of it is near the screen: long sections come in pieces."""
    paragraph = "<p>" + "word " * 400 + "</p>"  # about 900 px on a phone
    short = "<p>" + "word " * 100 + "</p>"  # about 250 px
    code = '<div class="language-python highlight"><pre><code>' + "x = 1\n" * 10 + "</code></pre></div>"
    output = '<div class="language-output highlight"><pre><code>1</code></pre></div>'
    section = (short + code + output) * 8  # about 3,600 px
    html = "<h1>T</h1>" + paragraph * 2 + '<h2 id="a">A</h2>' + section + '<h2 id="b">B</h2>' + short
    out = first_paint.chunked(html).replace(' tabindex="0"', "")  # scroll boxes in chunks start focusable
    wrapper = re.compile(r'\s*<div class="md-chunk" style="contain-intrinsic-size: auto (\d+)px">(.*)</div>', re.S)
    chunks = [match.groups() for match in map(wrapper.fullmatch, first_paint.top_level_blocks(out)) if match]
    in_a = [(int(size), body) for size, body in chunks]
    assert len(in_a) >= 4
    for size, body in in_a:
        # Over the limit only by an output block, which stays with the code above it.
        assert first_paint.MIN_CHUNK_PX <= size <= first_paint.MAX_CHUNK_PX + first_paint.estimated_height(output)
        assert size == round(sum(first_paint.estimated_height(block) for block in first_paint.top_level_blocks(body)))
    assert out.count(code + output) == 8  # never cut between a code block and its output
    assert "".join(body for size, body in chunks) in html
    assert re.sub(r'<div class="md-chunk"[^>]*>', "", out).count("</div>") - html.count("</div>") == len(chunks)
    # The last section is one chunk however long: it must hold its contents, or they reach into the footer.
    last = first_paint.chunked(html + '<h2 id="c">C</h2>' + section)
    assert last[last.index('<h2 id="c">'):].count('class="md-chunk"') == 1


def test_collapsed_solutions_count_as_one_line():
    solution = '<details class="success"><summary>Solution</summary><pre><code>' + "x = 1\n" * 40 + "</code></pre></details>"
    assert first_paint.estimated_height(solution) < 100
    assert first_paint.estimated_height(solution.replace("<details ", "<details open ")) > 700


def test_chapters_are_chunked_below_their_first_screens(built_site):
    html = (built_site / "part-3" / "optimizers" / "index.html").read_text(encoding="utf-8")
    body = re.search(r'<article class="md-content__inner md-typeset">(.*)</article>', html, re.S).group(1)
    blocks = first_paint.top_level_blocks(body)
    chunks = [block for block in blocks if block.lstrip().startswith('<div class="md-chunk"')]
    assert len(chunks) >= 3
    assert not any(first_paint.HEADING.search(chunk) for chunk in chunks)
    assert not blocks[0].lstrip().startswith('<div class="md-chunk"')


def test_fonts_a_page_uses_are_preloaded_and_exist(built_site):
    page = built_site / "part-1" / "matrices" / "index.html"
    html = page.read_text(encoding="utf-8")
    preloaded = re.findall(r'<link rel="preload" href="([^"]+)" as="font" type="font/woff2" crossorigin>', html)
    names = {href.rsplit("/", 1)[1] for href in preloaded}
    assert {"KaTeX_Main-Regular.woff2", "KaTeX_Math-Italic.woff2"} <= names
    assert "KaTeX_Fraktur-Regular.woff2" not in names  # no \mathfrak on that page
    for href in preloaded:
        assert site_file(page, href).is_file(), href


def test_fonts_used_follows_katex_classes():
    rendered = katex_render.render_math('<span class="arithmatex">\\(\\mathbb{R}^{d} + \\mathcal{L}\\)</span>', "t.md")
    fonts = katex_render.fonts_used(rendered)
    assert {"KaTeX_Main-Regular.woff2", "KaTeX_AMS-Regular.woff2", "KaTeX_Caligraphic-Regular.woff2"} <= set(fonts)
    assert "KaTeX_Fraktur-Regular.woff2" not in fonts
    assert katex_render.fonts_used("<p>no formulas</p>") == []


def test_the_theme_script_does_not_restyle_the_whole_page_when_it_starts(built_site):
    css = joined_stylesheet(built_site)
    assert "data-md-color-switching" not in css
    assert css.count("{") == css.count("}")
    html = (built_site / "part-1" / "index.html").read_text(encoding="utf-8")
    head = html[: html.index("<body")]
    # Right after the stylesheet: its address made absolute before it is used, and the root's classes
    # set as the theme's script would set them.
    assert re.search(r'<link rel="stylesheet" href="[^"]*/site\.[0-9a-f]+\.css">\s*<script>\s*\(function \(root, sheet\) \{\s*'
                     r'sheet\.href = sheet\.href;\s*root\.classList\.replace\("no-js", "js"\);', head)


def test_the_palette_and_its_colour_scheme_are_set_while_the_header_is_parsed(built_site):
    html = (built_site / "part-1" / "index.html").read_text(encoding="utf-8")
    header = html[html.index("<header"): html.index("</header>")]
    # overrides/partials/javascripts/palette.html, right after the palette's inputs, with each
    # palette's color-scheme as the joined stylesheet gives it (browser test: it takes effect).
    assert 'var schemes = {"default": "light", "slate": "dark"};' in header
    assert header.index('data-md-component="palette"') < header.index("var schemes")


def test_the_theme_script_is_added_on_the_first_input(built_site):
    page = built_site / "part-1" / "matrices" / "index.html"
    html = page.read_text(encoding="utf-8")
    assert not re.search(r'<script src="[^"]*bundle\.[0-9a-f]+\.min\.js"', html)  # not a script at the end of the body
    # overrides/main.html; the browser test checks that it starts on an input, and only then.
    loader = re.search(r'var INPUTS = \[[^]]*"pointerdown"[^]]*"keydown"[^]]*\];.*?\}\)\("([^"]+)"\);', html, re.S)
    assert loader, "the theme's script is not added on the first input (overrides/main.html)"
    assert site_file(page, loader.group(1)).is_file()


def test_display_formulas_are_shown_only_once_parsed_to_their_end(built_site):
    rendered = katex_render.render_math('<div class="arithmatex">\\[x^2\\]</div><span class="arithmatex">\\(y\\)</span>', "t.md")
    display, inline = rendered.split("</div>", 1)
    assert display.startswith('<div class="arithmatex" data-whole><span class="katex-display">')
    assert display.endswith(katex_render.FORMULA_END)
    assert "data-whole" not in inline and "formula-end" not in inline  # inline formulas grow a line, not move
    assert "div.arithmatex[data-whole]:not(:has(> .formula-end))" in joined_stylesheet(built_site)
    html = (built_site / "part-4" / "backprop" / "index.html").read_text(encoding="utf-8")
    whole = re.findall(r'<div [^>]*class="arithmatex"[^>]* data-whole>', html)
    assert len(whole) == html.count('<span class="katex-display">') == html.count(katex_render.FORMULA_END) > 0
