"""Name the edition on every page (``config.extra.edition``, shown by overrides/partials/copyright.html) and pin
every ``pip install git+…`` line to the commit the site is built from (tools/edition.py), so that a block copied
from the site prints what the page shows even after the library changes. Outside a git checkout the line stays
unpinned.
"""

from __future__ import annotations

import json
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.pages import Page

from tools.edition import REPOSITORY, UNPINNED, edition


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    config.extra["edition"] = edition()
    return config


def on_page_content(html_text: str, *, page: Page, config: MkDocsConfig, files) -> str:
    pin = config.extra["edition"]["pin"]
    return UNPINNED.sub(f"{REPOSITORY}@{pin}", html_text) if pin else html_text


def on_post_build(*, config: MkDocsConfig) -> None:
    """The print page (tools/pdf.py prints it) is made of the chapters before this hook saw them: pin it too, and
    give it the edition this build named, for the PDF's title page (a commit made while it prints changes nothing)."""
    print_page = Path(config.site_dir) / "print_page" / "index.html"
    if print_page.exists():
        text = on_page_content(print_page.read_text(encoding="utf-8"), page=None, config=config, files=None)
        named = json.dumps(config.extra["edition"]).replace("<", "\\u003c")
        text = text.replace("</head>", f'<script type="application/json" id="edition">{named}</script></head>', 1)
        print_page.write_text(text, "utf-8")
