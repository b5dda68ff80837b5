"""Keep the search index small: every page downloads it on its first load.

Printed outputs (rows of numbers) and the library source repeated under each reference entry make
up most of its bytes and answer no search a reader makes; the chapters' code, prose and the
reference's signatures and docstrings stay searchable. Material's search skips any element with a
``data-search-exclude`` attribute.
"""

from __future__ import annotations

import re

NOT_SEARCHED = re.compile(r'<(div class="language-output highlight"|details class="mkdocstrings-source")')


def on_page_content(html, page, config, files):
    return NOT_SEARCHED.sub(lambda match: f"<{match.group(1)} data-search-exclude", html)
