"""Name the edition on every page (``config.extra.edition``, shown by overrides/partials/copyright.html) and pin
every ``pip install git+…`` line to the commit the site is built from (tools/edition.py), so that a block copied
from the site prints what the page shows even after the library changes. Outside a git checkout the line stays
unpinned.
"""

from __future__ import annotations

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.pages import Page

from tools.edition import REPOSITORY, UNPINNED, edition


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    config.extra["edition"] = edition()
    return config


def on_page_content(html_text: str, *, page: Page, config: MkDocsConfig, files) -> str:
    pin = config.extra["edition"]["pin"]
    return UNPINNED.sub(f"{REPOSITORY}@{pin}", html_text) if pin else html_text
