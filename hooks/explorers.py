"""Put the figures a reader moves into the pages: ``<div class="explorer" data-explorer="NAME"></div>``
becomes a ``<figure>`` with the default frame's SVG inline (the figure without JavaScript), the controls
(``hidden`` until ``assets/javascripts/explorers.js`` shows them) and every frame as JSON for the script.
An explorer lives in its chapter's module under ``snippets/``; its frames are cached (``tools/cache.py``)
until a file that module imports or opens changes.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import Files
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url

from tools import chapters

PLACEHOLDER = re.compile(r'<div class="explorer" data-explorer="(?P<name>[a-z0-9-]+)">\s*</div>')
_explorers: dict[str, dict] = {}  # name -> the explorer as JSON, for this build
_addresses: dict[str, str] = {}  # name -> the address of the page it is on


def on_files(files: Files, *, config: MkDocsConfig) -> Files:
    _explorers.clear()
    _addresses.clear()
    for built in chapters.computed("explorers", "tools.explorers:chapter_explorers").values():
        _explorers.update(built)
    return files


def on_page_content(html_text: str, *, page: Page, config: MkDocsConfig, files: Files) -> str:
    if 'class="explorer"' not in html_text:
        return html_text

    def figure(match: re.Match) -> str:
        name = match.group("name")
        _addresses[name] = page.canonical_url or ""
        return _figure(name, moving=True)

    html_text, count = PLACEHOLDER.subn(figure, html_text)
    if count:
        script = get_relative_url("assets/javascripts/explorers.js", page.url)
        html_text += f'<script src="{script}" defer></script>'
    return html_text


def on_post_build(*, config: MkDocsConfig) -> None:
    """The print page (tools/pdf.py prints it) is made of the chapters before this hook saw them: its explorers
    are still placeholders. On paper each becomes its default frame, captioned with where to move it."""
    print_page = Path(config.site_dir) / "print_page" / "index.html"
    if print_page.exists():
        text = print_page.read_text(encoding="utf-8")
        print_page.write_text(PLACEHOLDER.sub(lambda m: _figure(m.group("name"), moving=False), text), "utf-8")


def _figure(name: str, *, moving: bool) -> str:
    """The explorer's figure: its default frame and caption, and, to be moved, its controls and every frame."""
    data = dict(_explorers[name])
    default = data["frames"][data["keys"]["|".join(c["default"] for c in data["controls"])]]
    shared = data.pop("shared", "")  # drawn once in the page; every frame <use>s it
    if shared:
        shared = f'<svg aria-hidden="true" width="0" height="0" style="position:absolute">{shared}</svg>'
    # Shown only on paper (print.css), where the controls are gone: the frame printed is the default one.
    address = html.escape(f"{_addresses.get(name, '')}#xp-{name}")
    paper = (
        '<span class="explorer__paper"> Printed here at its default setting; on the site you can move it: '
        f'<a href="{address}">{address}</a>.</span>'
    )
    caption = f"<figcaption>{html.escape(data['caption'])}{paper}</figcaption>"
    frame = f'<div class="explorer__frame">{default}</div>{shared}'
    if not moving:
        return f'<figure class="explorer" id="xp-{name}">{frame}{caption}</figure>'
    controls = "".join(_control(name, control) for control in data["controls"])
    frames = json.dumps(data).replace("<", "\\u003c")  # nothing in it can close the <script>
    return (
        f'<figure class="explorer" id="xp-{name}" data-search-exclude>{frame}'
        f'<form class="explorer__controls" hidden>{controls}</form>{caption}'
        f'<script type="application/json" class="explorer__data">{frames}</script></figure>'
    )


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
