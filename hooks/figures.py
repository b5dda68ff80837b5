"""Draw the guide's figures while the site is built.

Every function registered with ``@figure`` in a chapter's module (``snippets/``, ``tools/chapters.py``)
becomes two files of the site, ``figures/NAME.light.svg`` and ``figures/NAME.dark.svg``; pages show them
with Material's ``#only-light`` / ``#only-dark`` suffixes. Nothing binary is committed. A chapter's SVGs
are cached (``tools/cache.py``) until a file its module imports or opens changes, so a rebuild draws only
what an edit touched, and does not even import matplotlib when nothing changed.
"""

from __future__ import annotations

import re
from importlib import metadata

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from tools import chapters


def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    drawn = chapters.computed(
        "figures", "tools.figures:chapter_svgs", salt=f"matplotlib {metadata.version('matplotlib')}"
    )
    for svgs in drawn.values():
        for name, svg in svgs.items():
            files.append(File.generated(config, f"figures/{name}.svg", content=svg))
    return files


def on_page_content(html: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Give each figure its size (no layout shift when it arrives), load it lazily (the hidden theme's
    variant is then never fetched), and link it to its SVG so a phone reader can open it full size."""

    def figure(match: re.Match) -> str:
        attributes = match.group("before") + match.group("after")
        file = files.get_file_from_path(f"figures/{match.group('file')}")
        size = _size_in_px(file.content_string) if file is not None else None
        if size and "width=" not in attributes:
            attributes += f' width="{size[0]}" height="{size[1]}"'
        if "loading=" not in attributes:
            attributes += ' loading="lazy"'
        image = f'<img {attributes.strip()} src="{match.group("src")}{match.group("fragment") or ""}" />'
        theme = "dark" if match.group("file").endswith(".dark.svg") else "light"
        return (
            f'<a class="figure-link figure-link--{theme}" href="{match.group("src")}" '
            f'title="Open the figure full size">{image}</a>'
        )

    return FIGURE_IMG.sub(figure, html)


FIGURE_IMG = re.compile(
    r'<img (?P<before>[^>]*?)src="(?P<src>[^"#]*figures/(?P<file>[a-z0-9-]+\.(?:light|dark)\.svg))(?P<fragment>#[^"]*)?"(?P<after>[^>]*?)\s*/?>'
)
SVG_SIZE = re.compile(r'<svg[^>]*?\swidth="(?P<width>[\d.]+)pt"\s+height="(?P<height>[\d.]+)pt"')


def _size_in_px(svg: str) -> tuple[int, int] | None:
    match = SVG_SIZE.search(svg)
    if match is None:
        return None
    return round(float(match.group("width")) * 4 / 3), round(float(match.group("height")) * 4 / 3)
