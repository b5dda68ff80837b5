"""Keep the search index small, and building it cheap.

Every page downloads the index on its first load. Code blocks, printed outputs (rows of numbers) and
the library source repeated under each reference entry made up two thirds of its bytes and pushed
chapter pages over their 300 KB first-load budget. So no highlighted block is indexed -- chapters'
code and outputs, labs' cells, docstrings' examples -- but the reference's signatures. Prose,
headings, inline code (where the chapters name every function they use), signatures and docstrings
stay searchable.

Material's search skips any element with a ``data-search-exclude`` attribute, but its HTML parser
still reads every tag inside one (every token of every highlighted line), which was the largest
single cost of a build. So its parser is fed the page without those elements (``on_config`` wraps
``Parser.feed``); the page itself keeps them.
"""

from __future__ import annotations

import re

# Every highlighted block (chapters' code and outputs, labs' cells, docstring examples) but the
# reference's signatures, and the library source under each reference entry.
NOT_SEARCHED = re.compile(
    r'<(div class="(?![^"]*\bdoc-signature\b)[^"]*\bhighlight\b[^"]*"|details class="mkdocstrings-source")'
)
EXCLUDED_START = re.compile(r"<(\w+)\b[^>]*\sdata-search-exclude\b[^>]*>")


def without_excluded(html: str) -> str:
    """``html`` without the elements marked ``data-search-exclude``, their content included."""
    kept, position = [], 0
    for start in EXCLUDED_START.finditer(html):
        if start.start() < position:  # nested inside an element already dropped
            continue
        tag = start.group(1)
        depth, end = 1, start.end()
        for match in re.compile(rf"<(/?){tag}\b[^>]*>").finditer(html, start.end()):
            depth += -1 if match.group(1) else 1
            if depth == 0:
                end = match.end()
                break
        else:
            raise ValueError(f"unclosed <{tag} data-search-exclude> in the page")
        kept.append(html[position:start.start()])
        position = end
    kept.append(html[position:])
    return "".join(kept)


def on_config(config):
    from material.plugins.search.plugin import Parser

    if not getattr(Parser.feed, "skips_excluded", False):
        feed = Parser.feed

        def feed_without_excluded(self, data):
            return feed(self, without_excluded(data))

        feed_without_excluded.skips_excluded = True
        feed_without_excluded.__wrapped__ = feed
        Parser.feed = feed_without_excluded
    return config


def on_page_content(html, page, config, files):
    return NOT_SEARCHED.sub(lambda match: f"<{match.group(1)} data-search-exclude", html)
