"""Put the figures a reader moves into the pages: ``<div class="explorer" data-explorer="NAME"></div>``
becomes a ``<figure>`` with the default frame's SVG inline (the figure without JavaScript), the controls
(``hidden`` until ``assets/javascripts/explorers.js`` shows them) and every frame as JSON for the script.
An explorer lives in its chapter's module under ``docs_src/``; its frames are cached (``tools/cache.py``)
until a file that module imports or opens changes.
"""

from __future__ import annotations

import html
import json
import re

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

from tools import chapters

PLACEHOLDER = re.compile(r'<div class="explorer" data-explorer="(?P<name>[a-z0-9-]+)">\s*</div>')
_explorers: dict[str, dict] = {}  # name -> the explorer as JSON, for this build


def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    _explorers.clear()
    for built in chapters.computed("explorers", "tools.explorers:chapter_explorers").values():
        _explorers.update(built)
    return files


def on_page_content(html_text: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    if 'class="explorer"' not in html_text:
        return html_text

    def figure(match: re.Match) -> str:
        name = match.group("name")
        data = dict(_explorers[name])
        default = data["frames"][data["keys"]["|".join(c["default"] for c in data["controls"])]]
        controls = "".join(_control(name, control) for control in data["controls"])
        shared = data.pop("shared", "")  # drawn once in the page; every frame <use>s it
        if shared:
            shared = f'<svg aria-hidden="true" width="0" height="0" style="position:absolute">{shared}</svg>'
        frames = json.dumps(data).replace("<", "\\u003c")  # nothing in it can close the <script>
        # Shown only on paper (print.css), where the controls are gone: the frame printed is the default one.
        address = html.escape(f"{page.canonical_url or ''}#xp-{name}")
        paper = (
            '<span class="explorer__paper"> Printed here at its default setting; on the site you can move it: '
            f'<a href="{address}">{address}</a>.</span>'
        )
        return (
            f'<figure class="explorer" id="xp-{name}" data-search-exclude><div class="explorer__frame">{default}</div>'
            f'{shared}<form class="explorer__controls" hidden>{controls}</form>'
            f"<figcaption>{html.escape(data['caption'])}{paper}</figcaption>"
            f'<script type="application/json" class="explorer__data">{frames}</script></figure>'
        )

    html_text, count = PLACEHOLDER.subn(figure, html_text)
    if count:
        script = get_relative_url("assets/javascripts/explorers.js", page.url)
        html_text += f'<script src="{script}" defer></script>'
    return html_text


def _control(name: str, control: dict) -> str:
    ident, values = f"xp-{name}-{control['name']}", control["values"]
    index = values.index(control["default"])
    label = f'<label for="{ident}">{html.escape(control["label"])}</label>'
    if control["kind"] == "range":
        text = html.escape(control["texts"][index])
        field = (
            f'<input type="range" id="{ident}" name="{control["name"]}" min="0" max="{len(values) - 1}" step="1" '
            f'value="{index}" aria-valuetext="{text}"><output for="{ident}">{text}</output>'
        )
        return f'<div class="explorer__control explorer__control--range">{label}{field}</div>'
    if control["kind"] == "toggle":
        checked = " checked" if index else ""
        return f'<div class="explorer__control"><input type="checkbox" id="{ident}" name="{control["name"]}"{checked}>{label}</div>'
    options = "".join(
        f'<option value="{value}"{" selected" if i == index else ""}>{html.escape(text)}</option>'
        for i, (value, text) in enumerate(zip(values, control["texts"]))
    )
    return (
        f'<div class="explorer__control">{label}<select id="{ident}" name="{control["name"]}">{options}</select></div>'
    )
