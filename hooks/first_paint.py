"""What a page needs before its first paint, in one request, and nothing that moves after it.

One stylesheet. The theme links its two stylesheets, then every ``extra_css`` (KaTeX's, mkdocstrings',
the guide's own): seven render-blocking requests. On a phone's connection each extra request costs a
round trip before anything is drawn (Lighthouse put first paint at 1.6-2.3 s with seven, about 1.1 s
with one). ``on_env`` joins them, in the same order and so with the same cascade, into
``assets/stylesheets/site.<hash>.css``; ``url()`` references are rewritten for the new location and
the hash changes with the content, so a browser never keeps a stale copy. A stylesheet this hook cannot
read at that point stays a link of its own. After the build, hooks/unused_rules.py takes out the rules
that no page uses and renames the file by its new content.

Tables drawn once, complete, and wrapped as the theme's script wraps them. A browser paints a page
before it has parsed all of it (a phone after every few hundred elements, and a row of formulas is
hundreds); a table painted with half its rows gets new column widths when the rest arrives, and the
rows already on screen move. So each table is followed by an empty ``span.table-end``, and
``extra.css`` shows a table only once that span exists, that is once the table is complete
(``:has()``; a browser without it shows the table at once, as before). Material's script puts every
table without a class (``table:not([class])``) in two ``div``s once the page has loaded: that changed
its width and made the rows below move (layout shift of up to 0.018), and taking the table out of the
page and putting it back made the browser style and lay out all of it again (Lighthouse's total
blocking time on part-4/notation fell from 735 to 470 ms without it). So the page arrives wrapped, and
the table has the class ``md-table``, which the script leaves alone; in the joined stylesheet the
theme's rules for ``table:not([class])`` are made to match ``table.md-table`` too, with the same
specificity.

Less restyling when the theme's script starts. The theme marks ``body`` with
``data-md-color-switching`` while it applies the colour palette, and its stylesheet turns off every
transition under that attribute (``[data-md-color-switching] *``); setting and removing it made the
browser restyle the whole page twice on every load (about 80 ms of the theme script's first task on
part-3/derivatives under 4x CPU slowdown). The joined stylesheet leaves that rule out: when a reader
switches between light and dark, the few elements with a colour transition (links, buttons) fade over
a tenth of a second instead of switching at once.

The theme's script on the reader's first input. ``on_env`` finds the theme's script (its name carries
a hash) for overrides/main.html, which adds it when the reader first touches, clicks, scrolls or types,
instead of at the end of the body, where the browser ran it while the page loaded; see that template.

Chunks. Below its first screens, a page's blocks between two headings are wrapped in a ``div.md-chunk``
that the browser lays out only near the screen; see :func:`chunked`.
"""

from __future__ import annotations

import hashlib
import posixpath
import re
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import File

STYLESHEET_DIR = "assets/stylesheets"
THEME_STYLESHEETS = (r"assets/stylesheets/main\.[0-9a-f]+\.min\.css", r"assets/stylesheets/palette\.[0-9a-f]+\.min\.css")
COLOR_SCHEME = re.compile(r"\[data-md-color-scheme=([\w-]+)\]\{color-scheme:([\w -]+)[;}]")
COLOR_SWITCHING = re.compile(r"\[data-md-color-switching\][^{}]*\{[^{}]*\}")
URL = re.compile(r"""url\((["']?)([^)"']+)\1\)""")
PLAIN_TABLE = re.compile(r"<table>(.*?)</table>", re.S)
THEME_SCRIPT = r"assets/javascripts/bundle\.[0-9a-f]+\.min\.js"
THEME_TABLE = "table:not([class])"  # the theme's selector for a Markdown table, in its CSS and its script
TABLE_CLASS = "md-table"


def rebase_urls(css: str, source: str, target_dir: str = STYLESHEET_DIR) -> str:
    """Rewrite the relative ``url()`` references of the stylesheet at ``source`` for one in ``target_dir``."""

    def rebase(match: re.Match) -> str:
        quote, url = match.groups()
        if url.startswith(("data:", "#", "/")) or "//" in url:
            return match.group(0)
        target = posixpath.normpath(posixpath.join(posixpath.dirname(source), url))
        return f"url({quote}{posixpath.relpath(target, target_dir)}{quote})"

    return URL.sub(rebase, css)


def _theme_stylesheets(files, config) -> list[str]:
    wanted = THEME_STYLESHEETS if config.theme.get("palette") else THEME_STYLESHEETS[:1]
    found = []
    for pattern in wanted:
        matches = [file.src_uri for file in files if re.fullmatch(pattern, file.src_uri)]
        if len(matches) != 1:
            raise PluginError(f"first_paint: expected one theme stylesheet matching {pattern}, found {matches}")
        found += matches
    return found


