"""Decide what the search index, which every page downloads, holds.

Code blocks, printed outputs (rows of numbers) and the library source under each reference entry were
two thirds of the index's bytes. So every highlighted block -- chapters' code and outputs, labs' cells,
docstrings' examples -- is marked ``data-search-exclude``, which Material's search skips. A formula (still
a TeX placeholder here: hooks/katex_render.py renders it when the page is written) is indexed as a plain
text form, ``-log Q(x)`` for ``-\\log Q(x)``, so that result snippets have no holes; that text is dropped from
the written page. The reference's signatures, prose, headings, inline code and docstrings stay searchable.
The exercises' folded solutions (``??? success``) are left out: a search finds the exercise, not its answer.
"""

from __future__ import annotations

import html
import re

from tools.formula_text import formula_text

NOT_SEARCHED = re.compile(
    r'<(div class="(?![^"]*\bdoc-signature\b)[^"]*\bhighlight\b[^"]*"|details class="(?:mkdocstrings-source|success)")'
)
FORMULA = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.S)
SEARCH_TEXT = re.compile(r'<span class="search-text" hidden>[^<]*</span>')


def on_page_content(html_text, page, config, files):
    html_text = NOT_SEARCHED.sub(lambda match: f"<{match.group(1)} data-search-exclude", html_text)

    def formula(match: re.Match) -> str:
        text = html.escape(formula_text(match.group(2)), quote=False)
        # Before the formula, so that what follows it (a comma, say) still follows it: hooks/katex_render.py.
        excluded = match.group(0).replace('class="arithmatex"', 'class="arithmatex" data-search-exclude', 1)
        return f'<span class="search-text" hidden>{text}</span>{excluded}'

    return FORMULA.sub(formula, html_text)


def on_post_page(output, page, config):
    return SEARCH_TEXT.sub("", output)
