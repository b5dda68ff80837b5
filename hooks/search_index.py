"""Keep the search index small: every page downloads it on its first load.

Code blocks, printed outputs (rows of numbers) and the library source repeated under each reference
entry made up two thirds of its bytes and pushed chapter pages over their 300 KB first-load budget.
Prose, headings, inline code (where the chapters name every function they use) and the reference's
signatures and docstrings stay searchable. Material's search skips any element with a
``data-search-exclude`` attribute.
"""

from __future__ import annotations

import re

NOT_SEARCHED = re.compile(
    r'<(div class="language-(?:output|python|text|bash) highlight"|details class="mkdocstrings-source")'
)


def on_page_content(html, page, config, files):
    return NOT_SEARCHED.sub(lambda match: f"<{match.group(1)} data-search-exclude", html)
