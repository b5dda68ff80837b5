"""Draw the guide's figures while the site is built.

Every function registered with ``@figure`` in ``tools/figures.py`` becomes two files of the
site, ``figures/NAME.light.svg`` and ``figures/NAME.dark.svg``; pages show them with Material's
``#only-light`` / ``#only-dark`` suffixes. Nothing binary is committed. SVGs are cached under
``.cache/figures`` by a hash of the library's source and of ``tools/figures.py``, so a rebuild redraws
only after a code change, and does not even import matplotlib when nothing changed.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import re
from importlib import metadata
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "transformer_math"
CACHE = ROOT / ".cache" / "figures"


def _source_hash() -> str:
    digest = hashlib.sha256()
    for path in [*sorted(PACKAGE.glob("*.py")), ROOT / "tools" / "figures.py"]:
        digest.update(path.relative_to(ROOT).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def on_files(files, config):
    key = f"{_source_hash()}-mpl{metadata.version('matplotlib')}"
    manifest = CACHE / f"manifest.{key}.json"
    names = json.loads(manifest.read_text(encoding="utf-8")) if manifest.exists() else None
    if names is None or not all((CACHE / f"{name}.{key}.svg").exists() for name in names):
        names = _draw_all(key)  # imports matplotlib (half a second), so only when something changed
        manifest.write_text(json.dumps(names), encoding="utf-8")
    for name in names:
        files.append(
            File.generated(
                config, f"figures/{name}.svg", content=(CACHE / f"{name}.{key}.svg").read_text(encoding="utf-8")
            )
        )
    return files


def _draw_all(key: str) -> list[str]:
    """Draw every figure in every theme into the cache; returns the names ``figure.theme``."""
    from tools import figures

    figures = importlib.reload(figures)  # `mkdocs serve` picks up edits to the figure code
    CACHE.mkdir(parents=True, exist_ok=True)
    for stale in CACHE.glob("*"):
        if key not in stale.name:
            stale.unlink()
    names = []
    for name in figures.FIGURES:
        for theme in figures.THEMES:
            cached = CACHE / f"{name}.{theme}.{key}.svg"
            if not cached.exists():
                cached.write_text(figures.render_svg(name, theme), encoding="utf-8")
            names.append(f"{name}.{theme}")
    return names


FIGURE_IMG = re.compile(
    r'<img (?P<before>[^>]*?)src="(?P<src>[^"#]*figures/(?P<file>[a-z0-9-]+\.(?:light|dark)\.svg))(?P<fragment>#[^"]*)?"(?P<after>[^>]*?)\s*/?>'
)
SVG_SIZE = re.compile(r'<svg[^>]*?\swidth="(?P<width>[\d.]+)pt"\s+height="(?P<height>[\d.]+)pt"')


def _size_in_px(svg: str) -> tuple[int, int] | None:
    match = SVG_SIZE.search(svg)
    if match is None:
        return None
    return round(float(match.group("width")) * 4 / 3), round(float(match.group("height")) * 4 / 3)


def on_page_content(html, page, config, files):
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