@event_priority(-50)  # after mkdocstrings writes its stylesheet (on_env, priority -20)
def on_env(env, config, files):
    parts, separate = [], []
    for path in _theme_stylesheets(files, config) + list(config.extra_css):
        file = files.get_file_from_path(path)
        written = Path(config.site_dir) / path
        if file is not None:
            css = file.content_string
        elif written.is_file():
            css = written.read_text(encoding="utf-8")
        else:
            separate.append(path)
            continue
        css = re.sub(r'@charset "[^"]*";|/\*# sourceMappingURL=[^*]*\*/', "", css)
        css = css.replace(THEME_TABLE, f"table:is(:not([class]),.{TABLE_CLASS})")
        css = COLOR_SWITCHING.sub("", css)
        parts.append(f"/* {path} */\n{rebase_urls(css, path).strip()}\n")
    combined = "".join(parts)
    # The browser's colour scheme of each palette (light or dark), for the color-scheme meta element
    # that overrides/partials/javascripts/palette.html sets before the page is drawn.
    config.extra["color_schemes"] = dict(COLOR_SCHEME.findall(combined))
    name = f"{STYLESHEET_DIR}/site.{hashlib.sha256(combined.encode()).hexdigest()[:8]}.css"
    files.append(File.generated(config, name, content=combined))
    # overrides/main.html links config.extra.stylesheet instead of the theme's two stylesheets; the
    # theme's base.html then links what is left in extra_css.
    config.extra["stylesheet"] = name
    config.extra_css[:] = separate
    # overrides/main.html starts the theme's script on the reader's first input.
    scripts = [file.src_uri for file in files if re.fullmatch(THEME_SCRIPT, file.src_uri)]
    if len(scripts) != 1:
        raise PluginError(f"first_paint: expected one theme script matching {THEME_SCRIPT}, found {scripts}")
    config.extra["theme_script"] = scripts[0]
    return env


def on_page_content(html, page, config, files):
    html = PLAIN_TABLE.sub(
        rf'<div class="md-typeset__scrollwrap whole-table"><div class="md-typeset__table"><table class="{TABLE_CLASS}">\1</table></div></div>'
        r'<span class="table-end" hidden></span>',
        html,
    )
    return chunked(html) if page.file.src_uri.endswith(".md") else html


# --- chunks: the browser lays out what is near the screen ---------------------------------------

EAGER_PX = 1500  # estimated height (at phone width) of the top of a page, never put in a chunk
MIN_CHUNK_PX = 300  # smaller runs are not worth a chunk
MAX_CHUNK_PX = 800  # a longer run is cut into chunks of about this height (see chunked)
LAST_CHUNK_MARGIN = 2  # the last chunk reserves this times its estimate (real heights: 0.8-1.4 times)
# One tag, comment or whole <pre> (it holds no block, and its highlighted tokens were most of the
# tags). Every branch starts after the "<" (so the regex engine jumps from "<" to "<"), and a body is
# read as "anything but <, or a < that does not close it" rather than ".*?" (which tries to close at
# every character): together 43 -> 24 ms over the guide's pages.
TAG = re.compile(
    r"""<(?:
        !--.*?-->                                             # a comment
      | (?P<pre>pre\b(?:[^<]++|<(?!/pre>))*+</pre>)          # a whole <pre>...</pre>
      | (?P<closing>/?)(?P<name>[a-zA-Z][\w:-]*+)\b[^>]*?(?P<self_closing>/?)>  # a start or end tag
    )""",
    re.S | re.X,
)
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
HEADING = re.compile(r"<h[1-6]\b")
OUTPUT_BLOCK = re.compile(r'\s*<div class="language-output\b')  # stays with the code block above it
# Boxes that scroll sideways when too wide. Until a chunk is drawn nobody knows which are, so in chunks
# they start focusable (keyboard users can reach any that scrolls); once the chunk is drawn, the script
# in overrides/main.html keeps tabindex on those that do scroll and removes it from the others.
SCROLL_BOXES = re.compile(r'(<pre\b[^>]*>(?:<span></span>)?<code\b|<div\b(?=[^>]*\bclass="arithmatex")[^>]*?(?=\s*>))')


def top_level_blocks(html: str) -> list[str] | None:
    """``html`` cut into its top-level elements (whitespace between them kept with the next one), or
    None when it is not a plain sequence of well-nested elements (then nothing is chunked)."""
    if "<script" in html or "<style" in html:
        return None
    blocks, depth, start = [], 0, 0
    for match in TAG.finditer(html):
        pre, closing, name, self_closing = match.groups()
        if pre is None and name is None:  # a comment
            continue
        if not closing and depth == 0 and html[start:match.start()].strip():
            return None  # text outside any element
        if pre is not None or name.lower() in VOID or self_closing:
            if depth == 0:
                blocks.append(html[start:match.end()])
                start = match.end()
        elif not closing:
            depth += 1
        else:
            depth -= 1
            if depth < 0:
                return None
            if depth == 0:
                blocks.append(html[start:match.end()])
                start = match.end()
    if depth != 0 or html[start:].strip():
        return None
    return blocks + [html[start:]]


