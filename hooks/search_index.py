"""Decide what the search index, which every page downloads, holds.

Material's search reads each page's HTML (``page.content``) in its ``on_page_context``. Just before, this
hands it a copy made for the index; just after, it puts the page back, so the page that is written (and
every other hook) never sees the copy:

- Code blocks, printed outputs (rows of numbers) and the library source under each reference entry were two
  thirds of the index's bytes. So every highlighted block -- chapters' code and outputs, labs' cells,
  docstrings' examples -- is marked ``data-search-exclude``, which Material's search skips, and so are the
  exercises' folded solutions (``??? success``: a search finds the exercise, not its answer) and the figures
  a reader moves (their SVG and frames are no words), and the reading time under each title
  (hooks/reading_time.py). What they hold is left out of the copy: Material's
  search would parse it only to skip it, half the time it spent on a page.
- Two kinds of table repeat what the index has elsewhere: a reference entry's tables of parameters, returns
  and errors (their names are in its signature, which stays) and the notation's columns "in the code" (the
  library's names, searchable on its reference pages) and "introduced in" (the chapters' names). All stay on
  the page and out of the index. So does a chapter's "Further reading": titles and authors of papers, whose
  ideas the chapter's own text names where it uses them.
- A formula (a TeX placeholder until hooks/katex_render.py typesets it when the page is written) is indexed
  as a plain text form, ``-log Q(x)`` for ``-\\log Q(x)``, so that result snippets have no holes.

The reference's signatures, prose, headings, inline code and docstrings stay searchable.
"""

from __future__ import annotations

import html
import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import CombinedEvent, event_priority
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils.templates import TemplateContext

from tools.formula_text import formula_text

NOT_SEARCHED = re.compile(
    r'<(?:div class="(?![^"]*\bdoc-signature\b)[^"]*\bhighlight\b[^"]*"'
    r'|details class="(?:mkdocstrings-source|success)"|figure class="explorer"|p class="reading-time")[^>]*>'
)
FORMULA = re.compile(r'<(span|div) class="arithmatex">(.*?)</\1>', re.S)
FURTHER_READING = re.compile(r'<h2 id="further-reading".*?(?=<h2\b|\Z)', re.S)  # to the next section or the end
TABLE = re.compile(r"<table>.*?</table>", re.S)
DOC_TABLE = re.compile(r'<p><span class="doc-section-title">[^<]*</span></p>\s*<table>')
PAGE_COLUMN = re.compile(
    r"(<th[^>]*>in the code</th>\s*)?<th[^>]*>(?:introduced in|on the page)</th>\s*</tr>\s*</thead>"
)
LAST_CELL = re.compile(r"<td([^>]*)>((?:(?!<td).)*?)</td>(\s*</tr>)", re.S)
LAST_TWO_CELLS = re.compile(r"<td([^>]*)>(?:(?!<td).)*?</td>\s*<td([^>]*)>(?:(?!<td).)*?</td>(\s*</tr>)", re.S)

_pages: dict[str, str] = {}  # each page's own HTML while Material's search reads the copy


# --- MkDocs events ------------------------------------------------------------------------------


@event_priority(100)  # before Material's search (priority 0)
def _on_page_context_give_copy(
    context: TemplateContext, *, page: Page, config: MkDocsConfig, nav: Navigation
) -> TemplateContext | None:
    _pages[page.file.src_uri] = page.content
    page.content = index_copy(page.content)
    return context


@event_priority(-100)  # after it, before the page is written
def _on_page_context_take_back(
    context: TemplateContext, *, page: Page, config: MkDocsConfig, nav: Navigation
) -> TemplateContext | None:
    page.content = _pages.pop(page.file.src_uri, page.content)
    return context


on_page_context = CombinedEvent(_on_page_context_give_copy, _on_page_context_take_back)


# --- the copy -----------------------------------------------------------------------------------


def index_copy(page_html: str) -> str:
    """``page_html`` as the index should read it: what it leaves out marked and emptied, formulas as text."""
    parts, end = [], 0
    for match in NOT_SEARCHED.finditer(page_html):
        if match.start() < end:  # inside an element already left out
            continue
        tag = match.group(0)[1:].split(" ", 1)[0]
        opening = match.group(0)
        if "data-search-exclude" not in opening:
            opening = opening.replace(" ", " data-search-exclude ", 1)
        parts += [page_html[end : match.start()], opening, f"</{tag}>"]
        end = _element_end(page_html, tag, match.end())
    parts.append(page_html[end:])
    copy = FURTHER_READING.sub("", _without_doc_tables("".join(parts)))
    return FORMULA.sub(_searchable_formula, TABLE.sub(_without_page_column, copy))


def _without_doc_tables(page_html: str) -> str:
    parts, end = [], 0
    for match in DOC_TABLE.finditer(page_html):
        if match.start() >= end:
            parts.append(page_html[end : match.start()])
            end = _element_end(page_html, "table", match.end())
    return "".join(parts) + page_html[end:]


def _without_page_column(match: re.Match) -> str:
    table = match.group(0)
    header = PAGE_COLUMN.search(table)
    if not header:
        return table
    if header.group(1):  # the notation's code column too: the names are the library's, searchable there
        return LAST_TWO_CELLS.sub(r"<td\1 data-search-exclude></td><td\2 data-search-exclude></td>\3", table)
    return LAST_CELL.sub(r"<td\1 data-search-exclude></td>\3", table)


def _element_end(page_html: str, tag: str, position: int) -> int:
    """Where the element whose opening tag ends at ``position`` ends (after its closing tag)."""
    depth = 1
    for match in re.compile(rf"<(/?){tag}\b[^>]*>").finditer(page_html, position):
        depth += -1 if match.group(1) else 1
        if depth == 0:
            return match.end()
    return len(page_html)  # not closed: leave the rest out too


def _searchable_formula(match: re.Match) -> str:
    text = html.escape(formula_text(match.group(2)), quote=False)
    excluded = match.group(0).replace('class="arithmatex"', 'class="arithmatex" data-search-exclude', 1)
    return f'<span class="search-text" hidden>{text}</span>{excluded}'
