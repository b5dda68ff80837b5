"""Reading time under each chapter's title, and the one-day path on the home page (tools/reading_time.py counts).

A chapter of the path gets "N min on the path · M min more in folds and exercises" under its title; a "Going
deeper" page gets its minutes, off the path. The home page's ``<!-- reading-path -->`` becomes the path: each
part with its pages and their minutes, the labs that belong to it (a lab says so in its header, ``lab: path:
true``), and the totals.
"""

from __future__ import annotations

import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page

from tools import reading_path

TITLE = re.compile(r"^# .+$", re.M)
PATH_MARKER = "<!-- reading-path -->"

_path: reading_path.Path | None = None


def on_nav(nav: Navigation, *, config: MkDocsConfig, files: Files) -> Navigation:
    global _path
    _path = reading_path.compute(Path(config.config_file_path), config.nav)
    return nav


def on_page_markdown(markdown: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    entry = _path.pages.get(page.file.src_uri) if _path else None
    if entry is None:
        return markdown
    if PATH_MARKER in markdown:
        markdown = markdown.replace(PATH_MARKER, reading_path.as_markdown(_path, page.file.src_uri))
    line = f'\n<p class="reading-time">{reading_path.label(entry)}</p>\n'
    title = TITLE.search(markdown)
    return markdown[: title.end()] + line + markdown[title.end() :] if title else markdown
