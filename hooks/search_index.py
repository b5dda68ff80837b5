"""Decide what the search index, which every page downloads, holds.

Code blocks, printed outputs (rows of numbers) and the library source under each reference entry were
two thirds of the index's bytes. So every highlighted block -- chapters' code and outputs, labs' cells,
docstrings' examples -- is marked ``data-search-exclude``, which Material's search skips (and then strips),
and so are the figures a reader moves (their SVG and frames are no words). A formula (still a TeX
placeholder: hooks/katex_render.py typesets it when the page is written) is indexed as a plain text form,
``-log Q(x)`` for ``-\\log Q(x)``, so that result snippets have no holes; that text lives only while Material's
search reads the page, and is gone before any hook sees the page again. The reference's signatures, prose,
headings, inline code and docstrings stay searchable. The exercises' folded solutions (``??? success``) are
left out: a search finds the exercise, not its answer.
"""

from __future__ import annotations

import html
import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import event_priority
from mkdocs.structure.files import Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils.templates import TemplateContext

from tools.formula_text import formula_text

NOT_SEARCHED = re.compile(
    r'<(div class="(?![^"]*\bdoc-signature\b)[^"]*\bhighlight\b[^"]*"|details class="(?:mkdocstrings-source|success)"'
    r'|figure class="explorer")(?![^>]*\bdata-search-exclude\b)'
)
FORMULA = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.S)
SEARCH_TEXT = re.compile(r'<span class="search-text" hidden>[^<]*</span>')


# --- MkDocs events ------------------------------------------------------------------------------


@event_priority(-100)  # after every other hook has made the page's content
def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str | None:
    """Mark what the index leaves out, and give each formula its plain text for the index."""
    return FORMULA.sub(_searchable_formula, NOT_SEARCHED.sub(r"<\1 data-search-exclude", html))


@event_priority(-100)  # after Material's search (priority 0) has read the page, before the page is written
def on_page_context(
    context: TemplateContext, *, page: Page, config: MkDocsConfig, nav: Navigation
) -> TemplateContext | None:
    """Drop the formulas' plain text: the page shows them typeset."""
    page.content = SEARCH_TEXT.sub("", page.content)
    return context


# --- formulas -----------------------------------------------------------------------------------


def _searchable_formula(match: re.Match) -> str:
    text = html.escape(formula_text(match.group(2)), quote=False)
    excluded = match.group(0).replace('class="arithmatex"', 'class="arithmatex" data-search-exclude', 1)
    return f'<span class="search-text" hidden>{text}</span>{excluded}'
