"""The build steps on their own, without building the site: formulas to KaTeX (and invalid TeX that stops the
build, on a page or in a lab), the no-external-request check, formulas as search text, and the PDF print."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from hooks import katex_render, no_external

ROOT = Path(__file__).resolve().parents[2]


def test_drawn_characters_are_the_html_part_of_a_formula():
    rendered = (
        '<span class="katex"><span class="katex-mathml"><math><mi>μ</mi></math></span>'
        '<span class="katex-html" aria-hidden="true"><span class="mord">x&lt;y</span></span></span>'
    )
    assert katex_render.drawn_characters(rendered) == {"x", "<", "y"}


def test_invalid_tex_names_page_and_formula():
    bad = '<p><span class="arithmatex">\\(\\frac{a}{\\)</span></p>'
    with pytest.raises(Exception, match=r"part-9/bad\.md: invalid TeX in formula '\\\\frac\{a\}\{'"):
        katex_render.render_math(bad, "part-9/bad.md")


def test_katex_rendering_of_inline_and_display_math():
    out = katex_render.render_math(
        '<span class="arithmatex">\\(a &lt; b\\)</span><div class="arithmatex">\\[x^2\\]</div>', "t.md"
    )
    assert out.count('class="katex"') == 2 and 'class="katex-display"' in out
    assert "&lt;" in out and "\\(" not in out


def test_invalid_tex_fails_a_strict_build(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "index.md").write_text("# Bad\n\n$$\n\\frac{1}{\n$$\n")
    (tmp_path / "mkdocs.yml").write_text(
        textwrap.dedent(f"""\
        site_name: bad tex
        hooks:
          - {ROOT / "hooks" / "katex_render.py"}
        markdown_extensions:
          - pymdownx.arithmatex:
              generic: true
        """)
    )
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode != 0
    assert "index.md: invalid TeX in formula" in result.stdout + result.stderr


@pytest.mark.parametrize(
    ("snippet", "found"),
    [
        ('<script src="https://cdn.example.org/katex.js"></script>', True),
        ('<link rel="stylesheet" href="//fonts.googleapis.com/css">', True),
        ('<img src="http://example.org/a.png" alt="">', True),
        ('<div style="background: url(https://example.org/bg.png)"></div>', True),
        ("<style>@import 'https://example.org/x.css';</style>", True),
        ('<a href="https://github.com/">a link is not a request</a>', False),
        ('<link rel="canonical" href="https://example.org/page/">', False),
        ('<script src="../assets/javascripts/bundle.js"></script><img src="figures/a.svg" alt="">', False),
    ],
)
def test_external_request_detection(snippet, found):
    assert bool(no_external.external_requests(snippet)) is found


@pytest.mark.parametrize(
    ("tex", "text"),
    [
        (r"\(-\log Q(x)\)", "-log Q(x)"),
        (
            r"\[\operatorname{softmax}(z)_i = \frac{e^{z_i}}{\sum_{j} e^{z_j}}\]",
            "softmax(z)_i = (e^(z_i))/(∑_j e^(z_j))",
        ),
        (r"\[\mathrm{PPL} = \exp\Big(-\frac1N \sum_t \ln p_t\Big)\,.\]", "PPL = exp(-(1)/(N) ∑_t ln p_t)."),
        (r"\(\frac{x - \mu}{\sqrt{\sigma^2 + \epsilon}}\)", "(x - μ)/(√(σ^2 + ε))"),
        (r"\(W \in \mathbb{R}^{d \times d_k}\)", "W ∈ ℝ^(d × d_k)"),
        (r"\[\begin{aligned} a &= \Sigma \\\\ b &\le \lVert v \rVert \end{aligned}\]", "a = Σ b ≤ ‖ v ‖"),
    ],
)
def test_formulas_are_indexed_as_plain_text(tex, text):
    from tools.formula_text import formula_text

    assert formula_text(tex) == text


def test_invalid_tex_in_a_lab_fails_with_page_and_formula():
    """nbconvert writes a Markdown cell's formulas for MathJax; hooks/notebooks.py makes them the placeholders
    that hooks/katex_render.py typesets, so a broken one stops the build as on a chapter."""
    from mkdocs.exceptions import PluginError
    from nbconvert.filters.markdown_mistune import markdown2html_mistune

    from hooks.katex_render import render_math
    from hooks.notebooks import theme_notebook_html

    cell = markdown2html_mistune("A broken formula: $\\frac{1}{$ and a good one $x^2$, and `$code$`.")
    html = theme_notebook_html(f'<div class="jp-RenderedMarkdown">{cell}</div>')
    assert '<span class="arithmatex">\\(x^2\\)</span>' in html and "<code>$code$</code>" in html
    with pytest.raises(PluginError, match=r"labs/broken\.py: invalid TeX in formula '\\\\frac\{1\}\{'"):
        render_math(html, "labs/broken.py")


def test_a_labs_download_installs_the_edition_the_site_was_built_from():
    """hooks/notebooks.py pins the first cell's install line of a lab's download, as hooks/edition.py pins a page's."""
    import jupytext

    from hooks.notebooks import pinned
    from tools.edition import REPOSITORY, UNPINNED

    lab = jupytext.read(ROOT / "docs" / "labs" / "softmax.py")
    assert UNPINNED.search(next(cell.source for cell in lab.cells if cell.cell_type == "code"))
    first = next(cell.source for cell in pinned(lab, "0123abc").cells if cell.cell_type == "code")
    assert f'"{REPOSITORY}@0123abc"' in first and not UNPINNED.search(first)
    unchanged = next(cell.source for cell in pinned(jupytext.read(ROOT / "docs" / "labs" / "softmax.py"), None).cells)
    assert unchanged == lab.cells[0].source  # outside git there is no pin: the line stays as written


def test_the_index_copy_leaves_out_parameter_tables_and_the_notations_page_column_and_keeps_the_rest():
    from hooks.search_index import index_copy

    entry = (
        '<p>Scale the gradients.</p><p><span class="doc-section-title">Parameters:</span></p>\n'
        "<table><thead><tr><th>Name</th></tr></thead><tbody><tr><td><code>max_norm</code></td></tr></tbody></table>"
        "<p>After the table.</p>"
    )
    copy = index_copy(entry)
    assert "Scale the gradients." in copy and "After the table." in copy
    assert "max_norm" not in copy and "Parameters:" not in copy
    notation = (
        "<table><thead><tr><th>symbol</th><th>meaning</th><th>introduced in</th></tr></thead><tbody>"
        '<tr><td>d</td><td>the width</td><td><a href="x">Scalars and vectors</a></td></tr></tbody></table>'
    )
    copy = index_copy(notation)
    assert "the width" in copy and "Scalars and vectors" not in copy
    other = notation.replace("introduced in", "shape")  # any other table keeps every column
    assert "Scalars and vectors" in index_copy(other)
    coded = notation.replace("<th>introduced in", "<th>in the code</th><th>introduced in").replace(
        "<td>the width</td>", "<td>the width</td><td><code>d_model</code></td>"
    )
    copy = index_copy(coded)
    assert "the width" in copy and "d_model" not in copy and "Scalars and vectors" not in copy
    chapter = (
        '<h2 id="why">Why</h2><p>Attention.</p><h2 id="further-reading">Further reading</h2><ul><li>Vaswani</li></ul>'
    )
    copy = index_copy(chapter + '<h2 id="after">After</h2><p>More.</p>')
    assert "Attention." in copy and "More." in copy and "Vaswani" not in copy and "Further reading" not in copy
    assert "Vaswani" not in index_copy(chapter)  # the last section of a page