# A collapsed solution (one line shows) and a code block; bodies read as in TAG.
CLOSED_DETAILS = re.compile(r"<details\b(?![^>]*\bopen)[^>]*>(?:[^<]++|<(?!/details>))*+</details>")
PRE = re.compile(r"<pre\b(?:[^<]++|<(?!/pre>))*+</pre>")
TAG_ONLY = re.compile(r"<[^>]+>")
IMAGE_HEIGHT = re.compile(r'<img [^>]*height="(\d+)"')


def estimated_height(block: str) -> float:
    """A rough height in CSS pixels of one block on a phone (375 px wide): it only sets the space a
    chunk takes until it is first drawn, after which the browser remembers the real one. Whitespace
    between blocks takes none."""
    if not block.strip():
        return 0.0
    collapsed = len(CLOSED_DETAILS.findall(block)) * 48
    block = CLOSED_DETAILS.sub("", block)
    code_lines = sum(code.count("\n") + 1 for code in PRE.findall(block))
    prose = PRE.sub("", block)
    text = TAG_ONLY.sub("", prose)
    images = sum(int(height) for height in IMAGE_HEIGHT.findall(prose)) / 2  # light + dark
    return (len(text) / 45 * 21 + code_lines * 19 + prose.count('class="arithmatex">\\[') * 60
            + prose.count("<tr") * 36 + images + collapsed + 24)


def chunked(html: str) -> str:
    """Put each run of blocks between two headings, below the top of the page, in a ``div.md-chunk``;
    a run that starts in the top and goes on below it is cut where the top ends, and a long run is cut
    into chunks of about ``MAX_CHUNK_PX`` (never between a code block and the output block under it).

    ``extra.css`` gives chunks ``content-visibility: auto``: the browser skips the style and layout
    of a chunk until it comes near the screen, so a long page of formulas and code no longer costs
    one long layout of everything before the reader can scroll (Lighthouse's total blocking time on
    the longest chapters fell from 0.6-0.9 s to 0.1-0.3 s). Find in page, anchors, screen readers and
    printing see all of it. Headings stay outside the chunks, so the theme's table of contents can
    read where they are without laying a chunk out. Each chunk reserves its estimated height
    (``contain-intrinsic-size``) until it has been drawn once. Chunks are drawn only as the reader
    scrolls near them: drawing the rest once the page had loaded cost a phone one long task per
    chunk (nine on part-3/optimizers, about 600 ms of Lighthouse's total blocking time).

    "Near" is generous: Chromium draws a chunk once any part of it is within more than a screen of the
    screen (one starting 1,000 px below an 823 px screen was drawn), and then all of it. A section of
    3,200 px starting just below the top was drawn whole with the first paint (part-4/backprop: 2,389
    elements, the first style and layout 160-180 ms in Lighthouse's traces against 75-107 on
    part-3/derivatives); cut into chunks of a phone screen, only those near it are.

    The run after the last heading is never cut, and reserves twice its estimate. A chunk not yet
    drawn takes the height it reserves, but a tool that asks where its contents are (an accessibility
    checker) gets where they really are, and a chunk taller than its reserve then reaches into
    whatever follows it. After a chunk that is the next heading or chunk, which have no background; after the last
    one it is the theme's dark footer, and axe-core judged a collapsed solution's summary, whose
    background is see-through, against the footer's colour (Lighthouse accessibility 96 on
    part-3/softmax-cross-entropy). Real heights measured 0.8-1.4 times the estimate over every
    chunk at 375 and 412 px, so the last one reserves twice that; tests/test_browser.py fails when its
    contents outgrow the reserve. (It was left unchunked before: then a phone styled and laid out its
    1,000-1,700 elements with the rest of the page, about a fifth of the load's style and layout.)
    """
    blocks = top_level_blocks(html)
    if blocks is None:
        return html
    out, run, top, run_top, run_height = [], [], 0.0, 0.0, 0.0

    def flush(last: bool = False) -> None:
        if run_top >= EAGER_PX and run_height >= MIN_CHUNK_PX:
            content = SCROLL_BOXES.sub(r'\1 tabindex="0"', "".join(run))
            reserved = run_height * (LAST_CHUNK_MARGIN if last else 1)
            out.append(f'<div class="md-chunk" style="contain-intrinsic-size: auto {round(reserved)}px">{content}</div>')
        else:
            out.extend(run)
        run.clear()

    # The last section stays one chunk: the smaller a chunk, the further its real height strays from its
    # estimate, and the last one must hold its contents (a cut one overran twice its estimate).
    headings = {index for index, block in enumerate(blocks) if HEADING.search(block)}
    last_heading = max(headings, default=-1)
    for index, block in enumerate(blocks):
        height = estimated_height(block)
        if index in headings:
            flush()
            out.append(block)
        else:
            if run and not OUTPUT_BLOCK.match(block) and (
                run_top < EAGER_PX <= top  # a section that starts in the top is cut where the top ends
                or index < last_heading and run_top >= EAGER_PX and MIN_CHUNK_PX <= run_height
                and run_height + height > MAX_CHUNK_PX
            ):
                flush()
            if not run:
                run_top, run_height = top, 0.0
            run.append(block)
            run_height += height
        top += height
    flush(last=True)
    return "".join(out)
