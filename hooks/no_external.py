"""Fail the build when a page would make the reader's browser contact another host.

Links (``<a href>``) may point anywhere: a reader chooses to follow them. Anything the browser loads
by itself -- scripts, stylesheets, images, fonts, frames, media, CSS ``url()``/``@import`` -- must come
from the site. This is the guide's privacy and speed rule, checked on every page and stylesheet.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.pages import Page

EXTERNAL = re.compile(r"^(?:[a-z][a-z0-9+.-]*:)?//", re.I)
CSS_URL = re.compile(r"""(?:url\(\s*['"]?|@import\s+['"])([^'")\s]+)""", re.I)
LOADING_ATTRIBUTES = {
    "script": ("src",),
    "img": ("src", "srcset"),
    "source": ("src", "srcset"),
    "iframe": ("src",),
    "video": ("src", "poster"),
    "audio": ("src",),
    "embed": ("src",),
    "object": ("data",),
    "track": ("src",),
    "image": ("href",),
    "use": ("href",),
}
LOADING_LINK_RELS = {
    "stylesheet",
    "icon",
    "preload",
    "prefetch",
    "modulepreload",
    "manifest",
    "apple-touch-icon",
    "preconnect",
    "dns-prefetch",
}


# Only a tag or a stylesheet that mentions "//" can name another host; parsing just those keeps the
# check fast on pages of thousands of formula elements.
CANDIDATES = re.compile(r"<style\b.*?</style>|<[a-zA-Z][^>]*//[^>]*>", re.S | re.I)


# --- MkDocs events ------------------------------------------------------------------------------


@event_priority(-100)  # last: the page as it is written, with every hook's additions
def on_post_page(output: str, *, page: Page, config: MkDocsConfig) -> str | None:
    """Fail on a page that would load from another host."""
    found = external_requests(output)
    if found:
        raise PluginError(f"{page.file.src_uri} would load from another host: " + "; ".join(found))
    return output


def on_post_build(*, config: MkDocsConfig) -> None:
    """Fail on a stylesheet of the site (the theme's, KaTeX's, ours) that would load from another host."""
    for css in Path(config.site_dir).rglob("*.css"):
        found = [
            url for url in CSS_URL.findall(css.read_text(encoding="utf-8", errors="replace")) if EXTERNAL.match(url)
        ]
        if found:
            raise PluginError(f"{css.relative_to(config.site_dir)} would load from another host: {', '.join(found)}")


# --- finding requests ---------------------------------------------------------------------------


class _RequestFinder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.external: list[str] = []

    def handle_starttag(self, tag, attrs):
        values = dict(attrs)
        urls = [values.get(name) or "" for name in LOADING_ATTRIBUTES.get(tag, ())]
        if tag == "link" and set((values.get("rel") or "").lower().split()) & LOADING_LINK_RELS:
            urls.append(values.get("href") or "")
        urls += CSS_URL.findall(values.get("style") or "")
        for url in urls:
            for candidate in url.split(","):
                candidate = candidate.strip().split(" ")[0]
                if EXTERNAL.match(candidate):
                    self.external.append(f"<{tag}> loads {candidate}")

    def handle_data(self, data):
        if self.lasttag == "style":
            self.external += [f"<style> loads {url}" for url in CSS_URL.findall(data) if EXTERNAL.match(url)]


def external_requests(page_html: str) -> list[str]:
    """Every URL on another host that the browser would load by itself for this HTML."""
    finder = _RequestFinder()
    for candidate in CANDIDATES.findall(page_html):
        finder.feed(candidate)
        finder.close()
        finder.reset()
    return finder.external
