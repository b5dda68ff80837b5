"""Keep code and formulas out of the search index, which every page downloads.

Code blocks, printed outputs (rows of numbers) and the library source under each reference entry were
two thirds of the index's bytes. So every highlighted block -- chapters' code and outputs, labs' cells,
docstrings' examples -- is marked ``data-search-exclude``, which Material's search skips, and so is every
formula (still a TeX placeholder here: hooks/katex_render.py renders it when the page is written). The
reference's signatures, prose, headings, inline code (where the chapters name every function they use)
and docstrings stay searchable.
"""

from __future__ import annotations

import re

NOT_SEARCHED = re.compile(
    r'<(div class="(?![^"]*\bdoc-signature\b)[^"]*\bhighlight\b[^"]*"|details class="mkdocstrings-source"'
    r'|(?:span|div) class="arithmatex")'
)


def on_page_content(html, page, config, files):
    return NOT_SEARCHED.sub(lambda match: f"<{match.group(1)} data-search-exclude", html)
