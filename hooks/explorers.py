"""Put the figures a reader moves (``tools/explorers.py``) into the pages: ``<div class="explorer"
data-explorer="NAME"></div>`` becomes a ``<figure>`` with the default frame's SVG inline (the figure without
JavaScript), the controls (``hidden`` until ``assets/javascripts/explorers.js`` shows them) and every frame
as JSON for the script. Frames are cached in ``.cache/explorers`` by a hash of the library and the tool.
"""

from __future__ import annotations

import hashlib
import html
import importlib
import json
import re
from pathlib import Path

from mkdocs.utils import get_relative_url

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".cache" / "explorers"
PLACEHOLDER = re.compile(r'<div class="explorer" data-explorer="(?P<name>[a-z0-9-]+)">\s*</div>')


def _source_hash() -> str:
    sources = [*sorted((ROOT / "src" / "transformer_math").glob("*.py")), ROOT / "tools" / "explorers.py"]
    return hashlib.sha256(b"".join(path.read_bytes() for path in sources)).hexdigest()[:16]


def explorer_data(name: str) -> dict:
    cached = CACHE / f"{name}.{_source_hash()}.json"
    if not cached.exists():
        from tools import explorers

        data = importlib.reload(explorers).make(name).to_json()  # reload: `mkdocs serve` sees edits
        CACHE.mkdir(parents=True, exist_ok=True)
        for stale in CACHE.glob(f"{name}.*.json"):
            stale.unlink()
        cached.write_text(json.dumps(data), encoding="utf-8")
    return json.loads(cached.read_text(encoding="utf-8"))


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


def on_page_content(html_text, page, config, files):
    if 'class="explorer"' not in html_text:
        return html_text

    def figure(match: re.Match) -> str:
        name = match.group("name")
        data = explorer_data(name)
        default = data["frames"][data["keys"]["|".join(c["default"] for c in data["controls"])]]
        controls = "".join(_control(name, control) for control in data["controls"])
        shared = data.pop("shared", "")  # drawn once in the page; every frame <use>s it
        if shared:
            shared = f'<svg aria-hidden="true" width="0" height="0" style="position:absolute">{shared}</svg>'
        frames = json.dumps(data).replace("<", "\\u003c")  # nothing in it can close the <script>
        return (
            f'<figure class="explorer" id="xp-{name}" data-search-exclude><div class="explorer__frame">{default}</div>'
            f'{shared}<form class="explorer__controls" hidden>{controls}</form>'
            f"<figcaption>{html.escape(data['caption'])}</figcaption>"
            f'<script type="application/json" class="explorer__data">{frames}</script></figure>'
        )

    html_text, count = PLACEHOLDER.subn(figure, html_text)
    if count:
        script = get_relative_url("assets/javascripts/explorers.js", page.url)
        html_text += f'<script src="{script}" defer></script>'
    return html_text
